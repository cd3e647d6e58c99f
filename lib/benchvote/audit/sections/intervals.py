"""Rank intervals from the bootstrap over tasks, ranked by the primary rule on the complete part.

Each redraw picks as many task columns as the complete part has, uniformly
with replacement, and ranks the models by the primary rule on the redrawn
table; a model's interval holds the middle ``level`` share of its redrawn
ranks.  Two models are inseparable when neither ranks strictly above the
other in a share ``level`` of the redraws.

**Scale.**  The primary rules that add up over tasks (the mean score, the
mean win rates and Borda: a redrawn table's score is a weighted sum of the
one-task scores, weighted by how often each task was drawn) are redrawn
exactly from the one-task scores by the library's own
:func:`benchvote.intervals.additive_redraw_ranks` (the redraws of
:func:`benchvote.intervals.rank_intervals`; the mean win rates' points are
:func:`benchvote.intervals.strict_wins_per_task`), so every
model gets its interval on any number of models.  The pair shares, whose
cost grows as the square of the models, are computed among the first
:data:`MAX_PAIR_MODELS` models of the primary ranking (every adjacent pair
of the whole ranking is checked).  The other rules (Copeland, Ranked Pairs,
Bradley-Terry) are bootstrapped by :func:`~benchvote.intervals.rank_intervals`
among the top models of the primary ranking only, and the ``scope`` says so.

**Cardinal rules.**  The mean score's one-task scores are the columns of the
table the cardinal parts read (normalised and weighted: see
:class:`benchvote.audit._rules.Cardinal`), the geometric mean's their
logarithms times the weights; the full table's ranks are the rankings
section's (compared exactly), so both sections state the same order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypedDict

import numpy as np
import pandas as pd

from ...aggregation import mean_win_rate
from ...intervals import RankIntervals, additive_redraw_ranks, rank_intervals, strict_wins_per_task
from ...ranking import rank
from .. import _charts
from .._prepare import Context, series
from .._registry import Output, Section, Sentence, register
from .._text import plural

#: Rules whose score on a redrawn table is the draw-weighted sum of their one-task scores.
ADDITIVE = ("mean_score", "geometric_mean", "mean_win_rate", "helm_win_rate", "borda")
#: Most models among which the pair shares (and the inseparable pairs) are computed.
MAX_PAIR_MODELS = 300
#: A rule that does not add up over tasks is bootstrapped on at most this many models x models x tasks cells.
SCOPED_CELLS = 2_000_000
#: Models drawn in the figure (the others are in the table).
SHOWN = 40
#: Below this many tasks the task bootstrap has few distinct redraws, and the report says its intervals are rough.
FEW_TASKS = 8


class Result(TypedDict):
    rule: str
    rule_label: str
    level: float
    n_boot: int
    redrawn: int
    ranks: dict[str, float]
    lower: dict[str, float]
    upper: dict[str, float]
    inseparable: list[list[str]]
    n_pairs: int
    adjacent_inseparable: int
    n_adjacent: int
    first: str
    scope: str
    method: str
    n_tasks: int
    #: How many different tables the bootstrap can draw; reported below :data:`FEW_TASKS` tasks only, where it
    #: bounds the intervals' resolution (at 10,000 tasks it has over 6,000 digits: no JSON reader keeps it).
    distinct_redraws: int | None


def distinct_redraws(n: int) -> int:
    """How many different tables a bootstrap over ``n`` tasks can draw: multisets of n of n tasks, C(2n - 1, n).

    Examples
    --------
    >>> [distinct_redraws(n) for n in (1, 3, 6, 8)]
    [1, 10, 462, 6435]
    """
    return math.comb(2 * n - 1, n)


def primary_rule(ctx: Context) -> Callable[..., Any]:
    """The primary rule's function (the library's own mean win rate, whose bootstrap has a fast kernel)."""
    return mean_win_rate if ctx.options.primary == "mean_win_rate" else ctx.rules[ctx.options.primary].fn


def one_task_scores(ctx: Context, rule: Callable[..., Any]) -> np.ndarray | None:
    """Column k: the rule's scores on task k alone (read twice, as a two-task table); ``None`` if not additive."""
    work, hib = ctx.work, ctx.hib
    if ctx.options.primary not in ADDITIVE:
        return None
    if ctx.options.primary == "mean_win_rate":
        values = work.to_numpy(dtype=float)
        return strict_wins_per_task(values, hib.to_numpy(dtype=bool), ctx.options.tol) / work.shape[0]
    sign = np.where(hib.to_numpy(dtype=bool), 1.0, -1.0)
    if ctx.options.primary == "mean_score":
        return ctx.cardinal.to_numpy(dtype=float) * sign
    if ctx.options.primary == "geometric_mean":
        table, w = ctx.transform.ratio_table(work)
        values = table.to_numpy(dtype=float)
        if not (values > 0).all():
            return None  # the rule is undefined: the rankings section says so
        scale = np.ones(work.shape[1]) if w is None else w * len(w) / w.sum()
        return np.log(values) * sign * scale
    cols = []
    for k in range(work.shape[1]):
        pair = work.iloc[:, [k, k]].to_numpy(dtype=float)  # unlabelled: the task appears twice
        cols.append(np.asarray(rule(pair, hib.iloc[[k, k]].to_numpy(dtype=bool)), dtype=float))
    return np.column_stack(cols)


def summarise(full: np.ndarray, boot: np.ndarray, models: list, order: list, level: float) -> tuple[RankIntervals, int]:
    """Intervals of every model, pair shares among the first models of ``order``, inseparable adjacent pairs."""
    where = {m: i for i, m in enumerate(models)}
    lower = np.quantile(boot, (1 - level) / 2, axis=0, method="inverted_cdf")
    upper = np.quantile(boot, (1 + level) / 2, axis=0, method="inverted_cdf")
    idx = np.array([where[m] for m in order[:MAX_PAIR_MODELS]])
    sub = boot[:, idx]
    above = (sub[:, :, None] < sub[:, None, :]).mean(axis=0)
    p = len(idx)
    inseparable = [
        (order[a], order[b]) for a in range(p) for b in range(a + 1, p) if above[a, b] < level and above[b, a] < level
    ]
    seq = np.array([where[m] for m in order])
    ahead = (boot[:, seq[:-1]] < boot[:, seq[1:]]).mean(axis=0)
    behind = (boot[:, seq[1:]] < boot[:, seq[:-1]]).mean(axis=0)
    adjacent = int(((ahead < level) & (behind < level)).sum())

    def wrap(values: np.ndarray) -> pd.Series:
        return pd.Series(values, index=pd.Index(models), name="rank")

    r = RankIntervals(wrap(full), wrap(lower), wrap(upper), above, inseparable, level, boot.shape[0], 0)
    return r, adjacent


def adjacent_count(order: list, inseparable: list) -> int:
    pairs = {frozenset((str(a), str(b))) for a, b in inseparable}
    return sum(frozenset((str(a), str(b))) in pairs for a, b in zip(order, order[1:]))


def fields_of(ctx: Context, r: RankIntervals, order: list, adjacent: int, scope: str, method: str) -> dict:
    """The section's JSON fields from the intervals (``order``: the models they rank, best first)."""
    models = list(r.ranks.index)
    p = min(len(order), MAX_PAIR_MODELS)
    return {
        "rule": ctx.options.primary,
        "rule_label": ctx.rules[ctx.options.primary].label,
        "level": r.level,
        "n_boot": r.n_boot,
        "redrawn": r.redrawn,
        "ranks": series(r.ranks, models),
        "lower": series(r.lower, models),
        "upper": series(r.upper, models),
        "inseparable": [[str(a), str(b)] for a, b in r.inseparable],
        "n_pairs": p * (p - 1) // 2,
        "adjacent_inseparable": adjacent,
        "n_adjacent": len(order) - 1,
        "first": str(order[0]),
        "scope": scope,
        "method": method,
        "n_tasks": int(ctx.work.shape[1]),
        "distinct_redraws": distinct_redraws(int(ctx.work.shape[1])) if ctx.work.shape[1] < FEW_TASKS else None,
    }


def compute(ctx: Context, done: dict) -> Output:
    o, work = ctx.options, ctx.work
    order = list(done["rankings"].objects["order"])
    rule = primary_rule(ctx)
    per_task = one_task_scores(ctx, rule)
    m = len(order)
    pairs = "every pair" if m <= MAX_PAIR_MODELS else f"the pairs among the top {MAX_PAIR_MODELS} models"
    full = None if per_task is None else rank(per_task.mean(axis=1), tol=o.tol)
    primary_scores = done["rankings"].objects.get("primary_scores")
    if full is not None and ctx.rules[o.primary].cardinal:  # the one-task scores add up to the rule by construction
        ranks = done["rankings"].fields["rules"][o.primary]["ranks"]
        full = np.array([ranks[str(m)] for m in work.index], dtype=float)
    elif full is not None and primary_scores is not None:  # the rule adds up: the one-task scores rank as the rule does
        if not np.array_equal(full, rank(np.asarray(primary_scores, dtype=float), tol=o.tol)):
            full = None
    if per_task is not None and full is not None:
        boot = additive_redraw_ranks(per_task, work.shape[1], n_boot=o.n_boot, tol=o.tol, seed=o.seed)
        r, adjacent = summarise(full, boot, list(work.index), order, o.level)
        scope = f"all {m} models of the complete part; pair shares: {pairs} (every adjacent pair of the ranking)"
        method = "each redraw scored exactly from the one-task scores (the rule adds up over tasks)"
        return Output(fields_of(ctx, r, order, adjacent, scope, method), {"intervals": r})
    k = max(2, min(m, MAX_PAIR_MODELS, int(np.sqrt(SCOPED_CELLS / work.shape[1]))))
    top = order[:k]
    r = rank_intervals(work.loc[top], ctx.hib, rule=rule, n_boot=o.n_boot, level=o.level, tol=o.tol, seed=o.seed)
    scope = (
        f"all {m} models of the complete part"
        if k == m
        else f"the top {k} of the {m} models of the complete part under the primary rule, ranked among themselves"
    )
    method = "each redrawn table ranked by the rule (benchvote.intervals.rank_intervals)"
    return Output(fields_of(ctx, r, top, adjacent_count(top, r.inseparable), scope, method), {"intervals": r})


TEMPLATE = """
<p>Scope: {{ s.scope }}; ranked by {{ s.rule_label }} ({{ s.method }}). Each of the
{{ ui.v(s.n_boot, key ~ ".n_boot", "d") }} redraws {{ what }}; a model's {{ ui.pct(s.level, key ~ ".level") }} interval
runs from the {{ lo_q }} to the {{ hi_q }} quantile of its redrawn ranks (ranks that occurred; 1 = best). Two models
are inseparable when neither ranks strictly above the other in {{ ui.pct(s.level, key ~ ".level") }} of the redraws.</p>
<p>{{ ui.count(s.inseparable, key ~ ".inseparable") }} of {{ ui.v(s.n_pairs, key ~ ".n_pairs", "d") }} pairs examined
are inseparable at this level; {{ ui.v(s.adjacent_inseparable, key ~ ".adjacent_inseparable", "d") }} of the
{{ ui.v(s.n_adjacent, key ~ ".n_adjacent", "d") }} adjacent pairs of the ranking are.
{% if s.redrawn %}{{ ui.v(s.redrawn, key ~ ".redrawn", "d") }} redraws were refused by the rule and drawn again.{% endif %}</p>
{% if few %}<p class="warning" role="note"><strong>Few tasks.</strong> These intervals rest on
{{ ui.v(s.n_tasks, key ~ ".n_tasks", "d") }} tasks: a redraw can only be one of
{{ ui.v(s.distinct_redraws, key ~ ".distinct_redraws", "d") }} different tables, so the intervals are coarse and their
coverage is not to be trusted (fewer than {{ few_tasks }} tasks); read them as a rough guide.</p>{% endif %}
{% call ui.figure(caption) %}{{ ui.intervals(key ~ "-fig", chart) }}{% endcall %}
{{ ui.table(["#", "model", "rank", "lower", "upper"], rows, numeric=[0, 2, 3, 4], specs={0: "d", 2: "g", 3: "g", 4: "g"},
  caption="Every model ranked here, best first: rank on the full table and the ends of its interval.") }}
"""


def render_intervals(view: Any, what: str, redrawn: str) -> str:
    s = view.s
    order = sorted(s["ranks"], key=lambda m: (s["ranks"][m], s["lower"][m]))
    if "ranking" in view.all.get("rankings", {}):
        known = set(order)
        order = [m for m in view.all["rankings"]["ranking"] if m in known] or order
    chart = _charts.intervals(order, s["lower"], s["upper"], s["ranks"], s["level"], top=SHOWN)
    shown = min(SHOWN, len(order))
    caption = (
        f"Figure: {s['level'] * 100:.0f}% rank intervals from {s['n_boot']} redraws ({redrawn} redrawn), ranked by "
        f"{s['rule_label']}, first {shown} of {len(order)} models"
        + (f" (the other {len(order) - shown} are in the table below)" if len(order) > shown else "")
        + ". Line: interval of ranks; dot: rank on the full table."
    )
    rows = [[k + 1, m, s["ranks"][m], s["lower"][m], s["upper"][m]] for k, m in enumerate(order)]
    lo_q, hi_q = f"{(1 - s['level']) / 2:.3g}", f"{(1 + s['level']) / 2:.3g}"
    few = view.name == "intervals" and s["n_tasks"] < FEW_TASKS
    return view.html(
        TEMPLATE, chart=chart, caption=caption, rows=rows, what=what, lo_q=lo_q, hi_q=hi_q, few=few, few_tasks=FEW_TASKS
    )


def render(view: Any) -> str:
    return render_intervals(view, "draws the tasks with replacement and ranks the models again", "tasks")


#: What each interval section redraws, as its verdict sentence opens: the two sentences differ where both appear.
REDRAWN = {"intervals": "Redrawing the tasks", "instance_intervals": "Redrawing each task's test items"}


def interval_verdict(name: str, s: dict) -> list[Sentence]:
    first = s["first"]
    lo, up = s["lower"].get(first), s["upper"].get(first)
    if lo is None or up is None:
        return []
    separable = s["n_adjacent"] - s["adjacent_inseparable"]
    tied = " (tied for first place)" if s["ranks"].get(first, 1) > 1 else ""
    redrawn = REDRAWN[name]
    return [
        Sentence(
            name,
            f"{redrawn}, the first model, {first}{tied}, has the {s['level'] * 100:.0f}% rank interval [{lo:g}, {up:g}]; "
            f"{separable} of the "
            f"{plural(s['n_adjacent'], 'adjacent place')} {'is' if separable == 1 else 'are'} separable"
            + (
                f" (but these task-bootstrap intervals rest on only {plural(s['n_tasks'], 'task')}, "
                f"{s['distinct_redraws']} possible redraws: a rough guide)."
                if name == "intervals" and s["n_tasks"] < FEW_TASKS
                else "."
            ),
        )
    ]


def verdict(s: dict, done: dict) -> list[Sentence]:
    return interval_verdict("intervals", s)


SECTION = register(
    Section(
        name="intervals",
        title="Rank intervals (bootstrap over tasks)",
        chapter="uncertainty",
        about="The tasks are redrawn with replacement many times and the models ranked each time; an interval holds "
        "the middle share of a model's ranks. Two models are inseparable when neither ranks above the other in "
        "that share of the redraws.",
        order=60,
        cost=(
            "O(B m (n + log m)) for B redraws (m x B ranks kept); pair shares O(B p^2) among the top p <= 300 "
            "models; rules that do not add up: their own bootstrap on at most 2e6 cells"
        ),
        result=Result,
        compute=compute,
        render=render,
        needs=("rankings",),
        verdict=verdict,
    )
)
