/* benchvote explorable "missing-share": a slider for the share of scores removed; each state is the library's own result, looked up.
 * Runs after explorables.js (the shared runtime), registers the kind and mounts the explorable it sits in.
 */
(function () {
  "use strict";
  const BV = window.benchvoteExplorables;
  const { el, fmt, rankText, bumpChart, figure, slider, outputs } = BV.lib;

  /** A slider for the share of scores removed; each state is the library's own result, looked up. */
  BV.register("missing-share", function (root, d) {
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
  });
})();
