"""benchvote.audit.sections.head_to_head: the head-to-head counts, missing cells included."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from audit_support import QUICK, one_factor_board, order

from benchvote.audit import audit


def test_head_to_head_counts_by_brute_force_with_missing_cells():
    s = one_factor_board(10, m=9, n=6, digits=1)
    s.iloc[0, 1] = s.iloc[2, 3] = np.nan
    hib = [True, True, False, True, True, True]
    a = audit(s, hib, top_models=3, **QUICK)
    h = a.sections["head_to_head"]
    assert h["models"] == order(a)[:6]  # at least six
    sign = np.where(hib, 1.0, -1.0)
    for x, y in itertools.permutations(h["models"], 2):
        dx, dy = s.loc[x].to_numpy() * sign, s.loc[y].to_numpy() * sign
        both = ~np.isnan(dx) & ~np.isnan(dy)
        assert h["wins"][x][y] == int((dx[both] > dy[both] + 1e-9).sum()), (x, y)
        assert h["ties"][x][y] == int((np.abs(dx[both] - dy[both]) <= 1e-9).sum())
        assert h["compared"][x][y] == int(both.sum())
        assert h["win_share"][x][y] == pytest.approx(h["wins"][x][y] / both.sum())
    lead = h["models"][0]
    assert h["leader_loses_to"] == [y for y in h["models"][1:] if h["wins"][lead][y] < h["wins"][y][lead]]
