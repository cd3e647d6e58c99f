"""The one policy of ``method="auto"`` (benchvote.sensitivity._policy), asked by every entry point that chooses."""

from __future__ import annotations

import numpy as np
import pytest

from benchvote.audit.sections import cardinal_sensitivity as audit_section
from benchvote.sensitivity import (
    AUTO_EXACT_MAX_TASKS,
    AUTO_MILP_MAX_PAIRS,
    cardinal_sensitivity,
    cardinal_sensitivity_exact,
    exact_method,
)


def _table(models: int, tasks: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.round(rng.normal(size=(models, 1)) + 0.8 * rng.normal(size=(models, tasks)), 3)


@pytest.mark.parametrize(
    "tasks, pairs, expected",
    [
        (1, 10**6, "boxes"),
        (AUTO_EXACT_MAX_TASKS, 10**6, "boxes"),
        (AUTO_EXACT_MAX_TASKS + 1, 0, "milp"),
        (AUTO_EXACT_MAX_TASKS + 1, AUTO_MILP_MAX_PAIRS, "milp"),
        (AUTO_EXACT_MAX_TASKS + 1, AUTO_MILP_MAX_PAIRS + 1, "cliques"),
        (57, 4748, "cliques"),
    ],
)
def test_the_policy_picks_boxes_on_few_tasks_then_the_milp_on_few_pairs_then_the_clique_search(tasks, pairs, expected):
    assert exact_method(tasks, pairs) == expected


def test_the_exact_entry_point_follows_the_policy_on_every_kind_of_table():
    few_tasks = _table(12, AUTO_EXACT_MAX_TASKS)
    few_pairs = _table(12, AUTO_EXACT_MAX_TASKS + 2)  # 66 pairs
    many_pairs = _table(40, AUTO_EXACT_MAX_TASKS + 2)  # 780 pairs
    assert cardinal_sensitivity_exact(few_tasks, eps=0.2, work_limit=50).method == "boxes"
    assert cardinal_sensitivity_exact(few_pairs, eps=0.2, work_limit=50).method == "milp"
    # before the policy, auto ran the MILP here too, whose bound stalls on thousands of pairs
    assert cardinal_sensitivity_exact(many_pairs, eps=0.2, work_limit=1).method == "cliques"


def test_the_default_entry_point_proves_few_task_tables_with_the_box_search():
    r = cardinal_sensitivity(_table(8, 3), eps=0.2)
    assert r.method == "boxes" and r.optimal


def test_the_audit_uses_the_library_threshold_for_the_box_search():
    assert audit_section.BOX_TASKS == AUTO_EXACT_MAX_TASKS
