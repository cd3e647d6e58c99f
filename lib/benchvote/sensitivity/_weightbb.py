r"""Branch and bound in weight space with the clique-LP bound at every node (``method="cliques"``).

The search covers the weight box by the faces :math:`a_t = h_t` (only the
direction of :math:`a` matters, and every weighting scales onto one of
them), then halves one weight's interval of a node at its geometric mean,
the widest first in ratio.  At every node the clique LP of :mod:`._cliques`
is rebuilt on the node's box: fewer candidates, more conflicts (a conflict on
a box is one on every sub-box, so a child starts from its parent's
conflicts and rows, restricted to its own candidates, and tests only the
rest), and rows added in rounds until the bound falls to the incumbent or
the round budget ends.  A node's bound is the smaller of its own and its
parent's (both are bounds on its box), and the certified upper bound is the
largest bound among the open nodes, or the incumbent when none is left.

Incumbents are weights whose count is recounted robustly
(:meth:`._problem._CardinalProblem.robust_count`, beyond rounding) before
they prune anything: the coordinate search from the published weighting,
from every one-task corner and from seeded random points before the root,
from every two-task corner after it (unless the budget ends at the root),
and every node's centre (polished when it beats the incumbent).  The final weights are
recounted exactly by :func:`._problem._finish_cardinal`, which marks the
result optimal only when that recount meets the bound.

Work is counted in nodes evaluated (the root and the faces included); the
LP rounds of a node are bounded by ``rounds``, so the result depends only on
the input and the options (HiGHS runs on one thread).
"""

from __future__ import annotations

import heapq
import itertools
import time
from typing import Any

import numpy as np

from ._cliques import (
    CliqueLP,
    candidates,
    conflict_graph,
    separate_cliques,
    separate_triangles,
    witness_masks,
)
from ._problem import CardinalSensitivity, _CardinalProblem, _coordinate_polish, _finish_cardinal

#: Default work budget of ``method="cliques"``: nodes of the weight-space search.
CLIQUE_NODE_LIMIT = 3000
#: LP rounds at the root (the bound every later node starts from) and at every other node.
ROOT_ROUNDS = 60
NODE_ROUNDS = 12
#: Rows separated per round: cliques, transitivity rows.
CLIQUES_PER_ROUND = 400
TRIANGLES_PER_ROUND = 1500
#: Witness points per box: two candidates whose conditions may both hold at one of them are compatible and are
#: not tested (``conflict_graph``).  Random points rarely reverse two given pairs at once; the box's corner that
#: minimises one candidate's margin reverses it and many others.  On MMLU's root (4,567 candidates, 10.4 million
#: pairs) the 128 random points left 9.7 million pairs to the exact test, 1,024 corners added 2.2 million: the
#: conflict graph took 2.7 s instead of 8.9 s, with the same edges on MMLU, BigBenchHard and a random 100 x 100
#: board (a shared witness makes the exact test fail anyway, so witnesses decide only how often it runs).
WITNESSES = 128
CORNER_WITNESSES = 1024


class _Context:
    """The problem's arrays in the form the kernels take, and the state of one search."""

    def __init__(self, prob: _CardinalProblem, seed: int) -> None:
        self.prob = prob
        self.d = np.ascontiguousarray(prob.d)
        self.slack = np.ascontiguousarray(prob.slack)
        self.magnitude = np.abs(self.d) @ prob.hi
        self.before = np.asarray(prob.before, dtype=float)
        self.upper_i, self.lower_j = prob.upper_i, prob.lower_j
        self.m = len(self.before)
        self.seed = seed
        self.nodes = 0
        self.iterations = 0

    def witnesses(self, lo: np.ndarray, hi: np.ndarray, cand: np.ndarray) -> np.ndarray:
        """The box's centre, seeded random points, and the corners minimising the margins of spread candidates."""
        rng = np.random.default_rng([self.seed, self.nodes])
        pts = np.exp(rng.uniform(np.log(lo), np.log(hi), size=(WITNESSES - 1, len(lo))))
        spread = cand[np.unique(np.linspace(0, len(cand) - 1, CORNER_WITNESSES).astype(np.int64))]
        corners = np.where(self.d[spread] > 0, lo, hi)
        return np.vstack([(lo + hi) / 2, pts, corners])

    def rows_for(self, cand: np.ndarray, y: np.ndarray, adj: np.ndarray) -> list:
        """Violated clique and transitivity rows at ``y`` (in global pair numbers)."""
        out = []
        for members in separate_cliques(adj, y, CLIQUES_PER_ROUND, 1.0 + 1e-6):
            idx = cand[np.flatnonzero(members)]
            out.append((idx, np.ones(len(idx)), 1.0))
        index = np.full((self.m, self.m), -1, dtype=np.int64)
        index[self.upper_i[cand], self.lower_j[cand]] = np.arange(len(cand))
        trip, kind = separate_triangles(self.before, index, y, TRIANGLES_PER_ROUND, 1e-6)
        for (ij, jk, ik), which in zip(trip, kind):
            coef = (1.0, 1.0, -1.0) if which == 0 else (-1.0, -1.0, 1.0)
            keep = [(cand[v], c) for v, c in zip((ij, jk, ik), coef) if v >= 0]
            out.append((np.array([k for k, _ in keep]), np.array([c for _, c in keep]), 1.0 if which == 0 else 0.0))
        return out


def _restrict(rows: list, cand: np.ndarray) -> list:
    """Rows on a sub-box: pairs that are no longer candidates are 0; rows left without a positive entry are dropped."""
    out = []
    for idx, coef, b in rows:
        keep = np.isin(idx, cand)
        if keep.all():
            out.append((idx, coef, b))
        elif (coef[keep] > 0).any():
            out.append((idx[keep], coef[keep], b))
    return out


def _evaluate(ctx: _Context, lo, hi, among, known_adj, rows, target: int, rounds: int, deadline: float | None):
    """Candidates, conflicts and the clique LP on the box ``[lo, hi]``; returns (bound, cand, adj, active rows)."""
    ctx.nodes += 1
    cand = candidates(ctx.d, ctx.slack, lo, hi, among)
    if len(cand) <= target:
        return len(cand), cand, None, []
    pos = np.searchsorted(among, cand)
    known = known_adj[np.ix_(pos, pos)] if known_adj is not None else np.zeros((len(cand), len(cand)), dtype=bool)
    masks = witness_masks(ctx.d, ctx.slack, cand, ctx.witnesses(lo, hi, cand))
    adj = conflict_graph(ctx.d, ctx.slack, ctx.magnitude, cand, lo, hi, masks, known)
    lp = CliqueLP(len(cand))
    local = {int(k): p for p, k in enumerate(cand)}
    start = _restrict(rows, cand)
    lp.add([(np.array([local[int(k)] for k in idx]), coef, b) for idx, coef, b in start])
    best = len(cand)
    for r in range(rounds):
        y, bound = lp.solve()
        best = min(best, bound)
        if best <= target or (deadline is not None and time.perf_counter() > deadline):
            break
        fresh = ctx.rows_for(cand, y, adj)
        if not fresh or r == rounds - 1:
            break
        if r >= 2:
            lp.drop_inactive(y)
        lp.add([(np.array([local[int(k)] for k in idx]), coef, b) for idx, coef, b in fresh])
    ctx.iterations += lp.iterations
    active = [(cand[idx], coef, b) for (idx, coef), b in zip(lp.rows, lp.rhs)]
    return best, cand, adj, active


def _corner_starts(lo: np.ndarray, hi: np.ndarray, tasks: int) -> list:
    """Every corner of the box with ``tasks`` weights at their top and the others at their floor."""
    n = len(lo)
    starts = []
    for top in itertools.combinations(range(n), tasks):
        a = lo.copy()
        a[list(top)] = hi[list(top)]
        starts.append(a)
    return starts


def _children(b_lo: np.ndarray, b_hi: np.ndarray, fixed: int) -> list | None:
    """The root's faces (``fixed`` < 0), or a box's two halves along its widest weight (None if too narrow)."""
    if fixed < 0:  # the root: one face per weight
        children = []
        for t in range(len(b_lo)):
            c_lo = b_lo.copy()
            c_lo[t] = b_hi[t]
            children.append((c_lo, b_hi.copy(), t))
        return children
    width = np.log(b_hi) - np.log(b_lo)
    t = int(np.argmax(width))
    if not width[t] > 1e-9:
        return None
    mid = float(np.sqrt(b_lo[t] * b_hi[t]))
    left_hi, right_lo = b_hi.copy(), b_lo.copy()
    left_hi[t], right_lo[t] = mid, mid
    return [(b_lo, left_hi, fixed), (right_lo, b_hi, fixed)]


def cardinal_cliques(
    prob: _CardinalProblem,
    *,
    work_limit: int,
    time_limit: float | None,
    seed: int,
    t0: float,
    incumbent: np.ndarray | None = None,
    random_starts: int = 16,
    root_rounds: int = ROOT_ROUNDS,
) -> CardinalSensitivity:
    """The weight-space branch and bound of the module docstring on a set-up problem (``len(prob.d) > 0``)."""
    lo, hi = prob.lo, prob.hi
    ctx = _Context(prob, seed)
    deadline = None if time_limit is None else t0 + time_limit
    rng = np.random.default_rng(seed)
    starts = [] if incumbent is None else [np.clip(np.asarray(incumbent, dtype=float), lo, hi)]
    starts += [hi.copy(), *_corner_starts(lo, hi, 1)]
    starts += [np.exp(rng.uniform(np.log(lo), np.log(hi))) for _ in range(random_starts)]
    best_a, best = hi.copy(), prob.robust_count(hi)

    def offer(a0: np.ndarray, polish: bool) -> None:
        nonlocal best_a, best
        count = prob.robust_count(a0)
        if count > best or polish:
            a, _ = _coordinate_polish(prob.d, a0, lo, hi, rng) if polish else (a0, None)
            c2 = prob.robust_count(a)
            if c2 > best:
                best_a, best = a, c2

    for a0 in starts:
        offer(a0, True)
        if deadline is not None and time.perf_counter() > deadline:
            break
    everything = np.arange(len(prob.d), dtype=np.int64)
    root_bound, cand, adj, rows = _evaluate(ctx, lo, hi, everything, None, [], best, root_rounds, deadline)
    if root_bound > best and ctx.nodes < work_limit:  # the root's bound first; then the two-task corners
        for a0 in _corner_starts(lo, hi, 2):
            if deadline is not None and time.perf_counter() > deadline:
                break
            offer(a0, True)
    stopped = ""
    heap: list[tuple[Any, ...]] = []
    if root_bound > best:
        heap.append((-root_bound, 0, 0, (lo, hi, cand, adj, rows, -1)))
    tick = 1

    def out_of_budget() -> str:
        if ctx.nodes >= work_limit:
            return "work_limit"
        if deadline is not None and time.perf_counter() > deadline:
            return "time_limit"
        return ""

    while heap:
        neg, _, _, (b_lo, b_hi, b_cand, b_adj, b_rows, fixed) = heap[0]
        if -neg <= best:
            heapq.heappop(heap)
            continue
        stopped = out_of_budget()
        if stopped:
            break
        heapq.heappop(heap)
        children = _children(b_lo, b_hi, fixed)
        if children is None:  # too narrow to halve: it stays open
            heapq.heappush(heap, (neg, 1, tick, (b_lo, b_hi, b_cand, b_adj, b_rows, fixed)))
            stopped = "narrow"
            break
        for c_lo, c_hi, face in children:
            if out_of_budget():  # not evaluated: it stays open with its parent's bound and data
                heapq.heappush(heap, (neg, 1, tick, (c_lo, c_hi, b_cand, b_adj, b_rows, face)))
                tick += 1
                continue
            offer((c_lo + c_hi) / 2, False)
            bound, c_cand, c_adj, c_rows = _evaluate(
                ctx, c_lo, c_hi, b_cand, b_adj, b_rows, best, NODE_ROUNDS, deadline
            )
            bound = min(bound, -neg)
            if bound > best:
                heapq.heappush(heap, (-bound, -ctx.nodes, tick, (c_lo, c_hi, c_cand, c_adj, c_rows, face)))
                tick += 1
    upper = max([best] + [-entry[0] for entry in heap])
    upper = min(upper, root_bound) if root_bound >= best else upper
    stopped = "solver" if stopped == "narrow" else stopped
    return _finish_cardinal(
        prob, best_a, "cliques", upper=upper, seconds=time.perf_counter() - t0, stopped=stopped, work=ctx.nodes
    )
