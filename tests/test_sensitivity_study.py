"""benchvote.sensitivity.study: the trade-off table, a row per job, each value the measure's own."""

from __future__ import annotations

import pytest

import benchvote as bv
from benchvote.sensitivity import TradeOffJob, cardinal_sensitivity, ordinal_sensitivity_exact, trade_off_table


def test_the_study_table_holds_its_rows_in_the_order_of_the_jobs_and_each_measures_own_values():
    """Rows in the order of the jobs (kinds interleaved), every value the measure's own."""
    from benchvote import data

    glue, efficiency, nsfw = data.load("SuperGLUE"), data.load("HELM-efficiency"), data.load("HEIM-nsfw")
    protected = list(nsfw.scores.index[:3])
    jobs = [
        TradeOffJob(efficiency, "ordinal"),
        TradeOffJob(glue, "cardinal"),
        TradeOffJob(nsfw, "ordinal", protected=protected),
    ]
    one = trade_off_table(jobs)
    assert list(one.index) == ["HELM-efficiency", "SuperGLUE", "HEIM-nsfw"]
    assert list(one.kind) == ["ordinal", "cardinal", "ordinal"]
    raw = cardinal_sensitivity(glue.scores)
    zbox = cardinal_sensitivity(glue.scores, eps=0.01, normalize="zscore")
    assert one.loc["SuperGLUE", "tau"] == raw.tau_distance and one.loc["SuperGLUE", "bound"] == raw.upper_bound
    assert one.loc["SuperGLUE", "tau (z-score box)"] == zbox.tau_distance
    assert one.loc["SuperGLUE", "diversity"] == bv.diversity(glue.scores).diversity
    exact = ordinal_sensitivity_exact(nsfw.scores, nsfw.higher_is_better, protected=protected)
    assert one.loc["HEIM-nsfw", "tau"] == exact.tau_distance and one.loc["HEIM-nsfw", "added"] == len(exact.added)
    assert (
        one.loc["HELM-efficiency", "tau"]
        == ordinal_sensitivity_exact(efficiency.scores, efficiency.higher_is_better).tau_distance
    )


def test_the_study_refuses_an_unknown_kind_before_computing_any_row(monkeypatch):
    from benchvote import data
    from benchvote.sensitivity import study

    board = data.load("SuperGLUE")
    monkeypatch.setitem(study.ROWS, "cardinal", lambda job: pytest.fail("a row was computed"))
    with pytest.raises(ValueError, match="kind"):
        trade_off_table([TradeOffJob(board, "cardinal"), TradeOffJob(board, "borda")])
