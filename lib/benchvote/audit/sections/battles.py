"""A battle log, as arena leaderboards publish: what was read, Bradley-Terry ratings, their intervals and ranks.

The log's rows are votes between two models (:mod:`benchvote.battles`);
the section counts them (battles, ties, pairs that met, each model's
battles), fits Bradley-Terry (a tie half a win to each side) and redraws
the battles ``n_boot`` times for each rating's marginal interval, the
arena's upper-bound rank and the simultaneous rank sets
(:func:`benchvote.battles.battle_ratings`).  The ``comparisons`` section
reads the same fit for its pairs and tiers, so the log is fitted once.

Ratings are log-strengths centred to mean 0; the page also shows them on
the arena's Elo-like scale :math:`1000 + 400 \\beta / \\ln 10`
(:data:`ARENA_SCALE`), which only relabels the axis.
"""

from __future__ import annotations

import math
from typing import Any, TypedDict

import numpy as np

from ...battles import battle_ratings
from .._errors import NotDefined
from .._prepare import Context
from .._registry import Output, Section, Sentence, register
from .._text import plural

#: Rows of the ratings table on the page (every model is in the JSON).
SHOWN = 30
#: The arena's Elo-like scale: a rating (log-strength) beta is shown as 1000 + ARENA_SCALE * beta.
ARENA_SCALE = 400 / math.log(10)


class Row(TypedDict):
    model: str
    rating: float
    low: float
    high: float
    upper_rank: int
    lowest: int
    highest: int
    battles: int


class Result(TypedDict):
    n_battles: int
    n_models: int
    n_ties: int
    n_pairs_met: int
    n_pairs: int
    fewest_battles: int
    fewest_battles_models: list[str]
    level: float
    n_boot: int
    n_smoothed: int
    order: list[str]
    models: list[Row]


def compute(ctx: Context, done: dict) -> Output:
    counts, o = ctx.counts, ctx.options
    if counts is None:  # planned only on a battle log; a context without counts is a bug
        raise RuntimeError("the battles section ran without a battle log")
    try:
        r = battle_ratings(ctx.battles, n_boot=o.n_boot, level=o.level, seed=o.seed)
    except ValueError as err:  # the log was checked: what is left is a fit that does not exist
        raise NotDefined(str(err).removeprefix("battles: ")) from None
    played = counts.wins + counts.wins.T + counts.ties
    per_model = played.sum(axis=1).astype(int)
    fewest = int(per_model.min())
    rows = [
        Row(model=str(r.models[i]), rating=float(r.ratings[i]), low=float(r.low[i]), high=float(r.high[i]),
            upper_rank=int(r.upper_rank[i]), lowest=int(r.lowest[i]), highest=int(r.highest[i]),
            battles=int(per_model[i]))
        for i in r.order
    ]  # fmt: skip
    m = len(r.models)
    fields = Result(
        n_battles=r.n_battles,
        n_models=m,
        n_ties=int(np.triu(counts.ties).sum()),
        n_pairs_met=int(np.triu(played > 0).sum()),
        n_pairs=m * (m - 1) // 2,
        fewest_battles=fewest,
        fewest_battles_models=[str(counts.models[i]) for i in np.flatnonzero(per_model == fewest)],
        level=r.level,
        n_boot=r.n_boot,
        n_smoothed=r.n_smoothed,
        order=[row["model"] for row in rows],
        models=rows,
    )
    return Output(dict(fields), {"battles": r})


#: The columns of the ratings table (``benchvote audit LOG --table ratings.csv``), after the model.
COLUMNS = ("rating", "low", "high", "upper_rank", "lowest", "highest", "battles")


def rows(s: dict) -> tuple[list[str], list[list[Any]]]:
    """The ratings table: one row per model, best first (no row when the section was not computed)."""
    body = [[x["model"], *(x[c] for c in COLUMNS)] for x in s.get("models", [])] if s["status"] == "ok" else []
    return ["model", *COLUMNS], body


TEMPLATE = """
<p>{{ ui.v(s.n_battles, key ~ ".n_battles", "d") }} battles among {{ ui.v(s.n_models, key ~ ".n_models", "d") }}
models, {{ ui.v(s.n_ties, key ~ ".n_ties", "d") }} of them ties (half a win to each side);
{{ ui.v(s.n_pairs_met, key ~ ".n_pairs_met", "d") }} of the {{ ui.v(s.n_pairs, key ~ ".n_pairs", "d") }} pairs of models met.
The fewest battles of a model: {{ ui.v(s.fewest_battles, key ~ ".fewest_battles", "d") }}
({{ ui.names(s.fewest_battles_models[:5]) }}{% if s.fewest_battles_models|length > 5 %} and
{{ s.fewest_battles_models|length - 5 }} more{% endif %}).
Intervals: {{ ui.pct(s.level, key ~ ".level") }} percentile intervals from {{ ui.v(s.n_boot, key ~ ".n_boot", "d") }}
redraws of the battles{% if s.n_smoothed %} ({{ ui.v(s.n_smoothed, key ~ ".n_smoothed", "d") }} of the redraws left
some model without a win or a loss and were fitted with pseudo-ties){% endif %}.</p>
<p>The arena's rank compares marginal intervals, one model at a time: it is 1 plus the number of models whose
interval lies wholly above this model's. The rank set holds for all models at once.</p>
{{ ui.table(["place", "model", "rating", "arena scale", "interval", "arena rank", "rank set", "battles"], rows,
  numeric=[0, 2, 3, 5, 7], specs={0: "d", 2: ".3f", 3: ".0f", 5: "d", 7: "d"}, caption=caption) }}
"""


def render(view: Any) -> str:
    s = view.s
    rows = [
        [k + 1, x["model"], x["rating"], 1000 + ARENA_SCALE * x["rating"], f"{x['low']:.3f} to {x['high']:.3f}",
         x["upper_rank"], str(x["lowest"]) if x["lowest"] == x["highest"] else f"{x['lowest']}\u2013{x['highest']}",
         x["battles"]]
        for k, x in enumerate(s["models"][:SHOWN])
    ]  # fmt: skip
    caption = (
        f"Bradley-Terry ratings (log-strengths, mean 0; the arena scale is 1000 + 400 rating / ln 10), best first, "
        f"first {len(rows)} of {plural(len(s['models']), 'model')}"
        + (" (all of them are in the JSON)" if len(s["models"]) > len(rows) else "")
        + "."
    )
    return view.html(TEMPLATE, rows=rows, caption=caption)


def verdict(s: dict, done: dict) -> list[Sentence]:
    top = s["models"][0]
    shared = sum(1 for x in s["models"] if x["upper_rank"] == 1)
    text = (
        f"On {s['n_battles']:,} battles among {s['n_models']} models, {top['model']} has the highest "
        f"Bradley-Terry rating"
    )
    if shared > 1:
        text += f"; the arena's upper-bound rank puts {shared} models at rank 1"
    out = [Sentence("battles", text + ".", lead=True)]
    if s["n_pairs_met"] < s["n_pairs"]:
        out.append(
            Sentence(
                "battles",
                f"{s['n_pairs'] - s['n_pairs_met']:,} of the {s['n_pairs']:,} pairs of models never met: their order "
                "comes from the models each met, through the Bradley-Terry model.",
                secondary=True,
            )
        )
    return out


SECTION = register(
    Section(
        name="battles",
        title="The battle log and its Bradley-Terry ratings",
        chapter="uncertainty",
        about="Each row of the log is one vote between two models. Bradley-Terry turns the votes into one rating "
        "per model; redrawing the votes shows how far each rating, and each rank, could move.",
        order=20,
        cost=(
            "O(B + u log u) to count B battles with u distinct (model_a, model_b, winner) triples, then "
            "O(n_boot (u + m^3)) for the redraws and their Newton fits, and O(n_boot m^2) for the max-T rank sets"
        ),
        result=Result,
        compute=compute,
        render=render,
        verdict=verdict,
        complete_part=False,
        reads=("battles",),
    )
)
