"""benchvote.sensitivity.ordinal: the exact solvers against enumeration of every added set, the relaxation below."""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sensitivity_oracles import FACTORS, brute_ordinal, brute_ordinal_exact, oriented, random_ordinal, same_tie_pattern

import benchvote as bv
from benchvote.aggregation import protected_ranking
from benchvote.sensitivity import default_protected, ordinal_sensitivity, ordinal_sensitivity_exact


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


class TestOrdinalDisjointCoverage:
    """Added models that share no task with each other: the exact solvers against exact enumeration."""

    def test_the_best_added_set_may_hold_models_that_share_no_task(self):
        # the best added set holds D and E, which share no task
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
        assert same_tie_pattern(s, scaled)  # integers times a factor >= 1e-6: gaps >= 1e-6, ties stay exact
        a = ordinal_sensitivity_exact(pd.DataFrame(s, index=names), hib, protected=protected)
        b = ordinal_sensitivity_exact(pd.DataFrame(scaled, index=names), hib, protected=protected)
        what = f"task {task} times {factor!r}; table={s.tolist()!r} hib={hib} protected={protected}"
        assert a.n_flipped == truth, what
        assert (a.n_flipped, a.added, a.optimal, a.upper_bound) == (b.n_flipped, b.added, b.optimal, b.upper_bound), (
            what
        )
        assert a.ranking_before.equals(b.ranking_before) and a.ranking_after.equals(b.ranking_after), what


class TestIdenticalProtectedModels:
    def test_they_cannot_be_reversed(self):
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
