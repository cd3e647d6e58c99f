"""Positional scoring rules against explicit position counting, Borda, and the invariances of a ranking rule."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import permutations_of, score_tables, strictly_increasing_transforms
from hypothesis import given
from hypothesis import strategies as st

from benchvote.aggregation import borda
from benchvote.positional import positional_scores, positional_winners, scoring_vector


def points_by_counting(table: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Independent oracle: walk each task's sorted scores, group exact ties, share the group's positions."""
    m, n = table.shape
    out = np.zeros(m)
    for j in range(n):
        col = table[:, j]
        values = sorted(set(col.tolist()), reverse=True)
        position = 0
        for v in values:
            members = [i for i in range(m) if col[i] == v]
            share = sum(weights[position : position + len(members)]) / len(members)
            for i in members:
                out[i] += share
            position += len(members)
    return out


@given(score_tables(min_models=2, max_models=7, max_tasks=5), st.sampled_from(["plurality", "veto", "borda"]))
def test_points_match_explicit_counting_with_ties(table, kind):
    w = scoring_vector(kind, table.shape[0])
    assert np.allclose(positional_scores(table, tol=0, weights=w), points_by_counting(table, w))


@given(score_tables(min_models=2, max_models=7, max_tasks=5))
def test_borda_vector_is_the_borda_count(table):
    w = scoring_vector("borda", table.shape[0])
    assert np.allclose(positional_scores(table, weights=w), borda(table))


@given(score_tables(min_models=3, max_models=7, max_tasks=5), st.data())
def test_a_row_permutation_permutes_the_points(table, data):
    perm = data.draw(permutations_of(table.shape[0]))
    w = scoring_vector("approval", table.shape[0], k=2)
    assert np.allclose(positional_scores(table[perm], weights=w), positional_scores(table, weights=w)[perm])


@given(score_tables(min_models=3, max_models=7, max_tasks=5), strictly_increasing_transforms())
def test_points_ignore_strictly_increasing_transforms(table, f):
    w = scoring_vector("borda", table.shape[0])
    assert np.allclose(positional_scores(f(table), tol=0, weights=w), positional_scores(table, tol=0, weights=w))


@pytest.mark.parametrize("factor", [1e-6, 1e-3, 1.0, 1e4, 1e10])
def test_rescaling_a_task_changes_nothing(factor):
    rng = np.random.default_rng(3)
    table = rng.permuted(np.tile(np.arange(6.0), (4, 1)), axis=1).T  # 6 models, 4 tasks, no ties
    scaled = table.copy()
    scaled[:, 1] *= factor
    w = scoring_vector("plurality", 6)
    assert np.array_equal(positional_scores(scaled, tol=0, weights=w), positional_scores(table, tol=0, weights=w))


def test_flipping_a_direction_and_negating_the_task_changes_nothing():
    table = pd.DataFrame([[0.9, 3.0], [0.8, 1.0], [0.1, 2.0]], index=list("abc"), columns=["acc", "err"])
    flipped = table.assign(err=-table["err"])
    w = scoring_vector("borda", 3)
    assert positional_scores(table, [True, False], weights=w).equals(positional_scores(flipped, True, weights=w))


def test_the_three_classic_rules_elect_three_different_winners():
    table = [[3, 1, 3], [2, 3, 2], [1, 2, 1]]
    got = positional_winners(table).set_index("rule")["winners"]
    assert got["plurality"] == (0,) and got["veto"] == (1,) and got["Borda"] == (0, 1)


def test_winners_frame_has_every_approval_rule_and_borda():
    table = np.random.default_rng(0).random((5, 4))
    frame = positional_winners(table)
    assert frame["rule"].tolist() == ["plurality", "2-approval", "3-approval", "veto", "Borda"]
    plural = positional_scores(table, weights=scoring_vector("plurality", 5))
    assert frame["winners"][0] == tuple(np.flatnonzero(plural == plural.max()).tolist())


@pytest.mark.parametrize(
    "weights, message",
    [([0, 1, 0], "non-increasing"), ([1, 0], "length"), ([1, np.nan, 0], "missing")],
)
def test_bad_weights_are_refused_with_a_reason(weights, message):
    with pytest.raises(ValueError, match=message):
        positional_scores([[1, 2], [2, 1], [3, 3]], weights=weights)


@pytest.mark.parametrize("kind, m, k", [("approval", 3, 3), ("approval", 3, 0), ("nope", 3, 1), ("borda", 1, 1)])
def test_bad_scoring_vectors_are_refused(kind, m, k):
    with pytest.raises(ValueError):
        scoring_vector(kind, m, k)


def test_missing_scores_are_refused():
    with pytest.raises(ValueError, match="missing"):
        positional_scores([[1.0, np.nan], [2.0, 1.0]], weights=[1, 0])
