"""Every model ranked, missing scores included, with its coverage: the report's primary ranking.

The rules that need every cell see only the complete part of the table.  This
section ranks every model on the whole table under a rule that handles
missing scores: the primary rule when it does (the win rates compare each
pair on the tasks both are scored on), else the strict mean win rate; next
to it partial Borda (each task's partial ranking, :func:`benchvote.missing.partial_borda`)
and each model's coverage, tasks scored / tasks.  A model scored on fewer
than :data:`LOW_COVERAGE` of the tasks is flagged: its win rate rests on few
comparisons, and a first place it takes is not a fact about the benchmark.

Two models that share no scored task are not a comparison: the strict win
rate then averages, for each model, over the models it shares a task with
(itself included, as on a complete table, where this is the strict mean win
rate), and the section counts those pairs.  A model with no score on a task
that orders the models is listed and not ranked.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np
import pandas as pd

from ...aggregation import win_fraction_blocks
from ...missing import partial_borda
from ...ranking import rank
from .._errors import NotDefined
from .._prepare import Context, names, series
from .._registry import Output, Section, Sentence, register
from .missing import check_partial

#: Below this share of the tasks scored, a model is flagged as low coverage.
LOW_COVERAGE = 0.5
#: How many pairs of models that share no task the report names (all are counted).
EXAMPLES = 5
#: What the strict win rate means when some pairs share no task.
INCOMPARABLE = (
    "; a pair of models that share no scored task is not a comparison: each model's rate averages over the "
    "models it shares a task with, itself included"
)


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
    unscored: list[str]
    n_pairs: int
    incomparable_pairs: int
    incomparable_examples: list[list[str]]


def _rule(ctx: Context) -> str:
    primary = ctx.options.primary
    return primary if ctx.rules[primary].handles_missing else "mean_win_rate"


def _partial_borda(full: pd.DataFrame, hib: pd.Series, tol: float) -> Any:

    try:
        check_partial(full)
    except NotDefined:  # a task with one score or a model with none: undefined (the missing section says why)
        return None
    return partial_borda(full, hib, tol=tol)


def _strict_among_comparable(rated: pd.DataFrame, hib: pd.Series, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """The strict mean win rate over the models each one shares a task with (itself included), and the pairs sharing none.

    On a table where every pair shares a task this is the strict mean win rate
    (:func:`benchvote.mean_win_rate`), bit for bit: the same sum over the same
    opponents, divided by the number of models.  The win fractions are read a
    block of rows at a time (no m x m count matrices: 16 GB on 20,000 models).
    The pairs (i < j) that share no task come back as an array of index pairs.
    """

    m = len(rated)
    values, never = np.empty(m), []
    for lo, fraction in win_fraction_blocks(rated.to_numpy(dtype=float), hib.to_numpy(dtype=bool), tol):
        missing = np.isnan(fraction)
        compared = m - 1 - missing.sum(axis=1)
        # each row summed in sorted order, as the library does: the same floats whatever the row order
        values[lo : lo + len(fraction)] = np.sort(np.where(missing, 0.0, fraction), axis=1).sum(axis=1) / (compared + 1)
        never.append(
            np.argwhere(missing & (np.arange(m)[None, :] > np.arange(lo, lo + len(fraction))[:, None])) + (lo, 0)
        )
    return values, np.concatenate(never) if never else np.zeros((0, 2), dtype=np.int64)


def compute(ctx: Context, done: dict) -> Output:
    # no constant or empty task, no model without a score: every task orders two models or more, so every model
    # shares a task with another
    rated = ctx.quality
    hib, tol = ctx.direction[rated.columns], ctx.options.tol
    name = _rule(ctx)
    rule = ctx.rules[name]
    strict, never = _strict_among_comparable(rated, hib, tol)
    definition = rule.definition
    if name == "mean_win_rate":
        values = pd.Series(strict, index=rated.index)
        definition += INCOMPARABLE if len(never) else ""
    else:
        values = pd.Series(np.asarray(rule.fn(rated, hib), dtype=float), index=rated.index)
    scored = rated.notna().sum(axis=1)
    ranks = rank(values.to_numpy(), tol=tol)
    order = rated.index[np.lexsort((-scored.to_numpy(), ranks))]
    coverage = scored / rated.shape[1]
    pb = _partial_borda(rated, hib, tol)
    complete = set(ctx.work.index)
    fields: Result = {
        "rule": name,
        "rule_label": rule.label,
        "definition": definition,
        "ranking": names(order),
        "scores": series(values, rated.index),
        "ranks": series(ranks, rated.index),
        "partial_borda": None if pb is None else series(pb, rated.index),
        "coverage": series(coverage, rated.index),
        "scored": {str(m): int(v) for m, v in scored.items()},
        "n_tasks": int(rated.shape[1]),
        "low_coverage": names(m for m in order if coverage[m] < LOW_COVERAGE),
        "threshold": LOW_COVERAGE,
        "in_complete_part": {str(m): m in complete for m in rated.index},
        "unscored": names(ctx.unscored),
        "n_pairs": len(rated) * (len(rated) - 1) // 2,
        "incomparable_pairs": len(never),
        "incomparable_examples": [[str(rated.index[i]), str(rated.index[j])] for i, j in never[:EXAMPLES]],
    }
    return Output(dict(fields), {"standings": values, "partial_borda": pb})


TEMPLATE = """
<p>Every model of the table, ranked by the {{ label }}: {{ s.definition }}.
Coverage is the share of the {{ ui.v(s.n_tasks, "standings.n_tasks", "d") }} tasks a model is scored on;
{{ ui.count(s.low_coverage, "standings.low_coverage") }} model{{ s.low_coverage|length|s }} scored on fewer than {{ ui.pct(s.threshold, "standings.threshold") }} of them {{ "is" if s.low_coverage|length == 1 else "are" }} flagged
(their win rate rests on few comparisons).
{% if has_missing %}The column "complete part" says whether the model is among those the complete-data measures use (scored on every task they use).{% endif %}</p>
{% if s.incomparable_pairs %}<p>{{ ui.v(s.incomparable_pairs, "standings.incomparable_pairs", "d") }} of the
{{ ui.v(s.n_pairs, "standings.n_pairs", "d") }} pairs of ranked models share no scored task: they are not compared, and
their order here comes from the models each of them is compared with (for example
{% for a, b in s.incomparable_examples %}{{ ui.name(a) }} / {{ ui.name(b) }}{% if not loop.last %}; {% endif %}{% endfor %}).</p>{% endif %}
{% if s.unscored %}<p>Not ranked, because they have no score on a task that orders the models: {{ ui.names(s.unscored) }}.</p>{% endif %}
{{ ui.table(header, rows, numeric=numeric, specs=specs, page=25) }}
"""


def in_sentence(label: str) -> str:
    """A rule's label inside a sentence: "Mean score" becomes "mean score"; a name stays ("Bradley-Terry", "Ranked Pairs")."""
    words = label.split()
    name = words[0] in PROPER or (len(words) > 1 and all(w[:1].isupper() for w in words if w[:1].isalpha()))
    return label if name else label[:1].lower() + label[1:]


#: Rule labels that open with a person's name.
PROPER = {"Borda", "Bradley-Terry", "Copeland", "Kemeny", "Schulze", "Tideman"}


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
    return view.html(
        TEMPLATE,
        header=header,
        rows=rows,
        numeric=list(specs),
        specs=specs,
        has_missing=has_missing,
        label=in_sentence(s["rule_label"]),
    )


def verdict(s: dict, done: dict) -> list[Sentence]:
    """A sentence only when the missing scores matter: a low-coverage model near the top, or another leader."""
    first = s["ranking"][0]
    complete = done.get("rankings", {}).get("ranking", [first])[0]
    top_low = [m for m in s["ranking"][:5] if m in s["low_coverage"]]
    if not top_low and first == complete:
        return []
    label = in_sentence(s["rule_label"])
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
        cost=(
            "O(m^2 n) time, O(m) memory a row: the strict win rate compares every two models on their shared "
            "tasks, a block of rows at a time (compiled); partial Borda O(m n log m)"
        ),
        result=Result,
        compute=compute,
        render=render,
        complete_part=False,
        verdict=verdict,
    )
)
