"""benchvote.audit.sections.standings: every model ranked with its coverage, against brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from audit_support import FAST, NAN, frame, normal_board

import benchvote as bv
from benchvote.audit import audit


def test_the_standings_name_a_rule_in_running_text_without_breaking_proper_names():
    from benchvote.audit.sections.standings import in_sentence
    from benchvote.rules import RULES

    said = {name: in_sentence(rule.label) for name, rule in RULES.items()}
    assert said["mean_win_rate"] == "mean win rate (strict)" and said["mean_score"] == "mean score"
    assert said["borda"] == "Borda" and said["bradley_terry"] == "Bradley-Terry"
    assert said["ranked_pairs"] == "Ranked Pairs"


def test_every_model_is_ranked_with_its_coverage_and_low_coverage_is_flagged():
    s = normal_board(seed=4, m=8, n=6)
    s.iloc[0, 1:] = np.nan  # model 0 is scored on one task of six
    s.iloc[3, 2] = np.nan
    a = audit(s, **FAST)
    st = a.sections["standings"]
    assert sorted(st["ranking"]) == sorted(s.index)  # nobody is dropped
    assert st["coverage"] == pytest.approx({m: s.loc[m].notna().mean() for m in s.index})
    assert st["low_coverage"] == ["model 0"]
    oracle = bv.mean_win_rate(s)  # the strict mean win rate on shared tasks, called directly
    assert st["scores"] == pytest.approx({m: float(v) for m, v in oracle.items()})
    ranks = bv.rank(oracle.to_numpy())
    assert [st["ranks"][m] for m in st["ranking"]] == sorted(ranks.tolist())
    assert st["in_complete_part"]["model 3"] is False and st["in_complete_part"]["model 1"] is True


def test_a_low_coverage_leader_is_named_in_the_verdict():
    s = normal_board(seed=5, m=6, n=6)
    s.iloc[5, :] = np.nan
    s.iloc[5, 0] = 100.0  # the last model, scored on one task where it beats everyone
    s.iloc[4, 1] = np.nan
    a = audit(s, **FAST)
    first = a.sections["standings"]["ranking"][0]
    assert first == "model 5"
    line = next(v["text"] for v in a.verdict if v["section"] == "standings")
    assert "low coverage" in line and "1 of 6" in line and "model 5" in line


def _strict_among_comparable(s: pd.DataFrame) -> dict:
    """Oracle: per model, wins over the models it shares a task with, over (1 + their number); by brute force."""
    out = {}
    for a in s.index:
        total, met = 0.0, 0
        for b in s.index:
            shared = [t for t in s.columns if b != a and not np.isnan(s.loc[a, t]) and not np.isnan(s.loc[b, t])]
            if shared:
                met += 1
                total += sum(s.loc[a, t] > s.loc[b, t] for t in shared) / len(shared)
        out[a] = total / (met + 1) if met else None
    return out


def test_pairs_of_models_that_share_no_task_are_counted_and_not_compared():
    s = frame(
        {"t1": [1, 2, NAN, NAN, 5], "t2": [3, 1, NAN, NAN, 2], "t3": [NAN, NAN, 1, 2, 4], "t4": [NAN, NAN, 5, 3, 1]},
        "ABCDE",
    )
    a = audit(s, **FAST)
    st = a.sections["standings"]
    assert st["status"] == "ok" and not a.errors
    assert st["incomparable_pairs"] == 4 and st["n_pairs"] == 10  # A, B against C, D
    assert sorted(map(sorted, st["incomparable_examples"])) == [["A", "C"], ["A", "D"], ["B", "C"], ["B", "D"]]
    oracle = _strict_among_comparable(s)
    assert st["scores"] == pytest.approx(oracle)
    assert "share no scored task" in a.to_html()


def test_on_a_table_where_every_pair_shares_a_task_the_standings_are_the_strict_mean_win_rate():
    s = normal_board(seed=3, m=7, n=4, missing=5)
    st = audit(s, **FAST).sections["standings"]
    assert st["incomparable_pairs"] == 0 and "not a comparison" not in st["definition"]
    expected = bv.mean_win_rate(s, tol=bv.DEFAULT_TIE_TOLERANCE)
    assert st["scores"] == {m: float(v) for m, v in expected.items()}  # bit for bit


def test_a_model_scored_only_where_no_other_model_is_is_listed_not_ranked():
    s = frame({"t1": [1, 2, 3, NAN], "t2": [3, 1, 2, NAN], "t3": [NAN, NAN, NAN, 4]}, "ABCD")
    a = audit(s, **FAST)
    st = a.sections["standings"]
    assert st["unscored"] == ["D"] and "D" not in st["ranking"] and not a.errors
    assert a.sections["table"]["constant_tasks"] == ["t3"]
