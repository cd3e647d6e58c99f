"""benchvote.audit.sections.rankings: the rules' rankings, Kemeny on small tables, undefined measures."""

from __future__ import annotations

import pytest
from audit_support import FAST, normal_board

from benchvote.audit import audit


def test_kemeny_joins_the_rules_on_small_tables_and_distances_are_symmetric():
    a = audit(normal_board(m=6), **FAST)
    r = a.sections["rankings"]
    assert "kemeny" in r["rules"]
    names = list(r["kendall_distance"])
    for x in names:
        assert r["kendall_distance"][x][x] == 0
        for y in names:
            assert r["kendall_distance"][x][y] == r["kendall_distance"][y][x]


def test_an_undefined_measure_says_why_instead_of_stopping_the_audit():
    s = normal_board(seed=5, m=5)
    s.iloc[0] = s.max().to_numpy() + 1  # model 0 wins everything: Bradley-Terry has no finite ratings
    a = audit(s, **FAST)
    assert "undefined" in a.sections["rankings"]["rules"]["bradley_terry"]
    assert "not strongly connected" in a.sections["rankings"]["rules"]["bradley_terry"]["undefined"]
    with pytest.raises(ValueError, match="primary rule bradley_terry is undefined"):
        audit(s, primary="bradley_terry", **FAST)
