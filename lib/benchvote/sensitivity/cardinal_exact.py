"""Cardinal sensitivity computed exactly: a best-bound box search and a mixed-integer program."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._validation import (
    check_choice,
    check_number,
    split_table,
)
from ..ranking import (
    DEFAULT_TIE_TOLERANCE,
)
from ._problem import (
    CardinalSensitivity,
    _cardinal_setup,
    _CardinalProblem,
    _coordinate_polish,
    _finish_cardinal,
)


def cardinal_sensitivity_exact(
    scores: Any,
    higher_is_better: Any = True,
    *,
    eps: float | None = None,
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
    scores : array_like, DataFrame or Leaderboard
        Models x tasks, no missing cells, no constant task.
    higher_is_better : bool or sequence of bool
        Direction of every task; a lower-is-better task is negated first.
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
        ``upper_bound`` is a certified bound on ``tau_distance`` in any case.

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
    scores, higher_is_better = split_table(scores, higher_is_better)

    t0 = time.perf_counter()
    check_choice(method, "method", ("auto", "boxes", "milp"))
    time_limit = check_number(time_limit, "time_limit", low=0.0, low_open=True)
    seed = check_number(seed, "seed", low=0, integer=True)
    if triangle_cuts is not None and not isinstance(triangle_cuts, (bool, np.bool_)):
        raise TypeError(f"triangle_cuts must be True, False or None, got {triangle_cuts!r}")
    prob = _cardinal_setup(scores, higher_is_better, eps, normalize, tol)
    return _solve_exact(prob, method, time_limit, triangle_cuts, seed, t0)


def _solve_exact(
    prob: _CardinalProblem,
    method: str,
    time_limit: float,
    triangle_cuts: bool | None,
    seed: int,
    t0: float,
    incumbent: np.ndarray | None = None,
) -> CardinalSensitivity:
    """Dispatch a set-up problem to the box search or the MILP (``incumbent``: weights to start the box search from)."""
    if len(prob.d) == 0:  # every model ties with every other: nothing to reverse
        return _finish_cardinal(
            prob,
            prob.hi.copy(),
            "boxes" if method == "auto" else method,
            upper=0,
            finished=True,
            seconds=time.perf_counter() - t0,
        )
    if method == "boxes" or (method == "auto" and prob.x.shape[1] <= 10):
        return _cardinal_boxes(prob, time_limit, seed, t0, incumbent=incumbent)
    return _cardinal_milp(prob, time_limit, triangle_cuts, t0)


def _cardinal_milp(
    prob: _CardinalProblem, time_limit: float, triangle_cuts: bool | None, t0: float
) -> CardinalSensitivity:
    """The mixed-integer program of :func:`cardinal_sensitivity_exact`."""

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
    res = milp(
        cost,
        constraints=constraint,
        integrality=integrality,
        bounds=bounds,
        options={"time_limit": float(time_limit), "mip_rel_gap": 0.0, "disp": False},
    )
    if res.x is None:
        raise RuntimeError(f"the MILP solver returned no solution: {res.message}")
    chosen = np.flatnonzero(res.x[n:] > 0.5)
    a = _widest_margin(prob, d[chosen], np.clip(res.x[:n], lo, hi))
    dual = getattr(res, "mip_dual_bound", None)
    upper = int(np.floor(-dual + 1e-6)) if dual is not None and np.isfinite(dual) else k_count
    return _finish_cardinal(
        prob, a, "milp", upper=min(upper, k_count), finished=res.status == 0, seconds=time.perf_counter() - t0
    )


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
    lp = linprog(
        np.r_[np.zeros(n), -1.0],
        A_ub=np.hstack([d / scale, np.ones((len(d), 1))]),
        b_ub=np.zeros(len(d)),
        bounds=list(zip(prob.lo, prob.hi)) + [(None, 1e6)],
        method="highs",
    )
    if lp.status != 0 or -lp.fun <= 0:
        return a
    wide = np.clip(lp.x[:n], prob.lo, prob.hi)
    return wide if prob.robust_count(wide) >= prob.robust_count(a) else a


def _cardinal_boxes(
    prob: _CardinalProblem,
    time_limit: float,
    seed: int,
    t0: float,
    incumbent: np.ndarray | None = None,
    group: int = 2048,
    dive: int = 64,
    single_from: int = 16384,
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

    **Groups.**  Boxes are handled in groups that share one list of pairs: the
    pairs undecided in at least one of the group's parent boxes.  A pair left
    out is, in each box, either reversed everywhere (counted in the box's
    ``base``) or nowhere, so deep in the tree every box is evaluated on the few
    hundred pairs whose hyperplanes still cut it instead of on all of them.

    **Single precision.**  A step whose boxes x pairs matrix has at least
    ``single_from`` entries (and at least 64 pairs) is evaluated in float32,
    which halves the memory traffic of the comparisons and is several times
    faster in the matrix product.  It stays sound: each box is first widened
    outwards to float32 coordinates, and each pair's margin grows by a bound on
    the float32 error (the rounded ``d``, and 2n products and sums over a box
    inside the widened top box), so a pair that can satisfy the condition is
    never reported unreachable, and a pair is "reversed everywhere" only
    beyond the margin.  A centre's count is recounted in float64 before it may
    become the incumbent.  Small steps (deep in the tree, where hyperplanes pass
    close to the boxes) run in float64 with the plain margin, so the larger
    float32 margin cannot keep tiny boxes open.

    **Order.**  Best first: the group with the largest bound is taken from a
    heap and searched depth first for ``dive`` steps (so that memory stays
    small); what is left goes back on the heap.  When time runs out, the
    largest bound on the heap is a certified upper bound, and it only
    decreases as the search goes on.
    """

    import heapq

    lo, hi, d, slack = prob.lo, prob.hi, prob.d, prob.slack
    n = d.shape[1]
    # a pair that no weighting of the whole box can reverse is out of every sub-box too: leave it out
    # (its smallest value over the box is at least its rounding margin, so it never counts robustly)
    live = (np.maximum(d, 0.0) @ lo + np.minimum(d, 0.0) @ hi) < slack
    d, slack = d[live], slack[live]
    signed = np.hstack([np.maximum(d, 0.0), np.minimum(d, 0.0)])  # low = signed @ [l, h]
    d_abs = np.abs(d).astype(np.float32)  # only for choosing the weight to split
    signed32, margin32 = signed.astype(np.float32), _float32_margin(d, slack, hi)
    # first incumbent: the caller's weights, and an exact coordinate search from a few seeded random starts
    rng = np.random.default_rng(seed)

    def polished(a0: np.ndarray) -> tuple[np.ndarray, int]:
        """The coordinate search from ``a0`` and the robust count it reaches."""
        a, _ = _coordinate_polish(d, a0, lo, hi, rng)
        return a, prob.robust_count(a)

    best_a, best = hi.copy(), prob.robust_count(hi)
    starts = [] if incumbent is None else [np.clip(np.asarray(incumbent, dtype=float), lo, hi)]
    starts += [np.exp(rng.uniform(np.log(lo), np.log(hi))) for _ in range(4 if incumbent is not None else 8)]
    for a0 in starts:
        a, count = polished(a0)
        if count > best:
            best_a, best = a, count
    # one face per weight: a_t at its upper end (every weight vector scales onto one of them)
    face_lo, face_hi = np.tile(lo, (n, 1)), np.tile(hi, (n, 1))
    face_lo[np.arange(n), np.arange(n)] = hi
    # a group: its boxes' lower and upper ends, the pairs it carries, each box's count of pairs reversed everywhere
    heap: list[tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = [
        (-len(d), 0, face_lo, face_hi, np.arange(len(d)), np.zeros(n, dtype=np.int64))
    ]
    tick = 1
    finished = True
    while heap and -heap[0][0] > best:
        if time.perf_counter() - t0 > time_limit:
            finished = False
            break
        neg_top, _, box_lo, box_hi, idx, base = heapq.heappop(heap)
        stack: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]] = [
            (box_lo, box_hi, idx, base, -neg_top)
        ]
        for _ in range(dive):
            if not stack or time.perf_counter() - t0 > time_limit:
                break
            box_lo, box_hi, idx, base, top = stack.pop()
            if top <= best:
                continue
            # boxes x pairs (rows are boxes, so that keeping some boxes copies whole rows):
            # the smallest and the largest d . a over each box, in float32 for big steps
            if len(idx) >= min(64, single_from) and len(box_lo) * len(idx) >= single_from:
                low, high = _extremes(box_lo, box_hi, signed32[idx])
                s = margin32[idx]
            else:
                low, high = _extremes(box_lo, box_hi, signed[idx])
                s = slack[idx]
            reach = low < s
            sure = high < -s  # reversed everywhere in the box, beyond the margin
            bound = base + _count_rows(reach)
            at_centre = base + _count_rows(low + high < -2 * s)  # low + high is twice d . a at the centre
            k = int(np.argmax(at_centre))
            if at_centre[k] > best:  # a better centre (recounted in float64): polish it too
                centre = (box_lo[k] + box_hi[k]) / 2
                count = prob.robust_count(centre)
                if count > best:
                    best_a, best = centre, count
                    a, count = polished(best_a)
                    if count > best:
                        best_a, best = a, count
            keep = bound > best
            if not keep.any():
                continue
            undecided = reach & ~sure
            if not keep.all():
                box_lo, box_hi, base, bound = box_lo[keep], box_hi[keep], base[keep], bound[keep]
                sure, undecided = sure[keep], undecided[keep]
            # halve each box along the weight whose width loosens its bound most
            split = np.argmax((undecided.astype(np.float32) @ d_abs[idx]) * (box_hi - box_lo), axis=1)
            rows = np.arange(len(box_lo))
            mid = (box_lo[rows, split] + box_hi[rows, split]) / 2
            left_hi, right_lo = box_hi.copy(), box_lo.copy()
            left_hi[rows, split], right_lo[rows, split] = mid, mid
            half = max(1, group // 2)
            for c in range(0, len(box_lo), half):
                part = slice(c, c + half)
                inside = undecided[part].any(axis=0)  # the children's shared list of pairs
                child_base = base[part] + _count_rows(sure[part] & ~inside)
                stack.append(
                    (
                        np.concatenate([box_lo[part], right_lo[part]]),
                        np.concatenate([left_hi[part], box_hi[part]]),
                        idx[inside],
                        np.concatenate([child_base, child_base]),
                        int(bound[part].max()),
                    )
                )
        for box_lo, box_hi, idx, base, top in stack:
            if top > best:
                heapq.heappush(heap, (-top, tick, box_lo, box_hi, idx, base))
                tick += 1
    upper = max(best, -heap[0][0]) if heap else best
    best_a = _widest_margin(prob, d[d @ best_a < -slack], best_a)
    return _finish_cardinal(prob, best_a, "boxes", upper=upper, finished=finished, seconds=time.perf_counter() - t0)


def _float32_margin(d: np.ndarray, slack: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per-pair margins for screening boxes inside ``[0, hi]`` with the float32 copy of ``[d+, d-]``.

    For a box whose float32 ends ``c`` satisfy ``0 <= c <= hi32`` (``hi`` rounded
    up), the float32 value of ``[d+, d-] . c`` differs from the exact value with
    the float64 ``d`` by at most ``u sum_t |d_t| hi32_t`` (rounding ``d``) plus
    ``gamma_2n (1 + u) sum_t |d_t| hi32_t`` (2n products and sums in any order),
    ``u = 2^-24``; the margin adds twice ``(2n + 4) u sum_t |d_t| hi32_t``, more
    than both, to the float64 margin ``slack``, and is rounded up to float32.
    """
    n = d.shape[1]
    _, hi32 = _widen_to_float32(hi, hi)
    err = 2.0 * (2 * n + 4) * 2.0**-24 * (np.abs(d) @ hi32.astype(float))
    return _float32_up(slack + err)


def _extremes(box_lo: np.ndarray, box_hi: np.ndarray, signed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest ``d . a`` over each box (boxes x pairs), from the rows ``signed = [d+, d-]``.

    With float32 ``signed``, the boxes are first widened outwards to float32 ends, so
    the values are those of boxes that contain the given ones.
    """
    if signed.dtype == np.float32:
        box_lo, box_hi = _widen_to_float32(box_lo, box_hi)
    ends = np.vstack([np.hstack([box_lo, box_hi]), np.hstack([box_hi, box_lo])])
    both = ends @ signed.T
    return both[: len(box_lo)], both[len(box_lo) :]


def _widen_to_float32(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float32 ends of boxes that contain the float64 boxes [lo, hi] (rounded outwards)."""
    lo32, hi32 = lo.astype(np.float32), hi.astype(np.float32)
    lo32 = np.where(lo32 > lo, np.nextafter(lo32, np.float32(-np.inf)), lo32)
    hi32 = np.where(hi32 < hi, np.nextafter(hi32, np.float32(np.inf)), hi32)
    return lo32, hi32


def _float32_up(v: np.ndarray) -> np.ndarray:
    """The smallest float32 values at least ``v``."""
    v32 = v.astype(np.float32)
    return np.where(v32 < v, np.nextafter(v32, np.float32(np.inf)), v32)


def _count_rows(mask: np.ndarray) -> np.ndarray:
    """The number of True entries in each row of a boolean matrix (its bytes summed: faster than count_nonzero)."""
    acc = np.uint16 if mask.shape[1] < 2**16 else np.int64
    return np.add.reduce(mask.view(np.uint8), axis=1, dtype=acc).astype(np.int64)


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
