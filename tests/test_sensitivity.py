"""Tests for benchvote.sensitivity: exact solvers against brute force, relaxations against exact."""

from __future__ import annotations

import time
from itertools import combinations, product
from math import comb

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog

import benchvote as bv
from benchvote.aggregation import protected_ranking
from benchvote.sensitivity import (
    cardinal_sensitivity,
    cardinal_sensitivity_exact,
    default_eps,
    default_protected,
    no_intercept_fit,
    ordinal_sensitivity,
    ordinal_sensitivity_exact,
    subset_agreement,
)


def brute_cardinal(s, eps):
    """Largest number of simultaneously reversible pairs: LP feasibility of subsets of pairs (tiny m).

    A set of pairs is reversible when some weights in [eps, 1] reverse every pair of it strictly (an LP).  Every
    subset of a reversible set is reversible (fewer constraints), so the reversible sets are found level by level:
    a set of k + 1 pairs is tried only when each of its k-pair subsets was found reversible, and every other set of
    that size has an irreversible subset.  Exhaustive, with the same LP per set; a few dozen LPs where trying
    every subset from the largest down took about a thousand.
    """
    before = bv.rank(s.mean(axis=1))
    pairs = [(i, j) for i in range(len(s)) for j in range(len(s)) if before[i] < before[j]]
    n = s.shape[1]

    def reversible(subset):
        d = np.array([s[i] - s[j] for i, j in (pairs[k] for k in subset)])
        # maximise t with d a + t <= 0, a in [eps, 1]: feasible with t > 0 iff all reversals are strict
        res = linprog(
            np.r_[np.zeros(n), -1.0],
            A_ub=np.hstack([d, np.ones((len(subset), 1))]),
            b_ub=np.zeros(len(subset)),
            bounds=[(eps, 1)] * n + [(None, 1)],
            method="highs",
        )
        return res.status == 0 and -res.fun > 1e-9

    level, best = {()}, 0  # the reversible sets of `best` pairs, each as increasing pair indices
    while level:
        grown = {
            (*subset, k)
            for subset in level
            for k in range(subset[-1] + 1 if subset else 0, len(pairs))
            if all((*subset, k)[:drop] + (*subset, k)[drop + 1 :] in level for drop in range(len(subset)))
        }
        level = {subset for subset in sorted(grown) if reversible(subset)}
        best += bool(level)
    return best


def brute_ordinal(scores, protected, pool):
    """Try every subset of the pool and recompute the protected ranking directly."""
    alone = protected_ranking(scores, protected=protected).to_numpy()
    best = 0
    for size in range(len(pool) + 1):
        for added in combinations(pool, size):
            after = protected_ranking(scores, protected=protected, added=list(added)).to_numpy()
            best = max(best, round(bv.kendall_tau_distance(alone, after) * len(alone) * (len(alone) - 1) / 2))
    return best


def random_cardinal(seed, m=5, n=3):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(m, 1))
    return base + rng.normal(scale=1.0, size=(m, n))


def random_ordinal(seed, m=8, n=4, p=3):
    rng = np.random.default_rng(seed)
    s = pd.DataFrame(
        rng.integers(0, 6, size=(m, n)).astype(float),
        index=[f"m{i}" for i in range(m)],
        columns=[f"t{k}" for k in range(n)],
    )
    order = list(bv.mean_win_rate(s).sort_values(ascending=False).index)
    return s, order[:p], order[p:]


class TestCardinalExact:
    @pytest.mark.parametrize("seed", range(12))
    def test_milp_matches_brute_force(self, seed):
        s = random_cardinal(seed)
        r = cardinal_sensitivity_exact(s, eps=0.05)
        assert r.optimal
        assert r.n_flipped == brute_cardinal(s, 0.05)

    @pytest.mark.parametrize("seed", range(12))
    def test_box_search_matches_brute_force(self, seed):
        from benchvote.sensitivity._problem import _cardinal_setup
        from benchvote.sensitivity.cardinal_exact import _cardinal_boxes

        s = random_cardinal(seed, n=2 + seed % 4)
        if seed % 3 == 0:
            s = np.round(s, 1)  # coarse scores: ties, and hyperplanes through the corners of boxes
        r = cardinal_sensitivity_exact(s, eps=0.05, method="boxes")
        assert r.optimal and r.method == "boxes" and r.upper_bound == r.tau_distance
        brute = brute_cardinal(s, 0.05)
        assert r.n_flipped == brute
        # the order of the search (one box per group and one level per dive, or everything at once;
        # the split weight chosen from one sampled pair) must not change the maximum or its proof
        prob = _cardinal_setup(s, True, 0.05, "none", 1e-9)
        for group, dive, sample in ((1, 1, 1), (4096, 1000, 64)):
            other = _cardinal_boxes(prob, 60.0, 0, time.perf_counter(), group=group, dive=dive, sample=sample)
            assert other.optimal and other.n_flipped == brute

    @pytest.mark.parametrize("seed", range(4))
    def test_halving_updates_are_sound(self, seed):
        # the box kernels against exact rational arithmetic, on pairs whose hyperplanes touch a corner of
        # the box (within float64 rounding): every box on a random path of J_MAX + 4 halvings (so the
        # values are recomputed from the box's ends once on the way) must keep a pair that can satisfy the
        # condition in it reachable, and may call it reversed everywhere only when it is
        from fractions import Fraction

        from benchvote.sensitivity._boxes import J_MAX, box_margins, evaluate_boxes, halve_boxes

        rng = np.random.default_rng(seed)
        n, k = 3 + seed, 120
        hi = np.full(n, 1.0 + seed)
        lo = 0.01 * hi
        box_lo = rng.uniform(0.01, 0.3, size=n) * hi
        box_hi = box_lo + rng.uniform(0.3, 0.6, size=n) * hi
        d = rng.normal(scale=10.0 ** rng.integers(-3, 3, size=(k, 1)), size=(k, n))
        d[:, 0] = np.abs(d[:, 0]) + 0.1  # a positive first entry to move the hyperplane
        corner = np.where(d > 0, box_lo, box_hi)
        tangent = rng.random(k) < 0.5  # these rows have their smallest value over the box at about zero
        d[tangent, 0] -= (d[tangent] * corner[tangent]).sum(axis=1) / corner[tangent, 0]
        d[tangent, 0] = np.maximum(d[tangent, 0], 1e-3)
        margin = box_margins(d, np.zeros(k), hi)
        assert (box_lo >= lo).all() and (box_hi <= hi).all()

        def exact(p, b_lo, b_hi):
            dv = [Fraction(v) for v in d[p]]
            low = sum(v * Fraction(b_lo[t] if v > 0 else b_hi[t]) for t, v in enumerate(dv))
            high = sum(v * Fraction(b_hi[t] if v > 0 else b_lo[t]) for t, v in enumerate(dv))
            return low, high

        d_cols, d_abs = np.ascontiguousarray(d.T), np.abs(d)
        near = 0
        for p in range(k):  # one pair at a time, so that its box's counts say how it was classified
            one = np.array([p], dtype=np.int32)
            b_lo, b_hi = box_lo[None].copy(), box_hi[None].copy()
            bound, base, _, split, off, pk, low, high = evaluate_boxes(
                d, d_abs, margin, b_lo, b_hi, np.zeros(1, dtype=np.int64), one, 64
            )
            updates = np.zeros(1, dtype=np.int64)
            for _ in range(J_MAX + 4):
                e_low, e_high = exact(p, b_lo[0], b_hi[0])
                near += abs(float(e_low)) < 1e-9
                if e_low < 0:
                    assert bound[0] == 1, (p, float(e_low))  # reachable
                if base[0] == 1:
                    assert e_high < 0  # reversed everywhere in the box
                if len(pk) == 0:  # settled: nothing left to halve on this path
                    break
                split = rng.integers(0, n, size=1)
                out = halve_boxes(
                    d, d_cols, d_abs, margin, b_lo, b_hi, base, bound, split, updates, off, pk, low, high, -1, 64
                )
                c_lo, c_hi, c_base, c_bound, _, _, c_upd, c_off, c_pk, c_low, c_high, stuck = out
                assert stuck == -1 and len(c_lo) == 2  # best = -1 keeps both children
                side = int(rng.integers(0, 2))
                b_lo, b_hi = c_lo[side : side + 1].copy(), c_hi[side : side + 1].copy()
                bound, base, updates = c_bound[side : side + 1], c_base[side : side + 1], c_upd[side : side + 1]
                start, stop = c_off[side], c_off[side + 1]
                pk, low, high = c_pk[start:stop].copy(), c_low[start:stop].copy(), c_high[start:stop].copy()
                off = np.array([0, stop - start], dtype=np.int64)
                for q, pair in enumerate(pk):  # the carried values stay within the margin of the exact ones
                    e_low, e_high = exact(int(pair), b_lo[0], b_hi[0])
                    assert abs(float(e_low) - low[q]) <= margin[pair] and abs(float(e_high) - high[q]) <= margin[pair]
        assert near > 0  # the tangent rows are really close to their hyperplanes on some boxes

    def test_a_box_too_narrow_to_halve_stays_open(self):
        from benchvote.sensitivity._boxes import box_margins, evaluate_boxes, halve_boxes

        d = np.array([[1.0, -1.0], [-1.0, 1.0], [2.0, -1.0]])
        hi = np.ones(2)
        margin = box_margins(d, np.zeros(3), hi)
        b_lo, b_hi = np.array([[0.5, 0.25]]), np.array([[0.5, 1.0]])  # no width along weight 0
        bound, base, _, _, off, pk, low, high = evaluate_boxes(
            d, np.abs(d), margin, b_lo, b_hi, np.zeros(1, dtype=np.int64), np.arange(3, dtype=np.int32), 64
        )
        assert bound[0] == 3 and base[0] == 0  # every pair can satisfy its condition somewhere in the box
        out = halve_boxes(
            d,
            d.T.copy(),
            np.abs(d),
            margin,
            b_lo,
            b_hi,
            base,
            bound,
            np.zeros(1, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            off,
            pk,
            low,
            high,
            0,
            64,
        )
        assert len(out[0]) == 0 and out[-1] == 3  # no children; its bound is reported as still open

    def test_compiling_the_kernels_is_not_charged_to_the_time_limit(self, monkeypatch):
        # a slow first compilation (simulated: half a second) must neither stop the search nor enter its time
        from benchvote.sensitivity import _boxes

        def slow_compile():
            time.sleep(0.5)

        _boxes.ensure_compiled()  # the real kernels, loaded before the clock matters
        monkeypatch.setattr(_boxes, "ensure_compiled", slow_compile)
        s = random_cardinal(5, n=3)
        r = cardinal_sensitivity_exact(s, eps=0.05, method="boxes", time_limit=0.4)
        assert r.optimal and r.n_flipped == brute_cardinal(s, 0.05)
        assert r.seconds < 0.4

    @pytest.mark.parametrize("normalize", ["none", "zscore"])
    def test_box_search_orders_agree(self, normalize):
        # larger tables: the default order, one big group, and small groups with long dives all prove
        # the same maximum
        from benchvote.sensitivity._problem import _cardinal_setup
        from benchvote.sensitivity.cardinal_exact import _cardinal_boxes

        for seed in range(3):
            s = random_cardinal(300 + seed, m=60, n=5 + seed)
            prob = _cardinal_setup(s, True, 0.01, normalize, 1e-9)
            runs = [
                _cardinal_boxes(prob, 60.0, seed, time.perf_counter(), group=g, dive=dv)
                for g, dv in ((128, 8), (4096, 64), (16, 256))
            ]
            assert all(r.optimal for r in runs)
            assert len({r.n_flipped for r in runs}) == 1 and len({r.upper_bound for r in runs}) == 1

    @pytest.mark.parametrize("normalize", ["none", "zscore"])
    def test_box_search_and_milp_agree_on_larger_instances(self, normalize):
        for seed in range(8):
            s = random_cardinal(200 + seed, m=12, n=3 + seed % 3)
            boxes = cardinal_sensitivity_exact(s, eps=0.02, normalize=normalize, method="boxes")
            milp = cardinal_sensitivity_exact(s, eps=0.02, normalize=normalize, method="milp")
            assert boxes.optimal and milp.optimal
            assert boxes.n_flipped == milp.n_flipped

    def test_box_search_stopped_early_still_bounds_the_maximum(self):
        s = random_cardinal(17, m=40, n=14)
        stopped = cardinal_sensitivity_exact(s, eps=0.01, method="boxes", time_limit=0.2)
        assert not stopped.optimal
        assert stopped.tau_distance <= stopped.upper_bound
        best = cardinal_sensitivity(s, method="relaxation", eps=0.01, restarts=8, steps=60, seed=1)
        assert best.tau_distance <= stopped.upper_bound

    def test_box_search_weights_reproduce_the_count(self):
        s = random_cardinal(4, m=30, n=5)
        r = cardinal_sensitivity_exact(s, eps=0.05, method="boxes")
        after = bv.rank(s @ np.asarray(r.weights))
        assert r.n_flipped == round(bv.kendall_tau_distance(bv.rank(s.mean(axis=1)), after) * comb(30, 2))
        assert np.isclose(np.max(r.weights), 1.0) and np.min(r.weights) >= 0.05 * (1 - 1e-9)

    @pytest.mark.slow
    def test_box_search_respects_duplicated_tasks(self):
        rng = np.random.default_rng(3)
        base = rng.normal(size=(5, 2))  # 10 pairs: the subset oracle solves at most 2^10 LPs
        s = np.hstack([base, base[:, [0]], base[:, [0]]])  # task 0 three times: its weight ranges over [3 eps, 3]
        found = cardinal_sensitivity_exact(s, eps=0.05, method="boxes").n_flipped
        assert found == brute_cardinal(s, 0.05)
        # the copies matter here: the table without them reverses fewer pairs
        assert cardinal_sensitivity_exact(base, eps=0.05, method="boxes").n_flipped < found

    def test_unknown_method_and_bad_time_limit(self):
        with pytest.raises(ValueError, match="method"):
            cardinal_sensitivity_exact(random_cardinal(0), eps=0.05, method="simplex")
        with pytest.raises(ValueError, match="time_limit"):
            cardinal_sensitivity_exact(random_cardinal(0), eps=0.05, time_limit=0)

    def test_two_tasks_against_a_one_dimensional_sweep(self):
        rng = np.random.default_rng(1)
        for _ in range(10):
            s = rng.normal(size=(7, 2))
            eps = 0.1
            before = bv.rank(s.mean(axis=1))
            # with two tasks only the ratio t = a1 / a2 in [eps, 1/eps] matters: sweep every cell of the line
            d = np.array([s[i] - s[j] for i in range(7) for j in range(7) if before[i] < before[j]])
            cuts = np.sort([-dk[1] / dk[0] for dk in d if dk[0] != 0])
            cuts = cuts[(cuts > eps) & (cuts < 1 / eps)]
            grid = np.unique(np.r_[eps, 1 / eps, cuts])
            cand = np.r_[eps, 1 / eps, (grid[:-1] + grid[1:]) / 2]
            best = max(int(((d[:, 0] * t + d[:, 1]) < 0).sum()) for t in cand)
            assert cardinal_sensitivity_exact(s, eps=eps).n_flipped == best


class TestCardinalRelaxation:
    def test_never_above_exact_and_usually_equal(self):
        hits = 0
        for seed in range(20):
            s = random_cardinal(100 + seed, m=8, n=4)
            exact = cardinal_sensitivity_exact(s, eps=0.05)
            relaxed = cardinal_sensitivity(
                s, method="relaxation", eps=0.05, restarts=8, steps=60, polish_starts=16, seed=seed
            )
            assert relaxed.n_flipped <= exact.n_flipped
            hits += relaxed.n_flipped == exact.n_flipped
        assert hits >= 17  # measured 20 of 20; polish makes the relaxation nearly exact on small instances

    def test_reported_tau_is_recomputed_from_the_weights(self):
        s = random_cardinal(3, m=9, n=4)
        r = cardinal_sensitivity(s, method="relaxation", restarts=4, steps=30, polish_starts=4)
        after = bv.rank(s @ np.asarray(r.weights))
        assert r.tau_distance == bv.kendall_tau_distance(bv.rank(s.mean(axis=1)), after)
        assert np.isclose(np.max(r.weights), 1.0) and np.min(r.weights) >= r.eps * (1 - 1e-12)

    def test_deterministic_under_a_seed(self):
        s = random_cardinal(5, m=10, n=5)
        a = cardinal_sensitivity(s, method="relaxation", restarts=6, steps=40, polish_starts=6, seed=7)
        b = cardinal_sensitivity(s, method="relaxation", restarts=6, steps=40, polish_starts=6, seed=7)
        assert a.tau_distance == b.tau_distance and np.array_equal(a.weights, b.weights)

    def test_conventions_agree_when_tasks_share_a_scale(self):
        s = random_cardinal(8, m=9, n=3)
        s = s / s.std(axis=0)  # every task has standard deviation 1
        a = cardinal_sensitivity_exact(s, eps=0.05, normalize="none")
        b = cardinal_sensitivity_exact(s, eps=0.05, normalize="zscore")
        assert a.n_flipped == b.n_flipped
        assert np.allclose(bv.rank(s @ np.asarray(a.weights)), a.ranking_after)

    def test_adding_a_constant_to_a_task_changes_nothing(self):
        s = random_cardinal(9, m=8, n=3)
        shifted = s + np.array([0.0, 10.0, -4.0])
        assert (
            cardinal_sensitivity_exact(s, eps=0.05).n_flipped == cardinal_sensitivity_exact(shifted, eps=0.05).n_flipped
        )

    @pytest.mark.parametrize(
        "kwargs, message",
        [
            (dict(eps=0.0), "eps"),
            (dict(eps=1.0), "eps"),
            (dict(eps=1.5), "eps"),
            (dict(normalize="minmax"), "normalize"),
        ],
    )
    def test_bad_options(self, kwargs, message):
        with pytest.raises(ValueError, match=message):
            cardinal_sensitivity(random_cardinal(0), method="relaxation", restarts=1, steps=1, **kwargs)

    def test_auto_returns_the_proof_where_the_box_search_finds_one(self):
        s = random_cardinal(11, m=9, n=4)
        auto = cardinal_sensitivity(s, eps=0.05)
        exact = cardinal_sensitivity_exact(s, eps=0.05)
        assert auto.optimal and exact.optimal and auto.n_flipped == exact.n_flipped
        assert auto.method == exact.method

    def test_auto_keeps_the_better_of_an_unfinished_search_and_the_relaxation(self):
        s = random_cardinal(12, m=30, n=6)
        options = dict(eps=0.01, time_limit=0.05, restarts=4, steps=30, polish_starts=4, seed=2)
        auto = cardinal_sensitivity(s, **options)
        exact = cardinal_sensitivity_exact(s, eps=0.01, time_limit=0.05, seed=2)
        relaxed = cardinal_sensitivity(
            s, method="relaxation", **{k: v for k, v in options.items() if k != "time_limit"}
        )
        assert auto.n_flipped >= max(relaxed.n_flipped, exact.n_flipped)  # the better one, recounted exactly
        assert auto.upper_bound is not None and auto.tau_distance <= auto.upper_bound
        assert auto.optimal == (auto.tau_distance >= auto.upper_bound)

    def test_auto_uses_the_relaxation_and_the_clique_bound_beyond_ten_distinct_tasks(self):
        s = random_cardinal(13, m=8, n=12)
        auto = cardinal_sensitivity(s, eps=0.05, restarts=4, steps=30, polish_starts=4)
        relaxed = cardinal_sensitivity(s, eps=0.05, method="relaxation", restarts=4, steps=30, polish_starts=4)
        assert auto.n_flipped >= relaxed.n_flipped and auto.upper_bound is not None
        assert auto.optimal == (auto.tau_distance >= auto.upper_bound)

    def test_lower_is_better_tasks_and_leaderboards(self):
        s = random_cardinal(14, m=9, n=4)
        flipped = s * np.array([1.0, -1.0, 1.0, -1.0])
        hib = [True, False, True, False]
        a = cardinal_sensitivity_exact(s, eps=0.05)
        b = cardinal_sensitivity_exact(flipped, hib, eps=0.05)
        assert a.n_flipped == b.n_flipped and np.allclose(a.ranking_before, b.ranking_before)
        frame = pd.DataFrame(flipped, index=[f"m{i}" for i in range(9)], columns=list("abcd"))
        board = bv.data.Leaderboard("toy", "cardinal", frame, pd.Series(hib, index=frame.columns), "test", "0")
        c = cardinal_sensitivity_exact(board, eps=0.05)
        assert c.n_flipped == a.n_flipped
        with pytest.raises(ValueError, match="Leaderboard"):
            cardinal_sensitivity_exact(board, hib, eps=0.05)

    def test_bad_data(self):
        with pytest.raises(ValueError, match="constant task"):
            cardinal_sensitivity(np.array([[1.0, 2.0], [1.0, 3.0]]), restarts=1, steps=1)
        with pytest.raises(ValueError, match="constant task"):
            default_eps(np.array([[1.0, 2.0], [1.0, 3.0]]))
        with pytest.raises(ValueError, match="missing"):
            cardinal_sensitivity(np.array([[1.0, np.nan], [2.0, 3.0]]), restarts=1, steps=1)


class TestOrdinal:
    @pytest.mark.parametrize("seed", range(10))
    def test_enumeration_and_milp_match_brute_force(self, seed):
        s, protected, pool = random_ordinal(seed)
        truth = brute_ordinal(s, protected, pool)
        enum = ordinal_sensitivity_exact(s, protected=protected, method="enumerate")
        mip = ordinal_sensitivity_exact(s, protected=protected, method="milp")
        assert enum.n_flipped == truth and enum.optimal
        assert mip.n_flipped == truth and mip.optimal
        # the returned subset achieves it
        after = protected_ranking(s, protected=protected, added=list(enum.added))
        assert enum.n_flipped == round(bv.kendall_tau_distance(enum.ranking_before, after) * 3)

    @pytest.mark.parametrize("seed", range(6))
    def test_transitivity_cuts_hold_for_the_true_reversals_of_every_added_set(self, seed):
        """The program's transitivity rows cut no true answer away: the reversals that adding any set of pool models
        makes (mean win rates recomputed in the new field) satisfy every row."""
        from benchvote.sensitivity.ordinal import _ordered_pairs, _ordinal_setup, _transitivity_cuts

        s, protected, pool = random_ordinal(300 + seed, m=12, n=5, p=6)
        _, protected, pool, fm = _ordinal_setup(s, True, protected)
        a_idx, b_idx = _ordered_pairs(fm)
        cuts = _transitivity_cuts(a_idx, b_idx, len(pool))
        assert cuts is not None and cuts.A.shape[0] >= 2
        rng = np.random.default_rng(seed)
        for _ in range(40):
            beta = rng.random(len(pool)) < 0.5
            field = list(protected) + [x for x, on in zip(pool, beta) if on]
            rate = bv.mean_win_rate(s.loc[field])
            y = [float(rate[protected[a]] < rate[protected[b]]) for a, b in zip(a_idx, b_idx)]
            lhs = cuts.A @ np.concatenate([beta.astype(float), y])
            assert np.all(lhs <= cuts.ub + 1e-12)

    @pytest.mark.parametrize("seed", range(4))
    def test_the_program_with_its_cuts_matches_enumeration_on_six_protected_models(self, seed):
        s, protected, _ = random_ordinal(400 + seed, m=15, n=5, p=6)
        enum = ordinal_sensitivity_exact(s, protected=protected, method="enumerate")
        mip = ordinal_sensitivity_exact(s, protected=protected, method="milp")
        assert mip.optimal and mip.n_flipped == enum.n_flipped

    def test_no_transitivity_cuts_beyond_the_row_cap(self, monkeypatch):
        from benchvote.sensitivity import ordinal

        a_idx, b_idx = np.nonzero(np.triu(np.ones((5, 5), bool), 1))  # 5 models in a strict order: 10 triples
        assert ordinal._transitivity_cuts(a_idx, b_idx, 3).A.shape == (20, 13)
        monkeypatch.setattr(ordinal, "MAX_TRANSITIVITY_ROWS", 19)
        assert ordinal._transitivity_cuts(a_idx, b_idx, 3) is None

    def test_relaxation_never_above_exact_and_usually_equal(self):
        hits = 0
        for seed in range(20):
            s, protected, pool = random_ordinal(200 + seed, m=12, n=5, p=4)
            exact = ordinal_sensitivity_exact(s, protected=protected)
            relaxed = ordinal_sensitivity(s, protected=protected, restarts=16, steps=60, seed=seed)
            assert relaxed.n_flipped <= exact.n_flipped
            hits += relaxed.n_flipped == exact.n_flipped
        assert hits >= 16  # measured 20 of 20

    def test_invariant_under_increasing_task_transforms(self):
        s, protected, pool = random_ordinal(42, m=10, n=5, p=4)
        transformed = s * np.array([2.0, 0.5, 10.0, 1.0, 3.0]) + np.array([1.0, -2.0, 0.0, 7.0, 0.1])
        for f in (
            lambda x: ordinal_sensitivity_exact(x, protected=protected),
            lambda x: ordinal_sensitivity(x, protected=protected, restarts=8, steps=40, seed=3),
        ):
            a, b = f(s), f(transformed)
            assert a.tau_distance == b.tau_distance and a.added == b.added

    def test_deterministic_under_a_seed(self):
        s, protected, _ = random_ordinal(11, m=12, n=5, p=4)
        a = ordinal_sensitivity(s, protected=protected, restarts=8, steps=40, seed=1)
        b = ordinal_sensitivity(s, protected=protected, restarts=8, steps=40, seed=1)
        assert a.added == b.added and a.tau_distance == b.tau_distance

    def test_default_protected_is_the_top_fifth(self):
        s, _, _ = random_ordinal(5, m=10)
        top = default_protected(s)
        assert len(top) == 2
        assert top == list(bv.mean_win_rate(s).sort_values(ascending=False, kind="stable").index[:2])

    def test_bad_input(self):
        s, protected, _ = random_ordinal(0)
        with pytest.raises(ValueError, match="at least 2"):
            ordinal_sensitivity(s, protected=protected[:1], restarts=1, steps=1)
        with pytest.raises(ValueError, match="nothing to add"):
            ordinal_sensitivity_exact(s, protected=list(s.index))
        with pytest.raises(ValueError, match="method"):
            ordinal_sensitivity_exact(s, protected=protected, method="greedy")
        with pytest.raises(ValueError, match="share"):
            default_protected(s, share=1.5)


def test_subset_agreement_brute_force():
    rng = np.random.default_rng(0)
    s = rng.normal(size=(6, 4))
    full = bv.rank(s.mean(axis=1))
    table = subset_agreement(s, sizes=[1, 2], samples=100)
    for size in (1, 2):
        taus = [
            bv.kendall_tau_distance(full, bv.rank(s[:, list(c)].mean(axis=1))) for c in combinations(range(4), size)
        ]
        assert table.loc[size, "min_tau_distance"] == pytest.approx(min(taus))
        assert table.loc[size, "subsets"] == len(taus)
    with pytest.raises(ValueError, match="sizes"):
        subset_agreement(s, sizes=[5])


@pytest.mark.parametrize(("name", "kind"), [("SuperGLUE", "cardinal"), ("HELM-efficiency", "ordinal")])
def test_subset_agreement_equals_ranking_every_subset_one_at_a_time(name, kind):
    """All subsets of a size are ranked in one call; every number equals ranking each subset on its own (exactly)."""
    board = bv.data.load(name)
    s, hib = board.scores, board.higher_is_better
    score = (lambda t: t.mean(axis=1)) if kind == "cardinal" else (lambda t: bv.mean_win_rate(t, hib[t.columns]))
    full = bv.rank(score(s))
    table = subset_agreement(s, hib, sizes=[1, 2], kind=kind, samples=200)
    for size in (1, 2):
        ranks = []
        for c in combinations(range(s.shape[1]), size):
            try:
                ranks.append(bv.rank(score(s.iloc[:, list(c)])))
            except ValueError:  # a model with no score, or two models sharing none, in this subset: skipped
                pass
        assert table.loc[size, "subsets"] == len(ranks)
        taus = [bv.kendall_tau_distance(full, r) for r in ranks]
        assert table.loc[size, "min_tau_distance"] == min(taus)
        assert table.loc[size, "median_tau_distance"] == float(np.median(taus))
        assert table.loc[size, "min_mrc"] == min(bv.max_rank_change(full, r) for r in ranks)


def test_no_intercept_fit_against_lstsq():
    rng = np.random.default_rng(2)
    x, y = rng.random(20), rng.random(20)
    slope, r = no_intercept_fit(x, y)
    assert slope == pytest.approx(np.linalg.lstsq(x[:, None], y, rcond=None)[0][0])
    assert r == pytest.approx(np.corrcoef(x, y)[0, 1])
    with pytest.raises(ValueError):
        no_intercept_fit([1.0, 2.0], [1.0, 2.0])


def test_subset_agreement_ordinal_matches_direct_win_rates():
    rng = np.random.default_rng(3)
    s = rng.integers(0, 4, size=(7, 5)).astype(float)
    s[0, 1] = np.nan
    full = bv.rank(bv.mean_win_rate(s))
    table = subset_agreement(s, sizes=[2, 3], kind="ordinal", samples=100)
    for size in (2, 3):
        taus = []
        for c in combinations(range(5), size):
            try:
                taus.append(bv.kendall_tau_distance(full, bv.rank(bv.mean_win_rate(s[:, list(c)]))))
            except ValueError:
                pass
        assert table.loc[size, "min_tau_distance"] == pytest.approx(min(taus))
        assert table.loc[size, "subsets"] == len(taus)


@pytest.mark.parametrize("seed", range(3))
def test_duplicated_tasks_are_merged_exactly(seed):
    base = random_cardinal(300 + seed, m=5, n=2)
    s = np.column_stack([base, base[:, [1]], base[:, [1]]])  # task 1 appears three times
    exact = cardinal_sensitivity_exact(s, eps=0.05)
    assert exact.n_flipped == brute_cardinal(s, 0.05)
    relaxed = cardinal_sensitivity(s, method="relaxation", eps=0.05, restarts=4, steps=40, polish_starts=8, seed=seed)
    assert relaxed.n_flipped <= exact.n_flipped
    w = np.asarray(exact.weights)
    assert np.isclose(w[1], w[2]) and np.isclose(w[2], w[3])  # copies share their weight


# --------------------------------------------------------------------------- exhaustive oracles (issue: certificates)

from fractions import Fraction  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _exact_chain_ranks(means, tol):
    """Midranks of exact numbers, highest first; a gap of at most tol joins a tie group (like benchvote.rank)."""
    order = sorted(range(len(means)), key=lambda i: means[i], reverse=True)
    ranks, start = [0.0] * len(means), 0
    for pos in range(1, len(order) + 1):
        if pos == len(order) or means[order[pos - 1]] - means[order[pos]] > tol:
            for k in order[start:pos]:
                ranks[k] = (start + 1 + pos) / 2
            start = pos
    return ranks


def arrangement_oracle(s, eps, normalize="none", tol=bv.DEFAULT_TIE_TOLERANCE):
    """Largest number of simultaneously reversed pairs, over every cell of the hyperplane arrangement (n <= 3).

    Independent of the library's solvers and in exact rational arithmetic.  Pair (i, j), i strictly above
    j in the mean ranking, is reversed by weights alpha when S_j - S_i > tol (S the weighted means): with
    alpha_t = a_t c_t (c_t = 1, or 1 / std_t for the z-score box) and a in [eps, 1]^n this is
    g(a) = sum_t a_t c_t (s_jt - s_it - tol) > 0, a hyperplane through the origin.  Only the direction of a
    matters, so the search runs over the n faces a_t = 1.  On a 2-D face, every open cell of the line
    arrangement meets some vertical line half-way between two consecutive vertex abscissae, and along that
    line the count is a step function of v that a sorted sweep of the crossings evaluates exactly.
    """
    s = np.asarray(s, dtype=float)
    m, n = s.shape
    q = [[Fraction(float(v)) for v in row] for row in s]
    tol_q = Fraction(float(tol))
    std = s.std(axis=0)
    c = [Fraction(1) / Fraction(float(sd)) if normalize == "zscore" else Fraction(1) for sd in std]
    before = _exact_chain_ranks([sum(row, Fraction(0)) / n for row in q], tol_q)
    pairs = [(i, j) for i in range(m) for j in range(m) if before[i] < before[j]]
    if not pairs:
        return 0
    coef = [[c[t] * (q[j][t] - q[i][t] - tol_q) for t in range(n)] for i, j in pairs]  # g_k(a) = coef_k . a
    lo, one = Fraction(float(eps)), Fraction(1)
    if n == 1:
        return sum(1 for g in coef if g[0] > 0)
    best = 0
    for fixed in range(n):
        free = [t for t in range(n) if t != fixed]
        if n == 2:  # g = A + B u on [eps, 1]
            lines = [(g[fixed], g[free[0]]) for g in coef]
            cuts = {lo, one} | {-A / B for A, B in lines if B != 0 and lo < -A / B < one}
            cuts = sorted(cuts)
            points = cuts + [(x + y) / 2 for x, y in zip(cuts, cuts[1:])]
            best = max(best, max(sum(1 for A, B in lines if A + B * u > 0) for u in points))
            continue
        lines = [(g[fixed], g[free[0]], g[free[1]]) for g in coef]  # g = A + B u + C v on [eps, 1]^2
        xs = {lo, one}
        for A, B, C in lines:
            if B != 0:
                for v in (lo, one):
                    u = -(A + C * v) / B
                    if lo < u < one:
                        xs.add(u)
        for (A1, B1, C1), (A2, B2, C2) in combinations(lines, 2):
            det = B1 * C2 - B2 * C1
            if det != 0:
                u = (-A1 * C2 + A2 * C1) / det
                if lo < u < one:
                    xs.add(u)
        xs = sorted(xs)
        for u in [(x + y) / 2 for x, y in zip(xs, xs[1:])]:
            count, events = 0, {}
            for A, B, C in lines:
                a0 = A + B * u
                if C == 0:
                    count += a0 > 0
                    continue
                cross = -a0 / C
                if cross <= lo:
                    count += C > 0  # positive on the whole segment iff increasing
                elif cross >= one:
                    count += C < 0
                else:
                    count += C < 0  # positive below the crossing iff decreasing
                    events[cross] = events.get(cross, 0) + (1 if C > 0 else -1)
            best = max(best, count)
            for cross in sorted(events):
                count += events[cross]
                best = max(best, count)
    return best


@st.composite
def small_boards(draw):
    """Integer, rounded, duplicated and rescaled score tables, n <= 3 tasks and m <= 7 models (6 with 3 tasks)."""
    n = draw(st.integers(1, 3))
    m = draw(st.integers(2, 7 if n < 3 else 6))
    kind = draw(st.sampled_from(["integer", "rounded", "duplicated", "rescaled"]))
    if kind == "integer":
        cols = [draw(st.lists(st.integers(0, 5), min_size=m, max_size=m)) for _ in range(n)]
        s = np.array(cols, dtype=float).T
    else:
        cols = [draw(st.lists(st.floats(-3, 3, allow_nan=False), min_size=m, max_size=m)) for _ in range(n)]
        s = np.round(np.array(cols, dtype=float).T, draw(st.integers(1, 2)))
        if kind in ("duplicated", "rescaled") and n >= 2:
            factor = 1.0 if kind == "duplicated" else draw(st.sampled_from([2.5, 100.0, 0.01]))
            s[:, -1] = s[:, 0] * factor
    eps = draw(st.sampled_from([0.05, 0.1, 0.3, 0.5, 0.9]))
    normalize = draw(st.sampled_from(["none", "zscore"]))
    return s, eps, normalize


def _has_constant_task(s):
    return bool((np.ptp(s, axis=0) <= bv.DEFAULT_TIE_TOLERANCE).any())


ORACLE_COUNTS = {"instances": 0, "milp_certified": 0}


class TestCardinalAgainstTheArrangement:
    """Every optimal=True claim and every certified bound, against exhaustive enumeration of the cells."""

    @settings(max_examples=250, deadline=None)
    @given(small_boards())
    def test_boxes_auto_and_milp(self, board):
        s, eps, normalize = board
        if _has_constant_task(s):
            with pytest.raises(ValueError, match="constant task"):
                cardinal_sensitivity_exact(s, eps=eps, normalize=normalize)
            return
        truth = arrangement_oracle(s, eps, normalize)
        pairs = comb(len(s), 2)
        for method in ("boxes", "auto"):
            r = cardinal_sensitivity_exact(s, eps=eps, normalize=normalize, method=method, time_limit=30)
            assert r.optimal, f"{method} left a tiny instance uncertified"
            assert r.n_flipped == truth, f"{method} claims {r.n_flipped}, the arrangement has {truth}"
            assert round(r.upper_bound * pairs) == truth
        mip = cardinal_sensitivity_exact(s, eps=eps, normalize=normalize, method="milp", time_limit=30)
        assert mip.n_flipped <= truth <= round(mip.upper_bound * pairs)
        if mip.optimal:
            assert mip.n_flipped == truth
        ORACLE_COUNTS["instances"] += 1
        ORACLE_COUNTS["milp_certified"] += mip.optimal

    @pytest.mark.slow
    def test_oracle_agrees_with_lp_subset_brute_force(self):
        for seed in range(6):
            s = random_cardinal(seed, m=5, n=3)
            assert arrangement_oracle(s, 0.05) == brute_cardinal(s, 0.05)

    def test_oracle_on_the_audit_instances(self):
        # defect 3: tied integer scores; the true maximum is 2
        s = np.array([[4, 5, 3], [5, 0, 5], [2, 0, 4], [1, 1, 5], [5, 1, 1], [4, 4, 2]], dtype=float)
        assert arrangement_oracle(s, 0.5) == 2
        # defect 2: weights [0.1, 1] reverse the first two models by about 1e-6
        s = np.array([[10 - 1e-5, 0], [0, 1], [-5, -5]])
        assert arrangement_oracle(s, 0.1) == 1


class TestCertificateRegressions:
    def test_milp_counts_small_margins_like_the_recount(self):
        # audit defect 2: the MILP demanded a margin of 1e-6 |d|_1 and "proved" 0 reversals
        s = np.array([[10 - 1e-5, 0], [0, 1], [-5, -5]])
        for method in ("milp", "boxes", "auto"):
            r = cardinal_sensitivity_exact(s, eps=0.1, method=method)
            assert r.n_flipped == 1 and r.optimal, method
        assert cardinal_sensitivity_exact(s, eps=0.1, method="milp").upper_bound >= 1 / 3

    def test_box_search_is_not_fooled_by_exact_ties(self):
        # audit defect 3: float error counted an exact tie as a reversal and pruned the optimum
        s = np.array([[4, 5, 3], [5, 0, 5], [2, 0, 4], [1, 1, 5], [5, 1, 1], [4, 4, 2]], dtype=float)
        for method in ("auto", "boxes"):
            r = cardinal_sensitivity_exact(s, eps=0.5, method=method)
            assert (r.n_flipped, r.optimal) == (2, True)

    def test_recount_is_exact_and_uses_the_weighted_mean(self):
        s = random_cardinal(4, m=30, n=5)
        r = cardinal_sensitivity_exact(s, eps=0.05, method="boxes")
        w = np.asarray(r.weights)
        after = bv.rank(s @ w / w.sum())
        assert np.array_equal(after, np.asarray(r.ranking_after))
        assert r.n_flipped == round(bv.kendall_tau_distance(r.ranking_before, r.ranking_after) * comb(30, 2))

    def test_a_pair_within_the_tie_tolerance_is_not_reversed(self):
        # B can come within 1e-12 of A but never above it: a tie, not a reversal
        s = np.array([[1.0, 1.0], [1.0 - 1e-12, 1.0 - 1e-12], [0.0, 3.0]])
        for method in ("boxes", "milp"):
            r = cardinal_sensitivity_exact(s, eps=0.5, method=method)
            assert r.ranking_before[0] < r.ranking_before[1] or r.ranking_before[0] == r.ranking_before[1]
            assert r.n_flipped == arrangement_oracle(s, 0.5)
        assert bv.rank(s.mean(axis=1))[0] == bv.rank(s.mean(axis=1))[1]  # the library ties A and B

    def test_constant_task_found_by_its_spread(self):
        # audit defect 6: std of three copies of 55.55555555555556 is 7e-15, not 0
        s = np.array([[55.55555555555556, 1.0], [55.55555555555556, 2.0], [55.55555555555556, 3.0]])
        with pytest.raises(ValueError, match="constant task"):
            default_eps(s)
        with pytest.raises(ValueError, match="constant task"):
            cardinal_sensitivity_exact(s, eps=0.1, normalize="zscore")


def brute_ordinal_exact(scores, protected, pool):
    """Every subset of the pool, protected win rates in exact fractions from the raw scores (no library code)."""
    s = scores.to_numpy(dtype=float)
    idx = {x: k for k, x in enumerate(scores.index)}

    def rate(a, field):
        total = Fraction(0)
        for j in field:
            if j == a:
                continue
            both = ~np.isnan(s[idx[a]]) & ~np.isnan(s[idx[j]])
            total += Fraction(int((s[idx[a]][both] > s[idx[j]][both]).sum()), int(both.sum()))
        return total

    def ranks(field):
        return _exact_chain_ranks([rate(a, field) for a in protected], 0)

    alone = ranks(protected)
    best, best_set = 0, ()
    for size in range(len(pool) + 1):
        for added in combinations(pool, size):
            after = ranks(protected + list(added))
            flips = sum(
                1 for a in range(len(alone)) for b in range(len(alone)) if alone[a] < alone[b] and after[a] > after[b]
            )
            if flips > best:
                best, best_set = flips, added
    return best, best_set


class TestOrdinalDisjointCoverage:
    def test_audit_instance(self):
        # audit defect 4: the best added set holds D and E, which share no task
        s = pd.DataFrame(
            [[2, 1, 0], [0, 2, 0], [1, 1, 2], [1, np.nan, np.nan], [np.nan, 1, 2]], index=list("ABCDE"), dtype=float
        )
        truth, best_set = brute_ordinal_exact(s, ["A", "B", "C"], ["D", "E"])
        assert best_set == ("D", "E")
        for r in (
            ordinal_sensitivity_exact(s, protected=["A", "B", "C"]),
            ordinal_sensitivity_exact(s, protected=["A", "B", "C"], method="milp"),
            ordinal_sensitivity(s, protected=["A", "B", "C"], restarts=4, steps=20),
        ):
            assert r.n_flipped == truth and set(r.added) == {"D", "E"}
        assert ordinal_sensitivity_exact(s, protected=["A", "B", "C"]).optimal
        with pytest.raises(ValueError, match="protected models explicitly"):
            default_protected(s)

    @settings(max_examples=120, deadline=None)
    @given(st.data())
    def test_exact_solvers_against_brute_force(self, data):
        p = data.draw(st.integers(2, 4))
        q = data.draw(st.integers(1, 5))
        n = data.draw(st.integers(2, 5))
        values = np.array(
            data.draw(st.lists(st.lists(st.integers(0, 4), min_size=n, max_size=n), min_size=p + q, max_size=p + q)),
            dtype=float,
        )
        # pool models cover disjoint halves of the tasks, so pool pairs may share no task
        for k in range(q):
            hidden = [t for t in range(n) if (t + k) % 2 == 0] if data.draw(st.booleans()) else []
            if len(hidden) < n:
                values[p + k, hidden] = np.nan
        s = pd.DataFrame(values, index=[f"m{i}" for i in range(p + q)])
        protected, pool = list(s.index[:p]), list(s.index[p:])
        truth, _ = brute_ordinal_exact(s, protected, pool)
        for method in ("enumerate", "milp"):
            r = ordinal_sensitivity_exact(s, protected=protected, method=method)
            assert r.n_flipped <= truth <= round(r.upper_bound * comb(p, 2))
            if method == "enumerate":
                assert r.optimal
            if r.optimal:
                assert r.n_flipped == truth
        after = bv.protected_ranking(s, protected=protected, added=list(r.added))
        assert np.array_equal(after.to_numpy(), r.ranking_after.to_numpy())


# --------------------------------------------------------------------------- possible winners

from benchvote.sensitivity import possible_winners  # noqa: E402


def _two_task_oracle(s: np.ndarray, eps: float, tol: float) -> list[bool]:
    """Exact answer for two tasks: weights (1, rho), rho in [eps, 1/eps]; i wins on an open interval of rho."""
    out = []
    lo_all, hi_all = Fraction(eps).limit_denominator(10**12), 1 / Fraction(eps).limit_denominator(10**12)
    for i in range(len(s)):
        lo, hi, lo_strict, hi_strict, empty = lo_all, hi_all, False, False, False
        for j in range(len(s)):
            if j == i:
                continue
            c0 = Fraction(s[i, 0]) - Fraction(s[j, 0]) - Fraction(tol)
            c1 = Fraction(s[i, 1]) - Fraction(s[j, 1]) - Fraction(tol)
            # need c0 + c1 * rho > 0
            if c1 == 0:
                empty |= c0 <= 0
            elif c1 > 0:
                bound = -c0 / c1
                if bound >= lo:
                    lo, lo_strict = bound, True
            else:
                bound = -c0 / c1
                if bound <= hi:
                    hi, hi_strict = bound, True
        out.append(not empty and (lo < hi or (lo == hi and not lo_strict and not hi_strict)))
    return out


def _two_task_top_k_oracle(s: np.ndarray, eps: float, k: int, strict: bool = True) -> list[bool]:
    """Exact top-k answer for two tasks and tol = 0: weights (1, rho); try every piece between crossings.

    With ``strict=False`` a near tie (within 1e-9) counts as beating: the
    models that reach the top k only in that weaker sense sit on the edge of
    the box's reach, where a solver's tolerance cannot tell.
    """
    e = Fraction(eps)
    lo, hi = e, 1 / e
    rows = [(Fraction(a), Fraction(b)) for a, b in s]
    cuts = {lo, hi}
    for a0, a1 in rows:
        for b0, b1 in rows:
            if a1 != b1:
                rho = -(a0 - b0) / (a1 - b1)
                if lo < rho < hi:
                    cuts.add(rho)
    cuts_sorted = sorted(cuts)
    probes = cuts_sorted + [(u + v) / 2 for u, v in zip(cuts_sorted, cuts_sorted[1:])]
    m = len(rows)
    out = [False] * m
    for rho in probes:
        means = [a0 + a1 * rho for a0, a1 in rows]
        for i in range(m):
            near = Fraction(1, 10**9)
            beaten = sum(means[j] < means[i] if strict else (means[j] < means[i] + near and j != i) for j in range(m))
            if beaten >= m - k:
                out[i] = True
    return out


class TestPossibleWinners:
    @settings(max_examples=150, deadline=None)
    @given(st.integers(0, 10**6), st.sampled_from([0.05, 0.2, 0.5]), st.sampled_from([2, 3]))
    def test_top_k_with_two_tasks_against_the_exact_pieces(self, seed, eps, k):
        s = np.random.default_rng(seed).integers(0, 7, size=(6, 2)).astype(float)
        if (s.max(axis=0) == s.min(axis=0)).any():
            return
        r = possible_winners(s, k=k, eps=eps, tol=0.0)
        truth = np.array(_two_task_top_k_oracle(s, eps, k))
        edge = np.array(_two_task_top_k_oracle(s, eps, k, strict=False)) & ~truth
        decided = ~r.undecided
        assert np.array_equal(r.possible[decided], truth[decided])
        assert not (r.undecided & ~edge).any()  # only a model on the edge may stay undecided

    @pytest.mark.parametrize("seed", range(4))
    def test_top_k_dense_sampling_and_certificates(self, seed):
        rng = np.random.default_rng(seed)
        s = rng.integers(0, 5, size=(7, 3)).astype(float) + rng.random((7, 3)) * 0.1
        eps, k = 0.1, 2
        r = possible_winners(s, k=k, eps=eps)
        corners = np.array(list(product([eps, 1.0], repeat=3)))
        samples = np.vstack([corners, eps + (1 - eps) * rng.random((20_000, 3))])
        means = samples @ s.T / samples.sum(axis=1, keepdims=True)
        below = (means[:, :, None] - means[:, None, :] > 1e-9).sum(axis=2)  # models strictly below each
        found = set(np.flatnonzero((below >= len(s) - k).any(axis=0)).tolist())
        assert found <= set(np.flatnonzero(r.possible).tolist())
        assert not r.undecided.any()
        for i, w in r.weights.items():
            mean = s @ w / w.sum()
            assert (mean[i] - mean > 1e-9).sum() >= len(s) - k and w.min() >= eps * (1 - 1e-12)

    def test_top_k_grows_with_k_and_k_one_is_the_winner_program(self):
        s = pd.DataFrame(np.random.default_rng(8).normal(size=(9, 4)), index=[f"m{i}" for i in range(9)])
        previous = possible_winners(s, eps=0.2)
        assert not previous.undecided.any() and previous.k == 1
        for k in range(2, 6):
            now = possible_winners(s, k=k, eps=0.2)
            assert (now.possible >= previous.possible).all()
            previous = now

    def test_a_time_limit_leaves_models_undecided_but_never_wrong(self):
        s = np.random.default_rng(9).normal(size=(30, 6))
        full = possible_winners(s, k=3, eps=0.05)
        rushed = possible_winners(s, k=3, eps=0.05, time_limit=1e-6)
        assert not full.undecided.any()
        assert (rushed.possible <= full.possible).all()
        ruled_out = ~rushed.possible & ~rushed.undecided
        assert not (ruled_out & full.possible).any()
        assert rushed.undecided.any()

    @settings(max_examples=200, deadline=None)
    @given(st.integers(0, 10**6), st.sampled_from([0.05, 0.2, 0.5]))
    def test_two_tasks_against_the_exact_interval(self, seed, eps):
        s = np.random.default_rng(seed).integers(0, 7, size=(5, 2)).astype(float)
        if (s.max(axis=0) == s.min(axis=0)).any():
            return
        r = possible_winners(s, eps=eps)
        assert not r.undecided.any()
        assert r.possible.tolist() == _two_task_oracle(s, eps, 1e-9)

    @pytest.mark.parametrize("seed", range(6))
    def test_dense_weight_sampling_finds_no_winner_the_program_misses(self, seed):
        rng = np.random.default_rng(seed)
        s = rng.integers(0, 5, size=(6, 3)).astype(float) + rng.random((6, 3)) * 0.1
        eps = 0.1
        r = possible_winners(s, eps=eps)
        corners = np.array(list(product([eps, 1.0], repeat=3)))
        samples = np.vstack([corners, eps + (1 - eps) * rng.random((20_000, 3))])
        means = samples @ s.T / samples.sum(axis=1, keepdims=True)
        top = np.sort(means, axis=1)
        strict = top[:, -1] - top[:, -2] > 1e-9
        found = set(np.argmax(means, axis=1)[strict].tolist())
        assert found <= set(np.flatnonzero(r.possible).tolist())
        for i, w in r.weights.items():  # every reported winner comes with weights that make it first
            mean = s @ w / w.sum()
            assert np.all(mean[i] - np.delete(mean, i) > 1e-9) and w.min() >= eps * (1 - 1e-12) and w.max() == 1.0

    def test_the_mean_score_winner_is_always_possible_and_orientation(self):
        s = pd.DataFrame(np.random.default_rng(3).normal(size=(8, 4)), index=[f"m{i}" for i in range(8)])
        r = possible_winners(s, eps=0.05)
        assert r.possible[bv.mean_score(s).idxmax()]
        flipped = possible_winners(s * [1, -1, 1, -1], [True, False, True, False], eps=0.05)
        assert flipped.possible.equals(r.possible)

    def test_permuting_models_permutes_the_answer(self):
        s = np.random.default_rng(4).normal(size=(7, 3))
        perm = [3, 0, 6, 1, 5, 2, 4]
        a, b = possible_winners(s, eps=0.1), possible_winners(s[perm], eps=0.1)
        assert np.array_equal(b.possible, a.possible[perm])

    def test_bad_input(self):
        with pytest.raises(ValueError, match="missing"):
            possible_winners(np.array([[1.0, np.nan], [2.0, 3.0]]))
        with pytest.raises(ValueError, match="constant task"):
            possible_winners(np.array([[1.0, 2.0], [1.0, 3.0]]))
        with pytest.raises(ValueError, match="normalize"):
            possible_winners(np.array([[1.0, 2.0], [2.0, 3.0]]), normalize="l1")
        with pytest.raises(ValueError, match="k must be smaller than the number of models"):
            possible_winners(np.array([[1.0, 2.0], [2.0, 3.0]]), k=2)
        with pytest.raises(ValueError, match="k must be >= 1"):
            possible_winners(np.array([[1.0, 2.0], [2.0, 3.0]]), k=0)
        with pytest.raises(ValueError, match="time_limit must be > 0"):
            possible_winners(np.array([[1.0, 2.0], [2.0, 3.0], [0.0, 1.0]]), k=2, time_limit=-1)


def test_relaxations_run_on_one_torch_thread_and_restore_the_callers_setting():
    torch = pytest.importorskip("torch")
    from benchvote.sensitivity._problem import RELAXATION_THREADS, _one_torch_thread

    seen = []
    probe = _one_torch_thread(lambda: seen.append(torch.get_num_threads()))
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        probe()
        bv.sensitivity.cardinal_sensitivity(np.random.default_rng(0).normal(size=(8, 3)), eps=0.1, method="relaxation")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert seen == [RELAXATION_THREADS]


class TestExactRecountAndFastPaths:
    """The integer recount against rational arithmetic; the shortcut for identical protected models."""

    @staticmethod
    def fraction_ranks(values, weights, tol):
        from fractions import Fraction

        w = [Fraction(float(v)) for v in weights]
        total = sum(w, Fraction(0))
        means = [sum((a * Fraction(float(x)) for a, x in zip(w, row)), Fraction(0)) / total for row in values]
        return bv.ranking.exact_midranks(means, Fraction(float(tol)))

    def test_integer_recount_matches_fractions(self):
        from hypothesis import given, settings
        from hypothesis import strategies as st

        from benchvote.sensitivity._problem import _exact_ranks

        awkward = st.sampled_from([0.0, -0.0, 0.1, 0.2, 0.3, 1 / 3, 55.55555555555556, 1e-300, 1e300, -7.25, 5e-324])
        cell = st.one_of(awkward, st.floats(-1e6, 1e6, allow_nan=False), st.integers(-3, 3).map(float))
        weight = st.one_of(st.sampled_from([1.0, 0.01, 1 / 3, 1e-9]), st.floats(1e-6, 1.0))

        @settings(max_examples=300, deadline=None)
        @given(st.integers(2, 6), st.integers(1, 5), st.data(), st.sampled_from([0.0, 1e-9, 0.1]))
        def check(m, n, data, tol):
            values = np.array(data.draw(st.lists(st.lists(cell, min_size=n, max_size=n), min_size=m, max_size=m)))
            weights = np.array(data.draw(st.lists(weight, min_size=n, max_size=n)))
            assert np.array_equal(_exact_ranks(values, weights, tol), self.fraction_ranks(values, weights, tol))

        check()

    def test_identical_protected_models_cannot_be_reversed(self):
        rng = np.random.default_rng(3)
        s = pd.DataFrame(rng.normal(size=(7, 4)), index=list("ABCDEFG"), columns=list("wxyz"))
        s.loc["B"] = s.loc["A"]
        s.loc["C"] = s.loc["A"]
        s.loc["A", "x"] = s.loc["B", "x"] = s.loc["C", "x"] = np.nan  # the same missing cell in every copy
        protected = ["A", "B", "C"]
        pool = [x for x in s.index if x not in protected]
        # brute force: every added set leaves the three copies tied
        for k in range(len(pool) + 1):
            for added in combinations(pool, k):
                ranks = protected_ranking(s, protected=protected, added=list(added)).to_numpy()
                assert np.all(ranks == ranks[0])
        for r in (ordinal_sensitivity(s, protected=protected), ordinal_sensitivity_exact(s, protected=protected)):
            assert r.n_flipped == 0 and r.optimal and r.upper_bound == 0.0 and r.added == ()
            assert list(r.ranking_before) == [2.0, 2.0, 2.0] == list(r.ranking_after)
        with pytest.raises(ValueError):
            ordinal_sensitivity(s, [True, False], protected=protected)  # directions are still checked
        s.loc["C", "y"] += 1.0  # no longer identical: the general path runs and agrees with enumeration
        fast, exact = ordinal_sensitivity(s, protected=protected), ordinal_sensitivity_exact(s, protected=protected)
        assert fast.n_flipped <= exact.n_flipped and exact.optimal

    def test_best_first_bound_only_shrinks_with_time(self):
        s = random_cardinal(17, m=40, n=14)
        bounds = [
            cardinal_sensitivity_exact(s, eps=0.01, method="boxes", time_limit=limit).upper_bound
            for limit in (0.05, 0.3, 1.0)
        ]
        assert bounds[0] >= bounds[1] >= bounds[2]


@pytest.mark.parametrize("seed", range(6))
def test_coordinate_search_stops_where_no_single_weight_helps(seed):
    """The coordinate search's line search against a plain scan of every interval between thresholds.

    At the point it returns, no change of one weight inside its bounds reverses more pairs
    (each coordinate's count is checked directly at both ends, every threshold's neighbours
    and every midpoint between thresholds), and the count it reports is the direct count there.
    Rounded tables give repeated thresholds.
    """
    from benchvote.sensitivity._problem import _coordinate_polish

    rng = np.random.default_rng(seed)
    m, n = 14, 3 + seed % 3
    d = rng.normal(size=(m * (m - 1) // 2, n))
    if seed % 2 == 0:
        d = np.round(d, 1)  # ties among thresholds, zero entries
    lo, hi = np.full(n, 0.2), np.full(n, 5.0)
    a, best = _coordinate_polish(d, np.exp(rng.uniform(np.log(lo), np.log(hi))), lo, hi, rng)
    assert np.all((a >= lo) & (a <= hi))
    assert best == int((d @ a < 0).sum())
    for t in range(n):
        c = d @ a - d[:, t] * a[t]
        with np.errstate(divide="ignore", invalid="ignore"):
            cuts = -c / d[:, t]
        cuts = np.unique(np.r_[lo[t], hi[t], cuts[np.isfinite(cuts) & (cuts > lo[t]) & (cuts < hi[t])]])
        scan = np.r_[cuts, (cuts[:-1] + cuts[1:]) / 2]
        counts = ((c[:, None] + d[:, t, None] * scan[None, :]) < 0).sum(axis=0)
        assert counts.max() <= best, (t, counts.max(), best)


# --------------------------------------------------------------------------- mixed scales (issue: tasks of any unit)

from hypothesis import assume  # noqa: E402
from test_winners import FACTORS, exact_max_min, mixed_scale_tables, oriented  # noqa: E402


def lp_cardinal_oracle(s, eps, normalize="none", tol=bv.DEFAULT_TIE_TOLERANCE):
    """Largest set of pairs that some weights in the box reverse at once, for any number of tasks.

    Same definitions as :func:`arrangement_oracle` (pair (i, j), i strictly above j in the exact mean ranking,
    is reversed when g . a > 0 with g_t = c_t (s_jt - s_it - tol)); a set of pairs is reversible at once iff the
    exact max over the box of the smallest g . a is positive (``exact_max_min``, rational simplex).  Depth-first
    over the pairs: take a pair only if the set stays reversible; the count at each maximiser is a lower bound
    used to prune.
    """
    s = np.asarray(s, dtype=float)
    m, n = s.shape
    q = [[Fraction(float(v)) for v in row] for row in s]
    tol_q = Fraction(float(tol))
    c = [Fraction(1) / Fraction(float(sd)) if normalize == "zscore" else Fraction(1) for sd in s.std(axis=0)]
    before = _exact_chain_ranks([sum(row, Fraction(0)) / n for row in q], tol_q)
    pairs = [(i, j) for i in range(m) for j in range(m) if before[i] < before[j]]
    g = [[c[t] * (q[j][t] - q[i][t] - tol_q) for t in range(n)] for i, j in pairs]
    lo, hi = [Fraction(float(eps))] * n, [Fraction(1)] * n
    best = 0

    def dfs(k, chosen):
        nonlocal best
        if len(chosen) + len(g) - k <= best:
            return
        if k == len(g):
            best = len(chosen)
            return
        tau, a = exact_max_min([g[x] for x in chosen + [k]], lo, hi)
        if tau > 0:
            best = max(best, sum(1 for row in g if sum((u * v for u, v in zip(row, a)), Fraction(0)) > 0))
            dfs(k + 1, chosen + [k])
        dfs(k + 1, chosen)

    dfs(0, [])
    return best


def exact_reversals(s, weights, tol=bv.DEFAULT_TIE_TOLERANCE):
    """Pairs that the two exact chain rankings (plain mean, weighted mean) order strictly opposite ways."""
    q = [[Fraction(float(v)) for v in row] for row in np.asarray(s, dtype=float)]
    w = [Fraction(float(v)) for v in weights]
    tol_q = Fraction(float(tol))
    before = _exact_chain_ranks([sum(row, Fraction(0)) / len(w) for row in q], tol_q)
    after = _exact_chain_ranks([sum((a * x for a, x in zip(w, row)), Fraction(0)) / sum(w) for row in q], tol_q)
    m = len(q)
    return sum(1 for i in range(m) for j in range(m) if before[i] < before[j] and after[i] > after[j])


def check_cardinal_verdicts(scores, higher_is_better, r, normalize, eps_asked):
    """n_flipped <= truth, optimal => n_flipped == truth, upper_bound >= truth / pairs; the returned weights
    lie in the box and reverse exactly n_flipped pairs."""
    s = oriented(scores, higher_is_better)
    m, n = s.shape
    label = f"table={np.asarray(scores, dtype=float).tolist()!r} hib={higher_is_better!r} eps={eps_asked!r} "
    label += f"normalize={normalize!r} method={r.method!r}"
    if eps_asked is None:
        std = s.std(axis=0)
        assert r.eps == pytest.approx(min(0.01, std.min() / std.max()), rel=1e-12), label
    truth = arrangement_oracle(s, r.eps, normalize) if n <= 3 else lp_cardinal_oracle(s, r.eps, normalize)
    pairs = comb(m, 2)
    got = f"{label}: n_flipped={r.n_flipped} optimal={r.optimal} upper_bound*pairs="
    got += f"{None if r.upper_bound is None else r.upper_bound * pairs} truth={truth}"
    assert r.n_flipped <= truth, f"more reversals than any weights in the box give; {got}"
    if r.optimal:
        assert r.n_flipped == truth, f"claims optimal below the true maximum; {got}"
    if r.upper_bound is not None:
        assert r.upper_bound * pairs >= truth - 1e-9, f"the certified bound is below the true maximum; {got}"
    w = np.asarray(r.weights, dtype=float)
    a = w * (s.std(axis=0) if normalize == "zscore" else 1.0)
    assert a.min() >= r.eps * a.max() * (1 - 1e-9), f"weights {w.tolist()} outside the box; {got}"
    assert exact_reversals(s, w) == r.n_flipped, f"the weights do not reverse n_flipped pairs; {got}"
    return truth


class TestCardinalMixedScales:
    """cardinal_sensitivity_exact beside columns of very different units, against the exhaustive oracles."""

    @pytest.mark.parametrize("method", ["boxes", "milp"])
    @pytest.mark.parametrize("normalize", ["none", "zscore"])
    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(board=mixed_scale_tables(max_models=5), eps=st.sampled_from([None, None, 0.01, 1e-4, 0.1, 0.5]))
    def test_against_the_exhaustive_oracle(self, method, normalize, board, eps):
        """3-5 models, 2-4 tasks of mixed units: the three verdicts and an exact recount of the weights."""
        s, hib = board
        r = cardinal_sensitivity_exact(s, hib, eps=eps, normalize=normalize, method=method, time_limit=1.0)
        check_cardinal_verdicts(s, hib, r, normalize, eps)

    # 3 x 4 tables with a latency, parameter counts and rescaled accuracies: the default eps is 1e-17..1e-10
    THREE_BY_FOUR = [
        [[5377.9, 1.8813406635361126e-08, 0.5, 14.3e9], [5309.4, 8.131572423506088e-07, 0.33, 37.0e9],
         [5239.5, 7.399939943242043e-07, 0.44, 22.8e9]],
        [[0.65, 100306941.1139876, 59.1e9, 2983.4], [0.75, 60645346.00684767, 8.1e9, 4011.9],
         [0.23, 224825902.49686873, 27.5e9, 4076.3]],
        [[0.67, 0.34, 2423.9, 51.6e9], [0.34, 0.04, 5506.3, 41.0e9], [0.86, 0.8, 3584.6, 35.1e9]],
        [[1038.9, 52.98414449325001, 1241549910.0732934, 3.5877065915080693e-06],
         [5444.3, 47.20405600307727, 2327906081.3874254, 7.512250264751612e-06],
         [1698.9, 53.658488150436824, 1686633840.0995684, 6.564406383589e-06]],
        [[0.0015172984478481247, 40.3e9, 0.26, 8.820433342272809e-05],
         [0.0032800422328481517, 23.3e9, 0.14, 3.8596078018914965e-05],
         [0.001785056997468382, 56.4e9, 0.28, 7.975810028285474e-05]],
        # found while fixing issue 29: the unscaled MILP claimed 2 reversals optimal where 3 are reachable
        [[8088749.415017479, 9.024151113853463e-05, 0.0006714110604737075, 781031.5268610248],
         [647099.9532013984, 0.00015739798454395576, 0.00010217124833295551, 764413.834800152],
         [22972048.338649638, 0.00012591838763516462, 0.0004962603490457839, 282500.76503483875]],
        [[2.6512363708326023, 9.194860880706762e-07, 15704217.298161073, 63339.45259814379],
         [1.1202407200701137, 3.064953626902254e-07, 8973838.456092043, 78420.2746453209],
         [0.6348030747063979, 2.1761170751006003e-05, 37690121.51558658, 301616.4409435419]],
    ]  # fmt: skip

    @pytest.mark.parametrize("table", range(len(THREE_BY_FOUR)))
    @pytest.mark.parametrize("method", ["milp", "boxes"])
    def test_three_by_four_with_the_default_eps(self, table, method):
        """The issue's case: a 3 x 4 table of mixed scales, default eps; no claim of optimality below the truth."""
        s = np.array(self.THREE_BY_FOUR[table])
        for normalize in ("none", "zscore"):
            r = cardinal_sensitivity_exact(s, normalize=normalize, method=method, time_limit=5.0)
            check_cardinal_verdicts(s, True, r, normalize, None)

    def test_the_lp_oracle_agrees_with_the_arrangement(self):
        """The depth-first LP oracle (any n) and the arrangement sweep (n <= 3) on mixed-scale tables."""
        rng = np.random.default_rng(11)
        for trial in range(30):
            m, n = int(rng.integers(3, 6)), int(rng.integers(1, 4))
            s = np.round(rng.random((m, n)), 2) * 10.0 ** rng.uniform(-6, 10, size=n)
            if trial % 4 == 0:
                s = rng.integers(0, 4, size=(m, n)).astype(float)  # ties
            if (np.ptp(s, axis=0) == 0).any():
                continue
            std = s.std(axis=0)
            for eps in (min(0.01, std.min() / std.max()), 0.3):
                for normalize in ("none", "zscore"):
                    assert lp_cardinal_oracle(s, eps, normalize) == arrangement_oracle(s, eps, normalize), (trial, s)


@st.composite
def integer_tables_and_a_rescaled_task(draw, min_models=4, max_models=7, max_tasks=4):
    """Integer scores 0..9 (ties included) and one task multiplied by a factor in 1e-6..1e10."""
    m = draw(st.integers(min_models, max_models))
    n = draw(st.integers(2, max_tasks))
    s = np.array(draw(st.lists(st.lists(st.integers(0, 9), min_size=n, max_size=n), min_size=m, max_size=m)))
    s = s.astype(float)
    task = draw(st.integers(0, n - 1))
    factor = draw(FACTORS)
    scaled = s.copy()
    scaled[:, task] *= factor
    hib = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return s, scaled, hib, task, factor


def _same_tie_pattern(a, b):
    """Same strict order and the same exact ties within every task, every gap far above the tie tolerance."""
    for x, y in zip(np.asarray(a).T, np.asarray(b).T):
        dx, dy = x[:, None] - x[None, :], y[:, None] - y[None, :]
        if (
            not np.array_equal(np.sign(dx), np.sign(dy))
            or (np.abs(dy)[dy != 0] <= 100 * bv.DEFAULT_TIE_TOLERANCE).any()
        ):
            return False
    return True


class TestOrdinalScaleInvariance:
    """Measures that only read the order within each task cannot depend on a task's unit."""

    @settings(max_examples=30, deadline=None, derandomize=True)
    @given(st.integers(0, 2**32 - 1), FACTORS, st.data())
    def test_ordinal_sensitivity_exact(self, seed, factor, data):
        """Integer tables where adding pool models does reverse protected pairs (by the exact subset
        oracle), one task rescaled: the same count, added set, bound and rankings, equal to the truth."""
        rng = np.random.default_rng(seed)
        for _ in range(200):  # draw until the instance is interesting: some added set reverses a pair
            m, n = int(rng.integers(5, 9)), int(rng.integers(3, 7))
            p = int(rng.integers(3, m - 1))
            s = rng.integers(0, 6, size=(m, n)).astype(float)
            hib = [bool(h) for h in rng.random(n) < 0.7]
            names = [f"m{i}" for i in range(m)]
            protected, pool = names[:p], names[p:]
            truth, _ = brute_ordinal_exact(pd.DataFrame(oriented(s, hib), index=names), protected, pool)
            if truth > 0:
                break
        assume(truth > 0)
        task = data.draw(st.integers(0, n - 1))
        scaled = s.copy()
        scaled[:, task] *= factor
        assert _same_tie_pattern(s, scaled)  # integers times a factor >= 1e-6: gaps >= 1e-6, ties stay exact
        a = ordinal_sensitivity_exact(pd.DataFrame(s, index=names), hib, protected=protected)
        b = ordinal_sensitivity_exact(pd.DataFrame(scaled, index=names), hib, protected=protected)
        what = f"task {task} times {factor!r}; table={s.tolist()!r} hib={hib} protected={protected}"
        assert a.n_flipped == truth, what
        assert (a.n_flipped, a.added, a.optimal, a.upper_bound) == (b.n_flipped, b.added, b.optimal, b.upper_bound), (
            what
        )
        assert a.ranking_before.equals(b.ranking_before) and a.ranking_after.equals(b.ranking_after), what

    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(integer_tables_and_a_rescaled_task())
    def test_rank_based_rules(self, case):
        """Task ranks, both win-rate conventions, Borda, Copeland, majority margins, Ranked Pairs and Kemeny:
        identical output when a task of integer scores (ties included) is multiplied by a factor."""
        s, scaled, hib, task, factor = case
        assert _same_tie_pattern(s, scaled)
        what = f"task {task} times {factor!r}; table={s.tolist()!r} hib={hib}"
        rules = {
            "task_ranks": bv.aggregation.task_ranks,
            "mean_win_rate": bv.aggregation.mean_win_rate,
            "mean_win_rate quantile": lambda x, h: bv.aggregation.mean_win_rate(x, h, convention="quantile"),
            "borda": bv.aggregation.borda,
            "copeland": bv.voting.copeland,
            "margin_matrix": bv.voting.margin_matrix,
            "ranked_pairs": bv.voting.ranked_pairs,
        }
        for name, rule in rules.items():
            before, after = rule(s, hib), rule(scaled, hib)
            assert np.array_equal(np.asarray(before), np.asarray(after)), f"{name}: {what}"
        before, after = bv.voting.kemeny(s, hib), bv.voting.kemeny(scaled, hib)
        assert np.array_equal(before.ranks, after.ranks), f"kemeny: {what}"
        assert (before.disagreements, before.n_optimal) == (after.disagreements, after.n_optimal), f"kemeny: {what}"


def _zscore(s):
    s = np.asarray(s, dtype=float)
    return (s - s.mean(axis=0)) / s.std(axis=0)


class TestCardinalOnZScores:
    @pytest.mark.parametrize("method", ["boxes", "milp"])
    @settings(max_examples=30, deadline=None, derandomize=True)
    @given(integer_tables_and_a_rescaled_task(min_models=3, max_models=6), st.sampled_from([None, 0.05, 0.3]))
    def test_rescaling_before_z_scoring_changes_nothing(self, method, case, eps):
        """Z-scores of a task do not depend on its unit (up to rounding): same count, proof and rankings."""
        s, scaled, hib, task, factor = case
        s, scaled = oriented(s, hib), oriented(scaled, hib)
        assume(not _has_constant_task(s))
        a = cardinal_sensitivity_exact(_zscore(s), eps=eps, method=method, time_limit=5.0)
        b = cardinal_sensitivity_exact(_zscore(scaled), eps=eps, method=method, time_limit=5.0)
        what = f"task {task} times {factor!r}; table={s.tolist()!r}"
        assert (a.n_flipped, a.optimal) == (b.n_flipped, b.optimal), what
        assert np.array_equal(a.ranking_before, b.ranking_before), what


class TestShortBudgets:
    @pytest.mark.parametrize("seed", range(3))
    def test_milp_with_a_tiny_time_limit_returns_a_bound(self, seed):
        """40 x 15 integer scores, 0.05 s: no exception, a certified bound at least the count found."""
        s = np.random.default_rng(seed).integers(0, 10, size=(40, 15)).astype(float)
        r = cardinal_sensitivity_exact(s, method="milp", time_limit=0.05)
        pairs = comb(40, 2)
        assert r.upper_bound is not None
        assert r.upper_bound * pairs >= r.n_flipped - 1e-9
        assert r.n_flipped == round(r.tau_distance * pairs)
        if r.n_flipped >= np.floor(r.upper_bound * pairs + 1e-9):
            assert r.optimal, "the count meets the certified bound, so it is the maximum"

    def test_a_met_bound_is_reported_optimal(self):
        """40 x 15, every model ahead of the next on every task: no pair can be reversed; the bound is met."""
        rng = np.random.default_rng(5)
        s = (10.0 * np.arange(40, 0, -1))[:, None] + rng.integers(0, 10, size=(40, 15))
        r = cardinal_sensitivity_exact(s, method="milp", time_limit=0.05)
        assert r.upper_bound is not None and r.n_flipped == 0
        assert r.upper_bound == 0.0 and r.optimal


class TestBudgetRegressions:
    """Issue 29, item 2: a short budget returns a certified bound; a recount that meets the bound is a proof."""

    def test_a_milp_stopped_before_any_solution_still_returns_a_bound(self):
        # before the fix: RuntimeError "the MILP solver returned no solution" at time_limit 0.001 and 0.01
        s = np.random.default_rng(0).integers(0, 100, size=(60, 30)).astype(float)
        for limit in (1e-3, 1e-2):
            r = cardinal_sensitivity_exact(s, eps=0.05, method="milp", time_limit=limit)
            assert r.upper_bound is not None and r.upper_bound >= r.tau_distance
            assert r.optimal or r.stopped in ("time_limit", "work_limit")

    def test_a_recount_that_meets_the_bound_is_optimal_however_the_search_ended(self):
        # before the fix: optimal required the search to have finished as well
        from benchvote.sensitivity._problem import _cardinal_setup, _finish_cardinal

        s = np.array([[3.0, 0.0], [2.0, 2.0], [0.0, 3.0]])
        prob = _cardinal_setup(s, True, 0.1, "none", bv.DEFAULT_TIE_TOLERANCE)
        count = _finish_cardinal(prob, prob.hi.copy(), "boxes").n_flipped
        stopped = _finish_cardinal(prob, prob.hi.copy(), "boxes", upper=count, stopped="work_limit")
        assert stopped.optimal and stopped.stopped == "work_limit"  # proven, and it says the budget ended it
        above = _finish_cardinal(prob, prob.hi.copy(), "boxes", upper=count + 1, stopped="work_limit")
        assert not above.optimal and above.stopped == "work_limit"


class TestSearch:
    """``cardinal_sensitivity(method="search")``, the torch-free search the audit uses beyond ten tasks."""

    @settings(max_examples=120, deadline=None)
    @given(small_boards())
    def test_against_the_arrangement(self, board):
        """A value reached and a bound that holds: found <= truth <= bound, equality when it says optimal."""
        s, eps, normalize = board
        if _has_constant_task(s):
            return
        truth = arrangement_oracle(s, eps, normalize)
        r = cardinal_sensitivity(s, eps=eps, normalize=normalize, method="search", seed=1)
        pairs = comb(len(s), 2)
        assert r.n_flipped <= truth <= round(r.upper_bound * pairs)
        if r.optimal:
            assert r.n_flipped == truth
        w = np.asarray(r.weights)
        assert r.method == "search" and w.max() == 1.0 and (w > 0).all()

    def test_a_table_where_every_model_ties_is_proven_at_zero(self):
        """Found by the property above: two models tied by the mean left the bound unset (None) and no proof."""
        r = cardinal_sensitivity(np.array([[0.0, 1.0], [1.0, 0.0]]), eps=0.05, method="search", seed=1)
        assert (r.n_flipped, r.upper_bound, r.optimal) == (0, 0.0, True)

    def test_on_mixed_scales_it_never_claims_more_than_the_exact_search(self):
        """Tasks scaled by 1e-6 .. 1e10: the search's value is reached by the box search too, its bound holds."""
        rng = np.random.default_rng(3)
        for _ in range(12):
            s = np.round(rng.random((6, 3)), 2) * 10.0 ** rng.uniform(-6, 10, size=3)
            if _has_constant_task(s):
                continue
            for normalize in ("none", "zscore"):
                found = cardinal_sensitivity(s, normalize=normalize, method="search")
                exact = cardinal_sensitivity_exact(s, normalize=normalize, method="boxes")
                assert exact.optimal and found.n_flipped <= exact.n_flipped <= round(found.upper_bound * 15)

    def test_bad_options_are_named(self):
        with pytest.raises(ValueError, match="polish_starts"):
            cardinal_sensitivity([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], method="search", polish_starts=-1)


# --------------------------------------------------------------------------- issue 37: the MILP's bound in any case
# Four tasks on scales 1e-4, 1e8, 1e7 and 1e-3: HiGHS's dual bound falls below the count the box search proves (9).
BADLY_SCALED = np.array(
    [
        [-0.00020941775046495354, -106110343.81686322, 18529800.552201692, -0.0017147076270169496],
        [0.00013643918412508955, -29789179.084428035, -19632017.484975033, 0.0014576845828164525],
        [0.00012840688927244376, -50324822.232823566, 8672769.905671034, -0.00035589453608390615],
        [5.092627395355313e-06, 16626949.981514085, -2310105.5324751334, 0.0005243726217937455],
        [3.857490054962603e-05, -52288488.8540871, 2959931.6049056672, -0.0005205875283939318],
        [1.3381865632330021e-05, -49686959.92226775, 972906.7406598104, 0.001600645890178919],
    ]
)


def test_milp_on_badly_scaled_tasks_still_returns_a_certified_bound():
    """The docstring promises a certified bound in any case; a solver bound below the recount used to give None."""
    from benchvote.sensitivity.cardinal_exact import cardinal_sensitivity_exact

    proven = cardinal_sensitivity_exact(BADLY_SCALED, method="boxes")
    assert proven.optimal
    r = cardinal_sensitivity_exact(BADLY_SCALED, method="milp")
    assert r.upper_bound is not None or r.stopped
    assert r.upper_bound is not None and r.upper_bound >= proven.tau_distance >= r.tau_distance
    assert r.optimal == (r.tau_distance == r.upper_bound)


# --------------------------------------------------------------------------- issue 37: chained ties, one ranking
def _chained_table(rng: np.random.Generator, m: int, n: int) -> pd.DataFrame:
    """Scores 0.6e-9 apart (chained ties at the default tolerance), some lifted by 1 so that tasks also order."""
    steps = rng.choice([0.0, 0.6e-9, 1.2e-9, 1.8e-9, 2.4e-9], size=(m, n))
    s = steps + rng.integers(0, 2, size=(m, n)) * (rng.random((m, n)) < 0.3)
    return pd.DataFrame(s, index=[f"m{i}" for i in range(m)], columns=[f"t{k}" for k in range(n)])


def _brute_force_maximum(s: pd.DataFrame, protected: list, pool: list) -> int:
    """Most protected pairs any added set reverses, by protected_ranking on every subset of the pool."""
    before = protected_ranking(s, protected=protected).to_numpy()
    return max(
        int(
            bv.ranking.reversed_pairs(before, protected_ranking(s, protected=protected, added=list(x)).to_numpy()).sum()
        )
        for r in range(len(pool) + 1)
        for x in combinations(pool, r)
    )


def test_no_proven_ordinal_maximum_is_beaten_under_chained_ties():
    """The solvers ranked tasks on the whole table, protected_ranking within the field: 0 'proven' was beaten.

    Exhaustive oracle: every added set of every small table, ranked by protected_ranking (the documented ranking).
    """
    from benchvote.sensitivity import ordinal_sensitivity_exact

    rng = np.random.default_rng(0)
    for _ in range(250):
        m, n = int(rng.integers(3, 7)), int(rng.integers(2, 6))
        s = _chained_table(rng, m, n)
        p = int(rng.integers(2, m))
        protected, pool = list(s.index[:p]), list(s.index[p:])
        best = _brute_force_maximum(s, protected, pool)
        before = protected_ranking(s, protected=protected)
        for method in ("enumerate", "milp"):
            r = ordinal_sensitivity_exact(s, protected=protected, method=method)
            after = protected_ranking(s, protected=protected, added=list(r.added))
            assert r.ranking_before.tolist() == before.tolist() and r.ranking_after.tolist() == after.tolist()
            assert r.n_flipped == int(bv.ranking.reversed_pairs(before.to_numpy(), after.to_numpy()).sum())
            assert r.upper_bound * comb(p, 2) >= best - 1e-9
            assert not r.optimal or r.n_flipped == best
        assert ordinal_sensitivity_exact(s, protected=protected, method="enumerate").n_flipped == best


def test_one_added_model_that_chains_a_tie_is_found():
    """Alone, b beats a on t1 (1.2e-9 against 0) and t3, a wins t2: b is first.  The model x at 0.6e-9 chains
    t1 into one tie and beats b on t3 only, so with x a is first.  The whole-table ranking saw a tie on t1
    from the start and proved a maximum of 0.
    """
    from benchvote.sensitivity import ordinal_sensitivity_exact

    s = pd.DataFrame({"t1": [0.0, 1.2e-9, 0.6e-9], "t2": [1.0, 0.0, 0.5], "t3": [0.0, 1.0, 2.0]}, index=list("abx"))
    assert protected_ranking(s, protected=["a", "b"]).tolist() == [2.0, 1.0]
    assert protected_ranking(s, protected=["a", "b"], added=["x"]).tolist() == [1.0, 2.0]
    r = ordinal_sensitivity_exact(s, protected=["a", "b"])
    assert (r.n_flipped, r.added, r.optimal) == (1, ("x",), True)
    r = ordinal_sensitivity_exact(s, protected=["a", "b"], method="milp")  # linear margins: no proof of 0
    assert r.upper_bound == 1.0 and r.optimal == (r.n_flipped == 1)
    flip = bv.axioms.iia_flip(s, pair=("a", "b"), protected=["a", "b"], pool=["x"])
    assert (flip.leader, flip.flippable, flip.certificate) == ("b", True, ("x",))


class TestCoordinatePolish:
    """The compiled line search of ``_coordinate_polish`` against a brute-force line search written here."""

    @staticmethod
    def brute_line_best(d, a, t, lo, hi):
        """Best count along coordinate t: every threshold, the ends and a point between every two cuts."""
        c = d @ a - d[:, t] * a[t]
        with np.errstate(divide="ignore", invalid="ignore"):
            cuts = np.unique(np.r_[lo[t], hi[t], -c[d[:, t] != 0] / d[d[:, t] != 0, t]])
        cuts = cuts[(cuts >= lo[t]) & (cuts <= hi[t])]
        points = np.r_[cuts, (cuts[:-1] + cuts[1:]) / 2]
        return max(int(((c + d[:, t] * x) < 0).sum()) for x in points)

    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(seed=st.integers(0, 10_000), m=st.integers(1, 60), n=st.integers(1, 6), zeros=st.booleans())
    def test_the_result_is_a_recount_and_no_coordinate_improves_it(self, seed, m, n, zeros):
        from benchvote.sensitivity._problem import _coordinate_polish

        rng = np.random.default_rng(seed)
        d = np.round(rng.normal(size=(m, n)) * 10.0 ** rng.integers(-3, 4, size=n), 2)
        if zeros:
            d[rng.random(d.shape) < 0.3] = 0.0
        lo = rng.uniform(0.01, 0.5, size=n)
        hi = lo + rng.uniform(0.01, 1.0, size=n)
        a0 = lo + (hi - lo) * rng.random(n)
        a, best = _coordinate_polish(d, a0, lo, hi, np.random.default_rng(seed))
        assert np.all((a >= lo) & (a <= hi))
        assert best == int(((d @ a) < 0).sum()) >= int(((d @ a0) < 0).sum())
        # a finished polish is a local maximum along every coordinate (the brute search may tie it, never beat it)
        for t in range(n):
            assert self.brute_line_best(d, a, t, lo, hi) <= best

    def test_the_work_budget_stops_it_and_the_seed_decides_the_order(self):
        from benchvote.sensitivity._problem import _coordinate_polish

        rng = np.random.default_rng(0)
        d = rng.normal(size=(300, 8))
        lo, hi = np.full(8, 0.05), np.ones(8)
        runs = [_coordinate_polish(d, hi.copy(), lo, hi, np.random.default_rng(4), max_steps=3) for _ in "ab"]
        assert np.array_equal(runs[0][0], runs[1][0]) and runs[0][1] == runs[1][1]
        assert int((runs[0][0] != hi).sum()) <= 3  # at most three line searches ran, so at most three weights moved


# --------------------------------------------------------------------------- the trade-off study (study.py)


def test_the_study_table_holds_its_rows_in_the_order_of_the_jobs_and_each_measures_own_values():
    """Rows in the order of the jobs (kinds interleaved), every value the measure's own."""
    from benchvote import data
    from benchvote.sensitivity import TradeOffJob, trade_off_table

    glue, efficiency, nsfw = data.load("SuperGLUE"), data.load("HELM-efficiency"), data.load("HEIM-nsfw")
    protected = list(nsfw.scores.index[:3])
    jobs = [
        TradeOffJob(efficiency, "ordinal"),
        TradeOffJob(glue, "cardinal"),
        TradeOffJob(nsfw, "ordinal", protected=protected),
    ]
    one = trade_off_table(jobs)
    assert list(one.index) == ["HELM-efficiency", "SuperGLUE", "HEIM-nsfw"]
    assert list(one.kind) == ["ordinal", "cardinal", "ordinal"]
    raw = cardinal_sensitivity(glue.scores)
    zbox = cardinal_sensitivity(glue.scores, eps=0.01, normalize="zscore")
    assert one.loc["SuperGLUE", "tau"] == raw.tau_distance and one.loc["SuperGLUE", "bound"] == raw.upper_bound
    assert one.loc["SuperGLUE", "tau (z-score box)"] == zbox.tau_distance
    assert one.loc["SuperGLUE", "diversity"] == bv.diversity(glue.scores).diversity
    exact = ordinal_sensitivity_exact(nsfw.scores, nsfw.higher_is_better, protected=protected)
    assert one.loc["HEIM-nsfw", "tau"] == exact.tau_distance and one.loc["HEIM-nsfw", "added"] == len(exact.added)
    assert (
        one.loc["HELM-efficiency", "tau"]
        == ordinal_sensitivity_exact(efficiency.scores, efficiency.higher_is_better).tau_distance
    )


def test_the_study_refuses_an_unknown_kind_before_computing_any_row(monkeypatch):
    from benchvote import data
    from benchvote.sensitivity import TradeOffJob, study, trade_off_table

    board = data.load("SuperGLUE")
    monkeypatch.setitem(study.ROWS, "cardinal", lambda job: pytest.fail("a row was computed"))
    with pytest.raises(ValueError, match="kind"):
        trade_off_table([TradeOffJob(board, "cardinal"), TradeOffJob(board, "borda")])
