"""benchvote.audit._budget: the named levels of work of the exact parts."""

from __future__ import annotations

import pytest
from audit_support import QUICK, one_factor_board, order

import benchvote as bv
from benchvote.audit import audit


def test_the_budget_level_sets_the_limits_and_is_named_in_the_report():
    """The exact parts' work limits are a named level (``budget``), recorded in the report's settings."""
    s = one_factor_board(3, m=14, n=4)
    quick = audit(s, budget="quick", **QUICK)
    assert quick.settings["budget"] == "quick"
    assert quick.settings["budgets"] == bv.audit.BUDGETS["quick"].as_dict()
    limit = bv.audit.BUDGETS["quick"].top_k_models
    assert quick.sections["possible_winners"]["top_k_models"] == order(quick)[:limit] and limit < 14
    assert f"limit {limit} at the quick budget" in quick.sections["possible_winners"]["top_k_scope"]
    assert audit(s, **QUICK).settings["budget"] == bv.audit.DEFAULT_BUDGET == "standard"
    with pytest.raises(bv.audit.AuditInputError, match="unknown budget 'fast'; choose one of quick, standard"):
        audit(s, budget="fast", **QUICK)
