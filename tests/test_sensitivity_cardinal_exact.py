"""benchvote.sensitivity.cardinal_exact: the box search and the mixed-integer program against exact oracles."""

from __future__ import annotations

import time
from math import comb

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sensitivity_oracles import (
    arrangement_oracle,
    brute_cardinal,
    check_cardinal_verdicts,
    has_constant_task,
    integer_tables_and_a_rescaled_task,
    lp_cardinal_oracle,
    mixed_scale_tables,
    oriented,
    random_cardinal,
    small_boards,
)

import benchvote as bv
from benchvote.sensitivity import cardinal_sensitivity, cardinal_sensitivity_exact, default_eps


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

    def test_a_second_core_changes_nothing_and_paired_halving_changes_no_proof(self, monkeypatch):
        # the two halvings of a level run on a second thread or on the caller's: the same steps (the same trace of
        # centres tried, in the same order), so the same result to the bit, also when a work budget stops the search;
        # never pairing (another order of the search) proves the same maximum
        import contextlib
        from concurrent.futures import ThreadPoolExecutor

        from benchvote.sensitivity import cardinal_exact
        from benchvote.sensitivity._problem import _cardinal_setup

        halves, trace = [], []
        real_halves, real_try = cardinal_exact._two_halves, cardinal_exact._BoxSearch.try_centres
        monkeypatch.setattr(cardinal_exact, "_two_halves", lambda boxes: halves.append(1) or real_halves(boxes))

        def traced(search, counts, box_lo, box_hi):
            trace.append((len(counts), int(counts.max()) if len(counts) else -1, search.best))
            return real_try(search, counts, box_lo, box_hi)

        monkeypatch.setattr(cardinal_exact._BoxSearch, "try_centres", traced)

        def run(prob, pool, work):
            monkeypatch.setattr(cardinal_exact, "_second_core", pool)
            trace.clear()
            r = cardinal_exact._cardinal_boxes(prob, None, 0, time.perf_counter(), work_limit=work)
            return r, list(trace)

        # 60 x 6 proven (its centres raise the incumbent from 422 to 431 on the way); 40 x 14 stopped by its budget
        for (m, n, seed), works in (((60, 6, 2), (300, 600, 10**6)), ((40, 14, 17), (300, 3_000))):
            prob = _cardinal_setup(random_cardinal(seed, m=m, n=n), True, 0.01, "zscore", 1e-9)
            for work in works:
                (two, two_trace), (one, one_trace) = (
                    run(prob, lambda: ThreadPoolExecutor(max_workers=1), work),  # a second thread, whatever the cores
                    run(prob, contextlib.nullcontext, work),
                )
                assert two_trace == one_trace
                assert (two.n_flipped, two.work, two.upper_bound, two.stopped) == (
                    one.n_flipped, one.work, one.upper_bound, one.stopped
                )  # fmt: skip
                assert np.array_equal(np.asarray(two.weights), np.asarray(one.weights))
        assert halves, "no group was large enough to pair: the test would show nothing"
        prob = _cardinal_setup(random_cardinal(402, m=60, n=6), True, 0.01, "zscore", 1e-9)
        paired = run(prob, contextlib.nullcontext, 10**6)[0]
        monkeypatch.setattr(cardinal_exact, "PAIRED_HALVING", 10**12)
        unpaired = run(prob, contextlib.nullcontext, 10**6)[0]
        assert paired.optimal and unpaired.optimal and unpaired.n_flipped == paired.n_flipped

    def test_one_box_search_thread_when_asked_or_when_the_process_has_one_core(self, monkeypatch):
        import contextlib
        import os
        from concurrent.futures import ThreadPoolExecutor

        from benchvote.sensitivity import cardinal_exact

        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
        with cardinal_exact._second_core() as pool:
            assert isinstance(pool, ThreadPoolExecutor)
        monkeypatch.setattr(cardinal_exact, "BOX_SEARCH_THREADS", 1)
        assert isinstance(cardinal_exact._second_core(), contextlib.nullcontext)
        monkeypatch.setattr(cardinal_exact, "BOX_SEARCH_THREADS", 2)
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
        assert isinstance(cardinal_exact._second_core(), contextlib.nullcontext)

    def test_the_cutting_planes_reach_the_margin_of_the_whole_program(self, monkeypatch):
        # _widest_margin solves with a few conditions at a time; its weights must keep every reversal
        # as far from its hyperplane as the linear program over all of them does.  Started from the
        # search's weights and from the box's lowest corner (where the nearest conditions are the wrong ones)
        from scipy.optimize import linprog

        from benchvote.sensitivity import cardinal_exact
        from benchvote.sensitivity._problem import _cardinal_setup

        rounds = []
        monkeypatch.setattr(cardinal_exact, "linprog", lambda *a, **k: rounds.append(1) or linprog(*a, **k))
        several = 0
        for seed in range(4):
            s = random_cardinal(500 + seed, m=50, n=5)
            prob = _cardinal_setup(s, True, 0.01, "none", 1e-9)
            found = np.asarray(cardinal_sensitivity_exact(s, eps=0.01).weights)
            chosen = prob.d[prob.d @ found < -prob.slack]
            rows = chosen / prob.factors
            rows = rows / np.abs(rows).max(axis=1, keepdims=True)
            n = rows.shape[1]
            full = linprog(
                np.r_[np.zeros(n), -1.0],
                A_ub=np.hstack([rows, np.ones((len(rows), 1))]),
                b_ub=np.zeros(len(rows)),
                bounds=list(zip(prob.lo * prob.factors, prob.hi * prob.factors)) + [(None, 1e6)],
                method="highs",
            )
            for start in (found, prob.lo.copy()):
                rounds.clear()
                wide = cardinal_exact._widest_margin(prob, chosen, start)
                several += len(rounds) > 1
                reached = -(rows @ (wide * prob.factors)).max()
                assert reached >= -full.fun * (1 - 1e-7), (seed, reached, -full.fun)
        assert several, "every program was solved in one round: the cutting planes were never tested"

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
        stopped = cardinal_sensitivity_exact(s, eps=0.01, method="boxes", work_limit=2000)
        assert not stopped.optimal and stopped.stopped == "work_limit"
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

    def test_best_first_bound_only_shrinks_with_more_work(self):
        # a work budget, not a clock: a wall-clock limit stops a loaded machine's longer run earlier than a
        # shorter one (CI of 74ebe49: 0.05 s reached 0.586, 1.0 s stopped at the faces' bound 0.618)
        s = random_cardinal(17, m=40, n=14)
        runs = [cardinal_sensitivity_exact(s, eps=0.01, method="boxes", work_limit=work) for work in (1, 100, 2000)]
        bounds = [r.upper_bound for r in runs]
        assert bounds[0] >= bounds[1] >= bounds[2] and bounds[0] > bounds[2]
        assert all(r.stopped == "work_limit" and r.tau_distance <= r.upper_bound for r in runs)

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


ORACLE_COUNTS = {"instances": 0, "milp_certified": 0}


class TestCardinalAgainstTheArrangement:
    """Every optimal=True claim and every certified bound, against exhaustive enumeration of the cells."""

    @settings(max_examples=250, deadline=None)
    @given(small_boards())
    def test_boxes_auto_and_milp(self, board):
        s, eps, normalize = board
        if has_constant_task(s):
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

    def test_oracle_on_tied_integers_and_a_tiny_margin(self):
        # tied integer scores; the true maximum is 2
        s = np.array([[4, 5, 3], [5, 0, 5], [2, 0, 4], [1, 1, 5], [5, 1, 1], [4, 4, 2]], dtype=float)
        assert arrangement_oracle(s, 0.5) == 2
        # weights [0.1, 1] reverse the first two models by about 1e-6
        s = np.array([[10 - 1e-5, 0], [0, 1], [-5, -5]])
        assert arrangement_oracle(s, 0.1) == 1


class TestCertificatesOnTiesAndSmallMargins:
    """Small margins count as the recount counts them; exact ties and near-constant tasks are no reversals."""

    def test_milp_counts_small_margins_like_the_recount(self):
        # the MILP demanded a margin of 1e-6 |d|_1 and "proved" 0 reversals
        s = np.array([[10 - 1e-5, 0], [0, 1], [-5, -5]])
        for method in ("milp", "boxes", "auto"):
            r = cardinal_sensitivity_exact(s, eps=0.1, method=method)
            assert r.n_flipped == 1 and r.optimal, method
        assert cardinal_sensitivity_exact(s, eps=0.1, method="milp").upper_bound >= 1 / 3

    def test_box_search_is_not_fooled_by_exact_ties(self):
        # float error counted an exact tie as a reversal and pruned the optimum
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
        # std of three copies of 55.55555555555556 is 7e-15, not 0
        s = np.array([[55.55555555555556, 1.0], [55.55555555555556, 2.0], [55.55555555555556, 3.0]])
        with pytest.raises(ValueError, match="constant task"):
            default_eps(s)
        with pytest.raises(ValueError, match="constant task"):
            cardinal_sensitivity_exact(s, eps=0.1, normalize="zscore")


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
        assume(not has_constant_task(s))
        a = cardinal_sensitivity_exact(_zscore(s), eps=eps, method=method, time_limit=5.0)
        b = cardinal_sensitivity_exact(_zscore(scaled), eps=eps, method=method, time_limit=5.0)
        what = f"task {task} times {factor!r}; table={s.tolist()!r}"
        assert (a.n_flipped, a.optimal) == (b.n_flipped, b.optimal), what
        assert np.array_equal(a.ranking_before, b.ranking_before), what


class TestShortBudgets:
    """A short budget returns a certified bound, and a count that meets the bound is reported optimal."""

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

    def test_a_milp_stopped_before_any_solution_still_returns_a_bound(self):
        # before the fix: RuntimeError "the MILP solver returned no solution" at time_limit 0.001 and 0.01
        s = np.random.default_rng(0).integers(0, 100, size=(60, 30)).astype(float)
        for limit in (1e-3, 1e-2):
            r = cardinal_sensitivity_exact(s, eps=0.05, method="milp", time_limit=limit)
            assert r.upper_bound is not None and r.upper_bound >= r.tau_distance
            assert r.optimal or r.stopped in ("time_limit", "work_limit")


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
