"""Tests for benchvote.voting against pref-voting and brute force."""

from __future__ import annotations

from itertools import combinations, permutations

import numpy as np
import pandas as pd
import pytest
from conftest import permutations_of, score_tables, strictly_increasing_transforms
from hypothesis import given, settings
from hypothesis import strategies as st
from pref_voting.margin_based_methods import ranked_pairs_defeat_tb
from pref_voting.other_methods import kemeny_young_rankings
from pref_voting.profiles import Profile

import benchvote as bv
from benchvote.data import load_table
from benchvote.voting import (
    KEMENY_MAX_MODELS,
    condorcet_cycles,
    condorcet_winner,
    copeland,
    is_transitive,
    kemeny,
    majority_counts,
    majority_relation,
    margin_matrix,
    ranked_pairs,
)


def profile_of(table):
    return Profile([list(np.argsort(-table[:, k], kind="stable")) for k in range(table.shape[1])])


def brute_counts(s, tol=1e-9):
    """Task k votes i over j when s_ik > s_jk and the observed scores between them leave a gap larger than tol.

    This is the chained tie rule of ``benchvote.rank`` stated directly: i and j tie exactly when every
    consecutive gap among the task's scores from s_jk up to s_ik is at most tol.
    """
    m, n = s.shape
    out = np.zeros((m, m), int)
    for i in range(m):
        for j in range(m):
            for k in range(n):
                if np.isnan(s[i, k]) or np.isnan(s[j, k]) or not s[i, k] > s[j, k]:
                    continue
                col = s[:, k][~np.isnan(s[:, k])]
                between = np.sort(col[(col >= s[j, k]) & (col <= s[i, k])])
                out[i, j] += bool(np.diff(between).max() > tol)
    return out


odd_profiles = score_tables(min_models=3, max_models=6, min_tasks=1, max_tasks=7, ties=False).filter(
    lambda t: t.shape[1] % 2 == 1
)


class TestMajority:
    @given(score_tables(missing=True))
    def test_counts_brute_force(self, table):
        assert np.array_equal(majority_counts(table), brute_counts(table))

    @given(score_tables(), st.sampled_from([0.0, 0.5, 1.5]))
    def test_tolerance_brute_force(self, table, tol):
        assert np.array_equal(majority_counts(table, tol=tol), brute_counts(table, tol))

    @given(score_tables(ties=False))
    def test_margins_match_pref_voting(self, table):
        p = profile_of(table)
        m = np.asarray(margin_matrix(table))
        for i, j in permutations(range(table.shape[0]), 2):
            assert m[i, j] == p.margin(i, j)

    @given(score_tables(), st.data())
    def test_permutation_equivariance(self, table, data):
        perm = data.draw(permutations_of(table.shape[0]))
        assert np.array_equal(margin_matrix(table[perm]), margin_matrix(table)[np.ix_(perm, perm)])
        assert np.array_equal(copeland(table[perm]), copeland(table)[perm])

    @given(score_tables(), strictly_increasing_transforms())
    def test_ordinal_invariance(self, table, f):
        assert np.array_equal(margin_matrix(f(table)), margin_matrix(table))

    def test_labels_and_transitivity(self):
        s = pd.DataFrame({"t1": [3.0, 2.0, 1.0], "t2": [1.0, 3.0, 2.0], "t3": [2.0, 1.0, 3.0]}, index=list("abc"))
        rel = majority_relation(s)
        assert list(rel.index) == list("abc") and not is_transitive(rel)
        assert is_transitive(majority_relation(s[["t1"]]))

    def test_bad_tolerance(self):
        with pytest.raises(ValueError, match="tol"):
            majority_counts([[1.0], [2.0]], tol=-1)
        with pytest.raises(ValueError, match="square"):
            is_transitive([[1, 0, 0]])


class TestCondorcet:
    @given(score_tables(min_tasks=1, max_tasks=7, ties=False))
    def test_winner_matches_pref_voting(self, table):
        assert condorcet_winner(table) == profile_of(table).condorcet_winner()

    @given(score_tables(min_models=3, max_models=6, min_tasks=1, max_tasks=6))
    def test_cycles_brute_force(self, table):
        m = brute_counts(table)
        margin = m - m.T
        expected = set()
        for a, b, c in permutations(range(table.shape[0]), 3):
            if margin[a, b] > 0 and margin[b, c] > 0 and margin[c, a] > 0 and a < b and a < c:
                expected.add((a, b, c))
        found = condorcet_cycles(table)
        assert {cyc.models for cyc in found} == expected
        for cyc in found:
            a, b, c = cyc.models
            gaps = []
            for x, y in ((a, b), (b, c), (c, a)):
                d = table[x] - table[y]
                gaps.append(d[d > 0].min())
            assert cyc.buffer == pytest.approx(min(gaps))
        assert [cyc.buffer for cyc in found] == sorted((cyc.buffer for cyc in found), reverse=True)

    def test_formal_logic_cycle_of_gordienko_et_al(self):
        table = load_table("formal_logic")
        cycles = condorcet_cycles(table, higher_is_better=[True, False, False])
        assert len(cycles) == 1
        assert set(cycles[0].models) == {"GPT-4", "Qwen1.5", "GPT-3.5"}
        # GPT-4 > Qwen1.5 > GPT-3.5 > GPT-4
        rel = majority_relation(table, higher_is_better=[True, False, False])
        assert rel.loc["GPT-4", "Qwen1.5"] and rel.loc["Qwen1.5", "GPT-3.5"] and rel.loc["GPT-3.5", "GPT-4"]

    def test_score_voting_misses_the_condorcet_winner(self):
        table = load_table("score_voting")
        assert condorcet_winner(table) == "A"
        assert table.mean(axis=1).idxmax() == "B"

    def test_tolerance_removes_a_fragile_cycle(self):
        # task 3 prefers c to a by only 0.001
        s = np.array([[3.0, 1.0, 2.0], [2.0, 3.0, 1.0], [1.0, 2.0, 2.001]])
        assert condorcet_cycles(s)
        assert not condorcet_cycles(s, tol=0.01)


class TestCopeland:
    @given(score_tables(ties=False))
    def test_matches_pref_voting(self, table):
        theirs = profile_of(table).copeland_scores()
        assert np.allclose(copeland(table), [theirs[i] for i in range(table.shape[0])])


class TestRankedPairs:
    @given(odd_profiles, st.data())
    def test_locked_defeats_match_pref_voting(self, table, data):
        m = table.shape[0]
        tb = list(data.draw(permutations_of(m)))
        ours = ranked_pairs(table, tie_break=tb)  # higher = better, m - 1 for the first
        defeats = ranked_pairs_defeat_tb(profile_of(table), tie_breaker=tb).edges()
        for a, b in defeats:
            assert ours[a] > ours[b]
        assert sorted(ours) == list(range(m))

    @given(score_tables(min_tasks=1, max_tasks=6))
    def test_condorcet_winner_first(self, table):
        w = condorcet_winner(table)
        if w is not None:
            assert ranked_pairs(table)[w] == table.shape[0] - 1

    @settings(max_examples=150, deadline=None)
    @given(score_tables(min_models=2, max_models=12, max_tasks=7, missing=True), st.data())
    def test_the_closure_kernel_locks_what_a_graph_search_locks(self, table, data):
        """The bit-set closure of issue 30 against the edge-by-edge search it replaced (ties, holes, tie-breaks)."""
        m = table.shape[0]
        tb = list(data.draw(permutations_of(m)))
        assert ranked_pairs(table, tie_break=tb).tolist() == _ranked_pairs_by_search(table, tb)

    @settings(max_examples=40, deadline=None)
    @given(st.integers(0, 10**6), st.sampled_from([1e-6, 1.0, 1e10]))
    def test_permuted_rescaled_and_flipped_tables_give_the_same_order(self, seed, scale):
        rng = np.random.default_rng(seed)
        m, n = int(rng.integers(3, 40)), int(rng.integers(1, 8))
        s = np.round(rng.normal(size=(m, 1)) + rng.normal(size=(m, n)), 1)
        tb = rng.permutation(m)
        base = ranked_pairs(s, tie_break=tb)
        assert base.tolist() == _ranked_pairs_by_search(s, list(tb))
        perm = rng.permutation(m)
        moved = ranked_pairs(s[perm], tie_break=np.argsort(perm)[tb])  # the same models, the same priorities
        assert np.array_equal(moved, base[perm])
        flip = rng.random(n) < 0.5
        turned = np.where(flip, -s, s) * scale
        assert np.array_equal(ranked_pairs(turned, ~flip, tie_break=tb, tol=1e-9 * scale), base)

    def test_explicit_tie_break_orders_unrelated_models(self):
        s = np.array([[1.0, 0.0], [0.0, 1.0]])  # a perfect tie
        assert ranked_pairs(s).tolist() == [1.0, 0.0]
        assert ranked_pairs(s, tie_break=[1, 0]).tolist() == [0.0, 1.0]
        with pytest.raises(ValueError, match="tie_break"):
            ranked_pairs(s, tie_break=[0])


class TestKemeny:
    @given(score_tables(min_models=2, max_models=5, min_tasks=1, max_tasks=5, ties=False))
    def test_matches_pref_voting(self, table):
        orders, dist = kemeny_young_rankings(profile_of(table))
        result = kemeny(table)
        assert result.disagreements == dist
        assert result.n_optimal == len(orders)
        ours = tuple(np.argsort(result.ranks))
        assert ours in {tuple(o) for o in orders}

    def test_refuses_large_inputs(self):
        with pytest.raises(ValueError, match=f"limited to {KEMENY_MAX_MODELS} models"):
            kemeny(np.random.default_rng(0).random((KEMENY_MAX_MODELS + 1, 3)))

    def test_label_output(self):
        s = pd.DataFrame({"t": [1.0, 3.0, 2.0]}, index=["x", "y", "z"])
        assert kemeny(s).ranks.to_dict() == {"x": 3.0, "y": 1.0, "z": 2.0}


def test_cycle_buffer_ignores_abstaining_tasks():
    # task 3 ties B with A and C within the tie tolerance (5e-10); it abstains and must not
    # set the buffer of the cycle A > B > C > A, which tasks 0-2 carry with gaps of at least 1
    s = np.array([[3, 1, 2, 0], [2, 3, 1, 5e-10], [1, 2, 3, 0]], dtype=float)
    (cycle,) = condorcet_cycles(s)
    assert cycle.buffer == 1.0
    assert majority_counts(s)[1, 0] == 1  # task 3 does not vote for B over A
    # with a larger tolerance the tasks within it abstain as well
    (cycle,) = condorcet_cycles(s, tol=0.5)
    assert cycle.buffer == 1.0


def test_votes_and_buffers_use_one_notion_of_a_tie():
    rng = np.random.default_rng(7)
    for _ in range(30):
        s = rng.integers(0, 3, size=(5, 7)).astype(float) + rng.choice([0.0, 1e-12], size=(5, 7))
        counts = majority_counts(s)
        r = bv.rank(s)
        assert np.array_equal(counts, (r[:, None, :] < r[None, :, :]).sum(axis=2))
        for cyc in condorcet_cycles(s):
            assert cyc.buffer >= 1.0 - 1e-9  # integer gaps only: the 1e-12 noise is a tie, not a vote


# ---------------------------------------------------------------- oracles of the kernels it replaced
def _ranked_pairs_by_search(scores, tie_break, higher_is_better=True):
    """Ranked Pairs before issue 30: lock each defeat unless a search of the locked graph finds a path back."""
    r = bv.rank(np.asarray(scores, dtype=float), higher_is_better, nan_policy="omit")
    m = len(r)
    with np.errstate(invalid="ignore"):
        counts = (r[:, None, :] < r[None, :, :]).sum(axis=2)
    margins = counts - counts.T
    priority = {x: k for k, x in enumerate(tie_break)}
    edges = sorted(
        ((int(margins[i, j]), i, j) for i in range(m) for j in range(m) if margins[i, j] > 0),
        key=lambda e: (-e[0], priority[e[1]], priority[e[2]]),
    )
    locked = np.zeros((m, m), dtype=bool)

    def path(a, b):
        stack, seen = [a], {a}
        while stack:
            u = stack.pop()
            if u == b:
                return True
            for v in np.flatnonzero(locked[u]):
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        return False

    for _, i, j in edges:
        if not path(j, i):
            locked[i, j] = True
    out, placed = [0.0] * m, set()
    for position in range(m):
        free = [x for x in range(m) if x not in placed and not any(locked[y, x] for y in range(m) if y not in placed)]
        pick = min(free, key=lambda x: priority[x])
        out[pick] = float(m - 1 - position)
        placed.add(pick)
    return out


# ---------------------------------------------------------------- cycles without an m x m x m array
def _cycles_by_tensor(scores, higher_is_better=True, tol=1e-9):
    """The implementation of ``condorcet_cycles`` before issue 30 (an m x m x m tensor), kept as the oracle."""
    from benchvote._validation import Table
    from benchvote.voting import CondorcetCycle

    mat = Table.validate(scores, higher_is_better, allow_nan=True)
    direction = mat.direction
    r = bv.rank(mat.values, direction, tol=tol, nan_policy="omit")
    with np.errstate(invalid="ignore"):
        votes = r[:, None, :] < r[None, :, :]  # task k votes i over j (nan compares False: missing abstains)
    counts = votes.sum(axis=2)
    margins = counts - counts.T
    beats = margins > 0
    a, b, c = np.nonzero(beats[:, :, None] & beats[None, :, :] & beats.T[:, None, :])
    keep = (a < b) & (a < c)
    s = mat.values * np.where(direction, 1.0, -1.0)
    out = []
    for i, j, k in zip(a[keep], b[keep], c[keep]):
        gaps = [float((s[x] - s[y])[votes[x, y]].min()) for x, y in ((i, j), (j, k), (k, i))]
        out.append(
            CondorcetCycle(
                models=(mat.models[i], mat.models[j], mat.models[k]),
                margins=(int(margins[i, j]), int(margins[j, k]), int(margins[k, i])),
                buffer=min(gaps),
            )
        )
    out.sort(key=lambda cyc: -cyc.buffer)
    return out


def _one_factor(m, n=6, seed=0):
    rng = np.random.default_rng(seed)
    s = 50 + 10 * (rng.normal(size=(m, 1)) @ rng.uniform(0.5, 1.0, size=(1, n)) + 0.5 * rng.normal(size=(m, n)))
    return pd.DataFrame(np.round(s, 1), index=[f"m{i:03d}" for i in range(m)])


@pytest.mark.parametrize("seed", range(60))
def test_cycles_match_the_tensor_implementation(seed):
    """Same cycles, margins, buffers and order as the m^3 kernel: small tables with ties, gaps, both directions."""
    from benchvote.voting import count_condorcet_cycles

    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(3, 45)), int(rng.integers(1, 8))
    x = rng.integers(0, 5, size=(m, n)).astype(float)
    if seed % 3 == 0:
        x[rng.random(x.shape) < 0.2] = np.nan
        x[:, 0] = np.arange(m)  # every model keeps a score
    hib = list(rng.random(n) < 0.7)
    tol = 1.5 if seed % 5 == 0 else 1e-9
    want = _cycles_by_tensor(x, hib, tol)
    assert condorcet_cycles(x, hib, tol=tol) == want
    assert count_condorcet_cycles(x, hib, tol=tol) == len(want)
    assert condorcet_cycles(x, hib, tol=tol, limit=5) == want[:5]
    assert condorcet_cycles(x, hib, tol=tol, limit=0) == []


def test_cycles_on_a_one_factor_table_match_the_tensor_implementation():
    """Hundreds of thousands of candidate triples, labelled rows, many equal buffers (scores rounded to 0.1)."""
    from benchvote.voting import count_condorcet_cycles

    s = _one_factor(250)
    want = _cycles_by_tensor(s)
    assert len(want) > 500
    assert condorcet_cycles(s) == want
    assert condorcet_cycles(s, limit=37) == want[:37]
    assert count_condorcet_cycles(s) == len(want)


def test_cycles_limit_is_checked():
    with pytest.raises(ValueError):
        condorcet_cycles([[3, 1, 2], [2, 3, 1], [1, 2, 3]], limit=-1)


# ---------------------------------------------------------------- rankings at scale
def _brute_cycle_count(beats):
    """Every unordered triple checked both ways round: O(m^3), the oracle of the closed form."""
    m = len(beats)
    return sum(
        1
        for a, b, c in combinations(range(m), 3)
        if (beats[a, b] and beats[b, c] and beats[c, a]) or (beats[a, c] and beats[c, b] and beats[b, a])
    )


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 24), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.2, 0.5, 0.9]))
def test_cycle_count_closed_form_with_ties_matches_brute_force(m, seed, tie_share):
    """Kendall-Babington Smith corrected for tied pairs, on relations from tournaments to mostly ties."""
    from benchvote.voting import _n_cycles

    rng = np.random.default_rng(seed)
    margins = np.triu(rng.integers(1, 4, size=(m, m)) * rng.choice([-1, 1], size=(m, m)), 1)
    margins[rng.random((m, m)) < tie_share] = 0
    margins = np.triu(margins, 1)
    margins = (margins - margins.T).astype(np.int8)
    assert _n_cycles(margins) == _brute_cycle_count(margins > 0)


@settings(max_examples=200, deadline=None)
@given(score_tables(min_models=1, max_models=14, max_tasks=7, missing=True), st.sampled_from([1e-9, 0.5]))
def test_cycle_count_matches_the_tensor_kernel_on_tables_with_ties(table, tol):
    """The count from out-degrees equals the number of cycles the m^3 kernel of issue 30 lists."""
    from benchvote.voting import count_condorcet_cycles

    try:
        want = len(_cycles_by_tensor(table, tol=tol))
    except ValueError:  # a model without any score: refused by both
        with pytest.raises(ValueError):
            count_condorcet_cycles(table, tol=tol)
        return
    assert count_condorcet_cycles(table, tol=tol) == want


def test_cycle_count_on_a_one_factor_table_with_many_tied_pairs():
    """400 models on 6 tasks: ties of three tasks against three are common, the count is still exact."""
    from benchvote._validation import Table
    from benchvote.voting import _margins, count_condorcet_cycles

    s = _one_factor(400)
    mat = Table.validate(s, allow_nan=True)
    margins = _margins(mat.values, mat.direction, 1e-9)
    assert (margins == 0).sum() > 10 * len(margins)  # many tied pairs off the diagonal
    assert count_condorcet_cycles(s) == _brute_cycle_count(margins > 0) == len(_cycles_by_tensor(s))


def test_majority_margins_are_kept_in_a_small_integer_type():
    """No m x m int64 (or float64) matrix where the margins fit in a byte (6 tasks) or two (200 tasks)."""
    from benchvote._validation import Table
    from benchvote.voting import _margins

    for n, dtype in ((6, np.int8), (200, np.int16)):
        mat = Table.validate(_one_factor(30, n), allow_nan=True)
        margins = _margins(mat.values, mat.direction, 1e-9)
        assert margins.dtype == dtype
        np.testing.assert_array_equal(margins, margin_matrix(mat.values))


@settings(max_examples=150, deadline=None)
@given(score_tables(min_models=2, max_models=40, max_tasks=7, missing=True), st.data())
def test_ranked_pairs_by_dynamic_order_locks_what_a_graph_search_locks(table, data):
    """The Pearce-Kelly kernel of issue 41 against the edge-by-edge search (ties, holes, tie-breaks, 40 models)."""
    m = table.shape[0]
    tb = list(data.draw(permutations_of(m)))
    assert ranked_pairs(table, tie_break=tb).tolist() == _ranked_pairs_by_search(table, tb)


def test_ranked_pairs_on_a_one_factor_table_matches_the_graph_search():
    """120 models, many defeats against the Copeland start order (near-ties): the same ranking."""
    s = _one_factor(120)
    tb = list(np.random.default_rng(4).permutation(120))
    assert ranked_pairs(s.to_numpy(), tie_break=tb).tolist() == _ranked_pairs_by_search(s.to_numpy(), tb)


def test_kemeny_among_optimal_orders_ignores_the_rows_order_and_agrees_with_ranked_pairs():
    """Two models level head to head: both orders are optimal; the rows' order must not pick the winner."""
    scores = pd.DataFrame([[1.0, 0.0, 5.0], [0.0, 1.0, 5.0], [-1.0, -1.0, 0.0]], index=["a", "b", "c"])
    forward = kemeny(scores)
    backward = kemeny(scores.iloc[::-1])
    assert forward.n_optimal == 2
    assert backward.ranks.loc[forward.ranks.index].tolist() == forward.ranks.tolist()
    assert forward.ranks.tolist() == bv.rank(ranked_pairs(scores)).tolist()
    assert forward.ranks.tolist() == bv.rank(ranked_pairs(scores.iloc[::-1])).loc[scores.index].tolist()
