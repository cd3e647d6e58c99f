"""The HTML page of :meth:`benchvote.audit.Audit.to_html`: one file, figures as inline SVG, no network."""

from __future__ import annotations

import html
from typing import Any

import numpy as np

from .audit import _status

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:980px;margin:2rem auto;padding:0 1rem;
color:#1d2330;line-height:1.45}
h1{font-size:1.7rem;margin-bottom:.2rem}h2{font-size:1.3rem;margin-top:2.2rem;border-bottom:1px solid #d8dde6}
p.about{color:#39414f;margin:.3rem 0 .6rem}p.meta{color:#5b6575;font-size:.9rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.88rem}
th,td{border:1px solid #d8dde6;padding:.2rem .5rem;text-align:left}th{background:#f1f4f8}
td.num{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:1rem 0}figcaption{font-size:.88rem;color:#39414f;margin-top:.3rem}
.scroll{overflow-x:auto;max-height:34rem;overflow-y:auto}
.key{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;font-size:.95rem}
.key dt{font-weight:600}.key dd{margin:0}
nav ul{columns:2;font-size:.92rem}
code{background:#f1f4f8;padding:0 .2rem;border-radius:3px}
"""


def _e(x: Any) -> str:
    return html.escape(str(x))


def _num(x: Any, digits: int = 3) -> str:
    if x is None:
        return "&ndash;"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    return f"{x:.{digits}f}"


class _Rank(float):
    """A rank: shown as 3 or 4.5, not 3.000."""


def _cell(v: Any) -> str:
    return f"{v:g}" if isinstance(v, _Rank) else _num(v)


def _table(header: list[str], rows: list[list[Any]], numeric: set[int] | None = None) -> str:
    numeric = numeric or set()
    head = "".join(f"<th scope='col'>{_e(h)}</th>" for h in header)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td class='num'>{_cell(v) if not isinstance(v, str) else _e(v)}</td>"
            if k in numeric
            else f"<td>{_e(v)}</td>"
            for k, v in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


def _short(name: str, n: int) -> str:
    return name if len(name) <= n else name[: n - 1] + "\u2026"


def _figure(svg: str, caption: str) -> str:
    return f"<figure class='audit-figure'>{svg}<figcaption>{_e(caption)}</figcaption></figure>"


def _interval_svg(section: dict, order: list[str], ident: str) -> str:
    """Horizontal rank intervals, best model on top; dot = rank on the full table."""
    m = len(order)
    row, left, right, top = 16, 230, 30, 34
    width = 900
    height = top + row * m + 40
    span = width - left - right

    def x(r: float) -> float:
        return left + (r - 1) / max(m - 1, 1) * span

    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' role='img' aria-labelledby='{ident}-t {ident}-d' "
        f"viewBox='0 0 {width} {height}' width='100%' style='max-width:{width}px'>",
        f"<title id='{ident}-t'>Rank intervals of {m} models</title>",
        f"<desc id='{ident}-d'>For every model, a horizontal line from the lower to the upper end of its "
        f"{int(round(section['level'] * 100))}% bootstrap interval of ranks, and a dot at its rank on the full "
        "table; models are listed best first.</desc>",
    ]
    ticks = sorted({1, m, *range(5, m + 1, 5)}) if m > 10 else list(range(1, m + 1))
    for t in ticks:
        parts.append(
            f"<line x1='{x(t):.1f}' x2='{x(t):.1f}' y1='{top - 6}' y2='{top + row * m}' stroke='#e3e7ee'/>"
            f"<text x='{x(t):.1f}' y='{top - 10}' font-size='11' text-anchor='middle'>{t}</text>"
        )
    for k, name in enumerate(order):
        y = top + row * k + row / 2
        lo, hi, r = section["lower"][name], section["upper"][name], section["ranks"][name]
        parts.append(
            f"<text x='{left - 8}' y='{y + 4:.1f}' font-size='11' text-anchor='end'>{_e(_short(name, 34))}</text>"
            f"<line x1='{x(lo):.1f}' x2='{x(hi):.1f}' y1='{y:.1f}' y2='{y:.1f}' stroke='#2b6cb0' stroke-width='3'>"
            f"<title>{_e(name)}: rank {r:g}, interval {lo:g} to {hi:g}</title></line>"
            f"<circle cx='{x(r):.1f}' cy='{y:.1f}' r='3.5' fill='#c53030'/>"
        )
    parts.append(
        f"<text x='{left + span / 2:.1f}' y='{height - 8}' font-size='12' text-anchor='middle'>"
        "rank (1 = best)</text>"
        f"<text x='{left - 8}' y='{top - 10}' font-size='12' text-anchor='end'>model</text></svg>"
    )
    return "".join(parts)


def _bar_svg(
    values: list[float], labels: list[str], ident: str, title: str, desc: str, xlabel: str, ylabel: str
) -> str:
    n = len(values)
    width, height, left, bottom, top = 640, 260, 56, 52, 16
    span_x, span_y = width - left - 16, height - top - bottom
    vmax = max(max(values), 1e-12)
    bar = span_x / max(n, 1)
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' role='img' aria-labelledby='{ident}-t {ident}-d' "
        f"viewBox='0 0 {width} {height}' width='100%' style='max-width:{width}px'>",
        f"<title id='{ident}-t'>{_e(title)}</title><desc id='{ident}-d'>{_e(desc)}</desc>",
        f"<line x1='{left}' x2='{left}' y1='{top}' y2='{top + span_y}' stroke='#39414f'/>",
        f"<line x1='{left}' x2='{left + span_x}' y1='{top + span_y}' y2='{top + span_y}' stroke='#39414f'/>",
    ]
    for t in np.linspace(0, vmax, 5):
        y = top + span_y - t / vmax * span_y
        parts.append(
            f"<text x='{left - 6}' y='{y + 4:.1f}' font-size='10' text-anchor='end'>{t:.2f}</text>"
            f"<line x1='{left}' x2='{left + span_x}' y1='{y:.1f}' y2='{y:.1f}' stroke='#eef1f5'/>"
        )
    for k, (v, lab) in enumerate(zip(values, labels)):
        h = v / vmax * span_y
        xk = left + k * bar
        parts.append(
            f"<rect x='{xk + bar * 0.12:.1f}' y='{top + span_y - h:.1f}' width='{bar * 0.76:.1f}' height='{h:.1f}' "
            f"fill='#2b6cb0'><title>{_e(lab)}: {v:.3f}</title></rect>"
        )
        if n <= 30:
            parts.append(
                f"<text x='{xk + bar / 2:.1f}' y='{top + span_y + 14}' font-size='10' text-anchor='middle'>"
                f"{_e(lab[:6])}</text>"
            )
    parts.append(
        f"<text x='{left + span_x / 2:.1f}' y='{height - 10}' font-size='12' text-anchor='middle'>{_e(xlabel)}</text>"
        f"<text x='14' y='{top + span_y / 2:.1f}' font-size='12' text-anchor='middle' "
        f"transform='rotate(-90 14 {top + span_y / 2:.1f})'>{_e(ylabel)}</text></svg>"
    )
    return "".join(parts)


def _head(name: str, section: dict) -> str:
    return (
        f"<section id='{name}' data-section='{name}'><h2>{_e(section['title'])}</h2>"
        f"<p class='about'>{_e(section['about'])} <a href='{_e(section['chapter'])}'>The book's chapter</a>.</p>"
    )


def render_html(report: Any, title: str) -> str:
    """One self-contained page for an :class:`benchvote.audit.Audit`."""
    from . import __version__

    s = report.to_dict()["sections"]
    frames = report.results
    out: list[str] = []
    t = s["table"]
    r = s["rankings"]
    order = r["ranking"]
    out.append(
        f"<h1>{_e(title)}</h1><p class='meta'>{t['n_models']} models, {t['n_tasks']} tasks; "
        f"benchvote {_e(__version__)}; primary rule: {_e(r['rules'][r['primary']]['label'])}; "
        f"seed {report.settings['seed']}.</p>"
    )
    ok = {name: sec for name, sec in s.items() if "undefined" not in sec}
    out.append(_summary(ok))
    out.append("<nav><h2>Sections</h2><ul>")
    out.extend(f"<li><a href='#{name}'>{_e(sec['title'])}</a></li>" for name, sec in s.items())
    out.append("</ul></nav>")

    # the table
    out.append(_head("table", t))
    facts = [
        ["models", t["n_models"]],
        ["tasks", t["n_tasks"]],
        ["lower-is-better tasks", ", ".join(k for k, v in t["higher_is_better"].items() if not v) or "none"],
        ["missing cells", t["missing_cells"]],
        ["constant tasks (left out)", ", ".join(t["constant_tasks"]) or "none"],
        ["identical tasks", "; ".join(" = ".join(g) for g in t["duplicated_tasks"]) or "none"],
        ["identical models", "; ".join(" = ".join(g) for g in t["duplicated_models"]) or "none"],
        ["models left out (missing scores)", ", ".join(t["left_out_models"]) or "none"],
        ["tasks left out (missing scores)", ", ".join(t["left_out_tasks"]) or "none"],
    ]
    out.append(_table(["", "value"], facts, numeric={1}) + "</section>")

    # rankings
    out.append(_head("rankings", r))
    rules = [q for q in r["rules"] if "undefined" not in r["rules"][q]]
    for rule in r["rules"].values():
        if "undefined" in rule:
            out.append(f"<p>{_e(rule['label'])} is not defined on this table: {_e(rule['undefined'])}.</p>")
    rows = [[k + 1, m] + [_Rank(r["rules"][q]["ranks"][m]) for q in rules] for k, m in enumerate(order)]
    out.append(
        "<p>Ranks (1 = best, ties share the mean rank), models in the order of the primary rule.</p>"
        + _table(["#", "model"] + [r["rules"][q]["label"] for q in rules], rows, numeric=set(range(2, len(rules) + 2)))
    )
    dist = [[r["rules"][a]["label"]] + [r["kendall_distance"][a][b] for b in rules] for a in rules]
    out.append(
        "<p>Kendall tau distance between the rules' rankings (share of model pairs ordered oppositely):</p>"
        + _table([""] + [r["rules"][q]["label"] for q in rules], dist, numeric=set(range(1, len(rules) + 1)))
    )
    if r["kemeny_note"]:
        out.append(f"<p>{_e(r['kemeny_note'])}.</p>")
    winner = r["condorcet_winner"]
    out.append(
        f"<p>Condorcet winner (beats every other model on a majority of tasks): <strong>{_e(winner)}</strong>.</p>"
        if winner
        else f"<p>No Condorcet winner. Majority cycles of three models: {r['n_cycles']}"
        + (
            ", e.g. " + "; ".join(" &gt; ".join(_e(x) for x in c) + " &gt; " + _e(c[0]) for c in r["cycles"][:5])
            if r["cycles"]
            else ""
        )
        + ".</p>"
    )
    out.append("</section>")

    if "diversity" in ok:
        d = s["diversity"]
        out.append(_head("diversity", d))
        out.append(
            _table(
                ["measure", "value"],
                [
                    ["Kendall's W", d["kendall_w"]],
                    ["diversity 1 - W", d["diversity"]],
                    ["mean pairwise max rank change", d["mean_pairwise_mrc"]],
                ],
                numeric={1},
            )
            + "</section>"
        )

    for name in ("intervals", "instance_intervals"):
        if name not in ok:
            continue
        iv = s[name]
        out.append(_head(name, iv))
        caption = (
            f"Figure: {int(round(iv['level'] * 100))}% rank intervals from {iv['n_boot']} redraws "
            f"({'tasks' if name == 'intervals' else 'test instances'} redrawn), ranked by "
            f"{r['rules'][iv['rule']]['label']}. Line: interval of ranks; dot: rank on the full table."
        )
        out.append(_figure(_interval_svg(iv, order, name), caption))
        out.append(
            f"<p>{len(iv['inseparable'])} of {iv['n_pairs']} pairs are inseparable at this level, "
            f"{iv['adjacent_inseparable']} of the {len(order) - 1} adjacent pairs of the ranking."
            + (f" {iv['redrawn']} redraws were refused by the rule and drawn again." if iv["redrawn"] else "")
            + "</p>"
        )
        rows = [[m, _Rank(iv["ranks"][m]), _Rank(iv["lower"][m]), _Rank(iv["upper"][m])] for m in order]
        out.append(_table(["model", "rank", "lower", "upper"], rows, numeric={1, 2, 3}) + "</section>")

    if "possible_winners" in ok:
        pw = s["possible_winners"]
        out.append(_head("possible_winners", pw))
        out.append(
            f"<p>Box: every task keeps between eps = {pw['eps']:.3g} and all of its labels. "
            f"Possible winners: <strong>{', '.join(_e(m) for m in pw['possible']) or 'none'}</strong>"
            + (f"; undecided: {', '.join(_e(m) for m in pw['undecided'])}" if pw["undecided"] else "")
            + ".</p>"
        )
        if "top_k_possible" in pw:
            out.append(
                f"<p>Models that some weighting puts in the top {pw['k']}: {len(pw['top_k_possible'])} "
                f"({', '.join(_e(m) for m in pw['top_k_possible'])})"
                + (
                    f"; undecided within the time limit: {', '.join(_e(m) for m in pw['top_k_undecided'])}"
                    if pw["top_k_undecided"]
                    else ""
                )
                + ".</p>"
            )
        tasks = s["table"]["measured_tasks"]
        rows = [[m] + [pw["weights"][m][task] for task in tasks] for m in pw["possible"]]
        out.append("<p>Weights (largest 1) that put each possible winner first, recounted exactly:</p>")
        out.append(_table(["winner"] + tasks, rows, numeric=set(range(1, len(tasks) + 1))) + "</section>")

    if "cardinal_sensitivity" in ok:
        c = s["cardinal_sensitivity"]
        out.append(_head("cardinal_sensitivity", c))
        status = _status(c)
        out.append(
            f"<p>Worst reweighting found: tau distance <strong>{_num(c['tau_distance'])}</strong> "
            f"({c['n_flipped']} pairs reversed), {status}; method {_e(c['method'])}, eps = {c['eps']:.3g}, "
            f"largest rank change {_num(c['mrc'], 0)}.</p>" + (f"<p>{_e(c['note'])}.</p>" if c["note"] else "")
        )
        weights = [c["weights"][task] for task in tasks]
        out.append(
            _figure(
                _bar_svg(
                    weights,
                    tasks,
                    "cardinal-weights",
                    "Worst-case task weights",
                    "One bar per task: the weight the worst reweighting found gives it (largest 1).",
                    "task",
                    "weight",
                ),
                "Figure: the task weights of the worst reweighting found (the share of each task's labels kept).",
            )
        )
        if "cardinal" in frames:
            from .explorables import label_noise

            work, hib = frames["scores"], frames["higher_is_better"]
            try:
                out.append(
                    "<p>Move the sliders to reweight the tasks and watch the top models reorder "
                    "(computed in this page):</p>"
                    + label_noise(
                        work, hib, top=min(12, len(work)), eps=c["eps"], worst=frames["cardinal"].weights
                    ).to_html()
                )
            except ValueError as err:  # e.g. a top group too small to show
                out.append(f"<p>(No slider: {_e(err)}.)</p>")
        out.append("</section>")

    if "ordinal_sensitivity" in ok:
        o = s["ordinal_sensitivity"]
        out.append(_head("ordinal_sensitivity", o))
        status = _status(o)
        out.append(
            f"<p>Protected models: {', '.join(_e(m) for m in o['protected'])}. Adding "
            f"{len(o['added'])} model(s) reverses {o['n_flipped']} of their pairs "
            f"(tau distance {_num(o['tau_distance'])}, {status}).</p>"
        )
        if o["iia_pairs"]:
            rows = [[p["leader"], p["trailer"], p["status"], ", ".join(p["certificate"])] for p in o["iia_pairs"]]
            out.append(
                f"<p>IIA certificates among the top {len(o['iia_top'])} ({_e(o['iia_rule'])}): for each pair, "
                "a smallest set of other models whose presence reverses it.</p>"
                + _table(["leader", "trailer", "status", "smallest reversing set"], rows)
            )
        out.append("</section>")

    if "missing" in ok:
        mi = s["missing"]
        out.append(_head("missing", mi))
        out.append(
            f"<p>{mi['decided_pairs']} of {mi['n_pairs']} pairs are decided by the observed tasks "
            f"(confidence 1 - delta = {1 - mi['delta']:.2f}).</p>"
        )
        rows = [[k + 1, m, mi["partial_borda"][m], mi["helm_win_rate"][m]] for k, m in enumerate(mi["ranking"])]
        out.append(_table(["#", "model", "partial Borda", "HELM win rate"], rows, numeric={2, 3}))
        if mi["undecided_top_pairs"]:
            out.append(
                "<p>Undecided pairs among the top: "
                + "; ".join(f"{_e(a)} / {_e(b)}" for a, b in mi["undecided_top_pairs"])
                + ".</p>"
            )
        out.append("</section>")

    if "domains" in ok:
        dm = s["domains"]
        out.append(_head("domains", dm))
        out.append(
            _table(
                ["property", "value"],
                [
                    ["models", ", ".join(dm["models"])],
                    [
                        "single-peaked",
                        "yes, axis " + " - ".join(dm["single_peaked_axis"]) if dm["single_peaked"] else "no",
                    ],
                    ["group-separable", "yes" if dm["group_separable"] else "no"],
                    ["distance-restriction degree", str(dm["distance_degree"])],
                    ["majority relation transitive", "yes" if dm["majority_transitive"] else "no"],
                    ["majority cycles", "; ".join(" > ".join(cy) for cy in dm["cycles"]) or "none"],
                    ["Kemeny ranking", " > ".join(dm["kemeny_ranking"])],
                ],
            )
            + "</section>"
        )

    if "spectrum" in ok:
        sp = s["spectrum"]
        out.append(_head("spectrum", sp))
        shown = sp["explained"][:20]
        out.append(
            _figure(
                _bar_svg(
                    shown,
                    [f"PC{k + 1}" for k in range(len(shown))],
                    "spectrum-fig",
                    "Explained variance by component",
                    "One bar per principal component: the share of the table's variance it explains.",
                    "principal component",
                    "share of variance",
                ),
                f"Figure: share of the variance explained by each principal component (first {len(shown)}). "
                f"The first explains {shown[0]:.0%}.",
            )
            + "</section>"
        )
    for name, sec in s.items():
        if name not in ok:
            out.append(_head(name, sec) + f"<p>Not computed on this table: {_e(sec['undefined'])}.</p></section>")
    body = "".join(out)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>{body}"
        f"<footer><p class='meta'>Made by benchvote {_e(__version__)} (<code>benchvote audit</code>); "
        "every number is also in the JSON report.</p></footer></body></html>"
    )


def _summary(s: dict) -> str:
    """The key facts at the top of the page (sections that are not defined on the table are skipped)."""
    r = s["rankings"]
    order = r["ranking"]
    defined = [q for q in r["rules"] if "undefined" not in r["rules"][q]]
    items = [
        ("Top five", ", ".join(_e(m) for m in order[:5])),
        (
            "Rules",
            f"{len(defined)} rules; largest Kendall distance between two of them "
            f"{max(max(v.values()) for v in r['kendall_distance'].values()):.3f}",
        ),
    ]
    if "intervals" in s:
        iv = s["intervals"]
        items.append(
            (
                "Separable?",
                f"{iv['adjacent_inseparable']} of {len(order) - 1} adjacent pairs inseparable "
                f"at {int(round(iv['level'] * 100))}%",
            )
        )
    if "possible_winners" in s:
        pw = s["possible_winners"]
        shown = ", ".join(_e(m) for m in pw["possible"][:8]) + (" ..." if len(pw["possible"]) > 8 else "")
        items.append(("Possible winners", f"{len(pw['possible'])}: {shown}"))
    if "cardinal_sensitivity" in s:
        c = s["cardinal_sensitivity"]
        items.append(("Label-noise sensitivity", f"tau {c['tau_distance']:.3f} ({_status(c)})"))
    return "<dl class='key'>" + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"
