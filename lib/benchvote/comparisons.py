r"""How sure is a ranking?  Paired tests between models, all pairs at once, and simultaneous rank sets.

Every model is scored on the same columns, so comparisons are *paired*:
the columns are the items of one task (a models x items table of right and
wrong answers as 1 and 0, or of graded scores) or the tasks of a benchmark
(a models x tasks table with each task's direction).  For a pair of models
(a, b) the tests look at the per-column differences
:math:`d_k = s_{ak} - s_{bk}`, each column oriented so that higher is better:

* ``"mcnemar"``: McNemar's exact test (McNemar 1947) for 0/1 items, the
  two-sided exact binomial test on the discordant items;
* ``"permutation"``: the paired permutation (sign-flip) test of the mean
  difference for graded items, exact by enumeration of the sign patterns
  when they are few, Monte-Carlo otherwise (Fisher 1935; Pitman 1937);
* ``"sign"``: the sign test over tasks, which uses only who wins each task
  and so mixes tasks in any units;
* ``"wilcoxon"``: Wilcoxon's signed-rank test (Wilcoxon 1945), which also
  ranks the sizes of the differences and so assumes they are comparable
  across tasks (Demsar 2006 recommends it for classifiers over data sets).

Every pair's interval is a paired bootstrap (Efron and Tibshirani 1993):
the columns are redrawn with replacement, the same redraw for every model.
The same redraws give simultaneous intervals for all pairs at once, by the
single-step max-T method (Romano and Wolf 2005): each pair's effect plus or
minus c times its bootstrap standard deviation, with c the level-quantile
over the redraws of the largest studentised deviation among the pairs.

Rank sets.  Model i is *surely better* than j when the pair's test
rejects after Holm's step-down adjustment of all the pairs' p-values
(Holm 1979) and the effect favours i, or, by the bootstrap, when the
pair's simultaneous interval lies above 0.  If every "surely better" is
true, every model's true rank lies in ``[1 + #surely better, m - #surely
worse]``, for all models at once.  Holm's method keeps the chance of any
false rejection among all pairs below one minus the level, and with
decisions on the direction it keeps the chance of any false or wrongly
directed claim there too for independent tests (Shaffer 1980); the
pairwise tests of a leaderboard share models and are not independent,
which the seeded coverage simulation of the test suite checks.  The max-T
intervals hold jointly with the level asymptotically.  Sets of ranks from
simultaneous pairwise decisions are those of Klein, Wright and Wieczorek
(2020) and of Mogstad, Romano, Shaikh and Wilhelm (2024), whose step-down
refinement of the max-T intervals is not implemented here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import ceil
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import bdtr, ndtr

from ._validation import (
    as_label_list,
    as_vector,
    check_choice,
    check_number,
    measure,
)
from .intervals import _exact_level, _order_statistic
from .ranking import DEFAULT_TIE_TOLERANCE

__all__ = [
    "PairedTest",
    "PairwiseComparisons",
    "RankSets",
    "holm",
    "paired_test",
    "pairwise_comparisons",
    "rank_sets",
]

TESTS = ("auto", "mcnemar", "permutation", "sign", "wilcoxon")

#: Largest number of signed ranks whose exact null distribution the Wilcoxon test computes; the normal beyond.
WILCOXON_EXACT_MAX = 100

#: Two sign-flipped sums closer than this share of the sum of the absolute differences count as equal.
_PERMUTATION_RTOL = 1e-10

#: Cells of the largest temporary array a chunk of redraws, resamples or pairs may fill.
_CHUNK_CELLS = 1 << 22


@dataclass(frozen=True)
class PairedTest:
    """Result of :func:`paired_test`: model ``a`` against model ``b``.

    Attributes
    ----------
    a, b : label
        The two models; ``diff`` is a minus b.
    test : str
        The test used (``"mcnemar"``, ``"permutation"``, ``"sign"`` or ``"wilcoxon"``).
    diff : float
        The effect: the mean difference for ``"permutation"``; the share of
        columns a wins minus the share b wins for ``"mcnemar"`` (the difference
        of accuracies) and ``"sign"``; the matched-pairs rank-biserial
        correlation :math:`(W_+ - W_-)/(W_+ + W_-)` for ``"wilcoxon"``.
    ci : tuple of float
        Paired-bootstrap percentile interval of ``diff`` at ``level``.
    p : float
        Two-sided p-value.
    exact : bool
        Whether ``p`` is exact (enumerated or from the exact null
        distribution) rather than Monte-Carlo or a normal approximation.
    n : int
        Number of columns (items or tasks).
    level : float
    """

    a: Any
    b: Any
    test: str
    diff: float
    ci: tuple[float, float]
    p: float
    exact: bool
    n: int
    level: float


@dataclass(frozen=True)
class PairwiseComparisons:
    """Result of :func:`pairwise_comparisons`: every pair of models, ``a`` before ``b`` in the table's order.

    Attributes
    ----------
    models : list
        Model labels, in the table's order.
    a, b : ndarray of int
        Row indices of each pair; ``diff`` is a minus b.
    diff, ci_low, ci_high, p, p_adjusted : ndarray of float
        Effect (see :class:`PairedTest`), paired-bootstrap interval, two-sided
        p-value and Holm-adjusted p-value of each pair.
    simultaneous_low, simultaneous_high : ndarray of float
        Bootstrap max-T intervals of the effects that hold for all pairs at
        once at ``level`` (see :func:`pairwise_comparisons`).
    exact : ndarray of bool
        Whether each p-value is exact.
    scores : ndarray of float
        Each model's point score, which sets the leaderboard order: its mean
        oriented score for ``"mcnemar"`` and ``"permutation"`` (item tables);
        its mean ``diff`` against the other models for ``"sign"`` and
        ``"wilcoxon"`` (task tables, whose units need not agree).
    test : str
    level : float
    n_boot, n_resamples : int
    """

    models: list
    a: np.ndarray
    b: np.ndarray
    diff: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    simultaneous_low: np.ndarray
    simultaneous_high: np.ndarray
    p: np.ndarray
    p_adjusted: np.ndarray
    exact: np.ndarray
    scores: np.ndarray
    test: str
    level: float
    n_boot: int
    n_resamples: int

    @classmethod
    def of(
        cls,
        models: list,
        pairs: tuple[np.ndarray, np.ndarray],
        diff: np.ndarray,
        intervals: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
        p: np.ndarray,
        **rest: Any,
    ) -> PairwiseComparisons:
        """The comparisons of the pairs ``(a, b)``: ``intervals`` is (percentile, max-T), Holm adjusts ``p``."""
        (low, high), (sim_low, sim_high) = intervals
        return cls(models=list(models), a=pairs[0], b=pairs[1], diff=diff, ci_low=low, ci_high=high,
                   simultaneous_low=sim_low, simultaneous_high=sim_high, p=p, p_adjusted=holm(p), **rest)  # fmt: skip

    def frame(self) -> pd.DataFrame:
        """One row per pair: labels, effect, interval, p-values."""
        labels = np.empty(len(self.models), dtype=object)
        labels[:] = list(self.models)
        return pd.DataFrame(
            {
                "a": labels[self.a],
                "b": labels[self.b],
                "diff": self.diff,
                "ci_low": self.ci_low,
                "ci_high": self.ci_high,
                "p": self.p,
                "p_adjusted": self.p_adjusted,
            }
        )


@dataclass(frozen=True)
class RankSets:
    """Result of :func:`rank_sets`.

    Attributes
    ----------
    models : list
        Model labels, in the table's order.
    lowest, highest : ndarray of int
        Each model's rank set ``[lowest, highest]`` (1 = best): one plus the
        number of models surely better, and m minus the number surely worse.
    above : ndarray of bool, shape (m, m)
        ``above[i, j]``: model i is surely better than model j.
    order : ndarray of int
        The leaderboard order (row indices, best first) by
        :attr:`PairwiseComparisons.scores`, ties by row.
    tiers : list of list
        Model labels in leaderboard order, cut into consecutive groups (see
        :func:`rank_sets`).
    level : float
    method : str
        ``"holm"`` or ``"max-t"``.
    comparisons : PairwiseComparisons
    """

    models: list
    lowest: np.ndarray
    highest: np.ndarray
    above: np.ndarray
    order: np.ndarray
    tiers: list
    level: float
    method: str
    comparisons: PairwiseComparisons


def holm(p: Any) -> np.ndarray:
    """Holm's step-down adjustment of p-values (Holm 1979).

    With the :math:`N` p-values sorted, :math:`p_{(1)} \\le \\dots \\le p_{(N)}`,
    the adjusted value of the :math:`i`-th is
    :math:`\\max_{j \\le i} \\min(1, (N - j + 1)\\, p_{(j)})`: monotone in the
    raw p-values, and rejecting where it is at most :math:`\\alpha` controls
    the family-wise error rate at :math:`\\alpha` under any dependence.

    Parameters
    ----------
    p : array_like of float in [0, 1]
        Raw p-values, in any order.

    Returns
    -------
    ndarray
        Adjusted p-values, in the input's order.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.06, 0.06]
    """
    values = as_vector(p, name="p", min_length=0)
    if ((values < 0) | (values > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    n = values.shape[0]
    order = np.argsort(values, kind="stable")
    stepped = np.minimum(1.0, (n - np.arange(n)) * values[order])
    out = np.empty(n)
    out[order] = np.maximum.accumulate(stepped)
    return out


@measure(nan_choices=("raise",))
def paired_test(
    scores: Any,
    higher_is_better: Any = True,
    *,
    pair: Any,
    test: str = "auto",
    level: float = 0.95,
    n_boot: int = 2000,
    n_resamples: int = 10_000,
    tol: float = DEFAULT_TIE_TOLERANCE,
    nan_policy: str = "raise",
    seed: int = 0,
) -> PairedTest:
    """Compare two models of a table, column by column (paired).

    The same computation as :func:`pairwise_comparisons` on the two rows
    alone, so the numbers agree with that pair's row there (but for the
    adjustment, which needs the other pairs).

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x columns: items of one task (0/1 or graded), or tasks.
    higher_is_better : bool or sequence of bool
        Direction of every column.
    pair : (label, label)
        The models a and b (row labels, or row indices of an array).
    test : {"auto", "mcnemar", "permutation", "sign", "wilcoxon"}
        ``"auto"`` takes McNemar's test when every cell is 0 or 1, the
        permutation test otherwise; pass ``"sign"`` or ``"wilcoxon"`` for a
        table of tasks.
    level : float in (0, 1)
        Coverage of the bootstrap interval.
    n_boot : int
        Bootstrap redraws of the columns.
    n_resamples : int
        Monte-Carlo sign flips of the permutation test; it enumerates all
        :math:`2^k` sign patterns of the k nonzero differences instead when
        :math:`2^k` is at most ``n_resamples``.
    tol : float
        Two scores within ``tol`` tie (the column counts for neither model).
    nan_policy : {"raise"}
        Paired tests need every model scored on every column.
    seed : int
        Seed of the redraws and the sign flips.

    Returns
    -------
    PairedTest

    Examples
    --------
    Model a is right on 9 items that model b gets wrong, b on 1 that a gets wrong:

    >>> items = [[1] * 9 + [0] + [1] * 10, [0] * 9 + [1] + [1] * 10]
    >>> t = paired_test(items, pair=(0, 1))
    >>> t.test, t.diff, round(t.p, 4)
    ('mcnemar', 0.4, 0.0215)
    """
    mat = scores
    if isinstance(pair, (str, bytes)) or len(pair) != 2:
        raise ValueError(f"pair must name two models, got {pair!r}")
    a, b = as_label_list(pair, "pair", mat.models)
    rows = [mat.models.index(a), mat.models.index(b)]
    values = mat.values[rows]
    out = pairwise_comparisons(
        values,
        higher_is_better,
        test=test,
        level=level,
        n_boot=n_boot,
        n_resamples=n_resamples,
        tol=tol,
        nan_policy=nan_policy,
        seed=seed,
    )
    ci = (float(out.ci_low[0]), float(out.ci_high[0]))
    return PairedTest(
        a, b, out.test, float(out.diff[0]), ci, float(out.p[0]), bool(out.exact[0]), values.shape[1], out.level
    )


@measure(nan_choices=("raise",))
def pairwise_comparisons(
    scores: Any,
    higher_is_better: Any = True,
    *,
    test: str = "auto",
    level: float = 0.95,
    n_boot: int = 2000,
    n_resamples: int = 10_000,
    tol: float = DEFAULT_TIE_TOLERANCE,
    nan_policy: str = "raise",
    seed: int = 0,
) -> PairwiseComparisons:
    """Every pair of models compared by one paired test, with bootstrap intervals and Holm-adjusted p-values.

    The columns are oriented (a lower-is-better column enters negated) and
    each pair's differences are tested (see the module's notes).  The
    redraws of the columns (``numpy.random.default_rng([seed, 0])``) are the
    same for every pair.  A pair's interval runs from the k-th smallest to
    the k-th largest redrawn ``diff``,
    :math:`k = \\max(1, \\lceil n_{boot} (1 - \\ell) / 2 \\rceil)`, so swapping
    a and b negates it exactly; the simultaneous intervals are the max-T
    intervals of the module's notes.  The sign flips come from ``default_rng([seed, 1])``,
    the same for every pair; Monte-Carlo p-values are
    :math:`(1 + \\#\\{|T^*| \\ge |T|\\}) / (1 + n_{resamples})`, never 0.
    Redraws and flips act on the models' rows (one product), not pair by
    pair, and large inputs are processed in chunks; only the exact tests
    (enumerated sign flips, Wilcoxon) loop over pairs.

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x columns: items of one task (0/1 or graded), or tasks.
    higher_is_better : bool or sequence of bool
        Direction of every column.
    test : {"auto", "mcnemar", "permutation", "sign", "wilcoxon"}
        As in :func:`paired_test`.
    level : float in (0, 1)
        Coverage of every interval, and simultaneous coverage of the max-T intervals.
    n_boot : int
        Bootstrap redraws of the columns.
    n_resamples : int
        Monte-Carlo sign flips of the permutation test (exact enumeration when
        :math:`2^k \\le` ``n_resamples``).
    tol : float
        Two scores within ``tol`` tie.  For ``"wilcoxon"`` the sizes of the
        differences are ranked after division by the largest, so a common
        change of unit changes nothing.
    nan_policy : {"raise"}
        Paired tests need every model scored on every column.
    seed : int
        Seed of the redraws and the sign flips.

    Returns
    -------
    PairwiseComparisons

    Examples
    --------
    >>> tasks = [[0.9, 0.8, 0.7, 0.9, 0.6], [0.5, 0.6, 0.4, 0.5, 0.3], [0.4, 0.7, 0.5, 0.4, 0.2]]
    >>> c = pairwise_comparisons(tasks, test="sign", n_boot=200)
    >>> c.a.tolist(), c.b.tolist(), c.diff.tolist()
    ([0, 0, 1], [1, 2, 2], [1.0, 1.0, 0.2])
    >>> c.p.round(4).tolist(), c.p_adjusted.round(4).tolist()
    ([0.0625, 0.0625, 1.0], [0.1875, 0.1875, 1.0])
    """
    test, level, n_boot, n_resamples = _check_options(test, level, n_boot, n_resamples)
    mat = scores
    test = _resolve_test(test, mat.values)
    x = mat.oriented
    a, b = np.triu_indices(x.shape[0], k=1)
    p, exact, diff = _p_values(x, a, b, test, tol, n_resamples, seed)
    ci, simultaneous = _bootstrap_intervals(x, a, b, diff, test, tol, n_boot, level, seed)
    return PairwiseComparisons.of(
        mat.models,
        (a, b),
        diff,
        (ci, simultaneous),
        p,
        exact=exact,
        scores=_model_scores(x, a, b, diff, test),
        test=test,
        level=level,
        n_boot=n_boot,
        n_resamples=n_resamples,
    )


def _check_options(test: Any, level: Any, n_boot: Any, n_resamples: Any) -> tuple[str, float, int, int]:
    """The options of every function of this module beyond the measure contract, validated."""
    return (
        check_choice(test, "test", TESTS),
        check_number(level, "level", low=0.0, high=1.0, low_open=True, high_open=True),
        check_number(n_boot, "n_boot", low=1, integer=True),
        check_number(n_resamples, "n_resamples", low=1, integer=True),
    )


def _resolve_test(test: str, values: np.ndarray) -> str:
    """``"auto"`` made concrete; McNemar's test refused on anything but 0/1 cells."""
    binary = bool(np.isin(values, (0.0, 1.0)).all())
    if test == "auto":
        return "mcnemar" if binary else "permutation"
    if test == "mcnemar" and not binary:
        raise ValueError("McNemar's test needs right/wrong items scored 0 or 1; use test='permutation' for graded ones")
    return test


def _model_scores(x: np.ndarray, a: np.ndarray, b: np.ndarray, diff: np.ndarray, test: str) -> np.ndarray:
    """Each model's point score: its mean (item tests), or its mean effect against the others (task tests)."""
    if test in ("mcnemar", "permutation"):
        return _row_sums(x) / x.shape[1]
    m = x.shape[0]
    net = np.zeros((m, m))
    net[a, b], net[b, a] = diff, -diff
    return net.sum(axis=1) / (m - 1)


def _row_sums(x: np.ndarray) -> np.ndarray:
    """Each row's sum, one row at a time: the same number whatever the other rows (``x.sum(axis=1)`` may not be)."""
    return np.array([row.sum() for row in x])


def _pair_chunks(n_pairs: int, n: int) -> list[slice]:
    """Slices of the pairs such that a chunk's differences (pairs x columns) stay below the chunk size."""
    step = max(1, _CHUNK_CELLS // max(n, 1))
    return [slice(s, min(s + step, n_pairs)) for s in range(0, n_pairs, step)]


def _p_values(
    x: np.ndarray, a: np.ndarray, b: np.ndarray, test: str, tol: float, n_resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two-sided p-values, exactness and effects of every pair (a, b) of the oriented table ``x``."""
    n = x.shape[1]
    if test == "permutation":
        means = _row_sums(x) / n
        return (*_permutation_p(x, a, b, n_resamples, seed), means[a] - means[b])
    p, exact, diff = np.empty(len(a)), np.ones(len(a), dtype=bool), np.empty(len(a))
    for part in _pair_chunks(len(a), n):
        d = x[a[part]] - x[b[part]]
        if test in ("mcnemar", "sign"):
            wins, losses = (d > tol).sum(axis=1), (d < -tol).sum(axis=1)
            p[part] = np.minimum(1.0, 2.0 * bdtr(np.minimum(wins, losses), wins + losses, 0.5))
            diff[part] = (wins - losses) / n
        else:
            for i, row in zip(range(part.start, part.stop), d):
                p[i], exact[i], diff[i] = _wilcoxon(row, tol)
    return p, exact, diff


def _signed_ranks(d: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of the nonzero differences (``|d| > tol``): their columns, signs and doubled midranks of ``|d|`` (integers).

    The sizes are divided by the largest before ranking, so ``tol`` ties
    sizes relative to the largest; ties chain as in :func:`benchvote.rank`.
    """
    keep = np.flatnonzero(np.abs(d) > tol)
    if keep.size == 0:
        return keep, np.zeros(0), np.zeros(0, dtype=np.int64)
    size = np.abs(d[keep])
    size = size / size.max()
    order = np.argsort(size, kind="stable")
    starts = np.ones(keep.size, dtype=bool)
    starts[1:] = np.diff(size[order]) > tol
    group = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    last = np.append(first[1:], keep.size)
    doubled = np.empty(keep.size, dtype=np.int64)
    doubled[order] = (first + 1 + last)[group]  # twice the midrank of positions first+1 .. last
    return keep, np.sign(d[keep]), doubled


def _wilcoxon(d: np.ndarray, tol: float) -> tuple[float, bool, float]:
    """Two-sided p-value, exactness and rank-biserial effect of Wilcoxon's signed-rank test (zeros dropped).

    Exact (conditional on the midranks, so with tied sizes too) up to
    :data:`WILCOXON_EXACT_MAX` nonzero differences; beyond, the normal
    approximation with the tie correction of the variance and no continuity
    correction.  The p-value is computed from the smaller of the two rank
    sums, so swapping the models gives the same number.
    """
    _, sign, doubled = _signed_ranks(d, tol)
    n = doubled.size
    if n == 0:
        return 1.0, True, 0.0
    plus, minus = int(doubled[sign > 0].sum()), int(doubled[sign < 0].sum())
    effect = (plus - minus) / (plus + minus)
    low = min(plus, minus)
    if n <= WILCOXON_EXACT_MAX:
        cdf = _signed_rank_cdf(tuple(sorted(doubled.tolist())))
        return min(1.0, 2.0 * float(cdf[low])), True, effect
    _, counts = np.unique(doubled, return_counts=True)
    variance = n * (n + 1) * (2 * n + 1) / 24 - float((counts**3 - counts).sum()) / 48
    z = (low / 2 - n * (n + 1) / 4) / np.sqrt(variance)
    return min(1.0, 2.0 * float(ndtr(z))), False, effect


@lru_cache(maxsize=256)
def _signed_rank_cdf(doubled: tuple[int, ...]) -> np.ndarray:
    """``cdf[w]``: P(the doubled positive rank sum <= w) when each sign is + or - with probability 1/2.

    The null distribution conditional on the (doubled, integer) midranks, so
    exact with tied sizes too: one convolution with {0, r} per rank.
    """
    dist = np.zeros(sum(doubled) + 1)
    dist[0] = 1.0
    for r in doubled:
        shifted = np.zeros_like(dist)
        shifted[r:] = dist[: dist.size - r]
        dist = 0.5 * dist + 0.5 * shifted
    return np.cumsum(dist)


@lru_cache(maxsize=32)
def _sign_patterns(k: int) -> np.ndarray:
    """All 2**k patterns of k signs (+1 or -1), one a row."""
    bits = (np.arange(2**k)[:, None] >> np.arange(k)) & 1
    return 1.0 - 2.0 * bits


def _permutation_p(
    x: np.ndarray, a: np.ndarray, b: np.ndarray, n_resamples: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Sign-flip p-values of the mean difference of every pair: exact when few signs, Monte-Carlo otherwise.

    A flipped sum counts as at least as extreme as the observed one when it
    is smaller by at most ``_PERMUTATION_RTOL`` times the two models' sums of
    absolute scores (rounding, not a real difference).  A sign pattern flips
    every model's column alike, so the flipped sums of a pair are the
    difference of the models' flipped sums: one product per chunk of flips.
    """
    n = x.shape[1]
    sums, sizes = _row_sums(x), _row_sums(np.abs(x))
    observed, slack = np.abs(sums[a] - sums[b]), _PERMUTATION_RTOL * (sizes[a] + sizes[b])
    p, exact = np.empty(len(a)), np.zeros(len(a), dtype=bool)
    for part in _pair_chunks(len(a), n):
        d = x[a[part]] - x[b[part]]
        for j in np.flatnonzero((d != 0).sum(axis=1) <= n_resamples.bit_length() - 1):  # 2**k <= n_resamples
            i, row = part.start + j, d[j][d[j] != 0]
            p[i] = float(np.mean(np.abs(_sign_patterns(row.size) @ row) >= observed[i] - slack[i]))
            exact[i] = True
    todo = np.flatnonzero(~exact)
    if todo.size:
        rng = np.random.default_rng([seed, 1])
        hits = np.zeros(todo.size)
        rows = max(1, _CHUNK_CELLS // max(n, todo.size))
        for start in range(0, n_resamples, rows):  # the flips do not depend on the chunking (one stream)
            flipped = (1.0 - 2.0 * rng.integers(0, 2, size=(min(rows, n_resamples - start), n))) @ x.T
            extreme = np.abs(flipped[:, a[todo]] - flipped[:, b[todo]]) >= observed[todo] - slack[todo]
            hits += extreme.sum(axis=0)
        p[todo] = (1.0 + hits) / (1.0 + n_resamples)
    return p, exact


def _redraw_counts(n: int, n_boot: int, seed: int) -> list[np.ndarray]:
    """The bootstrap redraws as column counts (redraws x n), in chunks of rows, from ``default_rng([seed, 0])``."""
    rng = np.random.default_rng([seed, 0])
    rows = max(1, _CHUNK_CELLS // n)
    out = []
    for start in range(0, n_boot, rows):
        size = min(rows, n_boot - start)
        picks = rng.integers(0, n, size=(size, n)) + n * np.arange(size)[:, None]
        out.append(np.bincount(picks.ravel(), minlength=size * n).reshape(size, n).astype(float))
    return out


def _bootstrap_intervals(
    x: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    diff: np.ndarray,
    test: str,
    tol: float,
    n_boot: int,
    level: float,
    seed: int,
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Percentile and max-T simultaneous intervals of every pair's effect, a chunk of pairs at a time."""
    n = x.shape[1]
    if test in ("mcnemar", "permutation"):  # mean differences: the redrawn means of the models, one product
        means = np.vstack([counts @ x.T / n for counts in _redraw_counts(n, n_boot, seed)])
        ci, simultaneous, _ = pair_intervals(means, a, b, diff, level)
        return ci, simultaneous

    def effects(part: slice) -> np.ndarray:
        return _redrawn_effects(x[a[part]] - x[b[part]], test, tol, n_boot, seed)

    ci, simultaneous, _ = _effect_intervals(effects, len(a), n_boot, max(n_boot, n), diff, level)
    return ci, simultaneous


def pair_intervals(
    boot: np.ndarray, a: np.ndarray, b: np.ndarray, diff: np.ndarray, level: float
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray], np.ndarray]:
    """Intervals of the differences ``diff`` of the pairs (a, b) from redrawn model scores ``boot`` (redraws x m).

    Returns the percentile intervals, the max-T simultaneous intervals and
    each difference's bootstrap standard deviation; the battle logs'
    Bradley-Terry redraws (:mod:`benchvote.battles`) use it too.
    """

    def effects(part: slice) -> np.ndarray:
        return boot[:, a[part]] - boot[:, b[part]]

    return _effect_intervals(effects, len(a), len(boot), len(boot), diff, level)


def _effect_intervals(
    effects_of: Any, n_pairs: int, n_boot: int, width: int, diff: np.ndarray, level: float
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray], np.ndarray]:
    """The intervals of :func:`pair_intervals`, from ``effects_of(pairs)`` (redraws x those pairs), chunk by chunk.

    ``width`` is the cells one pair takes in the temporary arrays of ``effects_of``.
    """
    k = max(1, ceil(n_boot * (1 - _exact_level(level)) / 2))
    low, high, spread = np.empty(n_pairs), np.empty(n_pairs), np.empty(n_pairs)
    largest = np.zeros(n_boot)  # per redraw, the largest studentised deviation over the pairs
    step = max(1, _CHUNK_CELLS // max(width, 1))
    for start in range(0, n_pairs, step):
        part = slice(start, min(start + step, n_pairs))
        effects = effects_of(part)
        spread[part] = effects.std(axis=0)
        deviation = np.abs(effects - diff[part])
        scaled = np.divide(deviation, spread[part], out=np.zeros_like(deviation), where=spread[part] > 0)
        np.maximum(largest, scaled.max(axis=1), out=largest)
        effects.partition(sorted({k - 1, n_boot - k}), axis=0)
        low[part], high[part] = effects[k - 1], effects[n_boot - k]
    critical = np.sort(largest)[_order_statistic(n_boot, _exact_level(level)) - 1]
    return (low, high), (diff - critical * spread, diff + critical * spread), spread


def _redrawn_effects(d: np.ndarray, test: str, tol: float, n_boot: int, seed: int) -> np.ndarray:
    """The effects (redraws x pairs) of the sign or Wilcoxon test of the pairs whose differences are the rows of d."""
    n = d.shape[1]
    signs = (d > tol).astype(float) - (d < -tol)
    out = []
    for counts in _redraw_counts(n, n_boot, seed):  # the same redraws for every chunk of pairs
        if test == "sign":
            out.append(counts @ signs.T / n)
        else:
            out.append(np.column_stack([_redrawn_rank_biserial(row, counts, tol) for row in d]))
    return np.vstack(out)


def _redrawn_rank_biserial(d: np.ndarray, counts: np.ndarray, tol: float) -> np.ndarray:
    """The rank-biserial effect :math:`(W_+ - W_-)/(W_+ + W_-)` of each redraw given as column counts.

    A column drawn c times is c tied differences, so the redrawn midranks
    follow from the counts of each group of tied sizes: a group's midrank
    is the count of smaller sizes drawn plus (its count + 1) / 2.
    """
    keep, sign, doubled = _signed_ranks(d, tol)
    if keep.size == 0:
        return np.zeros(counts.shape[0])
    order = np.argsort(doubled, kind="stable")  # the columns by size, each group of tied sizes contiguous
    starts = np.flatnonzero(np.r_[True, np.diff(doubled[order]) != 0])
    drawn = counts[:, keep[order]]
    per_group = np.add.reduceat(drawn, starts, axis=1)
    midrank = np.cumsum(per_group, axis=1) - per_group + (per_group + 1) / 2
    plus = (np.add.reduceat(drawn * (sign[order] > 0), starts, axis=1) * midrank).sum(axis=1)
    minus = (np.add.reduceat(drawn * (sign[order] < 0), starts, axis=1) * midrank).sum(axis=1)
    total = plus + minus
    return np.where(total > 0, (plus - minus) / np.where(total > 0, total, 1.0), 0.0)


@measure(nan_choices=("raise",))
def rank_sets(
    scores: Any,
    higher_is_better: Any = True,
    *,
    test: str = "auto",
    method: str = "holm",
    level: float = 0.95,
    n_boot: int = 2000,
    n_resamples: int = 10_000,
    tol: float = DEFAULT_TIE_TOLERANCE,
    nan_policy: str = "raise",
    seed: int = 0,
) -> RankSets:
    """Simultaneous confidence sets for every model's rank, and tiers of models that are not separated.

    Model i is *surely better* than j by Holm-adjusted tests
    (``method="holm"``: adjusted p-value at most :math:`1 - \\ell`, effect in
    i's favour) or by the bootstrap max-T intervals (``method="max-t"``: the
    pair's simultaneous interval excludes 0); the rank set of a model is
    ``[1 + #surely better, m - #surely worse]`` (see the module's notes for
    why it covers all true ranks at once).

    The tiers cut the leaderboard order (best point score first, ties by
    row) into consecutive groups: a new tier starts at the first model that
    is surely worse than the current tier's top model.  Separation is not
    transitive (a above c, but neither separated from b), so groups of
    models no two of which are separated overlap; anchoring each tier on its
    top model gives a partition that is deterministic and keeps the
    leaderboard order, and none of whose members is surely worse than the
    top of its tier.

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x columns: items of one task (0/1 or graded), or tasks.
    higher_is_better : bool or sequence of bool
        Direction of every column.
    test : {"auto", "mcnemar", "permutation", "sign", "wilcoxon"}
        As in :func:`paired_test`.
    method : {"holm", "max-t"}
        Holm-adjusted tests, or bootstrap max-T simultaneous intervals.
    level : float in (0, 1)
        Simultaneous coverage of the rank sets.
    n_boot : int
        Bootstrap redraws of the columns.
    n_resamples : int
        Monte-Carlo sign flips of the permutation test.
    tol : float
        Two scores within ``tol`` tie.
    nan_policy : {"raise"}
        Paired tests need every model scored on every column.
    seed : int
        Seed of the redraws and the sign flips.

    Returns
    -------
    RankSets

    Examples
    --------
    Model 0 is right on 30 more items than each of the others, which are close:

    >>> items = np.zeros((3, 100))
    >>> items[0, :80] = 1; items[1, :50] = 1; items[2, 1:50] = 1
    >>> r = rank_sets(items, n_boot=100)
    >>> r.lowest.tolist(), r.highest.tolist(), r.tiers
    ([1, 2, 2], [1, 3, 3], [[0], [1, 2]])
    """
    method = check_choice(method, "method", ("holm", "max-t"))
    c = pairwise_comparisons(
        scores,
        higher_is_better,
        test=test,
        level=level,
        n_boot=n_boot,
        n_resamples=n_resamples,
        tol=tol,
        nan_policy=nan_policy,
        seed=seed,
    )
    above = _surely_better(c, method)
    m = len(c.models)
    order = np.argsort(-c.scores, kind="stable")
    return RankSets(
        models=list(c.models),
        lowest=1 + above.sum(axis=0),
        highest=m - above.sum(axis=1),
        above=above,
        order=order,
        tiers=_tiers(above, order, list(c.models)),
        level=c.level,
        method=method,
        comparisons=c,
    )


def _surely_better(c: PairwiseComparisons, method: str) -> np.ndarray:
    """``out[i, j]``: model i is surely better than model j by the pairs' simultaneous decisions."""
    if method == "holm":
        sure = c.p_adjusted <= 1 - float(_exact_level(c.level))
        first, second = sure & (c.diff > 0), sure & (c.diff < 0)
    else:
        first, second = c.simultaneous_low > 0, c.simultaneous_high < 0
    m = len(c.models)
    above = np.zeros((m, m), dtype=bool)
    above[c.a[first], c.b[first]] = True
    above[c.b[second], c.a[second]] = True
    return above


def _tiers(above: np.ndarray, order: np.ndarray, labels: list) -> list[list]:
    """The leaderboard order cut where a model is surely worse than the top of the current tier."""
    tiers: list[list] = []
    top = -1
    for i in order:
        if top < 0 or above[top, i]:
            tiers.append([])
            top = int(i)
        tiers[-1].append(labels[i])
    return tiers
