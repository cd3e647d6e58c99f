/* The chapter list and the page's contents on every screen.
 *
 * pydata-sphinx-theme 0.17 binds each sidebar opener to the first element with class
 * `primary-toggle` (chapter list) or `secondary-toggle` (page contents, "On this page"),
 * which with sphinx-book-theme is a hidden header button; the visible one in the article
 * header then does nothing (pydata-sphinx-theme issue 2451).  This script gives every
 * toggle one behaviour:
 *   - on a narrow screen (where the theme hides that sidebar) it opens the theme's own
 *     sidebar dialog, which the theme closes on Escape or a click outside it; a second
 *     click on the button (or a link of the page contents) closes it too;
 *   - on a wide screen the chapter list's button hides or shows the sidebar (the page
 *     contents' button is not shown there); aria-expanded says which.
 */
(function () {
  "use strict";
  const SIDEBARS = [
    { toggle: ".primary-toggle", sidebar: "pst-primary-sidebar", dialog: "pst-primary-sidebar-modal", wide: "(min-width: 960px)" },
    { toggle: ".secondary-toggle", sidebar: "pst-secondary-sidebar", dialog: "pst-secondary-sidebar-modal", wide: "(min-width: 1200px)" },
  ];

  function moveInto(from, to) {
    Array.from(from.childNodes).forEach((node) => to.appendChild(node));
    Array.from(from.classList).forEach((name) => {
      from.classList.remove(name);
      to.classList.add(name);
    });
  }

  function setup(kind) {
    const sidebar = document.getElementById(kind.sidebar);
    const dialog = document.getElementById(kind.dialog);
    const toggles = Array.from(document.querySelectorAll(kind.toggle));
    if (!sidebar || !dialog || !toggles.length) return;
    const wide = () => window.matchMedia(kind.wide).matches;
    const sync = () =>
      toggles.forEach((t) => {
        t.setAttribute("aria-expanded", String(wide() ? !sidebar.classList.contains("bv-collapsed") : dialog.open));
        t.setAttribute("aria-controls", wide() ? kind.sidebar : kind.dialog);
      });
    toggles.forEach((toggle) =>
      toggle.addEventListener(
        "click",
        (event) => {
          event.preventDefault();
          event.stopImmediatePropagation();
          if (wide()) {
            sidebar.classList.toggle("bv-collapsed");
          } else if (dialog.open) {
            dialog.close();
          } else {
            moveInto(sidebar, dialog); // the theme moves it back when the dialog closes
            dialog.showModal();
          }
          sync();
        },
        true,
      ),
    );
    // a link of the page contents scrolls the page: the dialog gets out of the way
    dialog.addEventListener("click", (event) => {
      if (kind.toggle === ".secondary-toggle" && event.target.closest("a[href^='#']")) dialog.close();
    });
    dialog.addEventListener("close", () => setTimeout(sync, 0));
    window.addEventListener("resize", sync);
    sync();
  }

  function setupAll() {
    SIDEBARS.forEach(setup);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setupAll);
  else setupAll();
})();
