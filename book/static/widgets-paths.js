// Loaded between require.js and the ipywidgets html-manager: point require.js at the copy of the
// html-manager served by this site, so that its icon fonts load from here and not relative to the page.
(function () {
  var url = new URL(document.currentScript.src);
  var dir = url.origin + url.pathname.slice(0, url.pathname.lastIndexOf("/") + 1) + "widgets";
  window.require.config({ paths: { "@jupyter-widgets/html-manager/dist": dir } });
})();
