"""benchvote.audit.sections.cardinal_sensitivity: the exact search over task weights and its scope."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from audit_support import QUICK, one_factor_board

import benchvote as bv
from benchvote.audit import audit
from benchvote.audit.sections import cardinal_sensitivity as card_mod


def test_cardinal_sensitivity_is_the_exact_search_and_its_weight_shift():
    s = one_factor_board(6, m=10, n=4)
    a = audit(s, **QUICK)
    c = a.sections["cardinal_sensitivity"]
    r = bv.sensitivity.cardinal_sensitivity_exact(s, eps=c["eps"], method="boxes", work_limit=2_000_000)
    assert c["tau_distance"] == r.tau_distance and c["optimal"] == r.optimal == True  # noqa: E712
    assert c["n_pairs"] == 45 and c["n_flipped"] == round(r.tau_distance * 45)
    w = np.array([c["weights"][t] for t in s.columns])
    assert [c["weight_shift"][t] for t in s.columns] == pytest.approx(w / w.sum() - 1 / 4)
    # the named pairs are reversed by the weights shown, by brute-force recount of the weighted means
    means = pd.Series(s.to_numpy() @ w / w.sum(), index=s.index)
    plain = s.mean(axis=1)
    for above, below in c["flipped_examples"]:
        assert plain[below] > plain[above] and means[above] > means[below]
    said = [v["text"] for v in a.verdict if v["section"] == "cardinal_sensitivity"]
    assert len(said) == 1 and "reverses" in said[0]
    page = a.to_html()
    assert 'data-kind="label-noise"' in page and "cardinal-shift" in page


def test_cardinal_sensitivity_scoped_to_the_best_models(monkeypatch):
    s = one_factor_board(7, m=14, n=3)
    monkeypatch.setattr(card_mod, "SCOPE_MODELS", 8)
    a = audit(s, **QUICK)
    c = a.sections["cardinal_sensitivity"]
    best = s.mean(axis=1).sort_values(ascending=False, kind="stable").index[:8]
    assert sorted(c["models"]) == sorted(best) and c["n_models"] == 14 and "8 best of the 14" in c["scope"]
    sub = s.loc[[m for m in s.index if m in set(best)]]
    r = bv.sensitivity.cardinal_sensitivity_exact(sub, eps=c["eps"], method="boxes", work_limit=2_000_000)
    assert c["tau_distance"] == r.tau_distance and c["n_pairs"] == 28
