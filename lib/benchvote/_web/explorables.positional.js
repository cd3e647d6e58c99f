/* benchvote explorable "positional": a slider for k in k-approval and a Borda button; every model's points are counted from the scores.
 * Runs after explorables.js (the shared runtime), registers the kind and mounts the explorable it sits in.
 */
(function () {
  "use strict";
  const BV = window.benchvoteExplorables;
  const { midranks, sign, el, sv, shortLabels, rankText, fitWidth, figure, replace, slider, outputs } = BV.lib;

  /** Every model's total points under the scoring vector w, as benchvote.positional.positional_scores counts them:
   *  each task ranked with the tie tolerance (midranks), a tie group sharing the points of the places it occupies. */
  function positionalPoints(scores, sign, w, tol) {
    const m = scores.length;
    const cum = [0];
    w.forEach((v) => cum.push(cum[cum.length - 1] + v));
    const total = new Array(m).fill(0);
    for (let j = 0; j < sign.length; j++) {
      const r = midranks(scores.map((row) => sign[j] * row[j]), tol);
      for (let i = 0; i < m; i++) {
        const size = r.filter((v) => v === r[i]).length;  // midranks are exact halves, so === is safe
        const first = Math.round(r[i] - (size - 1) / 2);
        total[i] += (cum[first + size - 1] - cum[first - 1]) / size;
      }
    }
    return total;
  }

  /** Points as printed: an integer as such, anything else with two decimals (the steps use the same rule). */
  function pointsText(v) {
    const r = Math.round(v * 1e6) / 1e6;
    return Number.isInteger(r) ? String(r) : r.toFixed(2);
  }

  /** The scoring vector in words: "(1, 1, 1, 1, 0, …, 0)" or "(28, 27, …, 1, 0)". */
  function vectorText(w) {
    const m = w.length;
    if (m <= 6) return `(${w.join(", ")})`;
    if (!w.every((v) => v === 0 || v === w[0])) return `(${w[0]}, ${w[1]}, \u2026, ${w[m - 2]}, ${w[m - 1]})`;
    const k = w.filter((v) => v > 0).length;
    const ones = k <= 4 ? w.slice(0, k).join(", ") : `${w[0]}, ${w[1]}, \u2026, ${w[k - 1]}`;
    const zeros = m - k <= 3 ? w.slice(k).join(", ") : `0, \u2026, 0`;
    return `(${ones}, ${zeros})`;
  }

  /** The scoring vector drawn: one column per place, as tall as its points. */
  function vectorChart(w, rule) {
    const m = w.length;
    const width = fitWidth(340);
    const height = 92;
    const left = 10;
    const top = 22;
    const base = 64;
    const step = (width - 2 * left) / m;
    const alt = `Column chart of the scoring vector of ${rule}: the points of each of the ${m} places, ` +
      `place 1 on the left; ${w.filter((v) => v > 0).length} places earn points.`;
    const svg = sv("svg", { width: "100%", viewBox: `0 0 ${width} ${height}`, role: "img", class: "bv-chart",
      "data-chart": "vector", "aria-label": alt, preserveAspectRatio: "xMinYMin meet",
      style: `max-width:${width}px;min-width:${Math.ceil(width * 0.92)}px` });
    svg.appendChild(sv("title", {}, alt));
    svg.appendChild(sv("text", { x: left, y: 14, class: "bv-axis" }, `points by place: ${rule}`));
    w.forEach((v, p) => {
      const h = (v / w[0]) * (base - top);
      svg.appendChild(sv("rect", { x: left + p * step + 0.5, y: base - h, width: Math.max(1, step - 1.5), height: h,
        fill: "#2c7fb8", "data-place": String(p + 1), "data-points": String(v) }));
    });
    svg.appendChild(sv("line", { x1: left, y1: base + 0.5, x2: width - left, y2: base + 0.5, stroke: "#555" }));
    svg.appendChild(sv("text", { x: left, y: base + 16, class: "bv-label" }, "1"));
    svg.appendChild(sv("text", { x: width - left, y: base + 16, "text-anchor": "end", class: "bv-label" }, String(m)));
    svg.appendChild(sv("text", { x: width / 2, y: base + 16, "text-anchor": "middle", class: "bv-label" },
      "place on a task"));
    return svg;
  }

  /** The best models' points: full name on one line, a bar and its points on the next; winners in blue. */
  function pointsChart(shown, names, points, ranks, winners, most, alt) {
    const width = fitWidth(340);
    const row = 38;
    const top = 24;
    const left = 4;
    const span = width - left - 64;
    const height = top + row * shown.length + 30;
    const svg = sv("svg", { width: "100%", viewBox: `0 0 ${width} ${height}`, role: "img", class: "bv-chart",
      "data-chart": "points", "aria-label": alt, preserveAspectRatio: "xMinYMin meet",
      style: `max-width:${width}px;min-width:${Math.ceil(width * 0.92)}px` });
    svg.appendChild(sv("title", {}, alt));
    svg.appendChild(sv("text", { x: left, y: 14, class: "bv-axis" }, "rank, model and total points"));
    const labels = shortLabels(shown.map((i) => names[i]), 44);
    shown.forEach((i, q) => {
      const y = top + row * q;
      const g = sv("g", { "data-model": names[i] });
      g.appendChild(sv("title", {}, `${names[i]}: ${pointsText(points[i])} points, rank ${rankText(ranks[i])}`));
      g.appendChild(sv("text", { x: left, y: y + 12, class: "bv-label" }, `${rankText(ranks[i])}. ${labels[q]}`));
      const w = Math.max(1, (points[i] / most) * span);
      g.appendChild(sv("rect", { x: left, y: y + 17, width: w, height: 13,
        fill: winners.has(i) ? "#2c7fb8" : "#8c959f" }));
      g.appendChild(sv("text", { x: left + w + 5, y: y + 28, class: "bv-label" }, pointsText(points[i])));
      svg.appendChild(g);
    });
    const base = top + row * shown.length + 2;
    svg.appendChild(sv("line", { x1: left, y1: base, x2: left + span, y2: base, stroke: "#555" }));
    svg.appendChild(sv("text", { x: left + span / 2, y: base + 20, "text-anchor": "middle", class: "bv-axis" },
      `total points (of ${pointsText(most)} possible)`));
    return svg;
  }

  /** A slider for k in k-approval and a Borda button; every model's points are counted here from the scores. */
  BV.register("positional", function (root, d) {
    const m = d.models.length;
    const n = d.tasks.length;
    root.appendChild(el("div", { class: "bv-heading" },
      `Scoring vector: k-approval gives a point to each of a task's top k places (k = 1 plurality, ` +
      `k = ${m - 1} veto); Borda gives ${m - 1}, ${m - 2}, \u2026, 0.`));
    const s = slider("k", d.k, 1, m - 1, 1, "k (places earning a point)");
    const out = s.querySelector("output");
    let borda = false;
    s.refresh = () => (out.textContent = borda ? "off" : String(Number(s.input.value)));
    root.appendChild(el("div", { class: "bv-sliders" })).appendChild(s);
    const buttons = el("div", { class: "bv-buttons" });
    const press = el("button", { type: "button", name: "borda", "aria-pressed": "false" }, "Borda");
    press.title = `Borda: ${m - 1} points for first place, one fewer for each place below`;
    buttons.appendChild(press);
    root.appendChild(buttons);
    const [summary, slot] = outputs(root, false);
    let view = {};

    function redraw() {
      const k = Number(s.input.value);
      const w = d.models.map((_, p) => (borda ? m - 1 - p : p < k ? 1 : 0));
      const rule = borda ? "Borda" : k === 1 ? "plurality" : k === m - 1 ? "veto" : `${k}-approval`;
      const points = positionalPoints(d.scores, d.sign, w, d.tol);
      const best = Math.max(...points);
      const won = d.models.map((_, i) => i).filter((i) => Math.abs(points[i] - best) <= 1e-9);
      const ranks = midranks(points, d.tol);
      const order = d.models.map((_, i) => i).sort((a, b) => ranks[a] - ranks[b] || a - b);
      const shown = order.slice(0, d.top);
      const names = won.map((i) => d.models[i]);
      const lead = won.length === 1 ? `Winner: ${names[0]} with ${pointsText(best)} points.`
        : `${won.length} models tie for first with ${pointsText(best)} points: ` +
          `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}.`;
      summary.textContent = `${rule}, scoring vector ${vectorText(w)}. ${lead}`;
      const alt = `Bar chart of the total points of the ${shown.length} best of ${m} models under ${rule} on ` +
        `${n} tasks, best first; ${won.length === 1 ? `${names[0]} wins` : `${won.length} models tie for first`}.`;
      const fig = figure(pointsChart(shown, d.models, points, ranks, new Set(won), n * w[0], alt), d.caption);
      fig.insertBefore(vectorChart(w, rule), fig.firstChild);
      replace(slot, fig);
      press.setAttribute("aria-pressed", String(borda));
      view = { rule, k: borda ? null : k, weights: w, points, ranks, winners: names, best,
        shown: shown.map((i) => d.models[i]) };
    }

    s.input.addEventListener("input", () => {
      borda = false;
      s.refresh();
      redraw();
    });
    press.addEventListener("click", () => {
      borda = true;
      s.refresh();
      redraw();
    });
    s.refresh();
    redraw();
    return () => view;
  });
})();
