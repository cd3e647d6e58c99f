"""Tests for benchvote.domains: recognisers against brute force, theorems as properties, depth against brute force."""

from __future__ import annotations

from itertools import combinations, permutations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchvote.domains import (
    average_rank_flips,
    deepest_ranking,
    distance_restriction_degree,
    domain_report,
    group_separable_tree,
    is_single_peaked_on,
    profile_majority,
    rankings_from_scores,
    single_peaked_axis,
    swap_distance,
    tukey_depth,
)
from benchvote.voting import is_transitive

MODELS = "abcdefgh"


@st.composite
def random_profiles(draw, min_m=3, max_m=6, max_voters=5):
    m = draw(st.integers(min_m, max_m))
    n = draw(st.integers(1, max_voters))
    return [tuple(MODELS[i] for i in draw(st.permutations(range(m)))) for _ in range(n)]


def single_peaked_ranking(axis, peak, go_left):
    """Grow a ranking from ``axis[peak]`` outwards; ``go_left()`` chooses the side while both are open."""
    lo = hi = peak
    ranking = [axis[peak]]
    while len(ranking) < len(axis):
        if lo > 0 and (hi == len(axis) - 1 or go_left()):
            lo -= 1
            ranking.append(axis[lo])
        else:
            hi += 1
            ranking.append(axis[hi])
    return tuple(ranking)


@st.composite
def single_peaked_profiles(draw, min_m=3, max_m=7, max_voters=6):
    m = draw(st.integers(min_m, max_m))
    axis = [MODELS[i] for i in draw(st.permutations(range(m)))]
    return [
        single_peaked_ranking(axis, draw(st.integers(0, m - 1)), lambda: draw(st.booleans()))
        for _ in range(draw(st.integers(1, max_voters)))
    ]


@st.composite
def group_separable_profiles(draw, min_m=3, max_m=7, max_voters=6):
    m = draw(st.integers(min_m, max_m))
    leaves = [MODELS[i] for i in draw(st.permutations(range(m)))]

    def tree(items):
        if len(items) == 1:
            return items[0]
        cut = draw(st.integers(1, len(items) - 1))
        return (tree(items[:cut]), tree(items[cut:]))

    t = tree(leaves)

    def order(node):
        if isinstance(node, str):
            return [node]
        a, b = order(node[0]), order(node[1])
        return a + b if draw(st.booleans()) else b + a

    return [tuple(order(t)) for _ in range(draw(st.integers(1, max_voters)))]


def brute_single_peaked(profile):
    return any(is_single_peaked_on(profile, axis) for axis in permutations(profile[0]))


def brute_group_separable(profile):
    models = list(profile[0])
    for size in range(3, len(models) + 1):
        for subset in combinations(models, size):
            s = set(subset)
            restricted = [[c for c in r if c in s] for r in profile]
            ok = False
            for k in range(1, size):
                for part in combinations(subset, k):
                    e = set(part)
                    if all(set(r[:k]) == e or set(r[-k:]) == e for r in restricted):
                        ok = True
                        break
                if ok:
                    break
            if not ok:
                return False
    return True


def majority_transitive(profile):
    m = profile_majority(profile).to_numpy()
    return is_transitive(m > 0)


class TestSinglePeaked:
    @given(random_profiles())
    def test_random_profiles_against_all_axes(self, profile):
        axis = single_peaked_axis(profile)
        assert (axis is not None) == brute_single_peaked(profile)
        if axis is not None:
            assert is_single_peaked_on(profile, axis)

    @given(single_peaked_profiles())
    def test_constructed_profiles_are_recognised(self, profile):
        axis = single_peaked_axis(profile)
        assert axis is not None and is_single_peaked_on(profile, axis)

    @given(single_peaked_profiles())
    def test_black_theorem_majority_is_transitive(self, profile):
        assert majority_transitive(profile)

    def test_large_profile_is_fast_enough_and_correct(self):
        rng = np.random.default_rng(0)
        axis = [f"m{k:02d}" for k in range(67)]
        profile = [single_peaked_ranking(axis, int(rng.integers(67)), lambda: rng.random() < 0.5) for _ in range(20)]
        found = single_peaked_axis(profile)
        assert found is not None and is_single_peaked_on(profile, found)


class TestGroupSeparable:
    @given(random_profiles(max_m=6))
    def test_random_profiles_against_the_definition(self, profile):
        assert (group_separable_tree(profile) is not None) == brute_group_separable(profile)

    @given(group_separable_profiles())
    def test_constructed_profiles_are_recognised(self, profile):
        assert group_separable_tree(profile) is not None

    @given(group_separable_profiles(max_voters=7).filter(lambda p: len(p) % 2 == 1))
    def test_inada_theorem_odd_voters_majority_is_transitive(self, profile):
        assert majority_transitive(profile)

    def test_triples_are_not_enough(self):
        profile = [("a", "b", "c", "d"), ("b", "d", "a", "c")]
        for triple in combinations("abcd", 3):
            restricted = [tuple(c for c in r if c in triple) for r in profile]
            assert group_separable_tree(restricted) is not None
        assert group_separable_tree(profile) is None


class TestDistance:
    @given(random_profiles(min_m=2))
    def test_swap_distance_brute_force(self, profile):
        a, b = profile[0], profile[-1]
        brute = sum((a.index(x) - a.index(y)) * (b.index(x) - b.index(y)) < 0 for x, y in combinations(a, 2))
        assert swap_distance(a, b) == brute

    @given(random_profiles(max_voters=6))
    def test_degree_one_gives_transitive_majority(self, profile):
        if distance_restriction_degree(profile) <= 1:
            assert majority_transitive(profile)


class TestDepth:
    @given(random_profiles(min_m=3, max_m=5, max_voters=7))
    def test_deepest_ranking_against_all_orders(self, profile):
        result = deepest_ranking(profile)
        best = max(tukey_depth(profile, p) for p in permutations(profile[0]))
        assert result.depth == pytest.approx(best)
        assert result.observed_depth == pytest.approx(max(tukey_depth(profile, r) for r in profile))
        assert result.depth >= result.observed_depth - 1e-12

    def test_depth_of_a_unanimous_population_is_one(self):
        pop = [("a", "b", "c")] * 3
        assert tukey_depth(pop, ("a", "b", "c")) == 1.0
        assert deepest_ranking(pop).ranking == ("a", "b", "c")

    def test_optimum_can_beat_every_observed_ranking(self):
        rng = np.random.default_rng(0)
        strictly_deeper = 0
        for _ in range(60):
            pop = [tuple(rng.permutation(list("abcde"))) for _ in range(7)]
            r = deepest_ranking(pop)
            strictly_deeper += r.depth > r.observed_depth + 1e-12
        assert strictly_deeper > 0


def test_rankings_from_scores_tie_breaks():
    s = pd.DataFrame({"acc": [0.5, 0.5, 0.9], "time": [1.0, 1.0, 2.0]}, index=["zeta", "alpha", "mid"])
    alpha = rankings_from_scores(s, [True, False])
    rev = rankings_from_scores(s, [True, False], tie_break="reverse")
    assert alpha[0] == ("mid", "alpha", "zeta") and rev[0] == ("mid", "zeta", "alpha")
    assert alpha[1] == ("alpha", "zeta", "mid")
    with pytest.raises(ValueError, match="tie_break"):
        rankings_from_scores(s, tie_break="random")


def test_rankings_from_scores_input_tie_break_keeps_the_row_order():
    """The documented tie_break="input" used to raise; tied models keep their row order, untied ones their rank."""
    s = pd.DataFrame({"acc": [0.5, 0.5, 0.9, 0.5], "time": [1.0, 1.0, 2.0, 0.5]}, index=["zeta", "alpha", "mid", "b"])
    assert rankings_from_scores(s, [True, False], tie_break="input") == [
        ("mid", "zeta", "alpha", "b"),
        ("b", "zeta", "alpha", "mid"),
    ]
    flipped = s.iloc[::-1]
    assert rankings_from_scores(flipped, [True, False], tie_break="input")[0] == ("mid", "b", "alpha", "zeta")


def test_domain_report_on_the_paradox():
    r = domain_report([("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")])
    assert not r.single_peaked and not r.majority_transitive and r.cycles == 1
    assert not r.group_separable  # each model is in the middle for one voter, so no part is above or below the rest
    assert r.distance_degree == 2


@pytest.mark.parametrize(
    "bad, message",
    [
        ([("a", "b", "c"), ("a", "b", "d")], "same set"),
        ([("a", "b")], "at least 3"),
        ([("a", "a", "b")], "twice"),
        ([], "at least one"),
    ],
)
def test_bad_profiles(bad, message):
    with pytest.raises(ValueError, match=message):
        single_peaked_axis(bad)


def test_rankings_from_scores_honours_the_tie_tolerance():
    # on GLUE MNLI 84.30000000000001 and 84.3 are a tie, broken by name, not by float noise
    s = pd.DataFrame({"mnli": [84.30000000000001, 84.3, 1.0]}, index=["z", "y", "x"])
    assert rankings_from_scores(s) == [("y", "z", "x")]
    assert rankings_from_scores(s, tie_break="reverse") == [("z", "y", "x")]
    assert rankings_from_scores(s, tol=0.0) == [("z", "y", "x")]  # exact comparison orders them


def test_average_rank_flips_accepts_arrays():
    s = np.array([[3.0, 1.0], [2.0, 3.0], [1.0, 2.0]])
    assert average_rank_flips(s, models=[0, 1], candidates=[2]) == average_rank_flips(
        pd.DataFrame(s), models=[0, 1], candidates=[2]
    )
