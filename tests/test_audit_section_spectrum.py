"""benchvote.audit.sections.spectrum: the singular values of the z-scored complete part."""

from __future__ import annotations

import numpy as np
import pytest
from audit_support import FAST, rounded_board

from benchvote.audit import audit


def test_the_spectrum_is_the_svd_of_the_z_scored_complete_part():
    s = rounded_board(seed=7, missing=2)
    a = audit(s, [True, True, False, True, True], **FAST)
    part = s.dropna()
    hib = [True, True, False, True, True]
    z = part.to_numpy() * np.where(hib, 1.0, -1.0)
    z = (z - z.mean(axis=0)) / z.std(axis=0)
    sv = np.linalg.svd(z, compute_uv=False)
    sp = a.sections["spectrum"]
    assert sp["explained"] == pytest.approx((sv**2 / (sv**2).sum()).tolist())
    assert sp["components_90"] == int(np.argmax(np.cumsum(sv**2) / (sv**2).sum() >= 0.9 - 1e-12) + 1)
