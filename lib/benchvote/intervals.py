r"""How sure is a leaderboard of its ranks?  Bootstrap intervals over the tasks.

A benchmark's tasks are a sample of the tasks it could have had.  Redrawing
the :math:`n` tasks with replacement :math:`B` times and ranking the models
each time shows how much of the ranking rests on which tasks happened to be
chosen.  For model :math:`i` the interval at level :math:`\ell` runs from the
:math:`(1-\ell)/2` to the :math:`(1+\ell)/2` quantile of its :math:`B`
bootstrap ranks; two models are *separable* at level :math:`\ell` when one
ranks strictly above the other in at least a share :math:`\ell` of the
redraws.  The same bootstrap over tasks is what MTEB added to its leaderboard
after users found that most adjacent ranks are not statistically separable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import ceil
from typing import Any

import numpy as np
import pandas as pd

from ._items import as_items
from ._validation import (
    as_score_matrix,
    check_nan_policy,
    check_number,
    check_tol,
    direction_of,
    measure,
    numbered,
)
from .aggregation import _pairwise_counts, borda, mean_win_rate
from .ranking import DEFAULT_TIE_TOLERANCE, _rank, rank

__all__ = ["RankIntervals", "rank_intervals", "instance_rank_intervals", "instance_table"]


@dataclass(frozen=True)
class RankIntervals:
    """Result of :func:`rank_intervals`.

    Attributes
    ----------
    ranks : ndarray or Series
        Ranks on the full table (1 = best, midranks for ties).
    lower, upper : ndarray or Series
        Ends of each model's interval of bootstrap ranks at ``level``.
    above : ndarray, shape (m, m)
        ``above[i, j]``: share of the redraws in which model i ranks strictly above model j.
    inseparable : list of (label, label)
        Pairs, in the order of the full ranking, that neither ranks above the
        other in a share ``level`` of the redraws.
    level : float
    n_boot : int
    redrawn : int
        Redraws the rule refused (a model left without a score) and that were drawn again.
    """

    ranks: Any
    lower: Any
    upper: Any
    above: np.ndarray
    inseparable: list
    level: float
    n_boot: int
    redrawn: int = 0

    def frame(self) -> pd.DataFrame:
        """One row per model, best first: rank, interval ends."""
        out = pd.DataFrame(
            {"rank": np.asarray(self.ranks), "lower": np.asarray(self.lower), "upper": np.asarray(self.upper)}
        )
        if isinstance(self.ranks, pd.Series):
            out.index = self.ranks.index
        return out.sort_values(["rank", "lower"], kind="stable")


@measure()
def rank_intervals(
    scores: Any,
    higher_is_better: Any = True,
    *,
    rule: Callable[..., Any] = mean_win_rate,
    n_boot: int = 1000,
    level: float = 0.95,
    tol: float = DEFAULT_TIE_TOLERANCE,
    nan_policy: str = "raise",
    seed: int = 0,
) -> RankIntervals:
    r"""Bootstrap intervals of every model's rank, resampling the tasks.

    Each redraw picks :math:`n` of the :math:`n` task columns uniformly with
    replacement (``numpy.random.default_rng(seed)``), scores the models with
    ``rule`` on the redrawn table and ranks them with :func:`benchvote.rank`.
    Model :math:`i`'s interval is ``[lower_i, upper_i]``, the
    :math:`(1-\ell)/2` and :math:`(1+\ell)/2` quantiles of its :math:`B`
    bootstrap ranks by the inverted CDF (the :math:`\lceil B q \rceil`-th
    smallest rank, with :math:`q` computed exactly from the decimal ``level``,
    so the ends are ranks that occurred).

    With :func:`benchvote.borda` or :func:`benchvote.mean_win_rate` on a
    complete table, a redrawn table's scores are count-weighted sums of
    per-task points, so every redraw costs one product rather than a run of
    the rule (the same ranks; see :func:`_additive_points`); the pair shares
    are counted by a compiled kernel.  A 5,000 x 6 table takes seconds.

    Parameters
    ----------
    higher_is_better : bool or sequence of bool
        Direction of every task (it travels with its column when redrawn).
    rule : callable
        ``rule(scores, higher_is_better)`` -> one number per model, higher =
        better (default :func:`benchvote.mean_win_rate`).
    n_boot : int
        Number of redraws :math:`B`.
    level : float in (0, 1)
        Coverage of each interval, and the share of redraws that separates a pair.
    nan_policy : {"raise", "omit"}
        ``"omit"`` passes missing scores on to ``rule`` (which must handle
        them, as :func:`benchvote.mean_win_rate` does).  A redraw in which the
        rule refuses the table, for instance because a model has no score on
        any redrawn task, is drawn again and counted in ``redrawn``.
    seed : int
        Seed of the redraws.

    Returns
    -------
    RankIntervals

    Raises
    ------
    ValueError
        On bad input, or when more than ``n_boot`` redraws are refused.

    See Also
    --------
    benchvote.missing.pairwise_confidence

    Examples
    --------
    Model 0 is best on every task, so it is first in every redraw; models 1 and
    2 split the tasks and cannot be told apart:

    >>> s = [[9.0, 9.0, 9.0, 9.0], [2.0, 1.0, 2.0, 1.0], [1.0, 2.0, 1.0, 2.0]]
    >>> r = rank_intervals(s, n_boot=200, seed=0)
    >>> r.lower.tolist(), r.upper.tolist(), r.inseparable
    ([1.0, 2.0, 2.0], [1.0, 3.0, 3.0], [(1, 2)])
    """
    nan_policy, n_boot, level, tol, seed = _check_options(rule, nan_policy, n_boot, level, tol, seed)
    mat, direction = scores, scores.direction
    m, n = mat.shape

    def ranks_of(columns: np.ndarray) -> np.ndarray:
        values = np.asarray(rule(mat.values[:, columns], direction[columns]), dtype=float)
        if values.shape != (m,):
            raise ValueError(f"rule must return one number per model ({m}), got shape {values.shape}")
        return rank(values, tol=tol)

    full = ranks_of(np.arange(n))
    points = _additive_points(rule, mat.values, direction, tol)
    if points is not None:  # the rule adds up per-task points: every redraw is one product of counts
        scale = m * n if rule is mean_win_rate else 1  # the rule's own values: exact rationals, rounded once
        boot = additive_redraw_ranks(points, scale, n_boot=n_boot, tol=tol, seed=seed)
        return _summarise(full, boot, mat.models, mat.labelled, level, 0)
    redraw_ranks: Callable[[np.ndarray], np.ndarray] = ranks_of
    if rule is mean_win_rate and m * m * n <= _KERNEL_CELLS:
        redraw_ranks = _strict_win_rate_ranks(mat.values, direction, tol, ranks_of)
    boot, redrawn = _bootstrap(
        lambda rng: redraw_ranks(rng.integers(0, n, size=n)), m, n_boot=n_boot, nan_policy=nan_policy, seed=seed
    )
    return _summarise(full, boot, mat.models, mat.labelled, level, redrawn)


def _check_options(rule: Any, nan_policy: Any, n_boot: Any, level: Any, tol: Any, seed: Any) -> tuple:
    """The options every bootstrap of this module shares, validated."""
    if not callable(rule):
        raise TypeError(f"rule must be a callable (scores, higher_is_better) -> one number per model, got {rule!r}")
    return (
        check_nan_policy(nan_policy),
        check_number(n_boot, "n_boot", low=1, integer=True),
        check_number(level, "level", low=0.0, high=1.0, low_open=True, high_open=True),
        check_tol(tol),
        check_number(seed, "seed", low=0, integer=True),
    )


def _bootstrap(
    redraw: Callable[[np.random.Generator], np.ndarray], m: int, *, n_boot: int, nan_policy: str, seed: int
) -> tuple[np.ndarray, int]:
    """``n_boot`` rank vectors from ``redraw(rng)``; with ``"omit"``, a redraw the rule refuses is drawn again."""
    rng = np.random.default_rng(seed)
    boot = np.empty((n_boot, m))
    done = redrawn = 0
    while done < n_boot:
        try:
            boot[done] = redraw(rng)
        except ValueError:
            if nan_policy == "raise":
                raise
            redrawn += 1
            if redrawn > n_boot:
                raise ValueError(
                    f"the rule refused more than n_boot = {n_boot} redrawn tables; too many missing "
                    "scores for this bootstrap"
                ) from None
            continue
        done += 1
    return boot, redrawn


def _additive_points(rule: Any, values: np.ndarray, direction: np.ndarray, tol: float) -> np.ndarray | None:
    """Per-task points whose sum over the redrawn tasks ranks the models as ``rule`` does, or ``None``.

    On a complete table two rules add up points task by task.  Borda gives
    a model ``m - r`` on a task where its midrank is ``r``, so the Borda
    count of a redrawn table is the count-weighted sum of these points, the
    same half-integers the rule adds.  The strict mean win rate of a redrawn
    table, where every pair is compared on all ``n`` drawn tasks, is
    ``sum_j wins_ij / (m n)``, and ``sum_j wins_ij`` is the count-weighted sum
    of the number of models each task ranks strictly below the model (an
    integer).  The rule's own floating-point sums differ from these exact
    rationals by less than ``2 (m + 2) u`` (``u = 2**-53``: m rounded
    quotients below 1 and their sum), and distinct rationals differ by at
    least ``1 / (m n)``; so when ``tol`` lies between twice the first and half
    the second, both tie exactly the same pairs and rank alike.  Any other
    rule or tolerance, or a table with missing scores, gets ``None``.
    """
    if np.isnan(values).any() or not (rule is mean_win_rate or rule is borda):
        return None
    m, n = values.shape
    if rule is mean_win_rate and not 4 * _U * (m + 2) <= tol < 0.5 / (m * n):
        return None  # a tolerance below the rule's rounding, or near the rationals' spacing: the rule's own sums
    if rule is borda:
        return m - _rank(values, direction, tol)
    return strict_wins_per_task(values, direction, tol)


def strict_wins_per_task(values: np.ndarray, direction: np.ndarray, tol: float) -> np.ndarray:
    """``out[i, k]``: how many models model i ranks strictly above on task k alone (ties within ``tol``).

    The per-task points of the strict mean win rate on a complete table (see
    :func:`_additive_points`), counted by sorting each task's midranks: the
    models ranked strictly below are those whose midrank is larger.  The
    audit's rank intervals read the same points.
    """
    r = _rank(values, direction, tol)
    m = r.shape[0]
    ordered = np.sort(r, axis=0)
    below = np.empty_like(r)
    for k in range(r.shape[1]):
        below[:, k] = m - np.searchsorted(ordered[:, k], r[:, k], side="right")
    return below


def additive_redraw_ranks(points: np.ndarray, scale: float, *, n_boot: int, tol: float, seed: int) -> np.ndarray:
    """Ranks (``n_boot`` x m) of the redrawn totals ``sum_k count_k points[:, k] / scale``.

    The redraws are those of :func:`rank_intervals` (``numpy.random.default_rng(seed)``
    drawing n of the n task columns with replacement, one redraw after
    another), so a rule that adds up per-task points is bootstrapped by one
    product of counts per redraw, in the library and in the audit alike.
    """
    n = points.shape[1]
    rng = np.random.default_rng(seed)
    draws = np.stack([np.bincount(rng.integers(0, n, size=n), minlength=n) for _ in range(n_boot)])
    totals = draws.astype(float) @ points.T
    if scale != 1:
        totals /= scale
    return rank(totals, tol=tol, axis=1)


_U = 2.0**-53


#: Largest models x models x tasks array the bootstrap kernel of the strict mean win rate precomputes.
_KERNEL_CELLS = 20_000_000


def _strict_win_rate_ranks(
    values: np.ndarray, direction: np.ndarray, tol: float, fallback: Callable[[np.ndarray], np.ndarray]
) -> Callable[[np.ndarray], np.ndarray]:
    """The ranks of :func:`benchvote.mean_win_rate` on redrawn columns, from per-task win counts.

    A task's ranks do not depend on the other tasks, so the win and
    comparison counts of a redrawn table are the per-task counts weighted by
    how often each task was drawn.  The arithmetic after the counts is the
    rule's own (``wins / compared`` summed over opponents, divided by m), so
    the ranks are the same numbers.  A redraw where some pair shares no
    task goes to the rule itself, which refuses it with its own message.
    """
    m, n = values.shape
    beats = np.zeros((n, m * m))
    shared = np.zeros((n, m * m))
    for k in range(n):  # the rule's own counting kernel, one task at a time
        counts = _pairwise_counts(values[:, [k]], direction[[k]], tol)
        beats[k] = counts.wins.ravel()
        shared[k] = counts.compared.ravel()
    off = ~np.eye(m, dtype=bool)

    def ranks_of(columns: np.ndarray) -> np.ndarray:
        counts = np.bincount(columns, minlength=n).astype(float)
        compared = (counts @ shared).reshape(m, m)
        if (compared[off] == 0).any():
            return fallback(columns)
        wins = (counts @ beats).reshape(m, m)
        fraction = wins / np.maximum(compared, 1)
        np.fill_diagonal(fraction, 0.0)
        return rank(np.sort(fraction, axis=1).sum(axis=1) / m, tol=tol)  # summed as the rule sums: order-free

    return ranks_of


def _summarise(
    full: np.ndarray, boot: np.ndarray, models: Any, labelled: bool, level: float, redrawn: int
) -> RankIntervals:
    """Intervals, pair shares and inseparable pairs from the full ranking and the bootstrap ranks."""
    n_boot = boot.shape[0]
    ordered = np.sort(boot, axis=0)
    lower = ordered[_order_statistic(n_boot, (1 - _exact_level(level)) / 2) - 1]
    upper = ordered[_order_statistic(n_boot, (1 + _exact_level(level)) / 2) - 1]
    above = _strict_shares(boot)
    order = np.argsort(full, kind="stable")
    close = (above < level) & (above.T < level)  # neither ranks above the other in a share level
    first, second = np.nonzero(np.triu(close[np.ix_(order, order)], k=1))  # pairs in the full ranking's order
    labels = np.empty(len(models), dtype=object)
    labels[:] = list(models)
    inseparable = list(zip(labels[order[first]].tolist(), labels[order[second]].tolist()))

    def wrap(values: np.ndarray) -> Any:
        return pd.Series(values, index=pd.Index(models), name="rank") if labelled else values

    return RankIntervals(
        ranks=wrap(full),
        lower=wrap(lower),
        upper=wrap(upper),
        above=above,
        inseparable=inseparable,
        level=level,
        n_boot=n_boot,
        redrawn=redrawn,
    )


def _exact_level(level: float) -> Fraction:
    """The level the user wrote: 0.95 is 19/20, not the binary double just below it.

    ``(1 - 0.95) / 2`` is 0.025000000000000022 in floating point, and
    ``ceil(1000 * 0.025000000000000022)`` is 26, one order statistic too far.
    The shortest decimal that rounds to ``level`` (its ``repr``) is the
    number meant; any level of up to 15 significant digits is read exactly.
    """
    return Fraction(repr(float(level)))


def _order_statistic(n: int, q: Fraction) -> int:
    """1-based index of the ``q`` quantile of ``n`` sorted values by the inverted CDF: ``max(1, ceil(n q))``."""
    return max(1, min(n, ceil(n * q)))


def _strict_shares(boot: np.ndarray) -> np.ndarray:
    """``out[i, j]``: the share of the redraws (rows of ``boot``) in which model i ranks strictly above model j.

    Midranks are halves, so twice the ranks are exact integers.  Repeated
    redraws (few tasks have few distinct redraws) are counted once with their
    multiplicity, and a compiled kernel counts each pair once, settling from
    the ranges alone the pairs whose redrawn ranks never overlap (memory
    m x m, not redraws x m x m).  The shares are the same numbers as the mean
    of the comparisons (an integer count over ``n_boot``).
    """
    from ._kernels import strict_above_counts

    n_boot = boot.shape[0]
    distinct, weight = np.unique(boot, axis=0, return_counts=True)
    small = max(2 * float(np.abs(boot).max()), n_boot) < 2**15  # 16-bit ranks and weights: twice the throughput
    kind = np.int16 if small else np.int32
    doubled = np.ascontiguousarray(np.rint(2 * distinct).T.astype(kind))
    return strict_above_counts(doubled, weight.astype(kind)) / n_boot


def instance_table(scores: Any) -> tuple[pd.DataFrame, dict]:
    """Check a long table of instance scores and split it by task.

    Parameters
    ----------
    scores : DataFrame or Items
        Columns ``model``, ``task``, ``instance``, ``score``: one row per model,
        task and test instance (an item of the task's test set); or the
        :class:`benchvote._items.Items` the command line's reader builds
        (already checked and split: returned as they are, nothing re-pivoted).

    Returns
    -------
    table : DataFrame
        Models x tasks, each cell the model's mean over the task's instances
        (missing where the model has no instance of the task).
    blocks : dict
        Task -> models x instances array (rows in ``table``'s model order,
        ``nan`` for a model without the task; instances in the order of
        their names).  From a DataFrame the arrays are float; from ``Items``
        in the smallest exact dtype (``uint8`` for right/wrong items).

    Raises
    ------
    ValueError
        If a column is missing, a score is not a finite number, a (model,
        task, instance) triple repeats, or a model scored on a task lacks
        some of the task's instances (nothing is imputed).

    Examples
    --------
    >>> long = pd.DataFrame({"model": ["a", "a", "b", "b"], "task": ["t"] * 4,
    ...                      "instance": [1, 2, 1, 2], "score": [1.0, 0.0, 1.0, 1.0]})
    >>> table, blocks = instance_table(long)
    >>> table["t"].tolist(), blocks["t"].tolist()
    ([0.5, 1.0], [[1.0, 0.0], [1.0, 1.0]])
    """
    items = as_items(scores)
    return items.table(), dict(items.blocks)


def instance_rank_intervals(
    scores: Any,
    higher_is_better: Any = True,
    *,
    rule: Callable[..., Any] = mean_win_rate,
    n_boot: int = 1000,
    level: float = 0.95,
    resample_tasks: bool = False,
    tol: float = DEFAULT_TIE_TOLERANCE,
    nan_policy: str = "raise",
    seed: int = 0,
) -> RankIntervals:
    r"""Bootstrap intervals of every model's rank, resampling each task's test instances.

    A task's score is a mean over a finite test set.  Each redraw picks, in
    every task, as many instances as it has, uniformly with replacement and the
    same for every model (the instances are paired), recomputes the task means
    and ranks the models with ``rule``.  With ``resample_tasks=True`` the task
    columns are redrawn as in :func:`rank_intervals` too, so both sources of
    doubt enter at once.  Intervals, pair shares and inseparable pairs are read
    off the redraws exactly as in :func:`rank_intervals`.

    Parameters
    ----------
    scores : DataFrame
        Long instance scores, columns ``model``, ``task``, ``instance``,
        ``score``, or :class:`benchvote._items.Items` (see :func:`instance_table`).
    higher_is_better : bool or mapping task -> bool
        Direction of every task.
    rule : callable
        ``rule(scores, higher_is_better)`` -> one number per model, higher =
        better (default :func:`benchvote.mean_win_rate`).
    n_boot : int
        Number of redraws :math:`B`.
    level : float in (0, 1)
        Coverage of each interval, and the share of redraws that separates a pair.
    resample_tasks : bool
        Also redraw the tasks.
    tol : float
        Tie tolerance of the rankings.
    nan_policy : {"raise", "omit"}
        ``"omit"`` lets models lack whole tasks (passed on to ``rule`` as
        missing cells); refused redraws are drawn again and counted.
    seed : int
        Seed of the redraws.

    Returns
    -------
    RankIntervals

    See Also
    --------
    rank_intervals

    Examples
    --------
    Two models that differ on one instance in a hundred are not separable:

    >>> rows = [("a", "t", i, float(i % 2)) for i in range(100)]
    >>> rows += [("b", "t", i, float(i % 2 or i == 0)) for i in range(100)]
    >>> long = pd.DataFrame(rows, columns=["model", "task", "instance", "score"])
    >>> instance_rank_intervals(long, n_boot=200).inseparable
    [('b', 'a')]
    """
    nan_policy, n_boot, level, tol, seed = _check_options(rule, nan_policy, n_boot, level, tol, seed)
    if not isinstance(resample_tasks, (bool, np.bool_)):
        raise TypeError(f"resample_tasks must be True or False, got {resample_tasks!r}")
    table, blocks = instance_table(scores)
    if isinstance(higher_is_better, dict):
        unknown = sorted(set(map(str, higher_is_better)) - set(map(str, table.columns)))
        if unknown:
            raise ValueError(f"higher_is_better names unknown {numbered(len(unknown), 'task')}: {', '.join(unknown)}")
        higher_is_better = pd.Series([higher_is_better.get(t, True) for t in table.columns], index=table.columns)
    mat = as_score_matrix(table, allow_nan=nan_policy == "omit")
    direction = direction_of(mat, higher_is_better)
    m, n = mat.shape

    def ranks_of(values: np.ndarray, columns: np.ndarray) -> np.ndarray:
        out = np.asarray(rule(values[:, columns], direction[columns]), dtype=float)
        if out.shape != (m,):
            raise ValueError(f"rule must return one number per model ({m}), got shape {out.shape}")
        return rank(out, tol=tol)

    full = ranks_of(mat.values, np.arange(n))
    from ._kernels import count_weighted_sums, count_weighted_whole_sums  # numba loads on first use (_kernels)

    ordered = [blocks[t] for t in table.columns]

    def redraw(rng: np.random.Generator) -> np.ndarray:
        table = np.empty((m, n))
        for k, block in enumerate(ordered):
            size = block.shape[1]
            counts = np.bincount(rng.integers(0, size, size=size), minlength=size)
            if block.dtype == np.uint8:  # right/wrong items: exact integer sums, in int32 while 255 * size fits
                sums = count_weighted_whole_sums(block, counts.astype(np.int32) if size < 2**23 else counts)
            else:
                sums = count_weighted_sums(block, counts)
            table[:, k] = sums / size
        return ranks_of(table, rng.integers(0, n, size=n) if resample_tasks else np.arange(n))

    boot, redrawn = _bootstrap(redraw, m, n_boot=n_boot, nan_policy=nan_policy, seed=seed)
    return _summarise(full, boot, mat.models, mat.labelled, level, redrawn)
