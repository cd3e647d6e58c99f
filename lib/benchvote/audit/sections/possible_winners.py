r"""Possible winners: the models that some admissible reweighting of the tasks ranks first (or in the top k).

Label noise that keeps between eps and all of each task's labels reweights the
tasks (weights :math:`a_t \in [\varepsilon, 1]`); model i is a *possible
winner* when some such weighting puts its weighted mean
:math:`S_i(a) = \sum_t a_t x_{it} / \sum_t a_t` strictly first, by more than
the tie tolerance (:func:`benchvote.sensitivity.possible_winners`: one linear
program per model, checked in exact arithmetic).  Everything is read on
``ctx.cardinal`` (the complete part, normalised), oriented so higher is better.

**Exact pruning before the programs.**  Say j *surely beats* i when
:math:`S_j(a) - S_i(a) > \mathrm{tol}` for every weighting of the box.  The
difference is :math:`\sum_t a_t (x_{jt} - x_{it} - \mathrm{tol}) / \sum_t a_t`,
a linear function of :math:`a` over its positive sum, so it holds everywhere
exactly when the smallest value of the numerator over the box, taken
coordinate by coordinate (:math:`\varepsilon c_t` for a positive coefficient
:math:`c_t`, :math:`c_t` for a negative one), is positive; a margin for
rounding makes the test miss a case rather than invent one.  A model that
another beats or ties on every task, with wins large enough to clear the
tolerance, is surely beaten: this is Pareto dominance made safe for the tie
tolerance.

*A surely beaten model is never a possible winner*: its dominator stays above
it at every weighting.  *Removing the surely beaten models does not change
which of the others can be first.*  "Surely beats" is transitive (adding the
two numerators gives :math:`\sum_t a_t (x_{j't} - x_{it} - 2\,\mathrm{tol})`,
positive everywhere) and acyclic, so every surely beaten model i is surely
beaten by some model u that nobody surely beats.  Let k be a model that
nobody surely beats, first among those at some weighting a
(:math:`S_k(a) - S_u(a) > \mathrm{tol}` for every other such u).  For a
removed model i with its unbeaten dominator u: if u = k, then
:math:`S_k(a) - S_i(a) > \mathrm{tol}` by the definition; otherwise
:math:`S_k(a) - S_i(a) = (S_k - S_u) + (S_u - S_i) > 2\,\mathrm{tol}`.
Either way k is also first in the whole table at a, and the converse is
immediate (fewer rivals).  Since nobody is within tol of k, the tie groups of
:func:`benchvote.rank` cannot join k to a removed model either.  So the linear
programs run only on the models nobody surely beats, and the answer is the same.
The pass costs m times the number of unbeaten models: models are taken by
decreasing plain mean (a dominator has the larger one) and checked only
against the unbeaten models found so far.

**Scope.**  When more than :data:`LP_MODELS` models remain, the programs run on
the :data:`LP_MODELS` best of them in the primary ranking; a model ruled out
there is ruled out (fewer rivals only help it), a model possible there is
confirmed when its weights still put it first, by more than the tolerance and
a rounding margin, on the whole complete part (else it is undecided), and the
remaining models are not examined.  The top-k question (a mixed-integer
program per model) runs among the ``top_k_models`` best models of the
primary ranking only (a limit of the budget level, :data:`benchvote.audit.BUDGETS`).
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np
import pandas as pd

from ...sensitivity import PossibleWinners, possible_winners
from .._budget import BUDGETS
from .._errors import NotDefined
from .._prepare import Context, names
from .._registry import Output, Section, Sentence, register
from .._run import STOPPED
from .._text import some

#: Largest number of unbeaten models given one linear program each (beyond: the best of them, see the docstring).
LP_MODELS = 200
#: Most task columns of the page's weight table (the JSON keeps every weight).
PAGE_TASKS = 20
#: How many of a winner's heaviest tasks the report names.
HEAVIEST = 3
#: Possible winners named in the verdict.
NAMED = 5


class Result(TypedDict):
    eps: float
    possible: list[str]
    ranks: dict[str, float]
    undecided: list[str]
    weights: dict[str, dict[str, float]]
    heaviest: dict[str, list[str]]
    margin: dict[str, float]
    n_models: int
    n_surely_beaten: int
    n_examined: int
    not_examined: list[str]
    scope: str
    k: int
    top_k_models: list[str]
    top_k_scope: str
    top_k_possible: list[str]
    top_k_undecided: list[str]
    stopped: str
    published_weights: dict[str, float] | None


def oriented(ctx: Context) -> pd.DataFrame:
    """``ctx.cardinal`` with every lower-is-better task negated (higher is better everywhere)."""
    sign = np.where(ctx.hib.to_numpy(dtype=bool), 1.0, -1.0)
    return ctx.cardinal * sign


def unbeaten(x: np.ndarray, eps: float, tol: float, block: int = 256) -> np.ndarray:
    """Indices (ascending) of the rows that no other row surely beats over the box ``[eps, 1]^n`` (docstring)."""
    m, n = x.shape
    order = np.argsort(-x.mean(axis=1), kind="stable")  # a dominator has the larger plain mean: it comes first
    keep: list[int] = []
    for start in range(0, m, block):
        rows = order[start : start + block]
        rivals = np.array(keep + rows.tolist(), dtype=int)  # the unbeaten so far and the block itself
        c = x[None, rivals, :] - x[rows, None, :] - tol  # c[i, j, t] = x_jt - x_it - tol
        low = np.minimum(c * eps, c).sum(axis=2)
        scale = (np.abs(x[None, rivals, :]) + np.abs(x[rows, None, :]) + tol).sum(axis=2)
        beaten = (low > (n + 4) * 2.0**-50 * scale).any(axis=1)
        keep += rows[~beaten].tolist()
    return np.sort(np.array(keep, dtype=int))


def _places(x: np.ndarray, i: int, w: np.ndarray, tol: float) -> int:
    """How many rows weights ``w`` put below row i by more than ``tol`` plus a rounding margin (a lower bound)."""
    s = x @ w / w.sum()
    slack = (x.shape[1] + 4) * 2.0**-50 * float(np.abs(x).max() + tol) * 4
    return int((s[i] - s > tol + slack).sum())


def _programs(ctx: Context, field: pd.DataFrame, k: int, exact: bool) -> dict:
    """:func:`~benchvote.sensitivity.possible_winners` on ``field`` (rows of the oriented complete part).

    The library needs every task to order the field; a task within ``tol`` on it
    is left out of the programs (its weight is set to eps).  Leaving it out (or
    leaving models out, when ``exact`` is false) only removes conditions, so a
    model ruled out stays ruled out; a model found possible is kept when its
    weights, recounted on ``field`` with every task and, unless ``exact``, on
    the whole complete part, still leave enough models below it by more than
    the tolerance and a rounding margin (:func:`_places`); otherwise it is undecided.
    """

    tol = ctx.options.tol
    spread = field.max() - field.min()
    used = [t for t in field.columns if spread[t] > tol]
    out: dict[str, Any] = {"possible": [], "undecided": [], "weights": {}, "margin": {}, "stopped": ""}
    if not used:  # every model ties on every task: nobody is ever strictly ahead
        return out
    r = possible_winners(field[used], True, k=k, eps=ctx.eps, tol=tol, work_limit=BUDGETS[ctx.options.budget].milp_nodes,
                         time_limit=ctx.options.time_limit if k > 1 else None)  # fmt: skip
    whole = ctx.work if not exact else field
    check = exact is False or len(used) < field.shape[1]
    values = oriented(ctx).loc[whole.index].to_numpy(dtype=float) if check else None
    rows = {m: i for i, m in enumerate(whole.index)}
    for m in field.index:
        if r.possible[m]:
            w = r.weights[m].reindex(field.columns).fillna(ctx.eps)
            if check and _places(np.asarray(values), rows[m], w.to_numpy(), tol) < len(whole) - k:
                out["undecided"].append(m)
            else:
                out["possible"].append(m)
                out["weights"][m] = w
        elif r.undecided[m]:
            out["undecided"].append(m)
    out["margin"], out["stopped"] = r.margin.to_dict(), r.stopped
    return out


def _winners(ctx: Context, x: pd.DataFrame, order: list) -> dict:
    """The linear programs on the unbeaten models (scoped to :data:`LP_MODELS`), with weights for the winners."""
    assert ctx.eps is not None  # the section raises NotDefined before when the box is undefined
    alive = list(x.index[unbeaten(x.to_numpy(dtype=float), ctx.eps, ctx.options.tol)])
    place = {m: p for p, m in enumerate(order)}
    alive.sort(key=lambda m: place[m])
    examined = alive[:LP_MODELS]
    if len(alive) == 1:  # it surely beats every other model: first at every weighting
        only = alive[0]
        out = {"possible": [only], "undecided": [], "weights": {only: pd.Series(1.0, index=x.columns)}, "margin": {}}
    else:
        field = x.loc[sorted(examined, key=list(x.index).index)]
        out = _programs(ctx, field, 1, exact=len(examined) == len(alive))
    return {**out, "alive": alive, "examined": examined}


def _top_k(ctx: Context, x: pd.DataFrame, order: list) -> dict:
    """The top-k programs among the budget's ``top_k_models`` best models of the primary ranking."""
    field = order[: min(BUDGETS[ctx.options.budget].top_k_models, len(order))]
    k = min(ctx.options.top_k, len(field) - 1)
    out: dict[str, Any] = {"k": k, "top_k_models": names(field), "top_k_possible": [], "top_k_undecided": [],
                           "stopped": ""}  # fmt: skip
    if k < 2:
        return out
    r = _programs(ctx, x.loc[sorted(field, key=list(x.index).index)], k, exact=True)
    out["top_k_possible"] = [str(m) for m in field if m in r["possible"]]
    out["top_k_undecided"] = [str(m) for m in field if m in r["undecided"]]
    out["stopped"] = r["stopped"]
    return out


def _scope(n_models: int, alive: list, examined: list) -> str:
    beaten = n_models - len(alive)
    text = (
        f"{beaten} of the {n_models} models of the complete part {'is' if beaten == 1 else 'are'} surely beaten "
        "(another model stays above by more than the tie tolerance at every weighting) and cannot be first; "
        if beaten
        else f"no model of the {n_models} of the complete part is surely beaten; "
    )
    rest = f"the other {len(alive)}" if beaten else f"the {len(alive)}"
    if len(examined) == len(alive):
        return text + f"one linear program decides each of {rest}"
    return text + (
        f"of {rest}, the {len(examined)} best in the primary ranking get a linear program "
        f"(limit {LP_MODELS}), their winners confirmed on the whole complete part; "
        f"{len(alive) - len(examined)} are not examined"
    )


def _result(ctx: Context, x: pd.DataFrame, w: dict) -> Any:
    """The first-place answer as the library's :class:`~benchvote.sensitivity.PossibleWinners`, over every model."""

    def flag(chosen: list, name: str) -> pd.Series:
        return pd.Series([m in set(chosen) for m in x.index], index=x.index, name=name)

    margin = pd.Series([w["margin"].get(m, np.nan) for m in x.index], index=x.index, dtype=float, name="margin")
    return PossibleWinners(
        possible=flag(w["possible"], "possible"),
        undecided=flag(w["undecided"], "undecided"),
        margin=margin,
        weights={m: w["weights"][m] for m in w["possible"]},
        k=1,
        eps=float(ctx.eps),  # type: ignore[arg-type]
        normalize="none",
    )


def compute(ctx: Context, done: dict) -> Output:

    if ctx.box_undefined:
        raise NotDefined(ctx.box_undefined)
    x = oriented(ctx)
    order = list(done["rankings"].objects["order"])
    ranks = done["rankings"].fields["rules"][ctx.options.primary]["ranks"]
    w = _winners(ctx, x, order)
    place = {m: p for p, m in enumerate(order)}
    possible = sorted(w["possible"], key=lambda m: place[m])
    weights = {str(m): {str(t): float(v) for t, v in w["weights"][m].items()} for m in possible}
    assert ctx.eps is not None
    floor = float(ctx.eps) * (1 + 1e-6)  # tasks above the smallest weight: the ones a winner leans on
    heaviest = {
        m: [t for t, v in sorted(ws.items(), key=lambda tv: -tv[1]) if v > floor][:HEAVIEST]
        for m, ws in weights.items()
    }
    margin = {str(m): float(w["margin"].get(m, np.nan)) for m in x.index}
    top = _top_k(ctx, x, order)
    fields: Result = {
        "eps": float(ctx.eps),
        "possible": names(possible),
        "ranks": {str(m): float(ranks[str(m)]) for m in possible},
        "undecided": names(sorted(w["undecided"], key=lambda m: place[m])),
        "weights": weights,
        "heaviest": heaviest,
        "margin": margin,
        "n_models": len(x),
        "n_surely_beaten": len(x) - len(w["alive"]),
        "n_examined": len(w["examined"]),
        "not_examined": names(w["alive"][len(w["examined"]) :]),
        "scope": _scope(len(x), w["alive"], w["examined"]),
        "top_k_scope": (
            f"the top-{top['k']} question is asked among the {len(top['top_k_models'])} best models of the primary "
            "ranking"
            + (
                " (every model of the complete part)"
                if len(top["top_k_models"]) == len(x)
                else f" only (of {len(x)}; limit {BUDGETS[ctx.options.budget].top_k_models} at the {ctx.options.budget} budget): whether some weighting puts a model in the top "
                f"{top['k']} of that field"
            )  # fmt: skip
        ),
        **top,  # type: ignore[typeddict-item]
        "published_weights": None if ctx.transform.weights is None else ctx.transform.weights.to_dict(),
    }
    return Output(dict(fields), {"possible_winners": _result(ctx, x, w)})


TEMPLATE = """
{% set key = "possible_winners" %}
<p>Box: every task keeps between eps = {{ ui.v(s.eps, key ~ ".eps", ".3g") }} and all of its labels, so its weight
lies between eps and 1{% if s.published_weights %} times its published weight (the weights option; every weight
below is relative to it){% endif %} (read on the complete part, {{ ui.v(s.n_models, key ~ ".n_models", "d") }} models and
{{ tasks|length }} tasks, after the cardinal normalisation).
A model is a possible winner when some such weighting puts its weighted mean first, by more than the tie tolerance.</p>
<p>Possible winners ({{ ui.count(s.possible, key ~ ".possible") }}), in the order of the primary ranking:
<strong>{{ ui.listed(s.possible) }}</strong>{% if s.undecided %}; undecided (the exact check could not settle them):
{{ ui.names(s.undecided) }}{% endif %}.</p>
<p>Scope: {{ s.scope }}.</p>
{% if s.possible %}
<ul>{% for m in s.possible[:10] %}<li>{{ ui.name(m) }} (rank {{ s.ranks[m]|fmt("g") }}) is first with the weight on
{% if heavy[m] %}{{ ui.names(s.heaviest[m]) }}{% if heavy[m] > s.heaviest[m]|length %} and {{ heavy[m] - s.heaviest[m]|length }} more task{{ (heavy[m] - s.heaviest[m]|length)|s }}{% endif %}
{%- if heavy[m] < tasks|length %}, {{ "the other task" if tasks|length - heavy[m] == 1 else "the other " ~ (tasks|length - heavy[m]) ~ " tasks" }} at the smallest weight eps{% endif %}{% else %}every task alike{% endif %}.</li>{% endfor %}</ul>
{% if s.possible|length > 10 %}<p>... and {{ s.possible|length - 10 }} more, all in the table.</p>{% endif %}
{{ ui.table(["winner", "rank"] + shown, weight_rows, numeric=range(1, shown|length + 2)|list, specs=specs,
   caption="Weights (largest 1) that put each possible winner first, recounted exactly; rank in the primary ranking"
   ~ ("" if shown|length == tasks|length else "; the " ~ shown|length ~ " tasks with the largest weights shown, "
   ~ (tasks|length - shown|length) ~ " tasks left out (every weight is in the JSON report)")) }}
{% endif %}
{% if s.k >= 2 %}<p>Models that some weighting puts in the top {{ ui.v(s.k, key ~ ".k", "d") }}
({{ s.top_k_scope }}): {{ ui.count(s.top_k_possible, key ~ ".top_k_possible") }} ({{ ui.listed(s.top_k_possible) }})
{%- if s.top_k_undecided %}; undecided within the budget: {{ ui.names(s.top_k_undecided) }}{% endif %}
{%- if s.stopped %} ({{ stopped[s.stopped] }}){% endif %}.</p>{% endif %}
"""


def page_tasks(tasks: list[str], weights: list[dict]) -> list[str]:
    """The tasks of the page's weight table: all, or the :data:`PAGE_TASKS` with the largest weight of any winner."""
    if len(tasks) <= PAGE_TASKS:
        return tasks
    top = [max((w[t] for w in weights if w[t] is not None), default=0.0) for t in tasks]
    keep = set(sorted(range(len(tasks)), key=lambda k: (-top[k], k))[:PAGE_TASKS])
    return [t for k, t in enumerate(tasks) if k in keep]


def render(view: Any) -> str:
    s = view.s
    tasks = list(next(iter(s["weights"].values())).keys()) if s["weights"] else []
    shown = page_tasks(tasks, [s["weights"][m] for m in s["possible"]])
    rows = [[m, s["ranks"][m], *[s["weights"][m][t] for t in shown]] for m in s["possible"]]
    specs = {1: "g", **{c: ".3g" for c in range(2, len(shown) + 2)}}
    floor = (s["eps"] or 0.0) * (1 + 1e-6)  # JSON null for a weight that is not finite: never counted as heavy
    heavy = {m: sum(v is not None and v > floor for v in s["weights"][m].values()) for m in s["possible"]}
    return view.html(TEMPLATE, tasks=tasks, shown=shown, weight_rows=rows, specs=specs, stopped=STOPPED, heavy=heavy)


def verdict(s: dict, done: dict) -> list:
    possible = s["possible"]
    if not possible:
        return []
    shown = some(possible, NAMED)
    if len(possible) == 1:
        text = f"Only {possible[0]} can be ranked first by an admissible re-weighting of the tasks."
    else:
        text = f"{len(possible)} models can be ranked first by some admissible re-weighting of the tasks: {shown}."
    if s["not_examined"]:
        text = text[:-1] + f" ({len(s['not_examined'])} models not examined)."
    return [Sentence("possible_winners", text)]


SECTION = register(
    Section(
        name="possible_winners",
        title="Possible winners",
        chapter="tradeoff",
        about="Label noise that keeps between eps and all of each task's labels reweights the tasks; a model is a "
        "possible winner when some such weighting puts it first (decided by a linear program). "
        "The same question for the top k needs a mixed-integer program.",
        order=70,
        cost=(
            "O(m u n) for the exact pruning (u models nobody surely beats), then one linear program per candidate "
            "on at most 200 models x n tasks"
        ),
        result=Result,
        compute=compute,
        render=render,
        needs=("rankings",),
        verdict=verdict,
    )
)
