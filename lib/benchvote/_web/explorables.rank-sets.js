/* benchvote explorable "rank-sets": sliders for the items per task and the tasks; the page tests every pair of models
 * (McNemar over the items, the sign test over the tasks), adjusts by Holm, and draws the simultaneous rank sets.
 * Runs after explorables.js (the shared runtime), registers the kind and mounts the explorable it sits in.
 */
(function () {
  "use strict";
  const BV = window.benchvoteExplorables;
  const { el, sv, fitWidth, figure, slider, outputs, count } = BV.lib;

  /** P(X <= k) for X ~ Binomial(n, 1/2), summed in logarithms (2^-n underflows for a few thousand items). */
  function binomialCdf(k, n) {
    if (n === 0) return 1;
    const logs = [];
    let logC = 0;
    for (let i = 0; i <= k; i++) {
      if (i > 0) logC += Math.log((n - i + 1) / i);
      logs.push(logC - n * Math.LN2);
    }
    const top = Math.max(...logs);
    return Math.exp(top) * logs.reduce((s, v) => s + Math.exp(v - top), 0);
  }

  /** Two-sided exact p-value of wins against losses (ties dropped): McNemar's test and the sign test alike. */
  function twoSided(wins, losses) {
    return Math.min(1, 2 * binomialCdf(Math.min(wins, losses), wins + losses));
  }

  /** Holm's step-down adjustment, as benchvote.comparisons.holm: sorted (stable), scaled, running maximum. */
  function holm(p) {
    const n = p.length;
    const order = p.map((v, i) => i).sort((i, j) => p[i] - p[j] || i - j);
    const out = new Array(n);
    let run = 0;
    order.forEach((i, q) => {
      run = Math.max(run, Math.min(1, (n - q) * p[i]));
      out[i] = run;
    });
    return out;
  }

  /** A row's sum in the order numpy adds a short contiguous row (pairwise summation: eight running sums, then
   *  the rest), so that equal scores in the library are equal here too. */
  function numpySum(a) {
    const n = a.length;
    if (n < 8) return a.reduce((s, v) => s + v, 0);
    const r = a.slice(0, 8);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let q = 0; q < 8; q++) r[q] += a[i + q];
    let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) res += a[i];
    return res;
  }

  /** Rank sets and tiers from the pairs' wins and losses, as benchvote.comparisons.rank_sets (method "holm"). */
  function rankSets(m, wins, losses, columns, scores, alpha) {
    const pairs = [];
    for (let a = 0; a < m; a++) for (let b = a + 1; b < m; b++) pairs.push([a, b]);
    const p = pairs.map((_, q) => twoSided(wins[q], losses[q]));
    const adjusted = holm(p);
    const above = Array.from({ length: m }, () => new Array(m).fill(false));
    pairs.forEach(([a, b], q) => {
      if (adjusted[q] > alpha) return;
      const diff = (wins[q] - losses[q]) / columns;
      if (diff > 0) above[a][b] = true;
      if (diff < 0) above[b][a] = true;
    });
    const lowest = [];
    const highest = [];
    for (let i = 0; i < m; i++) {
      lowest.push(1 + above.filter((row) => row[i]).length);
      highest.push(m - above[i].filter(Boolean).length);
    }
    const order = scores.map((v, i) => i).sort((i, j) => scores[j] - scores[i] || i - j);
    const tiers = [];
    let top = -1;
    order.forEach((i) => {
      if (top < 0 || above[top][i]) {
        tiers.push([]);
        top = i;
      }
      tiers[tiers.length - 1].push(i);
    });
    return { p, adjusted, lowest, highest, order, tiers, separated: above.flat().filter(Boolean).length };
  }

  /** The pairs' wins and losses over the pooled items, and each model's count of right answers. */
  function overItems(d, items, tasks) {
    const m = d.models.length;
    const wins = [];
    const losses = [];
    for (let a = 0; a < m; a++) {
      for (let b = a + 1; b < m; b++) {
        let w = 0;
        let l = 0;
        for (let t = 0; t < tasks; t++) {
          const x = d.bits[t][a];
          const y = d.bits[t][b];
          for (let k = 0; k < items; k++) {
            if (x[k] !== y[k]) {
              if (x[k] === "1") w++;
              else l++;
            }
          }
        }
        wins.push(w);
        losses.push(l);
      }
    }
    const right = d.models.map((_, i) => {
      let c = 0;
      for (let t = 0; t < tasks; t++) for (let k = 0; k < items; k++) c += d.bits[t][i][k] === "1" ? 1 : 0;
      return c;
    });
    return rankSets(m, wins, losses, items * tasks, right.map((c) => c / (items * tasks)), d.alpha);
  }

  /** The pairs' tasks won and lost (share of right answers on the first items), and each model's mean effect. */
  function overTasks(d, items, tasks) {
    const m = d.models.length;
    const share = d.models.map((_, i) => d.bits.slice(0, tasks).map((rows) => {
      let c = 0;
      for (let k = 0; k < items; k++) c += rows[i][k] === "1" ? 1 : 0;
      return c / items;
    }));
    const wins = [];
    const losses = [];
    const net = Array.from({ length: m }, () => new Array(m).fill(0));
    for (let a = 0; a < m; a++) {
      for (let b = a + 1; b < m; b++) {
        let w = 0;
        let l = 0;
        for (let t = 0; t < tasks; t++) {
          const diff = share[a][t] - share[b][t];
          if (diff > d.tol) w++;
          else if (diff < -d.tol) l++;
        }
        wins.push(w);
        losses.push(l);
        net[a][b] = (w - l) / tasks;
        net[b][a] = -net[a][b];
      }
    }
    const scores = net.map((row) => numpySum(row) / (m - 1));
    return rankSets(m, wins, losses, tasks, scores, d.alpha);
  }

  const COLOURS = ["#0072B2", "#E69F00"];  // Okabe-Ito blue and orange

  /** One row per model, in leaderboard order: its rank set drawn as a bar over the ranks 1..m, tiers banded. */
  function setsChart(d, r, title, k) {
    const m = d.models.length;
    const width = fitWidth(420);
    const left = 64;
    const right = 12;
    const row = 22;
    const top = 40;
    const height = top + row * m + 28;
    const x = (rank) => left + ((rank - 0.5) / m) * (width - left - right);
    const alt = `Rank sets ${title}: for each of the ${m} models, in leaderboard order, a bar from its best to its ` +
      `worst possible rank; ${count(r.tiers.length, "tier")}.`;
    const svg = sv("svg", { width: "100%", viewBox: `0 0 ${width} ${height}`, role: "img", class: "bv-chart",
      "data-chart": `sets-${k}`, "aria-label": alt, preserveAspectRatio: "xMinYMin meet",
      style: `max-width:${width}px;min-width:${Math.ceil(width * 0.92)}px` });
    svg.appendChild(sv("title", {}, alt));
    svg.appendChild(sv("text", { x: 4, y: 16, class: "bv-axis" }, title));
    let y = top;
    r.tiers.forEach((tier, q) => {
      if (q % 2 === 1) {
        svg.appendChild(sv("rect", { x: 0, y: y - row / 2, width, height: row * tier.length, fill: "#f0f0f0" }));
      }
      tier.forEach((i) => {
        const g = sv("g", { "data-model": d.models[i], "data-lowest": String(r.lowest[i]),
          "data-highest": String(r.highest[i]) });
        g.appendChild(sv("text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "bv-label" }, d.models[i]));
        g.appendChild(sv("line", { x1: x(r.lowest[i]), y1: y, x2: x(r.highest[i]), y2: y, stroke: COLOURS[k],
          "stroke-width": 8, "stroke-linecap": "round" }));
        svg.appendChild(g);
        y += row;
      });
    });
    for (let rank = 1; rank <= m; rank++) {
      svg.appendChild(sv("text", { x: x(rank), y: top + row * m + 8, "text-anchor": "middle", class: "bv-label" },
        String(rank)));
    }
    svg.appendChild(sv("text", { x: (left + width) / 2, y: height - 4, "text-anchor": "middle", class: "bv-label" },
      "rank (1 = best); grey bands alternate tiers"));
    return svg;
  }

  BV.register("rank-sets", function (root, d) {
    const n = d.itemCounts.length;
    const items = slider("items", n - 1, 0, n - 1, 1, "items per task");
    const itemsOut = items.querySelector("output");
    const showItems = () => (itemsOut.textContent = String(d.itemCounts[Number(items.input.value)]));
    items.input.addEventListener("input", showItems);
    items.refresh = showItems;
    showItems();
    const tasks = slider("tasks", d.tasks.length, 1, d.tasks.length, 1, "tasks");
    const tasksOut = tasks.querySelector("output");
    const showTasks = () => (tasksOut.textContent = String(Number(tasks.input.value)));
    tasks.input.addEventListener("input", showTasks);
    tasks.refresh = showTasks;
    showTasks();
    root.appendChild(items);
    root.appendChild(tasks);
    const [summary, slot] = outputs(root, true);
    const pairs = (d.models.length * (d.models.length - 1)) / 2;
    let view = {};

    function redraw() {
      const k = d.itemCounts[Number(items.input.value)];
      const t = Number(tasks.input.value);
      const results = [overItems(d, k, t), overTasks(d, k, t)];
      const titles = [`over ${count(k * t, "item")} (McNemar)`, `over ${count(t, "task")} (sign test)`];
      slot.replaceChildren(...results.map((r, q) => figure(setsChart(d, r, titles[q], q),
        q === 0 ? `Rank sets from McNemar's test on the ${k} first items of ${count(t, "task")}, pooled.`
          : `Rank sets from the sign test over ${count(t, "task")}, each scored on its ${k} first items.`)));
      summary.textContent = results.map((r, q) => `${q === 0 ? "over items" : "over tasks"}: ${r.separated} of ` +
        `${count(pairs, "pair")} separated, ${count(r.tiers.length, "tier")}`).join("; ") + ".";
      view = {
        items: k,
        tasks: t,
        lowest: results.map((r) => r.lowest),
        highest: results.map((r) => r.highest),
        tiers: results.map((r) => r.tiers.map((tier) => tier.map((i) => d.models[i]))),
        pAdjusted: results.map((r) => r.adjusted),
        separated: results.map((r) => r.separated),
      };
    }

    items.input.addEventListener("input", redraw);
    tasks.input.addEventListener("input", redraw);
    redraw();
    return () => view;
  });
})();
