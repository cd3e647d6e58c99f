"""Tests for benchvote.strategy: water filling against a generic constrained solver and the KKT conditions."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from benchvote.strategy import water_filling


def log_family(a, b):
    f = [lambda x, a=a_, b=b_: a * np.log1p(b * x) for a_, b_ in zip(a, b)]
    fp = [lambda x, a=a_, b=b_: a * b / (1 + b * x) for a_, b_ in zip(a, b)]
    inv = [lambda lam, a=a_, b=b_: (a * b / lam - 1) / b for a_, b_ in zip(a, b)]
    return f, fp, inv


def scipy_optimum(f, budget):
    n = len(f)
    res = minimize(
        lambda x: -sum(fi(xi) for fi, xi in zip(f, x)),
        np.full(n, budget / n),
        method="SLSQP",
        bounds=[(0, budget)] * n,
        constraints=[{"type": "eq", "fun": lambda x: x.sum() - budget}],
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    return res.x, -res.fun


@pytest.mark.parametrize("seed", range(15))
def test_matches_scipy_on_random_concave_families(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    a, b = rng.uniform(0.2, 3.0, n), rng.uniform(0.5, 20.0, n)
    budget = float(rng.uniform(0.5, 2.0))
    f, fp, inv = log_family(a, b)
    ours = water_filling(fp, budget)
    x_ref, value_ref = scipy_optimum(f, budget)
    value = sum(fi(xi) for fi, xi in zip(f, ours.allocation))
    assert value >= value_ref - 1e-8
    assert np.allclose(ours.allocation, x_ref, atol=1e-4)
    # the same with closed-form inverses
    assert np.allclose(water_filling(fp, budget, inverses=inv).allocation, ours.allocation, atol=1e-9)


@pytest.mark.parametrize("seed", range(10))
def test_kkt_conditions(seed):
    rng = np.random.default_rng(100 + seed)
    n = 5
    a, b = rng.uniform(0.2, 3.0, n), rng.uniform(0.5, 20.0, n)
    _, fp, _ = log_family(a, b)
    r = water_filling(fp, 1.0)
    assert r.allocation.sum() == pytest.approx(1.0)
    assert (r.allocation >= 0).all()
    marginal = np.array([g(x) for g, x in zip(fp, r.allocation)])
    assert np.allclose(marginal[r.active], r.level, rtol=1e-6)
    starts = np.array([g(0.0) for g in fp])
    assert (starts[~r.active] <= r.level + 1e-9).all()


def test_sparse_when_one_task_is_easy():
    _, fp, _ = log_family([5.0, 0.5, 0.5, 0.5], [10.0, 1.0, 1.0, 1.0])
    r = water_filling(fp, 1.0)
    assert r.active.tolist() == [True, False, False, False]


def test_linear_returns_go_to_the_best_task():
    r = water_filling([lambda x: 2.0, lambda x: 1.0, lambda x: 1.5], 3.0)
    assert r.allocation.tolist() == [3.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(marginal_returns=[lambda x: 1 - x], budget=-1.0), "budget"),
        (dict(marginal_returns=[lambda x: 1 - x], budget=0.0), "budget"),
        (dict(marginal_returns=[], budget=1.0), "at least one"),
        (dict(marginal_returns=[lambda x: 1 + x], budget=1.0), "not concave"),
        (dict(marginal_returns=[lambda x: 1 - x], inverses=[None, None]), "one entry"),
    ],
)
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        water_filling(**kwargs)


def test_a_task_of_constant_return_takes_effort_once_the_others_return_falls_to_it():
    # a task with constant marginal return 2.5 takes effort as soon as the other task's return falls to 2.5
    r = water_filling([lambda x: 3 - x, lambda x: 2.5])
    assert np.allclose(r.allocation, [0.5, 0.5]) and r.level == pytest.approx(2.5)
    r = water_filling([lambda x: 1 / np.sqrt(x + 0.01), lambda x: 2.0])
    assert np.allclose(r.allocation, [0.24, 0.76], atol=1e-9) and r.level == pytest.approx(2.0)


def test_equal_linear_tasks_share_the_budget():
    r = water_filling([lambda x: 1.0, lambda x: 1.0, lambda x: 0.5], 3.0)
    assert np.allclose(r.allocation, [1.5, 1.5, 0.0])  # any split of the first two is optimal; this one is even


@pytest.mark.parametrize("seed", range(40))
def test_random_problems_with_linear_tasks_against_scipy_and_kkt(seed):
    """The audit found 68 of 136 such problems short of the optimum; every one must now reach it."""
    rng = np.random.default_rng(500 + seed)
    n = int(rng.integers(2, 6))
    a, b = rng.uniform(0.2, 3.0, n), rng.uniform(0.5, 20.0, n)
    f, fp, _ = log_family(a, b)
    n_linear = int(rng.integers(1, 3))
    slopes = rng.uniform(0.1, 3.0, n_linear)
    f = f + [lambda x, c=c: c * x for c in slopes]
    fp = fp + [lambda x, c=c: c for c in slopes]
    budget = float(rng.uniform(0.5, 2.0))
    ours = water_filling(fp, budget)
    _, value_ref = scipy_optimum(f, budget)
    value = sum(fi(xi) for fi, xi in zip(f, ours.allocation))
    assert value >= value_ref - 1e-7
    assert ours.allocation.sum() == pytest.approx(budget) and (ours.allocation >= 0).all()
    # KKT: every task with effort has the level as marginal return; tasks left out start at or below it
    marginal = np.array([g(x) for g, x in zip(fp, ours.allocation)])
    assert np.allclose(marginal[ours.active], ours.level, rtol=1e-6)
    starts = np.array([g(0.0) for g in fp])
    assert (starts[~ours.active] <= ours.level + 1e-6).all()
