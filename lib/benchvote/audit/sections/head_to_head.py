"""Head to head among the top models: for each pair, the tasks each wins, loses and ties.

The top ``top_models`` models of the primary ranking (at least
:data:`LEAST`, at most :data:`MOST`) are compared pair by pair on every
quality task both are scored on, missing cells included
(:func:`benchvote.aggregation.pairwise_wins` on the whole table without the
constant tasks, restricted to these models): a task is won when the model
ranks strictly above the other on it, tied when the two lie within the tie
tolerance.  The win share is wins over tasks compared.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np

from ...aggregation import pairwise_wins
from .._charts import heatmap
from .._prepare import Context, names
from .._registry import Output, Section, Sentence, register
from .._text import some

#: Fewest and most models in the matrix (``top_models`` is clipped to this range and to the number of models).
LEAST, MOST = 6, 12


class Result(TypedDict):
    models: list[str]
    n_tasks: int
    wins: dict[str, dict[str, int]]
    ties: dict[str, dict[str, int]]
    compared: dict[str, dict[str, int]]
    win_share: dict[str, dict[str, float | None]]
    majority_wins: dict[str, int]
    leader: str
    leader_loses_to: list[str]


def compute(ctx: Context, done: dict) -> Output:

    order = list(done["rankings"].objects["order"])
    top = order[: min(max(ctx.options.top_models, LEAST), MOST, len(order))]
    quality = ctx.quality.loc[top]
    c = pairwise_wins(quality, ctx.direction[quality.columns].to_numpy(dtype=bool), tol=ctx.options.tol)
    share = c.win_fraction()
    np.fill_diagonal(share, np.nan)
    labels = names(top)

    def matrix(values: np.ndarray, cast: Any) -> dict:
        return {a: {b: cast(values[i, j]) for j, b in enumerate(labels)} for i, a in enumerate(labels)}

    losses = c.wins.T
    fields: Result = {
        "models": labels,
        "n_tasks": quality.shape[1],
        "wins": matrix(c.wins, int),
        "ties": matrix(c.ties, int),
        "compared": matrix(c.compared, int),
        "win_share": matrix(share, lambda v: None if np.isnan(v) else float(v)),
        "majority_wins": {a: int((c.wins[i] > losses[i]).sum()) for i, a in enumerate(labels)},
        "leader": labels[0],
        "leader_loses_to": [b for j, b in enumerate(labels) if c.wins[0, j] < losses[0, j]],
    }
    return Output(dict(fields))


TEMPLATE = """
{% set key = "head_to_head" %}
<p>The top {{ ui.count(s.models, key ~ ".models") }} models of the primary ranking, compared pair by pair on each of
the {{ ui.v(s.n_tasks, key ~ ".n_tasks", "d") }} tasks both are scored on (missing cells included: a pair skips a task
that either lacks). A cell reads wins&ndash;losses&ndash;ties of the row model against the column model; a tie is two
scores within the tie tolerance. The last column counts the opponents the row model beats on more tasks than it loses.</p>
{{ ui.table(header, rows, numeric=[0, header|length - 1], specs={0: "d", header|length - 1: "d"},
   caption="Head to head: tasks won, lost and tied (row against column); columns numbered as the rows") }}
{% if s.leader_loses_to %}<p>{{ ui.name(s.leader) }}, first in the primary ranking, wins fewer tasks than it loses
against {{ ui.names(s.leader_loses_to) }}.</p>{% else %}<p>{{ ui.name(s.leader) }}, first in the primary ranking,
loses to none of them head to head (it wins at least as many shared tasks as it loses against each).</p>{% endif %}
{% call ui.figure(caption) %}{{ ui.heatmap("head-to-head", chart) }}{% endcall %}
"""


def render(view: Any) -> str:
    s = view.s
    models = s["models"]
    rows = []
    for k, a in enumerate(models):
        cells = [
            "\u2013" if a == b else f"{s['wins'][a][b]}\u2013{s['wins'][b][a]}\u2013{s['ties'][a][b]}" for b in models
        ]
        rows.append([k + 1, a, *cells, s["majority_wins"][a]])
    header = ["#", "model", *[str(k + 1) for k in range(len(models))], "beaten"]
    share = np.array([[np.nan if s["win_share"][a][b] is None else s["win_share"][a][b] for b in models]
                      for a in models], dtype=float)  # fmt: skip
    chart = heatmap(
        share,
        models,
        "Win shares among the top models",
        f"A {len(models)} by {len(models)} grid: each cell is the share of the shared tasks on which the row model "
        "ranks above the column model, from white (none) to blue (all); the diagonal is grey.",
        diverging=False,
    )
    caption = (
        "Figure: head-to-head win shares (tasks won / tasks both are scored on), row model against column model; "
        "columns numbered as the rows, best first in the primary ranking."
    )
    return view.html(TEMPLATE, header=header, rows=rows, chart=chart, caption=caption)


def verdict(s: dict, done: dict) -> list:
    if not s["leader_loses_to"]:
        return []
    shown = some(s["leader_loses_to"], 4)
    return [
        Sentence(
            "head_to_head",
            f"Head to head, {s['leader']} (first in the primary ranking) wins fewer tasks than it loses against {shown}.",
            secondary=True,
        )
    ]


SECTION = register(
    Section(
        name="head_to_head",
        title="Head to head among the top models",
        chapter="elections",
        about="For each pair of the top models, the tasks on which each ranks above the other, and the ties, over the "
        "tasks both are scored on. A leader that loses head to head to another top model owes its place to the rule "
        "that adds the tasks up.",
        order=65,
        cost="O(k^2 n) among the k top models (top_models, at least 6, at most 12)",
        result=Result,
        compute=compute,
        render=render,
        needs=("rankings",),
        verdict=verdict,
    )
)
