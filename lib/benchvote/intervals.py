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
from typing import Any

import numpy as np
import pandas as pd

from ._validation import as_score_matrix, check_nan_policy, check_number, check_tol, direction_of, split_table
from .aggregation import mean_win_rate
from .ranking import DEFAULT_TIE_TOLERANCE, rank

__all__ = ["RankIntervals", "rank_intervals"]


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
    bootstrap ranks (``numpy.quantile`` with ``method="inverted_cdf"``, so the
    ends are ranks that occurred).

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x tasks.
    higher_is_better : bool or sequence of bool
        Direction of every task (it travels with its column when redrawn).
    rule : callable
        ``rule(scores, higher_is_better)`` -> one number per model, higher =
        better (default :func:`benchvote.mean_win_rate`).
    n_boot : int
        Number of redraws :math:`B`.
    level : float in (0, 1)
        Coverage of each interval, and the share of redraws that separates a pair.
    tol : float
        Tie tolerance of the rankings.
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
    scores, higher_is_better = split_table(scores, higher_is_better)
    if not callable(rule):
        raise TypeError(f"rule must be a callable (scores, higher_is_better) -> one number per model, got {rule!r}")
    nan_policy = check_nan_policy(nan_policy)
    n_boot = check_number(n_boot, "n_boot", low=1, integer=True)
    level = check_number(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    tol = check_tol(tol)
    seed = check_number(seed, "seed", low=0, integer=True)
    mat = as_score_matrix(scores, allow_nan=nan_policy == "omit")
    direction = direction_of(mat, higher_is_better)
    m, n = mat.shape

    def ranks_of(columns: np.ndarray) -> np.ndarray:
        values = np.asarray(rule(mat.values[:, columns], direction[columns]), dtype=float)
        if values.shape != (m,):
            raise ValueError(f"rule must return one number per model ({m}), got shape {values.shape}")
        return rank(values, tol=tol)

    full = ranks_of(np.arange(n))
    rng = np.random.default_rng(seed)
    boot = np.empty((n_boot, m))
    done = redrawn = 0
    while done < n_boot:
        columns = rng.integers(0, n, size=n)
        try:
            boot[done] = ranks_of(columns)
        except ValueError:
            if nan_policy == "raise":
                raise
            redrawn += 1
            if redrawn > n_boot:
                raise ValueError(
                    f"the rule refused more than n_boot = {n_boot} redrawn tables; too many missing "
                    "scores for a bootstrap over tasks"
                ) from None
            continue
        done += 1
    lower = np.quantile(boot, (1 - level) / 2, axis=0, method="inverted_cdf")
    upper = np.quantile(boot, (1 + level) / 2, axis=0, method="inverted_cdf")
    above = (boot[:, :, None] < boot[:, None, :]).mean(axis=0)
    order = np.argsort(full, kind="stable")
    inseparable = [
        (mat.models[i], mat.models[j])
        for a, i in enumerate(order)
        for j in order[a + 1 :]
        if above[i, j] < level and above[j, i] < level
    ]

    def wrap(values: np.ndarray) -> Any:
        return pd.Series(values, index=pd.Index(mat.models), name="rank") if mat.labelled else values

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
