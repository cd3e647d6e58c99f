/* benchvote explorables: rank-flip controls that compute in the page (no kernel, no network).
 *
 * Each explorable is a <div class="bv-explorable" data-kind="..."> holding a JSON payload
 * written by benchvote.explorables (Python) and this script.  The script defines the runtime once
 * per page and mounts the element it sits in.  Every number shown is either looked up from the
 * library's own results (discrete controls) or computed here with the library's definitions
 * (rank with a tie tolerance and midranks, exact rational win rates, weighted means, the closed
 * form of water filling for logarithmic returns); the site tests compare both with benchvote.
 * element.bvView() returns what the element currently shows, for those tests.
 */
(function () {
  "use strict";
  const BV = (window.benchvoteExplorables = window.benchvoteExplorables || {});
  const host = document.currentScript && document.currentScript.parentElement;

  if (!BV.mount) {
    const SVG = "http://www.w3.org/2000/svg";
    const FLIP = "#c0392b";
    const STAY = "#95a5a6";

    // ---------- numbers, with the library's definitions ----------

    /** Midranks, highest value first; consecutive sorted values within tol tie (benchvote.rank). */
    function midranks(x, tol) {
      const order = x.map((_, i) => i).sort((a, b) => (x[b] - x[a]) || (a - b));
      const out = new Array(x.length);
      let start = 0;
      for (let pos = 1; pos <= order.length; pos++) {
        if (pos === order.length || x[order[pos - 1]] - x[order[pos]] > tol) {
          for (let k = start; k < pos; k++) out[order[k]] = (start + 1 + pos) / 2;
          start = pos;
        }
      }
      return out;
    }

    /** Ranks of ranks: 1 for the smallest rank (benchvote.rank(r, higher_is_better=False)). */
    function rerank(r) {
      return midranks(r.map((v) => -v), 0);
    }

    function gcd(a, b) {
      if (a < 0n) a = -a;
      while (b) [a, b] = [b, a % b];
      return a;
    }

    /** Exact sums of fractions [num, den] with BigInt. */
    function addFrac(p, q) {
      const n = p[0] * q[1] + q[0] * p[1];
      const d = p[1] * q[1];
      const g = gcd(n, d) || 1n;
      return [n / g, d / g];
    }

    /** Midranks (1 = highest) of exact fractions; only equal values tie (benchvote.ranking.exact_midranks). */
    function exactMidranks(fr) {
      const cmp = (a, b) => {
        const l = fr[b][0] * fr[a][1];
        const r = fr[a][0] * fr[b][1];
        return l < r ? -1 : l > r ? 1 : 0;
      };
      const order = fr.map((_, i) => i).sort((a, b) => cmp(a, b) || (a - b));
      const out = new Array(fr.length);
      let start = 0;
      for (let pos = 1; pos <= order.length; pos++) {
        if (pos === order.length || cmp(order[pos - 1], order[pos]) !== 0) {
          for (let k = start; k < pos; k++) out[order[k]] = (start + 1 + pos) / 2;
          start = pos;
        }
      }
      return out;
    }

    function sign(v) {
      return v > 0 ? 1 : v < 0 ? -1 : 0;
    }

    /** Normalised Kendall tau distance, strict reversals only (benchvote.kendall_tau_distance). */
    function kendallDistance(a, b) {
      let bad = 0;
      const m = a.length;
      for (let i = 0; i < m; i++)
        for (let j = i + 1; j < m; j++) if (sign(a[i] - a[j]) * sign(b[i] - b[j]) < 0) bad++;
      return bad / ((m * (m - 1)) / 2);
    }

    function maxRankChange(a, b) {
      let top = 0;
      for (let i = 0; i < a.length; i++) top = Math.max(top, Math.abs(a[i] - b[i]));
      return top / (a.length - 1);
    }

    /** Pairs i < j whose relative order differs in any way (benchvote.plotting.changed_pairs). */
    function changedPairs(a, b) {
      const out = [];
      for (let i = 0; i < a.length; i++)
        for (let j = i + 1; j < a.length; j++) if (sign(a[i] - a[j]) !== sign(b[i] - b[j])) out.push([i, j]);
      return out;
    }

    /** Ordered pairs (i, j): i strictly above j before and strictly below it after. */
    function flippedPairs(a, b) {
      const out = [];
      for (let i = 0; i < a.length; i++)
        for (let j = 0; j < a.length; j++) if (a[i] < a[j] && b[i] > b[j]) out.push([i, j]);
      return out;
    }

    // ---------- drawing ----------

    function el(tag, attrs, text) {
      const node = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
      if (text !== undefined) node.textContent = text;
      return node;
    }

    function sv(tag, attrs, text) {
      const node = document.createElementNS(SVG, tag);
      for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
      if (text !== undefined) node.textContent = text;
      return node;
    }

    /** The book's one shortening rule (benchvote.plotting.short_labels): at most `width` characters,
     *  start and end kept around an ellipsis, the cut moved (or a number appended) until labels differ. */
    function cut(chars, width, head) {
      if (chars.length <= width) return chars.join("");
      if (head === null) head = Math.floor((width - 1) / 2);
      return chars.slice(0, head).join("") + "\u2026" + chars.slice(chars.length - (width - 1 - head)).join("");
    }

    function shortLabels(names, width) {
      const full = names.map((x) => Array.from(String(x)));
      let out = full.map((c) => cut(c, width, null));
      const mid = Math.floor((width - 1) / 2);
      const heads = [];
      for (let h = mid - 1; h > 0; h--) heads.push(h);
      for (let h = mid + 1; h < width - 1; h++) heads.push(h);
      for (let round = 0; round < width; round++) {
        const seen = new Map();
        out.forEach((label, k) => { if (!seen.has(label)) seen.set(label, []); seen.get(label).push(k); });
        const clashes = [...seen.values()].filter((ks) => ks.length > 1);
        if (!clashes.length) return out;
        for (const ks of clashes) {
          const taken = new Set(out.filter((_, k) => !ks.includes(k)));
          let done = false;
          for (const h of heads) {
            const trial = ks.map((k) => cut(full[k], width, h));
            if (new Set(trial).size === trial.length && !trial.some((t) => taken.has(t))) {
              ks.forEach((k, q) => { out[k] = trial[q]; });
              done = true;
              break;
            }
          }
          if (!done) ks.forEach((k, q) => { const tag = `#${q + 1}`; out[k] = cut(full[k], width - tag.length, null) + tag; });
        }
      }
      return out;
    }
    BV.shortLabels = shortLabels;


    function fmt(v, digits) {
      return Number(v).toFixed(digits);
    }

    /** "1 pair", "3 pairs": a number and its noun (``numbered`` in benchvote/_validation.py). */
    function count(n, word, many) {
      return `${n} ${n === 1 ? word : many || word + "s"}`;
    }

    /** The verb of "n ... change order" in the number n asks for. */
    function changeOrder(n) {
      return n === 1 ? "changes order" : "change order";
    }

    function rankText(r) {
      return Number.isInteger(r) ? String(r) : r.toFixed(1);
    }

    /** Label positions: tied ranks share a dot, their labels are stacked around it. */
    function spread(y) {
      const out = y.slice();
      const groups = new Map();
      y.forEach((v, i) => (groups.has(v) ? groups.get(v).push(i) : groups.set(v, [i])));
      for (const [v, idx] of groups) {
        if (idx.length < 2) continue;
        idx.forEach((i, k) => (out[i] = v + 0.55 * (k - (idx.length - 1) / 2)));
      }
      return out;
    }

    /** A chart's width in its own units: its design width, or on a narrow screen the page's column (the screen
     *  less about 64 px of margins), so that a chart is drawn for the phone, inside the screen, its 12-unit
     *  text shown at 12 px, rather than shrunk. */
    function fitWidth(design) {
      const screen = document.documentElement.clientWidth || window.innerWidth || design;
      return Math.min(design, Math.max(280, screen - 64));
    }

    /** How many characters of 12-px text fit in ``room`` px (about 7 px a character). */
    function charsIn(room) {
      return Math.max(6, Math.floor(room / 7));
    }

    /** A title in lines of at most ``chars`` characters, broken at spaces (two lines at most, the rest on the second). */
    function wrapTitle(text, chars) {
      if (text.length <= chars || !text.includes(" ")) return [text];
      const words = text.split(" ");
      let first = words.shift();
      while (words.length > 1 && (first + " " + words[0]).length <= chars) first += " " + words.shift();
      return [first, words.join(" ")];
    }

    /** A bump chart: two rankings of the same models, one line per model, red where a pair changes order. */
    function bumpChart(before, after, labels, opts) {
      const m = before.length;
      const row = 22;
      const design = opts.width || 640;
      const width = fitWidth(design);
      const x0 = width * (opts.left || 0.40);
      const x1 = width * (1 - (opts.left || 0.40)) + width * 0.04;
      // narrowed for a phone: the names fit left of the left column as "name  rank", beside the axis title
      const maxLabel = width < design ? Math.min(opts.maxLabel || 30, charsIn(x0 - 30) - 5) : opts.maxLabel || 30;
      const names = shortLabels(labels, maxLabel);
      const maxRank = Math.max(m, ...before, ...after);
      // narrowed: each column title on up to two lines, so the two titles never meet
      // (the left one ends at its column, the right one starts at its own: bold text, about 8 px a character)
      const narrow = width < design;
      const room = [x0 + 4, width - x1 + 4].map((px) => Math.max(6, Math.floor(px / 8)));
      const titleLines = opts.titles.map((t, k) => (narrow ? wrapTitle(t, room[k]) : [t]));
      const top = titleLines.some((l) => l.length > 1) ? 48 : 34;
      const height = top + row * maxRank + 28;
      const y = (r) => top + row * (r - 0.5);
      const svg = sv("svg", {
        width: "100%", viewBox: `0 0 ${width} ${height}`, role: "img",
        "aria-label": opts.alt, class: "bv-chart", "data-chart": opts.name || "bump",
        preserveAspectRatio: "xMinYMin meet", style: `max-width:${width}px;min-width:${Math.ceil(width * 0.92)}px`,
      });
      svg.appendChild(sv("title", {}, opts.alt));
      [narrow ? x0 + 4 : x0, narrow ? x1 - 4 : x1].forEach((x, k) => {
        const anchor = narrow ? ["end", "start"][k] : "middle";
        const title = sv("text", { x, y: 16, "text-anchor": anchor, class: "bv-axis" });
        titleLines[k].forEach((line, j) => title.appendChild(sv("tspan", { x, dy: j ? 14 : 0 }, line)));
        svg.appendChild(title);
      });
      const yl = top + (row * maxRank) / 2;
      svg.appendChild(sv("text", { x: 12, y: yl, transform: `rotate(-90 12 ${yl})`, "text-anchor": "middle",
        class: "bv-axis" }, "rank (1 = best)"));
      const moved = new Set(changedPairs(before, after).flat());
      const ly = spread(before);
      const ry = spread(after);
      const order = labels.map((_, i) => i).sort((a, b) => moved.has(a) - moved.has(b));
      for (const i of order) {
        const colour = moved.has(i) ? FLIP : STAY;
        const w = moved.has(i) ? 2.4 : 1.3;
        const g = sv("g", { "data-model": labels[i] });
        g.appendChild(sv("line", { x1: x0, y1: y(before[i]), x2: x1, y2: y(after[i]), stroke: colour,
          "stroke-width": w }));
        g.appendChild(sv("circle", { cx: x0, cy: y(before[i]), r: 3.5, fill: colour }));
        g.appendChild(sv("circle", { cx: x1, cy: y(after[i]), r: 3.5, fill: colour }));
        g.appendChild(sv("text", { x: x0 - 8, y: y(ly[i]) + 4, "text-anchor": "end", class: "bv-label",
          fill: moved.has(i) ? FLIP : "#333" }, `${names[i]}  ${rankText(before[i])}`));
        g.appendChild(sv("text", { x: x1 + 8, y: y(ry[i]) + 4, "text-anchor": "start", class: "bv-label",
          fill: moved.has(i) ? FLIP : "#333" }, `${rankText(after[i])}  ${names[i]}`));
        svg.appendChild(g);
      }
      return svg;
    }

    /** Horizontal bars, one per label, with a value and an optional note at the bar's end. */
    function barChart(values, labels, opts) {
      const row = 22;
      const top = 30;
      const design = opts.width || 420;
      const width = fitWidth(design);
      const narrowed = width < design; // for a phone: the names' column at most a third of the chart
      const x0 = narrowed ? Math.min(opts.labelWidth || 120, Math.round(width * 0.36)) : opts.labelWidth || 120;
      const span = width - x0 - (opts.notes ? 140 : 90);
      const lo = opts.min === undefined ? 0 : opts.min;
      const hi = opts.max === undefined ? Math.max(...values.filter((v) => v !== null), 1e-12) : opts.max;
      const height = top + row * values.length + 34;
      const svg = sv("svg", {
        width: "100%", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": opts.alt,
        class: "bv-chart", "data-chart": opts.name || "bars", preserveAspectRatio: "xMinYMin meet",
        style: `max-width:${width}px;min-width:${Math.ceil(width * 0.92)}px`,
      });
      svg.appendChild(sv("title", {}, opts.alt));
      svg.appendChild(sv("text", { x: x0, y: 16, class: "bv-axis" }, opts.title));
      const names = shortLabels(labels, narrowed ? Math.min(16, charsIn(x0 - 6)) : 16);
      values.forEach((v, i) => {
        const yy = top + row * i;
        svg.appendChild(sv("text", { x: x0 - 6, y: yy + 14, "text-anchor": "end", class: "bv-label" },
          names[i]));
        if (v === null) {
          svg.appendChild(sv("text", { x: x0 + 4, y: yy + 14, class: "bv-label", fill: FLIP }, "not ranked"));
          return;
        }
        const w = Math.max(0, ((v - lo) / (hi - lo || 1)) * span);
        const on = opts.active ? opts.active[i] : true;
        svg.appendChild(sv("rect", { x: x0, y: yy + 3, width: w, height: row - 7, fill: on ? "#2c7fb8" : "#bdc3c7" }));
        svg.appendChild(sv("text", { x: x0 + w + 5, y: yy + 14, class: "bv-label" },
          fmt(v, opts.digits === undefined ? 3 : opts.digits) + (opts.notes ? opts.notes[i] : "")));
      });
      const base = top + row * values.length + 2;
      svg.appendChild(sv("line", { x1: x0, y1: base, x2: x0 + span, y2: base, stroke: "#555" }));
      svg.appendChild(sv("text", { x: x0 + span / 2, y: base + 22, "text-anchor": "middle", class: "bv-axis" },
        opts.xlabel));
      return svg;
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

    function figure(svg, caption) {
      const fig = el("figure", { class: "bv-figure" });
      fig.appendChild(svg);
      fig.appendChild(el("figcaption", {}, caption));
      return fig;
    }

    function replace(slot, node) {
      slot.replaceChildren(node);
    }

    function slider(name, value, min, max, step, label, full) {
      const wrap = el("label", { class: "bv-slider", title: full === undefined ? label : String(full) });
      wrap.appendChild(el("span", { class: "bv-slider-name" }, label));
      const fullName = full === undefined ? label : String(full);
      const input = el("input", { type: "range", min: String(min), max: String(max), step: String(step),
        value: String(value), name, "aria-label": fullName });
      // a tap (or keyboard focus) on the slider shows the full name in place of the short label
      const nameSpan = wrap.firstChild;
      input.addEventListener("focus", () => { nameSpan.textContent = fullName; });
      input.addEventListener("blur", () => { nameSpan.textContent = label; });
      const out = el("output", {}, "");
      const show = () => (out.textContent = fmt(input.value, 2));
      input.addEventListener("input", show);
      show();
      wrap.appendChild(input);
      wrap.appendChild(out);
      wrap.input = input;
      wrap.refresh = show;
      return wrap;
    }

    /** The summary line and the slot for the charts, appended to the explorable. */
    function outputs(root, row) {
      const summary = el("p", { class: "bv-summary", "aria-live": "polite" });
      const slot = el("div", { class: row ? "bv-slot bv-row" : "bv-slot" });
      root.appendChild(summary);
      root.appendChild(slot);
      return [summary, slot];
    }

    /** How a changed pair now stands, in the library's words ("A now ahead of B", "A and B now tie"). */
    function pairWords(after, labels, i, j) {
      const a = labels[i];
      const b = labels[j];
      if (after[i] === after[j]) return `${a} and ${b} now tie`;
      return after[i] < after[j] ? `${a} now ahead of ${b}` : `${b} now ahead of ${a}`;
    }

    function describeChanges(before, after, labels, changed) {
      const say = ([i, j]) => pairWords(after, labels, i, j);
      const names = changed.slice(0, 4).map(say).join("; ");
      const more = changed.length > 4 ? ` and ${changed.length - 4} more` : "";
      return changed.length ? `: ${names}${more}` : "";
    }

    // ---------- the explorables ----------

    const kinds = {};

    /** Reduced fraction [num, den] (BigInt) as text, "p/q" or "p" when the denominator is 1. */
    function fracText(f) {
      return f[1] === 1n ? String(f[0]) : `${f[0]}/${f[1]}`;
    }

    /** A win rate as shown: "7/9 = 0.7778" when the reduced denominator is small, else "0.7778". */
    function rateText(f) {
      const v = Number(f[0]) / Number(f[1]);
      return f[1] <= 200n ? `${fracText(f)} = ${fmt(v, 4)}` : fmt(v, 4);
    }

    /** Pairs whose order changes, sorted into strict reversals, ordered -> tied and tied -> ordered. */
    function orderChanges(before, after) {
      const out = { reversed: 0, toTie: 0, fromTie: 0 };
      for (const [i, j] of changedPairs(before, after)) {
        const b = sign(before[i] - before[j]);
        const a = sign(after[i] - after[j]);
        if (b * a < 0) out.reversed++;
        else if (a === 0) out.toTie++;
        else out.fromTie++;
      }
      return out;
    }

    /** The summary sentence of model-toggle: changed pairs by kind, and what the Kendall tau distance counts. */
    function toggleSummary(added, p, changed, sorts, tau) {
      const pairs = (p * (p - 1)) / 2;
      const head = `${count(added, "model")} added to the field. `;
      if (changed === 0) return head + `No pair of protected models changes order (Kendall tau distance ${fmt(tau, 3)}).`;
      const parts = [];
      if (sorts.reversed) parts.push(`${sorts.reversed} reversed`);
      if (sorts.toTie) parts.push(`${sorts.toTie} ordered \u2192 tied`);
      if (sorts.fromTie) parts.push(`${sorts.fromTie} tied \u2192 ordered`);
      return head + `${changed} of the ${count(pairs, "pair")} of protected models ${changeOrder(changed)} ` +
        `(${parts.join(", ")}); the Kendall tau distance, ${fmt(tau, 3)}, counts only the ` +
        `${count(sorts.reversed, "pair")} strictly reversed`;
    }

    /** Check boxes add models to the field; the protected models' win rates and ranks are recomputed. */
    kinds["model-toggle"] = function (root, d) {
      const p = d.protected.length;
      const boxes = d.pool.map((name, k) => {
        const lab = el("label", { class: "bv-check" });
        const box = el("input", { type: "checkbox", name: `add-${k}` });
        box.checked = d.checked.includes(name);
        lab.appendChild(box);
        lab.appendChild(document.createTextNode(" " + name));
        return [lab, box];
      });
      const grid = el("div", { class: "bv-grid", style: `grid-template-columns: repeat(${d.columns}, auto)` });
      boxes.forEach(([lab]) => grid.appendChild(lab));
      root.appendChild(el("div", { class: "bv-heading" }, "Add models to the field:"));
      root.appendChild(grid);
      const certs = (d.certificates || []).map((members, k) => {
        const names = members.map((q) => d.pool[q]);
        const button = el("button", { type: "button", name: `cert-${k}`, title: `tick exactly: ${names.join(", ")}` },
          `certificate ${k + 1}`);
        button.addEventListener("click", () => {
          boxes.forEach(([, b], q) => (b.checked = members.includes(q)));
          redraw();
        });
        return button;
      });
      if (certs.length) {
        root.appendChild(el("div", { class: "bv-heading" }, "Show a certificate (tick exactly its models):"));
        const row = el("div", { class: "bv-buttons bv-wrap" });
        certs.forEach((b) => row.appendChild(b));
        root.appendChild(row);
      }
      const [summary, slot] = outputs(root, false);
      const wins = d.wins && d.wins.map((row) => row.map(BigInt));
      const compared = d.compared && d.compared.map((row) => row.map(BigInt));
      let view = {};

      /** Ranks and exact mean win rates [num, den] of the protected models in the field protected + added. */
      function ratesFor(added) {
        if (d.convention === "strict") {
          const field = d.protected.map((_, i) => i).concat(added.map((k) => p + k));
          const totals = [];
          for (let a = 0; a < p; a++) {
            let total = [0n, 1n];
            for (const j of field) {
              if (j === a) continue;
              if (compared[a][j] === 0n)
                return { error: `${d.protected[a]} and ${d.field[j]} share no task with a score; ` +
                  "the win rate of the protected model is undefined" };
              total = addFrac(total, [wins[a][j], compared[a][j]]);
            }
            // the strict mean win rate divides by the size of the field, the model itself included
            const size = BigInt(field.length);
            const g = gcd(total[0], total[1] * size) || 1n;
            totals.push([total[0] / g, (total[1] * size) / g]);
          }
          return { ranks: exactMidranks(totals), rates: totals };
        }
        const key = added.reduce((acc, k) => acc + 2 ** k, 0);
        return { ranks: d.lookup[key], rates: d.fractions[key].map(([a, b]) => [BigInt(a), BigInt(b)]) };
      }

      function rateTable(beforeRates, afterRates, before, after, moved, count) {
        const rule = d.convention === "strict" ? "strict mean win rate" : "quantile mean win rate";
        const table = el("table", { class: "bv-rates", "data-table": "rates",
          style: "border-collapse:collapse;margin:4px 0 8px;font-variant-numeric:tabular-nums" });
        const cap = el("caption", { style: "caption-side:top;text-align:left;font-size:13px" },
          `${rule} of each protected model (fraction when its denominator is at most 200) and its rank; ` +
          "bold rows are models in a pair that changes order.");
        table.appendChild(cap);
        const head = el("tr", {});
        ["model", "protected models only", `with ${count} added`, "rank"].forEach((h) =>
          head.appendChild(el("th", { style: "text-align:left;padding:1px 10px 1px 0" }, h)));
        table.appendChild(head);
        const order = d.protected.map((_, i) => i).sort((a, b) => before[a] - before[b] || a - b);
        for (const i of order) {
          const tr = el("tr", { "data-model": d.protected[i] });
          const cells = [d.protected[i], rateText(beforeRates[i]), rateText(afterRates[i]),
            `${rankText(before[i])} \u2192 ${rankText(after[i])}`];
          cells.forEach((c) => {
            const td = el("td", { style: "padding:1px 10px 1px 0" });
            td.appendChild(moved.has(i) ? el("b", {}, c) : document.createTextNode(c));
            tr.appendChild(td);
          });
          table.appendChild(tr);
        }
        return table;
      }

      const base = ratesFor([]);

      function redraw() {
        const added = boxes.map(([, b], k) => (b.checked ? k : -1)).filter((k) => k >= 0);
        const got = ratesFor(added);
        if (got.error) {
          summary.textContent = `Cannot rank: ${got.error}.`;
          slot.replaceChildren();
          view = { added: added.map((k) => d.pool[k]), error: got.error };
          return;
        }
        const before = d.base;
        const after = got.ranks;
        const changed = changedPairs(before, after);
        const flips = flippedPairs(before, after);
        const sorts = orderChanges(before, after);
        const tau = kendallDistance(before, after);
        const text = toggleSummary(added.length, p, changed.length, sorts, tau) +
          describeChanges(before, after, d.protected, changed) + (changed.length ? "." : "");
        summary.textContent = text;
        const moved = new Set(changed.flat());
        const fig = figure(bumpChart(before, after, d.protected, {
          titles: ["protected models only", `with ${added.length} added`],
          alt: `Bump chart of the ${p} protected models: their win-rate ranks among themselves (left) and with ` +
            `${count(added.length, "added model")} in the field (right); ${count(changed.length, "pair")} ` +
            `${changeOrder(changed.length)}.`,
        }), d.caption);
        fig.insertBefore(rateTable(base.rates, got.rates, before, after, moved, added.length), fig.firstChild);
        replace(slot, fig);
        const num = (f) => Number(f[0]) / Number(f[1]);
        view = { added: added.map((k) => d.pool[k]), before, after, changed: changed.length,
          reversed: flips.length, orderedToTied: sorts.toTie, tiedToOrdered: sorts.fromTie, tau,
          beforeRates: base.rates.map(num), rates: got.rates.map(num), fractions: got.rates.map(fracText),
          summary: text };
      }

      boxes.forEach(([, b]) => b.addEventListener("change", redraw));
      redraw();
      return () => view;
    };

    /** One slider per task for its share of intact labels; ranks of the weighted means, recomputed. */
    kinds["label-noise"] = function (root, d) {
      const n = d.tasks.length;
      root.appendChild(el("div", { class: "bv-heading" }, "Share of intact labels per task:"));
      // a logarithmic scale: the slider's value is log10(alpha), so half its length lies below sqrt(eps)
      const lo = Math.log10(d.eps);
      const alphaOf = (input) => {
        const v = Number(input.value);
        return v <= lo ? d.eps : v >= 0 ? 1 : Math.pow(10, v);
      };
      const sliders = d.tasks.map((t, k) => {
        const s = slider(`alpha-${k}`, 0, lo, 0, "any", t, t);
        const out = s.querySelector("output");
        s.refresh = () => {
          const a = alphaOf(s.input);
          out.textContent = a < 0.1 ? fmt(a, 3) : fmt(a, 2);
        };
        s.input.addEventListener("input", s.refresh);
        s.refresh();
        return s;
      });
      const weights = sliders.map((s) => alphaOf(s.input));
      root.appendChild(el("div", { class: "bv-note" }, `Sliders on a log scale from ${d.eps} to 1.`));
      const box = el("div", { class: "bv-sliders" });
      sliders.forEach((s) => box.appendChild(s));
      root.appendChild(box);
      const buttons = el("div", { class: "bv-buttons" });
      const worst = el("button", { type: "button", name: "worst" }, "worst case");
      worst.title = "the weights that reverse the most pairs, found by benchvote's cardinal_sensitivity";
      const clean = el("button", { type: "button", name: "clean" }, "no noise");
      buttons.appendChild(worst);
      buttons.appendChild(clean);
      root.appendChild(buttons);
      const [summary, slot] = outputs(root, false);
      let view = {};

      function meansTable(plain, means, b, a) {
        const table = el("table", { class: "bv-rates", "data-table": "means" });
        table.appendChild(el("caption", {}, "Mean score with clean labels, weighted mean with these shares " +
          "(sum of alpha times score over sum of alpha) and rank among the models shown; rows in bold red change rank."));
        const head = el("tr", {});
        ["model", "mean", "weighted mean", "rank"].forEach((h) => head.appendChild(el("th", {}, h)));
        table.appendChild(head);
        d.shown.forEach((i, q) => {
          const tr = el("tr", { "data-model": d.models[i] });
          [d.models[i], fmt(plain[i], 4), fmt(means[i], 4), `${rankText(b[q])} \u2192 ${rankText(a[q])}`]
            .forEach((c) => tr.appendChild(el("td", {}, c)));
          if (b[q] !== a[q]) tr.classList.add("bv-moved");
          table.appendChild(tr);
        });
        return table;
      }

      function redraw() {
        const alpha = weights.slice();
        const total = alpha.reduce((a, b) => a + b, 0);
        const means = d.values.map((row) => row.reduce((acc, v, k) => acc + v * alpha[k], 0) / total);
        const after = midranks(means, d.tol);
        const tau = kendallDistance(d.before, after);
        const mrc = maxRankChange(d.before, after);
        summary.textContent = `All ${d.models.length} models: Kendall tau distance ${fmt(tau, 3)}, ` +
          `max rank change ${fmt(mrc, 3)}.`;
        const b = rerank(d.shown.map((i) => d.before[i]));
        const a = rerank(d.shown.map((i) => after[i]));
        const labels = d.shown.map((i) => d.models[i]);
        const fig = figure(bumpChart(b, a, labels, {
          titles: ["clean labels", "with label noise"], width: 700,
          alt: `Bump chart of the ${labels.length} best models by mean score, ranked among themselves with clean ` +
            `labels (left) and under the chosen label noise (right).`,
        }), d.caption);
        fig.insertBefore(barChart(alpha, d.tasks, {
          title: "share of intact labels", name: "weights", min: 0, max: 1, digits: 3, labelWidth: 150, width: 420,
          xlabel: "alpha (1 = no noise)", alt: `Bars of the share of intact labels of each of the ${n} tasks.`,
        }), fig.firstChild);
        const plain = d.values.map((row) => row.reduce((acc, v) => acc + v, 0) / n);
        fig.insertBefore(meansTable(plain, means, b, a), fig.firstChild.nextSibling);
        replace(slot, fig);
        view = { alpha, after, tau, mrc, shownBefore: b, shownAfter: a, means };
      }

      function setAll(values) {
        // the exact weights, whatever their round trip through log10 gives
        sliders.forEach((s, k) => {
          s.input.value = String(values[k] <= d.eps ? lo : Math.log10(values[k]));
          s.refresh();
          weights[k] = values[k];
        });
        redraw();
      }

      sliders.forEach((s, k) => s.input.addEventListener("input", () => {
        weights[k] = alphaOf(s.input);
        redraw();
      }));
      worst.addEventListener("click", () => setAll(d.worst));
      clean.addEventListener("click", () => setAll(new Array(n).fill(1)));
      redraw();
      return () => view;
    };

    /** A slider for the share of scores removed; each state is the library's own result, looked up. */
    kinds["missing-share"] = function (root, d) {
      const s = slider("share", 0, 0, d.states.length - 1, 1, "share removed");
      const out = s.querySelector("output");
      const show = () => (out.textContent = `${Math.round(d.states[Number(s.input.value)].share * 100)}%`);
      s.input.addEventListener("input", show);
      s.refresh = show;
      show();
      root.appendChild(s);
      const [summary, slot] = outputs(root, true);
      let view = {};

      function redraw() {
        const st = d.states[Number(s.input.value)];
        const pct = `${Math.round(st.share * 100)}% removed`;
        const figs = d.rules.map((rule, k) => {
          const fig = figure(bumpChart(d.full[k], st.ranks[k], d.shown[k], {
            titles: ["all scores", pct], width: 600, name: rule, maxLabel: 22, left: 0.40,
            alt: `Bump chart for ${rule}: ranks of the full-table top ${d.shown[k].length} with all scores (left) ` +
              `and with ${pct} (right).`,
          }), rule);
          return fig;
        });
        figs.forEach((fig, k) => {
          const table = el("table", { class: "bv-rates", "data-table": `scores-${k}` });
          table.appendChild(el("caption", {}, (k === 0 ? "Mean of each model's observed scores" :
            "Expected (task, model) pairs beaten") + "; rows in bold red change rank."));
          const head = el("tr", {});
          ["model", "all scores", pct, "rank"].forEach((h) => head.appendChild(el("th", {}, h)));
          table.appendChild(head);
          d.shown[k].forEach((name, q) => {
            const tr = el("tr", { "data-model": name });
            [name, fmt(d.fullValues[k][q], k === 0 ? 3 : 2), fmt(st.values[k][q], k === 0 ? 3 : 2),
              `${rankText(d.full[k][q])} \u2192 ${rankText(st.ranks[k][q])}`].forEach((c) => tr.appendChild(el("td", {}, c)));
            if (d.full[k][q] !== st.ranks[k][q]) tr.classList.add("bv-moved");
            table.appendChild(tr);
          });
          fig.appendChild(table);
        });
        slot.replaceChildren(...figs);
        summary.textContent = d.rules.map((rule, k) => `${rule}: Kendall tau distance ${fmt(st.tau[k], 3)}`)
          .join("; ") + ` (${st.missing} cells missing).`;
        view = { share: st.share, missing: st.missing, ranks: st.ranks, tau: st.tau, values: st.values };
      }

      s.input.addEventListener("input", redraw);
      redraw();
      return () => view;
    };

    /** One check box per observed cell; mean of observed scores and one-level Borda, recomputed. */
    kinds["cell-knockout"] = function (root, d) {
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
    };

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

    kinds["effort"] = function (root, d) {
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
    };

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
    kinds["domains"] = function (root, d) {
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
    };

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
    kinds["positional"] = function (root, d) {
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
    };

    /** The guided path: what to try and what the reader should then see (the browser tests perform each step). */
    function guide(d) {
      const box = el("div", { class: "bv-steps" });
      box.appendChild(el("div", { class: "bv-heading" }, "Try this:"));
      const list = el("ol", {});
      d.steps.forEach((st) => list.appendChild(el("li", {}, `${st.say} You should see: ${st.see}.`)));
      box.appendChild(list);
      return box;
    }

    BV.kinds = Object.keys(kinds);

    BV.mount = function (root) {
      if (!root || root.dataset.mounted) return;
      const payload = root.querySelector("script.bv-data");
      const d = JSON.parse(payload.textContent);
      const body = el("div", { class: "bv-body" });
      root.appendChild(body);
      try {
        const view = kinds[root.dataset.kind](body, d);
        if (d.steps && d.steps.length) body.insertBefore(guide(d), body.firstChild);
        root.bvView = view;
        root.dataset.mounted = "yes";
      } catch (err) {
        body.textContent = `This explorable could not start: ${err}`;
        throw err;
      }
    };
  }

  if (host) BV.mount(host.closest(".bv-explorable"));
})();
