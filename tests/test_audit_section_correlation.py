"""benchvote.audit.sections.correlation: Kendall's tau-b between tasks, its counts, heatmap, summary and work budget."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from audit_support import FAST, rounded_board, section_html
from scipy import stats

from benchvote.audit import audit


def test_task_correlations_are_scipy_kendall_tau_b_in_each_tasks_direction():
    s = rounded_board(seed=5, m=11, n=5).round(1)  # ties, so tau-b differs from tau-a
    hib = [True, False, True, False, True]
    x = audit(s, hib, **FAST).sections["correlation"]
    sign = np.where(hib, 1.0, -1.0)
    n = s.shape[1]
    for i, j in itertools.product(range(n), repeat=2):
        tau = stats.kendalltau(s.iloc[:, i] * sign[i], s.iloc[:, j] * sign[j]).statistic
        assert x["matrix"][i][j] == pytest.approx(tau, abs=1e-12)
    pairs = sorted(
        (stats.kendalltau(s.iloc[:, i] * sign[i], s.iloc[:, j] * sign[j]).statistic, i, j)
        for i, j in itertools.combinations(range(n), 2)
    )
    assert x["most_correlated"][0]["tau"] == pytest.approx(pairs[-1][0])
    assert x["least_correlated"][0]["tau"] == pytest.approx(pairs[0][0])
    assert x["mean_tau"] == pytest.approx(np.mean([p[0] for p in pairs]))
    assert x["method"] == "kendall_tau_b" and x["tasks"] == list(s.columns)


def test_the_correlation_heatmap_numbers_its_columns_and_gives_way_to_a_summary_beyond_60_tasks():
    s = rounded_board(seed=6, m=8, n=4)
    part = section_html(audit(s, **FAST).to_html(), "correlation")
    assert "Figure:" in part and 'class="cell"' in part and "1. task 0" in part
    wide = pd.DataFrame(np.random.default_rng(0).random((6, 62)), columns=[f"c{k}" for k in range(62)])
    part = section_html(audit(wide, n_boot=10, time_limit=60).to_html(), "correlation")
    assert "<svg" not in part and "is summarised" in part and "pairs left out" in part
    x = audit(wide, n_boot=10, time_limit=60).sections["correlation"]
    assert x["summarised"] and x["matrix"] is None and x["n_pairs"] == 62 * 61 // 2
    assert sum(b["pairs"] for b in x["distribution"]) + x["n_undefined"] == x["n_pairs"]


def test_the_correlation_counts_are_the_sign_matrix_product_without_the_sign_matrix():
    from benchvote.audit.sections.correlation import sign_products

    rng = np.random.default_rng(41)
    for _ in range(60):  # ties within and across tasks, one or two models, either direction
        m, n = int(rng.integers(1, 30)), int(rng.integers(1, 7))
        s = pd.DataFrame(rng.integers(0, int(rng.integers(1, 6)), size=(m, n)).astype(float))
        hib = pd.Series(rng.random(n) < 0.5, index=s.columns)
        oriented = np.where(hib, 1.0, -1.0) * s.to_numpy()
        a, b = np.triu_indices(m, k=1)
        signs = np.sign(oriented[a] - oriented[b])  # the m (m - 1) / 2 x n matrix the section never builds
        got = sign_products(s, hib, 1e-9)
        assert got.dtype == np.int64 and np.array_equal(got, (signs.T @ signs).astype(np.int64))


def test_the_summary_of_a_wide_correlation_matrix_is_exact_against_scipy_kendall_tau_b():
    s = rounded_board(seed=8, m=7, n=75).round(0)  # many ties, and tasks that tie every model drop out of the part
    s.iloc[:, 3] = s.iloc[:, 4]  # one pair of tasks exactly alike
    x = audit(s, **FAST).sections["correlation"]
    part = s.loc[:, s.nunique() > 1]
    pairs = sorted(
        (stats.kendalltau(part.iloc[:, i], part.iloc[:, j]).statistic, i, j)
        for i, j in itertools.combinations(range(part.shape[1]), 2)
    )
    taus = np.array([p[0] for p in pairs])
    assert x["summarised"] and x["n_tasks"] == part.shape[1] and x["n_pairs"] == len(pairs)
    assert x["mean_tau"] == pytest.approx(np.nanmean(taus), abs=1e-12)
    edges, finite = np.round(np.linspace(-1, 1, 21), 10), np.round(taus[np.isfinite(taus)], 12)
    assert [b["pairs"] for b in x["distribution"]] == np.histogram(finite, bins=edges)[0].tolist()
    assert x["most_correlated"][0]["tau"] == pytest.approx(1.0) and x["most_correlated"][0]["tasks"] == [
        "task 3",
        "task 4",
    ]
    assert x["least_correlated"][0]["tau"] == pytest.approx(np.nanmin(taus))
    listed = [p["tau"] for p in x["pairs_listed"]]
    assert listed == sorted(listed, reverse=True) and len(listed) + x["pairs_left_out"] == len(pairs)
    assert listed[:5] == pytest.approx(sorted(taus, reverse=True)[:5])
    # nothing depends on the order of the rows
    shuffled = audit(s.iloc[::-1], **FAST).sections["correlation"]
    assert json.dumps(shuffled, sort_keys=True) == json.dumps(x, sort_keys=True)


def test_correlation_beyond_the_work_budget_is_scoped_to_the_first_tasks_by_name(monkeypatch):
    from benchvote.audit.sections import correlation as corr_mod

    s = rounded_board(seed=9, m=6, n=12)
    monkeypatch.setattr(corr_mod, "WORK_BUDGET", 15 * 28)  # 15 pairs of models: 8 tasks fit
    x = audit(s, **FAST).sections["correlation"]
    assert x["n_tasks_measured"] == 8 and x["n_tasks"] == 12 and "work budget" in x["scope"]
    assert x["tasks"] == sorted(s.columns)[:8]
