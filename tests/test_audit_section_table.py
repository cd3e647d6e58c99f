"""benchvote.audit.sections.table: the complete part of the table, constant, duplicated and empty tasks."""

from __future__ import annotations

import numpy as np
import pandas as pd
from audit_support import FAST, NAN, normal_board

from benchvote.audit import audit


def test_constant_and_duplicated_tasks_are_reported():
    s = normal_board(seed=4)
    s["flat"] = 1.0
    s["copy"] = s["task 0"]
    a = audit(s, **FAST)
    t = a.sections["table"]
    assert t["constant_tasks"] == ["flat"] and "flat" not in t["measured_tasks"]
    assert ["copy", "task 0"] in t["duplicated_tasks"]  # in the order of the names, as every list of the report


def test_a_task_most_models_miss_is_left_out_when_that_keeps_more_cells():
    s = normal_board(seed=6, m=10, n=5)
    s.iloc[:7, 2] = np.nan  # seven of ten models lack task 2
    a = audit(s, **FAST)
    t = a.sections["table"]
    assert t["left_out_tasks"] == ["task 2"] and t["left_out_models"] == []
    assert a.sections["missing"]["ranking"]  # the whole table, task 2 included, is ranked there
    s.iloc[0, 0] = np.nan  # one more hole: dropping task 2 keeps 9 x 4 = 36 cells, more than 3 x 5
    t = audit(s, **FAST).sections["table"]
    assert t["left_out_tasks"] == ["task 2"] and t["left_out_models"] == ["model 0"]


def test_the_audit_and_the_library_call_the_same_tasks_constant():
    """One rule: the audit's constant tasks are ``_validation.constant_tasks``; a task with no score is empty."""
    from benchvote._validation import constant_tasks

    s = normal_board(seed=2, m=5, n=3)
    s["never run"] = NAN
    s["flat"] = 1.0
    s["one score"] = [2.0, NAN, NAN, NAN, NAN]
    t = audit(s, **FAST).sections["table"]
    library = sorted(s.columns[constant_tasks(s.to_numpy(dtype=float), 1e-9)])
    assert t["constant_tasks"] == library == ["flat", "one score"]
    assert t["empty_tasks"] == ["never run"]


def test_an_empty_task_is_listed_and_left_out():
    s = normal_board(seed=2, m=5, n=3)
    s["never run"] = NAN
    a = audit(s, **FAST)
    assert a.sections["table"]["empty_tasks"] == ["never run"]
    assert "never run" not in a.sections["rankings"]["tasks"] and not a.errors


def _flat_on_part() -> pd.DataFrame:
    """Six models; ``flat`` is 0.5 for the five models scored on every task, 0.9 for the sixth (which misses t1)."""
    s = normal_board(seed=4, m=6, n=4)
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
