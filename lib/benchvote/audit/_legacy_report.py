"""The HTML page of :meth:`benchvote.audit.Audit.to_html`: one file, figures as inline SVG, no network.

**Escaping.**  Every string that comes from the user's table or options
(model and task names, the title, messages that quote them) reaches the page
through one of two functions: :func:`_e` for HTML text, attribute values and
SVG (``& < > " '`` escaped), :func:`benchvote.explorables.script_json` for JSON inside a
``<script>`` element (``< > &`` and U+2028/U+2029 written as ``\\uXXXX``, so
no name can close the element, open a comment or end a line of script).
Everything else interpolated is a number formatted here or a constant string.

**Numbers.**  The headline numbers are written by :func:`_v`, which formats
the value read from the JSON report (:meth:`~benchvote.audit.Audit.to_dict`)
and marks it with ``data-json``: the key it came from, so tests can check
that the page states the JSON's numbers.  A missing or non-finite value
shows as a dash; the renderer never compares or formats ``nan``.
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np

from .audit import _status
from .plotting import OKABE_ITO

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

DASH = "\u2013"  # an en dash: plain text, safe in HTML as it is

# --------------------------------------------------------------------------- escaping and numbers


def _e(x: Any) -> str:
    """Text for HTML or SVG content and quoted attribute values."""
    return html.escape(str(x), quote=True)


def _name(x: Any) -> str:
    """A model or task name in HTML text: escaped, and isolated so a right-to-left mark cannot reorder the line."""
    return f"<bdi>{_e(x)}</bdi>"


def _names(xs: Any, sep: str = ", ") -> str:
    return _e(sep).join(_name(x) for x in xs)


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and math.isfinite(x)


def _fmt(x: Any, spec: str = ".3f") -> str:
    """A number as text; a dash when it is missing or not finite."""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if not _finite(x):
        return DASH
    if isinstance(x, (int, np.integer)) and spec.endswith("f"):
        return str(int(x))
    return format(x, spec)


def _v(x: Any, key: str, spec: str = ".3f") -> str:
    """A headline number, formatted, tagged with the JSON key it shows (``#len`` etc. name a derived count)."""
    return f"<span class='v' data-json='{_e(key)}'>{_fmt(x, spec)}</span>"


def _count(items: Any, key: str) -> str:
    return _v(len(items), f"{key}#len", "d")


def _pct(x: Any, key: str) -> str:
    """A share shown as a whole percentage."""
    return _v(x * 100 if _finite(x) else None, f"{key}#pct", ".0f") + "%"


class _Rank(float):
    """A rank: shown as 3 or 4.5, not 3.000."""


def _cell(v: Any) -> str:
    if isinstance(v, str):
        return _e(v)
    return _fmt(v, "g") if isinstance(v, _Rank) else _fmt(v)


# --------------------------------------------------------------------------- building blocks


def _table(header: list[str], rows: list[list[Any]], numeric: set[int] | None = None) -> str:
    numeric = numeric or set()
    head = "".join(f"<th scope='col'>{_e(h)}</th>" for h in header)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td class='num'>{_cell(v)}</td>" if k in numeric else f"<td>{_e(v)}</td>" for k, v in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


def _short(name: str, n: int) -> str:
    return name if len(name) <= n else name[: n - 1] + "\u2026"


def _figure(svg: str, caption: str) -> str:
    return f"<figure class='audit-figure'>{svg}<figcaption>{_e(caption)}</figcaption></figure>"


def _svg_open(ident: str, width: int, height: int, title: str, desc: str) -> str:
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' role='img' aria-labelledby='{ident}-t {ident}-d' "
        f"viewBox='0 0 {width} {height}' width='100%' style='max-width:{width}px'>"
        f"<title id='{ident}-t'>{_e(title)}</title><desc id='{ident}-d'>{_e(desc)}</desc>"
    )


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
        _svg_open(
            ident,
            width,
            height,
            f"Rank intervals of {m} models",
            "For every model, a horizontal line from the lower to the upper end of its "
            f"{_fmt(section['level'] * 100, '.0f')}% bootstrap interval of ranks, and a dot at its rank on the full "
            "table; models are listed best first.",
        )
    ]
    ticks = sorted({1, m, *range(5, m + 1, 5)}) if m > 10 else list(range(1, m + 1))
    for t in ticks:
        parts.append(
            f"<line x1='{x(t):.1f}' x2='{x(t):.1f}' y1='{top - 6}' y2='{top + row * m}' stroke='#e3e7ee'/>"
            f"<text x='{x(t):.1f}' y='{top - 10}' font-size='11' text-anchor='middle'>{t}</text>"
        )
    for k, name in enumerate(order):
        y = top + row * k + row / 2
        lo, hi, r = section["lower"].get(name), section["upper"].get(name), section["ranks"].get(name)
        parts.append(
            f"<text x='{left - 8}' y='{y + 4:.1f}' font-size='11' text-anchor='end'>{_e(_short(name, 34))}</text>"
        )
        if not (_finite(lo) and _finite(hi) and _finite(r)):
            continue
        parts.append(
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


def _bar_svg(values: list[Any], labels: list[str], ident: str, text: tuple[str, str, str, str]) -> str:
    """One bar per value; ``text`` is (title, desc, x label, y label).  A missing value draws no bar."""
    title, desc, xlabel, ylabel = text
    n = len(values)
    width, height, left, bottom, top = 640, 260, 56, 52, 16
    span_x, span_y = width - left - 16, height - top - bottom
    heights = [float(v) if _finite(v) and v > 0 else 0.0 for v in values]
    vmax = max([*heights, 1e-12])
    bar = span_x / max(n, 1)
    parts = [
        _svg_open(ident, width, height, title, desc),
        f"<line x1='{left}' x2='{left}' y1='{top}' y2='{top + span_y}' stroke='#39414f'/>",
        f"<line x1='{left}' x2='{left + span_x}' y1='{top + span_y}' y2='{top + span_y}' stroke='#39414f'/>",
    ]
    for t in np.linspace(0, vmax, 5):
        y = top + span_y - t / vmax * span_y
        parts.append(
            f"<text x='{left - 6}' y='{y + 4:.1f}' font-size='10' text-anchor='end'>{t:.2f}</text>"
            f"<line x1='{left}' x2='{left + span_x}' y1='{y:.1f}' y2='{y:.1f}' stroke='#eef1f5'/>"
        )
    for k, (v, h_value, lab) in enumerate(zip(values, heights, labels)):
        h = h_value / vmax * span_y
        xk = left + k * bar
        parts.append(
            f"<rect x='{xk + bar * 0.12:.1f}' y='{top + span_y - h:.1f}' width='{bar * 0.76:.1f}' height='{h:.1f}' "
            f"fill='#2b6cb0'><title>{_e(lab)}: {_fmt(v)}</title></rect>"
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
        f"<section id='{_e(name)}' data-section='{_e(name)}'><h2>{_e(section['title'])}</h2>"
        f"<p class='about'>{_e(section['about'])} <a href='{_e(section['chapter'])}'>The book's chapter</a>.</p>"
    )


def _explorable(ex: Any) -> str:
    """An explorable's fragment (its payload written by :func:`benchvote.explorables.script_json`)."""
    return str(ex.to_html())


# --------------------------------------------------------------------------- the sections


def _table_section(t: dict) -> str:
    def listed(names: list[str]) -> str:
        return ", ".join(names) or "none"

    facts = [
        ["models", t["n_models"]],
        ["tasks", t["n_tasks"]],
        ["lower-is-better tasks", listed([k for k, v in t["higher_is_better"].items() if not v])],
        ["missing cells", t["missing_cells"]],
        ["constant tasks (left out)", listed(t["constant_tasks"])],
        ["identical tasks", "; ".join(" = ".join(g) for g in t["duplicated_tasks"]) or "none"],
        ["identical models", "; ".join(" = ".join(g) for g in t["duplicated_models"]) or "none"],
        ["models left out (missing scores)", listed(t["left_out_models"])],
        ["tasks left out (missing scores)", listed(t["left_out_tasks"])],
        ["tasks left out (constant on the complete part)", listed([f["task"] for f in t["constant_in_part"]])],
        ["cost columns (left out of every aggregation)", listed(t.get("cost_columns", []))],
    ]
    return _table(["", "value"], facts, numeric={1}) + _constant_in_part(t["constant_in_part"])


def _constant_in_part(flat: list[dict]) -> str:
    """Why each task constant on the complete part is left out of the measures that see that part."""
    if not flat:
        return ""
    items = "".join(
        f"<li>{_name(f['task'])}: all {_v(f['n_models'], f'table.constant_in_part.{k}.n_models', 'd')} models "
        f"score {_v(f['score'], f'table.constant_in_part.{k}.score', '.6g')}; {_e(f['reason'])}.</li>"
        for k, f in enumerate(flat)
    )
    return f"<p>Tasks left out of the complete part because they are constant on it:</p><ul>{items}</ul>"


def _units_section(u: dict) -> str:
    """The units notice: which columns, their spreads, what it means, and the eps of the label-noise box."""
    ratio = _v(u["spread_ratio"], "units.spread_ratio", ".3g")
    if u["mixed_scales"]:
        scale = (
            f"The largest task spread (standard deviation over the measured models) is {ratio} times the smallest, "
            f"above {_v(u['threshold'], 'units.threshold', 'g')}: the columns are on different scales."
        )
    elif u["cost_named"]:
        scale = f"The task spreads differ by a factor of {ratio} at most, but some column names look like a cost."
    else:
        scale = f"The task spreads differ by a factor of {ratio} at most: the columns share one scale."
    items = "".join(
        f"<li>{_name(c)}: spread {_v(sd, f'units.spreads.{k}', '.4g')} ({_e(why)})</li>"
        for k, (c, sd, why) in enumerate(zip(u["columns"], u["spreads"], u["why"]))
    )
    return (
        f"<p>{scale}</p>"
        + (f"<ul>{items}</ul>" if items else "")
        + (
            f"<p>What it means: {_e(u['meaning'])}. Widest column: {_name(u['widest'])}; "
            f"narrowest: {_name(u['narrowest'])}.</p>"
            if items
            else ""
        )
        + _normalisation_html(u)
        + f"<p>Label-noise box (possible winners, cardinal sensitivity): eps = {_v(u['eps'], 'units.eps', '.3g')}, "
        f"{_e(u['eps_reason'])}.</p>"
    )


def _normalisation_html(u: dict) -> str:
    """Which table the cardinal parts read, what the normalisation leaves alone, and what to try."""
    norm = u.get("normalize", "none")
    if norm == "none":
        text = "<p>The cardinal parts (mean score, possible winners, cardinal sensitivity) read the scores as read.</p>"
    else:
        text = (
            f"<p>The cardinal parts use the <code>{_e(norm)}</code> normalisation: {_e(u['normalize_meaning'])}. "
            "After it, the largest task spread is "
            f"{_v(u['normalized_spread_ratio'], 'units.normalized_spread_ratio', '.3g')} times the smallest. "
            f"{_e(u['scope'][:1].upper() + u['scope'][1:])}.</p>"
        )
    if u.get("suggestion"):
        text += f"<p>Suggestion: {_e(u['suggestion'])}.</p>"
    return text


def _condorcet(r: dict) -> str:
    winner = r["condorcet_winner"]
    if winner:
        return (
            "<p>Condorcet winner (beats every other model on a majority of tasks): "
            f"<strong>{_name(winner)}</strong>.</p>"
        )
    examples = "; ".join(" &gt; ".join(_name(x) for x in [*c, c[0]]) for c in r["cycles"][:5])
    return (
        f"<p>No Condorcet winner. Majority cycles of three models: {_v(r['n_cycles'], 'rankings.n_cycles', 'd')}"
        + (f", e.g. {examples}" if examples else "")
        + ".</p>"
    )


def _rankings_section(r: dict, order: list[str]) -> str:
    out = []
    rules = [q for q in r["rules"] if "undefined" not in r["rules"][q]]
    for rule in r["rules"].values():
        if "undefined" in rule:
            out.append(f"<p>{_e(rule['label'])} is not defined on this table: {_e(rule['undefined'])}.</p>")
    labels = [r["rules"][q]["label"] for q in rules]
    rows = [[k + 1, m] + [_Rank(r["rules"][q]["ranks"][m]) for q in rules] for k, m in enumerate(order)]
    out.append(
        "<p>Ranks (1 = best, ties share the mean rank), models in the order of the primary rule.</p>"
        + _table(["#", "model", *labels], rows, numeric=set(range(2, len(rules) + 2)))
    )
    dist = [[r["rules"][a]["label"]] + [r["kendall_distance"][a][b] for b in rules] for a in rules]
    out.append(
        "<p>Kendall tau distance between the rules' rankings (share of model pairs ordered oppositely):</p>"
        + _table(["", *labels], dist, numeric=set(range(1, len(rules) + 1)))
    )
    if r["kemeny_note"]:
        out.append(f"<p>{_e(r['kemeny_note'])}.</p>")
    out.append(_condorcet(r))
    return "".join(out)


def _diversity_section(d: dict) -> str:
    rows = [
        ["Kendall's W", d["kendall_w"]],
        ["diversity 1 - W", d["diversity"]],
        ["mean pairwise max rank change", d["mean_pairwise_mrc"]],
    ]
    return _table(["measure", "value"], rows, numeric={1})


def _interval_section(name: str, iv: dict, rule_label: str, order: list[str]) -> str:
    level = _fmt(iv["level"] * 100, ".0f")
    caption = (
        f"Figure: {level}% rank intervals from {iv['n_boot']} redraws "
        f"({'tasks' if name == 'intervals' else 'test instances'} redrawn), ranked by "
        f"{rule_label}. Line: interval of ranks; dot: rank on the full table."
    )
    text = (
        f"<p>{_count(iv['inseparable'], f'{name}.inseparable')} of {_v(iv['n_pairs'], f'{name}.n_pairs', 'd')} "
        f"pairs are inseparable at this level, {_v(iv['adjacent_inseparable'], f'{name}.adjacent_inseparable', 'd')} "
        f"of the {len(order) - 1} adjacent pairs of the ranking."
        + (
            f" {_v(iv['redrawn'], f'{name}.redrawn', 'd')} redraws were refused by the rule and drawn again."
            if iv["redrawn"]
            else ""
        )
        + "</p>"
    )
    rows = [[m, _Rank(iv["ranks"][m]), _Rank(iv["lower"][m]), _Rank(iv["upper"][m])] for m in order]
    return (
        _figure(_interval_svg(iv, order, name), caption)
        + text
        + _table(["model", "rank", "lower", "upper"], rows, numeric={1, 2, 3})
    )


def _winners_section(pw: dict, tasks: list[str]) -> str:
    out = [
        f"<p>Box: every task keeps between eps = {_v(pw['eps'], 'possible_winners.eps', '.3g')} and all of its labels. "
        f"Possible winners ({_count(pw['possible'], 'possible_winners.possible')}): "
        f"<strong>{_names(pw['possible']) or 'none'}</strong>"
        + (f"; undecided: {_names(pw['undecided'])}" if pw["undecided"] else "")
        + ".</p>"
    ]
    if "top_k_possible" in pw:
        out.append(
            f"<p>Models that some weighting puts in the top {_v(pw['k'], 'possible_winners.k', 'd')}: "
            f"{_count(pw['top_k_possible'], 'possible_winners.top_k_possible')} ({_names(pw['top_k_possible'])})"
            + (f"; undecided within the budget: {_names(pw['top_k_undecided'])}" if pw["top_k_undecided"] else "")
            + (f" ({_e(_STOPPED[pw['stopped']])})" if pw.get("stopped") else "")
            + ".</p>"
        )
    rows = [[m] + [pw["weights"][m][task] for task in tasks] for m in pw["possible"]]
    out.append("<p>Weights (largest 1) that put each possible winner first, recounted exactly:</p>")
    out.append(_table(["winner", *tasks], rows, numeric=set(range(1, len(tasks) + 1))))
    return "".join(out)


def _status_html(section: dict, name: str) -> str:
    """:func:`benchvote.audit._status`, with the bound tagged as a number of the JSON."""
    if section["optimal"] or section["upper_bound"] is None:
        return _e(_status(section))
    return f"certified bound {_v(section['upper_bound'], f'{name}.upper_bound')}"


def _cardinal_section(c: dict, tasks: list[str], frames: dict) -> str:
    key = "cardinal_sensitivity"
    out = [
        f"<p>Worst reweighting found: tau distance <strong>{_v(c['tau_distance'], f'{key}.tau_distance')}</strong> "
        f"({_v(c['n_flipped'], f'{key}.n_flipped', 'd')} pairs reversed), {_status_html(c, key)}; "
        f"method {_e(c['method'])}, eps = {_v(c['eps'], f'{key}.eps', '.3g')}, "
        f"largest rank change {_v(c['mrc'], f'{key}.mrc')} (1 = a model moves from first to last).</p>"
        + (f"<p>{_e(c['note'])}.</p>" if c["note"] else "")
        + (f"<p>{_e(_STOPPED[c['stopped']])}.</p>" if c.get("stopped") and not c["optimal"] else "")
    ]
    text = (
        "Worst-case task weights",
        "One bar per task: the weight the worst reweighting found gives it (largest 1).",
        "task",
        "weight",
    )
    weights = [c["weights"].get(task) for task in tasks]
    out.append(
        _figure(
            _bar_svg(weights, tasks, "cardinal-weights", text),
            "Figure: the task weights of the worst reweighting found (the share of each task's labels kept).",
        )
    )
    if "cardinal" in frames:
        from .explorables import label_noise

        work, hib = frames.get("cardinal_scores", frames["scores"]), frames["higher_is_better"]
        slider = label_noise(work, hib, top=min(12, len(work)), eps=c["eps"], worst=frames["cardinal"].weights)
        out.append(
            "<p>Move the sliders to reweight the tasks and watch the top models reorder "
            "(computed in this page):</p>" + _explorable(slider)
        )
    return "".join(out)


def _ordinal_section(o: dict) -> str:
    key = "ordinal_sensitivity"
    out = [
        f"<p>Protected models: {_names(o['protected'])}. Adding "
        f"{_count(o['added'], f'{key}.added')} model(s) reverses {_v(o['n_flipped'], f'{key}.n_flipped', 'd')} of "
        f"their pairs (tau distance {_v(o['tau_distance'], f'{key}.tau_distance')}, {_status_html(o, key)})"
        + (f"; {_e(_STOPPED[o['stopped']])}" if o.get("stopped") and not o["optimal"] else "")
        + ".</p>"
    ]
    if o["iia_pairs"]:
        rows = [[p["leader"], p["trailer"], p["status"], ", ".join(p["certificate"])] for p in o["iia_pairs"]]
        out.append(
            f"<p>IIA certificates among the top {len(o['iia_top'])} ({_e(o['iia_rule'])}): for each pair, "
            "a smallest set of other models whose presence reverses it.</p>"
            + _table(["leader", "trailer", "status", "smallest reversing set"], rows)
        )
    return "".join(out)


def _missing_section(mi: dict) -> str:
    out = [
        f"<p>{_v(mi['decided_pairs'], 'missing.decided_pairs', 'd')} of {_v(mi['n_pairs'], 'missing.n_pairs', 'd')} "
        f"pairs are decided by the observed tasks (delta = {_v(mi['delta'], 'missing.delta', '.2f')}).</p>"
    ]
    rows = [[k + 1, m, mi["partial_borda"][m], mi["helm_win_rate"][m]] for k, m in enumerate(mi["ranking"])]
    out.append(_table(["#", "model", "partial Borda", "HELM win rate"], rows, numeric={2, 3}))
    if mi["undecided_top_pairs"]:
        pairs = "; ".join(f"{_name(a)} / {_name(b)}" for a, b in mi["undecided_top_pairs"])
        out.append(f"<p>Undecided pairs among the top: {pairs}.</p>")
    return "".join(out)


def _domains_section(dm: dict) -> str:
    axis = dm["single_peaked_axis"]
    rows = [
        ["models", ", ".join(dm["models"])],
        ["single-peaked", "yes, axis " + " - ".join(axis) if dm["single_peaked"] and axis else "no"],
        ["group-separable", "yes" if dm["group_separable"] else "no"],
        ["distance-restriction degree", str(dm["distance_degree"])],
        ["majority relation transitive", "yes" if dm["majority_transitive"] else "no"],
        ["majority cycles", "; ".join(" > ".join(cy) for cy in dm["cycles"]) or "none"],
        ["Kemeny ranking", " > ".join(dm["kemeny_ranking"])],
    ]
    return _table(["property", "value"], rows)


def _spectrum_section(sp: dict) -> str:
    shown = sp["explained"][:20]
    text = (
        "Explained variance by component",
        "One bar per principal component: the share of the table's variance it explains.",
        "principal component",
        "share of variance",
    )
    first = _fmt(shown[0] * 100, ".0f") if shown and _finite(shown[0]) else DASH
    return _figure(
        _bar_svg(shown, [f"PC{k + 1}" for k in range(len(shown))], "spectrum-fig", text),
        f"Figure: share of the variance explained by each principal component of the standardised table "
        f"(first {len(shown)}). The first explains {first}%.",
    )


def _tagged_rows(entries: list[dict], key: str) -> str:
    """Table rows of the ``pareto`` entries, every number tagged with its JSON key."""
    return "".join(
        f"<tr><td class='num'>{k + 1}</td><td>{_name(e['model'])}</td>"
        f"<td class='num'>{_v(e['quality'], f'{key}.{k}.quality', '.4g')}</td>"
        + "".join(f"<td class='num'>{_v(c, f'{key}.{k}.costs.{j}', '.6g')}</td>" for j, c in enumerate(e["costs"]))
        + "</tr>"
        for k, e in enumerate(entries)
    )


def _pareto_table(p: dict, entries: list[dict], key: str) -> str:
    head = "".join(f"<th scope='col'>{_e(h)}</th>" for h in ["#", "model", p["quality_label"], *p["costs"]])
    return (
        f"<div class='scroll'><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{_tagged_rows(entries, key)}</tbody></table></div>"
    )


def _apart(entries: list[dict], why: str) -> str:
    """Models left out of the front, with their costs (a dash for a missing one)."""
    if not entries:
        return ""
    rows = "; ".join(f"{_name(e['model'])} (costs {', '.join(_fmt(c, '.6g') for c in e['costs'])})" for e in entries)
    return f"<p>Listed apart, {_e(why)}: {rows}.</p>"


def _pareto_section(p: dict) -> str:
    """The quality-cost front: who is on it, a figure for a single cost, the tables, and the models listed apart."""
    front = [e["model"] for e in p["front"]]
    out = [
        f"<p>Quality: {_e(p['quality_label'])} over the quality tasks (the primary rule); costs: "
        f"{_names(p['costs'])}, lower is better (a declared cost's given direction is ignored). "
        f"{_count(p['front'], 'pareto.front')} of {_v(p['n_compared'], 'pareto.n_compared', 'd')} models are on "
        f"the front: <strong>{_names(front) or 'none'}</strong>.</p>"
    ]
    if len(p["costs"]) == 1 and p["n_compared"] >= 2:
        svg, log = _pareto_svg(p, "pareto-fig")
        out.append(
            _figure(
                svg,
                f"Figure: quality ({p['quality_label']}) against {p['costs'][0]}"
                + (" on a log scale" if log else "")
                + "; the models of the front are joined and labelled.",
            )
        )
    out.append("<p>The front, best quality first:</p>" + _pareto_table(p, p["front"], "pareto.front"))
    if p["dominated"]:
        out.append(
            "<p>Off the front (another model is at least as good and at most as costly, and strictly better in "
            "one):</p>" + _pareto_table(p, p["dominated"], "pareto.dominated")
        )
    out.append(_apart(p["missing_cost"], "with a missing cost"))
    out.append(_apart(p["no_quality"], "with no quality score (left out of the complete part for missing scores)"))
    return "".join(out)


def _scale(values: list[float], lo_px: float, span: float, flip: bool) -> tuple[Any, float, float]:
    """A map from data to pixels over ``span`` (upwards when ``flip``), and the data range."""
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)

    def at(v: float) -> float:  # 12 px inside each end, so no dot sits on an axis
        share = 0.5 if hi <= lo else (v - lo) / (hi - lo)
        return lo_px + 12 + (1 - share if flip else share) * (span - 24)

    return at, lo, hi


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    """Tick values: every power of ten in range on a log axis (``lo``, ``hi`` are then log10), else five even ones."""
    if log:
        return [10.0**k for k in range(math.ceil(lo), math.floor(hi) + 1)] or [10.0**lo]
    return [float(v) for v in np.linspace(lo, hi, 5)] if hi > lo else [lo]


def _pareto_svg(p: dict, ident: str) -> tuple[str, bool]:
    """Quality (up) against the one cost (across), log across when the costs span more than two decades."""
    cost, label = p["costs"][0], p["quality_label"]
    points = [
        (e["model"], float(e["costs"][0]), float(e["quality"]), on)
        for on, group in ((True, p["front"]), (False, p["dominated"]))
        for e in group
        if _finite(e["costs"][0]) and _finite(e["quality"])
    ]
    xs, ys = [x for _, x, _, _ in points], [y for _, _, y, _ in points]
    log = bool(xs) and min(xs) > 0 and max(xs) / min(xs) > 100
    width, height, left, top = 720, 380, 72, 20
    span_x, span_y = width - left - 170, height - top - 56
    sx, x_lo, x_hi = _scale([math.log10(x) for x in xs] if log else xs, left, span_x, False)
    sy, y_lo, y_hi = _scale(ys, top, span_y, True)
    tick = ".6g" if log else ".3g"

    def px(v: float) -> float:
        return float(sx(math.log10(v) if log else v))

    desc = (
        f"One dot per model: {cost} across{' (log scale)' if log else ''}, {label} up. The models on the "
        "Pareto front are filled, joined by a line and labelled; the others are hollow."
    )
    parts = [
        _svg_open(ident, width, height, f"Quality against {cost}", desc),
        f"<line x1='{left}' x2='{left}' y1='{top}' y2='{top + span_y}' stroke='#39414f'/>",
        f"<line x1='{left}' x2='{left + span_x}' y1='{top + span_y}' y2='{top + span_y}' stroke='#39414f'/>",
    ]
    parts += [
        f"<text x='{px(v):.1f}' y='{top + span_y + 16}' font-size='10' text-anchor='middle'>{_fmt(v, tick)}</text>"
        for v in _ticks(x_lo, x_hi, log)
    ]
    parts += [
        f"<text x='{left - 6}' y='{sy(v) + 4:.1f}' font-size='10' text-anchor='end'>{_fmt(v, '.3g')}</text>"
        for v in _ticks(y_lo, y_hi, False)
    ]
    line = " ".join(f"{px(x):.1f},{sy(y):.1f}" for x, y in sorted((x, y) for _, x, y, on in points if on))
    parts.append(f"<polyline fill='none' stroke='{OKABE_ITO[4]}' stroke-width='1.5' points='{line}'/>")
    for name, x, y, on in points:
        tip = f"<title>{_e(name)}: {_e(cost)} {_fmt(x, '.6g')}, quality {_fmt(y, '.4g')}</title>"
        dot = f"fill='{OKABE_ITO[4]}'" if on else f"fill='white' stroke='{OKABE_ITO[0]}' stroke-width='1.5'"
        parts.append(f"<circle cx='{px(x):.1f}' cy='{sy(y):.1f}' r='4.5' {dot}>{tip}</circle>")
        if on:
            parts.append(f"<text x='{px(x) + 7:.1f}' y='{sy(y) - 6:.1f}' font-size='10'>{_e(_short(name, 24))}</text>")
    key, low = left + span_x + 24, top + span_y
    parts.append(
        f"<circle cx='{key}' cy='{low - 28}' r='4.5' fill='{OKABE_ITO[4]}'/>"
        f"<text x='{key + 10}' y='{low - 24}' font-size='11'>on the front</text>"
        f"<circle cx='{key}' cy='{low - 8}' r='4.5' fill='white' stroke='{OKABE_ITO[0]}' stroke-width='1.5'/>"
        f"<text x='{key + 10}' y='{low - 4}' font-size='11'>dominated</text>"
        f"<text x='{left + span_x / 2:.1f}' y='{height - 12}' font-size='12' text-anchor='middle'>"
        f"{_e(cost)}{' (log scale)' if log else ''}, lower is better</text>"
        f"<text x='16' y='{top + span_y / 2:.1f}' font-size='12' text-anchor='middle' "
        f"transform='rotate(-90 16 {top + span_y / 2:.1f})'>{_e(label)}</text></svg>"
    )
    return "".join(parts), log


# --------------------------------------------------------------------------- the page


def _body(name: str, s: dict, frames: dict) -> str:
    """The inside of one defined section."""
    sec, r = s[name], s["rankings"]
    order, tasks = r["ranking"], s["table"]["measured_tasks"]
    if name == "table":
        return _table_section(sec)
    if name == "rankings":
        return _rankings_section(sec, order)
    if name in ("intervals", "instance_intervals"):
        return _interval_section(name, sec, r["rules"][sec["rule"]]["label"], order)
    if name == "possible_winners":
        return _winners_section(sec, tasks)
    if name == "cardinal_sensitivity":
        return _cardinal_section(sec, tasks, frames)
    simple = {
        "units": _units_section,
        "diversity": _diversity_section,
        "ordinal_sensitivity": _ordinal_section,
        "missing": _missing_section,
        "domains": _domains_section,
        "spectrum": _spectrum_section,
        "pareto": _pareto_section,
    }
    return simple[name](sec)


def _section(name: str, s: dict, frames: dict) -> str:
    sec = s[name]
    if "undefined" in sec:
        inner = f"<p>Not computed on this table: {_e(sec['undefined'])}.</p>"
    else:
        inner = _body(name, s, frames)
    return _head(name, sec) + inner + "</section>"


def render_html(report: Any, title: str) -> str:
    """One self-contained page for an :class:`benchvote.audit.Audit`."""
    from . import __version__

    s = report.to_dict()["sections"]
    t, r = s["table"], s["rankings"]
    ok = {name: sec for name, sec in s.items() if "undefined" not in sec}
    parts = [
        f"<h1>{_e(title)}</h1><p class='meta'>{_v(t['n_models'], 'table.n_models', 'd')} models, "
        f"{_v(t['n_tasks'], 'table.n_tasks', 'd')} tasks; benchvote {_e(__version__)}; "
        f"primary rule: {_e(r['rules'][r['primary']]['label'])}; seed {_e(report.settings['seed'])}"
        f"{_settings_note(report.settings)}.</p>",
        _summary(ok),
        "<nav><h2>Sections</h2><ul>",
        *(f"<li><a href='#{_e(name)}'>{_e(sec['title'])}</a></li>" for name, sec in s.items()),
        "</ul></nav>",
        *(_section(name, s, report.results) for name in s),
    ]
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>{''.join(parts)}"
        f"<footer><p class='meta'>Made by benchvote {_e(__version__)} (<code>benchvote audit</code>); "
        "every number is also in the JSON report.</p></footer></body></html>"
    )


#: What a report says of a part that ended unfinished, by the budget that ended it.
_STOPPED = {
    "work_limit": "a program reached its work budget; the same table and options give this answer on every run",
    "time_limit": "the wall-clock safety cap stopped a program: this answer may differ on another machine",
    "solver": "the solver ended a program unfinished; its model is left undecided",
}


def _settings_note(settings: dict) -> str:
    """The normalisation, the declared costs, the budgets and whether torch ran."""
    note = ""
    budgets = settings.get("budgets")
    if budgets:
        note += (
            f"; work budgets {budgets['box_search_boxes']:,} boxes and {budgets['milp_nodes']:,} solver nodes"
            f" per exact part, safety cap {settings['time_limit']:g} s"
        )
    optional = settings.get("optional")
    if optional:
        installed = "installed" if optional["torch_installed"] else "not installed"
        note += f"; torch {installed}, not used (the numbers do not depend on it)"
    if settings.get("normalize", "none") != "none":
        note += f"; cardinal parts on the <code>{_e(settings['normalize'])}</code>-normalised table"
    if settings.get("costs"):
        note += f"; cost columns (not aggregated): {_names(settings['costs'])}"
    return note


def _largest_distance(r: dict) -> Any:
    values = [v for row in r["kendall_distance"].values() for v in row.values() if _finite(v)]
    return max(values) if values else None


def _summary(s: dict) -> str:
    """The key facts at the top of the page (sections that are not defined on the table are skipped)."""
    r = s["rankings"]
    order = r["ranking"]
    defined = [q for q in r["rules"] if "undefined" not in r["rules"][q]]
    items = [("Top five", _names(order[:5]))]
    if "units" in s and s["units"]["columns"]:
        items.insert(0, ("Units", f"columns on different scales or named like a cost: {_names(s['units']['columns'])}"))
    if "pareto" in s:
        p = s["pareto"]
        shown = _names([e["model"] for e in p["front"][:8]]) + (" ..." if len(p["front"]) > 8 else "")
        items.append(("Quality-cost front", f"{_count(p['front'], 'pareto.front')} models: {shown}"))
    items += [
        (
            "Rules",
            f"{len(defined)} rules; largest Kendall distance between two of them "
            f"{_v(_largest_distance(r), 'rankings.kendall_distance#max')}",
        ),
    ]
    if "intervals" in s:
        iv = s["intervals"]
        items.append(
            (
                "Separable?",
                f"{_v(iv['adjacent_inseparable'], 'intervals.adjacent_inseparable', 'd')} of {len(order) - 1} "
                f"adjacent pairs inseparable at {_pct(iv['level'], 'intervals.level')}",
            )
        )
    if "possible_winners" in s:
        pw = s["possible_winners"]
        shown = _names(pw["possible"][:8]) + (" ..." if len(pw["possible"]) > 8 else "")
        items.append(("Possible winners", f"{_count(pw['possible'], 'possible_winners.possible')}: {shown}"))
    if "cardinal_sensitivity" in s:
        c = s["cardinal_sensitivity"]
        items.append(
            (
                "Label-noise sensitivity",
                f"tau {_v(c['tau_distance'], 'cardinal_sensitivity.tau_distance')} "
                f"({_status_html(c, 'cardinal_sensitivity')}), largest rank change "
                f"{_v(c['mrc'], 'cardinal_sensitivity.mrc')}",
            )
        )
    return "<dl class='key'>" + "".join(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"
