"""Turning a models x tasks table into one score per model.

*Cardinal* rules use the numbers (:func:`mean_score`); *ordinal* rules use
only each task's ranking (:func:`pairwise_wins`, :func:`mean_win_rate`,
:func:`borda`).  Every ordinal rule reads "who beats whom on a task" from
:func:`benchvote.rank`, so ties mean the same thing everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from ._validation import (
    as_label_list,
    as_score_matrix,
    check_choice,
    direction_of,
    measure,
    numbered,
    wrap_models,
)
from .ranking import DEFAULT_TIE_TOLERANCE, _rank, exact_midranks, rank


class _DefaultTol(float):
    """The default ``tol`` of :func:`mean_win_rate`: equal to the library's tie tolerance, but its own object.

    The ``"helm"`` convention compares scores exactly unless the caller passes
    ``tol``; this marker tells the default from an explicit ``tol=1e-9``
    while the signature keeps the library's default value.
    """

    __slots__ = ()


_UNSET_TOL = _DefaultTol(DEFAULT_TIE_TOLERANCE)

__all__ = [
    "PairwiseCounts",
    "pairwise_wins",
    "mean_score",
    "geometric_mean",
    "mean_win_rate",
    "borda",
    "task_ranks",
    "protected_ranking",
]


@measure(allow_empty_rows=True)
def task_ranks(
    scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE, nan_policy: str = "raise"
) -> np.ndarray:
    """Each task's midranks of the models (models x tasks, 1 = best).

    Parameters
    ----------
    tol : float
        Tie tolerance: scores within ``tol`` (chained) share a midrank.
    nan_policy : {"raise", "omit"}
        ``"omit"`` ranks each task among the models scored on it and leaves
        ``nan`` in the missing cells.

    Examples
    --------
    >>> task_ranks([[0.9, 2.0], [0.5, 1.0]], higher_is_better=[True, False])
    array([[1., 2.],
           [2., 1.]])
    """
    return rank(scores.values, scores.direction, tol=tol, nan_policy="omit")


@dataclass(frozen=True)
class PairwiseCounts:
    """Head-to-head counts over tasks.

    Attributes
    ----------
    wins : ndarray of int, shape (m, m)
        ``wins[i, j]``: number of tasks on which model i ranks strictly above j.
    ties : ndarray of int, shape (m, m)
        Number of tasks on which i and j tie (0 on the diagonal).
    compared : ndarray of int, shape (m, m)
        Number of tasks on which both i and j have a score (0 on the diagonal).
    models : list
        Model labels, in row order.
    """

    wins: np.ndarray
    ties: np.ndarray
    compared: np.ndarray
    models: list

    @property
    def losses(self) -> np.ndarray:
        return self.wins.T

    def win_fraction(self) -> np.ndarray:
        """``wins / compared`` (``nan`` where a pair shares no task, 0 on the diagonal)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.where(self.compared > 0, self.wins / np.maximum(self.compared, 1), np.nan)
        np.fill_diagonal(out, 0.0)
        return out


@measure(allow_nan=True, allow_empty_rows=True)
def pairwise_wins(scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE) -> PairwiseCounts:
    r"""Count, for every ordered pair of models, the tasks each one wins.

    .. math::

        \mathrm{wins}_{ij} = \#\{k : s_{ik}, s_{jk} \text{ observed},\ r_{ik} < r_{jk}\},

    with :math:`r_{\cdot k}` the midranks of task :math:`k` (:func:`benchvote.rank`).
    A pair is compared only on tasks where both models have a score; nothing
    is imputed.  Mean win rate, Borda count and Copeland's rule are all
    functions of these counts.

    Returns
    -------
    PairwiseCounts

    Examples
    --------
    >>> c = pairwise_wins([[3, 1], [2, 2], [1, 3]])
    >>> c.wins
    array([[0, 1, 1],
           [1, 0, 1],
           [1, 1, 0]])
    >>> c.compared[0]
    array([0, 2, 2])
    """
    return _pairwise_counts(scores.values, scores.direction, tol, models=list(scores.models))


def _pairwise_counts(
    values: np.ndarray, direction: np.ndarray, tol: float, models: list | None = None
) -> PairwiseCounts:
    """Kernel of :func:`pairwise_wins` on a validated table (``nan`` = missing), counted pair by pair.

    The counting is compiled (:func:`benchvote._kernels.pair_counts`): one pass
    over the m (m - 1) / 2 pairs, no models x models temporary per task.
    """
    from ._kernels import pair_counts

    r = _rank(values, direction, tol)
    m = r.shape[0]
    wins, ties, compared = pair_counts(np.ascontiguousarray(r))
    return PairwiseCounts(wins=wins, ties=ties, compared=compared, models=list(range(m)) if models is None else models)


@measure(min_models=1)
def mean_score(
    scores: Any, higher_is_better: Any = True, *, weights: Any = None, nan_policy: str = "raise"
) -> np.ndarray | pd.Series:
    r"""Average score of each model across tasks (a cardinal rule).

    .. math::

        \bar s_i = \frac{\sum_k w_k s_{ik}}{\sum_k w_k}

    (plain mean when no weights are given; Zhang & Hardt 2024, eq. 1).
    A lower-is-better task enters with its sign flipped, :math:`-s_{ik}`, so
    that a higher mean is always better.

    Parameters
    ----------
    weights : array_like of shape (n,), optional
        Non-negative task weights.
    nan_policy : {"raise", "omit"}
        ``"omit"`` averages each model over the tasks it has a score on (the
        baseline :math:`\sigma^\mu` of Himmi et al.).  Beware: models are then
        averaged over different tasks, so a model scored only on an easy task
        can top the table.

    See Also
    --------
    mean_win_rate
    benchvote.normalization.dynamic_range

    References
    ----------
    :cite:t:`zhang2024tradeoffs`.

    Examples
    --------
    >>> mean_score([[0.8, 0.8, 0.2], [0.7, 0.6, 0.8], [0.4, 0.1, 0.4]])
    array([0.6, 0.7, 0.3])
    >>> mean_score([[1.0, float("nan")], [0.0, 1.0]], nan_policy="omit")
    array([1. , 0.5])
    """
    n = scores.shape[1]
    values = scores.values * scores.sign
    w = _task_weights(weights, n)
    seen = scores.observed
    num = np.where(seen, values, 0.0) @ w
    den = seen.astype(float) @ w
    if (den <= 0).any():
        bad = [scores.models[i] for i in np.flatnonzero(den <= 0)]
        raise ValueError(
            f"{numbered(len(bad), 'model')} {bad[:5]} {numbered(len(bad), 'has', 'have')} no score on a task with "
            "positive weight"
        )
    return wrap_models(num / den, scores, "mean_score")


def _task_weights(weights: Any, n: int) -> np.ndarray:
    """Checked task weights (ones when ``None``): finite, non-negative, not all zero, one per task."""
    if weights is None:
        return np.ones(n)
    w = np.asarray(weights, dtype=float)
    if w.shape != (n,):
        raise ValueError(f"weights must have one entry per task ({n}), got shape {w.shape}")
    if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
        raise ValueError("weights must be finite, non-negative and not all zero")
    return w


@measure(min_models=1)
def geometric_mean(
    scores: Any, higher_is_better: Any = True, *, weights: Any = None, nan_policy: str = "raise"
) -> np.ndarray | pd.Series:
    r"""Weighted geometric mean of each model's task scores (a cardinal rule for positive scores).

    .. math::

        g_i = \exp\Big(\frac{\sum_k w_k\, d_k \log s_{ik}}{\sum_k w_k}\Big),
        \qquad d_k = +1 \text{ (higher is better) or } -1 \text{ (lower is better)},

    so a lower-is-better task enters through the reciprocal :math:`1/s_{ik}`
    and a larger :math:`g_i` is always better.  On a table where every task is
    lower-is-better (errors relative to a baseline, as forecasting boards
    publish them) :math:`1/g_i` is the board's geometric mean of the errors.
    Dividing a task by a positive constant multiplies every model's value by
    the same factor, so the ranking does not depend on the tasks' units,
    unlike :func:`mean_score`.

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x tasks; every scored cell must be positive.
    weights : array_like of shape (n,), optional
        Non-negative task weights (default: all equal).
    nan_policy : {"raise", "omit"}
        ``"omit"`` averages each model over the tasks it is scored on.

    Raises
    ------
    ValueError
        When a scored cell is zero or negative: the logarithm is undefined
        there (shift or normalise the table first, e.g. with
        :func:`benchvote.normalization.relative_to_baseline` on positive errors).

    See Also
    --------
    mean_score

    Examples
    --------
    >>> geometric_mean([[1.0, 4.0], [2.0, 2.0]])
    array([2., 2.])
    >>> geometric_mean([[1.0, 4.0], [2.0, 2.0]], [True, False])
    array([0.5, 1. ])
    """
    w = _task_weights(weights, scores.shape[1])
    seen = scores.observed
    bad = seen & ~(scores.values > 0)
    if bad.any():
        tasks = [scores.tasks[j] for j in np.flatnonzero(bad.any(axis=0))]
        named = ", ".join(str(t) for t in tasks[:5]) + (f" and {len(tasks) - 5} more" if len(tasks) > 5 else "")
        which = "a task has" if len(tasks) == 1 else "these tasks have"
        raise ValueError(f"the geometric mean needs positive scores; {which} a score <= 0: {named}")
    logs = np.log(np.where(seen, scores.values, 1.0)) * scores.sign
    den = seen.astype(float) @ w
    if (den <= 0).any():
        models = [scores.models[i] for i in np.flatnonzero(den <= 0)]
        who = f"{numbered(len(models), 'model')} {models[:5]} {numbered(len(models), 'has', 'have')}"
        raise ValueError(f"{who} no score on a task with positive weight")
    with np.errstate(over="ignore"):
        return wrap_models(np.exp((logs @ w) / den), scores, "geometric_mean")


def win_fraction_blocks(values: np.ndarray, direction: np.ndarray, tol: float, rows: int = 256) -> Any:
    """:meth:`PairwiseCounts.win_fraction` of a validated table, ``rows`` rows at a time: pairs ``(lo, block)``.

    A compiled kernel fills each block (:func:`benchvote._kernels.win_fraction_rows`),
    so that no m x m array of counts is built.
    """
    from ._kernels import win_fraction_rows

    r = np.ascontiguousarray(_rank(values, direction, tol))
    m = r.shape[0]
    for lo in range(0, m, rows):
        block = np.empty((min(rows, m - lo), m))
        win_fraction_rows(r, lo, block)
        yield lo, block


def _strict_win_rate(mat: Any, direction: np.ndarray, tol: float) -> np.ndarray:
    """The strict mean win rate, a block of rows of win fractions at a time (compiled); refuses pairs sharing no task.

    Each row's fractions are summed in sorted order: the same floats whatever
    the row order of the table.  No m x m array is built (three int64 count
    matrices and a float64 one took 16 GB on 20,000 models).
    """
    m = mat.shape[0]
    values = np.empty(m)
    n_never, first = 0, None
    for lo, block in win_fraction_blocks(mat.values, direction, tol):
        values[lo : lo + len(block)] = np.sort(block, axis=1).sum(axis=1) / m
        never = np.isnan(block) & (np.arange(m)[None, :] > np.arange(lo, lo + len(block))[:, None])
        if never.any():
            n_never += int(never.sum())
            first = first or tuple(int(x) for x in np.argwhere(never)[0] + (lo, 0))
    if first is not None:
        i, j = first
        raise ValueError(
            f"{n_never} {numbered(n_never, 'pair of models shares', 'pairs of models share')} no task with a score, "
            "e.g. "
            f"({mat.models[i]!s}, {mat.models[j]!s}); their win rate is undefined. "
            "Drop one model of each such pair or use convention='quantile'"
        )
    return values


@measure(allow_nan=True)
def mean_win_rate(
    scores: Any,
    higher_is_better: Any = True,
    *,
    convention: str = "strict",
    aggregate: str = "mean",
    tol: float = _UNSET_TOL,
) -> np.ndarray | pd.Series:
    r"""Mean win rate of each model (an ordinal rule), in one of three conventions.

    ``convention="strict"`` (Zhang & Hardt 2024, eq. 2): the chance that the
    model beats a random opponent on a random task,

    .. math::

        \bar w_i = \frac1m \sum_{j=1}^m w_{ij}, \qquad
        w_{ij} = \frac{\mathrm{wins}_{ij}}{\mathrm{compared}_{ij}},

    where the sum runs over all :math:`m` models including :math:`i` itself
    (:math:`w_{ii} = 0`), ties count as no win, and a pair is compared only on
    tasks where both have a score.

    ``convention="quantile"`` (HELM's rule as told in Hardt's textbook
    chapter): on each task, the share of models with a lower *or equal* score,
    the model itself included; then the mean over the tasks the model has a
    score on,

    .. math::

        \bar q_i = \frac{1}{|K_i|} \sum_{k \in K_i}
                   \frac{\#\{j \in M_k : r_{jk} \ge r_{ik}\}}{|M_k|},

    with :math:`M_k` the models scored on task :math:`k` and :math:`K_i` the
    tasks model :math:`i` is scored on.

    ``convention="helm"`` (the rule HELM's code computes for its "Mean win
    rate" column since it fixed its tie handling): on each task the share of
    the *other* scored models that the model beats, a tie counting half; then
    the mean (or, with ``aggregate="median"``, the median) over the tasks the
    model has a score on,

    .. math::

        h_{ik} = \frac{\#\{j \in M_k : r_{jk} > r_{ik}\}
                       + \tfrac12 \#\{j \in M_k \setminus \{i\} : r_{jk} = r_{ik}\}}{|M_k| - 1}
               = \frac{|M_k| - r^{(k)}_{i}}{|M_k| - 1},
        \qquad \bar h_i = \operatorname{mean}_{k \in K_i} h_{ik},

    where :math:`r^{(k)}_i` is the model's midrank among :math:`M_k` and
    tasks with fewer than two scored models are left out (as HELM does).
    HELM compares the scores exactly (two scores :math:`10^{-12}` apart are a
    win, not a tie), so this convention uses ``tol=0`` unless ``tol`` is
    passed: its default reproduces HELM's column, and a caller who wants
    near-ties treated as ties passes ``tol`` explicitly.

    On complete data without ties all three are affine functions of the Borda
    count: :math:`\bar w_i = B_i/(nm)`, :math:`\bar q_i = (B_i/n + 1)/m` and
    :math:`\bar h_i = B_i/(n(m-1))`.

    Parameters
    ----------
    scores : array_like or DataFrame, shape (m, n)
    higher_is_better : bool or sequence of bool
    convention : {"strict", "quantile", "helm"}
    aggregate : {"mean", "median"}
        How the per-task win rates of ``"helm"`` are combined (HELM offers
        both). The other conventions are means by definition and accept only
        ``"mean"``.
    tol : float
        Tie tolerance of :func:`benchvote.rank` (default ``1e-9``; for
        ``"helm"`` the default is 0, HELM's exact comparison, and only a
        ``tol`` the caller passes applies).

    Raises
    ------
    ValueError
        With ``"strict"``, if two models share no task with a score (their
        win rate is undefined; drop one of them or use ``"quantile"``).

    See Also
    --------
    borda
    pairwise_wins

    References
    ----------
    :cite:t:`zhang2024tradeoffs`; :cite:t:`liang2023helm`; :cite:t:`hardt2025benchmarks`.

    Examples
    --------
    The nine-task example of Zhang & Hardt (four tasks rank A > B > C, three
    B > C > A, two C > A > B) gives 10/27, 10/27 and 7/27:

    >>> import numpy as np
    >>> ranks = np.array([[1] * 4 + [3] * 3 + [2] * 2,
    ...                   [2] * 4 + [1] * 3 + [3] * 2,
    ...                   [3] * 4 + [2] * 3 + [1] * 2])
    >>> mean_win_rate(ranks, higher_is_better=False) * 27
    array([10., 10.,  7.])

    The A/B/C example of the textbook chapter (quantile convention):

    >>> abc = np.array([[2, 2, 3], [3, 3, 1], [1, 1, 2]])  # task scores
    >>> mean_win_rate(abc, convention="quantile") * 9
    array([7., 7., 4.])

    HELM's rule on a table with a tie and a missing score: on task 1 the first
    two models tie (each beats the third and half-beats the other: 3/4), and
    task 2 has two scores, so the second model's rate rests on task 1 alone:

    >>> t = np.array([[3.0, 1.0], [3.0, np.nan], [1.0, 2.0]])
    >>> mean_win_rate(t, convention="helm")
    array([0.375, 0.75 , 0.5  ])
    """
    if convention not in ("strict", "quantile", "helm"):
        raise ValueError(f"convention must be 'strict', 'quantile' or 'helm', got {convention!r}")
    if aggregate not in ("mean", "median"):
        raise ValueError(f"aggregate must be 'mean' or 'median', got {aggregate!r}")
    if aggregate != "mean" and convention != "helm":
        raise ValueError(f"aggregate={aggregate!r} is defined only for convention='helm'")
    tol = 0.0 if convention == "helm" and tol is _UNSET_TOL else tol
    mat, direction = scores, scores.direction
    if convention == "strict":
        values = _strict_win_rate(mat, direction, tol)
    elif convention == "quantile":
        r = rank(mat.values, direction, tol=tol, nan_policy="omit")
        seen = ~np.isnan(r)
        per_task = np.full(r.shape, np.nan)
        for k in range(r.shape[1]):
            idx = np.flatnonzero(seen[:, k])
            if not len(idx):
                continue
            c = r[idx, k]
            per_task[idx, k] = (c[None, :] >= c[:, None]).sum(axis=1) / len(idx)
        values = np.nanmean(per_task, axis=1)
    else:  # helm
        r = _rank(mat.values, direction, tol)
        seen = ~np.isnan(r)
        n_k = seen.sum(axis=0).astype(float)
        usable = n_k >= 2
        per_task = np.where(seen & usable, (n_k - r) / np.maximum(n_k - 1, 1), np.nan)
        has = (~np.isnan(per_task)).any(axis=1)
        if not has.all():
            lonely = [str(x) for x in np.asarray(mat.models)[~has][:3]]
            raise ValueError(
                f"{int((~has).sum())} {numbered(int((~has).sum()), 'model has', 'models have')} no task with a second "
                "scored model, e.g. "
                f"{', '.join(lonely)}; HELM's win rate is undefined for them"
            )
        with np.errstate(all="ignore"):
            values = np.nanmean(per_task, axis=1) if aggregate == "mean" else np.nanmedian(per_task, axis=1)
    return wrap_models(values, mat, f"mean_win_rate_{convention}")


@measure(allow_nan=False)
def borda(scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE) -> np.ndarray | pd.Series:
    r"""Borda count: each task gives a model one point per model ranked below it.

    .. math::

        B_i = \sum_{k=1}^n \bigl(m - r_{ik}\bigr)
            = \sum_k \Bigl(\#\{j : r_{jk} > r_{ik}\} + \tfrac12 \#\{j \ne i : r_{jk} = r_{ik}\}\Bigr),

    so the top model of a task gets :math:`m - 1` points, the last 0, and tied
    models split the points of the positions they share.  With ties, the
    Borda count is the average of the two win-rate conventions (ties as losses
    and ties as wins), each affinely rescaled.

    Complete data are required: with missing scores the number of points on
    offer differs between tasks (use :func:`benchvote.missing.partial_borda`).

    See Also
    --------
    mean_win_rate

    References
    ----------
    :cite:t:`zhang2024tradeoffs`.

    Examples
    --------
    >>> borda([[3, 3], [2, 1], [1, 2]])
    array([4., 1., 1.])
    """
    r = rank(scores.values, scores.direction, tol=tol)
    values = (scores.shape[0] - r).sum(axis=1)
    return wrap_models(values, scores, "borda")


@measure(allow_nan=True, allow_empty_rows=True)
def protected_ranking(
    scores: Any,
    higher_is_better: Any = True,
    *,
    protected: Sequence,
    added: Sequence = (),
    convention: str = "strict",
    tol: float = DEFAULT_TIE_TOLERANCE,
) -> pd.Series:
    r"""Win-rate ranks of the ``protected`` models when ``added`` models also take part.

    The field of the election is ``protected + added``; the win rates of the
    protected models in that field are compared among themselves.

    With ``convention="strict"`` the win rate of a protected model a is
    :math:`\frac{1}{|F|}\sum_{j \in F} \mathrm{wins}_{aj}/\mathrm{compared}_{aj}`
    (:func:`mean_win_rate`); only a's own comparisons enter, so two added
    models that share no task do not matter, and the sums are compared in
    exact rational arithmetic (two protected models tie only when their win
    rates are equal).  This is the ranking that
    :func:`benchvote.axioms.field_margins` and the ordinal sensitivity
    solvers decide with integers.  ``convention="quantile"`` ranks the
    quantile win rates of the whole field (which must then be defined).

    Parameters
    ----------
    protected : sequence
        The models to rank (at least 2 labels of ``scores``).
    added : sequence
        Further models that join the field (disjoint from ``protected``).
    convention : {"strict", "quantile"}
        The win-rate convention of :func:`benchvote.mean_win_rate`.

    See Also
    --------
    benchvote.axioms.iia_flip

    References
    ----------
    :cite:t:`zhang2024tradeoffs`.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"t1": [2, 3, 1], "t2": [2, 3, 1], "t3": [3, 1, 2]}, index=list("ABC"))
    >>> protected_ranking(s, protected=["A", "B"]).tolist()
    [2.0, 1.0]
    >>> protected_ranking(s, protected=["A", "B"], added=["C"]).tolist()
    [1.5, 1.5]
    """
    check_choice(convention, "convention", ("strict", "quantile"))
    frame = scores.frame()
    protected = as_label_list(protected, "protected", frame.index)
    added = as_label_list(added, "added", frame.index)
    if len(protected) < 2:
        raise ValueError(f"protected needs at least 2 models, got {len(protected)}")
    overlap = set(protected) & set(added)
    if overlap:
        who = f"{numbered(len(overlap), 'model')} {sorted(map(str, overlap))[:5]} {numbered(len(overlap), 'is', 'are')}"
        raise ValueError(f"{who} both protected and added")
    field = frame.loc[protected + added]
    if convention == "quantile":
        rates = pd.Series(
            np.asarray(mean_win_rate(field, higher_is_better, convention=convention, tol=tol)), index=field.index
        )
        return rank(rates.loc[protected], tol=tol)
    mat = as_score_matrix(field, allow_nan=True)
    counts = pairwise_wins(mat.values, direction_of(mat, higher_is_better), tol=tol)
    p = len(protected)
    totals = []
    for a in range(p):
        total = Fraction(0)
        for j in range(len(field)):
            if j == a:
                continue
            if counts.compared[a, j] == 0:
                raise ValueError(
                    f"{protected[a]!s} and {mat.models[j]!s} share no task with a score; "
                    "the win rate of the protected model is undefined"
                )
            total += Fraction(int(counts.wins[a, j]), int(counts.compared[a, j]))
        totals.append(total)
    return pd.Series(exact_midranks(totals), index=pd.Index(protected), name="rank")
