"""benchvote.audit.sections.ordinal_sensitivity: added models that reverse the protected ranking; the IIA table."""

from __future__ import annotations

from audit_support import QUICK, one_factor_board, order

import benchvote as bv
from benchvote.audit import audit
from benchvote.audit.sections import ordinal_sensitivity as ord_mod


def test_ordinal_sensitivity_is_the_library_s_and_the_iia_table():
    s = one_factor_board(8, m=10, n=5)
    a = audit(s, top_models=4, **QUICK)
    o = a.sections["ordinal_sensitivity"]
    protected = bv.sensitivity.default_protected(s)
    r = bv.sensitivity.ordinal_sensitivity_exact(s, protected=protected, work_limit=500)
    assert o["protected"] == protected and o["tau_distance"] == r.tau_distance and o["n_pairs"] == 1
    top = order(a)[:4]
    rep = bv.axioms.iia_report(s, protected=top, pool=[m for m in s.index if m not in top])
    assert [(p["leader"], p["trailer"], p["status"]) for p in o["iia_pairs"]] == list(
        zip(rep["leader"], rep["trailer"], rep["status"].astype(str))
    )
    assert o["iia_reversible"] == int((rep["status"] == "reversible").sum())
    assert "including the model itself" in o["iia_rule_definition"]


def test_ordinal_sensitivity_scoped_to_the_field(monkeypatch):
    s = one_factor_board(9, m=16, n=4)
    monkeypatch.setattr(ord_mod, "FIELD_MODELS", 10)
    a = audit(s, **QUICK)
    o = a.sections["ordinal_sensitivity"]
    field = order(a)[:10]
    assert o["field"] == field and "10 best of the 16" in o["scope"]
    sub = s.loc[[m for m in s.index if m in set(field)]]
    r = bv.sensitivity.ordinal_sensitivity_exact(sub, protected=bv.sensitivity.default_protected(sub), work_limit=500)
    assert o["n_flipped"] == r.n_flipped and set(o["added"]) <= set(field) and o["iia_pool"] == 4
