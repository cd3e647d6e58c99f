/* benchvote explorables, the shared runtime: rank-flip controls that compute in the page (no kernel, no network).
 *
 * Each explorable is a <div class="bv-explorable" data-kind="..."> holding a JSON payload written by
 * benchvote.explorables (Python), then this script, then the script of its kind (explorables.<kind>.js): classic
 * scripts, inline, in that order, so that a page opened from file:// works as well as one served.  This script
 * defines the runtime once per page: the library's definitions of ranks and ties, the drawing helpers (every name
 * goes into the page as text, through textContent or an attribute, never as markup), and the registry of kinds.
 * A kind's script calls BV.register(kind, fn), which keeps fn to mount that kind and mounts the explorable the
 * script sits in.  Every number shown is either looked up from the library's own results (discrete controls) or
 * computed in the page with the library's definitions (rank with a tie tolerance and midranks, exact rational win
 * rates, weighted means, the closed form of water filling for logarithmic returns); the site tests compare both
 * with benchvote.  element.bvView() returns what the element currently shows, for those tests.
 */
(function () {
  "use strict";
  const BV = (window.benchvoteExplorables = window.benchvoteExplorables || {});
  if (BV.register) return; // defined once per page, by the first explorable

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

  /** Pairs i < j whose relative order differs in any way (benchvote.plotting.changed_pairs). */
  function changedPairs(a, b) {
    const out = [];
    for (let i = 0; i < a.length; i++)
      for (let j = i + 1; j < a.length; j++) if (sign(a[i] - a[j]) !== sign(b[i] - b[j])) out.push([i, j]);
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

  // ---------- the registry of kinds, and mounting ----------

  /** The guided path: what to try and what the reader should then see (the browser tests perform each step). */
  function guide(d) {
    const box = el("div", { class: "bv-steps" });
    box.appendChild(el("div", { class: "bv-heading" }, "Try this:"));
    const list = el("ol", {});
    d.steps.forEach((st) => list.appendChild(el("li", {}, `${st.say} You should see: ${st.see}.`)));
    box.appendChild(list);
    return box;
  }

  const kinds = {};

  BV.mount = function (root) {
    if (!root || root.dataset.mounted) return;
    const payload = root.querySelector("script.bv-data");
    const d = JSON.parse(payload.textContent);
    const body = el("div", { class: "bv-body" });
    root.appendChild(body);
    try {
      if (!kinds[root.dataset.kind]) throw new Error(`no script registered the kind "${root.dataset.kind}"`);
      const view = kinds[root.dataset.kind](body, d);
      if (d.steps && d.steps.length) body.insertBefore(guide(d), body.firstChild);
      root.bvView = view;
      root.dataset.mounted = "yes";
    } catch (err) {
      body.textContent = `This explorable could not start: ${err}`;
      throw err;
    }
  };

  /** Called by the script of a kind (explorables.<kind>.js): keeps fn(root, d), which builds that kind's controls
   *  in root from the payload d and returns its bvView (the first definition on a page is kept), and mounts the
   *  explorable that the calling script sits in. */
  BV.register = function (kind, fn) {
    if (!kinds[kind]) kinds[kind] = fn;
    BV.kinds = Object.keys(kinds);
    const script = document.currentScript;
    if (script) BV.mount(script.closest(".bv-explorable"));
  };

  BV.kinds = [];
  BV.shortLabels = shortLabels;
  /** The helpers that the scripts of the kinds share. */
  BV.lib = Object.freeze({ FLIP, midranks, sign, kendallDistance, changedPairs, el, sv, shortLabels, fmt, count,
    changeOrder, rankText, fitWidth, charsIn, bumpChart, barChart, figure, replace, slider, outputs, pairWords,
    describeChanges });
})();
