/* benchvote explorable "effort": sliders for each task's return curve (a and b) and for the budget; water filling
 * for logarithmic returns is solved in closed form and drawn as the return curves and the water level.
 * Runs after explorables.js (the shared runtime), registers the kind and mounts the explorable it sits in.
 */
(function () {
  "use strict";
  const BV = window.benchvoteExplorables;
  const { el, sv, shortLabels, fmt, fitWidth, barChart, figure, replace, slider, outputs } = BV.lib;

  /**
   * Water filling for f_i(x) = a_i log(1 + b_i x): the marginal return a_i b_i / (1 + b_i x) equals the level
   * lambda on every task that gets effort, so x_i = max(0, a_i / lambda - 1 / b_i) with sum x_i = budget.
   */
  function logWaterFilling(a, b, budget) {
    const n = a.length;
    const order = a.map((_, i) => i).sort((i, j) => a[j] * b[j] - a[i] * b[i]);
    let level = 0;
    for (let k = 1; k <= n; k++) {
      const act = order.slice(0, k);
      const sa = act.reduce((s, i) => s + a[i], 0);
      const sinv = act.reduce((s, i) => s + 1 / b[i], 0);
      level = sa / (budget + sinv);
      const next = k < n ? a[order[k]] * b[order[k]] : 0;
      if (level >= next) break;
    }
    const x = a.map((ai, i) => Math.max(0, ai / level - 1 / b[i]));
    return { level, allocation: x, active: x.map((v) => v > 0) };
  }

  /** Tick marks and values on an effort axis: 0, a quarter, half, three quarters and all of the budget. */
  function effortTicks(svg, px, y0, budget) {
    for (let k = 0; k <= 4; k++) {
      const t = (k / 4) * budget;
      svg.appendChild(sv("line", { x1: px(t), y1: y0, x2: px(t), y2: y0 + 4, stroke: "#555" }));
      svg.appendChild(sv("text", { x: px(t), y: y0 + 16, "text-anchor": "middle", class: "bv-label",
        "data-tick": String(t) }, fmt(t, 2)));
    }
  }

  /** The return curves f_i(x) = a_i log(1 + b_i x) on [0, budget], each with a dot at its optimal effort. */
  function curveChart(a, b, x, tasks, budget) {
    const width = fitWidth(520);
    const height = 230;
    const left = 56;
    const right = 120;
    const top = 24;
    const bottom = 40;
    const f = (i, t) => a[i] * Math.log1p(b[i] * t);
    const hi = Math.max(...a.map((_, i) => f(i, budget)), 1e-12);
    const px = (t) => left + (t / budget) * (width - left - right);
    const py = (v) => height - bottom - (v / hi) * (height - top - bottom);
    const palette = ["#2c7fb8", "#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#a6761d", "#666666"];
    const svg = sv("svg", { width: "100%", viewBox: `0 0 ${width} ${height}`, role: "img", class: "bv-chart",
      "data-chart": "curves", preserveAspectRatio: "xMinYMin meet", style: `max-width:${width}px;min-width:${Math.ceil(width * 0.92)}px`,
      "aria-label": `Line chart of the ${a.length} return curves against effort, each with a dot at its optimal effort.` });
    svg.appendChild(sv("title", {}, svg.getAttribute("aria-label")));
    svg.appendChild(sv("line", { x1: left, y1: py(0), x2: px(budget), y2: py(0), stroke: "#555" }));
    svg.appendChild(sv("line", { x1: left, y1: py(0), x2: left, y2: py(hi), stroke: "#555" }));
    svg.appendChild(sv("text", { x: (left + px(budget)) / 2, y: height - 8, "text-anchor": "middle", class: "bv-axis" },
      "effort x"));
    effortTicks(svg, px, py(0), budget);
    const yl = (top + height - bottom) / 2;
    svg.appendChild(sv("text", { x: 14, y: yl, transform: `rotate(-90 14 ${yl})`, "text-anchor": "middle",
      class: "bv-axis" }, "score gain f(x)"));
    svg.appendChild(sv("text", { x: left - 4, y: py(hi) + 4, "text-anchor": "end", class: "bv-label" }, fmt(hi, 2)));
    svg.appendChild(sv("text", { x: left - 4, y: py(0) + 4, "text-anchor": "end", class: "bv-label" }, "0"));
    const names = shortLabels(tasks, 16);
    a.forEach((_, i) => {
      const colour = palette[i % palette.length];
      const pts = Array.from({ length: 41 }, (_, k) => (k / 40) * budget).map((t) => `${px(t)},${py(f(i, t))}`);
      svg.appendChild(sv("polyline", { points: pts.join(" "), fill: "none", stroke: colour, "stroke-width": 1.8 }));
      svg.appendChild(sv("circle", { cx: px(x[i]), cy: py(f(i, x[i])), r: 4, fill: colour }));
      svg.appendChild(sv("text", { x: px(budget) + 6, y: py(f(i, budget)) + 4, class: "bv-label", fill: colour },
        names[i]));
    });
    return svg;
  }

  /** The marginal returns f_i'(x) = a_i b_i / (1 + b_i x) on [0, budget] and the water level: every task with
   *  effort sits where its curve meets the level; a task whose curve starts below the level gets none. */
  function levelChart(a, b, plan, tasks, budget) {
    const width = fitWidth(520);
    const height = 240;
    const left = 56;
    const right = 120;
    const top = 24;
    const bottom = 40;
    const g = (i, t) => (a[i] * b[i]) / (1 + b[i] * t);
    const hi = Math.max(...a.map((_, i) => g(i, 0)), plan.level, 1e-12) * 1.05;
    const px = (t) => left + (t / budget) * (width - left - right);
    const py = (v) => height - bottom - (v / hi) * (height - top - bottom);
    const palette = ["#2c7fb8", "#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#a6761d", "#666666"];
    const alt = `Line chart of the marginal return of each of the ${a.length} tasks against its effort, with ` +
      `the water level ${fmt(plan.level, 3)} as a dashed line; each funded task has a dot where its curve meets it.`;
    const svg = sv("svg", { width: "100%", viewBox: `0 0 ${width} ${height}`, role: "img", class: "bv-chart",
      "data-chart": "level", preserveAspectRatio: "xMinYMin meet",
      style: `max-width:${width}px;min-width:${Math.ceil(width * 0.92)}px`, "aria-label": alt });
    svg.appendChild(sv("title", {}, alt));
    svg.appendChild(sv("line", { x1: left, y1: py(0), x2: px(budget), y2: py(0), stroke: "#555" }));
    svg.appendChild(sv("line", { x1: left, y1: py(0), x2: left, y2: py(hi), stroke: "#555" }));
    svg.appendChild(sv("text", { x: (left + px(budget)) / 2, y: height - 8, "text-anchor": "middle", class: "bv-axis" },
      "effort x"));
    effortTicks(svg, px, py(0), budget);
    const yl = (top + height - bottom) / 2;
    svg.appendChild(sv("text", { x: 14, y: yl, transform: `rotate(-90 14 ${yl})`, "text-anchor": "middle",
      class: "bv-axis" }, "marginal return f\u2032(x)"));
    svg.appendChild(sv("text", { x: left - 4, y: py(hi) + 4, "text-anchor": "end", class: "bv-label" }, fmt(hi, 2)));
    svg.appendChild(sv("text", { x: left - 4, y: py(0) + 4, "text-anchor": "end", class: "bv-label" }, "0"));
    // the water: everything below the level, shaded, and the level itself
    svg.appendChild(sv("rect", { x: left, y: py(plan.level), width: px(budget) - left, height: py(0) - py(plan.level),
      fill: "#9ecae1", "fill-opacity": 0.35 }));
    svg.appendChild(sv("line", { x1: left, y1: py(plan.level), x2: px(budget), y2: py(plan.level), stroke: "#08519c",
      "stroke-width": 2, "stroke-dasharray": "6 4", "data-level": String(plan.level) }));
    svg.appendChild(sv("text", { x: px(budget) + 6, y: py(plan.level) + 4, class: "bv-label", fill: "#08519c" },
      `water level ${fmt(plan.level, 3)}`));
    const names = shortLabels(tasks, 16);
    a.forEach((_, i) => {
      const colour = palette[i % palette.length];
      const pts = Array.from({ length: 61 }, (_, k) => (k / 60) * budget).map((t) => `${px(t)},${py(g(i, t))}`);
      svg.appendChild(sv("polyline", { points: pts.join(" "), fill: "none", stroke: colour, "stroke-width": 1.8,
        "stroke-dasharray": plan.active[i] ? "" : "2 3" }));
      if (plan.active[i]) svg.appendChild(sv("circle", { cx: px(plan.allocation[i]), cy: py(plan.level), r: 4.5,
        fill: colour, stroke: "#fff" }));
      svg.appendChild(sv("text", { x: left + 4, y: py(g(i, 0)) - 3, class: "bv-label", fill: colour }, names[i]));
    });
    return svg;
  }

  BV.register("effort", function (root, d) {
    const n = d.tasks.length;
    root.appendChild(el("div", { class: "bv-heading" }, "Return curves f(x) = a log(1 + b x):"));
    const scale = d.tasks.map((t, k) => slider(`a-${k}`, d.a[k], d.aRange[0], d.aRange[1], "any", `${t}: a`));
    const bend = d.tasks.map((t, k) => slider(`b-${k}`, d.b[k], d.bRange[0], d.bRange[1], "any", `${t}: b`));
    const box = el("div", { class: "bv-sliders bv-two" });
    for (let k = 0; k < n; k++) {
      box.appendChild(scale[k]);
      box.appendChild(bend[k]);
    }
    root.appendChild(box);
    const pour = slider("budget", d.budget, d.budgetRange[0], d.budgetRange[1], "any", "budget B (total effort)");
    root.appendChild(el("div", { class: "bv-sliders" })).appendChild(pour);
    const reset = el("button", { type: "button", name: "reset" }, "reset");
    reset.title = "back to the chapter's return curves";
    root.appendChild(el("div", { class: "bv-buttons" })).appendChild(reset);
    const [summary, slot] = outputs(root, false);
    let view = {};

    function redraw() {
      const a = scale.map((s) => Number(s.input.value));
      const b = bend.map((s) => Number(s.input.value));
      const budget = Number(pour.input.value);
      const plan = logWaterFilling(a, b, budget);
      const gain = a.reduce((s, ai, i) => s + ai * Math.log1p(b[i] * plan.allocation[i]), 0) / n;
      const even = a.reduce((s, ai, i) => s + ai * Math.log1p((b[i] * budget) / n), 0) / n;
      const active = plan.active.filter(Boolean).length;
      summary.textContent = `Water level ${fmt(plan.level, 3)}; ${active} of ${n} tasks get effort. ` +
        `Mean-score gain: optimal ${fmt(gain, 3)}, even split ${fmt(even, 3)}.`;
      const fig = figure(curveChart(a, b, plan.allocation, d.tasks, budget), d.caption);
      fig.insertBefore(barChart(plan.allocation, d.tasks, {
        title: "effort per task", name: "allocation", min: 0, max: budget, digits: 3, active: plan.active,
        xlabel: `effort (budget ${fmt(budget, 2)})`, labelWidth: 130, width: 520,
        alt: `Bars of the optimal effort on each of the ${n} tasks; ${active} tasks get effort.`,
      }), fig.firstChild);
      fig.insertBefore(levelChart(a, b, plan, d.tasks, budget), fig.firstChild);
      replace(slot, fig);
      view = { a, b, budget, level: plan.level, allocation: plan.allocation, active: plan.active, gain, even,
        drawnLevel: Number(fig.querySelector("[data-level]").getAttribute("data-level")) };
    }

    function restore() {
      scale.forEach((s, k) => (s.input.value = String(d.a[k])));
      bend.forEach((s, k) => (s.input.value = String(d.b[k])));
      pour.input.value = String(d.budget);
      scale.concat(bend, [pour]).forEach((s) => s.refresh());
      redraw();
    }

    scale.concat(bend, [pour]).forEach((s) => s.input.addEventListener("input", redraw));
    reset.addEventListener("click", restore);
    redraw();
    return () => view;
  });
})();
