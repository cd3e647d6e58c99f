"""benchvote.sensitivity.cardinal: the relaxation, the search and ``method="auto"`` against exact answers."""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from sensitivity_oracles import arrangement_oracle, has_constant_task, random_cardinal, small_boards

import benchvote as bv
from benchvote.sensitivity import cardinal_sensitivity, cardinal_sensitivity_exact, default_eps


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
        options = dict(eps=0.01, work_limit=50, restarts=4, steps=30, polish_starts=4, seed=2)
        auto = cardinal_sensitivity(s, **options)
        exact = cardinal_sensitivity_exact(s, eps=0.01, work_limit=50, seed=2)
        assert exact.stopped == "work_limit"  # the search is unfinished: the budget, not a clock, says so
        relaxed = cardinal_sensitivity(
            s, method="relaxation", **{k: v for k, v in options.items() if k != "work_limit"}
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


class TestSearch:
    """``cardinal_sensitivity(method="search")``, the torch-free search the audit uses beyond ten tasks."""

    @settings(max_examples=120, deadline=None)
    @given(small_boards())
    def test_against_the_arrangement(self, board):
        """A value reached and a bound that holds: found <= truth <= bound, equality when it says optimal."""
        s, eps, normalize = board
        if has_constant_task(s):
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
            if has_constant_task(s):
                continue
            for normalize in ("none", "zscore"):
                found = cardinal_sensitivity(s, normalize=normalize, method="search")
                exact = cardinal_sensitivity_exact(s, normalize=normalize, method="boxes")
                assert exact.optimal and found.n_flipped <= exact.n_flipped <= round(found.upper_bound * 15)

    def test_bad_options_are_named(self):
        with pytest.raises(ValueError, match="polish_starts"):
            cardinal_sensitivity([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], method="search", polish_starts=-1)


def test_the_coordinate_search_stops_at_its_budget_of_pair_steps():
    """``work_limit`` of ``method="search"`` counts line searches times ordered pairs (it was ignored)."""
    rng = np.random.default_rng(8)
    s = pd.DataFrame(rng.normal(size=(25, 12)))
    search = bv.sensitivity.cardinal_sensitivity
    free = search(s, eps=0.05, method="search")
    assert not free.optimal  # the search does not end early on this table: the budget matters
    one = search(s, eps=0.05, method="search", work_limit=1)  # a single line search
    assert one.stopped == "work_limit" and one.n_flipped <= free.n_flipped
    ample = search(s, eps=0.05, method="search", work_limit=10**15)
    assert ample.n_flipped == free.n_flipped and np.array_equal(ample.weights, free.weights)
    some = [search(s, eps=0.05, method="search", work_limit=w).n_flipped for w in (300 * 20, 300 * 200, 300 * 2000)]
    assert some == sorted(some) and some[-1] <= free.n_flipped  # more work never finds less (the starts run in order)
