"""Restricted domains among the top models of the primary ranking: single-peaked, group-separable, distance-restricted.

Each task's ranking of the top models (of the complete part, best first under
the primary rule; ties broken alphabetically, as Gordienko et al. do) is one
vote.  The section reports which domain restrictions the profile satisfies,
whether the majority relation is transitive, its cycles, and the Kemeny
ranking of these models.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np

from ...domains import domain_report, rankings_from_scores
from ...voting import KEMENY_MAX_MODELS, condorcet_cycles, kemeny
from .._errors import NotDefined
from .._prepare import Context, names
from .._registry import Output, Section, Sentence, register
from .._text import plural


class Result(TypedDict):
    models: list[str]
    scope: str
    single_peaked: bool
    single_peaked_axis: list[str] | None
    group_separable: bool
    distance_degree: int
    majority_transitive: bool
    cycles: list[list[str]]
    kemeny_ranking: list[str]
    n_tasks: int


def compute(ctx: Context, done: dict) -> Output:
    order = done["rankings"].objects["order"]
    if len(order) < 3:
        raise NotDefined(
            f"the complete part has {len(order)} models, and the domain restrictions concern three or more: any "
            "ranking of two models is single-peaked and group-separable, and their majority relation has no cycle"
        )
    top = order[: min(max(ctx.options.top_models, 3), len(order))]
    if len(top) > KEMENY_MAX_MODELS:
        raise NotDefined(f"Kemeny is limited to {KEMENY_MAX_MODELS} models; top_models is {ctx.options.top_models}")
    tol = ctx.options.tol
    sub = ctx.work.loc[top]
    rep = domain_report(rankings_from_scores(sub, ctx.hib, tol=tol))
    k = kemeny(sub, ctx.hib, tol=tol, max_models=KEMENY_MAX_MODELS)
    axis = rep.single_peaked_axis
    fields: Result = {
        "models": names(top),
        "scope": f"the top {len(top)} of the {len(order)} models of the complete part under the primary rule",
        "single_peaked": bool(rep.single_peaked),
        "single_peaked_axis": None if axis is None else names(axis),
        "group_separable": bool(rep.group_separable),
        "distance_degree": int(rep.distance_degree),
        "majority_transitive": bool(rep.majority_transitive),
        "cycles": [names(c.models) for c in condorcet_cycles(sub, ctx.hib, tol=tol)],
        "kemeny_ranking": names(sub.index[np.argsort(np.asarray(k.ranks, dtype=float), kind="stable")]),
        "n_tasks": int(ctx.work.shape[1]),
    }
    return Output(dict(fields), {"domains": rep})


TEMPLATE = """
<p>Scope: {{ s.scope }} ({{ ui.names(s.models) }}); each of the {{ ui.v(s.n_tasks, "domains.n_tasks", "d") }} tasks
ranks them (ties broken alphabetically) and counts as one vote.</p>
<dl class="key">
<dt>Single-peaked</dt><dd>{% if s.single_peaked %}yes, on the axis {{ ui.names(s.single_peaked_axis, " \u2013 ") }}{% else %}no{% endif %}
(some left-to-right order of the models such that every task prefers models less the farther they lie from its favourite)</dd>
<dt>Group-separable</dt><dd>{{ s.group_separable|fmt }} (the models split into two groups that every task ranks
wholly one above the other, recursively)</dd>
<dt>Distance-restriction degree</dt><dd>{{ ui.v(s.distance_degree, "domains.distance_degree", "d") }} (the largest
number of adjacent swaps between two tasks' rankings: the smaller, the closer the tasks are to one ranking)</dd>
<dt>Majority relation transitive</dt><dd>{{ s.majority_transitive|fmt }}</dd>
<dt>Majority cycles</dt><dd>{% if s.cycles %}{% for c in s.cycles %}{{ ui.names(c, " > ") }}{% if not loop.last %}; {% endif %}{% endfor %}{% else %}none{% endif %}</dd>
<dt>Kemeny ranking</dt><dd>{{ ui.names(s.kemeny_ranking, " > ") }} (the ranking closest to the task rankings in
Kendall distance, summed)</dd>
</dl>
"""


def render(view: Any) -> str:
    return view.html(TEMPLATE)


def verdict(s: dict, done: dict) -> list[Sentence]:
    if s["majority_transitive"]:
        return []
    return [
        Sentence(
            "domains",
            f"Among the top {len(s['models'])} models the majority relation has {plural(len(s['cycles']), 'cycle')}, "
            f"e.g. {' > '.join(s['cycles'][0])}."
            if s["cycles"]
            else f"Among the top {len(s['models'])} models the majority relation is not transitive.",
            secondary=True,
        )
    ]


SECTION = register(
    Section(
        name="domains",
        title="Restricted domains among the top models",
        chapter="domains",
        about="Majority rule gives a transitive ranking when the tasks' rankings are single-peaked, group-separable "
        "or close to one another. Among the top models: which of these hold, and the majority cycles if any.",
        order=110,
        cost=(
            "independent of m: Kemeny over all k! orders of the k = top_models top models (k <= 8), O(k! k^2 + "
            "k^2 n), and the domain tests on them"
        ),
        result=Result,
        compute=compute,
        render=render,
        needs=("rankings",),
        verdict=verdict,
    )
)
