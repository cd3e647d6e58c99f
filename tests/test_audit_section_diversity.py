"""benchvote.audit.sections.diversity: Kendall's W, diversity and rank changes on the complete part."""

from __future__ import annotations

import pytest
from audit_support import FAST, rounded_board

import benchvote as bv
from benchvote.audit import audit


def test_diversity_is_the_library_measure_on_the_complete_part():
    s = rounded_board(seed=7, missing=2)
    a = audit(s, [True, True, False, True, True], **FAST)
    part = s.dropna()
    hib = [True, True, False, True, True]
    d = bv.concordance.diversity(part, hib)
    x = a.sections["diversity"]
    assert (x["kendall_w"], x["diversity"], x["mean_pairwise_mrc"]) == pytest.approx(
        (d.w, d.diversity, d.mean_pairwise_mrc)
    )
    assert x["n_models"] == len(part)
