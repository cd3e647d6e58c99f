"""Spectrum of the table: principal components of the complete part, each task oriented, centred and scaled.

Each task is turned so that higher is better, centred and divided by its
standard deviation over the models of the complete part (so no task weighs
more for its units), and the share of the total variance each principal
component explains is reported, with the first component's loadings.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np

from ...spectrum import benchmark_pca
from .. import _charts
from .._errors import NotDefined
from .._prepare import Context, series
from .._registry import Output, Section, register
from .._rules import standardised

#: Components drawn in the figure (the rest are summarised in its caption).
SHOWN = 20
#: Most tasks in the page's table of loadings (the largest in size; the JSON keeps all).
PAGE_TASKS = 40


class Result(TypedDict):
    explained: list[float]
    singular_values: list[float]
    pc1_loadings: dict[str, float]
    components_90: int
    n_models: int
    n_tasks: int


def compute(ctx: Context, done: dict) -> Output:
    work = ctx.work
    p = benchmark_pca(standardised(work, ctx.hib))
    explained = np.asarray(p.explained, dtype=float)
    if not np.isfinite(explained).all():
        raise NotDefined("the principal components are not finite numbers on this table")
    fields: Result = {
        "explained": explained.tolist(),
        "singular_values": np.asarray(p.singular_values, dtype=float).tolist(),
        "pc1_loadings": series(p.pc1_loadings, work.columns),
        "components_90": int(p.components_for(0.9)),
        "n_models": int(work.shape[0]),
        "n_tasks": int(work.shape[1]),
    }
    return Output(dict(fields), {"spectrum": p})


TEMPLATE = """
<p>{{ ui.on_part(all) }}: {{ ui.v(s.n_models, "spectrum.n_models", "d") }} models scored on every task,
{{ ui.v(s.n_tasks, "spectrum.n_tasks", "d") }} tasks, each oriented so that higher is better, centred and divided by
its standard deviation over these models. The share of variance of a component is its squared singular value over the
sum of all of them. The first component explains {{ ui.pct(s.explained[0], "spectrum.explained.0") }} of the
variance; {{ ui.v(s.components_90, "spectrum.components_90", "d") }} of the {{ ui.count(s.explained, "spectrum.explained") }}
components together explain at least 90%.</p>
{% call ui.figure(caption) %}{{ ui.hbars("spectrum-fig", chart) }}{% endcall %}
{{ ui.table(["task", "loading on the first component"], loadings, numeric=[1], specs={1: ".3f"},
  caption="The first component's weight on each task (its sign is chosen so that it correlates positively with the mean score)"
  ~ ("." if loadings|length == s.pc1_loadings|length else "; the " ~ loadings|length ~ " largest in size, "
  ~ (s.pc1_loadings|length - loadings|length) ~ " tasks left out (every loading is in the JSON report).")) }}
"""


def render(view: Any) -> str:
    s = view.s
    shown = s["explained"][:SHOWN]
    labels = [f"PC{k + 1}" for k in range(len(shown))]
    chart = _charts.hbars(
        shown, labels, "Explained variance by component",
        "One bar per principal component of the standardised table, the first at the top: the share of the "
        "table's variance it explains.", "share of variance",
    )  # fmt: skip
    rest = len(s["explained"]) - len(shown)
    caption = (
        f"Figure: share of the variance explained by each principal component of the standardised table, "
        f"first {len(shown)} of {len(s['explained'])}"
        + (
            f" (the other {rest} explain {sum(v or 0.0 for v in s['explained'][SHOWN:]) * 100:.1f}% together)"
            if rest
            else ""
        )
        + "."
    )
    loadings = [[t, v] for t, v in s["pc1_loadings"].items()]
    if len(loadings) > PAGE_TASKS:  # the largest in size; the JSON keeps every loading
        keep = set(sorted(range(len(loadings)), key=lambda k: (-abs(loadings[k][1] or 0.0), k))[:PAGE_TASKS])
        loadings = [row for k, row in enumerate(loadings) if k in keep]
    return view.html(TEMPLATE, chart=chart, caption=caption, loadings=loadings)


SECTION = register(
    Section(
        name="spectrum",
        title="Spectrum of the table",
        chapter="tradeoff",
        about="Principal components of the standardised table (each task centred and scaled to unit variance, so no "
        "task weighs more for its units): a first component that explains most of the variance means the tasks "
        "mostly measure one thing. A flat spectrum means several directions of ability.",
        order=120,
        cost="O(m n min(m, n)): a thin SVD of the standardised complete part",
        result=Result,
        compute=compute,
        render=render,
    )
)
