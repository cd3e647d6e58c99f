"""Tests for benchvote._bt_kernels: each row kernel against the same sums written out with numpy from differences."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from benchvote import _bt_kernels as k

SEEDS = range(6)


def random_counts(seed: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Doubled win counts in int8 (some pairs never met, zero diagonal) and log-strengths spread over 12 units."""
    rng = np.random.default_rng(seed)
    wins = rng.integers(0, 13, size=(m, m)).astype(np.int8)
    wins[rng.random((m, m)) < 0.3] = 0
    np.fill_diagonal(wins, 0)
    return wins, rng.normal(scale=3.0, size=m)


def blocks(m: int, cuts: int) -> list[tuple[int, int]]:
    edges = np.unique(np.linspace(0, m, cuts + 1).astype(int))
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]


@pytest.mark.parametrize("m", [1, 2, 63, 64, 65, 130])
def test_symmetric_counts_add_each_pair_both_ways_across_blocks(m):
    wins, _ = random_counts(m, m)
    out = np.full_like(wins, -1)
    for rows in blocks(m, 3):
        k.symmetric_counts(wins, out, rows)
    np.testing.assert_array_equal(out, wins + wins.T)
    as_float = np.empty((m, m))
    k.symmetric_counts(wins.astype(float) / 2, as_float, (0, m))
    np.testing.assert_array_equal(as_float, (wins + wins.T) / 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_bt_rows_are_the_expected_wins_and_the_laplacian_diagonal(seed):
    wins, beta = random_counts(seed, m=40 + 13 * seed)
    counts = wins + wins.T
    s = expit(beta[:, None] - beta[None, :])  # sigma(beta_i - beta_j) from the differences
    expected, diagonal = np.full((2, len(beta)), np.nan)
    for rows in blocks(len(beta), 1 + seed):
        k.bt_rows(counts, np.exp(beta), rows, expected, diagonal)
    np.testing.assert_allclose(expected, (counts * s).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(diagonal, (counts * s * (1 - s)).sum(axis=1), rtol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_bt_log_rows_give_the_log_likelihood_with_the_linear_part(seed):
    """``sum_i W_i beta_i - sum_{i<j} n_ij log(p_i + p_j)`` is ``sum_ij w_ij log sigma(beta_i - beta_j)``."""
    wins, beta = random_counts(seed, m=40 + 13 * seed)
    log_terms = np.full(len(beta), np.nan)
    for rows in blocks(len(beta), 2 + seed):
        k.bt_log_rows(wins + wins.T, np.exp(beta), rows, log_terms)
    got = wins.sum(axis=1) @ beta - log_terms.sum()
    want = np.sum(wins * -np.logaddexp(0.0, -(beta[:, None] - beta[None, :])))
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("single", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_bt_hessian_rows_multiply_by_the_weighted_laplacian(seed, single):
    """In float64 to rounding; with the pair weights in float32 (strengths in float32), to about 1e-8."""
    wins, beta = random_counts(seed, m=40 + 13 * seed)
    counts = wins + wins.T
    s = expit(beta[:, None] - beta[None, :])
    weights = counts * s * (1 - s)
    laplacian = np.diag(weights.sum(axis=1)) - weights
    v = np.random.default_rng(seed).normal(size=len(beta))
    out = np.full(len(beta), np.nan)
    strengths = np.exp(beta).astype(np.float32 if single else np.float64)
    for rows in blocks(len(beta), 3):
        k.bt_hessian_rows(counts, strengths, strengths.dtype.type(1.0), v, rows, out)
    rtol = 1e-6 if single else 1e-10
    np.testing.assert_allclose(out, laplacian @ v, rtol=rtol, atol=rtol * np.abs(laplacian).max())


def test_reaches_all_follows_the_edges_forwards_and_backwards():
    """A chain 0 -> 1 -> 2: forwards every model is reached from 0, backwards none reaches 0; a win on the
    diagonal is no edge."""
    chain = np.array([[5, 1, 0], [0, 5, 1], [0, 0, 5]], dtype=np.int16)
    assert k.reaches_all(chain, False) and not k.reaches_all(chain, True)
    cycle = chain.copy()
    cycle[2, 0] = 1
    assert k.reaches_all(cycle, False) and k.reaches_all(cycle, True)
    assert not k.reaches_all(np.eye(2), False)
