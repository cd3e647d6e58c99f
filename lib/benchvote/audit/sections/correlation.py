"""How the tasks correlate: Kendall's tau-b between every pair of tasks on the complete part.

Each task is read as its ranking of the models (ties within the tie
tolerance shared, the best first), so a positive tau-b means two tasks
order the models of the complete part alike.  Tau-b is the
number of concordant minus discordant pairs of models over the geometric
mean of the pairs each task does not tie (``pandas.DataFrame.corr`` with
``method="kendall"``, which calls :func:`scipy.stats.kendalltau`).
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np
import pandas as pd

from ...ranking import rank
from .. import _charts
from .._prepare import Context, names
from .._registry import Output, Section, register

#: Most tasks drawn in the heatmap; beyond, the table of pairs alone shows them.
MAX_CHART_TASKS = 60
#: Pairs named as the most and the least correlated.
EXTREMES = 3


class Result(TypedDict):
    method: str
    tasks: list[str]
    matrix: list[list[float | None]]
    mean_tau: float | None
    most_correlated: list[dict]
    least_correlated: list[dict]
    n_models: int
    n_tasks: int


def compute(ctx: Context, done: dict) -> Output:
    work = ctx.work
    # each task's midranks (1 = best, ties within tol shared), negated: higher is better, float noise is a tie
    frame = pd.DataFrame(-np.asarray(rank(work, ctx.hib, tol=ctx.options.tol), dtype=float))
    tau = frame.corr(method="kendall").to_numpy(dtype=float)
    n = work.shape[1]
    iu, ju = np.triu_indices(n, k=1)
    values = tau[iu, ju]
    finite = np.isfinite(values)
    order = [int(k) for k in np.argsort(-np.where(finite, values, -np.inf), kind="stable") if finite[k]]
    label = names(work.columns)
    few = min(EXTREMES, len(order) // 2)  # the most and the least alike never share a pair

    def pair(k: int) -> dict:
        return {"tasks": [label[iu[k]], label[ju[k]]], "tau": float(values[k])}

    fields: Result = {
        "method": "kendall_tau_b",
        "tasks": label,
        "matrix": [[float(v) if np.isfinite(v) else None for v in row] for row in tau],
        "mean_tau": float(values[finite].mean()) if finite.any() else None,
        "most_correlated": [pair(k) for k in order[: max(few, 1)]],
        "least_correlated": [pair(k) for k in reversed(order[len(order) - few :])] if few else [],
        "n_models": int(work.shape[0]),
        "n_tasks": n,
    }
    return Output(dict(fields), {"task_correlation": pd.DataFrame(tau, index=work.columns, columns=work.columns)})


TEMPLATE = """
<p>{{ ui.on_part(all) }}: {{ ui.v(s.n_models, "correlation.n_models", "d") }} models scored on every task and
{{ ui.v(s.n_tasks, "correlation.n_tasks", "d") }} tasks, each turned so that higher is better. Kendall's tau-b of two
tasks is the number of pairs of models they order alike minus the number they order oppositely, over the geometric
mean of the pairs each task does not tie: 1 when they order the models alike, &minus;1 when oppositely, near 0 when
unrelated. The mean over the pairs of tasks is {{ ui.v(s.mean_tau, "correlation.mean_tau", ".2f") }}.</p>
{% if s.most_correlated %}<p>Most alike: {% for p in s.most_correlated %}{{ ui.name(p.tasks[0]) }} and {{ ui.name(p.tasks[1]) }}
({{ ui.v(p.tau, "correlation.most_correlated." ~ loop.index0 ~ ".tau", ".2f") }}){% if not loop.last %}; {% endif %}{% endfor %}.
{% if s.least_correlated %}Least alike: {% for p in s.least_correlated %}{{ ui.name(p.tasks[0]) }} and {{ ui.name(p.tasks[1]) }}
({{ ui.v(p.tau, "correlation.least_correlated." ~ loop.index0 ~ ".tau", ".2f") }}){% if not loop.last %}; {% endif %}{% endfor %}.{% endif %}</p>{% endif %}
{% if chart %}{% call ui.figure(caption) %}{{ ui.heatmap("correlation-fig", chart) }}{% endcall %}
{% else %}<p>With more than {{ cap }} tasks the heatmap is left out; the table lists every pair.</p>{% endif %}
{{ ui.table(["task", "task", "Kendall tau-b"], rows, numeric=[2], specs={2: ".3f"},
  caption="Every pair of tasks, most alike first.") }}
"""


def render(view: Any) -> str:
    s = view.s
    tasks, matrix = s["tasks"], s["matrix"]
    n = len(tasks)
    rows = [[tasks[i], tasks[j], matrix[i][j]] for i in range(n) for j in range(i + 1, n)]
    rows.sort(key=lambda r: -r[2] if r[2] is not None else np.inf)
    chart, caption = None, ""
    if n <= MAX_CHART_TASKS:
        grid = np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)
        chart = _charts.heatmap(
            grid, tasks, "Kendall tau-b between the tasks",
            f"A {n} by {n} grid: the cell in row i and column j is coloured by the Kendall tau-b of tasks i and j "
            "on the complete part, blue for 1 (alike), white for 0, orange for -1 (opposite).",
        )  # fmt: skip
        caption = (
            "Figure: Kendall tau-b between every pair of tasks (rows numbered and named, columns numbered in the "
            "same order); blue: the tasks order the models alike, orange: oppositely. Hover a cell for its value."
        )
    return view.html(TEMPLATE, chart=chart, caption=caption, rows=rows, cap=MAX_CHART_TASKS)


SECTION = register(
    Section(
        name="correlation",
        title="How the tasks correlate",
        chapter="tradeoff",
        about="Kendall's tau-b between every pair of tasks, each turned so that higher is better: 1 when two tasks "
        "order the models alike, -1 when oppositely. Tasks that all correlate strongly measure much the same thing; "
        "pairs near 0 or below pull the aggregate ranking in different directions.",
        order=55,
        result=Result,
        compute=compute,
        render=render,
    )
)
