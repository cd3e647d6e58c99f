"""Missing scores: every model of the table ranked by partial Borda, and which pairs the observed tasks decide.

This section works on the whole table (every model, every task that orders
them, missing cells included; constant tasks apart), not on the complete
part.  Partial Borda (Himmi et al.) scores each model by the expected number
of (task, model) pairs it beats, reading each task's partial ranking of the
models scored on it.  The pairwise confidence of a pair is Hoeffding's
interval around the share of their shared tasks on which one ranks above
the other (ties count half): the pair is decided when 1/2 lies outside it.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np

from ...aggregation import mean_win_rate
from ...missing import pairwise_confidence, partial_borda
from .._errors import NotDefined
from .._prepare import Context, names, series
from .._registry import Output, Section, Sentence, register
from .._text import plural

#: Confidence level delta of the pairwise intervals (each holds with probability at least 1 - delta).
DELTA = 0.05
#: The pairwise confidences are computed among at most this many models (the best by partial Borda).
MAX_PAIR_MODELS = 1500


class Result(TypedDict):
    partial_borda: dict[str, float]
    ranking: list[str]
    helm_win_rate: dict[str, float]
    coverage: dict[str, float]
    delta: float
    decided_pairs: int
    n_pairs: int
    undecided_top_pairs: list[list[str]]
    n_models: int
    n_tasks: int
    scope: str


def check_partial(full: Any) -> None:
    """The missing-score measures need every task to compare two models and every model to have a score."""
    thin = [str(t) for t in full.columns[(full.notna().sum() < 2).to_numpy()]]
    if thin:
        these = f"task {thin[0]} has" if len(thin) == 1 else f"tasks {', '.join(thin[:5])} have"
        raise NotDefined(f"{these} fewer than 2 scored models and cannot rank anyone")
    empty = [str(m) for m in full.index[full.isna().all(axis=1).to_numpy()]]
    if empty:
        these = f"model {empty[0]} has" if len(empty) == 1 else f"models {', '.join(empty[:5])} have"
        raise NotDefined(f"{these} no score on any task that orders the models")


def when(ctx: Context) -> bool:
    return ctx.has_missing


def compute(ctx: Context, done: dict) -> Output:
    full = ctx.quality
    hib, tol, m = ctx.direction[full.columns], ctx.options.tol, len(ctx.quality)
    check_partial(full)
    known = done["standings"].objects.get("partial_borda") if "standings" in done else None  # the same table
    pb = np.asarray(partial_borda(full, hib, tol=tol) if known is None else known, dtype=float)
    order = list(full.index[np.argsort(-pb, kind="stable")])
    scoped = order[:MAX_PAIR_MODELS]
    conf = pairwise_confidence(full.loc[scoped], hib, delta=DELTA, tol=tol)
    top = min(ctx.options.top_models, len(scoped))
    fields: Result = {
        "partial_borda": series(pb, full.index),
        "ranking": names(order),
        "helm_win_rate": series(mean_win_rate(full, hib, convention="helm"), full.index),
        "coverage": series(full.notna().mean(axis=1), full.index),
        "delta": DELTA,
        "decided_pairs": conf.n_decided_pairs,
        "n_pairs": len(scoped) * (len(scoped) - 1) // 2,
        "undecided_top_pairs": [
            [str(scoped[a]), str(scoped[b])] for a in range(top) for b in range(a + 1, top) if not conf.decided[a, b]
        ],
        "n_models": m,
        "n_tasks": int(full.shape[1]),
        "scope": "every pair of models"
        if len(scoped) == m
        else f"the pairs among the top {len(scoped)} of the {m} models by partial Borda",
    }
    return Output(dict(fields), {"pairwise_confidence": conf})


TEMPLATE = """
<p>Ranked here: all {{ ui.v(s.n_models, "missing.n_models", "d") }} models of the table on the
{{ ui.v(s.n_tasks, "missing.n_tasks", "d") }} tasks that order them, missing cells included (the other sections use
the complete part). Partial Borda scores a model by the expected number of (task, model) pairs it beats, each task
ranking only the models scored on it; the HELM win rate averages, over the tasks a model is scored on, the share of
the other scored models it beats (a tie counts half); coverage is the share of the tasks a model is scored on.</p>
<p>Pairwise confidence ({{ s.scope }}): for two models, the share of their shared tasks on which the first ranks
above the second (a tie counts half) lies, with probability at least 1 &minus; delta on each side, within
&radic;(&minus;ln delta / (2 &times; shared tasks)) of the true share (Hoeffding); the pair is <em>decided</em> when
1/2 lies outside that interval. {{ ui.v(s.decided_pairs, "missing.decided_pairs", "d") }} of
{{ ui.v(s.n_pairs, "missing.n_pairs", "d") }} pairs are decided (delta = {{ ui.v(s.delta, "missing.delta", ".2f") }}).
{% if s.undecided_top_pairs %}Undecided pairs among the top {{ top }}:
{% for a, b in s.undecided_top_pairs %}{{ ui.name(a) }} / {{ ui.name(b) }}{% if not loop.last %}; {% endif %}{% endfor %}.
{% else %}Every pair among the top {{ top }} is decided.{% endif %}</p>
{{ ui.table(["#", "model", "partial Borda", "HELM win rate", "coverage"], rows, numeric=[0, 2, 3, 4],
  specs={0: "d", 2: ".3f", 3: ".3f", 4: ".2f"}, caption="Every model of the table, best first by partial Borda.") }}
"""


def render(view: Any) -> str:
    s = view.s
    rows = [
        [k + 1, m, s["partial_borda"][m], s["helm_win_rate"][m], s["coverage"][m]] for k, m in enumerate(s["ranking"])
    ]
    top = min(view.settings["top_models"], len(s["ranking"]))
    return view.html(TEMPLATE, rows=rows, top=top)


def verdict(s: dict, done: dict) -> list[Sentence]:
    lead = s["ranking"][0]
    text = f"With missing scores, partial Borda ranks {lead} first among all {s['n_models']} models"
    if s["undecided_top_pairs"]:
        n = len(s["undecided_top_pairs"])
        text += f"; {plural(n, 'pair')} among the top {'is' if n == 1 else 'are'} not decided by the observed tasks"
    return [Sentence("missing", text + ".")]


SECTION = register(
    Section(
        name="missing",
        title="Missing scores",
        chapter="missing",
        about="With cells missing, averages compare models on different tasks. Partial Borda ranks from each task's "
        "partial ranking, and the pairwise confidences say which pairs the observed tasks decide.",
        order=100,
        cost=(
            "O(m n log m + p^2 n): partial Borda from each task's ranking; Hoeffding's pairwise confidence among "
            "the top p <= 1,500 models"
        ),
        result=Result,
        compute=compute,
        render=render,
        complete_part=False,
        when=when,
        verdict=verdict,
    )
)
