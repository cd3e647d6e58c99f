"""benchvote.audit.sections.groups: each group of tasks ranked alone."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from audit_support import QUICK, one_factor_board

import benchvote as bv
from benchvote.audit import audit


def test_groups_rank_each_group_alone():
    s = one_factor_board(11, m=10, n=6)
    groups = {"task 0": "A", "task 1": "A", "task 2": "B", "task 3": "B", "task 4": "B", "task 5": "C"}
    a = audit(s, groups=groups, primary="borda", **QUICK)
    g = a.sections["groups"]
    overall = bv.rank(np.asarray(bv.borda(s)))
    for e in g["groups"]:
        tasks = [t for t, v in groups.items() if v == e["group"]]
        ranks = bv.rank(np.asarray(bv.borda(s[tasks])))
        order = list(s.index[np.argsort(ranks, kind="stable")])
        assert e["tasks"] == tasks and e["top"] == order[:5]
        pairs = list(itertools.combinations(range(len(s)), 2))
        flips = sum((overall[i] - overall[j]) * (ranks[i] - ranks[j]) < 0 for i, j in pairs)
        assert e["tau_distance"] == pytest.approx(flips / len(pairs))
        lead = list(s.index).index(g["leader"])
        assert e["leader_rank"] == ranks[lead] and e["leader_first"] == (ranks[lead] == 1.0)
    assert [e["group"] for e in g["groups"]] == ["A", "B"]
    assert [x["group"] for x in g["skipped"]] == ["C"]
    assert "groups" not in audit(s, **QUICK).sections
