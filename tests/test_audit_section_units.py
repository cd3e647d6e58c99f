"""benchvote.audit.sections.units: columns on different scales or named like a cost, and the normalised table."""

from __future__ import annotations

import pytest
from audit_support import VERDICT_FAST, first_sentence, verdict_board

from benchvote.audit import audit


def test_a_cost_like_name_with_equal_spreads_never_opens_the_verdict():
    s = verdict_board(seed=1, n=4)
    s.columns = ["Multi Turn Miss Param", "Memory KV", "Live Simple", "Irrelevance"]
    s["Multi Turn Miss Param"] *= 2.0  # spread ratio about 2
    a = audit(s, **VERDICT_FAST)
    assert not any(v["section"] == "units" for v in a.verdict)
    assert "Memory KV" in a.sections["units"]["cost_named"]  # a hint in its section only
    assert not a.sections["units"]["mixed_scales"]


def test_with_zscore_there_is_no_different_scales_alarm_and_the_notice_names_the_normalised_table():
    s = verdict_board(seed=2)
    s["task 0"] *= 1000.0
    raw = audit(s, **VERDICT_FAST)
    assert raw.sections["units"]["mixed_scales"] and any(v["section"] == "units" for v in raw.verdict)
    z = audit(s, normalize="zscore", **VERDICT_FAST)
    u = z.sections["units"]
    assert not u["mixed_scales"] and u["normalized_spread_ratio"] == pytest.approx(1.0)
    assert not any(v["section"] == "units" for v in z.verdict)
    assert "different scales" not in " ".join(z.summary())
    assert "(Mean score (zscore))" in first_sentence(z)
    html = z.to_html()
    assert "The mean score and the other cardinal parts use the normalised table" in html
    assert "the columns are on different scales" not in html
