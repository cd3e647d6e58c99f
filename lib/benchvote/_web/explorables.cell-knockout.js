/* benchvote explorable "cell-knockout": one check box per observed cell; the mean of observed scores and one-level Borda are recomputed.
 * Runs after explorables.js (the shared runtime), registers the kind and mounts the explorable it sits in.
 */
(function () {
  "use strict";
  const BV = window.benchvoteExplorables;
  const { midranks, sign, changedPairs, el, rankText, barChart, figure, outputs, pairWords } = BV.lib;

  /** One check box per observed cell; mean of observed scores and one-level Borda, recomputed. */
  BV.register("cell-knockout", function (root, d) {
    const m = d.models.length;
    const n = d.tasks.length;
    root.appendChild(el("div", { class: "bv-heading" }, "Untick a cell to remove that score:"));
    const grid = el("div", { class: "bv-grid bv-cells", style: `grid-template-columns: repeat(${n + 1}, auto)` });
    grid.appendChild(el("span", {}, ""));
    d.tasks.forEach((t) => grid.appendChild(el("b", { class: "bv-colhead" }, t)));  // full names, wrapped
    const boxes = [];
    for (let i = 0; i < m; i++) {
      grid.appendChild(el("b", {}, d.models[i]));
      for (let j = 0; j < n; j++) {
        const v = d.values[i][j];
        if (v === null) {
          grid.appendChild(el("i", {}, "missing"));
          continue;
        }
        const lab = el("label", { class: "bv-check" });
        const box = el("input", { type: "checkbox", name: `cell-${i}-${j}` });
        box.checked = true;
        lab.appendChild(box);
        lab.appendChild(document.createTextNode(" " + d.labels[i][j]));
        grid.appendChild(lab);
        boxes.push([i, j, box]);
      }
    }
    root.appendChild(grid);
    const [summary, slot] = outputs(root, true);
    let view = {};

    function compute(values) {
      for (let i = 0; i < m; i++)
        if (values[i].every((v) => v === null)) return { error: `model ${d.models[i]} has no score` };
      const wins = d.models.map(() => 0);
      for (let j = 0; j < n; j++) {
        const seen = [];
        for (let i = 0; i < m; i++) if (values[i][j] !== null) seen.push(i);
        const k = seen.length;
        if (k < 2) return { error: `task ${d.tasks[j]} has fewer than 2 observed models` };
        const r = midranks(seen.map((i) => d.sign[j] * values[i][j]), d.tol);
        const observed = new Map(seen.map((i, q) => [i, r[q]]));
        for (let i = 0; i < m; i++) {
          if (observed.has(i)) {
            const ri = observed.get(i);
            wins[i] += (k - ri) + (m - k) * (1 - ri / (k + 1));
          } else wins[i] += (m - 1) / 2;
        }
      }
      const mean = values.map((row) => {
        const seen = row.filter((v) => v !== null);
        return seen.reduce((a, b) => a + b, 0) / seen.length;
      });
      return { mean, borda: wins, meanRanks: midranks(mean, d.tol), bordaRanks: midranks(wins, d.tol) };
    }

    function redraw() {
      const values = d.values.map((row) => row.slice());
      for (const [i, j, box] of boxes) {
        if (!box.checked) values[i][j] = null;
        box.parentElement.classList.toggle("bv-off", !box.checked);
      }
      const removed = boxes.filter(([, , b]) => !b.checked).map(([i, j]) => [d.models[i], d.tasks[j]]);
      const got = compute(values);
      if (got.error) {
        summary.textContent = `Cannot rank: ${got.error}.`;
        slot.replaceChildren(el("p", { class: "bv-error" }, "Tick a cell back to rank again."));
        view = { removed, error: got.error };
        return;
      }
      const notes = (ranks) => ranks.map((r) => `  (rank ${rankText(r)})`);
      const rules = [["mean of observed", got.mean, got.meanRanks, 3], ["one-level Borda", got.borda, got.bordaRanks, 2]];
      slot.replaceChildren(...rules.map(([name, v, r, digits]) => figure(barChart(v, d.models, {
        title: `${name} (${removed.length} removed)`, name, digits, notes: notes(r), labelWidth: 60, width: 360,
        min: name === "one-level Borda" ? 0 : Math.min(0, ...v),
        max: name === "one-level Borda" ? n * (m - 1) : Math.max(...v),
        xlabel: name === "one-level Borda" ? "expected (task, model) pairs beaten" : "mean of the observed scores",
        alt: `Bars of each model's ${name} score with its rank.`,
      }), `${name}: score and rank of each model`)));
      const order = (r) => d.models.map((x, i) => [r[i], i]).sort((a, b) => a[0] - b[0] || a[1] - b[1])
        .map(([, i]) => d.models[i]).join(" > ");
      // every pair whose order differs from the full table, in the words of the guided step
      const said = rules.map(([name, , r]) => {
        const words = changedPairs(base[name], r).map(([i, j]) => pairWords(r, d.models, i, j));
        return `${name}: ${words.length ? words.join(", ") : "no pair changes order"}`;
      });
      const where = removed.map(([x, t]) => `${x} on ${t}`).join(", ");
      summary.textContent = removed.length
        ? `${removed.length} ${removed.length === 1 ? "cell" : "cells"} removed (${where}). ` +
          `Against the full table, ${said.join("; ")}.`
        : "No cell removed: both rules rank the full table.";
      view = { removed, mean: got.mean, borda: got.borda, meanRanks: got.meanRanks, bordaRanks: got.bordaRanks,
        orders: [order(got.meanRanks), order(got.bordaRanks)] };
    }

    const full = compute(d.values);
    const base = full.error ? {} : { "mean of observed": full.meanRanks, "one-level Borda": full.bordaRanks };
    boxes.forEach(([, , b]) => b.addEventListener("change", redraw));
    redraw();
    return () => view;
  });
})();
