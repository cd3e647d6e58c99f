"""The cardinal problem shared by the solvers: validation, the box, exact recounts and the result type."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np
import pandas as pd
from numba import njit

from .._validation import (
    ScoreMatrix,
    check_choice,
    check_number,
    constant_tasks,
    measure,
    numbered,
)
from ..ranking import (
    DEFAULT_TIE_TOLERANCE,
    exact_midranks,
    max_rank_change,
    reversed_pairs,
)


def _import_torch():
    """torch, or an ImportError that says how to install it (it is an optional dependency)."""
    try:
        import torch
    except ImportError:
        raise ImportError(
            "the gradient relaxation needs torch, an optional dependency of benchvote: "
            "pip install 'benchvote[relaxation]' --extra-index-url https://download.pytorch.org/whl/cpu "
            "(the CPU build); the exact solvers (cardinal_sensitivity(method='exact'), "
            "ordinal_sensitivity_exact) work without it"
        ) from None
    return torch


#: Torch threads during a relaxation.  Its tensors are small (restarts x pairs): measured on 2 cores
#: (bench/threads.py), two threads save 15-25 percent on an idle machine but cost 1.3-1.9 times the time
#: when another process keeps one core busy, while one thread runs as fast busy as idle.
RELAXATION_THREADS = 1


def _one_torch_thread(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``fn`` with :data:`RELAXATION_THREADS` torch threads, restoring the caller's setting afterwards."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            import torch
        except ImportError:  # fn raises the ImportError that says how to install torch
            return fn(*args, **kwargs)
        before = torch.get_num_threads()
        torch.set_num_threads(RELAXATION_THREADS)
        try:
            return fn(*args, **kwargs)
        finally:
            torch.set_num_threads(before)

    return wrapper


def _task_std(values: np.ndarray) -> np.ndarray:
    """Each column's standard deviation (``ddof=0``), computed on the column brought to unit size.

    Squaring scores beyond about 1e154 overflows; dividing each column by its
    largest absolute value first (and multiplying back) does not.
    """
    scale = np.abs(values).max(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    return (values / scale).std(axis=0, ddof=0) * scale


def _check_no_constant_task(mat: Any, tol: float) -> None:
    const = constant_tasks(mat.values, tol)
    if const.any():
        bad = [mat.tasks[j] for j in np.flatnonzero(const)]
        raise ValueError(
            f"scores has constant {numbered(len(bad), 'task')} {bad[:5]}: every model ties on them "
            f"(spread <= tol = {tol:g}), "
            "so label noise cannot change them and the weight box is undefined; remove them first"
        )


@measure(allow_nan=False)
def default_eps(scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE) -> float:
    r"""The paper's default :math:`\varepsilon = \min(0.01,\ \sigma_{\min}/\sigma_{\max})`.

    :math:`\sigma_{\min}` and :math:`\sigma_{\max}` are the smallest and largest task standard deviations.

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x tasks, no missing cells.
    higher_is_better : bool or sequence of bool
        Direction of every task (it does not change a standard deviation; it
        is accepted so that every measure takes the same arguments).
    tol : float
        Tie tolerance: a task whose scores all lie within ``tol`` of each other
        is constant (its spread is tested, which is exact in floating point,
        not its standard deviation, which is not).

    Raises
    ------
    ValueError
        On a constant task (the ratio is then undefined).

    Examples
    --------
    >>> default_eps([[0.0, 0.0], [1.0, 100.0]])
    0.01
    >>> default_eps([[0.0, 0.0], [1.0, 1000.0]])
    0.001
    """
    _check_no_constant_task(scores, tol)
    std = _task_std(scores.values)
    return float(min(0.01, std.min() / std.max()))


@dataclass(frozen=True)
class CardinalSensitivity:
    """Result of :func:`cardinal_sensitivity` or :func:`cardinal_sensitivity_exact`.

    Attributes
    ----------
    tau_distance : float
        Kendall tau distance between the original and reweighted mean-score rankings.
    mrc : float
        Their maximum rank change.
    n_flipped : int
        Number of model pairs reversed (``tau_distance`` times the number of pairs).
    weights : ndarray or Series
        The task weights :math:`\\alpha` on the published scores, scaled so that the largest is 1.
    ranking_before, ranking_after : ndarray or Series
        Mean-score ranks before and after reweighting (1 = best).
    eps : float
        Lower end of the weight box.
    normalize : str
        ``"none"``: the box applies to the published scores (the paper's eq. 6-8);
        ``"zscore"``: it applies to standardised tasks (benchbench's default).
    method : str
        ``"relaxation"``, ``"relaxation+polish"``, ``"search"``, ``"boxes"``, ``"milp"`` or ``"cliques"``.
    restarts : int
        Random restarts used by the relaxation, or starts of the search (0 for exact methods).
    upper_bound : float or None
        A certified upper bound on ``tau_distance`` (exact methods), equal to it when optimal.
    optimal : bool
        Whether ``tau_distance`` is proven to be the maximum.
    seconds : float
        Wall-clock time of the computation.
    tol : float
        Tie tolerance of both rankings: a pair counts as reversed only when the
        two rankings order it strictly opposite ways (see the module docstring).
    stopped : str
        Why an exact search ended before its end: ``"work_limit"`` (the
        deterministic budget: the same input, options and seed give the same
        result on every run), ``"time_limit"`` (the wall-clock safety cap:
        the weights found, and the value unless it is proven, then depend on
        the machine's speed) or ``"solver"`` (HiGHS ended unfinished for
        another reason); ``""`` when it finished or no exact search ran.  A
        result can be ``optimal`` and stopped: its recount met the bound.
    work : int
        Work the exact search spent, in the units of its budget (boxes
        evaluated, or branch-and-bound nodes); 0 when none ran.
    """

    tau_distance: float
    mrc: float
    n_flipped: int
    weights: Any
    ranking_before: Any
    ranking_after: Any
    eps: float
    normalize: str
    method: str
    restarts: int = 0
    upper_bound: float | None = None
    optimal: bool = False
    seconds: float = 0.0
    tol: float = DEFAULT_TIE_TOLERANCE
    stopped: str = ""
    work: int = 0


@dataclass
class _CardinalProblem:
    r"""A cardinal sensitivity instance in the form every solver shares.

    **The one notion of "reversed".**  Weights :math:`\alpha` on the
    published scores give the weighted means
    :math:`S_i(\alpha) = \sum_t \alpha_t s_{it} / \sum_t \alpha_t`; the ranking
    after the change is ``rank(S, tol)`` and the ranking before is
    ``rank(S(1), tol)`` (the plain mean), both computed in exact rational
    arithmetic (:func:`_exact_ranks`).  A pair is *reversed* when the two
    rankings order it strictly opposite ways; a pair tied in either ranking is
    not reversed.  This is the count reported everywhere.

    The solvers work with the necessary condition for pair (i, j), i above j
    before: :math:`S_j - S_i > \mathrm{tol}`, which is linear in the weights,
    :math:`d_k \cdot a < 0` with :math:`d_k = x_i - x_j + \mathrm{tol}\,\nu`
    (:math:`\nu_g` = how much one unit of weight on column g adds to
    :math:`\sum_t \alpha_t`).  Because the reversed pairs of ``rank`` always
    satisfy it, a bound on the number of pairs that satisfy it bounds the
    count; a result is proven optimal only when the exact recount of the
    returned weights reaches that bound.

    Columns with identical published scores are merged: k copies with weights
    in [eps, 1] act exactly like one column whose weight ranges over
    [k eps, k] (give every copy the same share).
    """

    mat: Any
    std: np.ndarray
    eps: float
    tol: float
    normalize: str
    before: np.ndarray
    x: np.ndarray  # models x distinct columns (standardised for "zscore")
    nu: np.ndarray  # per distinct column: contribution of one unit of weight to sum(alpha)
    lo: np.ndarray
    hi: np.ndarray
    groups: list  # original column indices of each distinct column
    upper_i: np.ndarray  # ordered pairs (upper_i[k] above lower_j[k] before)
    lower_j: np.ndarray
    d: np.ndarray  # pairs x distinct columns: pair k satisfies the linear condition when d[k] . a < 0
    slack: np.ndarray  # per pair: a bound on the floating-point error of d[k] . a over the box

    def robust_count(self, a: np.ndarray) -> int:
        """Pairs that satisfy the linear condition at ``a`` beyond any rounding (a lower bound)."""
        return int((self.d @ a < -self.slack).sum())

    def reversible_alone(self) -> np.ndarray:
        """Per pair: whether some weighting of the box may satisfy its condition (rounding in its favour).

        A linear function is smallest over a box at the corner that takes the
        lower end for a positive coefficient and the upper end for a negative
        one.  Every reversed pair is one of these, so their count bounds the count.
        """
        return np.minimum(self.d * self.lo, self.d * self.hi).sum(axis=1) < self.slack

    @functools.cached_property
    def factors(self) -> np.ndarray:
        """The solvers' per-column scale factors (:func:`_column_factors`), computed once."""
        return _column_factors(self.x, self.eps)


def integer_scores(values: np.ndarray) -> tuple[list[list[int]], int]:
    """The scores as integers over one power-of-two denominator ``q_s`` (rows of ``values``): ``(N, q_s)``."""
    s_ratio = [[float(v).as_integer_ratio() for v in row] for row in np.asarray(values, dtype=float)]
    q_s = max((q for row in s_ratio for _, q in row), default=1)
    return [[p * (q_s // q) for p, q in row] for row in s_ratio], q_s


def _exact_ranks(
    values: np.ndarray, weights: np.ndarray, tol: float, scores: tuple[list[list[int]], int] | None = None
) -> np.ndarray:
    r"""Midranks of the weighted means of the rows, in exact arithmetic.

    Every float is a rational number whose denominator is a power of two, so
    with ``q_s`` the largest denominator among the scores and ``q_w`` among the
    weights, :math:`N_{it} = q_s s_{it}` and :math:`W_t = q_w w_t` are
    integers and every weighted mean is
    :math:`\sum_t W_t N_{it} / (q_s \sum_t W_t)`: integers over one shared
    denominator.  Comparing the integer numerators, with the tolerance
    scaled by the same denominator, orders the means without rounding; a gap
    of at most ``tol`` joins two models in a tie group, exactly as
    :func:`benchvote.rank` does with its floating-point means.  ``scores`` is
    :func:`integer_scores` of ``values`` when the caller has it already (many
    weightings of one table).
    """
    w_ratio = [float(v).as_integer_ratio() for v in weights]
    q_w = max(q for _, q in w_ratio)
    w_int = [p * (q_w // q) for p, q in w_ratio]
    rows, q_s = integer_scores(values) if scores is None else scores
    numerators = [sum(w * p for w, p in zip(w_int, row) if w) for row in rows]
    scale = q_s * sum(w_int)
    return exact_midranks(numerators, Fraction(float(tol)) * scale)


@measure(allow_nan=False)
def _cardinal_setup(
    scores: Any, higher_is_better: Any, eps: float | None, normalize: str, tol: float
) -> _CardinalProblem:
    check_choice(normalize, "normalize", ("none", "zscore"))
    # oriented: a lower-is-better task enters negated, so higher is better everywhere
    mat = ScoreMatrix(scores.oriented, scores.models, scores.tasks, scores.labelled)
    _check_no_constant_task(mat, tol)
    std = _task_std(mat.values)
    if eps is None:
        eps = default_eps(mat.values, tol=tol)
    eps = check_number(eps, "eps", low=0.0, high=1.0, low_open=True, high_open=True)
    # merge columns with identical published scores (so also identical standard deviations)
    _, first, inverse = np.unique(mat.values.T, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # keep the distinct columns in their original order
    groups = [np.flatnonzero(inverse.ravel() == g) for g in order]
    cols = [g[0] for g in groups]
    counts = np.array([len(g) for g in groups], dtype=float)
    if normalize == "zscore":
        x = mat.values[:, cols] / std[cols]
        nu = 1.0 / std[cols]
    else:
        x = mat.values[:, cols]
        nu = np.ones(len(cols))
    lo, hi = eps * counts, counts
    before = _exact_ranks(mat.values, np.ones(mat.shape[1]), tol)
    upper_i, lower_j = np.nonzero(before[:, None] < before[None, :])
    d = x[upper_i] - x[lower_j] + tol * nu
    # d . a for a in the box is computed from rounded inputs with n products and sums; this bounds the error
    magnitude = (np.abs(x[upper_i]) + np.abs(x[lower_j]) + tol * nu) @ hi
    slack = (len(cols) + 4) * 2.0**-50 * magnitude
    return _CardinalProblem(
        mat=mat,
        std=std,
        eps=eps,
        tol=tol,
        normalize=normalize,
        before=before,
        x=x,
        nu=nu,
        lo=lo,
        hi=hi,
        groups=groups,
        upper_i=upper_i,
        lower_j=lower_j,
        d=d,
        slack=slack,
    )


def _column_factors(x: np.ndarray, eps: float) -> np.ndarray:
    r"""Per column, the factor :math:`f_t` of the solvers' variables :math:`b_t = f_t a_t`.

    A task in milliseconds beside accuracies in [0, 1] (or parameter counts
    near :math:`10^9`) makes the weighted conditions :math:`d_k \cdot a`
    sums of terms of wildly different sizes, below a solver's tolerances for
    the small tasks.  With :math:`f_t` proportional to the column's spread,
    :math:`d_{kt} a_t = (d_{kt} / f_t)\, b_t` has coefficients of comparable
    size in every column; the common factor is chosen so that the ranges of
    the :math:`b_t` lie around 1 (the geometric middle of
    :math:`\varepsilon \sigma_{\max}` and :math:`\sigma_{\min}`, where the
    ranges of the default box meet).  Only the direction of :math:`a`
    matters, so nothing is lost; every answer is still recounted exactly on
    the published scores.
    """
    spread = _task_std(x)
    ok = np.isfinite(spread) & (spread > 0)
    if not ok.any():
        return np.ones(x.shape[1])
    spread = np.where(ok, spread, np.exp(np.log(spread[ok]).mean()))
    log_ref = 0.5 * (np.log(eps) + np.log(spread).max() + np.log(spread).min())
    return np.exp(np.log(spread) - log_ref)


def _stop_reason(res: Any, time_limit: float | None, work_limit: int | None, started: float) -> str:
    """What ended a HiGHS mixed-integer solve (``res`` from ``scipy.optimize.milp``) started at ``started``.

    ``""`` when it finished; ``"work_limit"`` (its node budget),
    ``"time_limit"`` (the wall-clock safety cap) or ``"solver"`` (another reason).
    """
    if res.status == 0:
        return ""
    nodes = getattr(res, "mip_node_count", None)
    if work_limit is not None and nodes is not None and nodes >= work_limit:
        return "work_limit"
    if time_limit is not None and time.perf_counter() - started >= 0.95 * time_limit:
        return "time_limit"
    return "solver"


def _published_weights(prob: _CardinalProblem, merged: np.ndarray) -> np.ndarray:
    """Weights on the published task columns (largest 1) from weights on the merged, possibly standardised ones."""
    a = np.empty(prob.mat.shape[1])
    for g, cols in enumerate(prob.groups):
        a[cols] = merged[g] / len(cols)  # copies of one task share its weight
    a = np.clip(a, prob.eps, 1.0)
    alpha = a / prob.std if prob.normalize == "zscore" else a
    return alpha / alpha.max()


def _finish_cardinal(
    prob: _CardinalProblem,
    merged: np.ndarray,
    method: str,
    restarts: int = 0,
    upper: int | None = None,
    seconds: float = 0.0,
    stopped: str = "",
    work: int = 0,
) -> CardinalSensitivity:
    """Recount ``merged`` weights exactly; proven optimal when the count meets the certified bound ``upper``.

    A recount that meets the bound is a proof whether or not the search ran
    to its end (``stopped`` says what ended it).  A recount above ``upper``
    means the bound was not sound (HiGHS's dual bound on a badly scaled
    program, scores 1e-6 and 1e8 apart, can fall below a recounted value):
    the result then carries the library's own bound, the pairs that some
    weighting may reverse at all (:meth:`_CardinalProblem.reversible_alone`,
    at worst every pair ordered before), and no proof unless the recount
    meets that bound.
    """
    mat = prob.mat
    alpha = _published_weights(prob, merged)
    before = prob.before
    after = _exact_ranks(mat.values, alpha, prob.tol)
    n_flipped = int(reversed_pairs(before, after).sum())
    n_pairs = comb(len(before), 2)
    optimal = False
    if upper is not None:
        upper = int(upper)
        if n_flipped > upper:  # a bound below a recounted value: the solver's numerics failed, not the count
            upper = int(prob.reversible_alone().sum())
            if n_flipped > upper:  # pragma: no cover - reversible_alone rounds in the pairs' favour
                upper = len(prob.d)
        optimal = n_flipped == upper
    wrap = (
        (lambda v, name: pd.Series(v, index=pd.Index(mat.tasks if name == "weights" else mat.models), name=name))
        if mat.labelled
        else (lambda v, name: v)
    )
    return CardinalSensitivity(
        tau_distance=n_flipped / n_pairs,
        mrc=max_rank_change(before, after),
        n_flipped=n_flipped,
        weights=wrap(alpha, "weights"),
        ranking_before=wrap(before, "before"),
        ranking_after=wrap(after, "after"),
        eps=prob.eps,
        normalize=prob.normalize,
        method=method,
        restarts=restarts,
        upper_bound=None if upper is None else upper / n_pairs,
        optimal=optimal,
        seconds=seconds,
        tol=prob.tol,
        stopped=stopped,
        work=int(work),
    )


#: Most line searches of one coordinate polish (a work budget: a sweep is one line search per task).
POLISH_STEPS = 10_000


def _coordinate_polish(
    d: np.ndarray,
    a0: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    rng: np.random.Generator,
    max_sweeps: int = 30,
    max_steps: int = 0,
) -> tuple[np.ndarray, int]:
    """:func:`_counted_polish` without its count of line searches."""
    a, best, _ = _counted_polish(d, a0, lo, hi, rng, max_sweeps, max_steps)
    return a, best


def _counted_polish(
    d: np.ndarray,
    a0: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    rng: np.random.Generator,
    max_sweeps: int = 30,
    max_steps: int = 0,
) -> tuple[np.ndarray, int, int]:
    """Coordinate ascent with exact line search on the number of reversed pairs.

    Along one coordinate t, with the other weights fixed, pair k is reversed
    when ``c_k + d_kt a_t < 0``: a threshold on ``a_t``.  The count is
    piecewise constant between the thresholds, so sorting them gives the best
    value of ``a_t`` in ``[lo_t, hi_t]`` exactly (the middle of the best
    interval, away from the thresholds).  Sweeps visit the coordinates in a
    seeded random order and stop when no coordinate improves, or after
    ``max_steps`` line searches (default :data:`POLISH_STEPS`: a work budget that bounds a polish on
    thousands of tasks).  The line searches are compiled (:func:`_polish_sweep`).  Returns the
    weights, their count and the line searches done.
    """
    max_steps = max_steps or POLISH_STEPS
    a = np.array(a0, dtype=np.float64)
    g = d @ a
    best = int((g < 0).sum())
    d_by_task = np.ascontiguousarray(d.T, dtype=np.float64)
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    steps = 0
    for _ in range(max_sweeps):
        order = rng.permutation(d.shape[1])
        best, steps, improved, exhausted = _polish_sweep(d_by_task, a, g, lo, hi, order, best, steps, max_steps)
        if exhausted or not improved:
            break
    return a, int(best), min(int(steps), max_steps)


@njit(cache=True, nogil=True)
def _count_up_to(sorted_values: np.ndarray, x: float, inclusive: bool) -> int:
    """How many of ``sorted_values`` are below ``x`` (or at most ``x``): numpy's ``searchsorted``, left (right)."""
    lo_, hi_ = 0, sorted_values.shape[0]
    while lo_ < hi_:
        mid = (lo_ + hi_) // 2
        if sorted_values[mid] < x or (inclusive and sorted_values[mid] == x):
            lo_ = mid + 1
        else:
            hi_ = mid
    return lo_


@njit(cache=True, nogil=True)
def _best_cut(up, down, low, high, fixed):  # pragma: no cover - compiled
    """The best value of one weight on ``[low, high]`` and its count, from the sorted inner thresholds.

    A pair of ``up`` is reversed below its threshold, one of ``down`` above it.  Candidates in order: ``low``,
    ``high``, then the middle of every gap between consecutive distinct values of ``low``, the thresholds and
    ``high``, increasing; the first best wins.  One merge of the two sorted lists counts every gap; a middle
    that rounds onto a threshold (two neighbouring floats) is counted by binary search.
    """
    n_up, n_down = up.shape[0], down.shape[0]
    best_here = fixed + n_up - _count_up_to(up, low, True) + _count_up_to(down, low, False)
    best_at = low
    count = fixed + n_up - _count_up_to(up, high, True) + _count_up_to(down, high, False)
    if count > best_here:
        best_here, best_at = count, high
    iu, idn, prev = 0, 0, low  # thresholds of up, down at most prev
    while True:
        nxt = high
        if iu < n_up and up[iu] < nxt:
            nxt = up[iu]
        if idn < n_down and down[idn] < nxt:
            nxt = down[idn]
        if nxt > prev:  # a gap (prev, nxt): up to prev done, nothing of either list inside it
            x = (prev + nxt) / 2
            if prev < x < nxt:
                count = fixed + (n_up - iu) + idn
            else:
                count = fixed + n_up - _count_up_to(up, x, True) + _count_up_to(down, x, False)
            if count > best_here:
                best_here, best_at = count, x
        if nxt >= high:
            return best_here, best_at
        while iu < n_up and up[iu] == nxt:
            iu += 1
        while idn < n_down and down[idn] == nxt:
            idn += 1
        prev = nxt


@njit(cache=True, nogil=True)
def _polish_sweep(d_by_task, a, g, lo, hi, order, best, steps, max_steps):  # pragma: no cover - compiled
    """One sweep of :func:`_coordinate_polish` over the tasks in ``order``; updates ``a`` and ``g = d a`` in place.

    Returns (best count, line searches done, whether a weight moved, whether the budget ran out).  For task t
    the pairs' values without it are ``c = g - d_t a_t``; a pair with ``d_kt > 0`` is reversed for ``a_t`` below
    ``-c_k / d_kt``, one with ``d_kt < 0`` above it.  Candidates: the two ends of ``[lo_t, hi_t]``, then the
    middle of every interval between distinct inner thresholds, in increasing order; the first best wins.
    """
    m = d_by_task.shape[1]
    above = np.empty(m)  # thresholds of the pairs that weight t raises
    below = np.empty(m)  # and of those it lowers
    improved = False
    for t in order:
        steps += 1
        if steps > max_steps:
            return best, steps, improved, True
        col = d_by_task[t]
        at, low, high = a[t], lo[t], hi[t]
        fixed, n_up, n_down = 0, 0, 0
        for k in range(m):
            v = col[k]
            if v == 0.0:
                if g[k] < 0.0:
                    fixed += 1
            elif v > 0.0:
                b = -(g[k] - v * at) / v  # reversed for a_t below b; beyond the largest float: infinite
                if b >= high:
                    fixed += 1
                elif b > low:
                    above[n_up] = b
                    n_up += 1
            elif v < 0.0:
                b = -(g[k] - v * at) / v  # reversed for a_t above b
                if b <= low:
                    fixed += 1
                elif b < high:
                    below[n_down] = b
                    n_down += 1
        up = np.sort(above[:n_up])
        down = np.sort(below[:n_down])
        best_here, best_at = _best_cut(up, down, low, high, fixed)
        if best_here > best:
            for k in range(m):
                g[k] = (g[k] - col[k] * at) + col[k] * best_at
            a[t] = best_at
            best = best_here
            improved = True
    return best, steps, improved, False
