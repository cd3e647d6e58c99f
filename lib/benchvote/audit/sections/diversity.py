"""Diversity of the tasks: Kendall's W of the task rankings on the complete part, its complement, and the mean rank change.

Kendall's W (tie-corrected) is 1 when every task ranks the models of the
complete part the same way and near 0 when the task rankings are unrelated;
the diversity of Zhang and Hardt is ``1 - W``.  The mean pairwise maximum
rank change is the largest move of one model between two tasks' rankings,
averaged over the pairs of tasks.
"""

from __future__ import annotations

from typing import Any, TypedDict

from ...concordance import diversity
from ...ranking import rank
from .._errors import NotDefined
from .._prepare import Context
from .._registry import Output, Section, register


class Result(TypedDict):
    kendall_w: float
    diversity: float
    mean_pairwise_mrc: float
    n_models: int
    n_tasks: int


def compute(ctx: Context, done: dict) -> Output:
    work, hib, tol = ctx.work, ctx.hib, ctx.options.tol
    if (rank(work, hib, tol=tol).nunique() <= 1).all():
        raise NotDefined("every task ranks all models as tied; Kendall's W is undefined")
    d = diversity(work, hib, tol=tol)
    fields: Result = {
        "kendall_w": float(d.w),
        "diversity": float(d.diversity),
        "mean_pairwise_mrc": float(d.mean_pairwise_mrc),
        "n_models": int(work.shape[0]),
        "n_tasks": int(work.shape[1]),
    }
    return Output(dict(fields), {"diversity": d})


TEMPLATE = """
<p>{{ ui.on_part(all) }}: the {{ ui.v(s.n_models, "diversity.n_models", "d") }} models scored on every task and the
{{ ui.v(s.n_tasks, "diversity.n_tasks", "d") }} tasks that order them (the table section lists both).</p>
{{ ui.table(["measure", "value", "definition"], [
  ["Kendall's W", s.kendall_w, "agreement of the task rankings, tie-corrected: 1 when every task ranks the models alike, near 0 when they are unrelated"],
  ["diversity 1 - W", s.diversity, "Zhang and Hardt's diversity of the benchmark"],
  ["mean pairwise max rank change", s.mean_pairwise_mrc, "for each pair of tasks, the largest move of one model between the two rankings, as a share of the most places a model can move (0: no model moves, 1: a model goes from first to last), averaged over the pairs of tasks"],
], numeric=[1]) }}
<p>Kendall's W is {{ ui.v(s.kendall_w, "diversity.kendall_w") }}: {% if s.kendall_w is number and s.kendall_w >= 0.7 %}the tasks mostly agree on the order of the models{% elif s.kendall_w is number and s.kendall_w >= 0.3 %}the tasks agree in part{% else %}the tasks rank the models very differently{% endif %}.</p>
"""


def render(view: Any) -> str:
    return view.html(TEMPLATE)


SECTION = register(
    Section(
        name="diversity",
        title="Diversity of the tasks",
        chapter="tradeoff",
        about="Kendall's W measures how much the tasks agree on the order of the models (1 = all the same); "
        "diversity is 1 - W. A diverse benchmark tests more, and its ranking is more fragile.",
        order=50,
        cost="O(m n log m + m n^2): Kendall's W from the task rankings; the largest rank change of every two tasks",
        result=Result,
        compute=compute,
        render=render,
    )
)
