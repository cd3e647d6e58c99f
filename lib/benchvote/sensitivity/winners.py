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
from fractions import Fraction
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from .._quiet import quiet_solver_output
from .._validation import check_choice, check_number, measure
from ..ranking import DEFAULT_TIE_TOLERANCE
from ._problem import (
    _cardinal_setup,
    _CardinalProblem,
    _exact_ranks,
    _published_weights,
    _stop_reason,
    integer_scores,
)

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
        was positive but its weights failed the exact recount, or it was not
        positive but its duals failed the exact certificate (a model on the
        edge of the box's reach, within the solver's tolerance), or the
        mixed-integer program of ``k > 1`` stopped at its budget.
    margin : ndarray or Series of float
        The program's optimum :math:`\\tau^*` for each model (the best value
        found when it stopped early), with every condition divided by its
        largest coefficient in spread-scaled weights: only its sign is meant,
        positive for possible winners; ``nan`` for a model ruled out without
        a program (others beat it under every weighting).  For ``k > 1``, a
        model decided by its subset programs gets 1 (possible), -1 (ruled
        out) or 0 (undecided).
    weights : dict
        For every possible winner, task weights (one per task, the largest
        equal to 1) that put it first (in the top ``k``).
    k : int
        The number of top places asked about.
    eps : float
        Lower end of the weight box.
    normalize : str
        Where the box applies (see :func:`cardinal_sensitivity`).
    stopped : str
        Why a mixed-integer program of ``k > 1`` ended unfinished:
        ``"work_limit"``, ``"time_limit"`` or ``"solver"`` (HiGHS gave up for
        another reason); its model is then ``undecided`` unless the weights it
        had found were confirmed.  ``""`` when every program finished.
    """

    possible: Any
    undecided: Any
    margin: Any
    weights: dict
    k: int
    eps: float
    normalize: str
    stopped: str = ""


@measure(allow_nan=False)
def possible_winners(
    scores: Any,
    higher_is_better: Any = True,
    *,
    k: int = 1,
    eps: float | None = None,
    normalize: str = "none",
    tol: float = DEFAULT_TIE_TOLERANCE,
    work_limit: int = 10_000,
    time_limit: float | None = None,
) -> PossibleWinners:
    r"""Which models some task weighting in the label-noise box ranks first (or in the top k).

    See the module docstring for the programs.  A model reported as possible
    comes with weights whose weighted means are recounted in exact rational
    arithmetic and leave at least :math:`m-k` models strictly below it in
    :func:`benchvote.rank`'s tie groups (tolerance ``tol``).  For ``k = 1``,
    a model reported as not possible has :math:`\tau^* \le 0` at the optimum
    of HiGHS's linear program (``scipy.optimize.linprog``) and a certificate
    from its duals that holds in exact arithmetic (:func:`_rules_out`); a
    result that fails either exact check leaves the model ``undecided``.  The
    programs run in weights scaled by each task's spread, every condition on
    its own scale, so a column in milliseconds or in parameters does not hide
    the differences of the others.  For ``k > 1``
    the models already in the top ``k`` of the plain mean and the possible
    winners are settled first; a model whose question takes at most
    :data:`SUBSET_PROGRAMS` linear programs (one per set of models allowed
    above it) is decided by them, with the same two exact checks; every other
    model gets a mixed-integer program (``scipy.optimize.milp``), and is ruled
    out only when that program finishes with an optimum clearly below zero on
    a box that is not too wide for it.  That last verdict rests on the
    solver's tolerances, not on an exact certificate.

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
    work_limit : int
        Branch-and-bound nodes of each mixed-integer program of ``k > 1``: the
        deterministic budget (the same input and options give the same answer
        on every run); a model whose program reaches it unfinished is
        ``undecided``.
    time_limit : float, optional
        A wall-clock safety cap in seconds for all the mixed-integer programs
        together (none by default); when it ends one, ``stopped`` says so.

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
    check_choice(normalize, "normalize", ("none", "zscore"))
    prob = _cardinal_setup(scores, higher_is_better, eps, normalize, tol)
    x = prob.x
    m, n_cols = x.shape
    top = check_number(k, "k", low=1, integer=True)
    if top >= m:
        raise ValueError(f"k must be smaller than the number of models ({m}), got {k}")
    limit = check_number(time_limit, "time_limit", low=0.0, low_open=True, allow_none=True)
    work = check_number(work_limit, "work_limit", low=1, integer=True)
    possible = np.zeros(m, dtype=bool)
    undecided = np.zeros(m, dtype=bool)
    margin = np.zeros(m)
    weights: dict = {}
    labelled = prob.mat.labelled

    integers: list = []

    def confirm(i: int, merged: np.ndarray) -> bool:
        """Recount the weights exactly; record them when they leave m - k models strictly below i."""
        full = _published_weights(prob, merged)
        if not integers:
            integers.append(integer_scores(prob.mat.values))  # once per table, not once per weighting
        exact = _exact_ranks(prob.mat.values, full, prob.tol, integers[0])
        if int((exact > exact[i]).sum()) < m - top:
            return False
        possible[i] = True
        label = prob.mat.models[i]
        weights[label] = pd.Series(full, index=pd.Index(prob.mat.tasks), name="weights") if labelled else full
        return True

    # j beats i strictly for every weighting in the box exactly when the smallest value of the linear
    # condition over the box, taken coordinate by coordinate, is positive: then i can never pass j
    sure = _always_beaten_by(prob)
    beaten_by = sure.sum(axis=1)
    best_weights: dict[int, np.ndarray] = {}
    for i in range(m):
        if beaten_by[i] >= 1:
            margin[i] = np.nan  # ruled out without a program (documented on PossibleWinners.margin)
            continue
        margin[i], a, certificate = _winner_program(prob, i)
        best_weights[i] = a
        if margin[i] > 0:
            # a margin inside the solver's tolerance can fail the exact recount: then neither answer is proven
            undecided[i] = not confirm(i, a)
        else:
            undecided[i] = not _rules_out(prob, i, certificate)
    stopped = ""
    if top > 1:
        stopped = _top_k(prob, top, limit, work, possible, undecided, margin, confirm, sure, best_weights)

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
        stopped=stopped,
    )


def _scaled_rows(
    prob: _CardinalProblem, i: int, against: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""Model i's conditions against every other model, in scaled weights (``prob.factors``).

    Returns ``(others, rows, f, r)``: row j is :math:`d_j / f` divided by its
    largest entry :math:`r_j`, with :math:`d_j = x_i - x_j - \mathrm{tol}\,\nu`,
    so that :math:`\text{rows}_j \cdot (f a) = d_j \cdot a / r_j`: each
    condition is judged on its own scale, whatever the tasks' units.
    """
    x = prob.x
    others = np.array([j for j in range(len(x)) if j != i], dtype=int) if against is None else against
    f = prob.factors
    d = (x[i][None, :] - x[others] - prob.tol * prob.nu[None, :]) / f
    r = np.abs(d).max(axis=1)
    r[r == 0] = 1.0
    return others, d / r[:, None], f, r


def _winner_program(
    prob: _CardinalProblem, i: int, against: np.ndarray | None = None
) -> tuple[float, np.ndarray, np.ndarray]:
    """The linear program of model i (module docstring), solved in scaled weights.

    ``against``: the models i must beat (default every other model).

    Returns its optimum (in the scaled rows' units: only its sign is meant),
    the weights on the merged columns, and one multiplier per other model from
    the program's duals, scaled back to the unscaled conditions (the
    certificate :func:`_rules_out` checks).
    """
    others, rows, f, r = _scaled_rows(prob, i, against)
    n_cols = rows.shape[1]
    # rows: -row_j . b + tau <= 0 ; variables (b_1..b_n, tau), maximise tau (at most 1: the rows are at most 1)
    res = None
    for presolve in (True, False):  # HiGHS occasionally ends a badly scaled program in an unknown state
        with quiet_solver_output():
            res = linprog(
                np.r_[np.zeros(n_cols), -1.0],
                A_ub=np.hstack([-rows, np.ones((len(others), 1))]),
                b_ub=np.zeros(len(others)),
                bounds=[*zip(prob.lo * f, prob.hi * f), (None, float(f @ prob.hi))],
                method="highs",
                options={"presolve": presolve},
            )
        if res.status == 0:
            break
    if res is None or res.status != 0:  # no answer: the model stays undecided (no weights, no certificate)
        return 0.0, prob.hi.copy(), np.zeros(len(prob.x))
    a = np.clip(res.x[:n_cols] / f, prob.lo, prob.hi)
    multipliers = np.zeros(len(prob.x))
    multipliers[others] = np.maximum(-np.asarray(res.ineqlin.marginals), 0.0) / r
    return float(-res.fun), a, multipliers


def _rules_out(prob: _CardinalProblem, i: int, multipliers: np.ndarray) -> bool:
    r"""Whether the multipliers prove, in exact arithmetic, that no weighting puts model i strictly first.

    With :math:`\mu_j \ge 0`, not all zero, and :math:`g = \sum_j \mu_j c_j`
    where :math:`c_{jt} = (s_{it} - s_{jt} - \mathrm{tol})\, w_t` is the exact
    condition (:math:`w_t = 1`, or :math:`1/\sigma_t` in the z-score box, on the
    published, oriented scores), every weighting :math:`a` of the box has
    :math:`\sum_j \mu_j\, c_j \cdot a = g \cdot a \le \max_{\text{box}} g \cdot a`.
    When that maximum, :math:`\sum_t \max(g_t l_t, g_t h_t)`, is at most 0,
    some :math:`c_j \cdot a \le 0` at every :math:`a`: model j is never
    strictly below i.  The multipliers come from the solver's duals; any
    rounding in them can only make the check fail (the model then stays
    undecided), never make it pass wrongly.
    """
    support = np.flatnonzero(multipliers > 0)
    if len(support) == 0:
        return False
    cols = [int(g[0]) for g in prob.groups]
    values = prob.mat.values
    tol = Fraction(float(prob.tol))
    if prob.normalize == "zscore":
        w = [1 / Fraction(float(prob.std[c])) for c in cols]
    else:
        w = [Fraction(1)] * len(cols)
    s_i = [Fraction(float(values[i, c])) for c in cols]
    g = [Fraction(0)] * len(cols)
    for j in support:
        mu = Fraction(float(multipliers[j]))
        for t, c in enumerate(cols):
            g[t] += mu * (s_i[t] - Fraction(float(values[j, c])) - tol) * w[t]
    eps = Fraction(float(prob.eps))
    top = sum(max(g_t * eps * len(grp), g_t * len(grp)) for g_t, grp in zip(g, prob.groups))
    return top <= 0


#: A mixed-integer optimum (rows scaled to a largest coefficient of 1) rules a model out only below minus this.
CLEARLY_OUT = 1e-5
#: Largest number of linear programs the top-k question of one model may take before the mixed-integer program.
SUBSET_PROGRAMS = 64
#: Weight boxes whose scaled range spans more than this ratio are too wide for a mixed-integer program's
#: tolerances (a big-M of that size makes its "ruled out" untrustworthy).
WIDE_BOX = 1e8


def _top_k(
    prob: _CardinalProblem,
    top: int,
    time_limit: float | None,
    work_limit: int,
    possible: np.ndarray,
    undecided: np.ndarray,
    margin: np.ndarray,
    confirm: Callable[[int, np.ndarray], bool],
    sure: np.ndarray,
    best_weights: dict[int, np.ndarray],
) -> str:
    """Decide "in the top k" for every model the winner programs left open (module docstring).

    Cheap answers first: a model that ``k`` others beat under every weighting
    is out; a possible winner, a model in the top k of the plain mean, or one
    that its own winner program's weights put in the top k is in.  A remaining
    model whose question takes at most :data:`SUBSET_PROGRAMS` linear programs
    is decided by them (:func:`_top_k_by_subsets`, exact both ways); the others
    get a mixed-integer program of at most ``work_limit`` branch-and-bound
    nodes, whose "ruled out" is trusted only on a box that is not too wide for
    it (:data:`WIDE_BOX`) and with an optimum clearly below 0 (:data:`CLEARLY_OUT`):
    HiGHS meets its rows to a tolerance, so these two verdicts are not exact
    proofs but guard against its known failures; the rest stay ``undecided``.
    ``time_limit`` (a safety cap) bounds them all together.  Returns why a
    program stopped unfinished, or ``""``.
    """
    m = len(prob.x)
    start = time.perf_counter()
    beaten_by = sure.sum(axis=1)
    undecided[:] = False  # the winner programs' doubts concern first place, not the top k
    f = prob.factors
    with np.errstate(over="ignore"):  # a ratio beyond the largest float is infinite: wide
        wide = float((prob.hi * f).max() / (prob.lo * f).min()) > WIDE_BOX
    stopped = ""
    for i in range(m):
        if beaten_by[i] >= top:
            margin[i] = np.nan
            continue
        if possible[i] or confirm(i, prob.hi.copy()) or (i in best_weights and confirm(i, best_weights[i])):
            margin[i] = margin[i] if np.isnan(margin[i]) else max(margin[i], 0.0)
            continue
        verdict = _top_k_by_subsets(prob, i, top, sure, confirm)
        if verdict is not None:
            undecided[i] = verdict == "undecided"
            margin[i] = 1.0 if verdict == "possible" else 0.0 if verdict == "undecided" else -1.0
            continue
        remaining = None if time_limit is None else time_limit - (time.perf_counter() - start)
        if remaining is not None and remaining <= 0:
            undecided[i], stopped = True, "time_limit"
            continue
        value, solved, why = _top_k_program(prob, i, top, work_limit, remaining, confirm)
        stopped = why or stopped
        margin[i] = value
        # HiGHS meets its rows only to a tolerance: an optimum just below 0 does not rule a model out
        undecided[i] = (value > 0 and not solved) or (value <= 0 and (why != "" or wide or value > -CLEARLY_OUT))
    return stopped


def _top_k_by_subsets(
    prob: _CardinalProblem, i: int, top: int, sure: np.ndarray, confirm: Callable[[int, np.ndarray], bool]
) -> str | None:
    """Whether model i can reach the top k, by one linear program per set of models allowed above it.

    Model i is in the top k at some weighting exactly when, for some set T of
    at most k - 1 models, it beats every model outside T.  T must hold the
    models that beat i everywhere, never needs one that i beats everywhere,
    and can be taken as large as allowed (a larger T only drops conditions).
    Each program is checked exactly (:func:`_winner_program`, :func:`_rules_out`):
    ``"possible"`` when one is confirmed, ``"out"`` when every one is ruled
    out, ``"undecided"`` otherwise, ``None`` when more than
    :data:`SUBSET_PROGRAMS` programs would be needed.
    """
    need = np.flatnonzero(sure[i])
    free = [j for j in range(len(prob.x)) if j != i and not sure[i, j] and not sure[j, i]]
    size = min(top - 1 - len(need), len(free))
    if comb(len(free), size) > SUBSET_PROGRAMS:
        return None
    doubtful = False
    for chosen in combinations(free, size):
        above = set(need.tolist()) | set(chosen)
        against = np.array([j for j in range(len(prob.x)) if j != i and j not in above], dtype=int)
        if len(against) == 0:
            return "possible" if confirm(i, prob.hi.copy()) else "undecided"
        value, a, certificate = _winner_program(prob, i, against)
        if value > 0 and confirm(i, a):
            return "possible"
        doubtful = doubtful or not (value <= 0 and _rules_out(prob, i, certificate))
    return "undecided" if doubtful else "out"


def _top_k_program(
    prob: _CardinalProblem,
    i: int,
    top: int,
    work_limit: int,
    time_limit: float | None,
    confirm: Callable[[int, np.ndarray], bool],
) -> tuple[float, bool, str]:
    """The mixed-integer program of model i (module docstring), in scaled weights, rows on their own scale.

    Returns its optimum (the best value found when it stopped), whether a
    positive optimum was confirmed by the exact recount, and why it stopped
    unfinished (:func:`._problem._stop_reason`, ``""`` when it finished).
    """
    m, n_cols = prob.x.shape
    _, rows, f, _ = _scaled_rows(prob, i)
    b_lo, b_hi = prob.lo * f, prob.hi * f
    # only the sign of tau matters, so it lies in [-1, 1] (an infeasible program then rules the model out);
    # with z_j = 0, row j reads tau - row_j . b <= big_j, true everywhere in the box for every tau <= 1
    big = np.maximum(1.0 + np.maximum(-rows * b_lo, -rows * b_hi).sum(axis=1), 1.0)
    q = len(rows)
    # variables (b_1..b_n, tau, z_1..z_q); rows -row_j . b + tau + big_j z_j <= big_j and sum z >= m - k
    # (not divided by big_j: HiGHS would drop the small coefficients that result)
    lhs = np.hstack([-rows, np.ones((q, 1)), np.diag(big)])
    count = np.r_[np.zeros(n_cols + 1), np.ones(q)]
    options: dict[str, Any] = {"node_limit": int(work_limit)}
    if time_limit is not None:
        options["time_limit"] = time_limit
    began = time.perf_counter()
    with quiet_solver_output():
        res = milp(
            np.r_[np.zeros(n_cols), -1.0, np.zeros(q)],
            integrality=np.r_[np.zeros(n_cols + 1), np.ones(q)],
            bounds=Bounds(np.r_[b_lo, -1.0, np.zeros(q)], np.r_[b_hi, 1.0, np.ones(q)]),
            constraints=[LinearConstraint(lhs, -np.inf, big), LinearConstraint(count[None, :], m - top, np.inf)],
            options=options,
        )
    if res.status == 2:  # no weighting gives m - k rows even the value -1: the model is out
        return -1.0, False, ""
    why = _stop_reason(res, time_limit, work_limit, began)
    if res.x is None:  # stopped before any feasible point
        return 0.0, False, why or "solver"
    value = float(-res.fun)
    solved = False
    if value > 0:
        chosen = res.x[n_cols + 1 :] > 0.5
        solved = confirm(i, np.clip(res.x[:n_cols] / f, prob.lo, prob.hi)) or confirm(
            i, _centred(prob, rows[chosen], f, res.x[:n_cols])
        )
    return value, solved, why


def _centred(prob: _CardinalProblem, rows: np.ndarray, f: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Weights that satisfy every given scaled row with the widest margin (a mixed-integer answer recentred).

    A solution of the top-k program can sit on its rows' boundary, within
    the solver's tolerance, and fail the exact recount; maximising the
    smallest margin of the rows it chose moves it inside when there is room.
    Returns ``b``'s weights unchanged when the program finds no positive margin.
    """
    n = len(f)
    with quiet_solver_output():
        lp = linprog(
            np.r_[np.zeros(n), -1.0],
            A_ub=np.hstack([-rows, np.ones((len(rows), 1))]),
            b_ub=np.zeros(len(rows)),
            bounds=[*zip(prob.lo * f, prob.hi * f), (None, 1.0)],
            method="highs",
        )
    best = lp.x[:n] if lp.status == 0 and -lp.fun > 0 else b
    return np.clip(best / f, prob.lo, prob.hi)


def _always_beaten_by(prob: _CardinalProblem) -> np.ndarray:
    r"""``sure[i, j]``: model j beats model i by more than ``tol`` under every weighting of the box.

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
    return sure
