"""The units notice: columns on different scales or named like a cost, the normalisation, and the eps of the box.

When the task spreads (standard deviations over the measured models) of the
table the mean score reads (after the normalisation and the weights) differ by
more than a factor of :data:`UNIT_RATIO`, a column is named like a cost
(:data:`COST_WORDS`), or a normalisation is asked for, this notice opens the
report: the columns, their spreads, and the eps the label-noise box uses and why.

**Decided from the data.**  Only the spreads make the verdict warn: a column
name that looks like a cost ("Memory KV", "Multi Turn Miss Param") is at most
a hint in this section, never a sentence of the verdict, and declared costs
(``costs``) are out of the aggregation anyway.  With a normalisation the
spreads are those of the normalised table, so ``--normalize zscore`` (equal
spreads) gives no "different scales" warning.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np
import pandas as pd

from .._prepare import Context
from .._registry import Output, Section, Sentence, register
from .._rules import NORMALIZATIONS, split_normalize, unit_columns

#: The spread ratio (largest over smallest task standard deviation) above which the audit gives the units notice.
UNIT_RATIO = 10.0
#: Parts of a column name (case-insensitive) that mark a cost rather than a score.
COST_WORDS = ("param", "flop", "latency", "cost", "size", "memory", "time", "_ms", "tokens/s", "price")
UNITS_MEANING = (
    "the mean score adds the columns as they are, so the widest column decides it; rank-based rules (win rates, "
    "Borda, Copeland, Kemeny) compare models within each column and do not depend on the units"
)
#: What a normalisation changes and what it cannot.
NORMALIZE_SCOPE = (
    "the normalisation applies to the cardinal parts only (the mean score, the possible winners, the cardinal "
    "sensitivity and the default eps); the ordinal parts (win rates, Borda, the voting rules, the ordinal "
    "sensitivity, the domains) read only each task's order, which every normalisation keeps"
)


class Result(TypedDict):
    mixed_scales: bool
    threshold: float
    spread_ratio: float
    raw_spread_ratio: float
    weighted: bool
    widest: str
    narrowest: str
    columns: list[str]
    spreads: list[float]
    why: list[str]
    cost_named: list[str]
    meaning: str
    eps: float | None
    eps_source: str
    eps_reason: str
    normalize: str
    normalize_meaning: str
    normalized_spread_ratio: float | None
    scope: str
    suggestion: str | None


def spreads(work: pd.DataFrame) -> pd.Series:
    """Each task's standard deviation over the models (``ddof=0``, as :func:`~benchvote.sensitivity.default_eps`)."""
    unit, scale = unit_columns(work.to_numpy(dtype=float))
    with np.errstate(over="ignore", invalid="ignore"):
        return pd.Series(unit.std(axis=0) * scale, index=work.columns)


def _ratio(spread: pd.Series) -> float:
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        return float(spread.max() / spread.min())


def _eps_reason(ctx: Context) -> str:
    """Why the label-noise box uses the eps it uses (the numbers themselves are in the report's fields)."""
    given, eps = ctx.options.eps, ctx.eps
    if given is not None:
        return "given with the eps option"
    if ctx.box_undefined is not None:
        return ctx.box_undefined
    rule = "default_eps takes min(0.01, smallest spread / largest spread)"
    if eps is not None and eps < 0.01:
        return (
            f"{rule}; it is below 0.01 because the largest task spread is more than 100 times the smallest "
            "(the spread ratio), so the box lets a task keep as little as that share of its labels"
        )
    return f"{rule}; the spread ratio is at most 100, so the cap 0.01 applies"


def _normalisation(ctx: Context, mixed: bool, costly: bool) -> dict:
    normalize = ctx.options.normalize
    ratio = _ratio(spreads(ctx.cardinal)) if normalize != "none" else None
    suggestion = None
    if normalize == "none" and ctx.options.weights is None and (mixed or costly):
        zscore = "--normalize zscore puts every task on unit spread for the cardinal parts; "
        suggestion = (
            (zscore if mixed else "")
            + "columns that are costs rather than scores can be declared with --cost NAME, which "
            "leaves them out of the aggregation and shows the quality-cost front"
        )
    return {
        "normalize": normalize,
        "normalize_meaning": NORMALIZATIONS[split_normalize(normalize)[0]],
        "normalized_spread_ratio": ratio,
        "scope": NORMALIZE_SCOPE,
        "suggestion": suggestion,
    }


def _facts(ctx: Context) -> tuple[pd.Series, float, list, bool]:
    """The spreads of the table the mean reads, their ratio, the cost-like names, and whether the scales differ."""
    spread = spreads(ctx.cardinal)
    ratio = _ratio(spread)
    costly = [t for t in ctx.work.columns if any(w in str(t).lower() for w in COST_WORDS)]
    return spread, ratio, costly, not ratio <= UNIT_RATIO  # an overflowing (inf) or undefined ratio counts as mixed


def when(ctx: Context) -> bool:
    _, _, costly, mixed = _facts(ctx)
    return bool(mixed or costly or ctx.options.normalize != "none" or ctx.options.weights is not None)


def compute(ctx: Context, done: dict) -> Output:
    work = ctx.work
    spread, ratio, costly, mixed = _facts(ctx)
    with np.errstate(invalid="ignore"):
        median = float(spread.median())
    far = {spread.idxmax(), spread.idxmin()} if mixed else set()
    far |= {t for t in work.columns if mixed and not median / UNIT_RATIO <= spread[t] <= median * UNIT_RATIO}
    columns = [t for t in work.columns if t in far or t in costly]
    normalised_eps = ctx.options.normalize != "none" and ctx.options.eps is None and not ctx.box_undefined

    def why(t: Any) -> str:
        return " and ".join(
            (["spread far from the median spread"] if t in far else [])
            + (["name looks like a cost"] if t in costly else [])
        )

    fields: Result = {
        "mixed_scales": mixed,
        "threshold": UNIT_RATIO,
        "spread_ratio": ratio,
        "raw_spread_ratio": _ratio(spreads(work)),
        "weighted": ctx.options.weights is not None,
        "widest": str(spread.idxmax()),
        "narrowest": str(spread.idxmin()),
        "columns": [str(t) for t in columns],
        "spreads": [float(spread[t]) for t in columns],
        "why": [why(t) for t in columns],
        "cost_named": [str(t) for t in costly],
        "meaning": UNITS_MEANING,
        "eps": ctx.eps,
        "eps_source": "given" if ctx.options.eps is not None else "undefined" if ctx.box_undefined else "default_eps",
        "eps_reason": (f"on the {ctx.options.normalize}-normalised table, " if normalised_eps else "")
        + _eps_reason(ctx),
        **_normalisation(ctx, mixed, bool(costly)),  # type: ignore[typeddict-item]
    }
    return Output(dict(fields))


TEMPLATE = """
{% set r = ui.v(s.spread_ratio, "units.spread_ratio", ".3g") %}
{% set table = "normalised " if s.normalize != "none" else "" %}{% set table = table ~ ("weighted " if s.weighted else "") %}
<p>{% if s.mixed_scales %}On the {{ table }}table the mean score reads, the largest task spread (standard deviation over the measured models) is {{ r }} times the smallest,
above {{ ui.v(s.threshold, "units.threshold", "g") }}: the columns are on different scales.
{% elif s.cost_named %}On the {{ table }}table the mean score reads, the task spreads differ by a factor of {{ r }} at most; some column names look like a cost (a hint only: declare costs with --cost).
{% else %}On the {{ table }}table the mean score reads, the task spreads differ by a factor of {{ r }} at most: the columns share one scale.{% endif %}</p>
{% if s.columns %}<ul>{% for c in s.columns %}<li>{{ ui.name(c) }}: spread {{ ui.v(s.spreads[loop.index0], "units.spreads." ~ loop.index0, ".4g") }} ({{ s.why[loop.index0] }})</li>{% endfor %}</ul>
{% if s.mixed_scales %}<p>What it means: {{ s.meaning }}. Widest column: {{ ui.name(s.widest) }}; narrowest: {{ ui.name(s.narrowest) }}.</p>{% endif %}{% endif %}
{% if s.normalize == "none" %}<p>The mean score and the other cardinal parts (possible winners, cardinal sensitivity) read the scores as read{% if s.weighted %}, with the given task weights{% endif %}.</p>
{% else %}<p>The mean score and the other cardinal parts use the normalised table (<code>{{ s.normalize }}</code>): {{ s.normalize_meaning }}.
After it, the largest task spread is {{ ui.v(s.normalized_spread_ratio, "units.normalized_spread_ratio", ".3g") }} times the smallest (before it, {{ ui.v(s.raw_spread_ratio, "units.raw_spread_ratio", ".3g") }}).
{{ s.scope[:1]|upper }}{{ s.scope[1:] }}.</p>{% endif %}
{% if s.suggestion %}<p>Suggestion: {{ s.suggestion }}.</p>{% endif %}
<p>Label-noise box (possible winners, cardinal sensitivity): eps = {{ ui.v(s.eps, "units.eps", ".3g") }}, {{ s.eps_reason }}.</p>
"""


def render(view: Any) -> str:
    return view.html(TEMPLATE)


def verdict(s: dict, done: dict) -> list:
    """A warning when the mean score leads and the spreads of its table differ (a cost-like name alone says nothing)."""

    primary = done.get("rankings", {}).get("primary", "mean_score")
    if not s["mixed_scales"] or primary != "mean_score":  # another primary rule: the notice stays in its section
        return []
    table = "normalised " if s["normalize"] != "none" else ""
    return [
        Sentence(
            "units",
            f"Read the mean score with care: on the {table}table it reads, the task spreads are "
            f"{s['spread_ratio']:.3g} times apart, so the widest column ({s['widest']}) weighs most.",
        )
    ]


SECTION = register(
    Section(
        name="units",
        title="Notice: units and scales of the columns",
        chapter="tradeoff",
        about="Columns on different scales (spreads more than ten times apart) or named like a cost make the mean "
        "score follow the widest column, while rank-based rules (win rates, Borda, Copeland, ...) read only each "
        "column's order. A normalisation puts the tasks on one scale for the cardinal parts; declared costs leave "
        "the aggregation for the quality-cost front.",
        order=10,
        cost="O(m n): the spread of every column, one pass over the cells",
        result=Result,
        compute=compute,
        render=render,
        when=when,
        verdict=verdict,
    )
)
