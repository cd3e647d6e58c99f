/* benchvote explorable "model-toggle": check boxes add pool models to the field; the protected models' exact win rates (BigInt
 * fractions) and ranks are recomputed, with a certificate button per set of pool models.
 * Runs after explorables.js (the shared runtime), registers the kind and mounts the explorable it sits in.
 */
(function () {
  "use strict";
  const BV = window.benchvoteExplorables;
  const { sign, kendallDistance, changedPairs, el, fmt, count, changeOrder, rankText, bumpChart, figure, replace,
    outputs, describeChanges } = BV.lib;

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

  /** Ordered pairs (i, j): i strictly above j before and strictly below it after. */
  function flippedPairs(a, b) {
    const out = [];
    for (let i = 0; i < a.length; i++)
      for (let j = 0; j < a.length; j++) if (a[i] < a[j] && b[i] > b[j]) out.push([i, j]);
    return out;
  }

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
  BV.register("model-toggle", function (root, d) {
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
  });
})();
