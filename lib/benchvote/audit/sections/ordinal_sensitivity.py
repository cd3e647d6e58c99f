r"""Ordinal sensitivity and IIA: how far adding models can reorder the top models under the mean win rate.

Zhang and Hardt's ordinal sensitivity: the protected models (the top fifth by
strict mean win rate, at least two) are ranked among themselves; adding some
of the other models to the field changes every win rate, and the largest
share of protected pairs some added set reverses is found by
:func:`benchvote.sensitivity.ordinal_sensitivity_exact` (a mixed-integer
program within the budget level's nodes, or enumeration of
small pools).  The IIA table (:func:`benchvote.axioms.iia_report`) asks the
question pair by pair among the top ``top_models`` models of the primary
ranking, with a smallest reversing set for each.

**Scope.**  The program has one binary per protected pair, so its cost grows
faster than the square of the number of models; it runs on the field of the
:data:`FIELD_MODELS` best models of the primary ranking of the complete part
(every model when there are fewer), and the IIA table draws its added models
from the same field.  A reversal found there is a reversal of the whole table
(its added models are models of the table); "stable" holds for that field.
"""

from __future__ import annotations

from typing import Any, TypedDict

from ..._quiet import quiet_solver_output
from ...aggregation import borda, mean_win_rate
from ...axioms import iia_report
from ...rules import RULES
from ...sensitivity import default_protected, ordinal_sensitivity_exact
from .._budget import BUDGETS
from .._errors import NotDefined
from .._prepare import Context, names
from .._registry import Output, Section, Sentence, register
from .._run import STOPPED
from .cardinal_sensitivity import status

#: The models (best first in the primary ranking) among which the program and the IIA table run.
FIELD_MODELS = 60


class Result(TypedDict):
    protected: list[str]
    tau_distance: float
    n_flipped: int
    n_pairs: int
    upper_bound: float | None
    optimal: bool
    exactness: str
    stopped: str
    added: list[str]
    method: str
    ranking_before: dict[str, float]
    ranking_after: dict[str, float]
    field: list[str]
    n_models: int
    scope: str
    iia_rule: str
    iia_rule_label: str
    iia_rule_definition: str
    iia_top: list[str]
    iia_pool: int
    iia_pairs: list[dict]
    iia_reversible: int


def _iia(ctx: Context, work: Any, order: list) -> dict:
    """The IIA certificates among the top ``top_models`` models, the rest of the field as the pool."""

    primary = ctx.options.primary
    name = "borda" if primary == "borda" else "mean_win_rate"  # the two rules whose margins decompose
    top = order[: min(ctx.options.top_models, len(order))]
    pool = [m for m in order if m not in top]
    pairs = []
    if pool:
        rep = iia_report(work, ctx.hib, protected=top, pool=pool, rule=borda if name == "borda" else mean_win_rate)
        for row in rep.itertuples():
            pairs.append(
                {
                    "leader": str(row.leader),
                    "trailer": str(row.trailer),
                    "status": str(row.status),
                    "certificate": [str(m) for m in row.certificate],  # type: ignore[union-attr]
                }
            )
    rule = ctx.rules[name]
    return {
        "iia_rule": name,
        "iia_rule_label": rule.label,
        "iia_rule_definition": rule.definition,
        "iia_top": names(top),
        "iia_pool": len(pool),
        "iia_pairs": pairs,
        "iia_reversible": sum(p["status"] == "reversible" for p in pairs),
    }


def compute(ctx: Context, done: dict) -> Output:

    order = list(done["rankings"].objects["order"])[:FIELD_MODELS]
    chosen = set(order)
    work = ctx.work.loc[[m for m in ctx.work.index if m in chosen]]  # the field, in the table's order
    protected = default_protected(work, ctx.hib)
    if len(protected) >= len(work):
        raise NotDefined(f"all {len(work)} models are protected (the top models): there is no model to add")
    with quiet_solver_output():  # HiGHS may print from C++
        r = ordinal_sensitivity_exact(
            work,
            ctx.hib,
            protected=protected,
            work_limit=BUDGETS[ctx.options.budget].milp_nodes,
            time_limit=ctx.options.time_limit,
        )
    p = len(protected)
    whole = len(ctx.work)
    fields: Result = {
        "protected": names(protected),
        "tau_distance": r.tau_distance,
        "n_flipped": int(r.n_flipped),
        "n_pairs": p * (p - 1) // 2,
        "upper_bound": r.upper_bound,
        "optimal": bool(r.optimal),
        "exactness": "",
        "stopped": r.stopped,
        "added": names(r.added),
        "method": r.method,
        "ranking_before": {str(m): float(v) for m, v in r.ranking_before.items()},
        "ranking_after": {str(m): float(v) for m, v in r.ranking_after.items()},
        "field": names(order),
        "n_models": whole,
        "scope": (
            f"all {whole} models of the complete part"
            if len(order) == whole
            else f"the {len(order)} best of the {whole} models of the complete part in the primary ranking "
            f"(limit {FIELD_MODELS}: the program grows faster than the square of the number of models); "
            "the protected models are the top fifth of that field and only its other models are added"
        ),
        **_iia(ctx, work, order),  # type: ignore[typeddict-item]
    }
    fields["exactness"] = status(fields)  # type: ignore[arg-type]
    return Output(dict(fields), {"ordinal": r})


TEMPLATE = """
{% set key = "ordinal_sensitivity" %}
<p>Field: {{ s.scope }}. Protected models ({{ ui.count(s.protected, key ~ ".protected") }}, the top fifth of the field by
strict mean win rate, at least two): {{ ui.names(s.protected) }}. They are ranked among themselves by the strict
mean win rate{% if s.iia_rule != "mean_win_rate" %} ({{ win_rate }}){% else %} (defined below){% endif %}; then models of the field are added and every win rate is recomputed.</p>
<p>Adding {{ ui.count(s.added, key ~ ".added") }} model{{ s.added|length|s }}{% if s.added %} ({{ ui.names(s.added[:8]) }}{% if s.added|length > 8 %} and {{ s.added|length - 8 }} more{% endif %}){% endif %} reverses {{ ui.v(s.n_flipped, key ~ ".n_flipped", "d") }} of the {{ ui.v(s.n_pairs, key ~ ".n_pairs", "d") }} protected pairs
(tau distance {{ ui.v(s.tau_distance, key ~ ".tau_distance") }}: the share of pairs reversed;
{% if s.optimal or s.upper_bound is none %}{{ s.exactness }}{% else %}certified bound {{ ui.v(s.upper_bound, key ~ ".upper_bound") }}{% endif %};
method {{ s.method }}){% if s.stopped and not s.optimal %}; {{ stopped[s.stopped] }}{% endif %}.</p>
{% if s.iia_pairs %}
<p>IIA certificates among the top {{ ui.count(s.iia_top, key ~ ".iia_top") }} models of the primary ranking
({{ ui.names(s.iia_top) }}), under the {{ s.iia_rule_label }}: {{ s.iia_rule_definition }}.
"Leader" and "trailer" are their order when only these {{ s.iia_top|length }} models are ranked, under that rule;
"reversible" means some set of the other {{ ui.v(s.iia_pool, key ~ ".iia_pool", "d") }} models of the field, added
to these {{ s.iia_top|length }}, puts the trailer ahead, and the table gives a smallest such set;
"stable" means no such set exists among them. {{ ui.v(s.iia_reversible, key ~ ".iia_reversible", "d") }} of
{{ s.iia_pairs|length }} pairs are reversible.</p>
{{ ui.table(["leader", "trailer", "status", "smallest reversing set"], iia_rows) }}
{% endif %}
"""


def render(view: Any) -> str:
    s = view.s
    rows = [[p["leader"], p["trailer"], p["status"], ", ".join(p["certificate"]) or "-"] for p in s["iia_pairs"]]
    win_rate = RULES["mean_win_rate"].definition
    return view.html(TEMPLATE, iia_rows=rows, win_rate=win_rate, stopped=STOPPED)


def verdict(s: dict, done: dict) -> list:
    out = []
    if s["n_pairs"]:
        field = "" if len(s["field"]) == s["n_models"] else f" of the top {len(s['field'])}"
        among = f"the {len(s['protected'])} protected top models"
        text = (
            f"Adding models{field} can reverse {s['tau_distance'] * 100:.0f}% of the pairs among {among} "
            f"({s['n_flipped']} of {s['n_pairs']}; {s['exactness']})."
            if s["n_flipped"]
            else f"Adding models{field} reverses none of the pairs among {among} ({s['exactness']})."
        )
        out.append(Sentence("ordinal_sensitivity", text))
    return out


SECTION = register(
    Section(
        name="ordinal_sensitivity",
        title="Ordinal sensitivity and IIA",
        chapter="arrow",
        about="How far adding weaker models can reorder the top models under the mean win rate, a failure of the "
        "independence of irrelevant alternatives. For each pair of top models: whether some set of added models "
        "reverses it, with a smallest such set.",
        order=90,
        cost=(
            "a work budget: a mixed-integer program of at most 500 nodes on the top 60 models (one binary per "
            "protected pair)"
        ),
        result=Result,
        compute=compute,
        render=render,
        needs=("rankings",),
        verdict=verdict,
    )
)
