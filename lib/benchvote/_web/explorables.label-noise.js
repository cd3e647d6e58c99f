/* benchvote explorable "label-noise": one slider per task for its share of intact labels; the ranks of the weighted means are
 * recomputed with the library's tie tolerance.
 * Runs after explorables.js (the shared runtime), registers the kind and mounts the explorable it sits in.
 */
(function () {
  "use strict";
  const BV = window.benchvoteExplorables;
  const { midranks, kendallDistance, el, fmt, rankText, bumpChart, barChart, figure, replace, slider, outputs } = BV.lib;

  /** Ranks of ranks: 1 for the smallest rank (benchvote.rank(r, higher_is_better=False)). */
  function rerank(r) {
    return midranks(r.map((v) => -v), 0);
  }

  function maxRankChange(a, b) {
    let top = 0;
    for (let i = 0; i < a.length; i++) top = Math.max(top, Math.abs(a[i] - b[i]));
    return top / (a.length - 1);
  }

  /** One slider per task for its share of intact labels; ranks of the weighted means, recomputed. */
  BV.register("label-noise", function (root, d) {
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
  });
})();
