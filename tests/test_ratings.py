"""Tests for benchvote.ratings: Bradley-Terry against a direct likelihood maximiser, Elo by hand."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import minimize

import benchvote as bv
from benchvote.ratings import bradley_terry, comparison_matrix, elo, matches_from_scores


def brute_bt(w):
    m = len(w)

    def nll(beta_rest):
        beta = np.r_[0.0, beta_rest]
        d = beta[:, None] - beta[None, :]
        return -np.sum(w * (d - np.logaddexp(0, d)))

    res = minimize(nll, np.zeros(m - 1), method="BFGS", options={"gtol": 1e-10})
    beta = np.r_[0.0, res.x]
    return beta - beta.mean()


def random_wins(seed, m=5):
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 9, size=(m, m)).astype(float)
    np.fill_diagonal(w, 0)
    return w


@pytest.mark.parametrize("seed", range(10))
def test_matches_direct_likelihood_maximisation(seed):
    w = random_wins(seed)
    r = bradley_terry(w)
    assert r.converged
    assert np.allclose(r.ratings, brute_bt(w), atol=1e-5)


def test_two_models_closed_form_and_invariances():
    assert bradley_terry([[0, 3], [1, 0]]).ratings[0] == pytest.approx(np.log(3) / 2)
    w = random_wins(3)
    perm = np.array([2, 0, 4, 1, 3])
    r = bradley_terry(w).ratings
    assert np.allclose(bradley_terry(w[np.ix_(perm, perm)]).ratings, r[perm])
    assert np.allclose(bradley_terry(5 * w).ratings, r)  # the MLE depends on proportions only
    assert abs(r.mean()) < 1e-12


def test_labelled_input_and_leaderboard_comparisons():
    s = pd.DataFrame({"t1": [3.0, 2.0, 1.0], "t2": [1.0, 3.0, 2.0], "t3": [2.0, 1.0, 3.0]}, index=list("abc"))
    w = comparison_matrix(s)
    assert list(w.index) == list("abc") and w.loc["a", "b"] == 2.0
    r = bradley_terry(w)
    assert np.allclose(r.ratings.to_numpy(), 0.0, atol=1e-8)  # the cyclic profile is perfectly balanced


@pytest.mark.parametrize(
    "w, message",
    [
        ([[0, 1], [1, 0], [0, 0]], "square"),
        ([[0, -1], [1, 0]], "non-negative"),
        ([[0, 1, 0], [1, 0, 0], [0, 0, 0]], "no comparisons"),
        ([[0, 1, 1], [0, 0, 1], [0, 0, 0]], "strongly connected"),
    ],
)
def test_bad_input(w, message):
    with pytest.raises(ValueError, match=message):
        bradley_terry(w)


class TestElo:
    def test_one_update_by_hand(self):
        r = elo([(0, 1, 1.0)], 2, k=32, initial=1500)
        assert r.tolist() == [1516.0, 1484.0]
        r = elo([(0, 1, 0.5)], 2, k=32)
        assert r.tolist() == [1500.0, 1500.0]

    def test_zero_sum_and_order_dependence(self):
        s = pd.DataFrame(np.random.default_rng(0).random((6, 8)))
        a = elo(matches_from_scores(s, seed=1), 6)
        b = elo(matches_from_scores(s, seed=2), 6)
        assert a.sum() == pytest.approx(6 * 1500.0) and b.sum() == pytest.approx(6 * 1500.0)
        assert not np.allclose(a, b)
        assert np.allclose(a, elo(matches_from_scores(s, seed=1), 6))

    def test_matches_cover_every_task_comparison(self):
        s = np.array([[1.0, np.nan], [2.0, 1.0], [2.0, 0.0]])
        m = matches_from_scores(s, seed=0)
        assert len(m) == 3 + 1
        assert (1, 2, 0.5) in m or (2, 1, 0.5) in m or (1, 2, 0.5) in [(i, j, s) for i, j, s in m]

    def test_agrees_with_win_rate_on_a_clear_order(self):
        s = np.tile(np.arange(5.0)[:, None], (1, 30))
        r = elo(matches_from_scores(s, seed=0), 5)
        assert list(np.argsort(r)) == [0, 1, 2, 3, 4]
        assert bv.kendall_tau_distance(bv.rank(r), bv.rank(bv.mean_win_rate(s))) == 0.0

    @pytest.mark.parametrize(
        "matches, message", [([(0, 0, 1.0)], "cannot play itself"), ([(0, 1, 2.0)], "0, 0.5 or 1")]
    )
    def test_bad_matches(self, matches, message):
        with pytest.raises(ValueError, match=message):
            elo(matches, 2)


@given(st.integers(2, 7).flatmap(lambda m: arrays(np.int64, (m, m), elements=st.integers(0, 2))))
def test_strong_connectivity_matches_reachability_by_search(wins):
    """The two breadth-first searches against a plain depth-first search from every model."""
    from benchvote.ratings import _strongly_connected

    m = len(wins)

    def reach(start):
        seen, stack = {start}, [start]
        while stack:
            i = stack.pop()
            for j in range(m):
                if i != j and wins[i, j] > 0 and j not in seen:
                    seen.add(j)
                    stack.append(j)
        return seen

    assert _strongly_connected(wins) == all(len(reach(i)) == m for i in range(m))


# ---------------------------------------------------------------- Newton against minorisation-maximisation
def _minorisation_maximisation(wins, max_iter=200_000, convergence_tol=1e-13):
    """Hunter's minorisation-maximisation iteration as ``bradley_terry`` ran it before issue 30 (tighter tolerance)."""
    w = np.asarray(wins, dtype=float).copy()
    np.fill_diagonal(w, 0.0)
    n = w + w.T
    total_wins = w.sum(axis=1)
    p = np.ones(len(w))
    for _ in range(max_iter):
        new = total_wins / (n / (p[:, None] + p[None, :])).sum(axis=1)
        new = new / np.exp(np.mean(np.log(new)))
        done = np.max(np.abs(np.log(new) - np.log(p))) < convergence_tol
        p = new
        if done:
            break
    beta = np.log(p)
    return beta - beta.mean()


@pytest.mark.parametrize("seed", range(40))
def test_newton_finds_the_maximum_minorisation_maximisation_found(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 40))
    w = rng.integers(0, 6, size=(m, m)) + 0.5 * (rng.random((m, m)) < 0.2)
    try:
        r = bradley_terry(w)
    except ValueError:
        pytest.skip("not strongly connected")
    assert r.converged
    np.testing.assert_allclose(r.ratings, _minorisation_maximisation(w), atol=1e-8, rtol=0)
    beta, plain = np.asarray(r.ratings), np.asarray(w, dtype=float).copy()
    np.fill_diagonal(plain, 0.0)
    direct = np.sum(plain * -np.logaddexp(0.0, -(beta[:, None] - beta[None, :])))  # sum of w_ij log sigma(b_i - b_j)
    assert r.log_likelihood == pytest.approx(direct, rel=1e-12, abs=1e-12)
    flipped = bradley_terry(np.asarray(w).T)  # every result reversed: the ratings change sign
    np.testing.assert_allclose(flipped.ratings, -beta, atol=1e-8, rtol=0)


def test_newton_with_conjugate_gradients_matches_cholesky(monkeypatch):
    """Above ``_DIRECT_MAX`` models the Newton systems are solved iteratively: same ratings."""
    from benchvote import ratings

    rng = np.random.default_rng(3)
    ability = rng.normal(size=60)
    s = np.round(50 + 10 * (ability[:, None] + 1.5 * rng.normal(size=(60, 6))), 1)
    wins = comparison_matrix(s)
    direct = bradley_terry(wins)
    monkeypatch.setattr(ratings, "_DIRECT_MAX", 10)
    iterative = bradley_terry(wins)
    np.testing.assert_allclose(iterative.ratings, direct.ratings, atol=1e-9, rtol=0)
    np.testing.assert_allclose(direct.ratings, _minorisation_maximisation(wins), atol=1e-8, rtol=0)
    assert iterative.log_likelihood == pytest.approx(direct.log_likelihood, abs=1e-9)


# ---------------------------------------------------------------- ratings at scale
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_table_ratings_are_bradley_terry_of_the_comparison_matrix(seed, holes):
    """The rule's compact counts (doubled, small integers) give bit-for-bit the ratings of the float match table."""
    from benchvote.ratings import NOT_CONNECTED, table_ratings

    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(2, 30)), int(rng.integers(1, 7))
    s = pd.DataFrame(rng.integers(0, 6, size=(m, n)).astype(float), index=[f"m{i}" for i in range(m)])
    if holes:
        s = s.mask(rng.random(s.shape) < 0.2)
        s[0] = np.arange(m, dtype=float)
    try:
        want = bradley_terry(comparison_matrix(s)).ratings
    except ValueError as err:
        with pytest.raises(ValueError, match=re.escape(NOT_CONNECTED) if str(err) == NOT_CONNECTED else None):
            table_ratings(s)
        return
    pd.testing.assert_series_equal(table_ratings(s), want)


def test_large_tables_fit_from_compact_counts_without_a_float64_square(monkeypatch):
    """Above ``_DIRECT_MAX`` the Newton steps read int8 counts (and their int8 symmetric sums): the Cholesky maximum."""
    from benchvote import ratings
    from benchvote._validation import Table

    rng = np.random.default_rng(7)
    s = np.round(50 + 10 * (rng.normal(size=(80, 1)) + 0.7 * rng.normal(size=(80, 6))), 1)
    direct = bradley_terry(comparison_matrix(s))
    doubled, _ = ratings._doubled_wins(Table.validate(s, allow_nan=True), 1e-9)
    assert doubled.dtype == np.int8
    monkeypatch.setattr(ratings, "_DIRECT_MAX", 10)
    large = ratings.table_ratings(s)
    np.testing.assert_allclose(large, direct.ratings, atol=1e-9, rtol=0)


def test_large_tables_give_the_same_floats_on_one_core_and_on_many(monkeypatch):
    """Above ``_DIRECT_MAX`` the pair loops run in fixed blocks of rows on every core, summed in block order: the
    ratings and the likelihood are bit-for-bit those of one core, and the blocks split the pairs evenly."""
    from benchvote import ratings
    from benchvote._validation import Table

    rng = np.random.default_rng(11)
    s = np.round(50 + 10 * (rng.normal(size=(90, 1)) + 0.7 * rng.normal(size=(90, 6))), 1)
    doubled, _ = ratings._doubled_wins(Table.validate(s, allow_nan=True), 1e-9)
    monkeypatch.setattr(ratings, "_DIRECT_MAX", 10)
    got = {}
    for cores in (1, 2, 5):
        monkeypatch.setattr(ratings.os, "sched_getaffinity", lambda pid, n=cores: set(range(n)))
        got[cores] = ratings._newton(doubled, 0.5, 10_000, 1e-10)
        assert got[cores][3], "converged"
    for cores in (2, 5):
        np.testing.assert_array_equal(got[cores][0], got[1][0])
        assert got[cores][1] == got[1][1]
    rows = ratings._PairBlocks(90, None).rows
    assert rows[0][0] == 0 and rows[-1][1] == 90 and all(a[1] == b[0] for a, b in zip(rows, rows[1:]))
    pairs = [sum(90 - 1 - i for i in range(lo, hi)) for lo, hi in rows]
    assert len(rows) == ratings._BLOCKS and all(abs(p - sum(pairs) / len(rows)) <= 89 for p in pairs)  # a row's worth
    np.testing.assert_allclose(got[1][0], bradley_terry(comparison_matrix(s)).ratings, atol=1e-9, rtol=0)


def _dense_and_large(monkeypatch, wins, **options):
    """``bradley_terry(wins)`` by Cholesky on the dense Laplacian, and forced onto the large (matrix-free) path."""
    from benchvote import ratings

    monkeypatch.setattr(ratings, "_DIRECT_MAX", 10**6)
    dense = bradley_terry(wins, **options)
    monkeypatch.setattr(ratings, "_DIRECT_MAX", 10)
    return dense, bradley_terry(wins, **options)


def _largest_gradient(wins, beta):
    """The largest |d loglik / d beta_i| (wins minus expected wins), from the differences: 0 at the maximum."""
    w = np.asarray(wins, dtype=float)
    s = 1.0 / (1.0 + np.exp(-(beta[:, None] - beta[None, :])))
    return np.max(np.abs(w.sum(axis=1) - ((w + w.T) * s).sum(axis=1)))


def test_large_path_finds_the_dense_maximum_on_300_models(monkeypatch):
    rng = np.random.default_rng(5)
    s = np.round(50 + 10 * (rng.normal(size=(300, 1)) + 0.7 * rng.normal(size=(300, 6))), 1)
    wins = comparison_matrix(s)
    dense, large = _dense_and_large(monkeypatch, wins)
    assert dense.converged and large.converged
    np.testing.assert_allclose(large.ratings, dense.ratings, atol=1e-9, rtol=0)
    beta = np.asarray(large.ratings)
    direct = np.sum(wins * -np.logaddexp(0.0, -(beta[:, None] - beta[None, :])))
    assert large.log_likelihood == pytest.approx(direct, rel=1e-12)
    assert large.log_likelihood == pytest.approx(dense.log_likelihood, rel=1e-12)
    assert _largest_gradient(wins, beta) < 1e-8


@pytest.mark.parametrize(
    "case", ["one group wins all its games but one against another", "abilities 30 apart", "abilities 80 apart"]
)
def test_large_path_converges_where_newton_is_hard(monkeypatch, case):
    """Two groups held together by a single upset (the Laplacian's weights between them are tiny: nearly
    disconnected, conjugate gradients crawl) and very lopsided wins (most pairs one-sided, ratings far apart): the
    large path still lands on the dense maximum."""
    rng = np.random.default_rng(8)
    m = 300
    if case.startswith("one group"):
        wins = rng.integers(0, 4, size=(m, m)).astype(float)
        wins[: m // 2, m // 2 :], wins[m // 2 :, : m // 2] = 5.0, 0.0
        wins[m // 2 + 1, 1] = 1.0
    else:
        ability = np.linspace(-0.5, 0.5, m) * float(case.split()[1])  # beyond _SINGLE_SPREAD: float64 products
        wins = rng.binomial(10, 1.0 / (1.0 + np.exp(-(ability[:, None] - ability[None, :])))).astype(float)
    np.fill_diagonal(wins, 0.0)
    dense, large = _dense_and_large(monkeypatch, wins)
    assert dense.converged and large.converged
    np.testing.assert_allclose(large.ratings, dense.ratings, atol=1e-8, rtol=0)
    assert large.log_likelihood == pytest.approx(dense.log_likelihood, rel=1e-12)
    assert _largest_gradient(wins, np.asarray(large.ratings)) < 1e-7
    assert np.ptp(large.ratings) > 10  # the case is what it says: the ratings are far apart


def test_large_path_ratings_follow_the_models_when_the_rows_are_reordered(monkeypatch):
    from benchvote import ratings

    rng = np.random.default_rng(12)
    s = np.round(50 + 10 * (rng.normal(size=(120, 1)) + 0.7 * rng.normal(size=(120, 6))), 1)
    wins = comparison_matrix(s)
    order = rng.permutation(120)
    monkeypatch.setattr(ratings, "_DIRECT_MAX", 10)
    np.testing.assert_allclose(
        bradley_terry(wins[order][:, order]).ratings, bradley_terry(wins).ratings[order], atol=1e-10, rtol=0
    )


def test_large_path_stops_unconverged_rather_than_overflow(monkeypatch):
    """Strengths are evaluated only within ``_LARGEST_LOG_STRENGTH``: a maximum beyond it is not reached, the steps
    toward it are halved, and the fit says it did not converge, with finite ratings and likelihood."""
    from benchvote import ratings

    rng = np.random.default_rng(8)
    ability = np.linspace(-15.0, 15.0, 60)
    wins = rng.binomial(10, 1.0 / (1.0 + np.exp(-(ability[:, None] - ability[None, :])))).astype(float)
    np.fill_diagonal(wins, 0.0)
    monkeypatch.setattr(ratings, "_LARGEST_LOG_STRENGTH", 5.0)
    _, large = _dense_and_large(monkeypatch, wins, max_iter=30)
    assert not large.converged
    assert np.all(np.abs(large.ratings) <= 5.0) and np.isfinite(large.log_likelihood)
