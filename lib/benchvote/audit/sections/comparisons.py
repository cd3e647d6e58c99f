"""Paired significance tests between models, simultaneous rank sets and tiers (:mod:`benchvote.comparisons`).

**Two inputs, two units.**  With item-level input (an ``instance`` column:
``ctx.instances``), the unit is the test item.  Each task of the complete
part is compared on its own items (McNemar's exact test for 0/1 items, the
permutation test for graded ones: ``test="auto"``), and the board is
compared on the items of all those tasks pooled: item k of task t enters
as its oriented score times :math:`N w_t / (W n_t)` (N items in all,
:math:`n_t` in task t, task weights :math:`w_t` summing to W, all 1 without
``weights``), so a model's mean over the pooled items is its mean over the
tasks of its task means, the mean score of the raw instance scores (the
audit's ``normalize`` is not applied: it depends on the spread of the scores
and would itself have to be redrawn).  With equal weights and tasks of equal
size the pooled items are still 0/1 and McNemar's test applies.  The pooled
comparison answers "given these tasks, how much of the order can the finite
test sets explain?"; the sampling of tasks is the task-level question below.

Without items, the unit is the task: the models of the complete part are
compared by the sign test over its tasks (it uses only who wins each task,
so tasks in any units mix), and the report warns when there are too few
tasks: with n tasks no two-sided sign-test p-value is below
:math:`2^{1-n}`, and Holm's first step over P pairs needs one at most
:math:`(1 - \\ell)/P`, so below :func:`min_tasks` tasks no pair can be
separated at all.

**Battle logs.**  A battle log has no tasks and no items: the unit is the
battle.  The ``battles`` section fits Bradley-Terry and redraws the battles;
this section reads that fit (:meth:`benchvote.battles.BattleRatings.rank_sets`):
each pair's difference of ratings with its percentile interval and a Wald
p-value over its bootstrap standard deviation (Holm-adjusted), and the
rank sets of every model from the max-T intervals of all pairs.  The JSON
lists the pairs of the top :data:`MAX_MODELS` models (all pairs count in
``separated`` and in the rank sets); ``n_columns`` is the number of battles.

**Rank sets.**  A model is surely better than another when their test
rejects after Holm's adjustment over all the pairs (``method="holm"``), for
the exact tests (McNemar, sign).  The permutation test's Monte-Carlo
p-values cannot fall below :math:`1/(1 + R)` for R sign flips, which would
need :math:`R > P/(1 - \\ell)` flips to pass Holm's first step; graded items
use the bootstrap max-T simultaneous intervals instead (``method="max-t"``).
Each pair of the JSON holds both intervals of its effect, the percentile
``ci`` (that pair alone) and the max-T ``simultaneous`` (all pairs at
once), so a reader can see why a pair is or is not separated.
The rank sets are then simultaneous at ``--level``
(:func:`benchvote.comparisons.rank_sets`).

**Scope.**  The pairs grow as the square of the models: the top
:data:`MAX_MODELS` models of the primary ranking are compared, among
themselves (``scope`` says so).  The bootstraps (the intervals, and the
max-T rank sets of graded items) redraw the audit's ``n_boot`` times, fewer
when redraws x columns x models over all the section's comparisons (each
task's items, then the pooled items: twice the items) would pass
:data:`REDRAW_CELLS`, never fewer than :data:`MIN_REDRAWS`; ``n_boot`` says
how many.  Only large item-level tables meet the budget.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np
import pandas as pd

from ...comparisons import RankSets, rank_sets
from ...intervals import instance_table
from .._errors import NotDefined
from .._prepare import Context
from .._registry import Output, Section, Sentence, register
from .._text import plural, some

#: Most models compared (the top of the primary ranking): P = m (m - 1) / 2 pairs.
MAX_MODELS = 50
#: Rows of the rank-set table on the page (every model is in the JSON).
SHOWN = 30
#: Work budget of the section's bootstraps, in redraws x columns x models summed over its comparisons.
REDRAW_CELLS = 2_000_000_000
#: Fewest bootstrap redraws the section keeps under :data:`REDRAW_CELLS`.
MIN_REDRAWS = 200
#: Monte-Carlo sign flips of the permutation tests (their p-values are reported; the rank sets use max-T).
N_RESAMPLES = 1000


class Pair(TypedDict):
    a: str
    b: str
    diff: float
    ci: list[float]
    simultaneous: list[float]
    p: float
    p_adjusted: float
    test: str


class TaskResult(TypedDict):
    test: str
    method: str
    n_items: int
    n_boot: int
    rank_sets: dict[str, list[int]]
    tiers: list[list[str]]
    separated: int


class Result(TypedDict):
    unit: str
    test: str
    method: str
    level: float
    n_boot: int
    scope: str
    n_models: int
    n_columns: int
    order: list[str]
    pairs: list[Pair]
    rank_sets: dict[str, list[int]]
    tiers: list[list[str]]
    cuts: list[int]
    separated: int
    tasks: dict[str, TaskResult]
    min_tasks: int | None
    warning: str | None


def min_tasks(n_pairs: int, level: float) -> int:
    """The fewest tasks at which a two-sided sign test can pass Holm's first step over ``n_pairs`` pairs.

    With n tasks the smallest p-value is :math:`2^{1-n}` (one model wins
    every task); Holm's first step needs it at most :math:`(1 - \\ell)/P`.

    Examples
    --------
    >>> min_tasks(1, 0.95), min_tasks(3, 0.95), min_tasks(45, 0.95)
    (6, 7, 11)
    """
    n = 1
    while 2.0 ** (1 - n) > (1 - level) / max(n_pairs, 1):
        n += 1
    return n


def cuts(r: RankSets) -> list[int]:
    """The k (1 <= k < m) such that each of the first k models of the order is surely better than each after."""
    order = r.order
    sure = r.above[np.ix_(order, order)]
    return [k for k in range(1, len(order)) if sure[:k, k:].all()]


def _sets(r: RankSets) -> dict[str, list[int]]:
    return {str(m): [int(lo), int(hi)] for m, lo, hi in zip(r.models, r.lowest, r.highest)}


def _pairs(r: RankSets) -> list[Pair]:
    c = r.comparisons
    labels = [str(m) for m in c.models]
    return [
        Pair(a=labels[i], b=labels[j], diff=float(d), ci=[float(lo), float(hi)], simultaneous=[float(u), float(v)],
             p=float(p), p_adjusted=float(q), test=c.test)
        for i, j, d, lo, hi, u, v, p, q in zip(c.a, c.b, c.diff, c.ci_low, c.ci_high, c.simultaneous_low,
                                              c.simultaneous_high, c.p, c.p_adjusted)
    ]  # fmt: skip


def redraws(n_boot: int, n_columns: int, n_models: int) -> int:
    """The bootstrap redraws of the section: ``n_boot``, fewer when they would pass :data:`REDRAW_CELLS`.

    ``n_columns`` counts the columns of all its comparisons.

    Examples
    --------
    >>> redraws(1000, 20_000, 50), redraws(1000, 200_000, 50), redraws(1000, 10**7, 50)
    (1000, 200, 200)
    """
    return max(min(n_boot, MIN_REDRAWS), min(n_boot, REDRAW_CELLS // max(n_columns * n_models, 1)))


def _compare(values: np.ndarray, hib: Any, models: list, ctx: Context, test: str, n_boot: int) -> RankSets:
    """Rank sets of the models x columns ``values``: Holm for exact tests, max-T for the permutation test."""
    o = ctx.options
    frame = pd.DataFrame(values, index=pd.Index(models))
    binary = bool(np.isin(values, (0.0, 1.0)).all())
    method = "max-t" if test == "permutation" or (test == "auto" and not binary) else "holm"
    return rank_sets(frame, hib, test=test, method=method, level=o.level, n_boot=n_boot,
                     n_resamples=N_RESAMPLES, tol=o.tol, seed=o.seed)  # fmt: skip


def item_blocks(ctx: Context, models: list) -> dict[str, np.ndarray]:
    """Task -> models x items array of the complete part's tasks, rows in ``models``' order (the one call).

    Tasks on which a compared model has no item are left out; bad instance
    data make the section not applicable.
    """
    try:
        table, blocks = instance_table(ctx.instances)
    except (TypeError, ValueError) as err:
        raise NotDefined(f"the instance scores cannot be compared: {err}") from err
    where = {str(m): i for i, m in enumerate(table.index)}
    if any(str(m) not in where for m in models):
        raise NotDefined("some models of the complete part have no instance scores")
    rows = [where[str(m)] for m in models]
    wanted = {str(t) for t in ctx.work.columns}
    out = {}
    for task, block in blocks.items():
        part = np.asarray(block)[rows].astype(float)  # the compared rows only, then as floats
        if str(task) in wanted and part.shape[1] > 0 and np.isfinite(part).all():
            out[str(task)] = part
    if not out:
        raise NotDefined("no task of the complete part has instance scores for every compared model")
    return dict(sorted(out.items()))


def pooled(blocks: dict[str, np.ndarray], weights: Any) -> tuple[np.ndarray, list[str]]:
    """The items of every task side by side, scaled so a row's mean is its weighted mean of task means.

    Returns the pooled array and each column's task.
    """
    total = sum(b.shape[1] for b in blocks.values())
    w = {t: 1.0 if weights is None else float(weights[t]) for t in blocks}
    whole = sum(w.values())
    cols, owner = [], []
    for t, b in blocks.items():
        cols.append(b * (total * w[t] / (whole * b.shape[1])))
        owner += [t] * b.shape[1]
    return np.hstack(cols), owner


def _fields(r: RankSets, unit: str, scope: str, n: int) -> dict:
    return {
        "unit": unit,
        "test": r.comparisons.test,
        "method": r.method,
        "level": r.level,
        "n_boot": r.comparisons.n_boot,
        "scope": scope,
        "n_models": len(r.models),
        "n_columns": n,
        "order": [str(r.models[i]) for i in r.order],
        "pairs": _pairs(r),
        "rank_sets": _sets(r),
        "tiers": [[str(m) for m in tier] for tier in r.tiers],
        "cuts": cuts(r),
        "separated": int(r.above.sum()),
    }


def _scope(top: list, m: int, what: str) -> str:
    if len(top) == m:
        return f"all {m} models of the complete part, {what}"
    return f"the top {len(top)} of the {m} models of the complete part under the primary rule, among themselves, {what}"


def compute(ctx: Context, done: dict) -> Output:
    if ctx.kind == "battles":
        return _battles(done["battles"].objects["battles"])
    order = list(done["rankings"].objects["order"])
    top = order[:MAX_MODELS]
    hib = {str(t): bool(v) for t, v in ctx.hib.items()}
    if ctx.instances is None:
        values = ctx.work.loc[top].to_numpy(dtype=float)
        n_boot = redraws(ctx.options.n_boot, values.shape[1], len(top))
        r = _compare(values, [hib[str(t)] for t in ctx.work.columns], top, ctx, "sign", n_boot)
        fields = _fields(r, "tasks", _scope(top, len(order), f"on {plural(values.shape[1], 'task')}"), values.shape[1])
        pairs = len(top) * (len(top) - 1) // 2
        need = min_tasks(pairs, r.level)
        fields.update(tasks={}, min_tasks=need, warning=few_tasks_warning(values.shape[1], pairs, r.level, need))
        return Output(fields, {"comparisons": r})
    blocks = item_blocks(ctx, top)
    per_task, objects = {}, {}
    n_boot = redraws(ctx.options.n_boot, 2 * sum(b.shape[1] for b in blocks.values()), len(top))
    for t, block in blocks.items():
        rt = _compare(block, hib[t], top, ctx, "auto", n_boot)
        objects[t] = rt
        per_task[t] = TaskResult(test=rt.comparisons.test, method=rt.method, n_items=block.shape[1],
                                 n_boot=rt.comparisons.n_boot,
                                 rank_sets=_sets(rt), tiers=[[str(m) for m in x] for x in rt.tiers],
                                 separated=int(rt.above.sum()))  # fmt: skip
    values, owner = pooled(blocks, ctx.options.weights)
    r = _compare(values, [hib[t] for t in owner], top, ctx, "auto", n_boot)
    what = f"on the {plural(values.shape[1], 'item')} of {plural(len(blocks), 'task')} pooled"
    fields = _fields(r, "items", _scope(top, len(order), what), values.shape[1])
    fields.update(tasks=per_task, min_tasks=None, warning=None)
    return Output(fields, {"comparisons": r, "task_comparisons": objects})


def _battles(ratings: Any) -> Output:
    """The battle log's comparison: the Bradley-Terry fit of the ``battles`` section, every model, pairs of the top."""
    r = ratings.rank_sets()
    m = len(r.models)
    scope = f"all {m} models of the battle log, on its {ratings.n_battles:,} battles"
    fields = _fields(r, "battles", scope, ratings.n_battles)
    top = set(fields["order"][:MAX_MODELS])
    if m > MAX_MODELS:
        fields["pairs"] = [p for p in fields["pairs"] if p["a"] in top and p["b"] in top]
        fields["scope"] += f" (the pairs listed are those of the top {MAX_MODELS}; the rank sets use every pair)"
    fields.update(tasks={}, min_tasks=None, warning=None)
    return Output(fields, {"comparisons": r})


def few_tasks_warning(n: int, pairs: int, level: float, need: int) -> str | None:
    """The warning when ``n`` tasks are too few for any sign test to pass Holm's first step, else None."""
    if n >= need:
        return None
    return (
        f"With {plural(n, 'task')}, the smallest two-sided sign-test p-value is 2^(1-{n}) = {2.0 ** (1 - n):.3g}; "
        f"Holm's first step over {plural(pairs, 'pair')} at {level * 100:.0f}% needs at most "
        f"{(1 - level) / pairs:.3g}, which takes at least {need} tasks: no pair can be separated on this table, "
        "whatever the scores."
    )


TEMPLATE = """
<p>Scope: {{ s.scope }}. Test: {{ s.test }} ({{ test_text }}); {{ method_text }}.
{% if s.unit == "battles" %}Every pair of models is compared through the ratings fitted to all the battles, and the
battles are redrawn together for every pair{% else %}Every pair of models is compared on the same {{ s.unit }}
(paired){% endif %}; a model's {{ ui.pct(s.level, key ~ ".level") }} rank set runs from one plus the
number of models surely better to the number of models compared minus those surely worse, for all models at once.
Intervals: {{ ui.v(s.n_boot, key ~ ".n_boot", "d") }} {% if s.unit == "battles" %}redraws of the battles{% else %}paired
bootstrap redraws{% endif %}.
{{ ui.v(s.separated, key ~ ".separated", "d") }} of the {% if listed_all %}{{ ui.count(s.pairs, key ~ ".pairs") }}
pairs are separated.{% else %}{{ all_pairs }} pairs are separated; the JSON lists the
{{ ui.count(s.pairs, key ~ ".pairs") }} pairs of the top models.{% endif %}</p>
{% if s.warning %}<p class="warning" role="note"><strong>Too few tasks to separate any pair.</strong> {{ s.warning }}</p>{% endif %}
{{ ui.table(["place", "model", "best rank", "worst rank", "tier"], rows, numeric=[0, 2, 3, 4],
  specs={0: "d", 2: "d", 3: "d", 4: "d"}, caption=caption) }}
{% if task_rows %}{{ ui.table(["task", "test", "items", "tiers", "separated pairs"], task_rows, numeric=[2, 3, 4],
  specs={2: "d", 3: "d", 4: "d"}, caption=task_caption) }}{% endif %}
"""

TEST_TEXT = {
    "mcnemar": "McNemar's exact test on the items one model gets right and the other wrong",
    "permutation": "the paired permutation test of the mean difference",
    "sign": "the sign test over tasks, which counts only who wins each task",
    "wilcoxon": "Wilcoxon's signed-rank test over tasks",
    "bradley-terry": "Bradley-Terry ratings; each pair's p-value is a Wald test of the difference of ratings over its "
    "bootstrap standard deviation, reported beside the max-T decisions",
}
METHOD_TEXT = {
    "holm": "a pair is separated when its Holm-adjusted p-value is at most one minus the level",
    "max-t": "a pair is separated when its bootstrap max-T simultaneous interval excludes 0",
}


def render(view: Any) -> str:
    s = view.s
    tier_of = {m: k + 1 for k, tier in enumerate(s["tiers"]) for m in tier}
    rows = [[k + 1, m, *s["rank_sets"][m], tier_of[m]] for k, m in enumerate(s["order"][:SHOWN])]
    caption = (
        f"Rank sets and tiers, first {len(rows)} of {len(s['order'])} models in the comparison's order"
        + (" (all of them are in the JSON)" if len(s["order"]) > len(rows) else "")
        + "."
    )
    tasks = list(s["tasks"].items())
    task_rows = [[t, x["test"], x["n_items"], len(x["tiers"]), x["separated"]] for t, x in tasks[:SHOWN]]
    task_caption = f"Each task on its own items, first {len(task_rows)} of {plural(len(tasks), 'task')}."
    all_pairs = s["n_models"] * (s["n_models"] - 1) // 2
    return view.html(
        TEMPLATE, rows=rows, caption=caption, task_rows=task_rows, task_caption=task_caption,
        listed_all=len(s["pairs"]) == all_pairs, all_pairs=f"{all_pairs:,}",
        test_text=TEST_TEXT[s["test"]], method_text=METHOD_TEXT[s["method"]],
    )  # fmt: skip


def places(tier_sizes: list[int]) -> list[str]:
    """Each tier as the places it holds: ``"1"``, ``"2-4"`` (an en dash).

    Examples
    --------
    >>> places([1, 3, 2])
    ['1', '2\u20134', '5\u20136']
    """
    out, start = [], 1
    for size in tier_sizes:
        out.append(str(start) if size == 1 else f"{start}\u2013{start + size - 1}")
        start += size
    return out


def verdict(s: dict, done: dict) -> list[Sentence]:
    m = s["n_models"]
    test = {"mcnemar": "McNemar", "permutation": "permutation", "sign": "sign"}.get(s["test"], s["test"])
    where = {
        "items": f"On the test items ({plural(len(s['tasks']), 'task')} pooled; {test} tests, ",
        "tasks": f"Over the {plural(s['n_columns'], 'task')} ({test} tests, ",
        "battles": f"On the {s['n_columns']:,} battles (Bradley-Terry ratings redrawn, ",
    }[s["unit"]] + f"{s['level'] * 100:.0f}% simultaneous)"
    if s["cuts"]:
        tops = [f"the top {k}" if k > 1 else "the first place" for k in s["cuts"]]
        verb = "is" if s["cuts"] == [1] else "are each" if len(tops) > 1 else "are"
        head = f"{some(tops, 3)} {verb} statistically separable from the rest"
    else:
        head = "no group of top places is statistically separable from the rest"
    spans = places([len(t) for t in s["tiers"]])
    if len(spans) == 1:
        tail = f"all {m} places form one tier"
    else:
        tail = f"the tiers are places {some(spans, 4)}"
    if s["unit"] == "tasks" and s["warning"]:
        tail += f" ({s['n_columns']} tasks cannot separate any pair: at least {s['min_tasks']} are needed)"
    return [Sentence("comparisons", f"{where}, {head}; {tail}.", secondary=s["unit"] == "tasks")]


SECTION = register(
    Section(
        name="comparisons",
        title="Paired comparisons, rank sets and tiers",
        chapter="uncertainty",
        about="Every pair of models is compared on the same items, tasks or battles, and the tests are combined so that every "
        "model's set of possible ranks holds at once at the chosen level. Tiers group the models that the data "
        "cannot tell apart from the top of their tier.",
        order=62,
        cost=(
            "O(P (N + B) + B N k + R N k) for the P = k(k-1)/2 pairs of the top k <= 50 models, N items "
            "(or tasks), B bootstrap redraws (B 2N k <= 2e9, B >= 200) and R = 1000 sign flips, per task and once "
            "pooled; on a battle log O(B m^2) for the m(m-1)/2 pairs of all m models, from the battles section's redraws"
        ),
        result=Result,
        compute=compute,
        render=render,
        needs=("rankings", "battles"),
        verdict=verdict,
        reads=("table", "battles"),
    )
)
