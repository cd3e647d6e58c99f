"""benchvote.intervals: bootstrap rank intervals against the exact bootstrap distribution and an independent recount."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import ceil

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import rankdata

import benchvote as bv
from benchvote.intervals import rank_intervals

TABLE = np.array([[3.0, 1.0, 2.0], [2.0, 3.0, 1.0], [1.0, 2.0, 3.5], [0.5, 0.0, 0.0]])


def _win_rates(values: np.ndarray) -> np.ndarray:
    """Strict mean win rate written out: share of the other models each model beats, averaged over the tasks."""
    m, n = values.shape
    beats = (values[:, None, :] > values[None, :, :]).sum(axis=2)
    return beats.sum(axis=1) / (n * (m - 1))


def test_rank_frequencies_match_the_exact_bootstrap_distribution():
    m, n = TABLE.shape
    above = np.zeros((m, m))  # exact P(i ranks strictly above j) over all n^n equally likely redraws
    draws = list(product(range(n), repeat=n))
    for cols in draws:
        r = rankdata(-_win_rates(TABLE[:, list(cols)]), method="average")
        above += (r[:, None] < r[None, :]) / len(draws)
    n_boot = 20_000
    result = rank_intervals(TABLE, n_boot=n_boot, seed=3)
    se = np.sqrt(above * (1 - above) / n_boot)
    assert np.all(np.abs(result.above - above) <= 4.5 * se + 1e-3)


def test_interval_ends_are_the_quantiles_of_the_redraws():
    rng = np.random.default_rng(5)
    s = rng.integers(0, 6, size=(6, 5)).astype(float)
    n_boot, level, seed = 400, 0.9, 11
    result = rank_intervals(s, n_boot=n_boot, level=level, seed=seed)
    draws = np.random.default_rng(seed).integers(0, s.shape[1], size=(n_boot, s.shape[1]))
    boot = np.array([rankdata(-_win_rates(s[:, cols]), method="average") for cols in draws])
    for i in range(s.shape[0]):
        ranks = np.sort(boot[:, i])
        assert result.lower[i] == ranks[ceil(n_boot * (1 - level) / 2) - 1]
        assert result.upper[i] == ranks[ceil(n_boot * (1 + level) / 2) - 1]
    above = (boot[:, :, None] < boot[:, None, :]).mean(axis=0)
    assert np.allclose(result.above, above)
    full = rankdata(-_win_rates(s), method="average")
    assert np.array_equal(result.ranks, full)
    pairs = {frozenset(p) for p in result.inseparable}
    for i in range(6):
        for j in range(i + 1, 6):
            assert (frozenset((i, j)) in pairs) == (above[i, j] < level and above[j, i] < level)


def test_a_unanimous_order_is_certain_and_a_split_is_not():
    s = [[9.0, 9.0, 9.0, 9.0], [2.0, 1.0, 2.0, 1.0], [1.0, 2.0, 1.0, 2.0]]
    r = rank_intervals(s, n_boot=300, seed=0)
    assert (r.lower[0], r.upper[0]) == (1.0, 1.0)
    assert r.inseparable == [(1, 2)]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.permutations(range(5)))
def test_permuting_models_permutes_the_intervals(seed, perm):
    s = np.random.default_rng(seed).integers(0, 4, size=(5, 4)).astype(float)
    a = rank_intervals(s, n_boot=60, seed=1)
    b = rank_intervals(s[list(perm)], n_boot=60, seed=1)
    assert np.array_equal(b.lower, a.lower[list(perm)]) and np.array_equal(b.upper, a.upper[list(perm)])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_increasing_transforms_of_a_task_change_nothing_under_an_ordinal_rule(seed):
    s = np.random.default_rng(seed).normal(size=(6, 4))
    t = s.copy()
    t[:, 2] = np.exp(3 * t[:, 2]) + 5
    a, b = rank_intervals(s, n_boot=50, seed=2), rank_intervals(t, n_boot=50, seed=2)
    assert np.array_equal(a.lower, b.lower) and np.array_equal(a.upper, b.upper)


def test_higher_level_widens_and_labels_and_directions_travel():
    lb = bv.data.load("HELM-lite")
    narrow = rank_intervals(lb, n_boot=200, level=0.5, nan_policy="omit", seed=0)
    wide = rank_intervals(lb, n_boot=200, level=0.95, nan_policy="omit", seed=0)
    assert (wide.lower <= narrow.lower).all() and (wide.upper >= narrow.upper).all()
    assert list(wide.ranks.index) == list(lb.scores.index)
    assert len(wide.inseparable) >= len(narrow.inseparable)
    frame = wide.frame()
    assert list(frame.columns) == ["rank", "lower", "upper"] and frame["rank"].is_monotonic_increasing


def test_mean_score_as_rule_and_deterministic_seed():
    s = pd.DataFrame(np.random.default_rng(0).normal(size=(5, 6)), index=list("abcde"))
    a = rank_intervals(s, rule=bv.mean_score, n_boot=100, seed=4)
    b = rank_intervals(s, rule=bv.mean_score, n_boot=100, seed=4)
    assert a.lower.equals(b.lower) and a.upper.equals(b.upper)


def test_refused_redraws_are_counted_not_hidden():
    s = np.array([[1.0, np.nan, np.nan], [2.0, 1.0, 3.0], [0.0, 2.0, 1.0]])  # model 0 has one task
    r = rank_intervals(s, n_boot=200, nan_policy="omit", seed=0)
    assert r.redrawn > 0  # redraws without task 0 leave model 0 unscored and are drawn again
    with pytest.raises(ValueError, match="missing"):
        rank_intervals(s, n_boot=10)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(level=1.0), "level"),
        (dict(n_boot=0), "n_boot"),
        (dict(rule="borda"), "rule"),
        (dict(nan_policy="drop"), "nan_policy"),
        (dict(seed=-1), "seed"),
    ],
)
def test_bad_input(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        rank_intervals(TABLE, **kwargs)


# --------------------------------------------------------------------------- instance bootstrap

from benchvote.intervals import instance_rank_intervals, instance_table  # noqa: E402


def _long(blocks: dict) -> pd.DataFrame:
    """Long instance scores from task -> models x instances arrays (models named m0, m1, ...)."""
    rows = [
        (f"m{i}", task, f"{task}-{q}", float(v))
        for task, block in blocks.items()
        for i, row in enumerate(block)
        for q, v in enumerate(row)
    ]
    return pd.DataFrame(rows, columns=["model", "task", "instance", "score"])


INSTANCES = {
    "t1": np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]),
    "t2": np.array([[0.2, 0.9, 0.4], [0.5, 0.1, 0.3], [0.3, 0.3, 0.3]]),
}


def test_instance_redraws_match_the_exact_bootstrap_distribution():
    m = 3
    above = np.zeros((m, m))
    per_task = [list(product(range(3), repeat=3)) for _ in INSTANCES]
    total = len(per_task[0]) * len(per_task[1])
    for c1 in per_task[0]:
        for c2 in per_task[1]:
            table = np.column_stack([INSTANCES["t1"][:, list(c1)].mean(1), INSTANCES["t2"][:, list(c2)].mean(1)])
            r = rankdata(-_win_rates(table), method="average")
            above += (r[:, None] < r[None, :]) / total
    n_boot = 20_000
    result = instance_rank_intervals(_long(INSTANCES), n_boot=n_boot, seed=2)
    se = np.sqrt(above * (1 - above) / n_boot)
    assert np.all(np.abs(result.above - above) <= 4.5 * se + 1e-3)
    table, _ = instance_table(_long(INSTANCES))
    assert np.array_equal(result.ranks.to_numpy(), rankdata(-_win_rates(table.to_numpy()), method="average"))


def test_one_instance_per_task_leaves_no_doubt_unless_tasks_are_redrawn():
    rng = np.random.default_rng(4)
    blocks = {f"t{k}": rng.random((5, 1)) for k in range(4)}
    fixed = instance_rank_intervals(_long(blocks), n_boot=100)
    assert np.array_equal(fixed.lower, fixed.ranks) and np.array_equal(fixed.upper, fixed.ranks)
    assert not fixed.inseparable
    both = instance_rank_intervals(_long(blocks), n_boot=300, resample_tasks=True)
    assert (both.upper - both.lower).max() > 0


def test_model_order_of_the_rows_does_not_matter():
    long = _long(INSTANCES)
    flipped = long.sort_values(["task", "model"], ascending=[True, False], kind="stable")
    a = instance_rank_intervals(long, n_boot=300, seed=1)
    b = instance_rank_intervals(flipped, n_boot=300, seed=1)
    assert a.lower.equals(b.lower.loc[a.lower.index]) and a.upper.equals(b.upper.loc[a.upper.index])
    assert {frozenset(p) for p in a.inseparable} == {frozenset(p) for p in b.inseparable}


def test_direction_per_task_by_name():
    long = _long(INSTANCES)
    flipped = long.assign(score=np.where(long["task"] == "t2", -long["score"], long["score"]))
    a = instance_rank_intervals(long, n_boot=200, seed=5)
    b = instance_rank_intervals(flipped, {"t2": False}, n_boot=200, seed=5)
    assert a.lower.equals(b.lower) and a.upper.equals(b.upper)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.drop(columns="instance"), "lack the column"),
        (lambda d: pd.concat([d, d.iloc[:1]]), "more than one score"),
        (lambda d: d.drop(index=3), "has no score on instance"),
        (lambda d: d.assign(score=d["score"].where(d.index != 2, np.nan)), "not finite"),
        (lambda d: d.assign(score=d["score"].astype(object).where(d.index != 2, "x")), "not finite"),
    ],
)
def test_bad_instance_tables(change, message):
    with pytest.raises(ValueError, match=message):
        instance_rank_intervals(change(_long(INSTANCES)))


def test_unknown_task_in_directions_and_bad_options():
    with pytest.raises(ValueError, match="unknown task"):
        instance_rank_intervals(_long(INSTANCES), {"t9": False})
    with pytest.raises(TypeError, match="DataFrame"):
        instance_rank_intervals(np.ones((3, 3)))
    with pytest.raises(TypeError, match="resample_tasks"):
        instance_rank_intervals(_long(INSTANCES), resample_tasks="yes")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.booleans())
def test_the_win_rate_kernel_gives_the_rules_own_ranks(seed, holes):
    """rank_intervals counts strict win rates from per-task counts; the rule itself must give the same redraws."""
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(3, 10)), int(rng.integers(2, 8))
    s = rng.integers(0, 4, size=(m, n)).astype(float)
    if holes:
        s[rng.random((m, n)) < 0.2] = np.nan
    policy = "omit" if np.isnan(s).any() else "raise"
    outcomes = []
    for rule in (bv.mean_win_rate, lambda t, h: bv.mean_win_rate(t, h)):  # the second is not recognised: no kernel
        try:
            outcomes.append(rank_intervals(s, n_boot=150, seed=seed % 1000, nan_policy=policy, rule=rule))
        except ValueError as err:
            outcomes.append(str(err))
    fast, slow = outcomes
    if isinstance(fast, str) or isinstance(slow, str):
        assert fast == slow
        return
    assert np.array_equal(fast.above, slow.above) and np.array_equal(fast.lower, slow.lower)
    assert np.array_equal(fast.upper, slow.upper) and fast.redrawn == slow.redrawn


# --------------------------------------------------------------------------- additive rules at scale
def _bootstrap_by_hand(s, direction, rule, n_boot, seed, level, tol=1e-9):
    """The bootstrap written out: redraw the columns as rank_intervals does, rank with the rule, compare every pair."""
    rng = np.random.default_rng(seed)
    boot = np.array(
        [
            bv.rank(rule(s[:, cols], direction[cols]), tol=tol)
            for cols in (rng.integers(0, s.shape[1], size=s.shape[1]) for _ in range(n_boot))
        ]
    )
    ordered = np.sort(boot, axis=0)
    share = Fraction(str(level))  # the decimal level exactly: ceil(B (1 - level) / 2)-th smallest rank
    lower = ordered[max(1, ceil(n_boot * (1 - share) / 2)) - 1]
    upper = ordered[ceil(n_boot * (1 + share) / 2) - 1]
    above = (boot[:, :, None] < boot[:, None, :]).mean(axis=0)
    return lower, upper, above


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(["borda", "mean_win_rate"]), st.sampled_from([1e-6, 1.0, 1e10]))
def test_per_task_points_give_the_bootstrap_written_out(seed, name, scale):
    """Borda and the strict win rate add per-task points: the fast redraws must equal the rule run on every redraw.

    Larger tables than the exact-distribution test, many ties, some lower-is-better tasks, rescaled; and the
    same models permuted give the permuted intervals.
    """
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(3, 45)), int(rng.integers(1, 9))
    s = rng.integers(0, int(rng.integers(2, 12)), size=(m, n)).astype(float)
    direction = rng.random(n) < 0.7
    s = np.where(direction, s, -s) * scale
    rule = getattr(bv, name)
    level, n_boot = float(rng.choice([0.5, 0.9, 0.95])), 120
    r = rank_intervals(s, direction, rule=rule, n_boot=n_boot, level=level, seed=seed % 97, tol=1e-9 * scale)
    lower, upper, above = _bootstrap_by_hand(s, direction, rule, n_boot, seed % 97, level, tol=1e-9 * scale)
    assert np.array_equal(r.lower, lower) and np.array_equal(r.upper, upper)
    assert np.array_equal(r.above, above)
    assert np.array_equal(r.ranks, bv.rank(rule(s, direction), tol=1e-9 * scale))
    order = np.argsort(r.ranks, kind="stable")
    expected = [
        (i, j) for a, i in enumerate(order) for j in order[a + 1 :] if above[i, j] < level and above[j, i] < level
    ]
    assert r.inseparable == expected
    perm = rng.permutation(m)
    moved = rank_intervals(s[perm], direction, rule=rule, n_boot=n_boot, level=level, seed=seed % 97, tol=1e-9 * scale)
    assert np.array_equal(moved.lower, r.lower[perm]) and np.array_equal(moved.above, r.above[np.ix_(perm, perm)])


def test_pair_shares_count_repeated_redraws_once_with_their_weight():
    """Few tasks repeat redraws: the deduplicated count must equal the plain mean over all redraws."""
    from benchvote.intervals import _strict_shares

    rng = np.random.default_rng(0)
    boot = rng.integers(2, 40, size=(300, 25)) / 2.0  # midranks are halves; many repeated rows below
    boot[100:200] = boot[:100]
    plain = (boot[:, :, None] < boot[:, None, :]).mean(axis=0)
    assert np.array_equal(_strict_shares(boot), plain)
    wide = rng.integers(2, 70_000, size=(40, 5)) / 2.0  # ranks beyond 16 bits take the 32-bit kernel
    assert np.array_equal(_strict_shares(wide), (wide[:, :, None] < wide[:, None, :]).mean(axis=0))


# --------------------------------------------------------------------------- exact quantile ends, row order
def test_the_lower_end_at_95_percent_is_the_25th_of_1000_redraws():
    """(1 - 0.95) / 2 is 0.025000000000000022 in floating point; the 2.5 % end of 1000 ranks is still the 25th.

    By hand: with B = 1000 redraws the inverted-CDF quantile q is the ceil(1000 q)-th smallest value, so the
    ends at level 0.95 are the 25th and the 975th smallest ranks (and 50th / 950th at level 0.9).
    """
    from benchvote.intervals import _summarise

    ranks = np.random.default_rng(0).permutation(np.arange(1.0, 1001.0))  # every order statistic is its index
    boot = np.column_stack([ranks, ranks[::-1]])
    r = _summarise(np.array([1.0, 2.0]), boot, [0, 1], False, 0.95, 0)
    assert r.lower.tolist() == [25.0, 25.0] and r.upper.tolist() == [975.0, 975.0]
    r = _summarise(np.array([1.0, 2.0]), boot, [0, 1], False, 0.9, 0)
    assert r.lower.tolist() == [50.0, 50.0] and r.upper.tolist() == [950.0, 950.0]


def test_rank_intervals_take_the_exact_order_statistic_of_the_redraws():
    """Through the public function: the lower end is the 25th of 1000 redrawn ranks, counted by hand."""
    s = np.random.default_rng(7).normal(size=(12, 9))  # two models whose 25th and 26th redrawn ranks differ
    r = rank_intervals(s, n_boot=1000, level=0.95, seed=3)
    draws = np.random.default_rng(3)
    boot = np.array([rankdata(-_win_rates(s[:, draws.integers(0, 9, size=9)]), method="average") for _ in range(1000)])
    ordered = np.sort(boot, axis=0)
    assert (ordered[24] != ordered[25]).any()
    assert np.array_equal(r.lower, ordered[24]) and np.array_equal(r.upper, ordered[974])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([0.0, 1e-9]), st.booleans())
def test_permuting_rows_permutes_the_intervals_at_any_tolerance(seed, tol, holes):
    """With tol=0 the win rates' float sums used to follow the row order, so exact ties split by position."""
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(3, 8)), int(rng.integers(2, 7))
    s = rng.integers(0, 3, size=(m, n)).astype(float)
    if holes:
        s[rng.random((m, n)) < 0.15] = np.nan
    policy = "omit" if holes else "raise"
    perm = rng.permutation(m)
    try:
        a = rank_intervals(s, n_boot=60, seed=1, tol=tol, nan_policy=policy)
    except ValueError:
        with pytest.raises(ValueError):
            rank_intervals(s[perm], n_boot=60, seed=1, tol=tol, nan_policy=policy)
        return
    b = rank_intervals(s[perm], n_boot=60, seed=1, tol=tol, nan_policy=policy)
    assert np.array_equal(b.ranks, a.ranks[perm])
    assert np.array_equal(b.lower, a.lower[perm]) and np.array_equal(b.upper, a.upper[perm])
    assert np.array_equal(b.above, a.above[np.ix_(perm, perm)]) and b.redrawn == a.redrawn


@given(st.integers(0, 2**32 - 1), st.integers(2, 7), st.integers(1, 6), st.booleans())
@settings(max_examples=40, deadline=None)
def test_strict_wins_per_task_count_the_models_each_task_ranks_strictly_below(seed, m, n, lower):
    """The one home of the mean win rate's per-task points (the library's bootstrap and the audit's)."""
    from benchvote.intervals import strict_wins_per_task

    values = np.random.default_rng(seed).integers(0, 3, size=(m, n)).astype(float)  # many ties
    direction = np.array([not lower] * n)
    got = strict_wins_per_task(values, direction, 1e-9)
    signed = values if not lower else -values
    brute = (signed[:, None, :] > signed[None, :, :]).sum(axis=1)
    assert np.array_equal(got, brute)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_additive_redraws_rank_every_redraw_as_the_rule_does_on_the_redrawn_table(seed):
    """Redrawn totals of the per-task points give the rule's own ranks, redraw by redraw, on rank_intervals' draws."""
    from benchvote.intervals import additive_redraw_ranks, strict_wins_per_task

    rng = np.random.default_rng(seed)
    values = rng.integers(0, 4, size=(6, 5)).astype(float)
    m, n = values.shape
    points = strict_wins_per_task(values, np.ones(n, dtype=bool), 1e-9)
    boot = additive_redraw_ranks(points, m * n, n_boot=40, tol=1e-9, seed=seed)
    draws = np.random.default_rng(seed)
    for b in range(40):
        cols = draws.integers(0, n, size=n)
        assert np.array_equal(boot[b], bv.rank(bv.mean_win_rate(values[:, cols]), tol=1e-9))
    r = rank_intervals(values, n_boot=40, seed=seed)  # the library's additive path reads the same redraws
    lower = np.quantile(boot, 0.025, axis=0, method="inverted_cdf")
    assert np.array_equal(r.lower, lower)
