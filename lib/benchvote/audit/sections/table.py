"""What was read: models, tasks, their directions, missing cells, repeated rows and columns, and what is left out."""

from __future__ import annotations

from typing import Any, TypedDict

import pandas as pd

from .._prepare import Context, names
from .._registry import Output, Section, register


class Result(TypedDict):
    n_models: int
    n_tasks: int
    models: list[str]
    tasks: list[str]
    higher_is_better: dict[str, bool]
    missing_cells: int
    missing_by_task: dict[str, int]
    missing_by_model: dict[str, int]
    constant_tasks: list[str]
    duplicated_tasks: list[list[str]]
    duplicated_models: list[list[str]]
    measured_models: list[str]
    left_out_models: list[str]
    measured_tasks: list[str]
    left_out_tasks: list[str]
    constant_in_part: list[dict]
    cost_columns: list[str]
    unscored_models: list[str]
    empty_tasks: list[str]
    complete_part: str | None


def duplicates(frame: pd.DataFrame) -> list[list[str]]:
    """Groups of rows that are identical (missing cells included), each as a list of labels."""
    keyed: dict = {}
    for label, row in zip(frame.index, frame.to_numpy(dtype=float)):
        keyed.setdefault(tuple("nan" if v != v else float(v) for v in row), []).append(str(label))
    return [group for group in keyed.values() if len(group) > 1]


def compute(ctx: Context, done: dict) -> Output:
    table, work = ctx.table, ctx.work
    missing = table.isna()
    flat_names = {f["task"] for f in ctx.flat}
    usable = [t for t in table.columns if t not in ctx.constant]
    fields: Result = {
        "n_models": table.shape[0],
        "n_tasks": table.shape[1],
        "models": names(table.index),
        "tasks": names(table.columns),
        "higher_is_better": {str(t): bool(v) for t, v in ctx.direction.items()},
        "missing_cells": int(missing.to_numpy().sum()),
        "missing_by_task": {str(t): int(v) for t, v in missing.sum().items() if v},
        "missing_by_model": {str(m): int(v) for m, v in missing.sum(axis=1).items() if v},
        "constant_tasks": names(ctx.constant),
        "duplicated_tasks": duplicates(table.T),
        "duplicated_models": duplicates(table),
        "measured_models": names(work.index),
        "left_out_models": names(table.index.difference(work.index, sort=False)),
        "measured_tasks": names(work.columns),
        "left_out_tasks": [str(t) for t in usable if t not in work.columns and str(t) not in flat_names],
        "constant_in_part": ctx.flat,
        "cost_columns": names(ctx.cost_table.columns),
        "unscored_models": names(ctx.unscored),
        "empty_tasks": names(ctx.empty),
        "complete_part": ctx.part_undefined,
    }
    return Output(dict(fields))


TEMPLATE = """
{% set lower = [] %}{% for t, up in s.higher_is_better.items() %}{% if not up %}{% do lower.append(t) %}{% endif %}{% endfor %}
{{ ui.table(["", "value"], [
  ["models", s.n_models], ["tasks", s.n_tasks],
  ["lower-is-better tasks", lower|join(", ") or "none"],
  ["missing cells", s.missing_cells],
  ["constant tasks (left out)", s.constant_tasks|join(", ") or "none"],
  ["identical tasks", groups(s.duplicated_tasks)],
  ["identical models", groups(s.duplicated_models)],
  ["models left out of the complete part (missing scores)", s.left_out_models|length],
  ["tasks left out of the complete part (missing scores)", s.left_out_tasks|join(", ") or "none"],
  ["tasks left out (constant on the complete part)", flat|join(", ") or "none"],
  ["cost columns (left out of every aggregation)", s.cost_columns|join(", ") or "none"],
  ["models with no score on a task that orders the models (left out)", s.unscored_models|length],
  ["tasks with no score (left out)", s.empty_tasks|join(", ") or "none"],
], numeric=[1], specs={1: "d"}) }}
{% if s.unscored_models %}<p>Left out of every measure, with no score on a task that orders the models: {{ ui.names(s.unscored_models[:20]) }}{% if s.unscored_models|length > 20 %} and {{ s.unscored_models|length - 20 }} more{% endif %}.</p>{% endif %}
{% if s.complete_part %}<p>The table has no complete part for the measures that need every cell: {{ s.complete_part }}. Those sections say so in their place; the standings rank every model.</p>
{% else %}<p>The measures that need every cell use the complete part: {{ ui.v(s.measured_models|length, "table.measured_models#len", "d") }} models
scored on all {{ ui.v(s.measured_tasks|length, "table.measured_tasks#len", "d") }} tasks {{ ui.listed(s.measured_tasks) }}.
{% if s.left_out_models %}Left out of it: {{ ui.names(s.left_out_models[:20]) }}{% if s.left_out_models|length > 20 %} and {{ s.left_out_models|length - 20 }} more{% endif %}.{% endif %}</p>{% endif %}
{% if s.constant_in_part %}<p>Tasks left out of the complete part because they are constant on it:</p><ul>
{% for f in s.constant_in_part %}<li>{{ ui.name(f.task) }}: all {{ ui.v(f.n_models, "table.constant_in_part." ~ loop.index0 ~ ".n_models", "d") }} models
score {{ ui.v(f.score, "table.constant_in_part." ~ loop.index0 ~ ".score", ".6g") }}; {{ f.reason }}.</li>{% endfor %}</ul>{% endif %}
"""


def render(view: Any) -> str:
    s = view.s
    return view.html(
        TEMPLATE,
        groups=lambda gs: "; ".join(" = ".join(g) for g in gs) or "none",
        flat=[f["task"] for f in s["constant_in_part"]],
    )


SECTION = register(
    Section(
        name="table",
        title="The table",
        chapter="elections",
        about="What was read: models, tasks, their directions, missing cells, and tasks or models that repeat "
        "another. A task on which every model scores the same cannot order anyone and is left out of the measures.",
        order=20,
        cost="O(m n): one pass over the cells; repeated rows and columns found by hashing",
        result=Result,
        compute=compute,
        render=render,
        complete_part=False,
    )
)
