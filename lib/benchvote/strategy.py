r"""Strategic effort on a cardinal benchmark: the water-filling allocation.

A model builder spends one unit of effort :math:`x_t \ge 0` across tasks;
effort on task :math:`t` improves its score by a concave, differentiable,
non-decreasing :math:`f_t(x_t)` (diminishing returns).  Under a mean-score
leaderboard the builder solves

.. math::

    \max_{x \ge 0} \sum_t f_t(x_t) \quad\text{subject to}\quad \sum_t x_t = B.

The Karush-Kuhn-Tucker conditions say that at the optimum every task that
gets effort has the same marginal return :math:`f_t'(x_t) = \lambda^\star`
(the *water level*), and every task left out has :math:`f_t'(0) \le \lambda^\star`
(Hardt's textbook chapter).  Lowering :math:`\lambda` from the largest
:math:`f_t'(0)` spends more and more effort, task by task, until the budget
is used: the effort is typically concentrated on a few tasks with the highest
returns, the "easy" ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ._validation import check_number

__all__ = ["WaterFilling", "water_filling"]


@dataclass(frozen=True)
class WaterFilling:
    """Result of :func:`water_filling`.

    Attributes
    ----------
    allocation : ndarray
        Effort per task, summing to the budget.
    level : float
        The common marginal return :math:`\\lambda^\\star` of the tasks that get effort.
    active : ndarray of bool
        Tasks with positive effort.
    """

    allocation: np.ndarray
    level: float
    active: np.ndarray


def _inverse_by_bisection(fprime: Callable[[float], float], level: float, budget: float, iters: int = 80) -> float:
    """x in [0, budget] with f'(x) = level for a non-increasing f' (clipped to the ends)."""
    if fprime(0.0) <= level:
        return 0.0
    if fprime(budget) >= level:
        return budget
    lo, hi = 0.0, budget
    for _ in range(iters):
        mid = (lo + hi) / 2
        if fprime(mid) > level:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def water_filling(
    marginal_returns: Sequence[Callable[[float], float]],
    budget: float = 1.0,
    *,
    inverses: Sequence[Callable[[float], float] | None] | None = None,
    convergence_tol: float = 1e-12,
    check_points: int = 33,
) -> WaterFilling:
    r"""Optimal effort allocation for concave task improvements (water filling).

    Parameters
    ----------
    marginal_returns : sequence of callables
        :math:`f_i'`, each non-increasing on :math:`[0, B]` (concave :math:`f_i`).
    budget : float
        Total effort :math:`B > 0`.
    inverses : sequence of callables or None, optional
        :math:`(f_i')^{-1}`: the effort at which task i's marginal return equals a
        given level.  When missing for a task, it is found by bisection.
    convergence_tol : float
        Accuracy of the water level (bisection on :math:`\lambda`).
    check_points : int
        Points of :math:`[0, B]` at which each :math:`f_i'` is checked to be non-increasing.

    Returns
    -------
    WaterFilling

    Raises
    ------
    ValueError
        For a non-positive budget, no task, or a marginal return that increases
        somewhere on :math:`[0, B]` (the improvement is not concave).

    Examples
    --------
    Two tasks with :math:`f_1 = 2\sqrt{x}` and :math:`f_2 = \sqrt{x}`: effort goes
    4:1 to the first task, where returns are higher.

    >>> import numpy as np
    >>> r = water_filling([lambda x: 1 / np.sqrt(max(x, 1e-300)), lambda x: 0.5 / np.sqrt(max(x, 1e-300))])
    >>> np.round(r.allocation, 6).tolist(), round(r.level, 4)
    ([0.8, 0.2], 1.118)

    With returns that start lower than the others' level, a task gets nothing:

    >>> r = water_filling([lambda x: 3 - x, lambda x: 1 - x])
    >>> r.allocation.tolist(), r.active.tolist(), r.level
    ([1.0, 0.0], [True, False], 2.0)
    """

    if marginal_returns is None or isinstance(marginal_returns, (str, bytes)):
        raise TypeError("marginal_returns must be a sequence of callables")
    fps = list(marginal_returns)
    if not fps:
        raise ValueError("marginal_returns needs at least one task")
    bad = [i for i, fp in enumerate(fps) if not callable(fp)]
    if bad:
        raise TypeError(f"marginal_returns must hold callables; entry {bad[0]} is {type(fps[bad[0]]).__name__}")
    budget = check_number(budget, "budget", low=0.0, low_open=True)
    convergence_tol = check_number(convergence_tol, "convergence_tol", low=0.0, low_open=True)
    check_points = check_number(check_points, "check_points", low=2, integer=True)
    inv = list(inverses) if inverses is not None else [None] * len(fps)
    if len(inv) != len(fps):
        raise ValueError("inverses must have one entry (or None) per task")
    grid = np.linspace(0.0, budget, check_points)
    for i, fp in enumerate(fps):
        values = np.array([fp(float(x)) for x in grid], dtype=float)
        if not np.isfinite(values[1:]).all():
            raise ValueError(f"marginal return of task {i} is not finite on (0, budget]")
        finite = values[np.isfinite(values)]
        if (np.diff(finite) > 1e-12 * (1 + np.abs(finite[:-1]))).any():
            raise ValueError(f"marginal return of task {i} increases on [0, budget]: the improvement is not concave")

    def effort(level: float) -> np.ndarray:
        out = np.empty(len(fps))
        for i, (fp, g) in enumerate(zip(fps, inv)):
            if g is None:
                out[i] = _inverse_by_bisection(fp, level, budget)
            else:
                out[i] = 0.0 if fp(0.0) <= level else float(np.clip(g(level), 0.0, budget))
        return out

    starts = np.array([fp(0.0) for fp in fps], dtype=float)
    ends = np.array([fp(budget) for fp in fps], dtype=float)
    # bracket the water level: at `hi` no task gets effort, below `lo` every task takes the whole budget
    hi = float(np.max(np.where(np.isfinite(starts), starts, np.max(ends) + 1e6)))
    lo = float(np.min(ends))
    lo -= max(1.0, abs(lo)) * 1e-6  # strictly below every flat stretch, so effort(lo) is the largest allocation
    # effort(level) is non-increasing in level; bisect until the bracket is tight
    for _ in range(4000):
        if hi - lo <= convergence_tol * (1 + abs(lo)):
            break
        # bisect geometrically while the bracket spans orders of magnitude (f'(0) may be huge)
        mid = float(np.sqrt(lo * hi)) if lo > 0 and hi > 4 * lo else (lo + hi) / 2
        if effort(mid).sum() > budget:
            lo = mid
        else:
            hi = mid
    # At the water level a task with a flat stretch of marginal return (a linear f) can take any effort
    # between its allocation just above the level and just below it.  The allocations at the two ends of
    # the bracket both satisfy the KKT conditions up to the bracket's width; the one mix of them that
    # spends exactly the budget is optimal (effort flows to the flat tasks, not to one of them by chance).
    x_hi, x_lo = effort(hi), effort(lo)
    spend_hi, spend_lo = x_hi.sum(), x_lo.sum()
    if spend_lo - spend_hi > 1e-12 * budget:
        theta = float(np.clip((budget - spend_hi) / (spend_lo - spend_hi), 0.0, 1.0))
        x = x_hi + theta * (x_lo - x_hi)
    else:
        x = x_hi
    x[x < 1e-9 * budget] = 0.0
    total = x.sum()
    if total <= 0:  # cannot happen for a bracket that spends the budget below, kept as a guard
        x[np.argmax(starts)] = budget
    else:
        x = x * (budget / total)  # remove the bisection's last rounding
    active = x > 0
    # the water level is the common marginal return of the tasks that get effort
    level = float(np.mean([fps[i](float(x[i])) for i in np.flatnonzero(active)]))
    return WaterFilling(allocation=x, level=level, active=active)
