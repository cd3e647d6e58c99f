/* Accessibility repairs of the theme's markup (checked by tests/test_accessibility.py with axe-core).
 *
 *   - A button or a fold whose aria-label leaves out its visible text (the search field:
 *     "Search Ctrl+K" named "Search"; "Show code cell source" named "Toggle hidden content")
 *     is named by its text instead (WCAG 2.5.3, label in name).
 *   - The colour-mode button's icons carry titles ("Light", "Dark") that count as its visible
 *     text; the icons are decoration, the button's name is "Color mode". Font Awesome's script
 *     turns each <i title> into an <svg> with a <title> at an animation frame of its own, which
 *     may come before this script or after the page's load event (seen once on a loaded
 *     machine): the icons are quieted in either form, and again whenever they are redrawn.
 *   - A <summary> with only an icon (the chapter list's fold arrows) is named after its section.
 *   - A box that scrolls sideways (code, wide outputs, tables, formulas) can be reached with the
 *     keyboard: it becomes a focusable, named region (WCAG 2.1.1).
 */
(function () {
  "use strict";
  const SCROLLERS = "pre, .cell_output .output, .pst-scrollable-table-container, .bd-article mjx-container, .bd-article figure";

  function quietIcons() {
    document.querySelectorAll(".theme-switch-button i, .theme-switch-button span, .theme-switch-button svg")
      .forEach((icon) => {
        if (icon.tagName.toLowerCase() === "svg") {
          icon.querySelectorAll("title").forEach((title) => title.remove());
          icon.removeAttribute("aria-labelledby");
          icon.removeAttribute("role");
        }
        icon.removeAttribute("title");
        if (icon.getAttribute("aria-hidden") !== "true") icon.setAttribute("aria-hidden", "true");
      });
  }

  function nameButtons() {
    quietIcons(); // first: the icons' titles are not the button's text
    document.querySelectorAll("button[aria-label], a[aria-label], summary[aria-label]").forEach((el) => {
      const text = el.textContent.replace(/\s+/g, " ").trim();
      const label = el.getAttribute("aria-label");
      if (text && !label.toLowerCase().includes(text.toLowerCase())) el.removeAttribute("aria-label");
    });
  }

  const iconWatch = new MutationObserver(quietIcons); // Font Awesome redraws the icons when it likes

  function watchIcons() {
    document.querySelectorAll(".theme-switch-button").forEach((button) => {
      if (button.dataset.bvWatched) return;
      button.dataset.bvWatched = "true";
      iconWatch.observe(button, { childList: true, subtree: true });
    });
  }

  function nameSummaries() {
    document.querySelectorAll("summary").forEach((summary) => {
      if (summary.textContent.trim() || summary.hasAttribute("aria-label")) return;
      const link = summary.parentElement && summary.parentElement.parentElement
        ? summary.parentElement.parentElement.querySelector(":scope > a") : null;
      const what = link ? link.textContent.replace(/\s+/g, " ").trim() : "";
      summary.setAttribute("aria-label", what ? `Sections of ${what}` : "Show or hide");
    });
  }

  function focusableScrollers() {
    document.querySelectorAll(SCROLLERS).forEach((box) => {
      const scrolls = box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;
      const style = getComputedStyle(box);
      if (!scrolls || !/(auto|scroll)/.test(style.overflowX + style.overflowY)) return;
      if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
      if (!box.hasAttribute("role")) box.setAttribute("role", "region");
      if (!box.hasAttribute("aria-label")) box.setAttribute("aria-label", box.tagName === "PRE" ? "code (scrolls)" : "wide content (scrolls)");
    });
  }

  function setup() {
    nameButtons();
    watchIcons();
    nameSummaries();
    focusableScrollers();
    document.documentElement.dataset.bvA11y = document.readyState; // the tests wait for "complete"
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
  window.addEventListener("load", setup);
  window.addEventListener("resize", focusableScrollers);
})();
