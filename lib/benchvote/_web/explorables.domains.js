/* benchvote explorable "domains": check boxes for models; domain restrictions are looked up, the majority relation is drawn
 * from the pairwise margins.
 * Runs after explorables.js (the shared runtime), registers the kind and mounts the explorable it sits in.
 */
(function () {
  "use strict";
  const BV = window.benchvoteExplorables;
  const { FLIP, el, sv, shortLabels, count, fitWidth, charsIn, figure, outputs } = BV.lib;

  /** The majority relation as a graph: models on a circle, an arrow from the winner of each pairwise majority,
   *  red when the arrow lies on a three-model cycle. */
  function majorityGraph(names, margins) {
    const k = names.length;
    const size = fitWidth(560);
    const tall = 330;
    const c = size / 2;
    const room = Math.min(140, Math.round(size * 0.28)); // each side's room for the names
    const rad = Math.min(125, c - room);
    const pos = names.map((_, i) => [c + rad * Math.sin((2 * Math.PI * i) / k), tall / 2 - rad * Math.cos((2 * Math.PI * i) / k)]);
    const alt = `Directed graph of the majority relation among ${k} models: an arrow from each pairwise majority ` +
      "winner to the loser; red arrows lie on a three-model cycle.";
    const svg = sv("svg", { width: "100%", viewBox: `0 0 ${size} ${tall}`, role: "img", class: "bv-chart",
      "data-chart": "majority", "aria-label": alt, preserveAspectRatio: "xMinYMin meet",
      style: `max-width:${size}px;min-width:${Math.ceil(size * 0.92)}px` });
    svg.appendChild(sv("title", {}, alt));
    const beats = (i, j) => margins[i][j] > 0;
    for (let i = 0; i < k; i++)
      for (let j = 0; j < k; j++) {
        if (!beats(i, j)) continue;
        let onCycle = false;
        for (let h = 0; h < k; h++) if (beats(j, h) && beats(h, i)) onCycle = true;
        const colour = onCycle ? FLIP : "#5b6770";
        const [x1, y1] = pos[i];
        const [x2, y2] = pos[j];
        const len = Math.hypot(x2 - x1, y2 - y1);
        const ux = (x2 - x1) / len;
        const uy = (y2 - y1) / len;
        const sx = x1 + ux * 14;
        const sy = y1 + uy * 14;
        const ex = x2 - ux * 16;
        const ey = y2 - uy * 16;
        const g = sv("g", { "data-arrow": `${i}-${j}`, "data-cycle": onCycle ? "yes" : "no" });
        g.appendChild(sv("line", { x1: sx, y1: sy, x2: ex, y2: ey, stroke: colour, "stroke-width": onCycle ? 2.2 : 1.4,
          "stroke-dasharray": onCycle ? "" : "5 3" }));
        g.appendChild(sv("polygon", { fill: colour, points: [[ex, ey], [ex - ux * 9 - uy * 4.5, ey - uy * 9 + ux * 4.5],
          [ex - ux * 9 + uy * 4.5, ey - uy * 9 - ux * 4.5]].map((p) => p.join(",")).join(" ") }));
        svg.appendChild(g);
      }
    const labels = shortLabels(names, size < 560 ? Math.min(20, charsIn(room) - 4) : 20);
    pos.forEach(([x, y], i) => {
      svg.appendChild(sv("circle", { cx: x, cy: y, r: 6, fill: "#2c7fb8" }));
      const below = y > tall / 2 + 1;
      svg.appendChild(sv("text", { x, y: below ? y + 20 : y - 11, "text-anchor": x < c - 20 ? "end" : x > c + 20 ? "start" : "middle",
        class: "bv-label" }, `${i + 1}. ${labels[i]}`));
    });
    return svg;
  }

  /** Check boxes for models; the metrics vote.  Restrictions are looked up (benchvote.domains.domain_report on
   *  every subset); the majority relation and its Condorcet winner come from the pairwise margins. */
  BV.register("domains", function (root, d) {
    const m = d.models.length;
    root.appendChild(el("div", { class: "bv-heading" },
      `Tick 3 to ${d.maxModels} models; the ${d.metrics.length} metrics (${d.metrics.join(", ")}) vote:`));
    const grid = el("div", { class: "bv-grid", style: "grid-template-columns: repeat(auto-fit, minmax(15em, 1fr))" });
    const boxes = d.models.map((name, k) => {
      const lab = el("label", { class: "bv-check" });
      const box = el("input", { type: "checkbox", name: `model-${k}` });
      box.checked = d.checked.includes(k);
      lab.appendChild(box);
      lab.appendChild(document.createTextNode(" " + name));
      grid.appendChild(lab);
      return box;
    });
    root.appendChild(grid);
    const [summary, slot] = outputs(root, true);
    let view = {};

    function table(rows, head, caption, name) {
      const t = el("table", { class: "bv-rates", "data-table": name });
      t.appendChild(el("caption", {}, caption));
      const tr = el("tr", {});
      head.forEach((h) => tr.appendChild(el("th", {}, h)));
      t.appendChild(tr);
      rows.forEach((row) => {
        const r = el("tr", {});
        row.forEach((c) => r.appendChild(el("td", {}, c)));
        t.appendChild(r);
      });
      return t;
    }

    function redraw() {
      const on = boxes.map((b, k) => (b.checked ? k : -1)).filter((k) => k >= 0);
      const ticked = on.map((k) => d.models[k]);
      if (on.length < 3 || on.length > d.maxModels) {
        const error = `tick 3 to ${d.maxModels} models (${on.length} ticked)`;
        summary.textContent = error.charAt(0).toUpperCase() + error.slice(1) + ".";
        slot.replaceChildren();
        view = { ticked, error };
        return;
      }
      const [axis, separable, cycles] = d.lookup[String(on.reduce((acc, k) => acc + 2 ** k, 0))];
      const margins = on.map((i) => on.map((j) => d.margins[i][j]));
      const winners = on.filter((_, q) => on.every((_, r) => r === q || margins[q][r] > 0));
      const condorcet = winners.length ? d.models[winners[0]] : null;
      const axisNames = axis ? axis.map((k) => d.models[k]) : null;
      summary.textContent = `${on.length} models, ${d.metrics.length} metrics: single-peaked: ` +
        (axis ? `yes (axis ${axisNames.join(" \u2013 ")})` : "no") + `; group-separable: ${separable ? "yes" : "no"}; ` +
        `${count(cycles, "three-model majority cycle")}; ` +
        (condorcet === null ? "no Condorcet winner." : `Condorcet winner: ${condorcet}.`);
      const ballots = d.ballots.map((b) => b.filter((k) => on.includes(k)).map((k) => d.models[k]));
      const left = el("div", {});
      left.appendChild(table(ballots.map((b, t) => [d.metrics[t], b.join(" > ")]), ["metric (voter)", "ranking, best first"],
        "Each metric's ranking of the ticked models.", "ballots"));
      left.appendChild(table(margins.map((row, q) => [`${q + 1}. ${ticked[q]}`,
        ...row.map((v, r) => (r === q ? "" : v > 0 ? `+${v}` : String(v)))]),
        ["margin", ...ticked.map((_, q) => String(q + 1))],
        "Majority margin: metrics that rank the row model above the column model, minus the reverse.", "margins"));
      slot.replaceChildren(left, figure(majorityGraph(ticked, margins), d.caption));
      view = { ticked, singlePeaked: axis !== null, axis: axisNames, groupSeparable: separable, cycles, condorcet,
        margins, ballots };
    }

    boxes.forEach((b) => b.addEventListener("change", redraw));
    redraw();
    return () => view;
  });
})();
