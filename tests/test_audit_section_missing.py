"""benchvote.audit.sections.missing: rankings that use every score (partial Borda, Hoeffding's pairs)."""

from __future__ import annotations

import itertools
import math

import pytest
from audit_support import FAST, rounded_board

import benchvote as bv
from benchvote.audit import audit


def test_missing_ranks_every_model_and_decides_pairs_by_hoeffding():
    s = rounded_board(seed=8, m=7, n=6, missing=5)
    x = audit(s, **FAST).sections["missing"]
    assert set(x["ranking"]) == set(s.index) and x["n_models"] == 7
    pb = bv.missing.partial_borda(s)
    assert x["partial_borda"] == pytest.approx({k: float(v) for k, v in pb.items()})
    decided = 0
    for a, b in itertools.combinations(s.index, 2):
        both = s.loc[[a, b]].dropna(axis=1)
        z = both.shape[1]
        share = ((both.loc[a] > both.loc[b]).sum() + 0.5 * (both.loc[a] == both.loc[b]).sum()) / z
        decided += abs(share - 0.5) > math.sqrt(-math.log(0.05) / (2 * z))
    assert x["decided_pairs"] == decided and x["n_pairs"] == 21 and x["scope"] == "every pair of models"
    assert "missing" not in audit(rounded_board(seed=8), **FAST).sections
