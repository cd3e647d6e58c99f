// The report's tables: a click on a column heading sorts by it; long tables show one page at a time.
// Without script every row is shown, inside a box that scrolls: nothing is ever clipped.
(function () {
  "use strict";
  function key(td) {
    const raw = td.getAttribute("data-sort");
    const num = raw === null || raw === "" ? NaN : Number(raw);
    return Number.isFinite(num) ? num : (td.textContent || "").toLowerCase();
  }
  function pager(table) {
    const size = Number(table.getAttribute("data-page"));
    if (!size) return null;
    const bar = document.createElement("div");
    bar.className = "pager";
    const prev = document.createElement("button"), next = document.createElement("button"), all = document.createElement("button");
    const info = document.createElement("span");
    prev.type = next.type = all.type = "button";
    prev.textContent = "Previous"; next.textContent = "Next"; all.textContent = "Show all";
    bar.append(prev, info, next, all);
    table.parentElement.after(bar);
    let page = 0, every = false;
    function show() {
      const rows = Array.from(table.tBodies[0].rows);
      const pages = Math.max(1, Math.ceil(rows.length / size));
      page = Math.min(page, pages - 1);
      rows.forEach((r, i) => { r.hidden = !every && Math.floor(i / size) !== page; });
      info.textContent = every ? `all ${rows.length} rows` : `rows ${page * size + 1}\u2013${Math.min(rows.length, (page + 1) * size)} of ${rows.length}`;
      prev.disabled = every || page === 0; next.disabled = every || page >= pages - 1;
      all.textContent = every ? "Show pages" : "Show all";
    }
    prev.addEventListener("click", () => { page -= 1; show(); });
    next.addEventListener("click", () => { page += 1; show(); });
    all.addEventListener("click", () => { every = !every; show(); });
    show();
    return show;
  }
  // A box that scrolls sideways says so above it (the shaded edges are the cue without script).
  function hint(box) {
    const note = document.createElement("p");
    note.className = "scroll-hint";
    note.setAttribute("aria-hidden", "true");
    note.textContent = "Scroll sideways for more \u2192";
    box.before(note);
    const update = () => { note.hidden = box.scrollWidth <= box.clientWidth + 1; };
    update();
    window.addEventListener("resize", update);
  }
  document.querySelectorAll(".table-box, .figure-box").forEach(hint);
  // A shortened chart label shows its full name on tap or keyboard focus (phones have no hover).
  const tip = document.createElement("div");
  tip.className = "name-tip";
  tip.setAttribute("role", "status");
  tip.hidden = true;
  document.body.appendChild(tip);
  function showName(event) {
    const label = event.currentTarget, box = label.getBoundingClientRect();
    tip.textContent = label.getAttribute("data-full");
    tip.hidden = false;
    const left = Math.max(4, Math.min(box.left, document.documentElement.clientWidth - tip.offsetWidth - 4));
    tip.style.left = `${left + window.scrollX}px`;
    tip.style.top = `${box.bottom + window.scrollY + 4}px`;
  }
  document.querySelectorAll("svg text[data-full]").forEach((label) => {
    label.addEventListener("focus", showName);
    label.addEventListener("click", showName);
    label.addEventListener("blur", () => { tip.hidden = true; });
  });
  document.querySelectorAll("table.sortable").forEach((table) => {
    const show = pager(table);
    table.querySelectorAll("thead th").forEach((th, col) => {
      let up = true;
      th.querySelector("button.sort").addEventListener("click", () => {
        const body = table.tBodies[0];
        const rows = Array.from(body.rows);
        rows.sort((a, b) => {
          const x = key(a.cells[col]), y = key(b.cells[col]);
          const c = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === "number" ? -1 : 1);
          return up ? c : -c;
        });
        up = !up;
        rows.forEach((r) => body.appendChild(r));
        th.setAttribute("aria-sort", up ? "descending" : "ascending");
        if (show) show();
      });
    });
  });
})();
