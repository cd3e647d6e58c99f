"""benchvote.audit._charts: short names that stay distinct, labels that do not overlap."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.parametrize("n_names", [5, 60, 500])
def test_short_names_stay_distinct_and_charts_do_not_overlap_their_labels(n_names):
    from benchvote.audit import _charts

    rng = np.random.default_rng(n_names)
    names = [
        f"organisation-{k % 7}/very-long-model-name-{k // 7}-instruct-{rng.integers(1000)}" for k in range(n_names)
    ]
    short = _charts.short_names(names, 24)
    assert len(set(short.values())) == len(names)
    bars = _charts.hbars(list(rng.normal(size=min(n_names, 60))), names[:60], "t", "d", "weight", signed=True)
    assert not _charts.overlapping(bars.labels) and not _charts.overlapping(bars.ticks, font=10)
    assert len({lab.text for lab in bars.labels}) == len(bars.labels)
    order = names
    ranks = {m: k + 1.0 for k, m in enumerate(order)}
    iv = _charts.intervals(
        order, {m: max(1.0, r - 3) for m, r in ranks.items()}, {m: r + 3 for m, r in ranks.items()}, ranks, 0.95
    )
    assert iv.shown == min(40, n_names) and iv.total == n_names
    assert not _charts.overlapping(iv.labels) and not _charts.overlapping(iv.ticks, font=10)
    k = min(n_names, 60)
    heat = _charts.heatmap(np.eye(k), names[:k], "t", "d")
    assert not _charts.overlapping(heat.row_labels, font=10) and not _charts.overlapping(heat.col_labels, font=9)
