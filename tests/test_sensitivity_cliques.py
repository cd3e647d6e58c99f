"""benchvote.sensitivity._cliques: the conflict test, the witnesses, the clique LP and its dual bound, against exact
rational computations and brute force.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from sensitivity_oracles import exact_max_min

from benchvote.sensitivity._cliques import (
    CliqueLP,
    candidates,
    conflict_graph,
    dual_bound,
    ensure_compiled,
    witness_masks,
)
from benchvote.sensitivity._problem import _cardinal_setup
from benchvote.sensitivity._weightbb import _Context

ensure_compiled()


def _exact_both_possible(dk, dl, lo, hi):
    """Exact: whether some a in the box has d_k . a < 0 and d_l . a < 0 (max-min of -d over the box is > 0)."""
    rows = [[-Fraction(float(v)) for v in dk], [-Fraction(float(v)) for v in dl]]
    value, _ = exact_max_min(rows, [Fraction(float(v)) for v in lo], [Fraction(float(v)) for v in hi])
    return value > 0


class TestPieces:
    @pytest.mark.parametrize("seed", range(8))
    def test_conflicts_against_an_exact_lp(self, seed):
        """A claimed conflict is exact (no point reverses both); a clear one (by a margin) is always found."""
        rng = np.random.default_rng(seed)
        n = int(rng.integers(2, 6))
        d = np.round(rng.normal(size=(14, n)), 2)
        lo, hi = np.full(n, 0.1), np.ones(n)
        slack = np.zeros(len(d))
        cand = candidates(d, slack, lo, hi, np.arange(len(d), dtype=np.int64))
        masks = witness_masks(d, slack, cand, np.vstack([lo, hi, (lo + hi) / 2]))
        adj = conflict_graph(d, slack, np.abs(d) @ hi, cand, lo, hi, masks, np.zeros((len(cand),) * 2, bool))
        for p, q in itertools.combinations(range(len(cand)), 2):
            possible = _exact_both_possible(d[cand[p]], d[cand[q]], lo, hi)
            if adj[p, q]:
                assert not possible
            else:  # missed only if some weighting nearly reverses both
                shifted = _exact_both_possible(d[cand[p]] - 1e-6, d[cand[q]] - 1e-6, lo, hi)
                assert possible or shifted
        # a pair left out is one that no weighting reverses
        for k in set(range(len(d))) - set(cand.tolist()):
            assert not _exact_both_possible(d[k], d[k], lo, hi)

    @pytest.mark.parametrize("seed", range(6))
    def test_witness_points_decide_how_often_the_exact_test_runs_not_the_edges(self, seed):
        """The conflict graph is the same with the search's witnesses (random points and corners) as with none."""
        rng = np.random.default_rng(seed)
        scores = rng.normal(size=(25, 6)) + rng.normal(size=(25, 1))
        prob = _cardinal_setup(scores, True, 0.05, "none", 1e-9)
        ctx = _Context(prob, seed=seed)
        lo, hi = prob.lo, prob.hi
        cand = candidates(ctx.d, ctx.slack, lo, hi, np.arange(len(ctx.d), dtype=np.int64))
        none = np.zeros((len(cand), 1), dtype=np.uint64)  # no point: every pair reaches the exact test
        known = np.zeros((len(cand),) * 2, bool)
        points = ctx.witnesses(lo, hi, cand)
        masks = witness_masks(ctx.d, ctx.slack, cand, points)
        assert len(points) > 128 and masks.any()  # the corners are there and some candidates share one
        full = conflict_graph(ctx.d, ctx.slack, ctx.magnitude, cand, lo, hi, none, known)
        assert np.array_equal(conflict_graph(ctx.d, ctx.slack, ctx.magnitude, cand, lo, hi, masks, known), full)

    @pytest.mark.parametrize("seed", range(20))
    def test_dual_bound_from_any_multipliers(self, seed):
        """Any multipliers, even random ones, bound the best 0/1 point (brute force over 2^8 points)."""
        rng = np.random.default_rng(seed)
        k = 8
        rows, rhs = [], []
        for _ in range(int(rng.integers(1, 7))):
            idx = np.sort(rng.choice(k, size=int(rng.integers(1, 4)), replace=False))
            rows.append((idx, rng.choice([-1.0, 1.0], size=len(idx))))
            rhs.append(float(rng.integers(0, 2)))
        best = max(
            sum(y)
            for y in itertools.product((0, 1), repeat=k)
            if all(coef @ np.array(y)[idx] <= b for (idx, coef), b in zip(rows, rhs))
        )
        for duals in (rng.uniform(-1, 2, size=len(rows)), np.zeros(len(rows)), rng.exponential(size=len(rows))):
            assert dual_bound(rows, np.array(rhs), k, duals) >= best

    def test_clique_lp_reports_the_dual_bound(self):
        """A triangle of conflicts: the LP's bound from its duals is 1, and rows are not added twice."""
        lp = CliqueLP(3)
        clique = (np.array([0, 1, 2]), np.ones(3), 1.0)
        assert lp.add([clique, clique]) == 1
        y, bound = lp.solve()
        assert bound == 1 and y.sum() == pytest.approx(1.0)
