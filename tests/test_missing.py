"""Tests for benchvote.missing: the closed form against enumeration of all linear extensions."""

from __future__ import annotations

from itertools import permutations
from math import comb, factorial

import numpy as np
import pytest
from conftest import permutations_of, score_tables, strictly_increasing_transforms
from hypothesis import given
from hypothesis import strategies as st

import benchvote as bv
from benchvote.missing import (
    compatible_matrix,
    expected_ranks,
    instance_robustness,
    pairwise_confidence,
    partial_borda,
    robustness_study,
    task_matrix,
    two_level_borda,
)

ALL_PERMS = {n: np.array(list(permutations(range(n)))) for n in range(2, 9)}


def enumerate_matrix(partial, n):
    """Share of linear extensions (complete rankings keeping the observed order) with i above j."""
    perms = ALL_PERMS[n]  # each row: systems from best to worst
    position = np.empty_like(perms)
    position[np.arange(len(perms))[:, None], perms] = np.arange(n)
    ok = np.ones(len(perms), dtype=bool)
    for a, b in zip(partial, partial[1:]):
        ok &= position[:, a] < position[:, b]
    pos = position[ok]
    out = (pos[:, :, None] < pos[:, None, :]).mean(axis=0)
    np.fill_diagonal(out, 0.0)
    return out


def paper_printed_p(n, k, r):
    """Himmi et al.'s eq. 6 exactly as printed (sums of factorials in S, a!/(b-a)! in V), r 0-based."""
    f = factorial

    def s_(a, b):
        return f(a + b) / (f(a) + f(b))

    def v_(a, b):
        return f(a) / f(b - a) if b >= a else 0.0

    t = f(n - k) * s_(k, n - k)
    total = 0.0
    for i in range(n - k):
        total += v_(i, n - k - 1) * (i + 1) * s_(r, i + 1) * f(n - k - i - 1) * s_(n - k - i - 1, k - r - 1)
    return total / t


def paper_corrected_p(n, k, r0):
    """The same count with products for the shuffles, variations b!/(b-a)!, and r0 the 0-based rank."""
    f = factorial

    def s_(a, b):
        return comb(a + b, a)

    def v_(a, b):
        return f(b) // f(b - a)

    t = f(n - k) * s_(k, n - k)
    total = 0
    for i in range(n - k):
        total += v_(i, n - k - 1) * (i + 1) * s_(r0, i + 1) * f(n - k - i - 1) * s_(n - k - i - 1, k - r0 - 1)
    return total / t


@pytest.mark.parametrize("n", range(2, 9))
def test_closed_form_matches_enumeration_for_every_n_k_r(n):
    for k in range(2, n + 1):
        partial = list(range(k))  # observed systems 0..k-1 in this order; the others unobserved
        exact = enumerate_matrix(partial, n)
        assert np.allclose(compatible_matrix(partial, n), exact)
        for r in range(1, k + 1):
            for u in range(k, n):
                assert exact[u, r - 1] == pytest.approx(r / (k + 1))


def test_printed_formula_is_wrong_and_the_corrected_one_is_right():
    wrong = right = 0
    cases = 0
    for n in range(2, 9):
        for k in range(1, n):  # at least one unobserved system
            for r0 in range(k):  # 0-based partial rank of the observed system
                cases += 1
                truth = (r0 + 1) / (k + 1)
                wrong += abs(paper_printed_p(n, k, r0) - truth) > 1e-9
                right += abs(paper_corrected_p(n, k, r0) - truth) < 1e-12
    assert cases == 84
    assert wrong == 84 and right == 84


def test_random_observed_order_and_ties():
    rng = np.random.default_rng(0)
    for _ in range(30):
        n = int(rng.integers(3, 8))
        k = int(rng.integers(2, n + 1))
        partial = list(rng.permutation(n)[:k])
        assert np.allclose(compatible_matrix(partial, n), enumerate_matrix(partial, n))
    # a tie group is the average over its two possible orders
    tied = compatible_matrix([[0, 1], 2], 4)
    avg = (enumerate_matrix([0, 1, 2], 4) + enumerate_matrix([1, 0, 2], 4)) / 2
    np.fill_diagonal(avg, 0.0)
    assert np.allclose(tied, avg)


@given(score_tables(min_models=2, max_models=8, min_tasks=1, max_tasks=1, missing=True))
def test_matrix_properties(table):
    m = task_matrix(table[:, 0])
    off = ~np.eye(len(m), dtype=bool)
    assert np.allclose((m + m.T)[off], 1.0)
    assert np.allclose(np.diag(m), 0.0)
    assert ((m >= 0) & (m <= 1)).all()


@given(score_tables(min_models=2, max_models=7, min_tasks=1, max_tasks=4, missing=True))
def test_expected_ranks_are_enumeration_means(table):
    r = expected_ranks(table)
    n = table.shape[0]
    assert np.allclose(r.sum(axis=0), n * (n + 1) / 2)
    for k in range(table.shape[1]):
        col = table[:, k]
        seen = ~np.isnan(col)
        ranks = bv.rank(col, nan_policy="omit")
        kk = seen.sum()
        assert np.allclose(r[seen, k], ranks[seen] * (n + 1) / (kk + 1))
        assert np.allclose(r[~seen, k], (n + 1) / 2)


class TestPartialBorda:
    @given(score_tables(min_tasks=1))
    def test_equals_borda_on_complete_data(self, table):
        assert np.allclose(partial_borda(table), bv.borda(table))

    @given(score_tables(missing=True), st.data())
    def test_permutation_equivariance(self, table, data):
        perm = data.draw(permutations_of(table.shape[0]))
        assert np.allclose(partial_borda(table[perm]), partial_borda(table)[perm])

    @given(score_tables(missing=True), strictly_increasing_transforms())
    def test_ordinal_invariance(self, table, f):
        assert np.allclose(partial_borda(f(table)), partial_borda(table))

    def test_bad_input(self):
        with pytest.raises(ValueError, match="fewer than 2 observed"):
            partial_borda([[1.0, 2.0], [np.nan, 1.0], [np.nan, 0.0]])
        with pytest.raises(ValueError, match="no observed score"):
            partial_borda([[1.0, 2.0], [np.nan, np.nan], [0.0, 1.0]])


def test_two_level_borda_brute_force():
    rng = np.random.default_rng(4)
    tasks = [np.where(rng.random((5, 4)) < 0.2, np.nan, rng.random((5, 4))) for _ in range(3)]
    for t in tasks:
        t[:2] = rng.random((2, 4))  # keep at least two observed systems per instance
    ours = two_level_borda(tasks)
    per_task = np.column_stack([partial_borda(t) for t in tasks])
    assert np.allclose(ours, bv.borda(per_task))
    with pytest.raises(ValueError, match="different models"):
        two_level_borda([tasks[0], tasks[1][:4]])


class TestConfidence:
    def test_formula(self):
        s = np.array([[1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
        c = pairwise_confidence(s, delta=0.1)
        assert c.comparisons[0, 1] == 4
        assert c.preference[0, 1] == pytest.approx(0.75)
        assert c.half_width[0, 1] == pytest.approx(np.sqrt(-np.log(0.1) / 8))
        assert c.decided[0, 1] == (0.25 > np.sqrt(-np.log(0.1) / 8))

    def test_more_comparisons_decide_more(self):
        s = np.vstack([np.ones(200), np.zeros(200)])
        assert not pairwise_confidence(s[:, :2], delta=0.05).decided[0, 1]
        assert pairwise_confidence(s, delta=0.05).decided[0, 1]

    @pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 2.0])
    def test_bad_delta(self, delta):
        with pytest.raises(ValueError, match="delta"):
            pairwise_confidence([[1.0], [0.0]], delta=delta)


@pytest.mark.parametrize(
    "bad, message",
    [
        (([0], 3), "at least 2 observed"),
        (([0, 0], 3), "twice"),
        (([0, 5], 3), "outside"),
        (([0, 1.5], 3), "indices"),
        (([0, 1], 1), "n must"),
    ],
)
def test_compatible_matrix_bad_input(bad, message):
    with pytest.raises(ValueError, match=message):
        compatible_matrix(*bad)


def test_diversity_with_expected_ranks_keeps_every_model():
    s = np.array([[3.0, 3.0, np.nan], [2.0, 2.0, 2.0], [1.0, np.nan, 1.0], [0.0, 1.0, 0.0]])
    d = bv.diversity(s, nan_policy="expected_ranks")
    assert d.n_models == 4 and d.dropped == ()
    complete = bv.diversity(s[[1, 3]][:, :], nan_policy="raise")
    assert 0.0 <= d.diversity <= 1.0 and complete.diversity == pytest.approx(0.0)


def test_unscored_systems_are_explicit():
    s = np.array([[1.0, 2.0], [np.nan, np.nan], [0.0, 1.0]])
    with pytest.raises(ValueError, match="no observed score"):
        partial_borda(s)
    out = partial_borda(s, nan_policy="middle")
    assert out[1] == pytest.approx(2 * (3 - 1) / 2)  # the middle of both tasks


@given(score_tables(min_models=2, max_models=8, min_tasks=1, max_tasks=5, missing=True))
def test_partial_borda_closed_form_equals_summed_matrices(table):
    summed = sum(task_matrix(table[:, k]) for k in range(table.shape[1]))
    assert np.allclose(partial_borda(table), summed.sum(axis=1))


class TestStudies:
    def test_knock_out_keeps_rankings_defined_and_is_seeded(self):
        import pandas as pd

        from benchvote.missing import knock_out

        s = pd.DataFrame(np.arange(40, dtype=float).reshape(8, 5))
        a, b = knock_out(s, 0.5, seed=3), knock_out(s, 0.5, seed=3)
        assert a.equals(b) and not a.equals(knock_out(s, 0.5, seed=4))
        assert (a.notna().sum(axis=0) >= 2).all() and (a.notna().sum(axis=1) >= 1).all()
        assert int(a.isna().sum().sum()) == 20
        with pytest.raises(ValueError, match="share"):
            knock_out(s, 1.0)

    def test_knn_impute_against_a_direct_implementation(self):
        import pandas as pd

        from benchvote.missing import knn_impute

        rng = np.random.default_rng(1)
        values = rng.normal(size=(12, 4))
        values[rng.random((12, 4)) < 0.2] = np.nan
        values[:, 0] = np.where(np.isnan(values[:, 0]), 0.5, values[:, 0])
        out = knn_impute(pd.DataFrame(values), n_neighbors=3).to_numpy()
        for i, j in zip(*np.nonzero(np.isnan(values))):
            donors = [r for r in range(12) if r != i and not np.isnan(values[r, j])]
            dist = []
            for r in donors:
                both = ~np.isnan(values[i]) & ~np.isnan(values[r])
                d2 = np.sum((values[i, both] - values[r, both]) ** 2) * values.shape[1] / both.sum()
                dist.append(np.sqrt(d2))
            nearest = np.argsort(dist, kind="stable")[:3]
            assert out[i, j] == pytest.approx(np.mean([values[donors[k], j] for k in nearest]))
        assert np.allclose(out[~np.isnan(values)], values[~np.isnan(values)])

    def test_robustness_study_is_exact_at_zero_and_deterministic(self):
        from benchvote import data

        lb = data.load("SuperGLUE")
        a = robustness_study(lb.scores, shares=[0.0, 0.2], repetitions=3, seed=1)
        b = robustness_study(lb.scores, shares=[0.0, 0.2], repetitions=3, seed=1)
        assert a.equals(b)
        assert (a[a.share == 0.0].kendall_correlation == 1.0).all()
        assert not a[a.share == 0.0][["top1_changed", "top3_changed"]].any().any()
        with pytest.raises(ValueError, match="unknown method"):
            robustness_study(lb.scores, shares=[0.1], methods=["median"])

    def test_instance_robustness_scaling_only_moves_the_mean(self):
        from benchvote import data

        tasks = data.gumbel_instances(8, 6, 5, phi=0.3, seed=2)
        plain = instance_robustness(tasks, [0.0], repetitions=1)
        scaled = instance_robustness(tasks, [0.0], repetitions=1, scale_task=1000.0)
        assert (plain.kendall_correlation == 1.0).all()
        rank_based = scaled[scaled.method != "mean"]
        assert (rank_based.kendall_correlation == 1.0).all()
        assert scaled[scaled.method == "mean"].kendall_correlation.iloc[0] < 1.0
