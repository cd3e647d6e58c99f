r"""Certified bounds for the cardinal problem from pairwise conflicts: the clique LP (numba and HiGHS).

**The relaxation bounded.**  For weights :math:`a` in a box :math:`[l, h]`
let :math:`R(a)` be the pairs that the exact recount reverses and
:math:`L(a) = \{k : d_k \cdot a < s_k\}`, computed in exact real arithmetic
on the floats ``d`` with the per-pair rounding margin ``s = slack`` of
:class:`._problem._CardinalProblem`; :math:`R(a) \subseteq L(a)` (every
reversed pair satisfies the linear condition, and ``slack`` covers the error
of ``d``).  Every float computation below that *excludes* something (a pair
that cannot reverse, two pairs that cannot reverse together) demands a
further margin of at least the error of that computation, so rounding can
only keep a pair or a pair of pairs in play, never remove a feasible one.

**Facts about** :math:`R(a)` **used as rows** (y the indicator of :math:`R(a)`):

* *candidates*: a pair with :math:`\min_{a \in [l,h]} d_k \cdot a \ge s_k` is
  never in :math:`L(a)`; its y is 0 and it is left out;
* *conflicts*: pairs k and l *conflict* when no :math:`a` in the box has both
  :math:`d_k \cdot a < s_k` and :math:`d_l \cdot a < s_l`.  For any
  :math:`\lambda \in [0, 1]`,
  :math:`\max(d_k a - s_k, d_l a - s_l) \ge \lambda (d_k a - s_k) + (1-\lambda)(d_l a - s_l)`,
  whose minimum over the box is the separable sum
  :math:`\varphi(\lambda) = \sum_t \min(c_t l_t, c_t h_t) - \lambda s_k - (1-\lambda) s_l`,
  :math:`c = \lambda d_k + (1-\lambda) d_l`.  So :math:`\varphi(\lambda) \ge 0`
  for one :math:`\lambda` proves the conflict (by the minimax theorem some
  :math:`\lambda` does whenever they conflict; the kernel takes the maximiser of
  the concave piecewise-linear :math:`\varphi`, found by a walk over its breakpoints);
* *cliques*: the reversed set is an independent set of the conflict graph, so
  :math:`\sum_{k \in C} y_k \le 1` for every clique :math:`C`;
* *transitivity*: for models i above j above k before (strictly),
  :math:`y_{ij} + y_{jk} - y_{ik} \le 1` and :math:`y_{ik} - y_{ij} - y_{jk} \le 0`
  (both hold for the midranks of ``rank``, tie groups included); a pair that is
  not a candidate enters with y = 0.

**A sound number from a float LP.**  The LP maximises :math:`\sum y` over
:math:`0 \le y \le 1`, :math:`A y \le b` (the rows above).  For *any*
:math:`\pi \ge 0`, weak duality gives
:math:`\sum y \le \pi^\top b + \sum_j \max(0, 1 - (A^\top \pi)_j)` for every
feasible y, in particular for the indicator of :math:`R(a)`.  The bound is
this expression evaluated at the solver's row duals (clipped to be
non-negative), plus a margin far above the rounding of the sums, floored
because the count is an integer.  The solver's objective is never used, so
a solver that stops early, or returns inaccurate duals, can make the bound
loose but not wrong.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._quiet import quiet_solver_output

_U = 2.0**-53


@njit(cache=True)
def _lowest(d_row: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float:
    total = 0.0
    for t in range(d_row.shape[0]):
        v = d_row[t]
        total += v * lo[t] if v > 0 else v * hi[t]
    return total


@njit(cache=True)
def candidates(d: np.ndarray, slack: np.ndarray, lo: np.ndarray, hi: np.ndarray, among: np.ndarray) -> np.ndarray:
    """The pairs of ``among`` that may satisfy their condition somewhere in the box ``[lo, hi]``.

    A pair is left out only when its computed minimum over the box is at
    least ``2 slack``: the computation is off by less than ``slack``, so the
    exact minimum is then at least ``slack``.
    """
    keep = np.zeros(among.shape[0], dtype=np.bool_)
    for q in range(among.shape[0]):
        k = among[q]
        keep[q] = _lowest(d[k], lo, hi) < 2.0 * slack[k]
    return among[keep]


@njit(cache=True)
def _phi(a: np.ndarray, b: np.ndarray, lam: float, lo: np.ndarray, hi: np.ndarray) -> float:
    total = 0.0
    for t in range(a.shape[0]):
        c = lam * a[t] + (1.0 - lam) * b[t]
        total += c * lo[t] if c > 0 else c * hi[t]
    return total


@njit(cache=True)
def _conflict(a: np.ndarray, b: np.ndarray, threshold: float, lo: np.ndarray, hi: np.ndarray, lam_buf, dec_buf) -> bool:
    """Whether ``max_lambda phi(lambda) >= threshold`` (phi without the margins; see the module docstring)."""
    n = a.shape[0]
    # slope of phi at lambda = 0+: the weight of column t is lo_t where c_t > 0, else hi_t
    slope = 0.0
    nb = 0
    for t in range(n):
        sign = b[t] if b[t] != 0.0 else a[t]
        slope += (a[t] - b[t]) * (lo[t] if sign > 0 else hi[t])
        if (a[t] > 0.0 and b[t] < 0.0) or (a[t] < 0.0 and b[t] > 0.0):
            lam_buf[nb] = b[t] / (b[t] - a[t])
            dec_buf[nb] = abs(a[t] - b[t]) * (hi[t] - lo[t])
            nb += 1
    best = _phi(a, b, 0.0, lo, hi)
    if best >= threshold:
        return True
    if slope <= 0.0:
        return _phi(a, b, 1.0, lo, hi) >= threshold
    # insertion sort of the breakpoints (at most n of them)
    for p in range(1, nb):
        key, dec = lam_buf[p], dec_buf[p]
        q = p - 1
        while q >= 0 and lam_buf[q] > key:
            lam_buf[q + 1] = lam_buf[q]
            dec_buf[q + 1] = dec_buf[q]
            q -= 1
        lam_buf[q + 1] = key
        dec_buf[q + 1] = dec
    lam_star = 1.0
    for p in range(nb):
        slope -= dec_buf[p]
        if slope <= 0.0:
            lam_star = lam_buf[p]
            break
    # phi is concave: its maximum is near lam_star; rounding of lam_star only lowers the value found
    return _phi(a, b, lam_star, lo, hi) >= threshold


@njit(cache=True)
def witness_masks(d: np.ndarray, slack: np.ndarray, cand: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Per candidate, a bitset of the points (rows of ``points``) where its condition may hold (``d . a < 2 s``)."""
    words = (points.shape[0] + 63) // 64
    out = np.zeros((cand.shape[0], words), dtype=np.uint64)
    for q in range(cand.shape[0]):
        k = cand[q]
        for w in range(points.shape[0]):
            v = 0.0
            for t in range(d.shape[1]):
                v += d[k, t] * points[w, t]
            if v < 2.0 * slack[k]:
                out[q, w // 64] |= np.uint64(1) << np.uint64(w % 64)
    return out


@njit(cache=True)
def conflict_graph(
    d: np.ndarray,
    slack: np.ndarray,
    magnitude: np.ndarray,
    cand: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    masks: np.ndarray,
    known: np.ndarray,
) -> np.ndarray:
    """Adjacency (bool, candidates x candidates) of the proven conflicts among ``cand`` on the box ``[lo, hi]``.

    ``known[p, q]`` marks conflicts already proven on a larger box (still
    conflicts here); two candidates whose witness masks share a point are
    compatible and are not tested.  The test demands
    ``phi >= 2 (s_k + s_l) + 8 (n + 2) u (M_k + M_l)`` (``M`` the pairs'
    magnitudes over the whole box): at least the margins :math:`\\lambda s_k + (1-\\lambda) s_l`
    plus the rounding of ``phi``'s n products and sums.
    """
    K = cand.shape[0]
    n = d.shape[1]
    adj = known.copy()
    lam_buf = np.empty(n)
    dec_buf = np.empty(n)
    words = masks.shape[1]
    for p in range(K):
        k = cand[p]
        for q in range(p + 1, K):
            if adj[p, q]:
                continue
            shared = False
            for w in range(words):
                if masks[p, w] & masks[q, w]:
                    shared = True
                    break
            if shared:
                continue
            l_ = cand[q]
            threshold = 2.0 * (slack[k] + slack[l_]) + 8.0 * (n + 2) * _U * (magnitude[k] + magnitude[l_])
            if _conflict(d[k], d[l_], threshold, lo, hi, lam_buf, dec_buf):
                adj[p, q] = True
                adj[q, p] = True
    return adj


@njit(cache=True)
def separate_cliques(adj: np.ndarray, y: np.ndarray, max_rows: int, min_value: float) -> np.ndarray:
    """Greedy cliques of the conflict graph violated by the LP point ``y``, grown to maximal cliques.

    Each start (by decreasing y) adds the neighbour of every member with the
    largest y, then any remaining common neighbours in index order.  Returns
    a (rows x K) bool matrix of cliques with total y above ``min_value``;
    a vertex already in a violated clique of this call is not used as a start.
    """
    K = y.shape[0]
    order = np.argsort(-y, kind="mergesort")
    used = np.zeros(K, dtype=np.bool_)
    out = np.zeros((max_rows, K), dtype=np.bool_)
    rows = 0
    common = np.empty(K, dtype=np.bool_)
    for s in range(K):
        v = order[s]
        if y[v] <= 1e-9 or rows >= max_rows:
            break
        if used[v]:
            continue
        for u in range(K):
            common[u] = adj[v, u]
        members = out[rows]
        members[v] = True
        total = y[v]
        while True:
            best, best_y = -1, -1.0
            for u in range(K):
                if common[u] and y[u] > best_y:
                    best, best_y = u, y[u]
            if best < 0:
                break
            members[best] = True
            total += y[best]
            for u in range(K):
                common[u] = common[u] and adj[best, u]
        if total > min_value:
            for u in range(K):
                if members[u] and y[u] > 1e-9:
                    used[u] = True
            rows += 1
        else:
            for u in range(K):
                members[u] = False
    return out[:rows]


@njit(cache=True)
def separate_triangles(
    before: np.ndarray, index: np.ndarray, y: np.ndarray, max_rows: int, min_violation: float
) -> tuple[np.ndarray, np.ndarray]:
    """Transitivity rows violated by ``y`` (``index[i, j]``: variable of pair (i, j), -1 when it is 0).

    Returns the rows as (rows x 3) variable indices (-1 for an absent
    variable) with coefficients (+1, +1, -1) for the first kind (right side
    1) and (-1, -1, +1) for the second (right side 0), and the kind of each row.
    The most violated rows first, at most ``max_rows``.
    """
    m = before.shape[0]
    cap = 8 * max_rows + 64
    trip = np.empty((cap, 3), dtype=np.int64)
    kind = np.empty(cap, dtype=np.int64)
    viol = np.empty(cap)
    n_rows = 0
    for i in range(m):
        for j in range(m):
            if not before[i] < before[j]:
                continue
            ij = index[i, j]
            yij = y[ij] if ij >= 0 else 0.0
            for k in range(m):
                if not before[j] < before[k]:
                    continue
                jk, ik = index[j, k], index[i, k]
                yjk = y[jk] if jk >= 0 else 0.0
                yik = y[ik] if ik >= 0 else 0.0
                v1 = yij + yjk - yik - 1.0
                v2 = yik - yij - yjk
                for which, v in ((0, v1), (1, v2)):
                    if v > min_violation:
                        if n_rows == cap:  # keep the most violated half, then continue
                            keep = np.argsort(-viol[:n_rows])[: cap // 2]
                            trip[: cap // 2] = trip[keep]
                            kind[: cap // 2] = kind[keep]
                            viol[: cap // 2] = viol[keep]
                            n_rows = cap // 2
                        trip[n_rows, 0], trip[n_rows, 1], trip[n_rows, 2] = ij, jk, ik
                        kind[n_rows] = which
                        viol[n_rows] = v
                        n_rows += 1
    keep = np.argsort(-viol[:n_rows], kind="mergesort")[:max_rows]
    return trip[keep], kind[keep]


def dual_bound(rows: list, rhs: np.ndarray, n_vars: int, duals: np.ndarray) -> int:
    """The weak-duality bound on ``sum(y)`` for ``0 <= y <= 1``, ``A y <= rhs``, from any multipliers.

    ``rows`` are (variable indices, coefficients) pairs; ``duals`` are
    clipped to be non-negative, so any vector gives a valid bound.  The
    float sums are off by far less than the margin added before flooring
    (the count being bounded is an integer).
    """
    pi = np.maximum(np.asarray(duals, dtype=float), 0.0)
    col = np.zeros(n_vars)
    for (idx, coef), p in zip(rows, pi):
        if p > 0.0:
            np.add.at(col, idx, p * coef)
    terms = pi * rhs
    reduced = np.maximum(0.0, 1.0 - col)
    value = float(terms.sum() + reduced.sum())
    margin = 1e-9 * (1.0 + float(np.abs(terms).sum()) + float(np.abs(col).sum()) + n_vars)
    return int(np.floor(value + margin))


class CliqueLP:
    r"""The clique LP over the candidate pairs of one box, warm-started in HiGHS (one thread).

    Variables: one :math:`y_k \in [0, 1]` per candidate, objective
    :math:`\max \sum y`; rows: cliques of the conflict graph and transitivity
    rows, added in rounds by :meth:`tighten`.  Every bound it reports comes
    from :func:`dual_bound`, never from the solver's objective value.
    """

    def __init__(self, n_vars: int) -> None:
        import highspy

        with quiet_solver_output():
            h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)
        h.setOptionValue("random_seed", 0)
        h.addVars(n_vars, np.zeros(n_vars), np.ones(n_vars))
        h.changeColsCost(n_vars, np.arange(n_vars, dtype=np.int32), np.ones(n_vars))
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self.h = h
        self.n = n_vars
        self.rows: list = []  # (indices, coefficients)
        self.rhs: list = []
        self.keys: set = set()
        self.iterations = 0

    def add(self, rows: list) -> int:
        """Add rows ``(indices, coefficients, right side)`` not already present; returns how many were new."""
        fresh = []
        for idx, coef, b in rows:
            key = (tuple(idx.tolist()), tuple(coef.tolist()), b)
            if key in self.keys or len(idx) == 0:
                continue
            self.keys.add(key)
            fresh.append((np.asarray(idx, dtype=np.int32), np.asarray(coef, dtype=float), float(b)))
        if not fresh:
            return 0
        starts = np.cumsum([0] + [len(r[0]) for r in fresh[:-1]]).astype(np.int32)
        index = np.concatenate([r[0] for r in fresh]).astype(np.int32)
        value = np.concatenate([r[1] for r in fresh])
        upper = np.array([r[2] for r in fresh])
        self.h.addRows(len(fresh), np.full(len(fresh), -np.inf), upper, len(index), starts, index, value)
        self.rows += [(r[0], r[1]) for r in fresh]
        self.rhs += [r[2] for r in fresh]
        return len(fresh)

    def solve(self) -> tuple[np.ndarray, int]:
        """Solve; the LP point and the certified bound from the row duals (:func:`dual_bound`)."""
        self.h.run()
        info = self.h.getInfo()
        self.iterations += int(max(info.simplex_iteration_count, 0))
        sol = self.h.getSolution()
        y = np.clip(np.asarray(sol.col_value, dtype=float), 0.0, 1.0)
        if len(y) != self.n:  # no solution: the trivial bound
            return np.full(self.n, 0.5), self.n
        duals = np.asarray(sol.row_dual, dtype=float) if self.rows else np.zeros(0)
        rhs = np.asarray(self.rhs)
        # any multipliers >= 0 are valid, whatever the solver's sign convention: take the better
        bound = min(dual_bound(self.rows, rhs, self.n, duals), dual_bound(self.rows, rhs, self.n, -duals))
        self.last_duals = duals
        return y, min(bound, self.n)

    def drop_inactive(self, y: np.ndarray) -> None:
        """Delete rows that are slack at ``y`` with a zero dual (they can come back in a later round)."""
        if not self.rows:
            return
        duals = self.last_duals
        act = np.array([float(coef @ y[idx]) for idx, coef in self.rows])
        drop = np.flatnonzero((act < np.asarray(self.rhs) - 1e-6) & (np.abs(duals) < 1e-12))
        if len(drop) == 0:
            return
        self.h.deleteRows(len(drop), drop.astype(np.int32))
        keep = np.ones(len(self.rows), dtype=bool)
        keep[drop] = False
        for r in drop:
            idx, coef = self.rows[r]
            self.keys.discard((tuple(idx.tolist()), tuple(coef.tolist()), self.rhs[r]))
        self.rows = [r for r, k in zip(self.rows, keep) if k]
        self.rhs = [b for b, k in zip(self.rhs, keep) if k]


_READY = False


def ensure_compiled() -> None:
    """Compile the kernels (or load them from numba's disk cache) once per process, on a two-pair problem."""
    global _READY
    if _READY:
        return
    d = np.array([[1.0, -1.0], [-1.0, 2.0]])
    slack, lo, hi = np.zeros(2), np.full(2, 0.1), np.ones(2)
    cand = candidates(d, slack, lo, hi, np.arange(2, dtype=np.int64))
    masks = witness_masks(d, slack, cand, np.vstack([lo, hi]))
    adj = conflict_graph(d, slack, np.abs(d) @ hi, cand, lo, hi, masks, np.zeros((len(cand), len(cand)), bool))
    separate_cliques(adj, np.full(len(cand), 0.6), 4, 1.0)
    separate_triangles(np.array([1.0, 2.0, 3.0]), np.full((3, 3), -1, dtype=np.int64), np.zeros(0), 4, 1e-6)
    _READY = True
