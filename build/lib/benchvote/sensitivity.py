r"""Sensitivity of a benchmark's ranking to changes that should not matter (Zhang & Hardt, 2024).

*Cardinal* sensitivity (their eqs. 6-8): reweight each task by
:math:`\alpha_j \in [\varepsilon, 1]`, the share of its test examples whose
labels are left intact when the rest are replaced by random labels.  Random
labels turn a score :math:`s` into :math:`\alpha_j s + (1-\alpha_j) p_j`, a
strictly increasing map, so no task's ranking changes; the mean score
becomes :math:`\sum_j \alpha_j s_{ij}` up to a constant.  The sensitivity is
the largest Kendall tau distance between the original and the reweighted
mean-score rankings.

*Ordinal* sensitivity (their eqs. 9-11, with the parentheses of eq. 11
restored): rank a protected set of models by strict mean win rate among
themselves, then add any subset of the other models to the field; the
sensitivity is the largest Kendall tau distance between the protected
models' two rankings.

Both maxima are combinatorial.  This module offers

* the gradient relaxations of the paper (hinge surrogate, eqs. 12-13;
  Algorithms 1-2), vectorised over all pairs of models and batched over many
  seeded random restarts (lower bounds);
* exact solvers: for cardinal sensitivity, a branch and bound over boxes of
  weights (few tasks, any number of models) and a mixed-integer program
  (``scipy.optimize.milp``; many tasks, few models); for ordinal sensitivity,
  the mixed-integer program and exhaustive enumeration of the added subsets
  for small pools.  Each reports a certified upper bound when it stops at its
  time limit.

Reported values are always recomputed from the returned weights or subset
with :func:`benchvote.rank` and :func:`benchvote.kendall_tau_distance`, so
they never rest on the relaxation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ._validation import (as_direction, as_label_list, as_score_frame, as_score_matrix, as_vector, check_choice,
                          check_number, check_tol, constant_tasks)
from .aggregation import mean_win_rate
from .axioms import field_margins
from .ranking import DEFAULT_TIE_TOLERANCE, exact_midranks, kendall_tau_distance, max_rank_change, rank, reversed_pairs

__all__ = [
    "default_eps",
    "CardinalSensitivity",
    "cardinal_sensitivity",
    "cardinal_sensitivity_exact",
    "OrdinalSensitivity",
    "ordinal_sensitivity",
    "ordinal_sensitivity_exact",
    "default_protected",
    "subset_agreement",
    "no_intercept_fit",
]


# --------------------------------------------------------------------------- cardinal


def _task_std(values: np.ndarray) -> np.ndarray:
    return values.std(axis=0, ddof=0)


def _check_no_constant_task(mat: Any, tol: float) -> None:
    const = constant_tasks(mat.values, tol)
    if const.any():
        bad = [mat.tasks[j] for j in np.flatnonzero(const)]
        raise ValueError(
            f"scores has constant task(s) {bad[:5]}: every model ties on them (spread <= tol = {tol:g}), "
            "so label noise cannot change them and the weight box is undefined; remove them first"
        )


def default_eps(scores: Any, *, tol: float = DEFAULT_TIE_TOLERANCE) -> float:
    r"""The paper's default :math:`\varepsilon = \min(0.01,\ \sigma_{\min}/\sigma_{\max})` over the task standard deviations.

    Parameters
    ----------
    scores : array_like or DataFrame, shape (m, n)
        Models x tasks, no missing cells.
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
    mat = as_score_matrix(scores)
    tol = check_tol(tol)
    _check_no_constant_task(mat, tol)
    std = _task_std(mat.values)
    return float(min(0.01, std.min() / std.max()))


@dataclass(frozen=True)
class CardinalSensitivity:
    """Result of :func:`cardinal_sensitivity` or :func:`cardinal_sensitivity_exact`.

    Attributes
    ----------
    tau : float
        Kendall tau distance between the original and reweighted mean-score rankings.
    mrc : float
        Their maximum rank change.
    n_flipped : int
        Number of model pairs reversed (``tau`` times the number of pairs).
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
        ``"relaxation"``, ``"relaxation+polish"``, ``"boxes"`` or ``"milp"``.
    restarts : int
        Random restarts used by the relaxation (0 for exact methods).
    upper_bound : float or None
        A certified upper bound on tau (exact methods), equal to ``tau`` when optimal.
    optimal : bool
        Whether ``tau`` is proven to be the maximum.
    seconds : float
        Wall-clock time of the computation.
    tol : float
        Tie tolerance of both rankings: a pair counts as reversed only when the
        two rankings order it strictly opposite ways (see the module docstring).
    """

    tau: float
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


def _exact_ranks(values: np.ndarray, weights: np.ndarray, tol: float) -> np.ndarray:
    """Midranks of the weighted means of the rows, in exact rational arithmetic.

    Every float is a rational number, so :math:`\\sum_t w_t s_{it} / \\sum_t w_t`
    and the gaps between consecutive means are computed without rounding; a
    gap of at most ``tol`` joins two models in a tie group, exactly as
    :func:`benchvote.rank` does with its floating-point means.
    """
    w = [Fraction(float(v)) for v in weights]
    total = sum(w, Fraction(0))
    means = [sum((wt * Fraction(float(s)) for wt, s in zip(w, row) if wt), Fraction(0)) / total for row in values]
    return exact_midranks(means, Fraction(float(tol)))


def _cardinal_setup(scores: Any, eps: float | None, normalize: str, tol: float) -> _CardinalProblem:
    check_choice(normalize, "normalize", ("none", "zscore"))
    mat = as_score_matrix(scores)
    tol = check_tol(tol)
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
    slack = (len(cols) + 4) * 2.0 ** -50 * magnitude
    return _CardinalProblem(mat=mat, std=std, eps=eps, tol=tol, normalize=normalize, before=before, x=x, nu=nu,
                            lo=lo, hi=hi, groups=groups, upper_i=upper_i, lower_j=lower_j, d=d, slack=slack)


def _finish_cardinal(prob: _CardinalProblem, merged: np.ndarray, method: str, restarts: int = 0,
                     upper: int | None = None, finished: bool = False, seconds: float = 0.0) -> CardinalSensitivity:
    """Recount ``merged`` weights exactly; proven optimal when the search finished and the count meets ``upper``."""
    mat = prob.mat
    a = np.empty(mat.shape[1])
    for g, cols in enumerate(prob.groups):
        a[cols] = merged[g] / len(cols)
    a = np.clip(a, prob.eps, 1.0)
    alpha = a / prob.std if prob.normalize == "zscore" else a
    alpha = alpha / alpha.max()
    before = prob.before
    after = _exact_ranks(mat.values, alpha, prob.tol)
    n_flipped = int(reversed_pairs(before, after).sum())
    n_pairs = comb(len(before), 2)
    optimal = False
    if upper is not None:
        upper = max(int(upper), n_flipped)
        optimal = finished and n_flipped == upper
    wrap = (lambda v, name: pd.Series(v, index=pd.Index(mat.tasks if name == "weights" else mat.models), name=name)) \
        if mat.labelled else (lambda v, name: v)
    return CardinalSensitivity(tau=n_flipped / n_pairs, mrc=max_rank_change(before, after), n_flipped=n_flipped,
                               weights=wrap(alpha, "weights"), ranking_before=wrap(before, "before"),
                               ranking_after=wrap(after, "after"), eps=prob.eps, normalize=prob.normalize,
                               method=method, restarts=restarts,
                               upper_bound=None if upper is None else upper / n_pairs, optimal=optimal,
                               seconds=seconds, tol=prob.tol)


def _coordinate_polish(d: np.ndarray, a0: np.ndarray, lo: np.ndarray, hi: np.ndarray, rng: np.random.Generator,
                       max_sweeps: int = 30) -> tuple[np.ndarray, int]:
    """Coordinate ascent with exact line search on the number of reversed pairs.

    Along one coordinate t, with the other weights fixed, pair k is reversed
    when ``c_k + d_kt a_t < 0``: a threshold on ``a_t``.  The count is
    piecewise constant between the thresholds, so sorting them gives the best
    value of ``a_t`` in ``[lo_t, hi_t]`` exactly (the middle of the best
    interval, away from the thresholds).  Sweeps stop when no coordinate improves.
    """
    a = a0.copy()
    g = d @ a
    best = int((g < 0).sum())
    n = d.shape[1]
    columns = [d[:, t] for t in range(n)]
    signs = [(col > 0, col < 0) for col in columns]
    for _ in range(max_sweeps):
        improved = False
        for t in rng.permutation(n):
            dt = columns[t]
            pos, neg = signs[t]
            c = g - dt * a[t]
            low, high = lo[t], hi[t]
            fixed = int((c[~pos & ~neg] < 0).sum())
            bpos = -c[pos] / dt[pos]  # reversed for a_t below the threshold
            bneg = -c[neg] / dt[neg]  # reversed for a_t above the threshold
            # thresholds outside [low, high] contribute a constant; only the inner ones need sorting
            fixed += int((bpos >= high).sum()) + int((bneg <= low).sum())
            bpos = np.sort(bpos[(bpos > low) & (bpos < high)])
            bneg = np.sort(bneg[(bneg > low) & (bneg < high)])
            cuts = np.unique(np.concatenate([[low, high], bpos, bneg]))
            cand = np.concatenate([[low, high], (cuts[:-1] + cuts[1:]) / 2])
            counts = fixed + (len(bpos) - np.searchsorted(bpos, cand, side="right")) \
                + np.searchsorted(bneg, cand, side="left")
            k = int(np.argmax(counts))
            if counts[k] > best:
                g = c + dt * cand[k]
                a[t] = cand[k]
                best = int(counts[k])
                improved = True
        if not improved:
            break
    return a, best


def cardinal_sensitivity(
    scores: Any,
    eps: float | None = None,
    *,
    normalize: str = "none",
    restarts: int = 32,
    steps: int = 150,
    lr: float = 0.05,
    lam: float = 0.0,
    polish: bool = True,
    polish_top: int = 8,
    polish_starts: int | None = None,
    seed: int = 0,
    tol: float = DEFAULT_TIE_TOLERANCE,
) -> CardinalSensitivity:
    r"""Cardinal sensitivity: the paper's hinge relaxation (Algorithm 1), batched, then an exact coordinate search.

    **Relaxation.**  For restart :math:`b`, weights
    :math:`a = \varepsilon + (1-\varepsilon)\,\sigma(\theta_b)` (inside the box for every
    :math:`\theta`; the paper's :math:`\sigma(\theta) + \varepsilon/(1-\varepsilon)` spans the same
    directions) give new scores
    :math:`s'_i = \sum_j a_j x_{ij} / \lVert a \rVert_1` and the loss (eq. 12)

    .. math::

        \ell = \sum_{i, j:\ r_i < r_j} c_{ij} \max(s'_i - s'_j, -\lambda),

    which pushes every originally better model :math:`i` below every worse
    model :math:`j`.  Half of the restarts use :math:`c_{ij} = 1`, half weight
    each pair by its rank distance :math:`r_j - r_i` (benchbench's two
    variants).  All restarts run together with Adam; at every step the exact
    number of reversed pairs of every restart is counted and the best weights
    of each restart are kept.

    Identical task columns (MTEB repeats each task type once per dataset) are
    merged first: k copies act as one weight ranging over :math:`[k\varepsilon, k]`.

    **Polish** (``polish=True``).  The count of reversed pairs is piecewise
    constant along each coordinate, so the best value of one weight with the
    others fixed can be found exactly by sorting the thresholds where a pair
    reverses.  Coordinate ascent with this exact line search starts from the
    best weights of the ``polish_top`` most successful restarts and from
    ``polish_starts`` random weights (log-uniform in the box), and typically
    lifts the relaxation's value substantially.

    Parameters
    ----------
    scores : array_like or DataFrame, shape (m, n)
        Models x tasks, higher is better, no missing values, no constant task.
    eps : float in (0, 1), optional
        Smallest weight relative to the largest; default :func:`default_eps`.
    normalize : {"none", "zscore"}
        Where the weight box applies (see :class:`CardinalSensitivity`).
    restarts, steps, lr, lam
        Relaxation settings (``lam`` is the paper's :math:`\lambda`, 0 for cardinal benchmarks).
    polish, polish_top, polish_starts
        Coordinate search after the relaxation; by default the number of
        random starts shrinks with the size of the problem (pairs x distinct
        tasks), from 128 on small leaderboards to 16 on the largest.
    seed : int
        Seeds every random choice; equal seeds give equal results.
    tol : float
        Tie tolerance of the rankings before and after (see :class:`_CardinalProblem`:
        a pair is reversed only when it is strictly ordered the other way).

    Returns
    -------
    CardinalSensitivity
        A lower bound on the true maximum (``optimal`` is False); the value is
        recounted exactly from the returned weights.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([[4.0, 0.0], [1.0, 2.0], [0.0, 2.5]])  # mean order A > B > C
    >>> r = cardinal_sensitivity(s, eps=0.1, restarts=4, steps=100)
    >>> r.n_flipped, r.tau, bool(r.weights[0] < 0.5 * r.weights[1])
    (3, 1.0, True)
    """
    import time

    import torch

    t0 = time.perf_counter()
    prob = _cardinal_setup(scores, eps, normalize, tol)
    restarts = check_number(restarts, "restarts", low=1, integer=True)
    steps = check_number(steps, "steps", low=0, integer=True)
    polish_top = check_number(polish_top, "polish_top", low=0, integer=True)
    polish_starts = check_number(polish_starts, "polish_starts", low=0, integer=True, allow_none=True)
    lr = check_number(lr, "lr", low=0.0, low_open=True)
    lam = check_number(lam, "lam", low=0.0)
    seed = check_number(seed, "seed", low=0, integer=True)
    x, before, lo_np, hi_np = prob.x, prob.before, prob.lo, prob.hi
    m, n = x.shape
    n_ordered = len(prob.d)
    if polish_starts is None:
        polish_starts = int(np.clip(2e6 / max(1, n_ordered * n), 16, 128))
    if n_ordered == 0:  # every model ties with every other: nothing to reverse
        return _finish_cardinal(prob, hi_np.copy(), "relaxation", seconds=time.perf_counter() - t0)
    xs = torch.tensor(x, dtype=torch.float64)
    lo, span = torch.tensor(lo_np), torch.tensor(hi_np - lo_np)
    i_np, j_np = prob.upper_i, prob.lower_j  # strictly ordered pairs: i above j
    i_idx, j_idx = torch.tensor(i_np), torch.tensor(j_np)
    d_t = torch.tensor(prob.d.T.copy(), dtype=torch.float64)  # (columns, pairs): reversed where a @ d_t < 0
    slack_t = torch.tensor(prob.slack, dtype=torch.float64)
    gen = torch.Generator().manual_seed(int(seed))
    theta = torch.randn(restarts, n, generator=gen, dtype=torch.float64) * 2.0
    theta[0] = 0.0  # one restart starts from the middle of the box
    weighted = torch.zeros(restarts, dtype=torch.bool)
    weighted[restarts // 2:] = True
    rank_gap = torch.tensor(before[j_np] - before[i_np], dtype=torch.float64)
    pair_weight = torch.where(weighted[:, None], rank_gap[None, :], torch.ones_like(rank_gap)[None, :])
    opt = torch.optim.Adam([theta], lr=lr)
    best_counts = torch.full((restarts,), -1, dtype=torch.long)
    best_a = torch.ones(restarts, n, dtype=torch.float64)
    with torch.no_grad():
        for step in range(steps + 1):
            sig = torch.sigmoid(theta)
            a = lo + span * sig  # every theta gives weights inside the box
            total = a.sum(dim=1, keepdim=True)
            s = (a @ xs.T) / total  # (R, m)
            diff = s[:, i_idx] - s[:, j_idx]  # (R, pairs): s_i - s_j, i originally above j
            counts = (a @ d_t < -slack_t).sum(dim=1)  # j now above i by more than tol (the shared notion)
            better = counts > best_counts
            best_counts[better] = counts[better]
            best_a[better] = a[better]
            if step == steps:
                break
            # analytic gradient of the hinge loss: d loss / d s_k, then the chain rule to theta
            w = pair_weight * (diff > -lam)
            g = torch.zeros(restarts, m, dtype=torch.float64)
            g.index_add_(1, i_idx, w)
            g.index_add_(1, j_idx, -w)
            grad_a = (g @ xs - (g * s).sum(dim=1, keepdim=True)) / total
            theta.grad = grad_a * span * sig * (1.0 - sig)
            opt.step()
    ranked = torch.argsort(best_counts, descending=True, stable=True).numpy()
    starts = [best_a.numpy()[k] for k in ranked[:polish_top]]
    method = "relaxation"
    total_restarts = restarts
    if polish:
        rng = np.random.default_rng(seed)
        starts += [np.exp(rng.uniform(np.log(lo_np), np.log(hi_np))) for _ in range(polish_starts)]
        results = [_coordinate_polish(prob.d, np.clip(a0, lo_np, hi_np), lo_np, hi_np, rng) for a0 in starts]
        best = max((r[0] for r in results), key=prob.robust_count)
        method = "relaxation+polish"
        total_restarts = restarts + polish_starts
    else:
        best = best_a.numpy()[int(torch.argmax(best_counts))]
    return _finish_cardinal(prob, best, method, restarts=total_restarts, seconds=time.perf_counter() - t0)


def cardinal_sensitivity_exact(
    scores: Any,
    eps: float | None = None,
    *,
    normalize: str = "none",
    method: str = "auto",
    time_limit: float = 60.0,
    triangle_cuts: bool | None = None,
    seed: int = 0,
    tol: float = DEFAULT_TIE_TOLERANCE,
) -> CardinalSensitivity:
    r"""Cardinal sensitivity computed exactly: the true maximum, or certified bounds.

    **What is counted.**  Pair (i, j), i above j in the mean-score ranking,
    is reversed by weights :math:`\alpha` when ``rank(S(alpha), tol)`` puts j
    strictly above i, :math:`S` being the weighted means; pairs tied before or
    after never count.  The count of the returned weights is recomputed in
    exact rational arithmetic.  Both solvers bound the number of pairs that
    satisfy the necessary linear condition :math:`S_j - S_i > \mathrm{tol}`,
    i.e. :math:`d_k \cdot a < 0` with :math:`d_k = x_i - x_j + \mathrm{tol}\,\nu`
    (see :class:`_CardinalProblem`); ``optimal`` is set only when the exact
    recount reaches that bound, so a proven maximum holds for exactly the
    definition of the recount.  Bounds are computed with a margin that covers
    floating-point error, so rounding can make them looser but never wrong.

    **Branch and bound over weight boxes** (``method="boxes"``).  Pair
    :math:`k` can satisfy the condition somewhere in a box :math:`[l, h]` of
    weights only if :math:`\min_{a \in [l, h]} d_k \cdot a = \sum_t \min(d_{kt} l_t, d_{kt} h_t) < 0`,
    so the number of such pairs bounds the count over the whole box, and the
    count at the box's centre is achieved.  Boxes whose bound does not beat the
    best count found are discarded; the others are halved along the weight
    whose width loosens the bound most.  Because only the direction of
    :math:`a` matters, the search starts from the :math:`n` faces
    :math:`a_t = h_t` of the box (every weight vector can be scaled up onto one
    of them), one dimension fewer.  This is fast when there are few tasks
    (OpenLLM's 6 tasks and 100 models: well under a second) whatever the
    number of models, and slow beyond about ten tasks.

    **Mixed-integer program** (``method="milp"``), for many tasks and few models.
    With one binary :math:`y_k` per pair and the weights :math:`a` in the box,

    .. math::

        \max \sum_k y_k \quad\text{s.t.}\quad d_k \cdot a \le \sigma_k + (M_k - \sigma_k)(1 - y_k),

    where :math:`M_k = \sum_t \max(d_{kt} l_t, d_{kt} h_t)` is the tightest
    big-M over the box and :math:`\sigma_k \ge 0` the floating-point margin:
    the program is a relaxation of the count, never a restriction, so its dual
    bound is a valid upper bound.  Pairs that cannot be reversed even alone are
    left out, and for up to 40 models the transitivity of the new ranking adds
    triangle cuts :math:`y_{ij} + y_{jk} - y_{ik} \le 1` and
    :math:`y_{ik} \le y_{ij} + y_{jk}` (both hold for tie groups of ``rank``).
    After solving, a linear program maximises the smallest margin of the chosen
    reversals and the result is recounted; a pair that the solver could only
    bring to a tie (within its own tolerance) is not counted, and the result is
    then reported with its bound but not as optimal.

    Parameters
    ----------
    scores : array_like or DataFrame
        Models x tasks, no missing cells, no constant task.
    eps : float, optional
        Lower end of the weight box (default :func:`default_eps`).
    normalize : {"none", "zscore"}
        Whether the box applies to the published scores or to standardised tasks.
    method : {"auto", "boxes", "milp"}
        ``"auto"`` uses boxes for at most 10 distinct tasks, the MILP otherwise.
    time_limit : float
        Seconds before the solver stops and reports its bound.
    triangle_cuts : bool, optional
        MILP only: add transitivity cuts (default: for up to 40 models).
    seed : int
        Seeds the coordinate search that provides the first incumbent (boxes only).
    tol : float
        Tie tolerance of the rankings before and after.

    Returns
    -------
    CardinalSensitivity
        ``optimal`` tells whether optimality was proven within ``time_limit``;
        ``upper_bound`` is a certified bound on tau in any case.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([[3.0, 0.0], [2.0, 2.0], [0.0, 3.0]])  # B first, A and C tie
    >>> r = cardinal_sensitivity_exact(s, eps=0.1)  # B can fall below A or below C, not both
    >>> r.n_flipped, r.optimal, r.method
    (1, True, 'boxes')
    >>> cardinal_sensitivity_exact(s, eps=0.1, method="milp").n_flipped
    1
    """
    import time

    t0 = time.perf_counter()
    check_choice(method, "method", ("auto", "boxes", "milp"))
    time_limit = check_number(time_limit, "time_limit", low=0.0, low_open=True)
    seed = check_number(seed, "seed", low=0, integer=True)
    if triangle_cuts is not None and not isinstance(triangle_cuts, (bool, np.bool_)):
        raise TypeError(f"triangle_cuts must be True, False or None, got {triangle_cuts!r}")
    prob = _cardinal_setup(scores, eps, normalize, tol)
    if len(prob.d) == 0:  # every model ties with every other: nothing to reverse
        return _finish_cardinal(prob, prob.hi.copy(), "boxes" if method == "auto" else method, upper=0,
                                finished=True, seconds=time.perf_counter() - t0)
    if method == "boxes" or (method == "auto" and prob.x.shape[1] <= 10):
        return _cardinal_boxes(prob, time_limit, seed, t0)
    return _cardinal_milp(prob, time_limit, triangle_cuts, t0)


def _cardinal_milp(prob: _CardinalProblem, time_limit: float, triangle_cuts: bool | None,
                   t0: float) -> CardinalSensitivity:
    """The mixed-integer program of :func:`cardinal_sensitivity_exact`."""
    import time

    from scipy import sparse
    from scipy.optimize import Bounds, LinearConstraint, milp

    lo, hi, before = prob.lo, prob.hi, prob.before
    m, n = prob.x.shape
    lowest = np.minimum(prob.d * lo, prob.d * hi).sum(axis=1)  # most negative d . a over the box
    can = lowest < prob.slack  # pairs that may be reversible (rounding resolved in their favour)
    if not can.any():
        return _finish_cardinal(prob, hi.copy(), "milp", upper=0, finished=True, seconds=time.perf_counter() - t0)
    cand = list(zip(prob.upper_i[can].tolist(), prob.lower_j[can].tolist()))
    d, sigma = prob.d[can], prob.slack[can]
    k_count = len(cand)
    big_m = np.maximum(d * lo, d * hi).sum(axis=1) + sigma
    # variables: a (n), y (k); row k: d_k . a + (M_k - sigma_k) y_k <= M_k
    rows = [sparse.hstack([sparse.csr_matrix(d), sparse.diags(big_m - sigma)]).tocsr()]
    lb = [np.full(k_count, -np.inf)]
    ub = [big_m]
    if triangle_cuts is None:
        triangle_cuts = m <= 40
    if triangle_cuts:
        tri_rows, tri_cols, tri_vals, tri_ub = _triangle_cuts(before, cand, n)
        if tri_ub:
            rows.append(sparse.csr_matrix((tri_vals, (tri_rows, tri_cols)), shape=(len(tri_ub), n + k_count)))
            lb.append(np.full(len(tri_ub), -np.inf))
            ub.append(np.array(tri_ub))
    a_matrix = sparse.vstack([sparse.csr_matrix(r) for r in rows]).tocsr()
    constraint = LinearConstraint(a_matrix, np.concatenate(lb), np.concatenate(ub))
    cost = np.concatenate([np.zeros(n), -np.ones(k_count)])
    integrality = np.concatenate([np.zeros(n), np.ones(k_count)])
    bounds = Bounds(np.concatenate([lo, np.zeros(k_count)]), np.concatenate([hi, np.ones(k_count)]))
    res = milp(cost, constraints=constraint, integrality=integrality, bounds=bounds,
               options={"time_limit": float(time_limit), "mip_rel_gap": 0.0, "disp": False})
    if res.x is None:
        raise RuntimeError(f"the MILP solver returned no solution: {res.message}")
    chosen = np.flatnonzero(res.x[n:] > 0.5)
    a = _widest_margin(prob, d[chosen], np.clip(res.x[:n], lo, hi))
    dual = getattr(res, "mip_dual_bound", None)
    upper = int(np.floor(-dual + 1e-6)) if dual is not None and np.isfinite(dual) else k_count
    return _finish_cardinal(prob, a, "milp", upper=min(upper, k_count), finished=res.status == 0,
                            seconds=time.perf_counter() - t0)


def _widest_margin(prob: _CardinalProblem, d: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Weights in the box that satisfy every condition of ``d`` with the widest margin.

    Maximise t subject to d_k . a + t <= 0 (a in the box).  The solution keeps
    every chosen reversal away from rounding; it is used only when it is at
    least as good as ``a`` by the robust count (otherwise, or with no pairs,
    ``a`` is returned unchanged).
    """
    from scipy.optimize import linprog

    if len(d) == 0:
        return a
    n = d.shape[1]
    scale = np.abs(d).max(axis=1, keepdims=True)  # rows of comparable size for the LP
    lp = linprog(np.r_[np.zeros(n), -1.0], A_ub=np.hstack([d / scale, np.ones((len(d), 1))]), b_ub=np.zeros(len(d)),
                 bounds=list(zip(prob.lo, prob.hi)) + [(None, 1e6)], method="highs")
    if lp.status != 0 or -lp.fun <= 0:
        return a
    wide = np.clip(lp.x[:n], prob.lo, prob.hi)
    return wide if prob.robust_count(wide) >= prob.robust_count(a) else a


def _cardinal_boxes(prob: _CardinalProblem, time_limit: float, seed: int, t0: float,
                    cells: float = 2e7) -> CardinalSensitivity:
    """Branch and bound over boxes of weights (see :func:`cardinal_sensitivity_exact`).

    Pruning compares a box's bound (pairs that may satisfy the condition
    somewhere in it, rounding resolved in their favour) with the incumbent's
    robust count (pairs that satisfy it beyond rounding), so float error can
    only keep a box open, never discard the optimum.
    """
    import time

    lo, hi, d, slack = prob.lo, prob.hi, prob.d, prob.slack
    n = d.shape[1]
    d_pos, d_neg, d_abs = np.maximum(d, 0.0), np.minimum(d, 0.0), np.abs(d)
    # first incumbent: exact coordinate search from a few seeded random starts
    rng = np.random.default_rng(seed)
    best_a, best = hi.copy(), prob.robust_count(hi)
    for _ in range(8):
        a, _ = _coordinate_polish(d, np.exp(rng.uniform(np.log(lo), np.log(hi))), lo, hi, rng)
        count = prob.robust_count(a)
        if count > best:
            best_a, best = a, count
    # one face per weight: a_t at its upper end
    box_lo, box_hi = np.tile(lo, (n, 1)), np.tile(hi, (n, 1))
    box_lo[np.arange(n), np.arange(n)] = hi
    batch = int(max(16, cells // len(d)))
    finished = True
    while len(box_lo):
        if time.perf_counter() - t0 > time_limit:
            finished = False
            break
        lo_b, hi_b = box_lo[-batch:], box_hi[-batch:]
        box_lo, box_hi = box_lo[:-batch], box_hi[:-batch]
        reachable = (d_pos @ lo_b.T + d_neg @ hi_b.T) < slack[:, None]  # pairs x boxes: possible somewhere in the box
        bound = reachable.sum(axis=0)
        centre = (lo_b + hi_b) / 2
        at_centre = (d @ centre.T < -slack[:, None]).sum(axis=0)
        k = int(np.argmax(at_centre))
        if at_centre[k] > best:
            best_a, best = centre[k], int(at_centre[k])
        keep = bound > best
        if not keep.any():
            continue
        lo_b, hi_b, reachable = lo_b[keep], hi_b[keep], reachable[:, keep]
        undecided = reachable & ((d_pos @ hi_b.T + d_neg @ lo_b.T) > -slack[:, None])  # sign changes inside
        width = d_abs.T @ undecided  # weights x boxes: how much each width loosens the bound
        split = np.argmax(width * (hi_b - lo_b).T, axis=0)
        rows = np.arange(len(lo_b))
        mid = (lo_b[rows, split] + hi_b[rows, split]) / 2
        left_hi, right_lo = hi_b.copy(), lo_b.copy()
        left_hi[rows, split], right_lo[rows, split] = mid, mid
        box_lo = np.concatenate([box_lo, lo_b, right_lo])
        box_hi = np.concatenate([box_hi, left_hi, hi_b])
    upper = best
    for start in range(0, len(box_lo), batch):  # bound over the boxes left open at the time limit
        reachable = (d_pos @ box_lo[start:start + batch].T + d_neg @ box_hi[start:start + batch].T) < slack[:, None]
        upper = max(upper, int(reachable.sum(axis=0).max()))
    best_a = _widest_margin(prob, d[d @ best_a < -slack], best_a)
    return _finish_cardinal(prob, best_a, "boxes", upper=upper, finished=finished, seconds=time.perf_counter() - t0)


def _triangle_cuts(before: np.ndarray, cand: list, offset: int):
    """Transitivity cuts among reversal binaries (sparse triplets).

    For models i above j above k originally, a new order that puts j over i
    and k over j also puts k over i (y_ij + y_jk - y_ik <= 1), and one that
    keeps i over j and j over k keeps i over k (y_ik <= y_ij + y_jk).  Pairs
    that cannot be reversed are fixed at 0 and simply left out.
    """
    index = {p: t for t, p in enumerate(cand)}
    order = [int(i) for i in np.argsort(before, kind="stable")]
    rows, cols, vals, ub = [], [], [], []
    r = 0
    m = len(order)
    for a_i in range(m):
        i = order[a_i]
        for b_i in range(a_i + 1, m):
            j = order[b_i]
            if not before[i] < before[j]:
                continue
            ij = index.get((i, j))
            for c_i in range(b_i + 1, m):
                k = order[c_i]
                if not before[j] < before[k]:
                    continue
                jk, ik = index.get((j, k)), index.get((i, k))
                if ij is not None and jk is not None:
                    entries = [(ij, 1.0), (jk, 1.0)] + ([(ik, -1.0)] if ik is not None else [])
                    for col, v in entries:
                        rows.append(r), cols.append(offset + col), vals.append(v)
                    ub.append(1.0)
                    r += 1
                if ik is not None:
                    entries = [(ik, 1.0)] + ([(ij, -1.0)] if ij is not None else []) + \
                              ([(jk, -1.0)] if jk is not None else [])
                    for col, v in entries:
                        rows.append(r), cols.append(offset + col), vals.append(v)
                    ub.append(0.0)
                    r += 1
    return rows, cols, vals, ub


# --------------------------------------------------------------------------- ordinal


def default_protected(scores: Any, higher_is_better: Any = True, share: float = 0.2) -> list:
    """The top ``share`` of the models by strict mean win rate (at least 2): Zhang & Hardt's protected set.

    Raises
    ------
    ValueError
        When two models share no task (the strict win rates, and so the
        default protected set, are undefined: pass ``protected`` explicitly).

    Examples
    --------
    >>> default_protected([[5.0], [4.0], [3.0], [2.0], [1.0]], share=0.4)
    [0, 1]
    """
    share = check_number(share, "share", low=0.0, high=1.0, low_open=True, high_open=True)
    mat = as_score_matrix(scores, allow_nan=True)
    direction = as_direction(higher_is_better, mat.shape[1], mat.tasks if isinstance(higher_is_better, pd.Series) else None)
    try:
        rates = np.asarray(mean_win_rate(mat.values, direction))
    except ValueError as exc:
        raise ValueError(f"the default protected set (top {share:.0%} by strict mean win rate) is undefined: {exc}. "
                         "Pass the protected models explicitly") from None
    order = np.argsort(-rates, kind="stable")
    p = max(2, int(mat.shape[0] * share))
    return [mat.models[i] for i in order[:p]]


@dataclass(frozen=True)
class OrdinalSensitivity:
    """Result of :func:`ordinal_sensitivity` or :func:`ordinal_sensitivity_exact`.

    Attributes
    ----------
    tau, mrc : float
        Kendall tau distance and maximum rank change between the protected
        models' ranking among themselves and after ``added`` join the field.
    n_flipped : int
        Number of protected pairs reversed.
    added : tuple
        The models added to the field.
    protected : list
    ranking_before, ranking_after : Series
        Ranks of the protected models (1 = best).
    method : str
        ``"relaxation"``, ``"milp"`` or ``"enumeration"``.
    restarts : int
    upper_bound : float or None
        Certified upper bound on tau (exact methods).
    optimal : bool
    seconds : float
    """

    tau: float
    mrc: float
    n_flipped: int
    added: tuple
    protected: list
    ranking_before: Any
    ranking_after: Any
    method: str
    restarts: int = 0
    upper_bound: float | None = None
    optimal: bool = False
    seconds: float = 0.0
    pool: list = field(default_factory=list, repr=False)


def _ordinal_setup(scores, protected, higher_is_better):
    scores = as_score_frame(scores, allow_nan=True)
    if protected is None:
        protected = default_protected(scores, higher_is_better)
    protected = as_label_list(protected, "protected", scores.index)
    if len(protected) < 2:
        raise ValueError(f"the protected set needs at least 2 models, got {len(protected)}")
    pool = [x for x in scores.index if x not in set(protected)]
    if not pool:
        raise ValueError("every model is protected: there is nothing to add")
    fm = field_margins(scores, protected, pool, higher_is_better)
    return scores, protected, pool, fm


def _finish_ordinal(scores, protected, pool, fm, chosen, higher_is_better, method, restarts=0, upper=None,
                    optimal=False, seconds=0.0):
    """Recount an added set exactly from the field margins (integers; only protected models' comparisons enter).

    A protected pair is reversed when its integer margin changes sign strictly;
    a pair tied before or after never counts (the notion every ordinal solver uses).
    """
    chosen = sorted(int(k) for k in chosen)
    added = tuple(pool[k] for k in chosen)
    own = [int(v) for v in np.ravel(fm.own)]
    after_totals = [own[a] + sum(int(fm.contrib[a, k]) for k in chosen) for a in range(len(protected))]
    before = pd.Series(exact_midranks(own), index=pd.Index(protected), name="before")
    after = pd.Series(exact_midranks(after_totals), index=pd.Index(protected), name="after")
    b, f = before.to_numpy(), after.to_numpy()
    n_flipped = int(reversed_pairs(b, f).sum())
    n_pairs = comb(len(protected), 2)
    if upper is not None:
        upper = max(int(upper), n_flipped)
        optimal = optimal and n_flipped == upper
        upper = upper / n_pairs
    return OrdinalSensitivity(tau=n_flipped / n_pairs, mrc=max_rank_change(b, f), n_flipped=n_flipped, added=added,
                              protected=protected, ranking_before=before, ranking_after=after, method=method,
                              restarts=restarts, upper_bound=upper, optimal=optimal, seconds=seconds, pool=pool)


def _ordered_pairs(fm):
    base = np.asarray(fm.base, dtype=float)
    a_idx, b_idx = np.nonzero(base > 0)  # a strictly above b among the protected models
    return a_idx, b_idx


def _toggle_search(base: np.ndarray, inc: np.ndarray, beta: np.ndarray, max_moves: int = 10_000) -> tuple[np.ndarray, int]:
    """Steepest-ascent local search over added sets: toggle the model that reverses most extra pairs.

    ``base + inc @ beta`` are the exact integer margins of the ordered protected
    pairs (negative = reversed); adding model x adds column x of ``inc``,
    removing it subtracts it, so every toggle is scored at once.
    """
    beta = beta.astype(bool).copy()
    margins = base + inc @ beta.astype(np.float64)
    best = int((margins < 0).sum())
    for _ in range(max_moves):
        step = np.where(beta, -1.0, 1.0)[None, :] * inc  # (pairs, q)
        counts = ((margins[:, None] + step) < 0).sum(axis=0)
        k = int(np.argmax(counts))
        if counts[k] <= best:
            break
        margins = margins + step[:, k]
        beta[k] = ~beta[k]
        best = int(counts[k])
    return beta, best


def ordinal_sensitivity(
    scores: Any,
    protected: Sequence | None = None,
    higher_is_better: Any = True,
    *,
    restarts: int = 32,
    steps: int = 100,
    lr: float = 0.1,
    lam: float = 0.01,
    polish: bool = True,
    kicks: int = 10,
    seed: int = 0,
) -> OrdinalSensitivity:
    r"""Ordinal sensitivity by the straight-through relaxation of Zhang & Hardt (Algorithm 2), batched.

    Each restart keeps logits :math:`\theta` over the pool; at every step it
    samples :math:`\beta \sim \mathrm{Bernoulli}(\sigma(\theta))`, passes
    gradients straight through the sample (:math:`\beta + q - \mathrm{sg}(q)`),
    computes the protected models' win rates in the field

    .. math::

        \bar w'_i = \frac{\sum_{j \in P} w_{ij} + \sum_{x} \beta_x w_{ix}}{|P| + \sum_x \beta_x}

    (eq. 11 with its parentheses restored) and the hinge loss of eq. 13.
    Every sampled subset is scored exactly (integer arithmetic, see
    :func:`benchvote.axioms.field_margins`) and the best one of each restart
    is kept.  With ``polish=True`` a local search then toggles one model at a
    time, always the one that reverses the most additional pairs, from each
    restart's best subset, and retries from ``kicks`` random perturbations.

    Parameters
    ----------
    scores : DataFrame
        Models x tasks (missing cells allowed: pairs are compared on shared tasks).
    protected : sequence, optional
        Default :func:`default_protected` (top 20 percent).
    higher_is_better : bool or sequence of bool
    restarts, steps, lr, lam, seed
        Optimiser settings (``lam`` = the paper's :math:`\lambda = 0.01`).
    polish : bool
        Local search after the relaxation.
    kicks : int
        Random perturbations (one to three models toggled) tried after each
        local search; a perturbation is kept when the search from it is no worse.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({f"t{k}": ([2.0, 3.0, 1.0] if k <= 3 else [3.0, 1.0, 2.0]) for k in range(1, 6)},
    ...                  index=["A", "B", "C"])
    >>> r = ordinal_sensitivity(s, ["A", "B"], restarts=4, steps=20)
    >>> r.added, r.tau
    (('C',), 1.0)
    """
    import time

    import torch

    t0 = time.perf_counter()
    restarts = check_number(restarts, "restarts", low=1, integer=True)
    steps = check_number(steps, "steps", low=0, integer=True)
    kicks = check_number(kicks, "kicks", low=0, integer=True)
    lr = check_number(lr, "lr", low=0.0, low_open=True)
    lam = check_number(lam, "lam", low=0.0)
    seed = check_number(seed, "seed", low=0, integer=True)
    scores, protected, pool, fm = _ordinal_setup(scores, protected, higher_is_better)
    p, q = len(protected), len(pool)
    if not (np.asarray(fm.base, dtype=float) > 0).any():  # every protected pair ties: nothing can be reversed
        return _finish_ordinal(scores, protected, pool, fm, [], higher_is_better, "relaxation", restarts=0,
                               seconds=time.perf_counter() - t0)
    own = torch.tensor(np.array([float(v) for v in np.ravel(fm.own)]), dtype=torch.float64) / fm.scale
    contrib = torch.tensor(np.array(fm.contrib, dtype=float), dtype=torch.float64) / fm.scale  # (p, q)
    a_idx, b_idx = _ordered_pairs(fm)
    base_i = torch.tensor(np.array([int(fm.base[a, b]) for a, b in zip(a_idx, b_idx)], dtype=np.float64))
    inc_i = torch.tensor(np.array([[int(v) for v in fm.increments[a, b]] for a, b in zip(a_idx, b_idx)],
                                  dtype=np.float64).reshape(len(a_idx), q))
    gen = torch.Generator().manual_seed(int(seed))
    theta = torch.randn(restarts, q, generator=gen, dtype=torch.float64)
    theta[0] = 0.0
    theta.requires_grad_(True)
    opt = torch.optim.Adam([theta], lr=lr)
    best_counts = torch.full((restarts,), -1, dtype=torch.long)
    best_betas = torch.zeros(restarts, q, dtype=torch.float64)
    a_t, b_t = torch.tensor(a_idx), torch.tensor(b_idx)

    def score(beta: torch.Tensor) -> None:
        with torch.no_grad():
            margins = base_i[None, :] + beta @ inc_i.T  # (R, pairs), exact integers in float64
            counts = (margins < 0).sum(dim=1)
            better = counts > best_counts
            best_counts[better] = counts[better]
            best_betas[better] = beta[better]

    for _ in range(steps):
        probs = torch.sigmoid(theta)
        sample = torch.bernoulli(probs.detach(), generator=gen)
        beta = sample + probs - probs.detach()
        rates = (own[None, :] + beta @ contrib.T) / (p + beta.sum(dim=1, keepdim=True))  # (R, p)
        hinge = torch.clamp(rates[:, a_t] - rates[:, b_t], min=-lam)
        opt.zero_grad()
        hinge.sum().backward()
        opt.step()
        score(sample)
    score((torch.sigmoid(theta) > 0.5).to(torch.float64).detach())
    candidates = [b.astype(bool) for b in best_betas.numpy()]
    method = "relaxation"
    if polish:
        base_np, inc_np = base_i.numpy(), inc_i.numpy()
        rng = np.random.default_rng(seed)
        polished = []
        for b in candidates:
            b, count = _toggle_search(base_np, inc_np, b)
            for _ in range(kicks):  # iterated local search: perturb a few models, search again, keep if better
                trial = b.copy()
                flip = rng.choice(q, size=min(q, int(rng.integers(1, 4))), replace=False)
                trial[flip] = ~trial[flip]
                trial, trial_count = _toggle_search(base_np, inc_np, trial)
                if trial_count >= count:
                    b, count = trial, trial_count
            polished.append(b)
        candidates = polished
        method = "relaxation+polish"
    base_np, inc_np = base_i.numpy(), inc_i.numpy()
    flips = [int(((base_np + inc_np @ b.astype(np.float64)) < 0).sum()) for b in candidates]
    best_beta = candidates[int(np.argmax(flips))]
    return _finish_ordinal(scores, protected, pool, fm, np.flatnonzero(best_beta), higher_is_better,
                           method, restarts=restarts, seconds=time.perf_counter() - t0)


def ordinal_sensitivity_exact(
    scores: Any,
    protected: Sequence | None = None,
    higher_is_better: Any = True,
    *,
    method: str = "auto",
    time_limit: float = 60.0,
    max_enumeration: int = 20,
) -> OrdinalSensitivity:
    r"""The true ordinal sensitivity, by enumerating every subset or by a mixed-integer program.

    Protected pair :math:`(a, b)`, :math:`a` above :math:`b`, is reversed by
    the added set :math:`\beta` exactly when
    :math:`D_{ab} + \sum_x \beta_x \delta_{ab}(x) < 0` in the exact integer
    units of :func:`benchvote.axioms.field_margins`.  ``method="enumerate"``
    checks all :math:`2^q` subsets of a pool of :math:`q \le` ``max_enumeration``
    models (vectorised); ``method="milp"`` maximises the number of reversed
    pairs with binaries for the added models and the reversals, and
    ``"auto"`` picks enumeration for small pools.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({f"t{k}": ([2.0, 3.0, 1.0] if k <= 3 else [3.0, 1.0, 2.0]) for k in range(1, 6)},
    ...                  index=["A", "B", "C"])
    >>> r = ordinal_sensitivity_exact(s, ["A", "B"])
    >>> r.added, r.tau, r.optimal
    (('C',), 1.0, True)
    """
    import time

    t0 = time.perf_counter()
    check_choice(method, "method", ("auto", "enumerate", "milp"))
    time_limit = check_number(time_limit, "time_limit", low=0.0, low_open=True)
    max_enumeration = check_number(max_enumeration, "max_enumeration", low=0, high=26, integer=True)
    scores, protected, pool, fm = _ordinal_setup(scores, protected, higher_is_better)
    q = len(pool)
    a_idx, b_idx = _ordered_pairs(fm)
    if method == "auto":
        method = "enumerate" if q <= max_enumeration else "milp"
    if len(a_idx) == 0:
        return _finish_ordinal(scores, protected, pool, fm, [], higher_is_better, method, upper=0, optimal=True,
                               seconds=time.perf_counter() - t0)
    base = np.array([int(fm.base[a, b]) for a, b in zip(a_idx, b_idx)], dtype=object)
    inc = np.array([[int(v) for v in fm.increments[a, b]] for a, b in zip(a_idx, b_idx)], dtype=object)
    if method == "enumerate":
        if q > 26:
            raise ValueError(f"enumeration over 2^{q} subsets is too large; use method='milp'")
        best_count, best_mask = -1, 0
        chunk = 1 << 16
        inc_f = inc.astype(np.float64)
        base_f = base.astype(np.float64)
        if np.abs(inc_f).sum(axis=1).max() + np.abs(base_f).max() >= 2**52:
            raise ValueError("win counts too large for exact enumeration in floating point; use method='milp'")
        bits = (1 << np.arange(q, dtype=np.int64))
        for start in range(0, 1 << q, chunk):
            masks = np.arange(start, min(start + chunk, 1 << q), dtype=np.int64)
            beta = ((masks[:, None] & bits[None, :]) > 0).astype(np.float64)
            counts = ((base_f[None, :] + beta @ inc_f.T) < 0).sum(axis=1)
            k = int(np.argmax(counts))
            if counts[k] > best_count:
                best_count, best_mask = int(counts[k]), int(masks[k])
        chosen = [k for k in range(q) if best_mask >> k & 1]
        return _finish_ordinal(scores, protected, pool, fm, chosen, higher_is_better, "enumeration",
                               upper=best_count, optimal=True, seconds=time.perf_counter() - t0)

    from scipy.optimize import Bounds, LinearConstraint, milp

    k_count = len(a_idx)
    unit = float(max(1, max(abs(int(v)) for v in np.ravel(inc).tolist() + list(base))))
    inc_f = inc.astype(np.float64) / unit
    base_f = base.astype(np.float64) / unit
    margin = 0.5 / unit  # integers: < 0 means <= -1
    big_m = base_f + np.clip(inc_f, 0, None).sum(axis=1) + margin
    # y_k = 1  =>  base_k + inc_k . beta <= -margin
    a_mat = np.hstack([inc_f, np.diag(big_m)])
    constraint = LinearConstraint(a_mat, -np.inf, big_m - margin - base_f)
    cost = np.concatenate([np.zeros(q), -np.ones(k_count)])
    res = milp(cost, constraints=constraint, integrality=np.ones(q + k_count),
               bounds=Bounds(np.zeros(q + k_count), np.ones(q + k_count)),
               options={"time_limit": float(time_limit), "mip_rel_gap": 0.0, "disp": False})
    if res.x is None:
        raise RuntimeError(f"the MILP solver returned no solution: {res.message}")
    chosen = list(np.flatnonzero(res.x[:q] > 0.5))
    dual = getattr(res, "mip_dual_bound", None)
    upper_pairs = int(np.floor(-dual + 1e-6)) if dual is not None and np.isfinite(dual) else k_count
    # the program relaxes "margin < 0" only within the solver's tolerance, so its dual bound is valid;
    # the added set is recounted exactly and proven optimal only when the recount meets that bound
    return _finish_ordinal(scores, protected, pool, fm, chosen, higher_is_better, "milp",
                           upper=min(upper_pairs, k_count), optimal=res.status == 0, seconds=time.perf_counter() - t0)


# --------------------------------------------------------------------------- diversity companions


def subset_agreement(
    scores: Any,
    sizes: Sequence[int] = (1, 2, 3, 4, 5, 6),
    higher_is_better: Any = True,
    *,
    kind: str = "cardinal",
    samples: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """How closely small random subsets of the tasks reproduce the full ranking (Zhang & Hardt, Appendix D).

    For each size, ``samples`` random task subsets are drawn (all of them when
    there are fewer), each subset ranks the models (mean score for
    ``kind="cardinal"``, strict mean win rate for ``"ordinal"``), and the
    smallest Kendall tau distance and maximum rank change to the full
    ranking are reported.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.repeat(np.arange(5.0)[:, None], 4, axis=1)
    >>> subset_agreement(s, sizes=[1], samples=10)["min_tau"].tolist()
    [0.0]
    """
    from itertools import combinations

    check_choice(kind, "kind", ("cardinal", "ordinal"))
    samples = check_number(samples, "samples", low=1, integer=True)
    seed = check_number(seed, "seed", low=0, integer=True)
    if sizes is None or isinstance(sizes, (str, bytes)):
        raise TypeError(f"sizes must be a list of subset sizes, got {sizes!r}")
    sizes = [check_number(k, "sizes", low=1, integer=True) for k in sizes]
    mat = as_score_matrix(scores, allow_nan=kind == "ordinal")
    direction = as_direction(higher_is_better, mat.shape[1], mat.tasks if isinstance(higher_is_better, pd.Series) else None)
    n = mat.shape[1]

    m = mat.shape[0]
    if kind == "ordinal":
        # per-task head-to-head wins and comparisons, so that a subset only needs a sum
        r = rank(mat.values, direction, nan_policy="omit")
        seen = ~np.isnan(r)
        wins = np.zeros((n, m, m), dtype=np.int16)
        compared = np.zeros((n, m, m), dtype=np.int16)
        for k in range(n):
            rk = np.where(seen[:, k], r[:, k], np.inf)
            both = seen[:, k][:, None] & seen[:, k][None, :]
            wins[k] = both & (rk[:, None] < rk[None, :])
            compared[k] = both
        off = ~np.eye(m, dtype=bool)

    def ranking(cols):
        if kind == "cardinal":
            return rank(mat.values[:, cols].mean(axis=1))
        w, c = wins[cols].sum(axis=0), compared[cols].sum(axis=0)
        if (c[off] == 0).any():
            raise ValueError("two models share no task in this subset")
        rate = np.where(off, w / np.maximum(c, 1), 0.0).sum(axis=1) / m
        return rank(rate)

    full = ranking(np.arange(n))
    rng = np.random.default_rng(seed)
    rows = []
    for size in sizes:
        if not 1 <= size <= n:
            raise ValueError(f"subset sizes must lie in 1..{n}, got {size}")
        if comb(n, size) <= samples:
            subsets = [list(c) for c in combinations(range(n), size)]
        else:
            subsets = [sorted(rng.choice(n, size=size, replace=False)) for _ in range(samples)]
        taus, mrcs = [], []
        for cols in subsets:
            try:
                r = ranking(np.array(cols))
            except ValueError:
                continue  # e.g. two models that share no task in this subset
            taus.append(kendall_tau_distance(full, r))
            mrcs.append(max_rank_change(full, r))
        rows.append({"size": size, "subsets": len(taus), "min_tau": min(taus), "min_mrc": min(mrcs),
                     "median_tau": float(np.median(taus))})
    return pd.DataFrame(rows).set_index("size")


def no_intercept_fit(x: Any, y: Any) -> tuple[float, float]:
    r"""Slope of the least-squares line through the origin and Pearson's r.

    .. math::

        \hat b = \frac{\sum_i x_i y_i}{\sum_i x_i^2}.

    Examples
    --------
    >>> slope, r = no_intercept_fit([1.0, 2.0, 3.0], [2.0, 4.0, 6.0])
    >>> slope, round(r, 12)
    (2.0, 1.0)
    """
    from scipy.stats import pearsonr

    xa = as_vector(x, name="x", min_length=3)
    ya = as_vector(y, name="y", length=len(xa))
    if np.ptp(xa) == 0 or np.ptp(ya) == 0:
        which = "x" if np.ptp(xa) == 0 else "y"
        raise ValueError(f"{which} is constant: the slope through the origin may exist but Pearson's r is undefined")
    slope = float(xa @ ya / (xa @ xa))
    return slope, float(pearsonr(xa, ya).statistic)
