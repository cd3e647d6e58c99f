"""Tests for benchvote.axioms: Pareto checks and exact IIA certificates against exhaustive search."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from conftest import score_tables
from hypothesis import given, settings
from hypothesis import strategies as st

import benchvote as bv
from benchvote.axioms import field_margins, iia_flip, iia_report, pareto_violations
from benchvote.data import load, load_table
from benchvote.voting import copeland, ranked_pairs


def frame(values):
    m, n = values.shape
    return pd.DataFrame(values, index=[f"m{i}" for i in range(m)], columns=[f"t{k}" for k in range(n)])


def order_of(scores, protected, added, a, b, rule):
    """+1 if a ranks strictly above b in the field protected + added, -1 below, 0 tie (direct recomputation)."""
    field = scores.loc[list(protected) + list(added)]
    if rule is bv.mean_win_rate:
        values = bv.mean_win_rate(field)
    else:
        values = bv.borda(field)
    d = values[a] - values[b]
    return 0 if abs(d) < 1e-9 else int(np.sign(d))


class TestPareto:
    @given(score_tables(min_tasks=1))
    def test_standard_rules_are_pareto(self, table):
        for rule in (bv.mean_win_rate, bv.borda, bv.mean_score, copeland, ranked_pairs):
            assert pareto_violations(table, rule=rule) == []

    @given(score_tables(min_tasks=1))
    def test_brute_force_for_a_constant_rule(self, table):
        m = table.shape[0]
        expected = [
            (i, j)
            for i in range(m)
            for j in range(m)
            if i != j and all(table[i, k] > table[j, k] for k in range(table.shape[1]))
        ]
        assert pareto_violations(table, rule=lambda s, h: np.zeros(len(s))) == expected

    def test_bad_rule_output(self):
        with pytest.raises(ValueError, match="one number per model"):
            pareto_violations([[1.0], [2.0]], rule=lambda s, h: np.zeros(1))


@st.composite
def iia_instances(draw, missing=False):
    m = draw(st.integers(4, 9))
    n = draw(st.integers(1, 6))
    values = draw(score_tables(min_models=m, max_models=m, min_tasks=n, max_tasks=n, missing=missing))
    s = frame(values)
    p = draw(st.integers(2, m - 1))
    models = list(s.index)
    protected, pool = models[:p], models[p:]
    return s, protected, pool


class TestIIAFlip:
    @pytest.mark.slow
    @given(iia_instances(), st.sampled_from([bv.mean_win_rate, bv.borda]))
    def test_exact_against_exhaustive_search(self, instance, rule):
        s, protected, pool = instance
        for a, b in combinations(protected, 2):
            before = order_of(s, protected, [], a, b, rule)
            if before == 0:
                with pytest.raises(ValueError, match="tie"):
                    iia_flip(s, pair=(a, b), protected=protected, pool=pool, rule=rule)
                continue
            result = iia_flip(s, pair=(a, b), protected=protected, pool=pool, rule=rule)
            leader, trailer = (a, b) if before > 0 else (b, a)
            assert (result.leader, result.trailer) == (leader, trailer)
            flipping = [
                set(c)
                for k in range(1, len(pool) + 1)
                for c in combinations(pool, k)
                if order_of(s, protected, c, leader, trailer, rule) < 0
            ]
            assert result.flippable == bool(flipping)
            if result.flippable:
                # the certificate really reverses the pair, and no smaller subset does
                assert order_of(s, protected, result.certificate, leader, trailer, rule) < 0
                assert len(result.certificate) == min(len(f) for f in flipping)
                assert result.margin_after < 0 < result.margin_before
            else:
                assert result.certificate == ()
                assert result.best_margin >= 0

    @given(iia_instances(missing=True))
    def test_missing_scores_under_win_rate(self, instance):
        s, protected, pool = instance
        try:
            fm = field_margins(s, protected=protected, pool=pool)
        except ValueError as err:
            assert "share no task" in str(err) or "shares no task" in str(err)
            return
        for x in range(len(protected)):
            for y in range(len(protected)):
                if x != y:
                    expected = bv.mean_win_rate(s.loc[protected])
                    d = expected[protected[x]] - expected[protected[y]]
                    assert fm.margin(x, y) == pytest.approx(d)

    def test_margin_decomposition_matches_direct_win_rates(self):
        s = frame(np.random.default_rng(3).integers(0, 5, size=(8, 5)).astype(float))
        protected, pool = list(s.index[:4]), list(s.index[4:])
        fm = field_margins(s, protected=protected, pool=pool)
        added = [0, 2]
        field = protected + [pool[k] for k in added]
        w = bv.mean_win_rate(s.loc[field])
        assert fm.margin(0, 1, added) == pytest.approx(w[protected[0]] - w[protected[1]])

    def test_report_covers_every_pair(self):
        r = load_table("nine_task_ranks")
        rep = iia_report(r, False, protected=["L1", "L2", "L3"], pool=["L4"])
        assert len(rep) == 3
        tie = rep[(rep.leader == "L1") & (rep.trailer == "L2")]
        assert (tie.status == "tied").all()  # L1 and L2 tie at 10/27

    def test_real_leaderboard_certificates_verify(self):
        lb = load("HEIM-aesthetics_auto")
        order = bv.mean_win_rate(lb.scores, lb.higher_is_better).sort_values(ascending=False).index
        protected, pool = list(order[:5]), list(order[5:])
        rep = iia_report(lb.scores, lb.higher_is_better, protected=protected, pool=pool)
        assert (rep.status == "reversible").any()
        assert list(rep.status.cat.categories) == ["reversible", "stable", "tied"]
        for row in rep[rep.status == "reversible"].itertuples():
            ranks = bv.protected_ranking(lb.scores, lb.higher_is_better, protected=protected, added=row.certificate)
            assert ranks[row.trailer] < ranks[row.leader]

    @pytest.mark.parametrize(
        "kwargs, message",
        [
            (dict(pair=("m0", "m5")), "protected"),
            (dict(pair=("m0", "m0")), "distinct"),
            (dict(pool=[]), "empty"),
            (dict(pool=["m1"]), "both protected and in the pool"),
            (dict(pool=["nope"]), "unknown"),
            (dict(rule=copeland), "rule"),
        ],
    )
    def test_bad_input(self, kwargs, message):
        s = frame(np.arange(24, dtype=float).reshape(6, 4) % 5)
        args = dict(pair=("m0", "m1"), protected=["m0", "m1", "m2"], pool=["m4", "m5"])
        args.update(kwargs)
        with pytest.raises((ValueError, KeyError), match=message):
            iia_flip(s, **args)

    def test_borda_needs_complete_data(self):
        s = frame(np.array([[1.0, np.nan], [2.0, 1.0], [0.0, 3.0]]))
        with pytest.raises(ValueError, match="missing"):
            iia_flip(s, pair=("m0", "m1"), protected=["m0", "m1"], pool=["m2"], rule=bv.borda)


# --------------------------------------------------------------------------- chained ties, one ranking
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6))
def test_iia_flip_agrees_with_protected_ranking_on_every_added_set_under_chained_ties(seed):
    """Tasks are ranked within the field (protected_ranking); an added model can chain two others into a tie.

    Exhaustive oracle: every subset of the pool, ranked by protected_ranking; the certificate is a smallest
    subset that reverses the pair, and none exists when the pair is not flippable.
    """
    from benchvote.aggregation import protected_ranking

    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(3, 7)), int(rng.integers(2, 6))
    steps = rng.choice([0.0, 0.6e-9, 1.2e-9, 1.8e-9, 2.4e-9], size=(m, n))
    s = pd.DataFrame(steps + rng.integers(0, 2, size=(m, n)) * (rng.random((m, n)) < 0.3), index=list("abcdefg")[:m])
    p = int(rng.integers(2, m))
    protected, pool = list(s.index[:p]), list(s.index[p:])
    before = protected_ranking(s, protected=protected)
    rankings = {
        x: protected_ranking(s, protected=protected, added=list(x))
        for r in range(len(pool) + 1)
        for x in combinations(pool, r)
    }
    for a, b in combinations(protected, 2):
        if before[a] == before[b]:
            continue
        f = iia_flip(s, pair=(a, b), protected=protected, pool=pool)
        lead, trail = (a, b) if before[a] < before[b] else (b, a)
        assert (f.leader, f.trailer) == (lead, trail)
        reversing = [x for x, after in rankings.items() if after[trail] < after[lead]]
        assert f.flippable == bool(reversing)
        if reversing:
            assert len(f.certificate) == min(len(x) for x in reversing)
            assert (
                rankings[tuple(sorted(f.certificate, key=pool.index))][trail]
                < rankings[tuple(sorted(f.certificate, key=pool.index))][lead]
            )
