"""Quality against cost: the Pareto front of the primary rule's score against the declared cost columns.

Quality is the primary rule's score of the models of the complete part (the
cost columns are left out of every aggregation); every cost is
lower-is-better, whatever direction was given for it.  Qualities within the
tie tolerance count as equal (the front is computed on their ranks).  A
model is on the front when no other model is at least as good and at most as
costly on every cost, and strictly better in one
(:func:`benchvote.ranking.pareto_front`).
"""

from __future__ import annotations

import math
from typing import Any, TypedDict

import numpy as np
import pandas as pd

from ...ranking import pareto_front, rank
from .. import _charts
from .._html import is_number
from .._prepare import Context
from .._registry import Output, Section, Sentence, register
from .._text import some

#: Most dots drawn in the figure (the whole front first, then the best dominated models by quality).
MAX_POINTS = 1500


class Result(TypedDict):
    quality_rule: str
    quality_label: str
    quality_definition: str
    costs: list[str]
    cost_direction: str
    n_compared: int
    front: list[dict]
    dominated: list[dict]
    missing_cost: list[dict]
    no_quality: list[dict]


def when(ctx: Context) -> bool:
    return len(ctx.cost_table.columns) > 0


def front(quality: pd.Series, cost_table: pd.DataFrame, tol: float) -> tuple[list, np.ndarray, np.ndarray, np.ndarray]:
    """The compared models (quality and every cost known), their tie-aware quality ranks, costs, and who is on the front."""
    known = [m for m in quality.index if cost_table.loc[m].notna().all()]
    q = quality[known].to_numpy(dtype=float)
    c = cost_table.loc[known].to_numpy(dtype=float)
    ranks = rank(q, tol=tol) if known else np.zeros(0)  # quality ties within tol share a rank
    on = np.asarray(pareto_front(-ranks, c), dtype=bool) if known else np.zeros(0, dtype=bool)
    return known, ranks, c, on


def compute(ctx: Context, done: dict) -> Output:
    quality = done["rankings"].objects["primary_scores"]
    cost_table, primary = ctx.cost_table, ctx.options.primary
    known, ranks, c, on = front(quality, cost_table, ctx.options.tol)
    order = sorted(range(len(known)), key=lambda i: (ranks[i], *c[i]))

    def entry(m: Any) -> dict:
        return {
            "model": str(m),
            "quality": float(quality[m]) if m in quality.index else None,
            "costs": [None if pd.isna(v) else float(v) for v in cost_table.loc[m]],
        }

    rule = ctx.rules[primary]
    fields: Result = {
        "quality_rule": primary,
        "quality_label": rule.label,
        "quality_definition": rule.definition,
        "costs": [str(n) for n in cost_table.columns],
        "cost_direction": "lower is better (a declared cost's given direction is ignored)",
        "n_compared": len(known),
        "front": [entry(known[i]) for i in order if on[i]],
        "dominated": [entry(known[i]) for i in order if not on[i]],
        "missing_cost": [entry(m) for m in quality.index if m not in set(known)],
        "no_quality": [entry(m) for m in cost_table.index if m not in quality.index],
    }
    return Output(dict(fields))


TEMPLATE = """
<p>Quality: {{ s.quality_label }} ({{ s.quality_definition }}) over the quality tasks of the complete part, for the
models scored on every one of them; costs: {{ ui.names(s.costs) }}, {{ s.cost_direction }}. A model is on the front
when no other model is at least as good (qualities within the tie tolerance count as equal) and at most as costly on
every cost, and strictly better in one. {{ ui.count(s.front, "pareto.front") }} of
{{ ui.v(s.n_compared, "pareto.n_compared", "d") }} models compared are on the front:
<strong>{{ ui.listed(front_names[:20]) }}</strong>{% if front_names|length > 20 %} and {{ front_names|length - 20 }} more (the table lists them){% endif %}.</p>
{% if chart %}{% call ui.figure(caption) %}{{ ui.scatter("pareto-fig", chart) }}{% endcall %}{% endif %}
{{ ui.table(header, front_rows, numeric=numeric, specs=specs, caption="The front, best quality first.") }}
{% if dominated_rows %}{{ ui.table(header, dominated_rows, numeric=numeric, specs=specs,
  caption="Off the front (another model is at least as good and at most as costly, and strictly better in one), best quality first.") }}{% endif %}
{% if s.missing_cost %}<p>Listed apart, with a missing cost: {% for e in s.missing_cost %}{{ ui.name(e.model) }} (costs {% for c in e.costs %}{{ c|fmt(".6g") }}{% if not loop.last %}, {% endif %}{% endfor %}){% if not loop.last %}; {% endif %}{% endfor %}.</p>{% endif %}
{% if s.no_quality %}<p>Listed apart, with no quality score (left out of the complete part for missing scores): {% for e in s.no_quality %}{{ ui.name(e.model) }} (costs {% for c in e.costs %}{{ c|fmt(".6g") }}{% if not loop.last %}, {% endif %}{% endfor %}){% if not loop.last %}; {% endif %}{% endfor %}.</p>{% endif %}
"""


def chart_of(s: dict) -> tuple[Any, str]:
    """The scatter of quality against the one cost (log across when the costs span more than two decades)."""
    if len(s["costs"]) != 1 or s["n_compared"] < 2:
        return None, ""
    cost, label = s["costs"][0], s["quality_label"]
    groups = ((True, s["front"]), (False, sorted(s["dominated"], key=lambda e: -(e["quality"] or -math.inf))))
    points = [(e["model"], float(e["costs"][0]), float(e["quality"]), on) for on, group in groups for e in group
              if is_number(e["costs"][0]) and is_number(e["quality"])]  # fmt: skip
    drawn = points[:MAX_POINTS]
    xs = [x for _, x, _, _ in drawn]
    log = bool(xs) and min(xs) > 0 and max(xs) / min(xs) > 100
    scale = " (log scale)" if log else ""
    chart = _charts.scatter(
        drawn, f"Quality against {cost}",
        f"One dot per model: {cost} across{scale}, {label} up. The models on the Pareto front are filled, joined by "
        "a line and labelled; the others are hollow.",
        f"{cost}{scale}, lower is better", label, log_x=log, xname=cost,
    )  # fmt: skip
    more = len(points) - len(drawn)
    caption = (
        f"Figure: quality ({label}) against {cost}{' on a log scale' if log else ''}; the models of the front are "
        "filled, joined and labelled where room allows (hover a dot for its name and values)"
        + (
            f"; {len(drawn)} of {len(points)} models drawn (the front and the best dominated by quality)"
            if more
            else ""
        )
        + "."
    )
    return chart, caption


def render(view: Any) -> str:
    s = view.s
    header = ["#", "model", s["quality_label"], *s["costs"]]
    numeric = [0, 2, *range(3, 3 + len(s["costs"]))]
    specs = {0: "d", 2: ".4g", **{3 + j: ".6g" for j in range(len(s["costs"]))}}

    def rows(entries: list[dict]) -> list[list]:
        return [[k + 1, e["model"], e["quality"], *e["costs"]] for k, e in enumerate(entries)]

    chart, caption = chart_of(s)
    return view.html(
        TEMPLATE, chart=chart, caption=caption, header=header, numeric=numeric, specs=specs,
        front_rows=rows(s["front"]), dominated_rows=rows(s["dominated"]), front_names=[e["model"] for e in s["front"]],
    )  # fmt: skip


def verdict(s: dict, done: dict) -> list[Sentence]:
    names = [e["model"] for e in s["front"]]
    shown = some(names, 5)
    return [
        Sentence(
            "pareto",
            f"{len(names)} of {s['n_compared']} models are on the quality-cost front ({', '.join(s['costs'])}): {shown}.",
        )
    ]


SECTION = register(
    Section(
        name="pareto",
        title="Quality against cost: the Pareto front",
        chapter="tradeoff",
        about="The declared cost columns are left out of every aggregation; quality is the primary rule's score over "
        "the other tasks, and every cost is lower-is-better. A model is on the front when no other model is at least "
        "as good and at most as costly on every cost, and strictly better in one.",
        order=45,
        cost="O(m^2 c) for c cost columns: each model against the front (at most 1,500 points drawn)",
        result=Result,
        compute=compute,
        render=render,
        needs=("rankings",),
        when=when,
        verdict=verdict,
    )
)
