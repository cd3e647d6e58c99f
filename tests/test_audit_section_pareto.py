"""benchvote.audit.sections.pareto: the quality-cost front and the costs kept out of the aggregation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from audit_support import FAST, HOSTILE, RTL, rounded_board, section_html
from test_ranking import _front_oracle

from benchvote.audit import AuditInputError, _charts, audit


def _front_brute(q: np.ndarray, c: np.ndarray) -> list[bool]:
    out = []
    for i in range(len(q)):
        dominated = any(
            q[j] >= q[i] and (c[j] <= c[i]).all() and (q[j] > q[i] or (c[j] < c[i]).any())
            for j in range(len(q)) if j != i
        )  # fmt: skip
        out.append(not dominated)
    return out


def test_the_front_is_the_brute_force_front_of_the_primary_scores_and_the_costs():
    rng = np.random.default_rng(3)
    s = rounded_board(seed=10, m=12, n=4)
    s["params"] = np.round(rng.lognormal(3, 2, 12), 1)
    s["flops"] = np.round(rng.lognormal(5, 1, 12), 1)
    a = audit(s, costs=["params", "flops"], **FAST)
    p = a.sections["pareto"]
    q = a.sections["rankings"]["rules"]["mean_win_rate"]["scores"]
    models = list(q)
    on = _front_brute(np.array([q[m] for m in models]), s.loc[models, ["params", "flops"]].to_numpy())
    assert {e["model"] for e in p["front"]} == {m for m, f in zip(models, on) if f}
    assert {e["model"] for e in p["dominated"]} == {m for m, f in zip(models, on) if not f}
    assert p["n_compared"] == 12 and p["costs"] == ["params", "flops"]
    assert "pareto-fig" not in section_html(a.to_html(), "pareto")  # two costs: no plane to draw


def test_the_front_figure_draws_every_compared_model_with_distinct_labels():
    s = rounded_board(seed=11, m=10, n=3)
    s.index = [HOSTILE, RTL, *s.index[2:]]
    s["params_M"] = [1.0, 3.0, 7.0, 13.0, 34.0, 70.0, 150.0, 300.0, 700.0, 1500.0]
    a = audit(s, costs="params_M", **FAST)
    part = section_html(a.to_html(), "pareto")
    p = a.sections["pareto"]
    assert part.count("<circle") == p["n_compared"] + 2  # the dots and the two of the legend
    assert "params_M (log scale), lower is better" in part and "Figure:" in part
    assert HOSTILE not in part and "&lt;b&gt;&amp;" in part
    chart, _ = __import__("benchvote.audit.sections.pareto", fromlist=["chart_of"]).chart_of(
        a.to_dict()["sections"]["pareto"]
    )
    assert not _charts.overlapping(chart.labels) and len({lab.text for lab in chart.labels}) == len(chart.labels)


def _sizes() -> pd.DataFrame:
    """The issue's table: with params_M as a lower-is-better task, the smallest model wins the mean score."""
    return pd.DataFrame(
        {
            "acc": [0.30, 0.50, 0.65, 0.80, 0.60, 0.45],
            "f1": [0.25, 0.45, 0.60, 0.78, 0.55, 0.40],
            "mmlu": [0.28, 0.48, 0.62, 0.79, 0.58, 0.47],
            "params_M": [1.5, 7.0, 13.0, 70.0, 70.0, 13.0],
        },
        index=["tiny", "small", "medium", "large", "bloated", "also-ran"],
    )


def test_costs_leave_every_aggregation_and_give_the_front():
    s = _sizes()
    hib = [True, True, True, False]
    raw = audit(s, hib, **FAST)
    assert raw.sections["rankings"]["rules"]["mean_score"]["ranks"]["tiny"] == 1.0
    assert "params_M" in raw.sections["spectrum"]["pc1_loadings"]
    a = audit(s, hib, costs=["params_M"], **FAST)
    alone = audit(s.drop(columns="params_M"), **FAST)  # what the quality tasks say without the cost column
    ours, theirs = a.to_dict()["sections"], alone.to_dict()["sections"]
    for name in ("rankings", "diversity", "intervals", "possible_winners", "cardinal_sensitivity", "spectrum"):
        assert ours[name] == theirs[name], name
    assert a.sections["table"]["cost_columns"] == ["params_M"] == a.settings["costs"]
    assert "params_M" not in a.sections["table"]["measured_tasks"]
    assert a.sections["rankings"]["rules"]["mean_score"]["ranks"]["large"] == 1.0
    p = a.sections["pareto"]
    assert [e["model"] for e in p["front"]] == ["large", "medium", "small", "tiny"]
    assert [e["model"] for e in p["dominated"]] == ["bloated", "also-ran"]
    quality = a.sections["rankings"]["rules"]["mean_score"]["scores"]
    assert all(e["quality"] == quality[e["model"]] for e in p["front"] + p["dominated"])
    assert [e["costs"] for e in p["front"]] == [[70.0], [13.0], [7.0], [1.5]]
    oracle = _front_oracle(np.array([quality[m] for m in s.index]), s[["params_M"]].to_numpy())
    assert {e["model"] for e in p["front"]} == set(s.index[oracle])
    assert p["quality_rule"] == "mean_score" and p["costs"] == ["params_M"]
    # a cost is lower-is-better whatever direction it was given
    again = audit(s, [True, True, True, True], costs="params_M", **FAST).sections["pareto"]
    assert again == p


def test_models_with_a_missing_cost_or_quality_are_listed_apart():
    s = _sizes()
    s["gflops"] = [2.0, 9.0, 20.0, 100.0, 80.0, 25.0]
    s.loc["small", "params_M"] = np.nan
    s.loc["bloated", "acc"] = np.nan  # left out of the complete part: no quality score
    p = audit(s, costs=["params_M", "gflops"], **FAST).sections["pareto"]
    assert [e["model"] for e in p["missing_cost"]] == ["small"] and p["missing_cost"][0]["costs"] == [None, 9.0]
    assert [e["model"] for e in p["no_quality"]] == ["bloated"] and p["no_quality"][0]["quality"] is None
    assert [e["model"] for e in p["front"]] == ["large", "medium", "tiny"] and p["n_compared"] == 4
    assert [e["model"] for e in p["dominated"]] == ["also-ran"]


def test_bad_costs_are_input_errors():
    with pytest.raises(AuditInputError, match=r"costs name unknown column: gflops \(columns: acc, f1"):
        audit(_sizes(), costs=["params_M", "gflops"])
    with pytest.raises(AuditInputError, match="needs two tasks besides the cost column"):
        audit(_sizes(), costs=["params_M", "acc", "f1"])
