"""benchvote.audit and its HTML page: the sections against the library, the table rules, the page in Chromium."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from audit_support import (
    FAST,
    HOSTILE,
    NAN,
    QUICK,
    RTL,
    frame,
    hostile_board,
    instance_scores,
    mixed_board,
    normal_board,
    normalised_oracle,
    order,
    section_html,
)
from chromium import offline_page
from explorable_checks import CHECKS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from markupsafe import escape

import benchvote as bv
from benchvote.audit import SECTIONS, AuditInputError, audit
from benchvote.audit._charts import short_names
from benchvote.data import load

SHOTS = Path(__file__).resolve().parents[1] / "_build" / "screenshots"


def test_missing_scores_leave_models_out_of_the_complete_sections_and_say_so():
    s = normal_board(missing=2)
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
    s = normal_board(seed=1)
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


def test_permuting_models_permutes_the_report():
    s = normal_board(seed=3)
    perm = np.random.default_rng(0).permutation(len(s))
    a, b = audit(s, **FAST), audit(s.iloc[perm], **FAST)
    for key in ("mean_score", "borda", "copeland", "helm_win_rate"):
        assert a.sections["rankings"]["rules"][key]["ranks"] == pytest.approx(
            b.sections["rankings"]["rules"][key]["ranks"]
        )
    assert sorted(a.sections["possible_winners"]["possible"]) == sorted(b.sections["possible_winners"]["possible"])
    assert a.sections["cardinal_sensitivity"]["tau_distance"] == b.sections["cardinal_sensitivity"]["tau_distance"]


def test_bad_input():
    with pytest.raises(ValueError, match="unknown primary rule"):
        audit(normal_board(), primary="plurality")
    with pytest.raises(TypeError, match="labelled table"):
        audit(np.eye(3))
    s = normal_board(m=3, n=2, missing=0)
    s.iloc[1:] = np.nan
    with pytest.raises(ValueError, match=r"only one model \(model 0\) has a score"):
        audit(s, **FAST)
    with pytest.raises(ValueError, match="top_k must be >= 2"):
        audit(normal_board(), top_k=1)


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


# --------------------------------------------------------------------------- normalize


ORDINAL = ("diversity", "intervals", "ordinal_sensitivity", "domains", "spectrum", "table")


@pytest.mark.parametrize("method", ["zscore", "minmax", "rank"])
def test_normalize_changes_the_cardinal_parts_as_defined_and_leaves_the_ordinal_parts(method):
    s, hib = mixed_board()
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
    table = normalised_oracle(s, method)
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
    s, hib = mixed_board(seed=12)
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
        audit(normal_board(), normalize="log")


# --------------------------------------------------------------------------- two runs, the same files


#: tests/test_corpus.py runs every table of the corpus of real leaderboards twice (mixed units, missing cells,
#: costs, lower-is-better, 3 to 1,556 models); of the synthetic tables only this one adds what the corpus has
#: not: scores with two decimals and many near-ties, where the tie tolerance decides the groups.
TWO_RUN_TABLES = ["llm_leaderboard"]


@pytest.mark.slow
@pytest.mark.parametrize("name", TWO_RUN_TABLES)
def test_two_runs_on_a_realistic_table_give_the_same_json(name, tmp_path):
    """The same table, options and seed give byte-identical JSON in two processes.

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


# --------------------------------------------------------------------------- the verdict, import cycles, coverage


def test_the_verdict_opens_the_page_and_links_its_sections():
    a = audit(normal_board(missing=2), **FAST)
    assert 3 <= len(a.verdict) <= bv.audit.VERDICT_SENTENCES
    page = a.to_html()
    head = page.index('id="verdict"')
    assert head < page.index('<section id="table"')
    for v in a.verdict:
        assert f'href="#{v["section"]}"' in page and v["section"] in a.sections
    assert bv.audit.summary(a.to_dict()).count("\n- ") == len(a.verdict)


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


# --------------------------------------------------------------------------- nothing can crash the audit


def test_a_model_with_no_score_is_listed_and_left_out_of_every_measure():
    s = frame({"t1": [1, 2, 3, NAN], "t2": [3, 1, 2, NAN], "t3": [2, 3, 1, NAN]}, "ABCD")
    a = audit(s, **FAST)
    assert a.sections["table"]["unscored_models"] == ["D"]
    assert a.sections["standings"]["unscored"] == ["D"] and "D" not in a.sections["standings"]["ranking"]
    assert a.sections["missing"]["status"] == "ok" and "D" not in a.sections["missing"]["ranking"]
    assert all(sec["status"] == "ok" for sec in a.sections.values()), a.failed
    assert "no score on a task that orders the models" in a.to_html()


def test_a_table_without_a_complete_part_is_audited_as_far_as_the_data_allow():
    s = frame({"t1": [1, 2, NAN], "t2": [NAN, 1, 2], "t3": [3, NAN, 1]}, "ABC")  # no two models share two tasks
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


def test_scores_too_large_to_add_up_are_refused_naming_the_task():
    s = frame({"t1": [1.7e308, 1.6e308, 1.5e308], "t2": [1.7e308, 1.79e308, 1.0], "t3": [2, 3, 1]}, "ABC")
    with pytest.raises(AuditInputError, match=r"tasks t1, t2 have scores beyond .* rescale them"):
        audit(s, **FAST)
    spread = frame({"t1": [1e308, -1e308, 0.5e308], "t2": [3, 1, 2], "t3": [2, 3, 1]}, "ABC")
    with pytest.raises(AuditInputError, match=r"task t1 has scores beyond"):
        audit(spread, **FAST)


def test_scores_just_under_the_bound_are_audited_without_overflow():
    from benchvote.audit._prepare import MAGNITUDE_SHARE

    s = normal_board(seed=9, m=6, n=4)
    s["huge"] = np.linspace(-1.0, 1.0, 6) * MAGNITUDE_SHARE * np.finfo(float).max / 6  # at the bound
    s.iloc[0, 0] = np.nan
    for normalize in ("none", "zscore", "minmax"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # numpy's own overflow warnings too
            a = audit(s, normalize=normalize, **FAST)
            a.to_html()
        assert not a.errors and all(sec["status"] != "error" for sec in a.sections.values()), normalize


def test_the_refusals_name_what_is_wrong():
    flat = frame({"t1": [1, 1, 1], "t2": [2, 2, 2]}, "ABC")
    with pytest.raises(AuditInputError, match="every model scored has the same score on t1, t2"):
        audit(flat, **FAST)
    one = frame({"t1": [1, NAN, NAN], "t2": [NAN, 2, NAN]}, "ABC")
    with pytest.raises(AuditInputError, match="only one model has a score on t1, t2"):
        audit(one, **FAST)


def test_a_task_constant_on_the_table_is_named_when_it_leaves_one_task():
    # the old refusal read "task(s)  give all of them the same score": it named no task
    s = frame({"t1": [1, 2, 3], "flat": [5, 5, 5]}, "ABC")
    a = audit(s, **FAST)
    reason = a.sections["rankings"]["reason"]
    assert "only task t1 orders the models" in reason and "same score on flat" in reason
    assert a.sections["standings"]["ranking"] == ["C", "B", "A"] and not a.errors


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


# --------------------------------------------------------------------------- every section's fields and names

#: Sections that describe the table.
DESCRIPTIVE_SECTIONS = (
    "pareto",
    "diversity",
    "correlation",
    "intervals",
    "instance_intervals",
    "comparisons",
    "missing",
    "domains",
    "spectrum",
)


def test_the_sections_hold_exactly_their_typed_fields_and_escape_every_name():
    scores, long = instance_scores([HOSTILE, RTL, "m2", "m3", "m4", "m5"])
    scores.loc["m2", "t0"] = np.nan
    scores["flat"] = 0.5
    scores["params_M"] = [1.0, 3.0, 7.0, 13.0, 34.0, 70.0]
    a = audit(scores, instances=long, costs=["params_M"], **FAST)
    page = a.to_html()
    for name in DESCRIPTIVE_SECTIONS:
        sec = a.sections[name]
        assert sec["status"] == "ok", (name, sec.get("reason"))
        typed = set(SECTIONS[name].result.__annotations__)
        assert set(sec) - {"title", "about", "chapter", "cost", "status"} == typed, name
        part = section_html(page, name)
        assert f"Cost (m models, n tasks): {escape(SECTIONS[name].cost)}." in part, name
        assert HOSTILE not in part and "<b>&" not in part, name
        assert all(c.startswith("Figure:") for c in re.findall(r"<figcaption>(.*?)</figcaption>", part, re.S)), name
    assert [e["model"] for e in a.sections["pareto"]["no_quality"]] == ["m2"]


#: Sections that test the robustness of the leader.
DECISION_SECTIONS = ("head_to_head", "possible_winners", "cardinal_sensitivity", "ordinal_sensitivity", "groups")


def test_fields_are_the_typed_results_and_the_page_escapes_names():
    s = hostile_board()
    groups = {"<i>t</i>": "g<1>", "task 1": "g<1>", "task 2": "g2", "task 3": "g2", "task 4": "g2"}
    a = audit(s, groups=groups, **QUICK)
    for name in DECISION_SECTIONS:
        fields = {k for k in a.sections[name] if k not in ("title", "about", "chapter", "cost", "status")}
        assert fields == set(SECTIONS[name].result.__annotations__), name
    json.loads(a.to_json())
    page = a.to_html()
    assert "<b>&" not in page and "<i>t</i>" not in page and "g<1>" not in page
    for name in DECISION_SECTIONS:
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


def test_helm_lite_runs_the_head_to_head_the_winners_and_both_sensitivities():
    from benchvote.data import load

    board = load("HELM-lite")
    a = audit(board, **QUICK)
    for name in DECISION_SECTIONS[:4]:
        assert a.sections[name]["status"] == "ok", (name, a.sections[name].get("reason"))
    pw = a.sections["possible_winners"]
    assert pw["possible"] and pw["possible"] == [m for m in order(a) if m in set(pw["possible"])]
    assert a.to_html().count("<section id=") >= 4
