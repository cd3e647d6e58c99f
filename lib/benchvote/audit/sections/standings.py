"""Every model ranked, missing scores included, with its coverage: the report's primary ranking.

The rules that need every cell see only the complete part of the table.  This
section ranks every model on the whole table under a rule that handles
missing scores: the primary rule when it does (the win rates compare each
pair on the tasks both are scored on), else the strict mean win rate; next
to it partial Borda (each task's partial ranking, :func:`benchvote.missing.partial_borda`)
and each model's coverage, tasks scored / tasks.  A model scored on fewer
than :data:`LOW_COVERAGE` of the tasks is flagged: its win rate rests on few
comparisons, and a first place it takes is not a fact about the benchmark.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np
import pandas as pd

from ...ranking import rank
from .._errors import NotDefined
from .._prepare import Context, names, series
from .._registry import Output, Section, Sentence, register

#: Below this share of the tasks scored, a model is flagged as low coverage.
LOW_COVERAGE = 0.5


class Result(TypedDict):
    rule: str
    rule_label: str
    definition: str
    ranking: list[str]
    scores: dict[str, float]
    ranks: dict[str, float]
    partial_borda: dict[str, float] | None
    coverage: dict[str, float]
    scored: dict[str, int]
    n_tasks: int
    low_coverage: list[str]
    threshold: float
    in_complete_part: dict[str, bool]


def _rule(ctx: Context) -> str:
    primary = ctx.options.primary
    return primary if ctx.rules[primary].handles_missing else "mean_win_rate"


def _partial_borda(full: pd.DataFrame, hib: pd.Series, tol: float) -> Any:
    from ...missing import partial_borda
    from .missing import check_partial

    try:
        check_partial(full)
    except NotDefined:  # a task with one score or a model with none: undefined (the missing section says why)
        return None
    return partial_borda(full, hib, tol=tol)


def compute(ctx: Context, done: dict) -> Output:
    full = ctx.quality
    hib = ctx.direction[full.columns]
    name = _rule(ctx)
    rule = ctx.rules[name]
    scored = full.notna().sum(axis=1)
    if (scored == 0).any():
        empty = names(full.index[scored == 0][:5])
        raise NotDefined(f"model(s) {', '.join(empty)} have no score on any task that orders the models")
    values = pd.Series(np.asarray(rule.fn(full, hib), dtype=float), index=full.index)
    ranks = rank(values.to_numpy(), tol=ctx.options.tol)
    order = full.index[np.lexsort((-scored.to_numpy(), ranks))]
    coverage = scored / full.shape[1]
    pb = _partial_borda(full, hib, ctx.options.tol)
    complete = set(ctx.work.index)
    fields: Result = {
        "rule": name,
        "rule_label": rule.label,
        "definition": rule.definition,
        "ranking": names(order),
        "scores": series(values, full.index),
        "ranks": series(ranks, full.index),
        "partial_borda": None if pb is None else series(pb, full.index),
        "coverage": series(coverage, full.index),
        "scored": {str(m): int(v) for m, v in scored.items()},
        "n_tasks": int(full.shape[1]),
        "low_coverage": names(m for m in order if coverage[m] < LOW_COVERAGE),
        "threshold": LOW_COVERAGE,
        "in_complete_part": {str(m): m in complete for m in full.index},
    }
    return Output(dict(fields), {"standings": values, "partial_borda": pb})


TEMPLATE = """
<p>Every model of the table, ranked by the {{ s.rule_label }}: {{ s.definition }}.
Coverage is the share of the {{ ui.v(s.n_tasks, "standings.n_tasks", "d") }} tasks a model is scored on;
{{ ui.count(s.low_coverage, "standings.low_coverage") }} model{{ s.low_coverage|length|s }} scored on fewer than {{ ui.pct(s.threshold, "standings.threshold") }} of them {{ "is" if s.low_coverage|length == 1 else "are" }} flagged
(their win rate rests on few comparisons).
{% if has_missing %}The column "complete part" says whether the model is among those the complete-data measures use (scored on every task they use).{% endif %}</p>
{{ ui.table(header, rows, numeric=numeric, specs=specs, page=25) }}
"""


def render(view: Any) -> str:
    s = view.s
    low = set(s["low_coverage"])
    has_missing = bool(view.all["table"]["missing_cells"])
    header = ["#", "model", "coverage", s["rule_label"]]
    specs = {0: "g", 2: ".0%", 3: ".3f"}
    if s["partial_borda"] is not None:
        header.append("partial Borda")
        specs[4] = ".3f"
    if has_missing:
        header.append("complete part")
    header.append("flag")
    rows = []
    for m in s["ranking"]:
        row: list[Any] = [s["ranks"][m], m, s["coverage"][m], s["scores"][m]]
        if s["partial_borda"] is not None:
            row.append(s["partial_borda"][m])
        if has_missing:
            row.append("yes" if s["in_complete_part"][m] else "no")
        row.append("low coverage" if m in low else "")
        rows.append(row)
    return view.html(TEMPLATE, header=header, rows=rows, numeric=list(specs), specs=specs, has_missing=has_missing)


def verdict(s: dict, done: dict) -> list[Sentence]:
    """A sentence only when the missing scores matter: a low-coverage model near the top, or another leader."""
    first = s["ranking"][0]
    complete = done.get("rankings", {}).get("ranking", [first])[0]
    top_low = [m for m in s["ranking"][:5] if m in s["low_coverage"]]
    if not top_low and first == complete:
        return []
    label = s["rule_label"][0].lower() + s["rule_label"][1:]
    text = f"Over all {len(s['ranking'])} models, missing scores included, {first} ranks first under the {label}"
    if first in s["low_coverage"]:
        text += f", but it is scored on only {s['scored'][first]} of {s['n_tasks']} tasks (low coverage)"
    elif top_low:
        text += f"; low-coverage models in the top five: {', '.join(top_low)}"
    return [Sentence("standings", text + ".")]


SECTION = register(
    Section(
        name="standings",
        title="Every model, with its coverage",
        chapter="missing",
        about="The primary ranking of every model, missing scores included, under a rule that compares each pair "
        "of models on the tasks both are scored on. Coverage says on how many tasks each place rests; low-coverage "
        "models are flagged rather than trusted.",
        order=30,
        result=Result,
        compute=compute,
        render=render,
        verdict=verdict,
    )
)
