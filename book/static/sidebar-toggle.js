/* The chapter list on every screen.
 *
 * pydata-sphinx-theme 0.17 binds its sidebar opener to the first element with class
 * `primary-toggle`, which with sphinx-book-theme is a hidden header button; the visible
 * one in the article header then does nothing (pydata-sphinx-theme issue 2451).  This
 * script gives every primary toggle one behaviour:
 *   - on a narrow screen (where the theme hides the sidebar) it opens the theme's own
 *     sidebar dialog, which the theme closes on Escape or a click outside it;
 *   - on a wide screen it hides or shows the sidebar, and says which in aria-expanded.
 */
(function () {
  "use strict";
  const WIDE = "(min-width: 960px)";

  function moveInto(from, to) {
    Array.from(from.childNodes).forEach((node) => to.appendChild(node));
    Array.from(from.classList).forEach((name) => {
      from.classList.remove(name);
      to.classList.add(name);
    });
  }

  function setup() {
    const sidebar = document.getElementById("pst-primary-sidebar");
    const dialog = document.getElementById("pst-primary-sidebar-modal");
    const toggles = Array.from(document.querySelectorAll(".primary-toggle"));
    if (!sidebar || !dialog || !toggles.length) return;
    const sync = () =>
      toggles.forEach((t) =>
        t.setAttribute(
          "aria-expanded",
          String(window.matchMedia(WIDE).matches ? !sidebar.classList.contains("bv-collapsed") : dialog.open),
        ),
      );
    toggles.forEach((toggle) =>
      toggle.addEventListener(
        "click",
        (event) => {
          event.preventDefault();
          event.stopImmediatePropagation();
          if (window.matchMedia(WIDE).matches) {
            sidebar.classList.toggle("bv-collapsed");
          } else if (!dialog.open) {
            moveInto(sidebar, dialog); // the theme moves it back when the dialog closes
            dialog.showModal();
          }
          sync();
        },
        true,
      ),
    );
    dialog.addEventListener("close", () => setTimeout(sync, 0));
    window.addEventListener("resize", sync);
    sync();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();
