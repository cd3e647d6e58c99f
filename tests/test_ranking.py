"""Tests for benchvote.ranking: oracles (scipy, brute force), properties and bad input."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from conftest import permutations_of, score_tables, strictly_increasing_transforms
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

import benchvote as bv
from benchvote import kendall_tau_distance, max_rank_change, rank


def brute_rank(x):
    """1 + #better + half #tied (others), higher is better."""
    x = np.asarray(x, dtype=float)
    return np.array([1 + np.sum(x > v) + 0.5 * (np.sum(x == v) - 1) for v in x])


def brute_tau(a, b, p=0.0):
    total = 0.0
    pairs = list(combinations(range(len(a)), 2))
    for i, j in pairs:
        sa, sb = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
        if sa * sb < 0:
            total += 1
        elif (sa == 0) != (sb == 0):
            total += p
    return total / len(pairs)


class TestRank:
    @given(score_tables(max_tasks=1))
    def test_matches_scipy_and_brute_force(self, table):
        x = table[:, 0]
        ours = rank(x, tol=0)
        assert np.array_equal(ours, brute_rank(x))
        assert np.allclose(ours, stats.rankdata(-x, method="average"))

    @given(score_tables())
    def test_columns_are_midrank_vectors(self, table):
        r = rank(table)
        m = table.shape[0]
        assert np.allclose(r.sum(axis=0), m * (m + 1) / 2)
        assert (r >= 1).all() and (r <= m).all()

    def test_lower_is_better_and_axis(self):
        s = np.array([[1.0, 5.0], [2.0, 4.0], [3.0, 3.0]])
        assert np.array_equal(rank(s, higher_is_better=[True, False]), [[3, 3], [2, 2], [1, 1]])
        assert np.array_equal(rank(s, axis=1), [[2, 1], [2, 1], [1.5, 1.5]])

    def test_tolerance_chains_groups(self):
        assert np.array_equal(rank([0.0, 1.0, 2.0, 10.0], tol=1.0), [3, 3, 3, 1])
        assert np.array_equal(rank([0.1 + 0.2, 0.3]), [1.5, 1.5])
        assert np.array_equal(rank([0.1 + 0.2, 0.3], tol=0), [1, 2])

    def test_nan_omit_ranks_observed_only(self):
        r = rank([3.0, np.nan, 1.0, 2.0], nan_policy="omit")
        assert np.isnan(r[1])
        assert np.array_equal(r[[0, 2, 3]], [1, 3, 2])

    def test_dataframe_keeps_labels(self):
        df = pd.DataFrame({"t1": [1.0, 2.0], "t2": [2.0, 1.0]}, index=["a", "b"])
        out = rank(df, higher_is_better=pd.Series({"t2": False, "t1": True}))
        assert list(out.index) == ["a", "b"] and list(out.columns) == ["t1", "t2"]
        assert out.loc["a", "t1"] == 2 and out.loc["a", "t2"] == 2

    @given(score_tables(), st.data())
    def test_permuting_models_permutes_ranks(self, table, data):
        perm = data.draw(permutations_of(table.shape[0]))
        assert np.array_equal(rank(table[perm]), rank(table)[perm])

    @given(score_tables(), strictly_increasing_transforms())
    def test_invariant_under_increasing_transform(self, table, f):
        assert np.array_equal(rank(f(table)), rank(table))

    @pytest.mark.parametrize(
        "bad, message",
        [
            ([1.0, np.nan], "missing"),
            ([1.0, np.inf], "infinite"),
            (["a", "b"], "numeric"),
            (np.zeros((2, 2, 2)), "1-D or 2-D"),
        ],
    )
    def test_bad_input(self, bad, message):
        with pytest.raises(ValueError, match=message):
            rank(bad)

    def test_bad_options(self):
        with pytest.raises(ValueError, match="tol"):
            rank([1, 2], tol=-1)
        with pytest.raises(ValueError, match="nan_policy"):
            rank([1, 2], nan_policy="drop")
        with pytest.raises(ValueError, match="one entry per task"):
            rank(np.ones((3, 2)), higher_is_better=[True])
        with pytest.raises(ValueError, match="non-numeric|numeric"):
            rank(pd.DataFrame({"t": ["x", "y"]}))


class TestKendallTauDistance:
    @given(score_tables(min_models=2, max_models=9, min_tasks=2, max_tasks=2, ties=False))
    def test_matches_scipy_without_ties(self, table):
        a, b = table[:, 0], table[:, 1]
        tau = stats.kendalltau(a, b).statistic
        assert kendall_tau_distance(a, b) == pytest.approx((1 - tau) / 2)

    @given(score_tables(min_models=2, max_models=8, min_tasks=2, max_tasks=2), st.sampled_from([0.0, 0.5, 1.0]))
    def test_matches_brute_force_with_ties(self, table, p):
        a, b = table[:, 0], table[:, 1]
        assert kendall_tau_distance(a, b, tie_penalty=p) == pytest.approx(brute_tau(a, b, p))

    @given(score_tables(min_tasks=2, max_tasks=2), st.data())
    def test_symmetric_and_permutation_invariant(self, table, data):
        a, b = table[:, 0], table[:, 1]
        perm = data.draw(permutations_of(len(a)))
        d = kendall_tau_distance(a, b)
        assert d == kendall_tau_distance(b, a)
        assert d == pytest.approx(kendall_tau_distance(a[perm], b[perm]))
        assert 0.0 <= d <= 1.0

    @settings(max_examples=60, deadline=None)
    @given(st.integers(0, 10**6), st.sampled_from([1e-6, 1.0, 1e10]), st.sampled_from([0.0, 0.5, 1.0]))
    def test_merge_count_matches_all_pairs_on_large_tied_rankings(self, seed, scale, p):
        """The O(m log m) count of issue 30 against the count over all m (m - 1) / 2 pairs, with many ties."""
        rng = np.random.default_rng(seed)
        m = int(rng.integers(2, 400))
        a, b = (rng.integers(0, int(rng.integers(1, 30)), size=m).astype(float) for _ in range(2))
        i, j = np.triu_indices(m, k=1)
        sa, sb = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
        opposite, one_tied = int(np.sum(sa * sb < 0)), int(np.sum((sa == 0) != (sb == 0)))
        expected = (opposite + p * one_tied) / len(i)
        assert kendall_tau_distance(a, b, tie_penalty=p) == expected
        assert kendall_tau_distance(a * scale, b * scale, tie_penalty=p) == expected  # rescaling keeps every sign
        perm = rng.permutation(m)
        assert kendall_tau_distance(a[perm], b[perm], tie_penalty=p) == expected
        both_strict = int(np.sum((sa != 0) & (sb != 0)))  # flipping one ranking swaps opposite and agreeing pairs
        flipped = kendall_tau_distance(a, -b, tie_penalty=p)
        assert flipped == (both_strict - opposite + p * one_tied) / len(i)

    def test_extremes(self):
        assert kendall_tau_distance([1, 2, 3], [1, 2, 3]) == 0.0
        assert kendall_tau_distance([1, 2, 3], [3, 2, 1]) == 1.0
        # a tie in both rankings never counts
        assert kendall_tau_distance([1.5, 1.5, 3], [1.5, 1.5, 3], tie_penalty=1.0) == 0.0

    def test_bad_input(self):
        with pytest.raises(ValueError, match="length"):
            kendall_tau_distance([1, 2, 3], [1, 2])
        with pytest.raises(ValueError, match="at least 2"):
            kendall_tau_distance([1], [1])
        with pytest.raises(ValueError, match="missing"):
            kendall_tau_distance([1, np.nan], [1, 2])
        with pytest.raises(ValueError, match="tie_penalty"):
            kendall_tau_distance([1, 2], [1, 2], tie_penalty=2)


class TestMaxRankChange:
    @given(score_tables(min_tasks=2, max_tasks=2), st.data())
    def test_brute_force_and_permutation(self, table, data):
        a, b = rank(table[:, 0]), rank(table[:, 1])
        m = len(a)
        expected = max(abs(a[i] - b[i]) for i in range(m)) / (m - 1)
        assert max_rank_change(a, b) == pytest.approx(expected)
        perm = data.draw(permutations_of(m))
        assert max_rank_change(a[perm], b[perm]) == pytest.approx(expected)
        assert 0 <= expected <= 1

    def test_reversal_is_one(self):
        assert max_rank_change([1, 2, 3, 4], [4, 3, 2, 1]) == 1.0

    def test_bad_input(self):
        with pytest.raises(ValueError, match="length"):
            max_rank_change([1, 2], [1, 2, 3])


@given(st.lists(st.integers(-4, 4), min_size=2, max_size=9))
def test_exact_midranks_agree_with_rank(values):
    """Integers are exact in floats too, so the exact ranking must equal rank's (tol 0 and tol 1)."""
    from fractions import Fraction

    from benchvote.ranking import exact_midranks

    assert np.array_equal(exact_midranks(values), rank(np.array(values, dtype=float), tol=0.0))
    assert np.array_equal(
        exact_midranks([Fraction(v) for v in values], 1), rank(np.array(values, dtype=float), tol=1.0)
    )


@given(st.data())
def test_reversed_pairs_count_is_the_kendall_distance(data):
    from math import comb

    from benchvote.ranking import reversed_pairs

    m = data.draw(st.integers(2, 8))
    before = rank(np.array(data.draw(st.lists(st.integers(0, 3), min_size=m, max_size=m)), dtype=float))
    after = rank(np.array(data.draw(st.lists(st.integers(0, 3), min_size=m, max_size=m)), dtype=float))
    flips = reversed_pairs(before, after)
    assert flips.sum() == round(kendall_tau_distance(before, after) * comb(m, 2))
    assert not (flips & flips.T).any()  # a pair is reversed one way at most
    perm = np.array(data.draw(st.permutations(range(m))))
    assert np.array_equal(reversed_pairs(before[perm], after[perm]), flips[np.ix_(perm, perm)])


@given(st.data())
def test_flipped_pairs_lists_the_reversed_pairs_row_by_row(data):
    """``flipped_pairs`` (the book's list) and ``reversed_pairs`` (the solvers' matrix) are one relation."""
    from benchvote.ranking import flipped_pairs, reversed_pairs

    m = data.draw(st.integers(1, 7))
    before = rank(np.array(data.draw(st.lists(st.integers(0, 3), min_size=m, max_size=m)), dtype=float))
    after = rank(np.array(data.draw(st.lists(st.integers(0, 3), min_size=m, max_size=m)), dtype=float))
    brute = [(i, j) for i in range(m) for j in range(m) if before[i] < before[j] and after[i] > after[j]]
    assert flipped_pairs(before, after) == brute
    assert flipped_pairs(before, after) == [tuple(p) for p in np.argwhere(reversed_pairs(before, after)).tolist()]


# ---------------------------------------------------------------- pareto_front (used by the audit's cost section)


def _front_oracle(quality: np.ndarray, costs: np.ndarray) -> list[bool]:
    """The definition, pair by pair."""
    m = len(quality)
    ok = [not (np.isnan(quality[i]) or np.isnan(costs[i]).any()) for i in range(m)]

    def dominates(j: int, i: int) -> bool:
        no_worse = quality[j] >= quality[i] and all(costs[j] <= costs[i])
        return no_worse and (quality[j] > quality[i] or any(costs[j] < costs[i]))

    return [ok[i] and not any(ok[j] and dominates(j, i) for j in range(m)) for i in range(m)]


@given(
    st.integers(1, 8).flatmap(
        lambda m: st.tuples(
            arrays(np.float64, m, elements=st.sampled_from([0.0, 1.0, 2.0, np.nan])),
            st.integers(1, 3).flatmap(
                lambda k: arrays(np.float64, (m, k), elements=st.sampled_from([0.0, 0.5, 1.0, 3.0, np.nan]))
            ),
        )
    )
)
def test_the_pareto_front_is_the_one_of_the_definition(case):
    quality, costs = case
    front = bv.ranking.pareto_front(quality, costs)
    assert front.tolist() == _front_oracle(quality, costs)
    if not np.isnan(quality).any() and not np.isnan(costs).any():
        assert front.any()  # someone is always on the front
        doubled = bv.ranking.pareto_front(np.r_[quality, quality], np.r_[costs, costs])
        assert doubled.tolist() == front.tolist() * 2  # a duplicate is on the front with its twin, or neither is
    one = bv.ranking.pareto_front(pd.Series(quality, index=[f"m{i}" for i in range(len(quality))]), costs[:, 0])
    assert list(one.index) == [f"m{i}" for i in range(len(quality))]
    assert one.tolist() == _front_oracle(quality, costs[:, :1])


@given(
    st.integers(2, 8).flatmap(
        lambda m: st.tuples(
            arrays(np.float64, m, elements=st.sampled_from([0.0, 1.0, 2.0])),
            arrays(np.float64, (m, 2), elements=st.sampled_from([0.0, 0.5, 1.0, 3.0])),
            st.permutations(range(m)),
            st.sampled_from([1e-6, 1e-3, 7.0, 1e10]),
        )
    )
)
def test_the_front_follows_its_models_and_ignores_units(case):
    """Permuting the models permutes the front; rescaling a cost or the quality by a positive factor keeps it."""
    quality, costs, order, factor = case
    front = bv.ranking.pareto_front(quality, costs)
    order = list(order)
    assert bv.ranking.pareto_front(quality[order], costs[order]).tolist() == front[order].tolist()
    assert bv.ranking.pareto_front(quality * factor, costs * [factor, 1.0]).tolist() == front.tolist()


@pytest.mark.parametrize(
    "quality, costs, message",
    [
        ([1.0, 2.0], [[1.0], [2.0], [3.0]], "one row per model"),
        ([1.0, 2.0], [1.0, np.inf], "infinite"),
        ([1.0, 2.0], [["a"], ["b"]], "costs"),
        (["x", "y"], [1.0, 2.0], "quality"),
    ],
)
def test_the_front_refuses_bad_input_by_name(quality, costs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        bv.ranking.pareto_front(quality, costs)
