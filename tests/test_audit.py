"""benchvote.audit and its HTML page: the sections against the library, the table rules, the page in Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from chromium import offline_page
from explorable_checks import CHECKS

import benchvote as bv
from benchvote.audit import SECTIONS, audit
from benchvote.data import load

FAST = dict(n_boot=100, time_limit=3)
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


def test_every_section_is_there_and_says_what_it_means():
    a = audit(_board(missing=2), **FAST)
    expected = set(SECTIONS) - {"instance_intervals", "units"}  # units: only when columns are on different scales
    assert set(a.sections) == expected
    for name, sec in a.sections.items():
        assert sec["title"] == SECTIONS[name][0]
        assert sec["about"].count(". ") >= 1 and sec["chapter"].endswith(f"{SECTIONS[name][1]}.md")
        assert sec["seconds"] >= 0
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
    a = audit(s, seed=2, **FAST)
    r = a.sections["rankings"]
    for name, (label, rule) in bv.audit.AUDIT_RULES.items():
        assert r["rules"][name]["label"] == label
        ranks = bv.rank(np.asarray(rule(s), dtype=float))
        assert list(r["rules"][name]["ranks"].values()) == ranks.tolist()
    assert "kemeny" not in r["rules"]  # nine models: beyond the exact Kemeny cut-off of eight
    iv = bv.intervals.rank_intervals(s, n_boot=100, seed=2)
    assert a.sections["intervals"]["lower"] == {k: float(v) for k, v in iv.lower.items()}
    card = bv.sensitivity.cardinal_sensitivity(s, time_limit=3, seed=2)
    assert a.sections["cardinal_sensitivity"]["tau_distance"] == card.tau_distance
    assert a.sections["cardinal_sensitivity"]["optimal"] == card.optimal
    top3 = bv.sensitivity.possible_winners(s, k=3, time_limit=3)
    assert a.sections["possible_winners"]["top_k_possible"] == list(s.index[top3.possible.to_numpy()])
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
    assert ["task 0", "copy"] in t["duplicated_tasks"]


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
    s.iloc[0, 0] = s.iloc[1, 1] = np.nan
    with pytest.raises(ValueError, match="no two models are scored on the same two tasks"):
        audit(s, **FAST)
    with pytest.raises(ValueError, match="top_k must be >= 2"):
        audit(_board(), top_k=1)


# --------------------------------------------------------------------------- the page, offline, in Chromium


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    board = load("SuperGLUE")
    scores = board.scores.copy()
    scores.iloc[3, 2] = np.nan  # one missing cell: the missing section too
    report = audit(scores, board.higher_is_better, **FAST)
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
    assert figures.count() >= 3
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
    undefined = {name: sec["undefined"] for name, sec in a.sections.items() if "undefined" in sec}
    assert not undefined, undefined
    # the complete-part sections are those of the part without the flat task
    part = s.loc[[m for m in s.index if m != "model 5"], ["task 0", "task 1", "task 2", "task 3"]]
    ours, theirs = a.to_dict()["sections"], audit(part, **FAST).to_dict()["sections"]
    for name in ("rankings", "possible_winners", "cardinal_sensitivity", "spectrum", "diversity"):
        ours[name].pop("seconds"), theirs[name].pop("seconds")
        assert ours[name] == theirs[name], name
    assert set(a.sections["missing"]["ranking"]) == set(s.index)  # the whole table, flat task included
    page = a.to_html()
    assert "constant on the complete part" in page
    assert "data-json='table.constant_in_part.0.score'>0.5<" in page
