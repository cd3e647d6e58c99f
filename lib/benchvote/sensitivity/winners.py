r"""Possible winners: which models some admissible reweighting of the tasks puts first.

Label noise that keeps a share :math:`\alpha_t \in [\varepsilon, 1]` of task
:math:`t`'s labels turns the mean score into the weighted mean
:math:`S_i(\alpha) = \sum_t \alpha_t s_{it} / \sum_t \alpha_t` (the box of
:func:`cardinal_sensitivity`).  Model :math:`i` is a *possible winner* when
some :math:`\alpha` in the box puts it strictly first, by more than the tie
tolerance: :math:`S_i(\alpha) - S_j(\alpha) > \mathrm{tol}` for every other
model :math:`j`.  Multiplying by :math:`\sum_t \alpha_t > 0` makes every
condition linear, :math:`(s_i - s_j - \mathrm{tol}) \cdot \alpha > 0`, so one
linear program per model decides it: maximise :math:`\tau` subject to
:math:`(s_i - s_j - \mathrm{tol}) \cdot \alpha \ge \tau` for all :math:`j`
and :math:`\varepsilon \le \alpha_t \le 1`; :math:`i` is a possible winner
exactly when :math:`\tau^* > 0`.  Vote'n'Rank asks the same question with a
linear program over all weightings; the box here is the label-noise one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_choice, split_table
from ..ranking import DEFAULT_TIE_TOLERANCE
from ._problem import _cardinal_setup, _exact_ranks, _published_weights

__all__ = ["PossibleWinners", "possible_winners"]


@dataclass(frozen=True)
class PossibleWinners:
    """Result of :func:`possible_winners`.

    Attributes
    ----------
    possible : ndarray or Series of bool
        Whether some weighting in the box puts the model strictly first.
    margin : ndarray or Series of float
        The linear program's optimum :math:`\\tau^*` for each model (positive exactly for possible winners).
    weights : dict
        For every possible winner, task weights (one per task, the largest
        equal to 1) that put it first; recounted in exact rational arithmetic.
    eps : float
        Lower end of the weight box.
    normalize : str
        Where the box applies (see :func:`cardinal_sensitivity`).
    """

    possible: Any
    margin: Any
    weights: dict
    eps: float
    normalize: str


def possible_winners(
    scores: Any,
    higher_is_better: Any = True,
    *,
    eps: float | None = None,
    normalize: str = "none",
    tol: float = DEFAULT_TIE_TOLERANCE,
) -> PossibleWinners:
    r"""Which models can be ranked first by some task weighting in the label-noise box.

    See the module docstring for the linear program.  A model reported as a
    possible winner comes with weights whose weighted means are recounted in
    exact rational arithmetic and put it alone in the top tie group of
    :func:`benchvote.rank` (tolerance ``tol``); a model reported as not
    possible has :math:`\tau^* \le 0` at the optimum of HiGHS's linear
    program (``scipy.optimize.linprog``).

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x tasks, no missing scores, no constant task.
    higher_is_better : bool or sequence of bool
        Direction of every task; a lower-is-better task is negated first.
    eps : float in (0, 1), optional
        Smallest share of intact labels (default :func:`default_eps`).
    normalize : {"none", "zscore"}
        Whether the box applies to the published scores or to standardised tasks.
    tol : float
        Tie tolerance: first place must be won by more than ``tol``.

    Returns
    -------
    PossibleWinners

    See Also
    --------
    cardinal_sensitivity

    References
    ----------
    :cite:t:`zhang2024tradeoffs` (the weight box).

    Examples
    --------
    A leads on average, B leads on two of three tasks and C is never best:

    >>> s = [[9.0, 1.0, 1.0], [5.0, 2.0, 2.0], [0.0, 0.0, 0.0]]
    >>> r = possible_winners(s, eps=0.1)
    >>> r.possible.tolist(), sorted(r.weights)
    ([True, True, False], [0, 1])
    """
    from scipy.optimize import linprog

    scores, higher_is_better = split_table(scores, higher_is_better)
    check_choice(normalize, "normalize", ("none", "zscore"))
    prob = _cardinal_setup(scores, higher_is_better, eps, normalize, tol)
    x = prob.x
    m, k = x.shape
    possible = np.zeros(m, dtype=bool)
    margin = np.zeros(m)
    weights: dict = {}
    labelled = prob.mat.labelled
    for i in range(m):
        others = [j for j in range(m) if j != i]
        # rows: -(x_i - x_j - tol nu) . a + tau <= 0 ; variables (a_1..a_k, tau), maximise tau
        d = x[i][None, :] - x[others] - prob.tol * prob.nu[None, :]
        a_ub = np.hstack([-d, np.ones((len(others), 1))])
        bounds = [(lo, hi) for lo, hi in zip(prob.lo, prob.hi)] + [(None, None)]
        scale = float(np.abs(d).sum(axis=1).max()) or 1.0
        res = linprog(
            np.r_[np.zeros(k), -1.0], A_ub=a_ub / scale, b_ub=np.zeros(len(others)), bounds=bounds, method="highs"
        )
        if res.status != 0:  # pragma: no cover - the box is bounded and non-empty
            raise RuntimeError(f"the linear program for model {prob.mat.models[i]!s} failed: {res.message}")
        margin[i] = -res.fun * scale
        if margin[i] > 0:
            full = _published_weights(prob, res.x[:k])
            if _exact_ranks(prob.mat.values, full, prob.tol)[i] == 1.0:  # alone in the top tie group, exactly
                possible[i] = True
                label = prob.mat.models[i]
                weights[label] = pd.Series(full, index=pd.Index(prob.mat.tasks), name="weights") if labelled else full

    def wrap(values: np.ndarray, name: str) -> Any:
        return pd.Series(values, index=pd.Index(prob.mat.models), name=name) if labelled else values

    return PossibleWinners(
        possible=wrap(possible, "possible"),
        margin=wrap(margin, "margin"),
        weights=weights,
        eps=prob.eps,
        normalize=prob.normalize,
    )
