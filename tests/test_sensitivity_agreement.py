"""benchvote.sensitivity.agreement: subset agreement against ranking every subset, the fit against least squares."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

import benchvote as bv
from benchvote.sensitivity import no_intercept_fit, subset_agreement


def test_subset_agreement_brute_force():
    rng = np.random.default_rng(0)
    s = rng.normal(size=(6, 4))
    full = bv.rank(s.mean(axis=1))
    table = subset_agreement(s, sizes=[1, 2], samples=100)
    for size in (1, 2):
        taus = [
            bv.kendall_tau_distance(full, bv.rank(s[:, list(c)].mean(axis=1))) for c in combinations(range(4), size)
        ]
        assert table.loc[size, "min_tau_distance"] == pytest.approx(min(taus))
        assert table.loc[size, "subsets"] == len(taus)
    with pytest.raises(ValueError, match="sizes"):
        subset_agreement(s, sizes=[5])


@pytest.mark.parametrize(("name", "kind"), [("SuperGLUE", "cardinal"), ("HELM-efficiency", "ordinal")])
def test_subset_agreement_equals_ranking_every_subset_one_at_a_time(name, kind):
    """All subsets of a size are ranked in one call; every number equals ranking each subset on its own (exactly)."""
    board = bv.data.load(name)
    s, hib = board.scores, board.higher_is_better
    score = (lambda t: t.mean(axis=1)) if kind == "cardinal" else (lambda t: bv.mean_win_rate(t, hib[t.columns]))
    full = bv.rank(score(s))
    table = subset_agreement(s, hib, sizes=[1, 2], kind=kind, samples=200)
    for size in (1, 2):
        ranks = []
        for c in combinations(range(s.shape[1]), size):
            try:
                ranks.append(bv.rank(score(s.iloc[:, list(c)])))
            except ValueError:  # a model with no score, or two models sharing none, in this subset: skipped
                pass
        assert table.loc[size, "subsets"] == len(ranks)
        taus = [bv.kendall_tau_distance(full, r) for r in ranks]
        assert table.loc[size, "min_tau_distance"] == min(taus)
        assert table.loc[size, "median_tau_distance"] == float(np.median(taus))
        assert table.loc[size, "min_mrc"] == min(bv.max_rank_change(full, r) for r in ranks)


def test_no_intercept_fit_against_lstsq():
    rng = np.random.default_rng(2)
    x, y = rng.random(20), rng.random(20)
    slope, r = no_intercept_fit(x, y)
    assert slope == pytest.approx(np.linalg.lstsq(x[:, None], y, rcond=None)[0][0])
    assert r == pytest.approx(np.corrcoef(x, y)[0, 1])
    with pytest.raises(ValueError):
        no_intercept_fit([1.0, 2.0], [1.0, 2.0])


def test_subset_agreement_ordinal_matches_direct_win_rates():
    rng = np.random.default_rng(3)
    s = rng.integers(0, 4, size=(7, 5)).astype(float)
    s[0, 1] = np.nan
    full = bv.rank(bv.mean_win_rate(s))
    table = subset_agreement(s, sizes=[2, 3], kind="ordinal", samples=100)
    for size in (2, 3):
        taus = []
        for c in combinations(range(5), size):
            try:
                taus.append(bv.kendall_tau_distance(full, bv.rank(bv.mean_win_rate(s[:, list(c)]))))
            except ValueError:
                pass
        assert table.loc[size, "min_tau_distance"] == pytest.approx(min(taus))
        assert table.loc[size, "subsets"] == len(taus)
