"""The clique LP bound (sensitivity/_cliques.py) and the weight-space branch and bound (sensitivity/_weightbb.py).

Every certificate against the exhaustive oracles of test_sensitivity.py (the arrangement sweep for n <= 3,
the depth-first exact-LP oracle for any n), on small tables, mixed scales included; the pieces (the conflict
test, the dual bound) against exact rational computations.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sensitivity import (
    _has_constant_task,
    arrangement_oracle,
    check_cardinal_verdicts,
    lp_cardinal_oracle,
    random_cardinal,
    small_boards,
)
from test_winners import exact_max_min, mixed_scale_tables

from benchvote.sensitivity import cardinal_sensitivity, cardinal_sensitivity_exact
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


class TestAgainstTheArrangement:
    """Hundreds of small tables: never a bound below the true maximum, never optimal when it is not."""

    @settings(max_examples=250, deadline=None, derandomize=True)
    @given(small_boards(), st.sampled_from([1, 2, 3000]))
    def test_bounds_and_proofs(self, board, work):
        s, eps, normalize = board
        if _has_constant_task(s):
            return
        truth = arrangement_oracle(s, eps, normalize)
        r = cardinal_sensitivity_exact(s, eps=eps, normalize=normalize, method="cliques", work_limit=work)
        pairs = comb(len(s), 2)
        assert r.n_flipped <= truth <= round(r.upper_bound * pairs)
        assert r.optimal == (r.n_flipped == round(r.upper_bound * pairs))
        if r.optimal:
            assert r.n_flipped == truth
        if work == 3000:  # the full search finishes on these tables
            assert r.optimal and r.stopped == ""


class TestMixedScales:
    """Columns of units from 1e-6 to 1e10 (latencies, parameter counts, rescaled accuracies), up to 4 tasks."""

    @pytest.mark.parametrize("normalize", ["none", "zscore"])
    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(board=mixed_scale_tables(max_models=5), eps=st.sampled_from([None, None, 0.01, 1e-4, 0.1, 0.5]))
    def test_against_the_exhaustive_oracle(self, normalize, board, eps):
        s, hib = board
        for work in (1, 3000):
            r = cardinal_sensitivity_exact(s, hib, eps=eps, normalize=normalize, method="cliques", work_limit=work)
            check_cardinal_verdicts(s, hib, r, normalize, eps)

    @pytest.mark.parametrize("seed", range(6))
    def test_root_bound_on_six_tasks_against_the_lp_oracle(self, seed):
        """More tasks than the arrangement handles: the root's bound and the full search against the LP oracle."""
        s = random_cardinal(100 + seed, m=6, n=6)
        truth = lp_cardinal_oracle(s, 0.05)
        for work in (1, 3000):
            r = cardinal_sensitivity_exact(s, eps=0.05, method="cliques", work_limit=work)
            assert r.n_flipped <= truth <= round(r.upper_bound * comb(6, 2))
            assert not r.optimal or r.n_flipped == truth


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


class TestSearch:
    def test_same_numbers_on_every_run(self):
        s = random_cardinal(7, m=14, n=12)
        runs = [cardinal_sensitivity_exact(s, eps=0.05, method="cliques", work_limit=40) for _ in range(2)]
        assert [(r.n_flipped, r.upper_bound, r.work, r.stopped) for r in runs] == [
            (runs[0].n_flipped, runs[0].upper_bound, runs[0].work, runs[0].stopped)
        ] * 2
        assert np.array_equal(runs[0].weights, runs[1].weights)

    def test_a_work_limit_stops_it_with_a_bound(self):
        s = random_cardinal(8, m=14, n=12)
        r = cardinal_sensitivity_exact(s, eps=0.05, method="cliques", work_limit=1)
        assert r.work == 1 and r.upper_bound >= r.tau_distance
        assert r.optimal or r.stopped == "work_limit"

    def test_auto_attaches_the_root_bound_beyond_ten_tasks(self):
        s = random_cardinal(13, m=8, n=12)
        auto = cardinal_sensitivity(s, eps=0.05, restarts=4, steps=30, polish_starts=4)
        root = cardinal_sensitivity_exact(s, eps=0.05, method="cliques", work_limit=1)
        assert auto.upper_bound is not None and auto.tau_distance <= auto.upper_bound
        assert auto.optimal == (auto.tau_distance >= auto.upper_bound)
        assert auto.n_flipped >= root.n_flipped
