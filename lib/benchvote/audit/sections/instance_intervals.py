"""Rank intervals from the bootstrap over test instances, ranked by the primary rule on the complete part.

Each redraw picks, in every task, as many test instances as it has,
uniformly with replacement and the same for every model (paired), recomputes
the task means and ranks the models by the primary rule
(:func:`benchvote.intervals.instance_rank_intervals`).  Only the models and
tasks of the complete part take part; above :data:`MAX_MODELS` models, the
top models of the primary ranking only, ranked among themselves (``scope``).
"""

from __future__ import annotations

from typing import Any

from ..._items import as_items
from ...intervals import instance_rank_intervals
from .._prepare import Context
from .._registry import Output, Section, Sentence, register
from .intervals import Result as IntervalResult
from .intervals import adjacent_count, fields_of, interval_verdict, primary_rule, render_intervals

#: Most models the instance bootstrap ranks (each redraw recomputes every task and ranks them by the rule).
MAX_MODELS = 150


class Result(IntervalResult):
    """The task bootstrap's fields, and the tasks whose instances were redrawn."""

    tasks: list[str]


def when(ctx: Context) -> bool:
    return ctx.instances is not None


def compute(ctx: Context, done: dict) -> Output:
    o, work, inst = ctx.options, ctx.work, ctx.instances
    assert inst is not None  # the section runs only with instances (see when)
    order = list(done["rankings"].objects["order"])
    top = order[:MAX_MODELS]
    keep = as_items(inst, top, work.columns)
    r = instance_rank_intervals(
        keep, {str(t): bool(v) for t, v in ctx.hib.items()}, rule=primary_rule(ctx),
        n_boot=o.n_boot, level=o.level, tol=o.tol, seed=o.seed,
    )  # fmt: skip
    ranked = [m for m in top if m in set(r.ranks.index)]
    ranked = sorted(ranked, key=lambda m: (r.ranks[m], ranked.index(m)))
    m = len(order)
    scope = (
        f"all {m} models of the complete part"
        if len(top) == m
        else f"the top {len(top)} of the {m} models of the complete part under the primary rule, ranked among themselves"
    )
    fields = fields_of(ctx, r, ranked, adjacent_count(ranked, r.inseparable), scope,
                       "each redraw's task means ranked by the rule (benchvote.intervals.instance_rank_intervals)")  # fmt: skip
    fields["tasks"] = sorted(map(str, keep.tasks))
    return Output(fields, {"instance_intervals": r})


def render(view: Any) -> str:
    return render_intervals(
        view, "draws each task's test instances with replacement (paired across models) and ranks the models again",
        "test instances",
    )  # fmt: skip


def verdict(s: dict, done: dict) -> list[Sentence]:
    return interval_verdict("instance_intervals", s)


SECTION = register(
    Section(
        name="instance_intervals",
        title="Rank intervals (bootstrap over test instances)",
        chapter="uncertainty",
        about="Each task's test instances are redrawn, paired across models, and the task scores recomputed. "
        "This measures the doubt that finite test sets leave, as the task bootstrap does for the choice of tasks.",
        order=61,
        cost="O(B (I + k n + k log k)) for B redraws of I instances, among the top k <= 150 models",
        result=Result,
        compute=compute,
        render=render,
        needs=("rankings",),
        when=when,
        verdict=verdict,
    )
)
