"""benchvote.audit.sections: each section against an independent oracle (the library called directly, brute force).

Part A: pareto, diversity, correlation, intervals, instance intervals, missing, domains, spectrum.
Part B: head to head, possible winners, cardinal and ordinal sensitivity, groups.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from markupsafe import escape
from scipy import stats

import benchvote as bv
from benchvote.audit import SECTIONS, _charts, audit
from benchvote.audit._rules import Cardinal, audit_rules
from benchvote.audit.sections import cardinal_sensitivity as card_mod
from benchvote.audit.sections import intervals as intervals_module
from benchvote.audit.sections import ordinal_sensitivity as ord_mod
from benchvote.audit.sections import possible_winners as pw_mod

FAST = dict(n_boot=100, time_limit=60)
MINE = ("pareto", "diversity", "correlation", "intervals", "instance_intervals", "missing", "domains", "spectrum")
HOSTILE = "<b>&\"'x</b>"
RTL = "\u202emodel"


def _board(seed: int = 0, m: int = 9, n: int = 5, missing: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = pd.DataFrame(
        np.round(rng.normal(size=(m, n)) + np.linspace(1, 0, m)[:, None], 2),
        index=[f"model {i}" for i in range(m)],
        columns=[f"task {k}" for k in range(n)],
    )
    for i, k in zip(rng.choice(m, missing, replace=False), rng.integers(0, n, missing)):
        s.iloc[i, k] = np.nan
    return s


def _instances(models: list[str], seed: int = 8) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    rows = [
        (m, f"t{k}", q, float(rng.random() < 0.2 + 0.08 * i + 0.05 * k))
        for i, m in enumerate(models)
        for k in range(3)
        for q in range(30)
    ]
    long = pd.DataFrame(rows, columns=["model", "task", "instance", "score"])
    return bv.intervals.instance_table(long)[0], long


def _section_html(page: str, name: str) -> str:
    return re.search(rf"<section[^>]*id=.{name}.*?</section>", page, re.S).group(0)


# --------------------------------------------------------------------------- intervals


@pytest.mark.parametrize(
    "primary, normalize",
    [
        ("mean_win_rate", "none"),
        ("helm_win_rate", "none"),
        ("mean_score", "zscore"),
        ("mean_score", "rank"),
        ("borda", "none"),
        ("copeland", "none"),
    ],  # fmt: skip
)
def test_intervals_are_the_library_bootstrap_over_tasks(primary, normalize):
    s = _board(seed=1, m=12)
    hib = [True, False, True, True, False]
    a = audit(s, hib, primary=primary, normalize=normalize, seed=3, **FAST)
    rule = audit_rules(Cardinal(normalize, 1e-9))[primary].fn
    iv = bv.intervals.rank_intervals(s, hib, rule=rule, n_boot=100, seed=3)
    x = a.sections["intervals"]
    assert x["lower"] == {k: float(v) for k, v in iv.lower.items()}
    assert x["upper"] == {k: float(v) for k, v in iv.upper.items()}
    assert x["ranks"] == {k: float(v) for k, v in iv.ranks.items()}
    assert sorted(map(sorted, x["inseparable"])) == sorted(map(sorted, iv.inseparable))  # a set of pairs
    order = a.sections["rankings"]["ranking"]
    pairs = {frozenset(p) for p in iv.inseparable}
    assert x["adjacent_inseparable"] == sum(frozenset(p) in pairs for p in zip(order, order[1:]))
    assert x["n_pairs"] == 12 * 11 // 2 and x["n_adjacent"] == 11 and x["scope"].startswith("all 12 models")


def test_interval_pairs_are_scoped_to_the_top_models_and_every_interval_stays_exact(monkeypatch):
    monkeypatch.setattr(intervals_module, "MAX_PAIR_MODELS", 4)
    s = _board(seed=2, m=10)
    a = audit(s, seed=1, primary="mean_win_rate", **FAST)
    iv = bv.intervals.rank_intervals(s, n_boot=100, seed=1)
    x, order = a.sections["intervals"], a.sections["rankings"]["ranking"]
    assert x["lower"] == {k: float(v) for k, v in iv.lower.items()}  # every model keeps its interval
    top = set(order[:4])
    assert sorted(map(sorted, x["inseparable"])) == sorted(sorted(p) for p in iv.inseparable if set(p) <= top)
    pairs = {frozenset(p) for p in iv.inseparable}
    assert x["adjacent_inseparable"] == sum(frozenset(p) in pairs for p in zip(order, order[1:]))
    assert x["n_pairs"] == 6 and "top 4 models" in x["scope"]


def test_a_rule_that_does_not_add_up_is_bootstrapped_on_the_top_models_and_says_so(monkeypatch):
    monkeypatch.setattr(intervals_module, "SCOPED_CELLS", 5 * 5 * 5)  # five models of five tasks
    s = _board(seed=3, m=9)
    a = audit(s, primary="copeland", seed=4, **FAST)
    top = a.sections["rankings"]["ranking"][:5]
    iv = bv.intervals.rank_intervals(s.loc[top], rule=bv.rules.RULES["copeland"].fn, n_boot=100, seed=4)
    x = a.sections["intervals"]
    assert x["upper"] == {k: float(v) for k, v in iv.upper.items()}
    assert "the top 5 of the 9 models" in x["scope"] and x["n_adjacent"] == 4


def test_the_interval_figure_shows_the_first_40_and_the_verdict_states_the_leader():
    s = _board(seed=4, m=45, n=4)
    a = audit(s, n_boot=30, time_limit=60)
    x = a.sections["intervals"]
    lead = a.sections["rankings"]["ranking"][0]
    sentence = [v["text"] for v in a.verdict if v["section"] == "intervals"][0]
    separable = 44 - x["adjacent_inseparable"]
    assert sentence == (
        f"The first model, {lead}, has the 95% rank interval [{x['lower'][lead]:g}, {x['upper'][lead]:g}]; "
        f"{separable} of the 44 adjacent places {'is' if separable == 1 else 'are'} separable "
        "(but these task-bootstrap intervals rest on only 4 tasks, 35 possible redraws: a rough guide)."
    )
    part = _section_html(a.to_html(), "intervals")
    assert "first 40 of 45 models" in part
    assert part.count("<line") - part.count('class="grid"') == 40  # one interval line per drawn model


def test_instance_intervals_are_the_library_instance_bootstrap():
    scores, long = _instances([f"m{i}" for i in range(6)])
    a = audit(scores, instances=long, seed=5, **FAST)
    iv = bv.intervals.instance_rank_intervals(long, n_boot=100, seed=5)
    x = a.sections["instance_intervals"]
    assert x["lower"] == {k: float(v) for k, v in iv.lower.items()}
    assert x["upper"] == {k: float(v) for k, v in iv.upper.items()}
    assert x["inseparable"] == [list(p) for p in iv.inseparable] and x["tasks"] == ["t0", "t1", "t2"]
    assert "instance_intervals" not in audit(scores, **FAST).sections


# --------------------------------------------------------------------------- correlation, diversity, spectrum


def test_task_correlations_are_scipy_kendall_tau_b_in_each_tasks_direction():
    s = _board(seed=5, m=11, n=5).round(1)  # ties, so tau-b differs from tau-a
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
    s = _board(seed=6, m=8, n=4)
    part = _section_html(audit(s, **FAST).to_html(), "correlation")
    assert "Figure:" in part and 'class="cell"' in part and "1. task 0" in part
    wide = pd.DataFrame(np.random.default_rng(0).random((6, 62)), columns=[f"c{k}" for k in range(62)])
    part = _section_html(audit(wide, n_boot=10, time_limit=60).to_html(), "correlation")
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
    s = _board(seed=8, m=7, n=75).round(0)  # many ties, and tasks that tie every model drop out of the part
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

    s = _board(seed=9, m=6, n=12)
    monkeypatch.setattr(corr_mod, "WORK_BUDGET", 15 * 28)  # 15 pairs of models: 8 tasks fit
    x = audit(s, **FAST).sections["correlation"]
    assert x["n_tasks_measured"] == 8 and x["n_tasks"] == 12 and "work budget" in x["scope"]
    assert x["tasks"] == sorted(s.columns)[:8]


def test_diversity_and_spectrum_are_the_library_measures_on_the_complete_part():
    s = _board(seed=7, missing=2)
    a = audit(s, [True, True, False, True, True], **FAST)
    part = s.dropna()
    hib = [True, True, False, True, True]
    d = bv.concordance.diversity(part, hib)
    x = a.sections["diversity"]
    assert (x["kendall_w"], x["diversity"], x["mean_pairwise_mrc"]) == pytest.approx(
        (d.w, d.diversity, d.mean_pairwise_mrc)
    )
    assert x["n_models"] == len(part)
    z = part.to_numpy() * np.where(hib, 1.0, -1.0)
    z = (z - z.mean(axis=0)) / z.std(axis=0)
    sv = np.linalg.svd(z, compute_uv=False)
    sp = a.sections["spectrum"]
    assert sp["explained"] == pytest.approx((sv**2 / (sv**2).sum()).tolist())
    assert sp["components_90"] == int(np.argmax(np.cumsum(sv**2) / (sv**2).sum() >= 0.9 - 1e-12) + 1)


# --------------------------------------------------------------------------- missing, domains


def test_missing_ranks_every_model_and_decides_pairs_by_hoeffding():
    s = _board(seed=8, m=7, n=6, missing=5)
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
    assert "missing" not in audit(_board(seed=8), **FAST).sections


def test_domains_are_the_library_report_on_the_top_models():
    s = _board(seed=9, m=8)
    a = audit(s, top_models=5, **FAST)
    x = a.sections["domains"]
    top = a.sections["rankings"]["ranking"][:5]
    assert x["models"] == top
    rep = bv.domains.domain_report(bv.domains.rankings_from_scores(s.loc[top]))
    assert (x["single_peaked"], x["group_separable"], x["majority_transitive"]) == (
        rep.single_peaked, rep.group_separable, rep.majority_transitive,
    )  # fmt: skip
    assert x["distance_degree"] == rep.distance_degree
    k = bv.voting.kemeny(s.loc[top])
    assert x["kemeny_ranking"] == list(s.loc[top].index[np.argsort(np.asarray(k.ranks), kind="stable")])


# --------------------------------------------------------------------------- pareto


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
    s = _board(seed=10, m=12, n=4)
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
    assert "pareto-fig" not in _section_html(a.to_html(), "pareto")  # two costs: no plane to draw


def test_the_front_figure_draws_every_compared_model_with_distinct_labels():
    s = _board(seed=11, m=10, n=3)
    s.index = [HOSTILE, RTL, *s.index[2:]]
    s["params_M"] = [1.0, 3.0, 7.0, 13.0, 34.0, 70.0, 150.0, 300.0, 700.0, 1500.0]
    a = audit(s, costs="params_M", **FAST)
    part = _section_html(a.to_html(), "pareto")
    p = a.sections["pareto"]
    assert part.count("<circle") == p["n_compared"] + 2  # the dots and the two of the legend
    assert "params_M (log scale), lower is better" in part and "Figure:" in part
    assert HOSTILE not in part and "&lt;b&gt;&amp;" in part
    chart, _ = __import__("benchvote.audit.sections.pareto", fromlist=["chart_of"]).chart_of(
        a.to_dict()["sections"]["pareto"]
    )
    assert not _charts.overlapping(chart.labels) and len({lab.text for lab in chart.labels}) == len(chart.labels)


# --------------------------------------------------------------------------- every section of this file


def test_the_sections_hold_exactly_their_typed_fields_and_escape_every_name():
    scores, long = _instances([HOSTILE, RTL, "m2", "m3", "m4", "m5"])
    scores.loc["m2", "t0"] = np.nan
    scores["flat"] = 0.5
    scores["params_M"] = [1.0, 3.0, 7.0, 13.0, 34.0, 70.0]
    a = audit(scores, instances=long, costs=["params_M"], **FAST)
    page = a.to_html()
    for name in MINE:
        sec = a.sections[name]
        assert sec["status"] == "ok", (name, sec.get("reason"))
        typed = set(SECTIONS[name].result.__annotations__)
        assert set(sec) - {"title", "about", "chapter", "cost", "status"} == typed, name
        part = _section_html(page, name)
        assert f"Cost (m models, n tasks): {escape(SECTIONS[name].cost)}." in part, name
        assert HOSTILE not in part and "<b>&" not in part, name
        assert all(c.startswith("Figure:") for c in re.findall(r"<figcaption>(.*?)</figcaption>", part, re.S)), name
    assert [e["model"] for e in a.sections["pareto"]["no_quality"]] == ["m2"]


# --------------------------------------------------------------------------- part B

FAST_B = dict(n_boot=50, time_limit=60)
MINE_B = ("head_to_head", "possible_winners", "cardinal_sensitivity", "ordinal_sensitivity", "groups")


def _board_b(seed: int = 0, m: int = 10, n: int = 5, digits: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = pd.DataFrame(
        (rng.normal(size=(m, 1)) + rng.normal(size=(m, n))).round(digits),
        index=[f"model {i}" for i in range(m)],
        columns=[f"task {k}" for k in range(n)],
    )
    return s


def _hostile(seed: int = 3) -> pd.DataFrame:
    s = _board_b(seed, m=12, n=6)
    s.index = ["<b>&\"'x</b>", "\u202eevil", *s.index[2:]]
    s.columns = ["<i>t</i>", *s.columns[1:]]
    s.iloc[3, 2] = np.nan
    s["flat"] = 1.0
    return s


def _order(a) -> list[str]:
    return a.sections["rankings"]["ranking"]


# --------------------------------------------------------------------------- every section


def test_fields_are_the_typed_results_and_the_page_escapes_names():
    s = _hostile()
    groups = {"<i>t</i>": "g<1>", "task 1": "g<1>", "task 2": "g2", "task 3": "g2", "task 4": "g2"}
    a = audit(s, groups=groups, **FAST_B)
    for name in MINE_B:
        fields = {k for k in a.sections[name] if k not in ("title", "about", "chapter", "cost", "status")}
        assert fields == set(SECTIONS[name].result.__annotations__), name
    json.loads(a.to_json())
    page = a.to_html()
    assert "<b>&" not in page and "<i>t</i>" not in page and "g<1>" not in page
    for name in MINE_B:
        body = re.search(f'<section id="{name}".*?</section>', page, re.S)
        assert body, name
    # the numbers the page states are the JSON's
    data = a.to_dict()["sections"]
    pattern = r'data-json="((?:possible_winners|cardinal_sensitivity|ordinal_sensitivity)\.[a-z_]+)">([^<]*)<'
    for key, shown in re.findall(pattern, page):
        name, field = key.split(".")
        value = data[name][field]
        if isinstance(value, float) and shown != "\u2013":
            assert float(shown) == pytest.approx(value, abs=0.0006, rel=1e-3), key


# --------------------------------------------------------------------------- possible winners


def _corners(n: int, eps: float) -> np.ndarray:
    return np.array(list(itertools.product([eps, 1.0], repeat=n)))


def test_unbeaten_models_match_the_definition_checked_at_every_corner():
    # a linear function's minimum over the box is at a corner: brute force over the 2^n corners
    rng = np.random.default_rng(4)
    x = rng.normal(size=(40, 4)).round(1) + rng.normal(size=(40, 1))
    eps, tol = 0.05, 1e-9
    corners = _corners(4, eps)
    s = x @ corners.T / corners.sum(axis=1)  # models x corners
    beaten = [any(((s[j] - s[i]) > tol).all() for j in range(len(x)) if j != i) for i in range(len(x))]
    assert pw_mod.unbeaten(x, eps, tol).tolist() == [i for i in range(len(x)) if not beaten[i]]


def test_possible_winners_are_the_library_s_in_rank_order():
    s = _board_b(1, m=12, n=4)
    a = audit(s, **FAST_B)
    pw = a.sections["possible_winners"]
    lib = bv.sensitivity.possible_winners(s, eps=pw["eps"])
    expected = [m for m in _order(a) if lib.possible[m]]
    assert pw["possible"] == expected and pw["not_examined"] == []
    ranks = bv.rank(np.asarray(bv.mean_win_rate(s)))
    assert [pw["ranks"][m] for m in expected] == [ranks[list(s.index).index(m)] for m in expected]
    for m in expected:  # the weights put the winner first, by brute-force recount
        w = np.array([pw["weights"][m][t] for t in s.columns])
        means = s.to_numpy() @ w / w.sum()
        assert means[list(s.index).index(m)] == means.max() and (means == means.max()).sum() == 1
    k = pw["k"]
    top = bv.sensitivity.possible_winners(s, k=k, eps=pw["eps"], work_limit=500)
    assert pw["top_k_possible"] == [m for m in _order(a) if top.possible[m]]


def test_possible_winners_lower_is_better_and_normalised():
    s = _board_b(2, m=9, n=4)
    hib = [True, False, True, True]
    a = audit(s, hib, normalize="zscore", **FAST_B)
    pw = a.sections["possible_winners"]
    z = bv.audit._rules.normalised(s, "zscore")
    lib = bv.sensitivity.possible_winners(z, hib, eps=pw["eps"])
    assert sorted(pw["possible"]) == sorted(s.index[lib.possible.to_numpy()])


def test_possible_winners_scoped_beyond_the_lp_limit_stay_sound(monkeypatch):
    rng = np.random.default_rng(5)  # independent tasks: many models nobody surely beats
    s = pd.DataFrame(rng.normal(size=(30, 4)).round(1), index=[f"m{i}" for i in range(30)], columns=list("abcd"))
    monkeypatch.setattr(pw_mod, "LP_MODELS", 4)
    budget = bv.audit.BUDGETS[bv.audit.DEFAULT_BUDGET]
    monkeypatch.setitem(bv.audit.BUDGETS, bv.audit.DEFAULT_BUDGET, dataclasses.replace(budget, top_k_models=6))
    a = audit(s, **FAST_B)
    pw = a.sections["possible_winners"]
    lib = bv.sensitivity.possible_winners(s, eps=pw["eps"])
    truth = set(s.index[lib.possible.to_numpy()])
    assert set(pw["possible"]) <= truth  # a confirmed winner is a winner
    assert pw["n_examined"] == 4 and "not examined" in pw["scope"]
    examined = set(pw["possible"]) | set(pw["undecided"])
    assert truth - set(pw["not_examined"]) <= examined  # no winner ruled out
    field = a.sections["possible_winners"]["top_k_models"]
    assert field == _order(a)[:6]
    top = bv.sensitivity.possible_winners(s.loc[field], k=pw["k"], eps=pw["eps"], work_limit=500)
    assert pw["top_k_possible"] == [m for m in field if top.possible[m]]


# --------------------------------------------------------------------------- cardinal sensitivity


def test_the_budget_level_sets_the_limits_and_is_named_in_the_report():
    """Issue 37: the exact parts' work limits are a named level (``budget``), recorded in the report's settings."""
    s = _board_b(3, m=14, n=4)
    quick = audit(s, budget="quick", **FAST_B)
    assert quick.settings["budget"] == "quick"
    assert quick.settings["budgets"] == bv.audit.BUDGETS["quick"].as_dict()
    limit = bv.audit.BUDGETS["quick"].top_k_models
    assert quick.sections["possible_winners"]["top_k_models"] == _order(quick)[:limit] and limit < 14
    assert f"limit {limit} at the quick budget" in quick.sections["possible_winners"]["top_k_scope"]
    assert audit(s, **FAST_B).settings["budget"] == bv.audit.DEFAULT_BUDGET == "standard"
    with pytest.raises(bv.audit.AuditInputError, match="unknown budget 'fast'; choose one of quick, standard"):
        audit(s, budget="fast", **FAST_B)


def test_the_coordinate_search_stops_at_its_budget_of_pair_steps():
    """Issue 37: ``work_limit`` of ``method="search"`` counts line searches times ordered pairs (it was ignored)."""
    rng = np.random.default_rng(8)
    s = pd.DataFrame(rng.normal(size=(25, 12)))
    search = bv.sensitivity.cardinal_sensitivity
    free = search(s, eps=0.05, method="search")
    assert not free.optimal  # the search does not end early on this table: the budget matters
    one = search(s, eps=0.05, method="search", work_limit=1)  # a single line search
    assert one.stopped == "work_limit" and one.n_flipped <= free.n_flipped
    ample = search(s, eps=0.05, method="search", work_limit=10**15)
    assert ample.n_flipped == free.n_flipped and np.array_equal(ample.weights, free.weights)
    some = [search(s, eps=0.05, method="search", work_limit=w).n_flipped for w in (300 * 20, 300 * 200, 300 * 2000)]
    assert some == sorted(some) and some[-1] <= free.n_flipped  # more work never finds less (the starts run in order)


def test_cardinal_sensitivity_is_the_exact_search_and_its_weight_shift():
    s = _board_b(6, m=10, n=4)
    a = audit(s, **FAST_B)
    c = a.sections["cardinal_sensitivity"]
    r = bv.sensitivity.cardinal_sensitivity_exact(s, eps=c["eps"], method="boxes", work_limit=2_000_000)
    assert c["tau_distance"] == r.tau_distance and c["optimal"] == r.optimal == True  # noqa: E712
    assert c["n_pairs"] == 45 and c["n_flipped"] == round(r.tau_distance * 45)
    w = np.array([c["weights"][t] for t in s.columns])
    assert [c["weight_shift"][t] for t in s.columns] == pytest.approx(w / w.sum() - 1 / 4)
    # the named pairs are reversed by the weights shown, by brute-force recount of the weighted means
    means = pd.Series(s.to_numpy() @ w / w.sum(), index=s.index)
    plain = s.mean(axis=1)
    for above, below in c["flipped_examples"]:
        assert plain[below] > plain[above] and means[above] > means[below]
    said = [v["text"] for v in a.verdict if v["section"] == "cardinal_sensitivity"]
    assert len(said) == 1 and "reverses" in said[0]
    page = a.to_html()
    assert 'data-kind="label-noise"' in page and "cardinal-shift" in page


def test_cardinal_sensitivity_scoped_to_the_best_models(monkeypatch):
    s = _board_b(7, m=14, n=3)
    monkeypatch.setattr(card_mod, "SCOPE_MODELS", 8)
    a = audit(s, **FAST_B)
    c = a.sections["cardinal_sensitivity"]
    best = s.mean(axis=1).sort_values(ascending=False, kind="stable").index[:8]
    assert sorted(c["models"]) == sorted(best) and c["n_models"] == 14 and "8 best of the 14" in c["scope"]
    sub = s.loc[[m for m in s.index if m in set(best)]]
    r = bv.sensitivity.cardinal_sensitivity_exact(sub, eps=c["eps"], method="boxes", work_limit=2_000_000)
    assert c["tau_distance"] == r.tau_distance and c["n_pairs"] == 28


# --------------------------------------------------------------------------- ordinal sensitivity


def test_ordinal_sensitivity_is_the_library_s_and_the_iia_table():
    s = _board_b(8, m=10, n=5)
    a = audit(s, top_models=4, **FAST_B)
    o = a.sections["ordinal_sensitivity"]
    protected = bv.sensitivity.default_protected(s)
    r = bv.sensitivity.ordinal_sensitivity_exact(s, protected=protected, work_limit=500)
    assert o["protected"] == protected and o["tau_distance"] == r.tau_distance and o["n_pairs"] == 1
    top = _order(a)[:4]
    rep = bv.axioms.iia_report(s, protected=top, pool=[m for m in s.index if m not in top])
    assert [(p["leader"], p["trailer"], p["status"]) for p in o["iia_pairs"]] == list(
        zip(rep["leader"], rep["trailer"], rep["status"].astype(str))
    )
    assert o["iia_reversible"] == int((rep["status"] == "reversible").sum())
    assert "including the model itself" in o["iia_rule_definition"]


def test_ordinal_sensitivity_scoped_to_the_field(monkeypatch):
    s = _board_b(9, m=16, n=4)
    monkeypatch.setattr(ord_mod, "FIELD_MODELS", 10)
    a = audit(s, **FAST_B)
    o = a.sections["ordinal_sensitivity"]
    field = _order(a)[:10]
    assert o["field"] == field and "10 best of the 16" in o["scope"]
    sub = s.loc[[m for m in s.index if m in set(field)]]
    r = bv.sensitivity.ordinal_sensitivity_exact(sub, protected=bv.sensitivity.default_protected(sub), work_limit=500)
    assert o["n_flipped"] == r.n_flipped and set(o["added"]) <= set(field) and o["iia_pool"] == 4


# --------------------------------------------------------------------------- head to head


def test_head_to_head_counts_by_brute_force_with_missing_cells():
    s = _board_b(10, m=9, n=6, digits=1)
    s.iloc[0, 1] = s.iloc[2, 3] = np.nan
    hib = [True, True, False, True, True, True]
    a = audit(s, hib, top_models=3, **FAST_B)
    h = a.sections["head_to_head"]
    assert h["models"] == _order(a)[:6]  # at least six
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


# --------------------------------------------------------------------------- groups


def test_groups_rank_each_group_alone():
    s = _board_b(11, m=10, n=6)
    groups = {"task 0": "A", "task 1": "A", "task 2": "B", "task 3": "B", "task 4": "B", "task 5": "C"}
    a = audit(s, groups=groups, primary="borda", **FAST_B)
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
    assert "groups" not in audit(s, **FAST_B).sections


# --------------------------------------------------------------------------- a real table


def test_helm_lite_runs_every_section_of_mine():
    from benchvote.data import load

    board = load("HELM-lite")
    a = audit(board, **FAST_B)
    for name in MINE_B[:4]:
        assert a.sections[name]["status"] == "ok", (name, a.sections[name].get("reason"))
    pw = a.sections["possible_winners"]
    assert pw["possible"] and pw["possible"] == [m for m in _order(a) if m in set(pw["possible"])]
    assert a.to_html().count("<section id=") >= 4


def test_the_standings_name_a_rule_in_running_text_without_breaking_proper_names():
    from benchvote.audit.sections.standings import in_sentence
    from benchvote.rules import RULES

    said = {name: in_sentence(rule.label) for name, rule in RULES.items()}
    assert said["mean_win_rate"] == "mean win rate (strict)" and said["mean_score"] == "mean score"
    assert said["borda"] == "Borda" and said["bradley_terry"] == "Bradley-Terry"
    assert said["ranked_pairs"] == "Ranked Pairs"
