"""The verdict reads right: the primary rule's leader first, units from the data, ties together, no row order.

Also the cardinal options every cardinal part shares (task weights, the
baseline normalisation) and one computation of the mean-score order.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from audit_support import VERDICT_FAST, first_sentence, verdict_board, without_timings
from hypothesis import given, settings
from hypothesis import strategies as st

import benchvote as bv
from benchvote.audit import audit

# --------------------------------------------------------------------------- the primary rule leads


def test_the_verdict_opens_with_the_mean_score_leader_and_names_the_rules_that_disagree():
    s = pd.DataFrame(
        {"t1": [0.9, 0.6, 0.5], "t2": [0.1, 0.6, 0.5], "t3": [0.9, 0.55, 0.6]}, index=["Spiky", "Steady", "Other"]
    )
    a = audit(s, **VERDICT_FAST)
    means = s.mean(axis=1)
    assert means.idxmax() == "Spiky"  # the published aggregate's leader
    text = first_sentence(a)
    assert text.startswith("On the whole table, Spiky leads under the primary rule (Mean score)")
    r = a.sections["rankings"]
    others = [q for q in r["leaders"] if q != "mean_score"]
    agree = [q for q in others if r["leaders"][q] == ["Spiky"]]
    assert 0 < len(agree) < len(others) and f"{len(agree)} of the {len(others)} other rules agree" in text
    for q in others:
        if r["leaders"][q] != ["Spiky"]:
            assert r["rules"][q]["label"] in text and "Steady" in text
    assert a.verdict[0]["section"] == "rankings"


def test_when_every_other_rule_agrees_the_verdict_says_all():
    s = pd.DataFrame({"t1": [0.9, 0.5, 0.1], "t2": [0.8, 0.6, 0.2], "t3": [0.7, 0.4, 0.3]}, index=["A", "B", "C"])
    a = audit(s, **VERDICT_FAST)  # A is first on every task: every rule puts it first
    others = len(a.sections["rankings"]["leaders"]) - 1
    assert (
        others >= 2 and f"all {others} other rules agree" in first_sentence(a) and " of the " not in first_sentence(a)
    )


def test_primary_chooses_the_rule_whose_leader_opens_the_verdict():
    s = verdict_board(seed=3)
    a = audit(s, primary="borda", **VERDICT_FAST)
    leader = a.sections["rankings"]["leaders"]["borda"]
    assert first_sentence(a).startswith(f"On the whole table, {' and '.join(leader)} ")
    assert "under the primary rule (Borda)" in first_sentence(a)


# --------------------------------------------------------------------------- units from the data


# --------------------------------------------------------------------------- ties and row order


def twins():
    s = verdict_board(seed=5, m=6, n=5)
    s.loc["twin B"] = s.max() + 0.1  # beats every other model on every task
    s.loc["twin A"] = s.loc["twin B"]
    return s


def test_identical_models_are_tied_together_whatever_the_row_order():
    s = twins()
    texts = []
    for table in (s, s.iloc[::-1]):
        a = audit(table, **VERDICT_FAST)
        texts.append(a.summary())
        assert first_sentence(a).startswith(
            "On the whole table, twin A and twin B tie for first under the primary rule (Mean score)"
        )
        r = a.sections["rankings"]
        assert r["condorcet_winner"] is None and r["weak_condorcet_winners"] == ["twin A", "twin B"]
        assert r["rules"]["mean_score"]["ranks"]["twin A"] == r["rules"]["mean_score"]["ranks"]["twin B"] == 1.5
        assert r["ranking"][:2] == ["twin A", "twin B"]  # ties in the order of the names
        assert "no Condorcet winner" not in " ".join(a.summary())
        assert any("twin A and twin B are tied weak Condorcet winners" in t for t in a.summary())
    assert texts[0] == texts[1]


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10**6), st.booleans(), st.randoms(use_true_random=False))
def test_permuting_rows_and_columns_gives_the_same_report(seed, twin, rnd):
    rng = np.random.default_rng(seed)
    s = pd.DataFrame(rng.integers(0, 5, (6, 4)).astype(float), index=[f"m{i}" for i in range(6)], columns=list("pqrs"))
    if twin:
        s.loc["m5"] = s.loc["m2"]
    rows, cols = list(s.index), list(s.columns)
    rnd.shuffle(rows)
    rnd.shuffle(cols)
    hib = pd.Series([True, False, True, True], index=s.columns)
    a = audit(s, hib, **VERDICT_FAST).to_dict()
    b = audit(s.loc[rows, cols], hib[cols], **VERDICT_FAST).to_dict()
    assert json.dumps(without_timings(a), sort_keys=True) == json.dumps(without_timings(b), sort_keys=True)


# --------------------------------------------------------------------------- one mean-score order


def test_every_section_states_one_mean_score_order_on_scales_1e16_apart():
    s = pd.DataFrame(
        {"big": [1e16, 1e16, 1e16 + 2, 0.0], "small": [1.0, 0.0, 0.0, 0.5], "t3": [0.0, 0.5, 0.2, 0.1]},
        index=list("ABCD"),
    )
    exact = [sum(Fraction(v) for v in row) for row in s.to_numpy().tolist()]
    assert exact[0] > exact[1]  # A is ahead of B by 1/3 of a point; the rounded means tie them
    a = audit(s, eps=0.1, n_boot=30, time_limit=60)
    mean_ranks = a.sections["rankings"]["rules"]["mean_score"]["ranks"]
    assert mean_ranks == {"A": 2.0, "B": 3.0, "C": 1.0, "D": 4.0}
    assert a.sections["cardinal_sensitivity"]["ranking_before"] == mean_ranks
    assert a.sections["intervals"]["ranks"] == mean_ranks
    assert a.sections["rankings"]["ranking"] == ["C", "A", "B", "D"]


# --------------------------------------------------------------------------- weights and the baseline


def test_weights_reach_the_mean_the_possible_winners_and_the_cardinal_sensitivity():
    s = verdict_board(seed=7)
    w = {t: float(k + 1) for k, t in enumerate(s.columns)}
    a = audit(s, weights=w, **VERDICT_FAST)
    weights = np.array([w[t] for t in s.columns])
    oracle = {m: float(sum(Fraction(x) * Fraction(v) for x, v in zip(row, weights)) / int(weights.sum()))
              for m, row in zip(s.index, s.to_numpy().tolist())}  # fmt: skip
    mean = a.sections["rankings"]["rules"]["mean_score"]
    assert mean["label"] == "Weighted mean score"
    assert mean["scores"] == pytest.approx(oracle, rel=1e-12)
    weighted_ranks = dict(zip(s.index, bv.rank(pd.Series(oracle)).tolist()))
    assert mean["ranks"] == weighted_ranks
    assert a.sections["cardinal_sensitivity"]["ranking_before"] == weighted_ranks
    assert a.sections["intervals"]["ranks"] == weighted_ranks
    assert a.settings["weights"] == w
    # the possible winners' box starts from the published weighting: scaled columns give the same answer
    scaled = s * (weights * len(weights) / weights.sum())
    plain = audit(scaled, eps=a.sections["possible_winners"]["eps"], **VERDICT_FAST)
    assert a.sections["possible_winners"]["possible"] == plain.sections["possible_winners"]["possible"]


def test_the_weights_are_checked():
    s = verdict_board()
    with pytest.raises(ValueError, match="no weight to task"):
        audit(s, weights={"task 0": 1.0})
    with pytest.raises(ValueError, match="positive and finite"):
        audit(s, weights={t: 0.0 for t in s.columns})
    with pytest.raises(ValueError, match="unknown task"):
        audit(s, weights={**{t: 1.0 for t in s.columns}, "nope": 1.0})


def test_baseline_normalisation_divides_by_the_baseline_and_keeps_the_geometric_mean_order():
    s = verdict_board(seed=8) + 0.5
    hib = pd.Series([False] * s.shape[1], index=s.columns)  # errors: lower is better
    a = audit(s, hib, normalize="baseline:model 3", **VERDICT_FAST)
    rel = s / s.loc["model 3"]
    mean = a.sections["rankings"]["rules"]["mean_score"]
    assert mean["scores"] == pytest.approx((-rel.mean(axis=1)).to_dict(), rel=1e-12)
    geo = a.sections["rankings"]["rules"]["geometric_mean"]
    assert geo["ranks"] == dict(zip(s.index, bv.rank(bv.geometric_mean(s, False)).tolist()))
    assert 1 / geo["scores"]["model 3"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="baseline model is not a model"):
        audit(s, normalize="baseline:nobody")
    with pytest.raises(ValueError, match="unknown normalize"):
        audit(s, normalize="baseline:")


# ---------------------------------------------------------------- majority cycles in words
def _rankings_sentences(a) -> list[str]:
    from benchvote.audit.sections import rankings

    return [s.text for s in rankings.verdict(a.sections["rankings"], a.sections)]


def test_verdict_shows_a_majority_cycle_among_the_top_models():
    """Condorcet's paradox on top of a small board: the verdict walks through the cycle, not a bare count."""
    rows = {"A": [90, 80, 70], "B": [70, 90, 80], "C": [80, 70, 90]}
    rows.update({f"low {k}": [50 - k, 50 - k, 50 - k] for k in range(5)})
    a = audit(pd.DataFrame(rows, index=["t1", "t2", "t3"]).T, **VERDICT_FAST)
    r = a.sections["rankings"]
    assert r["n_cycles"] == 1 and r["top_cycles"] == {"models": 8, "n_cycles": 1, "example": ["A", "C", "B"]}
    assert (
        "There is no Condorcet winner, and majority rule is intransitive among the 8 models: "
        "A beats C on a majority of tasks, C beats B and B beats A (1 such cycle among them)."
    ) in _rankings_sentences(a)


def test_verdict_says_majority_rule_is_transitive_among_the_top_20_when_the_cycles_lie_below():
    """B > A (mean) head a clean order of 20 models; the only cycle runs through Z, last by the mean."""
    rows = {"A": [10, 10, 10], "B": [9.5, 12, 9.6], "Z": [11, 11, -100]}
    rows.update({f"C{k:02d}": [8 - 0.1 * k] * 3 for k in range(20)})
    a = audit(pd.DataFrame(rows, index=["t1", "t2", "t3"]).T, **VERDICT_FAST)
    r = a.sections["rankings"]
    assert r["condorcet_winner"] is None and r["weak_condorcet_winners"] == []
    assert r["n_cycles"] == 1 and r["top_cycles"]["n_cycles"] == 0 and r["ranking"][:2] == ["B", "A"]
    assert (
        "There is no Condorcet winner; majority rule is transitive among the top 20 by Mean score, but the whole "
        "table has 1 cycle of three models (0.06% of its triples of models), all involving lower-placed models."
    ) in _rankings_sentences(a)


def test_too_many_cycles_to_sort_are_listed_among_the_top_models(monkeypatch):
    """All cycles are counted; the listed ones are the most robust among the top models by the primary rule."""
    from benchvote.audit.sections import rankings

    rng = np.random.default_rng(0)
    s = 50 + 10 * (rng.normal(size=(90, 1)) + 0.5 * rng.normal(size=(90, 6)))
    table = pd.DataFrame(np.round(s, 1), index=[f"m{i:02d}" for i in range(90)], columns=list("abcdef"))
    full = audit(table, **VERDICT_FAST).sections["rankings"]
    assert full["cycles_among"] is None and full["cycles"] == [
        list(c.models) for c in bv.voting.condorcet_cycles(table, limit=rankings.CYCLES_SHOWN)
    ]
    monkeypatch.setattr(rankings, "CYCLES_LISTED_MAX", full["n_cycles"] - 1)
    monkeypatch.setattr(rankings, "CYCLES_AMONG", 40)
    r = audit(table, **VERDICT_FAST).sections["rankings"]
    assert r["n_cycles"] == full["n_cycles"] == bv.voting.count_condorcet_cycles(table) > 20
    assert r["cycles_among"] == 40
    top = table.loc[[m for m in table.index if m in set(r["ranking"][:40])]]
    assert r["cycles"] == [list(c.models) for c in bv.voting.condorcet_cycles(top, limit=rankings.CYCLES_SHOWN)]
