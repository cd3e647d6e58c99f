"""Tests for benchvote.spectrum against numpy's SVD."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchvote.spectrum import benchmark_pca


def test_matches_numpy_svd():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(30, 8)) + rng.normal(size=(30, 1)) * 3
    r = benchmark_pca(x)
    centred = x - x.mean(axis=0)
    s = np.linalg.svd(centred, compute_uv=False)
    assert np.allclose(r.singular_values, s)
    assert np.allclose(r.explained, s**2 / np.sum(s**2))
    assert np.isclose(np.abs(r.pc1_scores) @ np.abs(r.pc1_scores), s[0] ** 2)
    assert np.corrcoef(r.pc1_scores, x.mean(axis=1))[0, 1] > 0


def test_scaling_is_pca_on_the_correlation_matrix():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(20, 5)) * np.array([1, 10, 100, 0.1, 1])
    r = benchmark_pca(x, scale=True)
    eig = np.sort(np.linalg.eigvalsh(np.corrcoef(x.T)))[::-1]
    assert np.allclose(r.explained, eig / eig.sum())


def test_components_for_and_labels():
    df = pd.DataFrame(
        np.outer([1.0, 2.0, 3.0], [1.0, 1.0]) + np.array([[0, 0.1], [0, -0.1], [0, 0]]),
        index=["a", "b", "c"],
        columns=["t1", "t2"],
    )
    r = benchmark_pca(df)
    assert list(r.pc1_scores.index) == ["a", "b", "c"] and list(r.pc1_loadings.index) == ["t1", "t2"]
    assert r.components_for(0.9) == 1 and r.components_for(1.0) == 2
    with pytest.raises(ValueError):
        r.components_for(0.0)


def test_permuting_models_permutes_scores():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(10, 4))
    perm = rng.permutation(10)
    assert np.allclose(benchmark_pca(x[perm]).pc1_scores, benchmark_pca(x).pc1_scores[perm])


def test_bad_input():
    with pytest.raises(ValueError, match="constant"):
        benchmark_pca([[1.0, 2.0], [1.0, 3.0]], scale=True)
    with pytest.raises(ValueError, match="missing"):
        benchmark_pca([[1.0, np.nan], [2.0, 3.0]])
    with pytest.raises(ValueError, match="no variance"):
        benchmark_pca([[1.0, 2.0], [1.0, 2.0]])
