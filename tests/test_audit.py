"""benchvote.audit and its HTML page: the sections against the library, the table rules, the page in Chromium."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from chromium import offline_page
from explorable_checks import CHECKS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from test_ranking import _front_oracle

import benchvote as bv
from benchvote.audit import SECTIONS, AuditInputError, audit
from benchvote.audit._charts import short_names
from benchvote.data import load

FAST = dict(n_boot=100, time_limit=60)
SHOTS = Path(__file__).resolve().parents[1] / "_build" / "screenshots"


def _board(seed: int = 0, m: int = 9, n: int = 5, missing: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = pd.DataFrame(
        rng.normal(size=(m, n)) + np.linspace(1, 0, m)[:, None],
        index=[f"model {i}" for i in range(m)],
        columns=[f"task {k}" for k in range(n)],
    )
    for i, k in zip(rng.choice(m, missing, replace=False), rng.integers(0, n, missing)):
        s.iloc[i, k] = np.nan
    return s


def test_every_registered_section_states_its_cost_class():
    for name, section in SECTIONS.items():
        assert re.search(r"O\(|work budget", section.cost), (name, section.cost)


def test_every_section_is_there_and_says_what_it_means():
    a = audit(_board(missing=2), **FAST)
    # units: only when columns are on different scales; pareto: only with declared costs
    expected = set(SECTIONS) - {"instance_intervals", "units", "pareto", "groups"}
    assert set(a.sections) == expected
    for name, sec in a.sections.items():
        assert sec["title"] == SECTIONS[name].title
        assert sec["about"].count(". ") >= 1 and sec["chapter"] == SECTIONS[name].chapter
        assert sec["cost"] == SECTIONS[name].cost  # the cost class, stated once where the section is registered
        assert "seconds" not in sec  # timings live apart from the report (issue 37)
    assert list(a.timings) == list(a.sections) and all(v >= 0 for v in a.timings.values())
    assert "seconds" not in a.settings and "seconds" not in a.to_json()
    json.loads(a.to_json())  # every number is JSON (nan as null)


def test_missing_scores_leave_models_out_of_the_complete_sections_and_say_so():
    s = _board(missing=2)
    a = audit(s, **FAST)
    t = a.sections["table"]
    left = sorted(s.index[s.isna().any(axis=1)])
    assert sorted(t["left_out_models"]) == left and t["missing_cells"] == 2
    assert set(a.sections["rankings"]["ranking"]) == set(s.index) - set(left)
    full = a.sections["missing"]
    pb = bv.missing.partial_borda(s)
    assert full["partial_borda"] == pytest.approx({k: float(v) for k, v in pb.items()})
    assert set(full["ranking"]) == set(s.index)


def test_sections_hold_the_library_numbers():
    s = _board(seed=1)
    a = audit(s, seed=2, primary="mean_win_rate", **FAST)
    r = a.sections["rankings"]
    for name, entry in bv.rules.RULES.items():
        label, rule = entry.label, entry.fn
        assert r["rules"][name]["label"] == label
        if "undefined" in r["rules"][name]:  # the geometric mean on scores that are not all positive
            with pytest.raises(bv.rules.RuleUndefined, match=r["rules"][name]["undefined"][:20]):
                rule(s)
            continue
        ranks = bv.rank(np.asarray(rule(s), dtype=float)) if entry.ranks is None else entry.ranks(s, True, 1e-9)
        assert list(r["rules"][name]["ranks"].values()) == ranks.tolist()
    assert "kemeny" not in r["rules"]  # nine models: beyond the exact Kemeny cut-off of eight
    iv = bv.intervals.rank_intervals(s, n_boot=100, seed=2)
    assert a.sections["intervals"]["lower"] == {k: float(v) for k, v in iv.lower.items()}
    card = bv.sensitivity.cardinal_sensitivity(s, time_limit=60, seed=2)
    assert a.sections["cardinal_sensitivity"]["tau_distance"] == card.tau_distance
    assert a.sections["cardinal_sensitivity"]["optimal"] == card.optimal
    top3 = bv.sensitivity.possible_winners(s, k=3, time_limit=60)
    assert sorted(a.sections["possible_winners"]["top_k_possible"]) == sorted(s.index[top3.possible.to_numpy()])
    d = bv.domains.domain_report(bv.domains.rankings_from_scores(s.loc[a.sections["domains"]["models"]]))
    assert a.sections["domains"]["majority_transitive"] == d.majority_transitive


def test_kemeny_joins_the_rules_on_small_tables_and_distances_are_symmetric():
    a = audit(_board(m=6), **FAST)
    r = a.sections["rankings"]
    assert "kemeny" in r["rules"]
    names = list(r["kendall_distance"])
    for x in names:
        assert r["kendall_distance"][x][x] == 0
        for y in names:
            assert r["kendall_distance"][x][y] == r["kendall_distance"][y][x]


def test_permuting_models_permutes_the_report():
    s = _board(seed=3)
    perm = np.random.default_rng(0).permutation(len(s))
    a, b = audit(s, **FAST), audit(s.iloc[perm], **FAST)
    for key in ("mean_score", "borda", "copeland", "helm_win_rate"):
        assert a.sections["rankings"]["rules"][key]["ranks"] == pytest.approx(
            b.sections["rankings"]["rules"][key]["ranks"]
        )
    assert sorted(a.sections["possible_winners"]["possible"]) == sorted(b.sections["possible_winners"]["possible"])
    assert a.sections["cardinal_sensitivity"]["tau_distance"] == b.sections["cardinal_sensitivity"]["tau_distance"]


def test_a_task_most_models_miss_is_left_out_when_that_keeps_more_cells():
    s = _board(seed=6, m=10, n=5)
    s.iloc[:7, 2] = np.nan  # seven of ten models lack task 2
    a = audit(s, **FAST)
    t = a.sections["table"]
    assert t["left_out_tasks"] == ["task 2"] and t["left_out_models"] == []
    assert a.sections["missing"]["ranking"]  # the whole table, task 2 included, is ranked there
    s.iloc[0, 0] = np.nan  # one more hole: dropping task 2 keeps 9 x 4 = 36 cells, more than 3 x 5
    t = audit(s, **FAST).sections["table"]
    assert t["left_out_tasks"] == ["task 2"] and t["left_out_models"] == ["model 0"]


def test_constant_and_duplicated_tasks_are_reported():
    s = _board(seed=4)
    s["flat"] = 1.0
    s["copy"] = s["task 0"]
    a = audit(s, **FAST)
    t = a.sections["table"]
    assert t["constant_tasks"] == ["flat"] and "flat" not in t["measured_tasks"]
    assert ["copy", "task 0"] in t["duplicated_tasks"]  # in the order of the names, as every list of the report


def test_an_undefined_measure_says_why_instead_of_stopping_the_audit():
    s = _board(seed=5, m=5)
    s.iloc[0] = s.max().to_numpy() + 1  # model 0 wins everything: Bradley-Terry has no finite ratings
    a = audit(s, **FAST)
    assert "undefined" in a.sections["rankings"]["rules"]["bradley_terry"]
    assert "not strongly connected" in a.sections["rankings"]["rules"]["bradley_terry"]["undefined"]
    with pytest.raises(ValueError, match="primary rule bradley_terry is undefined"):
        audit(s, primary="bradley_terry", **FAST)


def test_bad_input():
    with pytest.raises(ValueError, match="unknown primary rule"):
        audit(_board(), primary="plurality")
    with pytest.raises(TypeError, match="labelled table"):
        audit(np.eye(3))
    s = _board(m=3, n=2, missing=0)
    s.iloc[1:] = np.nan
    with pytest.raises(ValueError, match=r"only one model \(model 0\) has a score"):
        audit(s, **FAST)
    with pytest.raises(ValueError, match="top_k must be >= 2"):
        audit(_board(), top_k=1)


# --------------------------------------------------------------------------- the page, offline, in Chromium


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    board = load("SuperGLUE")
    scores = board.scores.copy()
    scores.iloc[3, 2] = np.nan  # one missing cell: the missing section too
    scores["params_M"] = np.geomspace(0.5, 5000.0, len(scores))  # a cost over four decades: the front's figure
    hib = pd.concat([board.higher_is_better, pd.Series({"params_M": False})])
    report = audit(scores, hib, costs=["params_M"], **FAST)
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(report.to_html("SuperGLUE audit"), encoding="utf-8")
    with offline_page(path) as (page, errors, requests, dialogs):
        assert not dialogs
        yield page, report, errors, requests


@pytest.mark.browser
def test_the_page_has_every_section_offline_and_no_console_error(report_page):
    page, report, errors, requests = report_page
    shown = page.eval_on_selector_all("section[data-section]", "els => els.map(e => e.id)")
    assert shown == list(report.sections)
    for name, sec in report.sections.items():
        assert page.locator(f"section#{name} h2").inner_text() == sec["title"]
    assert not errors, errors
    assert not requests, requests
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "audit__report.png"), full_page=False)


@pytest.mark.browser
def test_every_figure_has_a_caption_a_title_and_labelled_axes(report_page):
    page, _, errors, _ = report_page
    figures = page.locator("figure.audit-figure")  # the explorable has its own figure, checked in its tests
    assert figures.count() >= 4
    assert page.locator("section#pareto figure.audit-figure").count() == 1
    for k in range(figures.count()):
        fig = figures.nth(k)
        assert fig.locator("figcaption").inner_text().startswith("Figure:")
        svg = fig.locator("svg").first
        assert svg.get_attribute("role") == "img"
        assert svg.locator("title").first.text_content() and svg.locator("desc").first.text_content()
        assert svg.locator("text").count() >= 3  # tick labels and the axis labels
    assert not errors


@pytest.mark.browser
def test_the_interval_figure_draws_every_model_at_its_reported_interval(report_page):
    page, report, _, _ = report_page
    iv = report.sections["intervals"]
    tips = page.locator("section#intervals svg line title").all_text_contents()
    assert len(tips) == len(iv["ranks"])
    for tip in tips:
        name, rest = tip.rsplit(": rank ", 1)
        r, interval = rest.split(", interval ")
        lo, hi = interval.split(" to ")
        assert (float(r), float(lo), float(hi)) == (iv["ranks"][name], iv["lower"][name], iv["upper"][name])


@pytest.mark.browser
def test_the_front_figure_draws_every_model_at_its_quality_and_cost(report_page):
    page, report, errors, _ = report_page
    p = report.sections["pareto"]
    shown = {e["model"]: (e["costs"][0], e["quality"]) for e in p["front"] + p["dominated"]}
    tips = page.locator("section#pareto svg circle title").all_text_contents()
    assert len(tips) == len(shown) == p["n_compared"]
    for tip in tips:
        name, rest = tip.rsplit(": params_M ", 1)
        cost, quality = rest.split(", quality ")
        assert (float(cost), float(quality)) == pytest.approx(shown[name], rel=1e-3)
    labels = page.locator("section#pareto svg > text").all_text_contents()
    short = short_names(sorted(shown), 24)  # the one shortening rule of the report's charts
    named = [t for t in labels if t in {short[e["model"]] for e in p["front"]}]
    assert named and len(named) == len(set(named))  # front models labelled (overlapping labels dropped), distinctly
    assert "params_M (log scale), lower is better" in labels
    assert not errors


@pytest.mark.browser
def test_the_slider_in_the_report_computes_what_the_library_does(report_page):
    page, _, errors, _ = report_page
    root = page.locator("section#cardinal_sensitivity .bv-explorable")
    assert root.count() == 1
    assert CHECKS["label-noise"](root, np.random.default_rng(0), settings=6) >= 6
    assert not errors


def _flat_on_part() -> pd.DataFrame:
    """Six models; ``flat`` is 0.5 for the five models scored on every task, 0.9 for the sixth (which misses t1)."""
    s = _board(seed=4, m=6, n=4)
    s["flat"] = 0.5
    s.loc["model 5", "flat"] = 0.9
    s.loc["model 5", "task 1"] = np.nan
    return s


def test_a_task_constant_on_the_complete_part_is_left_out_and_said_so():
    s = _flat_on_part()
    a = audit(s, **FAST)
    t = a.sections["table"]
    assert t["constant_tasks"] == []  # not constant on the whole table
    assert [f["task"] for f in t["constant_in_part"]] == ["flat"]
    assert t["constant_in_part"][0]["score"] == 0.5 and t["constant_in_part"][0]["n_models"] == 5
    assert "same score" in t["constant_in_part"][0]["reason"]
    assert "flat" not in t["measured_tasks"] and "flat" not in t["left_out_tasks"]
    assert t["left_out_models"] == ["model 5"]
    undefined = {name: sec["reason"] for name, sec in a.sections.items() if sec["status"] != "ok"}
    assert not undefined, undefined
    # the complete-part sections are those of the part without the flat task
    part = s.loc[[m for m in s.index if m != "model 5"], ["task 0", "task 1", "task 2", "task 3"]]
    ours, theirs = a.to_dict()["sections"], audit(part, **FAST).to_dict()["sections"]
    for name in ("rankings", "possible_winners", "cardinal_sensitivity", "spectrum", "diversity"):
        assert ours[name] == theirs[name], name
    assert set(a.sections["missing"]["ranking"]) == set(s.index)  # the whole table, flat task included
    page = a.to_html()
    assert "constant on the complete part" in page
    assert 'data-json="table.constant_in_part.0.score">0.5<' in page


# --------------------------------------------------------------------------- every registered section, in order


def test_one_audit_can_hold_every_registered_section_in_the_registry_order():
    rng = np.random.default_rng(8)
    rows = [
        (f"m{i}", f"t{k}", q, float(rng.random() < 0.2 + 0.08 * i + 0.05 * k))
        for i in range(6)
        for k in range(3)
        for q in range(30)
    ]
    long = pd.DataFrame(rows, columns=["model", "task", "instance", "score"])
    scores, _ = bv.intervals.instance_table(long)
    scores.loc["m0", "t0"] = np.nan  # the missing section
    scores["params_M"] = [1.0, 3.0, 7.0, 13.0, 34.0, 70.0]  # the pareto section
    calls: list[str] = []
    a = audit(scores, instances=long, costs=["params_M"], normalize="zscore", progress=calls.append, **FAST)
    assert [c.name for c in calls] == [n for n in SECTIONS if n != "groups"] == list(a.sections)
    assert {c.total for c in calls} == {len(calls)} and [c.index for c in calls] == list(
        range(len(calls))
    )  # units: the normalisation is stated
    page = a.to_html()
    assert re.findall(r'<section id="([^"]+)" data-section', page) == [n for n in SECTIONS if n != "groups"]


# --------------------------------------------------------------------------- normalize


def _mixed(seed: int = 11) -> tuple[pd.DataFrame, list[bool]]:
    """Seven models, four tasks on different scales; task 2 is lower-is-better."""
    s = _board(seed=seed, m=7, n=4)
    s["task 1"] *= 1000.0
    s["task 2"] = 50.0 - 3.0 * s["task 2"]
    return s, [True, True, False, True]


def _expected(s: pd.DataFrame, method: str) -> pd.DataFrame:
    """The normalised table, written out here from the definitions (each task keeps its direction)."""
    if method == "zscore":
        return (s - s.mean()) / s.std(ddof=0)
    if method == "minmax":
        return (s - s.min()) / (s.max() - s.min())
    return s.rank(method="average")  # ascending midranks: the largest score gets the largest rank


ORDINAL = ("diversity", "intervals", "ordinal_sensitivity", "domains", "spectrum", "table")


@pytest.mark.parametrize("method", ["zscore", "minmax", "rank"])
def test_normalize_changes_the_cardinal_parts_as_defined_and_leaves_the_ordinal_parts(method):
    s, hib = _mixed()
    raw, a = (
        audit(s, hib, primary="mean_win_rate", **FAST),
        audit(s, hib, primary="mean_win_rate", normalize=method, **FAST),
    )
    assert a.settings["normalize"] == method and a.to_dict()["settings"]["normalize"] == method
    ours, theirs = raw.to_dict()["sections"], a.to_dict()["sections"]
    for name in ORDINAL:
        assert ours[name] == theirs[name], name
    for rule in set(bv.rules.RULES) - {"mean_score"}:
        assert ours["rankings"]["rules"][rule] == theirs["rankings"]["rules"][rule], rule
    assert ours["rankings"]["ranking"] == theirs["rankings"]["ranking"]  # the primary rule is ordinal
    # the cardinal parts read the normalised table
    table = _expected(s, method)
    mean = a.sections["rankings"]["rules"]["mean_score"]
    assert mean["label"] == f"Mean score ({method})"
    assert list(mean["scores"].values()) == pytest.approx(bv.mean_score(table, hib).tolist())
    assert mean["ranks"] != ours["rankings"]["rules"]["mean_score"]["ranks"]  # the raw mean follows task 1
    eps = bv.sensitivity.default_eps(table, hib)
    assert a.sections["possible_winners"]["eps"] == pytest.approx(eps) == a.sections["units"]["eps"]
    pw = bv.sensitivity.possible_winners(table, hib, eps=a.sections["possible_winners"]["eps"])
    assert sorted(a.sections["possible_winners"]["possible"]) == sorted(s.index[pw.possible.to_numpy()])
    card = bv.sensitivity.cardinal_sensitivity(table, hib, eps=a.sections["cardinal_sensitivity"]["eps"], time_limit=60)
    assert a.sections["cardinal_sensitivity"]["tau_distance"] == card.tau_distance
    u = a.sections["units"]
    assert u["normalize"] == method and u["suggestion"] is None and "ordinal parts" in u["scope"]
    assert u["eps_reason"].startswith(f"on the {method}-normalised table")
    assert raw.sections["units"]["normalize"] == "none" and "--normalize zscore" in raw.sections["units"]["suggestion"]


@pytest.mark.parametrize("method", ["none", "zscore", "minmax", "rank"])
def test_a_lower_is_better_task_keeps_its_direction_after_normalising(method):
    s, hib = _mixed(seed=12)
    flipped = s.copy()
    flipped["task 2"] = -flipped["task 2"]  # the same task, now higher-is-better
    a, b = audit(s, hib, normalize=method, **FAST), audit(flipped, normalize=method, **FAST)
    for rule, values in a.sections["rankings"]["rules"].items():
        if rule != "geometric_mean":  # negating a task takes it out of the geometric mean's domain (positive scores)
            assert values["ranks"] == b.sections["rankings"]["rules"][rule]["ranks"], rule
    for key in ("possible", "top_k_possible", "eps"):
        assert a.sections["possible_winners"][key] == pytest.approx(b.sections["possible_winners"][key]), key
    for key in ("tau_distance", "ranking_before", "ranking_after"):
        assert a.sections["cardinal_sensitivity"][key] == b.sections["cardinal_sensitivity"][key], key
    # every task keeps its order read in its direction: the normalised table ranks each task as the scores do
    assert bv.rank(bv.audit._rules.normalised(s, method), hib).equals(bv.rank(s, hib))


def test_a_zscore_audit_does_not_see_the_units_of_a_task():
    rng = np.random.default_rng(13)
    # every gap between two scores of a task is at least 0.37, so none falls within the (absolute) tie tolerance
    s = pd.DataFrame(
        [rng.permutation(7) * 0.37 + rng.normal() for _ in range(4)],
        index=[f"task {k}" for k in range(4)],
        columns=[f"model {i}" for i in range(7)],
    ).T
    base = audit(s, normalize="zscore", **FAST)
    keys = ("possible", "top_k_possible", "eps")
    for factor in (1e-6, 1e10):
        scaled = s.copy()
        scaled["task 1"] *= factor
        a = audit(scaled, normalize="zscore", **FAST)
        for rule, values in base.sections["rankings"]["rules"].items():
            assert a.sections["rankings"]["rules"][rule].get("ranks") == values.get("ranks"), (factor, rule)
        assert a.sections["rankings"]["ranking"] == base.sections["rankings"]["ranking"]
        for key in keys:
            assert a.sections["possible_winners"][key] == pytest.approx(base.sections["possible_winners"][key])
        for key in ("tau_distance", "n_flipped", "ranking_before", "ranking_after"):
            assert a.sections["cardinal_sensitivity"][key] == base.sections["cardinal_sensitivity"][key], key
        raw = audit(scaled, **FAST)  # without the normalisation the mean score follows the scaled task (1e10)
        if factor > 1:
            expected = bv.rank(scaled["task 1"]).tolist()
            assert list(raw.sections["rankings"]["rules"]["mean_score"]["ranks"].values()) == expected


def test_an_unknown_normalisation_is_an_input_error():
    with pytest.raises(AuditInputError, match="unknown normalize 'log'; choose one of none, zscore, minmax, rank"):
        audit(_board(), normalize="log")


# --------------------------------------------------------------------------- costs and the quality-cost front


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


def test_a_mean_score_primary_ranks_every_redraw_on_the_normalised_table():
    s, hib = _mixed(seed=14)
    a = audit(s, hib, primary="mean_score", normalize="rank", **FAST)
    table = _expected(s, "rank")
    iv = bv.intervals.rank_intervals(table, hib, rule=bv.mean_score, n_boot=100)
    assert a.sections["intervals"]["lower"] == {k: float(v) for k, v in iv.lower.items()}
    assert a.sections["intervals"]["upper"] == {k: float(v) for k, v in iv.upper.items()}
    assert a.sections["rankings"]["ranking"] == list(s.index[np.argsort(bv.rank(bv.mean_score(table, hib)))])
    raw = audit(s, hib, primary="mean_score", **FAST)
    assert raw.sections["rankings"]["ranking"] != a.sections["rankings"]["ranking"]


#: tests/test_corpus.py runs every table of the corpus of real leaderboards twice (mixed units, missing cells,
#: costs, lower-is-better, 3 to 1,556 models); of the synthetic tables only this one adds what the corpus has
#: not: scores with two decimals and many near-ties, where the tie tolerance decides the groups.
TWO_RUN_TABLES = ["llm_leaderboard"]


@pytest.mark.slow
@pytest.mark.parametrize("name", TWO_RUN_TABLES)
def test_two_runs_on_a_realistic_table_give_the_same_json(name, tmp_path):
    """Issues 29 and 37: the same table, options and seed give byte-identical JSON in two processes.

    The table imitates a public LLM leaderboard (105 models, 23 tasks, many near-ties); the runs use
    different hash seeds, and every run's stdout must parse as JSON.
    """
    import os
    import subprocess
    import sys

    from realistic_tables import TABLES

    frame, lower, costs = TABLES[name]()
    path = tmp_path / f"{name}.csv"
    frame.rename_axis("model").to_csv(path)
    args = [sys.executable, "-m", "benchvote", "audit", str(path), "--json", "-", "--n-boot", "200"]
    if lower:
        args += ["--lower-is-better", ",".join(lower)]
    if costs:
        args += ["--cost", ",".join(costs)]
    runs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(done.stdout)
    assert runs[0] == runs[1]
    report = json.loads(runs[0])
    settings = report["settings"]
    assert settings["optional"]["torch_used"] is False
    for key in ("possible_winners", "cardinal_sensitivity", "ordinal_sensitivity"):
        section = report["sections"][key]
        assert section.get("stopped", "") != "time_limit", f"{key} hit the safety cap: its numbers depend on speed"


# --------------------------------------------------------------------------- the registry, the verdict, coverage


def test_every_model_is_ranked_with_its_coverage_and_low_coverage_is_flagged():
    s = _board(seed=4, m=8, n=6)
    s.iloc[0, 1:] = np.nan  # model 0 is scored on one task of six
    s.iloc[3, 2] = np.nan
    a = audit(s, **FAST)
    st = a.sections["standings"]
    assert sorted(st["ranking"]) == sorted(s.index)  # nobody is dropped
    assert st["coverage"] == pytest.approx({m: s.loc[m].notna().mean() for m in s.index})
    assert st["low_coverage"] == ["model 0"]
    oracle = bv.mean_win_rate(s)  # the strict mean win rate on shared tasks, called directly
    assert st["scores"] == pytest.approx({m: float(v) for m, v in oracle.items()})
    ranks = bv.rank(oracle.to_numpy())
    assert [st["ranks"][m] for m in st["ranking"]] == sorted(ranks.tolist())
    assert st["in_complete_part"]["model 3"] is False and st["in_complete_part"]["model 1"] is True


def test_a_low_coverage_leader_is_named_in_the_verdict():
    s = _board(seed=5, m=6, n=6)
    s.iloc[5, :] = np.nan
    s.iloc[5, 0] = 100.0  # the last model, scored on one task where it beats everyone
    s.iloc[4, 1] = np.nan
    a = audit(s, **FAST)
    first = a.sections["standings"]["ranking"][0]
    assert first == "model 5"
    line = next(v["text"] for v in a.verdict if v["section"] == "standings")
    assert "low coverage" in line and "1 of 6" in line and "model 5" in line


def test_the_verdict_opens_the_page_and_links_its_sections():
    a = audit(_board(missing=2), **FAST)
    assert 3 <= len(a.verdict) <= bv.audit.VERDICT_SENTENCES
    page = a.to_html()
    head = page.index('id="verdict"')
    assert head < page.index('<section id="table"')
    for v in a.verdict:
        assert f'href="#{v["section"]}"' in page and v["section"] in a.sections
    assert bv.audit.summary(a.to_dict()).count("\n- ") == len(a.verdict)


def test_a_section_is_one_registry_entry(monkeypatch):
    """Adding a section is one module that registers a Section: the audit runs it, the page shows it."""
    from typing import TypedDict

    from benchvote.audit import _registry

    class Result(TypedDict):
        best_task: str

    def compute(ctx, done):
        return bv.audit.Output({"best_task": str(ctx.work.std().idxmax())})

    extra = bv.audit.Section(
        name="widest",
        title="The widest task",
        chapter="tradeoff",
        about="The task with the largest spread. It weighs most in the mean score.",
        order=999,
        result=Result,
        compute=compute,
        render=lambda view: view.html("<p>Widest: {{ ui.name(s.best_task) }}.</p>"),
        verdict=lambda s, done: [bv.audit.Sentence("widest", f"The widest task is {s['best_task']}.")],
    )
    monkeypatch.setitem(_registry._REGISTRY, "widest", extra)
    s = _board()
    a = audit(s, **FAST)
    assert a.sections["widest"]["best_task"] == str(s.std().idxmax())
    assert list(a.sections)[-1] == "widest" and a.verdict[-1]["section"] == "widest"
    assert '<section id="widest"' in a.to_html()


def test_every_section_returns_exactly_its_typed_fields():
    from typing import get_type_hints

    s = _board(missing=2)
    s["params_M"] = np.linspace(1, 100, len(s))
    long = pd.DataFrame(
        [
            (m, t, q, float(v > 0))
            for m in s.index
            for t in s.columns[:5]
            for q, v in enumerate(np.random.default_rng(1).normal(size=8))
        ],
        columns=["model", "task", "instance", "score"],
    )
    groups = {t: ("g1" if k < 3 else "g2") for k, t in enumerate(s.columns[:5])}
    a = audit(s, costs=["params_M"], instances=long, groups=groups, normalize="zscore", **FAST)
    head = {"title", "about", "chapter", "cost", "status"}
    for name, section in SECTIONS.items():
        assert name in a.sections, name
        assert a.sections[name]["status"] == "ok", (name, a.sections[name].get("reason"))
        assert set(a.sections[name]) - head == set(get_type_hints(section.result)), name


def test_no_import_cycle_in_the_library():
    import ast

    root = Path(bv.__file__).parent
    graph: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        rel = path.relative_to(root.parent).with_suffix("")
        mod = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        pkg = mod if rel.name == "__init__" else mod.rsplit(".", 1)[0]
        deps = set()
        for node in ast.parse(path.read_text()).body:  # module-level imports only: a cycle there breaks importing
            if isinstance(node, ast.ImportFrom) and node.level:
                base = pkg.rsplit(".", node.level - 1)[0] if node.level > 1 else pkg
                target = f"{base}.{node.module}" if node.module else base
                deps.add(target)
        graph[mod] = deps
    seen: dict[str, int] = {}

    def visit(m: str, stack: list[str]) -> None:
        seen[m] = 1
        for d in graph.get(m, ()):
            if d in graph and d != m:
                assert seen.get(d) != 1 or d in stack[:-1] and False, f"import cycle: {' -> '.join([*stack, d])}"
                if d not in seen:
                    visit(d, [*stack, d])
        seen[m] = 2

    for m in graph:
        if m not in seen:
            visit(m, [m])


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


# --------------------------------------------------------------------------- nothing can crash the audit

NAN = np.nan


def _frame(columns: dict, models: str) -> pd.DataFrame:
    return pd.DataFrame(columns, index=list(models), dtype=float)


def _strict_among_comparable(s: pd.DataFrame) -> dict:
    """Oracle: per model, wins over the models it shares a task with, over (1 + their number); by brute force."""
    out = {}
    for a in s.index:
        total, met = 0.0, 0
        for b in s.index:
            shared = [t for t in s.columns if b != a and not np.isnan(s.loc[a, t]) and not np.isnan(s.loc[b, t])]
            if shared:
                met += 1
                total += sum(s.loc[a, t] > s.loc[b, t] for t in shared) / len(shared)
        out[a] = total / (met + 1) if met else None
    return out


def test_pairs_of_models_that_share_no_task_are_counted_and_not_compared():
    s = _frame(
        {"t1": [1, 2, NAN, NAN, 5], "t2": [3, 1, NAN, NAN, 2], "t3": [NAN, NAN, 1, 2, 4], "t4": [NAN, NAN, 5, 3, 1]},
        "ABCDE",
    )
    a = audit(s, **FAST)
    st = a.sections["standings"]
    assert st["status"] == "ok" and not a.errors
    assert st["incomparable_pairs"] == 4 and st["n_pairs"] == 10  # A, B against C, D
    assert sorted(map(sorted, st["incomparable_examples"])) == [["A", "C"], ["A", "D"], ["B", "C"], ["B", "D"]]
    oracle = _strict_among_comparable(s)
    assert st["scores"] == pytest.approx(oracle)
    assert "share no scored task" in a.to_html()


def test_on_a_table_where_every_pair_shares_a_task_the_standings_are_the_strict_mean_win_rate():
    s = _board(seed=3, m=7, n=4, missing=5)
    st = audit(s, **FAST).sections["standings"]
    assert st["incomparable_pairs"] == 0 and "not a comparison" not in st["definition"]
    expected = bv.mean_win_rate(s, tol=bv.DEFAULT_TIE_TOLERANCE)
    assert st["scores"] == {m: float(v) for m, v in expected.items()}  # bit for bit


def test_a_model_scored_only_where_no_other_model_is_is_listed_not_ranked():
    s = _frame({"t1": [1, 2, 3, NAN], "t2": [3, 1, 2, NAN], "t3": [NAN, NAN, NAN, 4]}, "ABCD")
    a = audit(s, **FAST)
    st = a.sections["standings"]
    assert st["unscored"] == ["D"] and "D" not in st["ranking"] and not a.errors
    assert a.sections["table"]["constant_tasks"] == ["t3"]


def test_a_model_with_no_score_is_listed_and_left_out_of_every_measure():
    s = _frame({"t1": [1, 2, 3, NAN], "t2": [3, 1, 2, NAN], "t3": [2, 3, 1, NAN]}, "ABCD")
    a = audit(s, **FAST)
    assert a.sections["table"]["unscored_models"] == ["D"]
    assert a.sections["standings"]["unscored"] == ["D"] and "D" not in a.sections["standings"]["ranking"]
    assert a.sections["missing"]["status"] == "ok" and "D" not in a.sections["missing"]["ranking"]
    assert all(sec["status"] == "ok" for sec in a.sections.values()), a.failed
    assert "no score on a task that orders the models" in a.to_html()


def test_an_empty_task_is_listed_and_left_out():
    s = _board(seed=2, m=5, n=3)
    s["never run"] = NAN
    a = audit(s, **FAST)
    assert a.sections["table"]["empty_tasks"] == ["never run"]
    assert "never run" not in a.sections["rankings"]["tasks"] and not a.errors


def test_the_audit_and_the_library_call_the_same_tasks_constant():
    """One rule: the audit's constant tasks are ``_validation.constant_tasks``; a task with no score is empty."""
    from benchvote._validation import constant_tasks

    s = _board(seed=2, m=5, n=3)
    s["never run"] = NAN
    s["flat"] = 1.0
    s["one score"] = [2.0, NAN, NAN, NAN, NAN]
    t = audit(s, **FAST).sections["table"]
    library = sorted(s.columns[constant_tasks(s.to_numpy(dtype=float), 1e-9)])
    assert t["constant_tasks"] == library == ["flat", "one score"]
    assert t["empty_tasks"] == ["never run"]


def test_a_table_without_a_complete_part_is_audited_as_far_as_the_data_allow():
    s = _frame({"t1": [1, 2, NAN], "t2": [NAN, 1, 2], "t3": [3, NAN, 1]}, "ABC")  # no two models share two tasks
    a = audit(s, **FAST)
    assert a.sections["standings"]["status"] == "ok" and a.sections["table"]["status"] == "ok"
    for name in ("rankings", "intervals", "possible_winners", "cardinal_sensitivity", "domains", "correlation"):
        assert a.sections[name]["status"] == "not_applicable", name
        assert "no two models are scored on the same two tasks" in a.sections[name]["reason"], name
    assert a.sections["table"]["complete_part"] == a.sections["rankings"]["reason"].split(": ", 1)[1]
    assert not a.errors and not a.failed
    page = a.to_html()
    assert page.count("Not computed on this table:") == sum(
        s["status"] == "not_applicable" for s in a.sections.values()
    )
    assert all(v["section"] in ("standings", "missing", "table") for v in a.verdict)


def test_the_domains_of_a_complete_part_of_two_models_are_not_applicable_and_say_why():
    two = _frame({"t1": [1, 2], "t2": [3, 1], "t3": [2, 3]}, "AB")
    part_of_two = _frame({"t1": [1, 2, 3, 4], "t2": [3, 1, NAN, NAN], "t3": [2, 3, 1, NAN]}, "ABCD")
    for s in (two, part_of_two):
        a = audit(s, **FAST)
        assert a.sections["domains"]["status"] == "not_applicable"
        assert "three or more" in a.sections["domains"]["reason"]
        assert not a.errors, a.errors


def test_scores_too_large_to_add_up_are_refused_naming_the_task():
    s = _frame({"t1": [1.7e308, 1.6e308, 1.5e308], "t2": [1.7e308, 1.79e308, 1.0], "t3": [2, 3, 1]}, "ABC")
    with pytest.raises(AuditInputError, match=r"tasks t1, t2 have scores beyond .* rescale them"):
        audit(s, **FAST)
    spread = _frame({"t1": [1e308, -1e308, 0.5e308], "t2": [3, 1, 2], "t3": [2, 3, 1]}, "ABC")
    with pytest.raises(AuditInputError, match=r"task t1 has scores beyond"):
        audit(spread, **FAST)


def test_scores_just_under_the_bound_are_audited_without_overflow():
    from benchvote.audit._prepare import MAGNITUDE_SHARE

    s = _board(seed=9, m=6, n=4)
    s["huge"] = np.linspace(-1.0, 1.0, 6) * MAGNITUDE_SHARE * np.finfo(float).max / 6  # at the bound
    s.iloc[0, 0] = np.nan
    for normalize in ("none", "zscore", "minmax"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # numpy's own overflow warnings too
            a = audit(s, normalize=normalize, **FAST)
            a.to_html()
        assert not a.errors and all(sec["status"] != "error" for sec in a.sections.values()), normalize


def test_the_refusals_name_what_is_wrong():
    flat = _frame({"t1": [1, 1, 1], "t2": [2, 2, 2]}, "ABC")
    with pytest.raises(AuditInputError, match="every model scored has the same score on t1, t2"):
        audit(flat, **FAST)
    one = _frame({"t1": [1, NAN, NAN], "t2": [NAN, 2, NAN]}, "ABC")
    with pytest.raises(AuditInputError, match="only one model has a score on t1, t2"):
        audit(one, **FAST)


def test_a_task_constant_on_the_table_is_named_when_it_leaves_one_task():
    # the old refusal read "task(s)  give all of them the same score": it named no task
    s = _frame({"t1": [1, 2, 3], "flat": [5, 5, 5]}, "ABC")
    a = audit(s, **FAST)
    reason = a.sections["rankings"]["reason"]
    assert "only task t1 orders the models" in reason and "same score on flat" in reason
    assert a.sections["standings"]["ranking"] == ["C", "B", "A"] and not a.errors


def _broken(monkeypatch, name: str, part: str = "compute") -> None:
    import dataclasses

    from benchvote.audit import _registry

    def boom(*args, **kwargs):
        raise ZeroDivisionError("planted failure")

    monkeypatch.setitem(_registry._REGISTRY, name, dataclasses.replace(_registry._REGISTRY[name], **{part: boom}))


def test_a_section_that_fails_is_reported_in_its_place_and_every_other_section_stands(monkeypatch):
    s = _board(seed=1, missing=1)
    whole = audit(s, **FAST).to_dict()["sections"]
    _broken(monkeypatch, "correlation")
    a = audit(s, **FAST)
    assert a.failed == ["correlation"] and isinstance(a.errors["correlation"], ZeroDivisionError)
    bad = a.sections["correlation"]
    assert bad["status"] == "error" and "ZeroDivisionError: planted failure" in bad["error"]
    assert "the correlation section failed" in bad["reason"] and "Traceback" not in bad["reason"]
    ours = a.to_dict()["sections"]
    for name in whole:
        if name != "correlation":
            assert ours[name] == whole[name], name
    page = a.to_html()
    assert "This section failed" in page and "planted failure" in page
    assert page.count(" data-section=") == len(whole)


def test_the_sections_that_build_on_a_failed_section_say_so(monkeypatch):
    _broken(monkeypatch, "rankings")
    a = audit(_board(seed=1), **FAST)
    assert a.failed == ["rankings"]
    for name, sec in SECTIONS.items():
        if "rankings" in sec.needs and name in a.sections:
            assert a.sections[name]["status"] == "not_applicable", name
            assert "Rankings under several rules" in a.sections[name]["reason"], name
    assert a.sections["spectrum"]["status"] == "ok"
    assert all(v["section"] != "rankings" for v in a.verdict)


def test_a_section_whose_page_fails_is_reported_in_the_page_and_in_the_json_written_after(monkeypatch):
    _broken(monkeypatch, "spectrum", "render")
    a = audit(_board(seed=1), **FAST)
    assert not a.failed
    page = a.to_html()
    assert a.failed == ["spectrum"] and "This section failed" in page
    assert json.loads(a.to_json())["sections"]["spectrum"]["status"] == "error"


@st.composite
def missing_patterns(draw) -> pd.DataFrame:
    """Small tables with the missing patterns real boards have: disjoint blocks, models with one score or none,
    no complete model, a task nobody ran, random holes; scores with ties, of any size up to the audit's bound."""
    m, n = draw(st.integers(2, 7)), draw(st.integers(2, 6))
    scale = draw(st.sampled_from([1.0, 1e-12, 1e6, 1e300]))
    x = draw(arrays(np.float64, (m, n), elements=st.integers(-3, 3).map(float))) * scale
    x += draw(arrays(np.float64, (m, n), elements=st.floats(0, 1))) * scale * draw(st.sampled_from([0.0, 1.0]))
    kind = draw(st.sampled_from(["blocks", "one score", "no score", "no complete model", "empty task", "holes"]))
    if kind == "blocks":
        h, w = draw(st.integers(1, m - 1)), draw(st.integers(1, n - 1))
        x[:h, w:] = x[h:, :w] = np.nan
    elif kind == "one score":
        for i in draw(st.sets(st.integers(0, m - 1), min_size=1)):
            keep = draw(st.integers(0, n - 1))
            x[i, [j for j in range(n) if j != keep]] = np.nan
    elif kind == "no score":
        x[sorted(draw(st.sets(st.integers(0, m - 1), min_size=1, max_size=m - 1))), :] = np.nan
    elif kind == "no complete model":
        for i in range(m):
            x[i, draw(st.integers(0, n - 1))] = np.nan
    elif kind == "empty task":
        x[:, draw(st.integers(0, n - 1))] = np.nan
    else:
        x[draw(arrays(np.bool_, (m, n), elements=st.booleans()))] = np.nan
    return pd.DataFrame(x, index=[f"m{i}" for i in range(m)], columns=[f"t{j}" for j in range(n)])


#: What a refusal may say: only input that cannot be audited at all.
REFUSALS = ("a ranking needs two models with scores", "no task orders the models")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(s=missing_patterns(), normalize=st.sampled_from(["none", "zscore", "minmax", "rank"]), lower=st.booleans())
def test_no_missing_pattern_crashes_the_audit_and_every_section_has_a_status(s, normalize, lower):
    try:
        a = audit(s, not lower, normalize=normalize, n_boot=20, time_limit=60)
    except AuditInputError as err:  # only a table nothing can be audited on
        assert any(r in str(err) for r in REFUSALS), str(err)
        tol = bv.DEFAULT_TIE_TOLERANCE
        assert s.notna().sum(axis=1).gt(0).sum() < 2 or all(not s[t].max() - s[t].min() > tol for t in s.columns)
        return
    assert not a.errors, {k: repr(v) for k, v in a.errors.items()}
    for name, sec in a.sections.items():
        assert sec["status"] in ("ok", "not_applicable"), name
        assert sec["status"] == "ok" or sec["reason"], name
    page, text = a.to_html(), a.to_json()
    assert not a.failed
    assert re.findall(r'<section id="([^"]+)" data-section', page) == list(a.sections)
    assert set(json.loads(text)["sections"]) == set(a.sections)
    ranked = set(a.sections["standings"]["ranking"])
    assert ranked | set(a.sections["standings"]["unscored"]) == set(s.index)


def test_an_audit_of_thousands_of_tasks_ends_with_every_section_decided_and_reports_of_a_few_mb(tmp_path):
    """3 models x 10,000 tasks: every section ok or not applicable with a reason, JSON < 6 MB, page < 10 MB.

    The sizes allow 600 and 1,000 bytes per task (the bounds of the 5,000-task version of this test): the reports
    grow with the tasks, never faster.
    At 10,000 tasks the count of distinct bootstrap redraws has 6,019 digits, more than Python writes as text by
    default: the command stopped with an internal error while writing the JSON.

    The sizes are asserted, never the time; the subprocess's timeout only stops a run that would hang.
    """
    import os
    import subprocess
    import sys

    rng = np.random.default_rng(37)
    frame = pd.DataFrame(
        rng.random((3, 10_000)).round(4),
        index=pd.Index([f"model {i}" for i in range(3)], name="model"),
        columns=[f"task {k}" for k in range(10_000)],
    )
    path, out, page = tmp_path / "wide.csv", tmp_path / "wide.json", tmp_path / "wide.html"
    frame.to_csv(path)
    args = [sys.executable, "-m", "benchvote", "audit", str(path), "--json", str(out), "--html", str(page)]
    done = subprocess.run(
        args + ["--n-boot", "100", "--quiet"], capture_output=True, text=True, timeout=900, env=os.environ
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(out.read_text())
    for name, sec in report["sections"].items():
        assert sec["status"] == "ok" or (sec["status"] == "not_applicable" and sec["reason"]), (name, sec)
    assert report["sections"]["correlation"]["summarised"] and report["sections"]["correlation"]["matrix"] is None
    assert out.stat().st_size < 6_000_000 and page.stat().st_size < 10_000_000
    assert "tasks left out" in page.read_text()  # what the page leaves out, it counts
