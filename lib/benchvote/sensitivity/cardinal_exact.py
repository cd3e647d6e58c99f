"""Cardinal sensitivity computed exactly: a best-bound box search and a mixed-integer program."""

from __future__ import annotations

import contextlib
import heapq
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from .._quiet import quiet_solver_output
from .._validation import (
    check_choice,
    check_number,
    measure,
)
from ..ranking import (
    DEFAULT_TIE_TOLERANCE,
)
from ._boxes import box_margins, evaluate_boxes, halve_boxes
from ._policy import exact_method
from ._problem import (
    CardinalSensitivity,
    _cardinal_setup,
    _CardinalProblem,
    _coordinate_polish,
    _finish_cardinal,
    _stop_reason,
)

#: Default work budget of the box search: boxes evaluated (seconds to about two minutes on one core).
BOX_WORK_LIMIT = 5_000_000
#: Default work budget of the mixed-integer program: HiGHS branch-and-bound nodes (up to several minutes).
MILP_NODE_LIMIT = 20_000


@measure(allow_nan=False)
def cardinal_sensitivity_exact(
    scores: Any,
    higher_is_better: Any = True,
    *,
    eps: float | None = None,
    normalize: str = "none",
    method: str = "auto",
    work_limit: int | None = None,
    time_limit: float | None = None,
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
    whose halving rules the most pairs out of one of the halves.  Two groups of
    boxes are halved at a time, on a second thread when the process may use two
    cores (:data:`BOX_SEARCH_THREADS`; the result does not depend on it).
    Because only the direction of
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

    **Clique LP and weight-space branch and bound** (``method="cliques"``),
    for many tasks and many models.  Two pairs *conflict* when no weight in
    the box reverses both (decided by a one-dimensional minimax test), so the
    reversed pairs form an independent set of the conflict graph: an LP over
    one :math:`y_k \in [0, 1]` per pair that some weight can reverse, with
    clique rows :math:`\sum_{k \in C} y_k \le 1` and the transitivity rows
    above added in rounds, bounds the count.  The bound is recomputed from the
    LP's row duals by weak duality with a rounding margin, never read from the
    solver (see :mod:`benchvote.sensitivity._cliques`).  A branch and bound
    over faces and halved boxes of weights recomputes that bound on every
    node and prunes against exactly recounted incumbents (see
    :mod:`benchvote.sensitivity._weightbb`); its work is counted in nodes
    (default :data:`~benchvote.sensitivity._weightbb.CLIQUE_NODE_LIMIT`).

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard
        Models x tasks, no missing cells, no constant task.
    higher_is_better : bool or sequence of bool
        Direction of every task; a lower-is-better task is negated first.
    eps : float, optional
        Lower end of the weight box (default :func:`default_eps`).
    normalize : {"none", "zscore"}
        Whether the box applies to the published scores or to standardised tasks.
    method : {"auto", "boxes", "milp", "cliques"}
        ``"auto"`` asks :func:`benchvote.sensitivity.exact_method`: boxes for at
        most :data:`~benchvote.sensitivity.AUTO_EXACT_MAX_TASKS` distinct tasks,
        otherwise the MILP on at most
        :data:`~benchvote.sensitivity.AUTO_MILP_MAX_PAIRS` ordered pairs and the
        clique search beyond; ``"cliques"`` is the branch and bound in weight space with the clique-LP
        bound (see *Clique LP* above).
    work_limit : int, optional
        The deterministic budget that decides the result: boxes evaluated by
        the box search (default :data:`BOX_WORK_LIMIT`), branch-and-bound
        nodes of the MILP (default :data:`MILP_NODE_LIMIT`) or of the clique
        search (nodes of weight space).  The same
        input, options and seed give the same result on every run.
    time_limit : float, optional
        A wall-clock safety cap in seconds (none by default).  When it ends
        the search first the result depends on the machine's speed, and
        ``stopped`` says ``"time_limit"``.  The box
        search's compiled kernels are built once per installation (a few
        seconds, then loaded from numba's disk cache, well under a second per
        process); that time is counted neither here nor in ``seconds``.
    triangle_cuts : bool, optional
        MILP only: add transitivity cuts (default: for up to 40 models).
    seed : int
        Seeds the coordinate search that provides the first incumbent (boxes only).
    tol : float
        Tie tolerance of the rankings before and after.

    Returns
    -------
    CardinalSensitivity
        ``optimal`` tells whether optimality was proven within the budget;
        ``upper_bound`` is a certified bound on ``tau_distance`` in any case,
        and ``stopped`` says which budget ended an unfinished search.

    See Also
    --------
    cardinal_sensitivity

    References
    ----------
    :cite:t:`zhang2024tradeoffs`.

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
    t0 = time.perf_counter()
    check_choice(method, "method", ("auto", "boxes", "milp", "cliques"))
    time_limit = check_number(time_limit, "time_limit", low=0.0, low_open=True, allow_none=True)
    work_limit = check_number(work_limit, "work_limit", low=1, integer=True, allow_none=True)
    if triangle_cuts is not None and not isinstance(triangle_cuts, (bool, np.bool_)):
        raise TypeError(f"triangle_cuts must be True, False or None, got {triangle_cuts!r}")
    prob = _cardinal_setup(scores, higher_is_better, eps, normalize, tol)
    return _solve_exact(prob, method, time_limit, triangle_cuts, seed, t0, work_limit=work_limit)


def _solve_exact(
    prob: _CardinalProblem,
    method: str,
    time_limit: float | None,
    triangle_cuts: bool | None,
    seed: int,
    t0: float,
    incumbent: np.ndarray | None = None,
    work_limit: int | None = None,
) -> CardinalSensitivity:
    """Dispatch a set-up problem to the box search or the MILP (``incumbent``: weights to start the box search from).

    ``work_limit`` None means the method's default (:data:`BOX_WORK_LIMIT` boxes, :data:`MILP_NODE_LIMIT` nodes).
    """
    if method == "auto":
        method = exact_method(prob.x.shape[1], len(prob.d))
    if len(prob.d) == 0:  # every model ties with every other: nothing to reverse
        return _finish_cardinal(
            prob,
            prob.hi.copy(),
            method,
            upper=0,
            seconds=time.perf_counter() - t0,
        )
    if method == "boxes":
        from ._boxes import ensure_compiled

        compiling = time.perf_counter()
        ensure_compiled()  # the one-off compilation is not charged to the time limit
        t0 += time.perf_counter() - compiling
        work = BOX_WORK_LIMIT if work_limit is None else work_limit
        return _cardinal_boxes(prob, time_limit, seed, t0, incumbent=incumbent, work_limit=work)
    if method == "cliques":
        from ._cliques import ensure_compiled as compile_cliques
        from ._weightbb import CLIQUE_NODE_LIMIT, cardinal_cliques

        compiling = time.perf_counter()
        compile_cliques()
        t0 += time.perf_counter() - compiling
        work = CLIQUE_NODE_LIMIT if work_limit is None else work_limit
        return cardinal_cliques(prob, work_limit=work, time_limit=time_limit, seed=seed, t0=t0, incumbent=incumbent)
    work = MILP_NODE_LIMIT if work_limit is None else work_limit
    return _cardinal_milp(prob, time_limit, triangle_cuts, t0, work_limit=work, seed=seed)


def _cardinal_milp(
    prob: _CardinalProblem,
    time_limit: float | None,
    triangle_cuts: bool | None,
    t0: float,
    work_limit: int | None = None,
    seed: int = 0,
) -> CardinalSensitivity:
    """The mixed-integer program of :func:`cardinal_sensitivity_exact`, in scaled weights (``prob.factors``).

    Every row is divided by its largest coefficient, so each pair's condition
    is judged on its own scale, not on the largest task's.  When the solver
    stops before it has a solution (a tiny budget), the result is the
    coordinate search's weights with the solver's dual bound if it has one,
    else the count of pairs that may be reversed at all: a bound in any case.
    """
    lo, hi, before = prob.lo, prob.hi, prob.before
    m, n = prob.x.shape
    can = prob.reversible_alone()
    if not can.any():
        return _finish_cardinal(prob, hi.copy(), "milp", upper=0, seconds=time.perf_counter() - t0)
    cand = list(zip(prob.upper_i[can].tolist(), prob.lower_j[can].tolist()))
    f = prob.factors
    d_raw, sigma = prob.d[can], prob.slack[can]
    d = d_raw / f  # d . a = (d / f) . b with b = f a
    row = np.abs(d).max(axis=1)
    d, sigma = d / row[:, None], sigma / row
    b_lo, b_hi = lo * f, hi * f
    k_count = len(cand)
    big_m = np.maximum(d * b_lo, d * b_hi).sum(axis=1) + sigma
    # variables: b (n), y (k); row k: d_k . b + (M_k - sigma_k) y_k <= M_k
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
    bounds = Bounds(np.concatenate([b_lo, np.zeros(k_count)]), np.concatenate([b_hi, np.ones(k_count)]))
    with quiet_solver_output():
        res = milp(
            cost,
            constraints=constraint,
            integrality=integrality,
            bounds=bounds,
            options=_milp_options(time_limit, work_limit, t0),
        )
    dual = getattr(res, "mip_dual_bound", None)
    upper = int(np.floor(-dual + 1e-6)) if dual is not None and np.isfinite(dual) else k_count
    upper = min(upper, k_count)
    # the coordinate search from the all-ones weights: an incumbent whatever the solver returned
    rng = np.random.default_rng(seed)
    a, _ = _coordinate_polish(prob.d, hi.copy(), lo, hi, rng)
    if res.x is not None:
        chosen = np.flatnonzero(res.x[n:] > 0.5)
        found = _widest_margin(prob, d_raw[chosen], np.clip(res.x[:n] / f, lo, hi))
        a = found if prob.robust_count(found) >= prob.robust_count(a) else a
    stopped = _stop_reason(res, time_limit, work_limit, t0)
    return _finish_cardinal(
        prob,
        a,
        "milp",
        upper=upper,
        seconds=time.perf_counter() - t0,
        stopped=stopped,
        work=getattr(res, "mip_node_count", 0) or 0,
    )


def _milp_options(time_limit: float | None, work_limit: int | None, t0: float) -> dict:
    """HiGHS options: the work limit in branch-and-bound nodes, what is left of the safety cap in seconds."""
    options: dict[str, Any] = {"mip_rel_gap": 0.0, "disp": False}
    if work_limit is not None:
        options["node_limit"] = int(work_limit)
    if time_limit is not None:
        options["time_limit"] = max(float(time_limit) - (time.perf_counter() - t0), 1e-3)
    return options


#: Threads of the box search: 2 halves two groups of a level at once when the process may use two cores
#: (GLUE's proof: 0.18 s to 0.15 s on a 2-core machine); 1 keeps it on the caller's thread, for a caller that
#: already runs searches on every core.  Either way the steps, and so the results, are the same.
BOX_SEARCH_THREADS = 2

#: Undecided pairs (summed over its boxes) from which a group alone on a level of the box search is
#: halved as two groups, so that a second core can take one (the same steps on one core).
PAIRED_HALVING = 4_000

#: Seeded random starts of the box search's first coordinate search: with and without the caller's weights.
INCUMBENT_STARTS = (4, 8)

#: Conditions per round of :func:`_widest_margin`'s cutting planes.
MARGIN_ROWS = 64


def _widest_margin(prob: _CardinalProblem, d: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Weights in the box that satisfy every condition of ``d`` with the widest margin.

    Maximise t subject to d_k . a + t <= 0 (a in the box), by cutting planes: the
    :data:`MARGIN_ROWS` conditions nearest to binding at ``a`` first, then, round by round, those the
    last solution violates most, until it violates none (then it is optimal for all of them).  The
    solution keeps every chosen reversal away from rounding; it is used only when it is at least as
    good as ``a`` by the robust count (otherwise, or with no pairs, ``a`` is returned unchanged).
    """
    if len(d) == 0:
        return a
    n = d.shape[1]
    f = prob.factors  # solve in b = f a, each row on its own scale
    d = d / f
    d = d / np.abs(d).max(axis=1, keepdims=True)
    rows = np.argsort(-(d @ (a * f)), kind="stable")[:MARGIN_ROWS]
    bounds = list(zip(prob.lo * f, prob.hi * f)) + [(None, 1e6)]
    while True:
        with quiet_solver_output():
            lp = linprog(
                np.r_[np.zeros(n), -1.0],
                A_ub=np.hstack([d[rows], np.ones((len(rows), 1))]),
                b_ub=np.zeros(len(rows)),
                bounds=bounds,
                method="highs",
            )
        if lp.status != 0 or -lp.fun <= 0:
            return a
        excess = d @ lp.x[:n] + lp.x[n]
        excess[rows] = 0.0
        worst = np.argsort(-excess, kind="stable")[:MARGIN_ROWS]
        worst = worst[excess[worst] > 1e-12]
        if len(worst) == 0:
            break
        rows = np.concatenate([rows, worst])
    wide = np.clip(lp.x[:n] / f, prob.lo, prob.hi)
    return wide if prob.robust_count(wide) >= prob.robust_count(a) else a


def _cardinal_boxes(
    prob: _CardinalProblem,
    time_limit: float | None,
    seed: int,
    t0: float,
    incumbent: np.ndarray | None = None,
    work_limit: int | None = None,
    group: int = 128,
    dive: int = 8,
    sample: int = 64,
) -> CardinalSensitivity:
    """Branch and bound over boxes of weights (see :func:`cardinal_sensitivity_exact`).

    **Bounds.**  Pair k can satisfy the condition somewhere in box [l, h]
    only if ``low_k = d_k+ . l + d_k- . h`` is below its rounding margin, and
    it satisfies it everywhere in the box when ``high_k = d_k+ . h + d_k- . l``
    is below minus the margin.  A box's bound is the number of pairs that may
    satisfy the condition in it; its centre, where ``d_k . a = (low_k + high_k) / 2``,
    gives a count that is achieved; a centre that beats the incumbent is
    improved further by the coordinate search.  Pruning compares a bound (rounding resolved
    in the pair's favour) with the incumbent's robust count (beyond rounding),
    so float error can only keep a box open, never discard the optimum.

    **Lists and halving.**  Every box keeps the pairs still undecided in it
    (neither reversed everywhere, counted in its ``base``, nor nowhere) with
    their ``low`` and ``high``.  It is halved at the midpoint of the weight whose
    halving leaves the most of its undecided pairs out of a half (judged on at
    most ``sample`` of them, evenly spaced; ties to the weight that narrows their
    ranges most), and the children's values follow
    from the parent's with one product per pair (the compiled kernels of
    :mod:`._boxes`, whose margins also cover the rounding of these updates).
    Deep in the tree a box carries the few pairs whose hyperplanes still cut
    it, not all of them.

    **Order.**  Boxes are handled in groups of at most ``group``, halved
    together, level by level.  The most promising group first: a heap hands
    out the group whose best centre count is highest (then the one with the
    largest bound), and it is searched depth first for ``dive`` levels; what
    is left goes back on the heap.  Searching where the centres are good finds
    the optimum early, after which every box whose bound does not beat it is
    discarded; small groups keep each level's lists in the processor's cache.
    Each level halves the top two groups of the stack (a group alone, with at
    least :data:`PAIRED_HALVING` undecided pairs, as two halves), both against
    the same incumbent: on two cores when the machine has them, in the same
    steps and with the same result either way.
    When the budget (of boxes, or the time limit) runs out, the largest bound
    among the open groups is a certified upper bound.  A box too narrow to halve in floating
    point stays open: its bound then enters the upper bound and the search
    reports no proof.
    """

    lo, hi, d, slack = prob.lo, prob.hi, prob.d, prob.slack
    n = d.shape[1]
    # a pair that no weighting of the whole box can reverse is out of every sub-box too: leave it out
    # (its smallest value over the box is at least its rounding margin, so it never counts robustly)
    live = prob.reversible_alone()
    d, slack = np.ascontiguousarray(d[live]), slack[live]
    search = _BoxSearch(prob, d, box_margins(d, slack, hi), np.random.default_rng(seed), time_limit, work_limit, t0)
    search.first_incumbent(incumbent)
    # one face per weight: a_t at its upper end (every weight vector scales onto one of them)
    face_lo, face_hi = np.tile(lo, (n, 1)), np.tile(hi, (n, 1))
    face_lo[np.arange(n), np.arange(n)] = hi
    everything = np.arange(len(d), dtype=np.int32)
    bound, base, centres, split, off, pk, low, high = evaluate_boxes(
        d, search.d_abs, search.margin, face_lo, face_hi, np.zeros(n, dtype=np.int64), everything, sample
    )
    search.try_centres(centres, face_lo, face_hi)
    # a group of boxes: their ends, bases, bounds, split weights, halvings since their values were
    # computed from their ends, and their lists of undecided pairs (offsets, pairs, low, high)
    faces = (face_lo, face_hi, base, bound, split, np.zeros(n, dtype=np.int64), off, pk, low, high)
    # the heap's entries: minus the best centre count, minus the largest bound, a tie-break, the boxes
    heap: list[tuple[Any, ...]] = [(-int(centres.max()), -int(bound.max()), 0, faces)]
    tick = 1
    stopped = ""
    with _second_core() as search.pool:
        while heap:
            stopped = search.out_of_budget()
            if stopped:
                break
            _, neg_top, _, boxes = heapq.heappop(heap)
            if -neg_top <= search.best:
                continue
            for top, cen, left_open in search.dive(boxes, -neg_top, dive, group, sample):
                if top > search.best:
                    heapq.heappush(heap, (-cen, -top, tick, left_open))
                    tick += 1
    search.pool = None  # shut down with the search
    upper = max([search.best] + [-entry[1] for entry in heap])
    if search.stuck > search.best:
        upper = max(upper, search.stuck)
    best_a = _widest_margin(prob, d[d @ search.best_a < -slack], search.best_a)
    return _finish_cardinal(
        prob,
        best_a,
        "boxes",
        upper=upper,
        seconds=time.perf_counter() - t0,
        stopped=stopped,
        work=search.work,
    )


def _second_core() -> contextlib.AbstractContextManager[ThreadPoolExecutor | None]:
    """A one-thread pool for the box search's second halving of a level (:data:`BOX_SEARCH_THREADS`).

    Only when the process may use two cores or more.  Made for one search and shut down after it
    (a pool that outlived a search would not survive a fork).
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return ThreadPoolExecutor(max_workers=1) if cores > 1 and BOX_SEARCH_THREADS > 1 else contextlib.nullcontext()


class _BoxSearch:
    """One run of the box search of :func:`_cardinal_boxes`: the incumbent, the work done and the budget.

    ``d`` holds the pairs some weighting of the whole box reverses, ``margin`` their rounding margins.
    """

    def __init__(
        self,
        prob: _CardinalProblem,
        d: np.ndarray,
        margin: np.ndarray,
        rng: np.random.Generator,
        time_limit: float | None,
        work_limit: int | None,
        t0: float,
    ):
        self.prob, self.d, self.margin, self.rng = prob, d, margin, rng
        self.d_cols, self.d_abs = np.ascontiguousarray(d.T), np.abs(d)
        self.time_limit, self.work_limit, self.t0 = time_limit, work_limit, t0
        self.best_a, self.best = prob.hi.copy(), prob.robust_count(prob.hi)
        self.work = 0  # boxes evaluated: the deterministic budget
        self.pool: ThreadPoolExecutor | None = None  # a second core for the second group of a level
        self.stuck = -1  # the largest bound of a box too narrow to halve

    def polished(self, a0: np.ndarray) -> tuple[np.ndarray, int]:
        """The coordinate search from ``a0`` and the robust count it reaches."""
        a, _ = _coordinate_polish(self.d, a0, self.prob.lo, self.prob.hi, self.rng)
        return a, self.prob.robust_count(a)

    def first_incumbent(self, incumbent: np.ndarray | None) -> None:
        """The caller's weights, and an exact coordinate search from a few seeded random starts."""
        lo, hi = self.prob.lo, self.prob.hi
        starts = [] if incumbent is None else [np.clip(np.asarray(incumbent, dtype=float), lo, hi)]
        starts += [np.exp(self.rng.uniform(np.log(lo), np.log(hi))) for _ in range(INCUMBENT_STARTS[incumbent is None])]
        for a0 in starts:
            a, count = self.polished(a0)
            if count > self.best:
                self.best_a, self.best = a, count

    def try_centres(self, centre_counts: np.ndarray, box_lo: np.ndarray, box_hi: np.ndarray) -> None:
        """A centre that may beat the incumbent is recounted robustly, then polished."""
        if len(centre_counts) == 0:
            return
        k = int(np.argmax(centre_counts))
        if centre_counts[k] > self.best:
            centre = (box_lo[k] + box_hi[k]) / 2
            count = self.prob.robust_count(centre)
            if count > self.best:
                self.best_a, self.best = centre, count
                a, count = self.polished(self.best_a)
                if count > self.best:
                    self.best_a, self.best = a, count

    def out_of_budget(self) -> str:
        if self.work_limit is not None and self.work >= self.work_limit:
            return "work_limit"
        if self.time_limit is not None and time.perf_counter() - self.t0 > self.time_limit:
            return "time_limit"
        return ""

    def dive(self, boxes: tuple, top: int, dive: int, group: int, sample: int) -> list[tuple[int, int, tuple]]:
        """Search a group depth first for ``dive`` levels; the groups left open, as (bound, centre count, boxes).

        Each level halves the top two groups of the stack that may beat the incumbent, both against the
        same incumbent, then tries their centres in order: the same steps whether the two halvings run
        on one core or, with ``self.pool``, on two (the compiled kernel releases the GIL).
        """
        stack = [(top, 0, boxes)]
        for _ in range(dive):
            if not stack or self.out_of_budget():
                break
            batch: list[tuple] = []
            while stack and len(batch) < 2:
                top, _, boxes = stack.pop()
                if top > self.best:
                    batch.append(boxes)
            if len(batch) == 1 and batch[0][6][-1] >= PAIRED_HALVING:  # its undecided pairs: the last offset
                batch = _two_halves(batch[0])
            halved = self.halve(batch, sample)
            for children in halved:
                self.stuck = max(self.stuck, int(children[-1]))
                self.work += len(children[0])
                self.try_centres(children[4], children[0], children[1])
            for children in reversed(halved):  # the first group's children on top
                stack += _groups(children, group)
        return stack

    def halve(self, batch: list[tuple], sample: int) -> list[tuple]:
        """:func:`halve_boxes` of every group of ``batch`` against the incumbent, the second on the pool if any."""
        best = self.best
        calls = [(self.d, self.d_cols, self.d_abs, self.margin, *boxes, best, sample) for boxes in batch]
        if self.pool is not None and len(calls) == 2:
            other = self.pool.submit(halve_boxes, *calls[1])
            return [halve_boxes(*calls[0]), other.result()]
        return [halve_boxes(*call) for call in calls]


def _part(boxes: tuple, start: int, stop: int) -> tuple:
    """Boxes ``start`` to ``stop`` of a group, as a group of their own (its list offsets from 0)."""
    box_lo, box_hi, base, bound, split, updates, off, pk, low, high = boxes
    a, b = off[start], off[stop]
    part = slice(start, stop)
    return (
        box_lo[part], box_hi[part], base[part], bound[part], split[part], updates[part], off[start : stop + 1] - a,
        pk[a:b], low[a:b], high[a:b],
    )  # fmt: skip


def _two_halves(boxes: tuple) -> list[tuple]:
    """A group of boxes as two groups: its first half of boxes (rounded up) and the rest."""
    n = len(boxes[0])
    cut = (n + 1) // 2
    return [boxes] if cut == n else [_part(boxes, 0, cut), _part(boxes, cut, n)]


def _groups(children: tuple, group: int) -> list[tuple[int, int, tuple]]:
    """The halved boxes in groups of at most ``group``: (largest bound, best centre count, the group's boxes)."""
    c_lo, c_hi, c_base, c_bound, c_cen, c_split, c_upd, c_off, c_pk, c_low, c_high, _ = children
    boxes = (c_lo, c_hi, c_base, c_bound, c_split, c_upd, c_off, c_pk, c_low, c_high)
    out = []
    for c in range(0, len(c_lo), group):
        stop = min(c + group, len(c_lo))
        out.append((int(c_bound[c:stop].max()), int(c_cen[c:stop].max()), _part(boxes, c, stop)))
    return out


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
                        rows.append(r)
                        cols.append(offset + col)
                        vals.append(v)
                    ub.append(1.0)
                    r += 1
                if ik is not None:
                    entries = (
                        [(ik, 1.0)]
                        + ([(ij, -1.0)] if ij is not None else [])
                        + ([(jk, -1.0)] if jk is not None else [])
                    )
                    for col, v in entries:
                        rows.append(r)
                        cols.append(offset + col)
                        vals.append(v)
                    ub.append(0.0)
                    r += 1
    return rows, cols, vals, ub
