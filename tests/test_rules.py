"""benchvote.rules: every registered rule against the invariances a ranking rule must have (issue 37).

The cardinal rules (weighted mean, geometric mean, exact mean ranks) and the baseline normalisation are also
checked against independent oracles (closed forms in exact rational arithmetic, or scipy) and by properties: row
permutation, direction flip, rescaling a task (invariance where it holds, the documented non-invariance where it
does not) and monotone transforms where they apply.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from conftest import permutations_of
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import gmean

import benchvote as bv
from benchvote.normalization import relative_to_baseline
from benchvote.rules import RULES, RuleUndefined, mean_ranks, with_weights

#: Rules that use nothing but each task's order of the models: strictly increasing transforms change nothing.
ORDINAL = [name for name in RULES if not RULES[name].cardinal]


def _ranks(name: str, scores: np.ndarray, direction: np.ndarray) -> np.ndarray | None:
    """Ranks under the rule, or None when the rule has no value on this table."""
    try:
        return bv.rank(np.asarray(RULES[name].fn(scores, direction), dtype=float))
    except (RuleUndefined, ValueError):
        return None


def _table(seed: int, name: str) -> tuple[np.ndarray, np.ndarray, np.random.Generator]:
    """Small integer scores (many ties, gaps of 1), some lower-is-better tasks, holes when the rule takes them."""
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(2, 8)), int(rng.integers(1, 6))
    s = rng.integers(0, 4, size=(m, n)).astype(float)
    if RULES[name].handles_missing and rng.random() < 0.5:
        s[rng.random((m, n)) < 0.2] = np.nan
    return s, rng.random(n) < 0.7, rng


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([n for n in RULES if n != "ranked_pairs"]))
def test_permuting_rows_permutes_every_rules_ranking(seed, name):
    s, d, rng = _table(seed, name)
    perm = rng.permutation(s.shape[0])
    before, after = _ranks(name, s, d), _ranks(name, s[perm], d)
    assert (before is None) == (after is None)
    if before is not None:
        assert np.array_equal(after, before[perm])


def test_ranked_pairs_does_not_order_a_tied_pair_by_its_rows():
    s = np.array([[0.0, 3.0, 0.0], [1.0, 3.0, 2.0]])  # one task each, a tie on the third: margin 0
    d = np.array([False, True, True])
    assert np.array_equal(_ranks("ranked_pairs", s[::-1], d), _ranks("ranked_pairs", s, d)[::-1])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(ORDINAL), st.sampled_from([1e-6, 1e-3, 7.0, 1e10]))
def test_ordinal_rules_ignore_increasing_transforms_and_rescaled_tasks(seed, name, factor):
    s, d, rng = _table(seed, name)
    k = int(rng.integers(0, s.shape[1]))
    before = _ranks(name, s, d)
    for change in (lambda c: np.exp(c) * 7 + 3, lambda c: c * factor):
        t = s.copy()
        t[:, k] = change(t[:, k])
        after = _ranks(name, t, d)
        assert (before is None) == (after is None)
        if before is not None:
            assert np.array_equal(after, before)


@settings(max_examples=40, deadline=None)
# the geometric mean reads positive scores: a negated task leaves its domain (its direction flip is the reciprocal,
# tested below)
@given(st.integers(0, 10**6), st.sampled_from([n for n in RULES if n != "geometric_mean"]))
def test_negating_a_task_and_flipping_its_direction_changes_nothing(seed, name):
    s, d, rng = _table(seed, name)
    k = int(rng.integers(0, s.shape[1]))
    t, e = s.copy(), d.copy()
    t[:, k], e[k] = -t[:, k], ~e[k]
    before, after = _ranks(name, s, d), _ranks(name, t, e)
    assert (before is None) == (after is None)
    if before is not None:
        assert np.array_equal(after, before)


# --------------------------------------------------------------------------- the cardinal rules and their oracles

positive_tables = st.integers(2, 6).flatmap(
    lambda m: st.integers(1, 5).flatmap(
        lambda n: arrays(np.float64, (m, n), elements=st.floats(0.01, 100.0, allow_subnormal=False))
    )
)
weight_vectors = st.lists(st.floats(0.1, 10.0), min_size=5, max_size=5)


def exact_midranks_of(values):
    """Midranks (1 = best) of exact numbers, tie when equal: an independent oracle by counting."""
    return np.array([sum(v > x for v in values) + (sum(v == x for v in values) + 1) / 2 for x in values])


def fraction_means(table, weights):
    w = [Fraction(float(v)) for v in weights]
    return [sum(Fraction(float(x)) * wk for x, wk in zip(row, w)) / sum(w) for row in table]


# --------------------------------------------------------------------------- weighted mean


@given(positive_tables, weight_vectors)
def test_weighted_mean_is_the_weighted_average_in_exact_arithmetic(table, weights):
    w = np.array(weights[: table.shape[1]])
    got = with_weights(w)["mean_score"].fn(table)
    want = [float(v) for v in fraction_means(table, w)]
    assert np.allclose(got, want, rtol=1e-12, atol=0)


@given(positive_tables, weight_vectors, st.data())
def test_weighted_mean_follows_a_row_permutation_and_a_direction_flip(table, weights, data):
    w = np.array(weights[: table.shape[1]])
    rule = with_weights(w)["mean_score"].fn
    perm = data.draw(permutations_of(table.shape[0]))
    assert np.allclose(rule(table[perm]), rule(table)[perm])
    assert np.allclose(rule(-table, False), rule(table))


def test_weighted_mean_is_not_invariant_to_a_task_unit_as_documented():
    table = np.array([[1.0, 0.0], [0.0, 0.9]])
    rule = with_weights([1.0, 1.0])["mean_score"].fn
    assert rule(table).argmax() == 0
    rescaled = table * [1.0, 10.0]  # the second task read in other units
    assert rule(rescaled).argmax() == 1


# --------------------------------------------------------------------------- geometric mean


@given(positive_tables)
def test_geometric_mean_is_scipys_gmean(table):
    assert np.allclose(bv.geometric_mean(table), gmean(table, axis=1), rtol=1e-10)


@given(positive_tables, weight_vectors)
def test_weighted_geometric_mean_is_the_weighted_product_of_powers(table, weights):
    w = np.array(weights[: table.shape[1]])
    want = [math.prod(x ** (wk / w.sum()) for x, wk in zip(row, w)) for row in table]
    assert np.allclose(with_weights(w)["geometric_mean"].fn(table), want, rtol=1e-10)


@given(positive_tables, st.data())
def test_geometric_mean_ranking_is_invariant_to_each_tasks_unit(table, data):
    scale = np.array([data.draw(st.sampled_from([1e-6, 1e-3, 1.0, 1e4, 1e10])) for _ in range(table.shape[1])])
    before = bv.rank(bv.geometric_mean(table))
    after = bv.rank(bv.geometric_mean(table * scale), tol=0)
    # every value is multiplied by the same factor: the order is kept, near-ties aside
    values = bv.geometric_mean(table)
    distinct = np.abs(values[:, None] - values[None, :]) > 1e-9 * np.abs(values).max()
    assert np.array_equal((before[:, None] < before[None, :]) & distinct, (after[:, None] < after[None, :]) & distinct)


@given(positive_tables, st.data())
def test_geometric_mean_follows_row_permutation_direction_flip_and_a_common_power(table, data):
    perm = data.draw(permutations_of(table.shape[0]))
    g = bv.geometric_mean(table)
    assert np.allclose(bv.geometric_mean(table[perm]), g[perm])
    assert np.allclose(bv.geometric_mean(1.0 / table, False), g)  # a lower-is-better task enters reciprocally
    assert np.allclose(bv.geometric_mean(table**3), g**3)  # x -> x^p (p > 0) on every task keeps the ranking


def test_geometric_mean_refuses_scores_that_are_not_positive():
    with pytest.raises(ValueError, match="positive scores"):
        bv.geometric_mean([[1.0, 0.0], [2.0, 3.0]])
    with pytest.raises(RuleUndefined, match="positive scores"):
        RULES["geometric_mean"].fn(np.array([[1.0, -2.0], [2.0, 3.0]]))


# --------------------------------------------------------------------------- exact mean ranks


def test_mean_ranks_separate_models_that_rounded_means_merge():
    table = np.array([[1e16, 1.0, 0.0], [1e16, 0.0, 0.5], [1e16 + 2, 0.0, 0.2], [0.0, 0.5, 0.1]])
    assert bv.rank(bv.mean_score(table)).tolist() == [2.5, 2.5, 1.0, 4.0]  # the float means tie A and B
    assert mean_ranks(table).tolist() == [2.0, 3.0, 1.0, 4.0]


@given(
    arrays(np.float64, (5, 3), elements=st.sampled_from([0.0, 0.5, 1.0, 3.0, 1e16, -1e16, 1e-8])),
    weight_vectors,
)
def test_mean_ranks_are_the_midranks_of_the_exact_weighted_means(table, weights):
    w = np.array(weights[:3])
    want = exact_midranks_of(fraction_means(table, w))
    assert np.array_equal(mean_ranks(table, weights=w, tol=0), want)


# --------------------------------------------------------------------------- baseline normalisation


@given(positive_tables, st.data())
def test_relative_to_baseline_divides_by_the_baseline_row(table, data):
    b = data.draw(st.integers(0, table.shape[0] - 1))
    out = relative_to_baseline(table, baseline=b)
    assert np.allclose(out * table[b], table)
    assert np.array_equal(out[b], np.ones(table.shape[1]))


@given(positive_tables, st.data())
def test_relative_to_baseline_ignores_row_order_and_each_tasks_unit(table, data):
    m, n = table.shape
    names = [f"m{i}" for i in range(m)]
    frame = pd.DataFrame(table, index=names)
    perm = data.draw(permutations_of(m))
    scale = np.array([data.draw(st.sampled_from([1e-6, 1.0, 1e10])) for _ in range(n)])
    base = relative_to_baseline(frame, baseline="m0")
    assert relative_to_baseline(frame.iloc[perm], baseline="m0").equals(base.iloc[perm])
    assert np.allclose(relative_to_baseline(frame * scale, baseline="m0").to_numpy(), base.to_numpy(), rtol=1e-12)
    # the geometric mean's ranking does not change; the direction is kept
    hib = [True] * (n - 1) + [False]
    assert np.array_equal(bv.rank(bv.geometric_mean(base, hib)), bv.rank(bv.geometric_mean(frame, hib)))


def test_relative_to_baseline_refuses_an_unknown_or_non_positive_baseline():
    frame = pd.DataFrame([[1.0, 0.0], [2.0, 3.0]], index=["a", "b"], columns=["t", "u"])
    with pytest.raises(ValueError, match="not a model"):
        relative_to_baseline(frame, baseline="c")
    with pytest.raises(ValueError, match="positive score on every task; it has none on \\['u'\\]"):
        relative_to_baseline(frame, baseline="a")
