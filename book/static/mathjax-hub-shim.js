// The ipywidgets html-manager 1.x typesets widget text with the MathJax 2 call
// MathJax.Hub.Queue(["Typeset", MathJax.Hub, element]). This book uses MathJax 3, which has no Hub.
// Runs after Sphinx's MathJax configuration and before the (deferred) MathJax script.
(function () {
  var pending = [];
  function hub(mj) {
    return {
      Queue: function (job) {
        var el = job && job[2];
        if (mj && mj.typesetPromise) {
          mj.typesetPromise(el ? [el] : undefined).catch(function () {});
        } else if (el) {
          pending.push(el);
        }
      }
    };
  }
  var config = window.MathJax || {};
  config.Hub = hub(null);
  config.startup = config.startup || {};
  config.startup.ready = function () {
    window.MathJax.startup.defaultReady();
    window.MathJax.Hub = hub(window.MathJax);
    window.MathJax.startup.promise.then(function () {
      if (pending.length) {
        window.MathJax.typesetPromise(pending.splice(0)).catch(function () {});
      }
    });
  };
  window.MathJax = config;
})();
