"""benchvote.audit._registry: every section is one registry entry with its cost, meaning and typed fields."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
from audit_support import FAST, normal_board

import benchvote as bv
from benchvote.audit import SECTIONS, audit

#: The sections that read a table (the others read a battle log: tests/test_audit_section_battles.py).
TABLE_SECTIONS = {name: sec for name, sec in SECTIONS.items() if "table" in sec.reads}


def test_every_registered_section_states_its_cost_class():
    for name, section in SECTIONS.items():
        assert re.search(r"O\(|work budget", section.cost), (name, section.cost)


def test_every_section_is_there_and_says_what_it_means():
    a = audit(normal_board(missing=2), **FAST)
    # units: only when columns are on different scales; pareto: only with declared costs
    expected = set(TABLE_SECTIONS) - {"instance_intervals", "units", "pareto", "groups"}
    assert set(a.sections) == expected
    for name, sec in a.sections.items():
        assert sec["title"] == SECTIONS[name].title
        assert sec["about"].count(". ") >= 1 and sec["chapter"] == SECTIONS[name].chapter
        assert sec["cost"] == SECTIONS[name].cost  # the cost class, stated once where the section is registered
        assert "seconds" not in sec  # timings live apart from the report (issue 37)
    assert list(a.timings) == list(a.sections) and all(v >= 0 for v in a.timings.values())
    assert "seconds" not in a.settings and "seconds" not in a.to_json()
    json.loads(a.to_json())  # every number is JSON (nan as null)


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
    assert [c.name for c in calls] == [n for n in TABLE_SECTIONS if n != "groups"] == list(a.sections)
    assert {c.total for c in calls} == {len(calls)} and [c.index for c in calls] == list(
        range(len(calls))
    )  # units: the normalisation is stated
    page = a.to_html()
    assert re.findall(r'<section id="([^"]+)" data-section', page) == [n for n in TABLE_SECTIONS if n != "groups"]


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
    s = normal_board()
    a = audit(s, **FAST)
    assert a.sections["widest"]["best_task"] == str(s.std().idxmax())
    assert list(a.sections)[-1] == "widest" and a.verdict[-1]["section"] == "widest"
    assert '<section id="widest"' in a.to_html()


def test_every_section_returns_exactly_its_typed_fields():
    from typing import get_type_hints

    s = normal_board(missing=2)
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
    for name, section in TABLE_SECTIONS.items():
        assert name in a.sections, name
        assert a.sections[name]["status"] == "ok", (name, a.sections[name].get("reason"))
        assert set(a.sections[name]) - head == set(get_type_hints(section.result)), name
