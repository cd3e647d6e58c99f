"""benchvote.audit.sections.instance_intervals: the bootstrap over the instances of each task."""

from __future__ import annotations

from audit_support import FAST, instance_scores

import benchvote as bv
from benchvote.audit import audit


def test_instance_intervals_are_the_library_instance_bootstrap():
    scores, long = instance_scores([f"m{i}" for i in range(6)])
    a = audit(scores, instances=long, seed=5, **FAST)
    iv = bv.intervals.instance_rank_intervals(long, n_boot=100, seed=5)
    x = a.sections["instance_intervals"]
    assert x["lower"] == {k: float(v) for k, v in iv.lower.items()}
    assert x["upper"] == {k: float(v) for k, v in iv.upper.items()}
    assert x["inseparable"] == [list(p) for p in iv.inseparable] and x["tasks"] == ["t0", "t1", "t2"]
    assert "instance_intervals" not in audit(scores, **FAST).sections
