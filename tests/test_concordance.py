"""Tests for benchvote.concordance: Kendall's W and diversity."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from conftest import permutations_of, score_tables, strictly_increasing_transforms
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import benchvote as bv
from benchvote import diversity, kendall_w, rank, tie_correction


def direct_w(ranks):
    """Textbook formula written out with loops (independent of the library)."""
    ranks = np.asarray(ranks, dtype=float)
    m, n = ranks.shape
    rank_sums = [sum(ranks[i, j] for j in range(n)) for i in range(m)]
    mean = n * (m + 1) / 2
    s = sum((r - mean) ** 2 for r in rank_sums)
    t_total = 0.0
    for j in range(n):
        col = list(ranks[:, j])
        for v in set(col):
            t = col.count(v)
            t_total += t**3 - t
    return 12 * s / (n**2 * (m**3 - m) - n * t_total)


def benchbench_style_w(ranks):
    """benchbench 1.0.1's computation: midranks cast to int, no tie correction."""
    r = np.array(ranks, dtype=int).T  # raters x items
    n_items, n_raters = r.shape[1], r.shape[0]
    sums = r.sum(axis=0)
    ss = np.sum((sums - sums.mean()) ** 2)
    return ss / (n_raters**2 * (n_items**3 - n_items) / 12)


class TestKendallW:
    @given(score_tables(min_models=2, max_models=7, min_tasks=1, max_tasks=6))
    def test_matches_direct_formula_on_tied_data(self, table):
        r = rank(table)
        if (tie_correction(r) == table.shape[0] ** 3 - table.shape[0]).all():
            with pytest.raises(ValueError, match="undefined"):
                kendall_w(r)
            return
        assert kendall_w(r) == pytest.approx(direct_w(r))

    @given(score_tables(min_models=3, max_models=8, min_tasks=2, max_tasks=6, ties=False))
    def test_spearman_identity_without_ties(self, table):
        r = rank(table)
        n = r.shape[1]
        rhos = [stats.spearmanr(r[:, a], r[:, b]).statistic for a, b in combinations(range(n), 2)]
        assert kendall_w(r) == pytest.approx(((n - 1) * np.mean(rhos) + 1) / n)

    @given(score_tables(min_models=2, max_models=7, min_tasks=1, max_tasks=6))
    def test_in_unit_interval(self, table):
        r = rank(table)
        if (tie_correction(r) == table.shape[0] ** 3 - table.shape[0]).all():
            return
        assert 0.0 <= kendall_w(r) <= 1.0

    @given(score_tables(min_models=2, max_models=7, min_tasks=1, max_tasks=1), st.integers(1, 5))
    def test_identical_rankings_with_ties_give_one(self, table, copies):
        col = table[:, 0]
        if len(np.unique(col)) == 1:
            return
        r = rank(np.repeat(col[:, None], copies, axis=1))
        assert kendall_w(r) == pytest.approx(1.0)

    @given(score_tables(min_models=2, max_models=6, min_tasks=2, max_tasks=5), st.data())
    def test_permutation_invariant(self, table, data):
        r = rank(table)
        if (tie_correction(r) == table.shape[0] ** 3 - table.shape[0]).all():
            return
        perm_models = data.draw(permutations_of(r.shape[0]))
        perm_tasks = data.draw(permutations_of(r.shape[1]))
        assert kendall_w(r[perm_models][:, perm_tasks]) == pytest.approx(kendall_w(r))

    def test_benchbench_int_cast_differs_on_ties(self):
        scores = np.array([[0.9, 0.8, 0.8, 0.1]] * 3).T
        r = rank(scores)
        assert kendall_w(r) == 1.0
        assert benchbench_style_w(r) == pytest.approx(0.95)
        assert kendall_w(r, correct_ties=False) == pytest.approx(0.90)

    def test_complete_disagreement(self):
        assert kendall_w([[1, 2, 3], [2, 3, 1], [3, 1, 2]]) == 0.0

    def test_bad_input(self):
        with pytest.raises(ValueError, match="Did you pass scores"):
            kendall_w([[0.9, 0.1], [0.5, 0.7]])
        with pytest.raises(ValueError, match="missing"):
            kendall_w([[1, np.nan], [2, 1]])
        with pytest.raises(ValueError, match="at least 2 models"):
            kendall_w([[1, 1]])
        with pytest.raises(ValueError, match="undefined"):
            kendall_w([[1.5, 1.5], [1.5, 1.5]])


class TestDiversity:
    def test_single_task_repeated_has_zero_diversity(self):
        col = np.array([5.0, 3.0, 4.0, 1.0])
        d = diversity(np.repeat(col[:, None], 4, axis=1))
        assert d.diversity == pytest.approx(0.0) and d.mean_pairwise_mrc == 0.0

    @given(score_tables(min_models=3, max_models=6, min_tasks=2, max_tasks=5), strictly_increasing_transforms())
    def test_ordinal_invariance(self, table, f):
        r = rank(table)
        if (tie_correction(r) == table.shape[0] ** 3 - table.shape[0]).all():
            return
        a, b = diversity(table), diversity(f(table))
        assert a.diversity == pytest.approx(b.diversity)
        assert a.mean_pairwise_mrc == pytest.approx(b.mean_pairwise_mrc)

    def test_direction_matters(self):
        s = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
        assert diversity(s).diversity == pytest.approx(0.0)
        assert diversity(s, higher_is_better=[True, False]).diversity == pytest.approx(1.0)

    def test_missing_handling_is_explicit(self):
        s = pd.DataFrame(
            {"a": [3.0, 2.0, 1.0, np.nan], "b": [3.0, 2.0, 1.0, 4.0], "c": [1.0, 2.0, 3.0, 0.0]},
            index=["m1", "m2", "m3", "m4"],
        )
        with pytest.raises(ValueError, match="missing"):
            diversity(s)
        d = diversity(s, nan_policy="complete_models")
        assert d.dropped == ("m4",) and d.n_models == 3
        d2 = diversity(s, nan_policy="complete_tasks")
        assert d2.dropped == ("a",) and d2.n_tasks == 2
        with pytest.raises(ValueError, match="nan_policy must be"):
            diversity(s, nan_policy="impute")

    def test_bad_input(self):
        with pytest.raises(ValueError, match="at least 2 task"):
            diversity([[1.0], [2.0]])
        with pytest.raises(ValueError, match="at least 2 models"):
            diversity([[1.0, 2.0]])


def test_kendall_w_refuses_ranks_that_are_not_midranks():
    # audit: column 0 sums like a ranking of three models (1 + 1 + 4 = 6) but a tie must share 1.5 and 1.5
    with pytest.raises(ValueError, match="midranks"):
        bv.kendall_w([[1.0, 1.0], [1.0, 2.0], [4.0, 3.0]])
    # right sum and range, but equal values must carry the mean of their positions:
    # (2, 2, 3, 3) is not (1.5, 1.5, 3.5, 3.5)
    with pytest.raises(ValueError, match="midranks"):
        bv.kendall_w([[2.0, 1.0], [2.0, 2.0], [3.0, 3.0], [3.0, 4.0]])
    ranks = bv.rank(np.array([[2.0, 3.0], [2.0, 2.0], [1.0, 1.0]]))
    assert bv.kendall_w(ranks) == pytest.approx(bv.kendall_w([[1.5, 1.0], [1.5, 2.0], [3.0, 3.0]]))


def test_mean_pairwise_mrc_is_the_mean_of_max_rank_change_over_every_pair_of_tasks():
    import itertools

    from benchvote.concordance import diversity
    from benchvote.ranking import max_rank_change, rank

    rng = np.random.default_rng(3)
    s = rng.integers(0, 4, size=(6, 40)).astype(float)  # many ties
    s = s[:, np.ptp(s, axis=0) > 0]
    r = rank(s, True)
    pairs = [max_rank_change(r[:, a], r[:, b]) for a, b in itertools.combinations(range(s.shape[1]), 2)]
    assert diversity(s).mean_pairwise_mrc == pytest.approx(np.mean(pairs), abs=1e-12)
