r"""Cardinal sensitivity: the largest share of model pairs that label noise on the tasks can reverse.

Label noise that keeps between eps and all of each task's labels reweights the
tasks (weights in :math:`[\varepsilon, 1]`); the section reports the largest
share of model pairs such a reweighting reverses in the mean-score ranking of
``ctx.cardinal`` (the complete part, normalised), found by
:func:`_search`: the exact box search up to ten distinct tasks, otherwise the
torch-free coordinate search, tightened by the mixed-integer program when few
pairs are reversible.  Every number depends only on the table, the options and
the seed (work budgets, not time).

**Scope.**  The count runs over all pairs, and the exact searches grow faster
than m^2; beyond :data:`SCOPE_MODELS` models the section runs on the
:data:`SCOPE_MODELS` best models by the (normalised) mean score and says so.

**Which tasks drive the flips.**  The worst weights against equal weights:
each task's share of the total weight minus :math:`1/n` (positive: the
reweighting leans on the task), and a few of the reversed pairs in words.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypedDict

import markupsafe
import numpy as np
import pandas as pd

from ...explorables import label_noise
from ...sensitivity import cardinal_sensitivity, cardinal_sensitivity_exact
from ...sensitivity._policy import AUTO_EXACT_MAX_TASKS
from .._budget import BUDGETS, Budget
from .._charts import hbars
from .._errors import NotDefined
from .._prepare import Context, names, series
from .._registry import Output, Section, Sentence, register
from .._run import STOPPED
from .._text import plural

#: Beyond this many models the section runs on the best ones by the mean score.
SCOPE_MODELS = 150
#: Up to this many distinct tasks the exact box search runs (the library's own threshold).
BOX_TASKS = AUTO_EXACT_MAX_TASKS
#: Tasks drawn in the weight-shift chart (the largest shifts); the rest are summarised in the caption.
CHART_TASKS = 40
#: Reversed pairs named in words.
PAIRS_SHOWN = 8
#: Models in the label-noise explorable.
EXPLORABLE_MODELS = 12


class Result(TypedDict):
    method: str
    eps: float
    tau_distance: float
    n_flipped: int
    n_pairs: int
    upper_bound: float | None
    optimal: bool
    exactness: str
    stopped: str
    work: int
    mrc: float
    weights: dict[str, float]
    weight_shift: dict[str, float]
    ranking_before: dict[str, float]
    ranking_after: dict[str, float]
    flipped_examples: list[list[str]]
    note: str | None
    models: list[str]
    n_models: int
    scope: str


def status(section: dict) -> str:
    """How far a sensitivity section's value is established: proven, bounded, or neither."""
    if section["optimal"]:
        return "proven maximum"
    if section["upper_bound"] is None:
        return "no certified bound"
    return f"certified bound {section['upper_bound']:.3f}"


def cap_note(stopped: str, time_limit: float, optimal: bool = False) -> str | None:
    """What the report says when the wall-clock safety cap, not the work budget, ended a search."""
    if stopped != "time_limit":
        return None
    if optimal:
        return (
            f"the {time_limit:g}-second safety cap stopped the exact search, after its value was proven; "
            "the weights shown may differ on another machine"
        )
    return (
        f"the {time_limit:g}-second safety cap stopped the exact search before its work budget: "
        "the value found is a lower bound, no certified bound is shown, and another machine may find more"
    )


def _search(
    cardinal: pd.DataFrame, hib: pd.Series, eps: float, time_limit: float, seed: int, tol: float, budget: Budget
) -> tuple:
    """The result, the same on every run and machine whether or not torch is installed.

    Up to :data:`BOX_TASKS` distinct tasks, the exact box search (within the
    budget's boxes).  Beyond, the torch-free coordinate search (within the
    budget's pair-steps) finds the value with a loose certified bound (the
    pairs reversible on their own), and, up to the budget's ``milp_pairs``
    such pairs, the mixed-integer program (within its nodes) tightens it; a
    bound reached only when the wall-clock cap stopped the program would
    depend on the machine's speed, so it is left out and the note says so.
    """

    common: dict[str, Any] = dict(eps=eps, time_limit=time_limit, seed=seed, tol=tol)
    if cardinal.T.drop_duplicates().shape[0] <= BOX_TASKS:
        r = cardinal_sensitivity_exact(cardinal, hib, method="boxes", work_limit=budget.box_search_boxes, **common)
        if r.stopped == "time_limit" and not r.optimal:  # its bound would depend on the machine's speed
            r = dataclasses.replace(r, upper_bound=None)
        return r, cap_note(r.stopped, time_limit, r.optimal)
    found = cardinal_sensitivity(
        cardinal, hib, eps=eps, method="search", seed=seed, tol=tol, work_limit=budget.search_pair_steps
    )
    assert found.upper_bound is not None  # the search always attaches the pairs reversible on their own
    pairs = found.upper_bound * len(cardinal) * (len(cardinal) - 1) / 2
    if found.optimal or pairs > budget.milp_pairs:
        limit = f"is not run beyond {plural(budget.milp_pairs, 'such pair')}" if budget.milp_pairs else "does not run"
        note = None if found.optimal else (
            "the bound counts the pairs that some weighting reverses on their own; the mixed-integer program "
            f"{limit} at this budget level"
        )  # fmt: skip
        return found, note
    exact = cardinal_sensitivity_exact(cardinal, hib, method="milp", work_limit=budget.milp_nodes, **common)
    if exact.stopped == "time_limit":
        return found, cap_note("time_limit", time_limit)
    best = exact if exact.n_flipped > found.n_flipped else found
    bound = found.upper_bound if exact.upper_bound is None else min(exact.upper_bound, found.upper_bound)
    proven = best.tau_distance >= bound
    note = None if proven else f"the bound is the mixed-integer program's after {exact.work} nodes"
    return dataclasses.replace(best, upper_bound=bound, optimal=proven, stopped="" if proven else exact.stopped), note


def field(ctx: Context) -> pd.DataFrame:
    """The models the section runs on: all, or the :data:`SCOPE_MODELS` best by the (normalised) mean score."""
    card = ctx.cardinal
    if len(card) <= SCOPE_MODELS:
        return card
    mean = (card * np.where(ctx.hib.to_numpy(dtype=bool), 1.0, -1.0)).mean(axis=1).to_numpy()
    best = np.sort(np.argsort(-mean, kind="stable")[:SCOPE_MODELS])
    return card.iloc[best]


def flipped(before: pd.Series, after: pd.Series, shown: int = PAIRS_SHOWN) -> list[list[str]]:
    """Up to ``shown`` reversed pairs as [now above, now below], the pairs of the best models before first."""
    order = before.sort_values(kind="stable").index
    out = []
    for a_pos, a in enumerate(order):
        for b in order[a_pos + 1 :]:
            if before[a] < before[b] and after[a] > after[b]:
                out.append([str(b), str(a)])
                if len(out) >= shown:
                    return out
    return out


def compute(ctx: Context, done: dict) -> Output:

    if ctx.box_undefined:
        raise NotDefined(ctx.box_undefined)
    o = ctx.options
    card = field(ctx)
    r, note = _search(card, ctx.hib, ctx.eps, o.time_limit, o.seed, o.tol, BUDGETS[o.budget])  # type: ignore[arg-type]
    weights = pd.Series(np.asarray(r.weights, dtype=float), index=card.columns)
    share = weights / weights.sum() - 1.0 / len(weights)
    before = pd.Series(np.asarray(r.ranking_before, dtype=float), index=card.index)
    after = pd.Series(np.asarray(r.ranking_after, dtype=float), index=card.index)
    m = len(card)
    fields: Result = {
        "method": r.method,
        "eps": r.eps,
        "tau_distance": r.tau_distance,
        "n_flipped": int(r.n_flipped),
        "n_pairs": m * (m - 1) // 2,
        "upper_bound": r.upper_bound,
        "optimal": bool(r.optimal),
        "exactness": "",
        "stopped": r.stopped,
        "work": int(r.work),
        "mrc": r.mrc,
        "weights": series(weights, card.columns),
        "weight_shift": series(share, card.columns),
        "ranking_before": series(before, card.index),
        "ranking_after": series(after, card.index),
        "flipped_examples": flipped(before, after),
        "note": note,
        "models": names(card.index),
        "n_models": len(ctx.cardinal),
        "scope": (
            f"all {m} models of the complete part"
            if m == len(ctx.cardinal)
            else f"the {m} best of the {len(ctx.cardinal)} models of the complete part by the mean score "
            f"(limit {SCOPE_MODELS}: the exact searches grow faster than the square of the number of models)"
        ),
    }
    fields["exactness"] = status(fields)  # type: ignore[arg-type]
    return Output(dict(fields), {"cardinal": r, "cardinal_field": card})


TEMPLATE = """
{% set key = "cardinal_sensitivity" %}
<p>Models: {{ s.scope }}; {{ ui.v(s.n_pairs, key ~ ".n_pairs", "d") }} pairs; every task keeps between
eps = {{ ui.v(s.eps, key ~ ".eps", ".3g") }} and all of its labels.
A pair is reversed when the reweighted mean score orders it strictly the other way (ties never count);
the tau distance is the share of pairs reversed.</p>
<p>Worst reweighting found: tau distance <strong>{{ ui.v(s.tau_distance, key ~ ".tau_distance") }}</strong>
({{ ui.v(s.n_flipped, key ~ ".n_flipped", "d") }} pairs reversed),
{% if s.optimal or s.upper_bound is none %}{{ s.exactness }}{% else %}certified bound {{ ui.v(s.upper_bound, key ~ ".upper_bound") }}{% endif %};
method {{ s.method }}; largest rank change {{ ui.v(s.mrc, key ~ ".mrc") }} (the largest move of one model divided by the number of models minus one; 1 = from first to last).</p>
{% if s.note %}<p>{{ s.note[:1]|upper }}{{ s.note[1:] }}.</p>{% endif %}
{% if s.stopped and not s.optimal %}<p>{{ stopped[s.stopped][:1]|upper }}{{ stopped[s.stopped][1:] }}.</p>{% endif %}
{% if s.flipped_examples %}<p>Reversed pairs (the best models' first{% if s.n_flipped > s.flipped_examples|length %}, {{ s.flipped_examples|length }} of {{ s.n_flipped }}{% endif %}):
{% for p in s.flipped_examples %}{{ ui.name(p[0]) }} now above {{ ui.name(p[1]) }}{% if not loop.last %}; {% endif %}{% endfor %}.</p>{% endif %}
<p>Which tasks drive the flips: each task's share of the total weight under the worst reweighting, minus its
share under equal weights (1/{{ s.weights|length }}); a positive shift means the reweighting leans on the task.</p>
{% call ui.figure(caption) %}{{ ui.hbars("cardinal-shift", chart) }}{% endcall %}
{% if explorable %}<p>Move the sliders to reweight the tasks and watch the top models reorder (computed in this page{% if s.models|length < s.n_models %}, on the same {{ s.models|length }} models{% endif %}):</p>
{{ explorable }}{% endif %}
"""


def _chart(s: dict) -> tuple:
    shift = s["weight_shift"]
    tasks = sorted(shift, key=lambda t: -abs(shift[t]))[:CHART_TASKS]
    chart = hbars(
        [shift[t] for t in tasks],
        tasks,
        "Task weight shifts of the worst reweighting",
        f"One bar per task ({len(tasks)} of {len(shift)}, largest shifts first): its share of the total weight "
        "under the worst reweighting found minus its share under equal weights.",
        "weight share minus equal share",
        signed=True,
    )
    rest = len(shift) - len(tasks)
    caption = "Figure: weight shift per task under the worst reweighting found (share of the total weight minus 1/n)" + (
        f"; the {len(tasks)} largest shifts of {len(shift)} tasks are drawn, the other {rest} shift by at most "
        f"{max(abs(shift[t]) for t in shift if t not in tasks):.3g}." if rest else "."
    )  # fmt: skip
    return chart, caption


def render(view: Any) -> str:

    s, res = view.s, view.results
    chart, caption = _chart(s)
    explorable = None
    if "cardinal" in res and "cardinal_field" in res:
        card = res["cardinal_field"]
        hib = [bool(res["higher_is_better"][t]) for t in card.columns]
        top = min(EXPLORABLE_MODELS, len(card))
        ex = label_noise(card, hib, top=top, eps=s["eps"], worst=res["cardinal"].weights, tol=view.settings["tol"])
        explorable = markupsafe.Markup(ex.to_html())  # the library's fragment: its payload is escaped JSON
    return view.html(TEMPLATE, chart=chart, caption=caption, explorable=explorable, stopped=STOPPED)


def verdict(s: dict, done: dict) -> list:
    scope = "" if len(s["models"]) == s["n_models"] else f" among the {len(s['models'])} best models by mean score"
    return [
        Sentence(
            "cardinal_sensitivity",
            f"A re-weighting that keeps at least {s['eps']:.3g} of every task's labels reverses "
            f"{s['tau_distance'] * 100:.0f}% of the model pairs{scope} ({plural(s['n_flipped'], 'pair')}; {s['exactness']}).",
        )
    ]


SECTION = register(
    Section(
        name="cardinal_sensitivity",
        title="Cardinal sensitivity",
        chapter="tradeoff",
        about="The largest share of model pairs that such a reweighting can reverse in the mean-score ranking. "
        "A proven maximum carries a certificate; otherwise the value found and a certified upper bound are shown.",
        order=80,
        cost=(
            "a work budget: at most 2,000,000 boxes of the exact search (O(s n + s log s) each, s <= 150 models) "
            "or mixed-integer programs of at most 500 nodes"
        ),
        result=Result,
        compute=compute,
        render=render,
        verdict=verdict,
    )
)
