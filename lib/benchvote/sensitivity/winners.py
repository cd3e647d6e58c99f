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

*Top k.*  Model :math:`i` can finish in the top :math:`k` when some
:math:`\alpha` puts at least :math:`m-k` other models strictly below it.
Which models to beat is part of the question, so it is a mixed-integer
program with one binary :math:`z_j` per opponent: maximise :math:`\tau`
subject to :math:`(s_i - s_j - \mathrm{tol}) \cdot \alpha \ge \tau - M_j (1 - z_j)`,
:math:`\sum_j z_j \ge m - k` and the box, with :math:`M_j` large enough that
a row with :math:`z_j = 0` never binds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._quiet import quiet_solver_output
from .._validation import check_choice, check_number, split_table
from ..ranking import DEFAULT_TIE_TOLERANCE
from ._problem import _cardinal_setup, _CardinalProblem, _exact_ranks, _published_weights

__all__ = ["PossibleWinners", "possible_winners"]


@dataclass(frozen=True)
class PossibleWinners:
    """Result of :func:`possible_winners`.

    Attributes
    ----------
    possible : ndarray or Series of bool
        Whether some weighting in the box puts the model strictly first (in
        the top ``k``), proven by weights recounted in exact arithmetic.
    undecided : ndarray or Series of bool
        Models neither proven possible nor ruled out: the program's optimum
        was positive but within the solver's tolerance of zero, so its
        weights failed the exact recount (a model on the edge of the box's
        reach), or the mixed-integer program of ``k > 1`` reached
        ``time_limit``.
    margin : ndarray or Series of float
        The program's optimum :math:`\\tau^*` for each model (the best value
        found when it stopped early); positive for possible winners.
    weights : dict
        For every possible winner, task weights (one per task, the largest
        equal to 1) that put it first (in the top ``k``).
    k : int
        The number of top places asked about.
    eps : float
        Lower end of the weight box.
    normalize : str
        Where the box applies (see :func:`cardinal_sensitivity`).
    """

    possible: Any
    undecided: Any
    margin: Any
    weights: dict
    k: int
    eps: float
    normalize: str


def possible_winners(
    scores: Any,
    higher_is_better: Any = True,
    *,
    k: int = 1,
    eps: float | None = None,
    normalize: str = "none",
    tol: float = DEFAULT_TIE_TOLERANCE,
    time_limit: float | None = None,
) -> PossibleWinners:
    r"""Which models some task weighting in the label-noise box ranks first (or in the top k).

    See the module docstring for the programs.  A model reported as possible
    comes with weights whose weighted means are recounted in exact rational
    arithmetic and leave at least :math:`m-k` models strictly below it in
    :func:`benchvote.rank`'s tie groups (tolerance ``tol``).  For ``k = 1``,
    a model reported as not possible has :math:`\tau^* \le 0` at the optimum
    of HiGHS's linear program (``scipy.optimize.linprog``); a positive optimum
    whose weights fail the recount leaves the model ``undecided``.  For ``k > 1``
    the models already in the top ``k`` of the plain mean and the possible
    winners are settled first; every other model gets a mixed-integer
    program (``scipy.optimize.milp``), and is ruled out only when that
    program is solved to optimality with :math:`\tau^* \le 0`.

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x tasks, no missing scores, no constant task.
    higher_is_better : bool or sequence of bool
        Direction of every task; a lower-is-better task is negated first.
    k : int
        Number of top places, ``1 <= k < m`` (1 = outright winner).
    eps : float in (0, 1), optional
        Smallest share of intact labels (default :func:`default_eps`).
    normalize : {"none", "zscore"}
        Whether the box applies to the published scores or to standardised tasks.
    tol : float
        Tie tolerance: a place must be won by more than ``tol``.
    time_limit : float, optional
        Seconds for all the mixed-integer programs of ``k > 1`` together;
        models left when it runs out are ``undecided``.  No limit by default.

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

    C cannot reach the top two either; it trails both on every task:

    >>> possible_winners(s, k=2, eps=0.1).possible.tolist()
    [True, True, False]
    """
    from scipy.optimize import linprog

    scores, higher_is_better = split_table(scores, higher_is_better)
    check_choice(normalize, "normalize", ("none", "zscore"))
    prob = _cardinal_setup(scores, higher_is_better, eps, normalize, tol)
    x = prob.x
    m, n_cols = x.shape
    top = check_number(k, "k", low=1, integer=True)
    if top >= m:
        raise ValueError(f"k must be smaller than the number of models ({m}), got {k}")
    limit = check_number(time_limit, "time_limit", low=0.0, low_open=True, allow_none=True)
    possible = np.zeros(m, dtype=bool)
    undecided = np.zeros(m, dtype=bool)
    margin = np.zeros(m)
    weights: dict = {}
    labelled = prob.mat.labelled

    def confirm(i: int, merged: np.ndarray) -> bool:
        """Recount the weights exactly; record them when they leave m - k models strictly below i."""
        full = _published_weights(prob, merged)
        exact = _exact_ranks(prob.mat.values, full, prob.tol)
        if int((exact > exact[i]).sum()) < m - top:
            return False
        possible[i] = True
        label = prob.mat.models[i]
        weights[label] = pd.Series(full, index=pd.Index(prob.mat.tasks), name="weights") if labelled else full
        return True

    box = list(zip(prob.lo, prob.hi))
    # j beats i strictly for every weighting in the box exactly when the smallest value of the linear
    # condition over the box, taken coordinate by coordinate, is positive: then i can never pass j
    beaten_by = _always_beaten_by(prob)
    best_weights: dict[int, np.ndarray] = {}
    for i in range(m):
        if beaten_by[i] >= 1:
            margin[i] = np.nan  # ruled out without a program (documented on PossibleWinners.margin)
            continue
        others = [j for j in range(m) if j != i]
        # rows: -(x_i - x_j - tol nu) . a + tau <= 0 ; variables (a_1..a_n, tau), maximise tau
        d = x[i][None, :] - x[others] - prob.tol * prob.nu[None, :]
        a_ub = np.hstack([-d, np.ones((len(others), 1))])
        scale = float(np.abs(d).sum(axis=1).max()) or 1.0
        with quiet_solver_output():
            res = linprog(
                np.r_[np.zeros(n_cols), -1.0],
                A_ub=a_ub / scale,
                b_ub=np.zeros(len(others)),
                bounds=[*box, (None, None)],
                method="highs",
            )
        if res.status != 0:  # pragma: no cover - the box is bounded and non-empty
            raise RuntimeError(f"the linear program for model {prob.mat.models[i]!s} failed: {res.message}")
        margin[i] = -res.fun * scale
        best_weights[i] = res.x[:n_cols]
        if margin[i] > 0:
            # a margin inside the solver's tolerance can fail the exact recount: then neither answer is proven
            undecided[i] = not confirm(i, res.x[:n_cols])
    if top > 1:
        _top_k(prob, top, limit, possible, undecided, margin, confirm, beaten_by, best_weights)

    def wrap(values: np.ndarray, name: str) -> Any:
        return pd.Series(values, index=pd.Index(prob.mat.models), name=name) if labelled else values

    return PossibleWinners(
        possible=wrap(possible, "possible"),
        undecided=wrap(undecided, "undecided"),
        margin=wrap(margin, "margin"),
        weights=weights,
        k=top,
        eps=prob.eps,
        normalize=prob.normalize,
    )


def _top_k(
    prob: _CardinalProblem,
    top: int,
    time_limit: float | None,
    possible: np.ndarray,
    undecided: np.ndarray,
    margin: np.ndarray,
    confirm: Callable[[int, np.ndarray], bool],
    beaten_by: np.ndarray,
    best_weights: dict[int, np.ndarray],
) -> None:
    """Decide "in the top k" for every model the winner programs left open (module docstring).

    Cheap answers first: a model that ``k`` others beat under every weighting
    is out; a possible winner, a model in the top k of the plain mean, or one
    that its own winner program's weights put in the top k is in.  The
    mixed-integer programs share what is left of ``time_limit`` equally.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    x = prob.x
    m, n_cols = x.shape
    start = time.perf_counter()
    undecided[:] = False  # the winner programs' doubts concern first place, not the top k
    open_models = []
    for i in range(m):
        if beaten_by[i] >= top:
            margin[i] = np.nan
            continue
        if possible[i] or confirm(i, prob.hi.copy()) or (i in best_weights and confirm(i, best_weights[i])):
            margin[i] = margin[i] if np.isnan(margin[i]) else max(margin[i], 0.0)
            continue
        open_models.append(i)
    for done, i in enumerate(open_models):
        remaining = None if time_limit is None else time_limit - (time.perf_counter() - start)
        if remaining is not None and remaining <= 0:
            undecided[i] = True
            continue
        share = None if remaining is None else remaining / (len(open_models) - done)
        others = [j for j in range(m) if j != i]
        d = x[i][None, :] - x[others] - prob.tol * prob.nu[None, :]
        reach = np.abs(d) @ prob.hi  # |d_j . a| <= reach_j on the box
        cap = float(reach.max()) or 1.0
        big = cap + reach  # with z_j = 0, row j reads tau - d_j . a <= big_j, true for every tau <= cap
        q = len(others)
        # variables (a_1..a_n, tau, z_1..z_q); rows -d_j . a + tau + big_j z_j <= big_j and sum z >= m - k
        rows = np.hstack([-d, np.ones((q, 1)), np.diag(big)]) / big[:, None]
        count = np.r_[np.zeros(n_cols + 1), np.ones(q)]
        with quiet_solver_output():
            res = milp(
                np.r_[np.zeros(n_cols), -1.0, np.zeros(q)],
                integrality=np.r_[np.zeros(n_cols + 1), np.ones(q)],
                bounds=Bounds(np.r_[prob.lo, -cap, np.zeros(q)], np.r_[prob.hi, cap, np.ones(q)]),
                constraints=[
                    LinearConstraint(rows, -np.inf, np.ones(q)),
                    LinearConstraint(count[None, :], m - top, np.inf),
                ],
                options={} if share is None else {"time_limit": share},
            )
        if res.x is None:  # stopped before any feasible point (the problem itself is always feasible)
            undecided[i] = True
            continue
        margin[i] = -res.fun
        if margin[i] > 0:
            undecided[i] = not confirm(i, res.x[:n_cols])
        elif res.status != 0:  # stopped early without a positive margin: not ruled out
            undecided[i] = True


def _always_beaten_by(prob: _CardinalProblem) -> np.ndarray:
    r"""For each model, how many others beat it by more than ``tol`` under every weighting of the box.

    Model j beats i at weights a exactly when :math:`(x_j - x_i - \mathrm{tol}\,\nu) \cdot a > 0`;
    a linear function is smallest over a box at the corner that takes, in each
    coordinate, the lower end for a positive coefficient and the upper end for
    a negative one.  The test uses a margin for rounding, so it can only miss
    a dominance, never invent one.
    """
    x = prob.x
    c = x[None, :, :] - x[:, None, :] - prob.tol * prob.nu[None, None, :]  # c[i, j] = x_j - x_i - tol nu
    low = np.minimum(c * prob.lo, c * prob.hi).sum(axis=2)
    scale = (np.abs(x[None, :, :]) + np.abs(x[:, None, :]) + prob.tol * prob.nu).dot(prob.hi)
    sure = low > (x.shape[1] + 4) * 2.0**-50 * scale
    np.fill_diagonal(sure, False)
    return sure.sum(axis=1)
