"""The complete part ranked by every rule of :data:`benchvote.audit.AUDIT_RULES`, with Kemeny when in reach.

Where the rules disagree, the ranking is a choice of rule rather than a fact
about the models.  The Condorcet winner and the majority cycles of three
models come from the pairwise majority relation (:mod:`benchvote.voting`),
counted from the m x m relation so that 5,000 models stay cheap.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np
import pandas as pd

from ...ranking import kendall_tau_distance, rank
from ...rules import RuleUndefined
from ...voting import KEMENY_MAX_MODELS
from .._errors import AuditInputError
from .._prepare import Context, names, series
from .._registry import Output, Section, Sentence, register

#: How many majority cycles the report lists (all are counted).
CYCLES_SHOWN = 20


class Result(TypedDict):
    primary: str
    ranking: list[str]
    models: list[str]
    tasks: list[str]
    rules: dict[str, dict]
    kendall_distance: dict[str, dict[str, float]]
    kemeny_note: str | None
    condorcet_winner: str | None
    n_cycles: int
    cycles: list[list[str]]


def _rule_ranks(ctx: Context) -> tuple[dict, dict, pd.Series]:
    work, hib, tol, primary = ctx.work, ctx.hib, ctx.options.tol, ctx.options.primary
    rules: dict[str, dict[str, Any]] = {}
    ranks: dict[str, np.ndarray] = {}
    primary_scores = pd.Series(dtype=float)
    for name, rule in ctx.rules.items():
        try:
            values = pd.Series(np.asarray(rule.fn(work, hib), dtype=float), index=work.index)
        except RuleUndefined as err:  # a rule undefined on this table (e.g. Bradley-Terry when a model never loses)
            if name == primary:
                raise AuditInputError(f"the primary rule {name} is undefined on this table: {err}") from None
            rules[name] = {"label": rule.label, "definition": rule.definition, "undefined": str(err)}
            continue
        ranks[name] = rank(values.to_numpy(), tol=tol)
        if name == primary:
            primary_scores = values
        rules[name] = {
            "label": rule.label,
            "definition": rule.definition,
            "scores": series(values, work.index),
            "ranks": series(ranks[name], work.index),
        }
    return rules, ranks, primary_scores


def _kemeny(ctx: Context, rules: dict, ranks: dict) -> str | None:
    from ...voting import kemeny

    work = ctx.work
    if work.shape[0] > KEMENY_MAX_MODELS:
        return (
            f"Kemeny is NP-hard and left out above {KEMENY_MAX_MODELS} models "
            f"({work.shape[0]} here); the domains section runs it among the top models"
        )
    k = kemeny(work, ctx.hib, tol=ctx.options.tol, max_models=KEMENY_MAX_MODELS)
    ranks["kemeny"] = np.asarray(k.ranks, dtype=float)
    rules["kemeny"] = {
        "label": "Kemeny",
        "definition": "the ranking that disagrees with the fewest (task, pair) orders",
        "scores": series(-ranks["kemeny"], work.index),
        "ranks": series(ranks["kemeny"], work.index),
        "n_optimal": int(k.n_optimal),
        "disagreements": float(k.disagreements),
    }
    return None


def compute(ctx: Context, done: dict) -> Output:
    from ... import voting

    work, hib, tol, primary = ctx.work, ctx.hib, ctx.options.tol, ctx.options.primary
    rules, ranks, primary_scores = _rule_ranks(ctx)
    kemeny_note = _kemeny(ctx, rules, ranks)
    distance = {a: {b: kendall_tau_distance(ranks[a], ranks[b]) for b in ranks} for a in ranks}
    winner = voting.condorcet_winner(work, hib, tol=tol)
    cycles = voting.condorcet_cycles(work, hib, tol=tol, limit=CYCLES_SHOWN)
    order = list(work.index[np.argsort(ranks[primary], kind="stable")])
    fields: Result = {
        "primary": primary,
        "ranking": names(order),
        "models": names(work.index),
        "tasks": names(work.columns),
        "rules": rules,
        "kendall_distance": distance,
        "kemeny_note": kemeny_note,
        "condorcet_winner": None if winner is None else str(winner),
        "n_cycles": voting.count_condorcet_cycles(work, hib, tol=tol),
        "cycles": [names(c.models) for c in cycles],
    }
    return Output(dict(fields), {"order": order, "primary_scores": primary_scores})


TEMPLATE = """
<p>These rankings use the complete part: {{ ui.v(s.models|length, "rankings.models#len", "d") }} models on {{ ui.v(s.tasks|length, "rankings.tasks#len", "d") }} tasks
({% if s.models|length < all.table.n_models %}models with a missing score are left out; the previous section ranks them all{% else %}every model{% endif %}).
Ranks: 1 = best, ties share the mean rank; models in the order of the primary rule.</p>
{% for q, r in s.rules.items() if r.undefined is defined %}<p>{{ r.label }} is not defined on this table: {{ r.undefined }}.</p>{% endfor %}
{{ ui.table(["#", "model"] + labels, rank_rows, numeric=numeric, specs=specs) }}
<dl class="definitions">{% for q, r in s.rules.items() %}<dt>{{ r.label }}</dt><dd>{{ r.definition }}.</dd>{% endfor %}</dl>
<p>Kendall tau distance between the rules' rankings (the share of model pairs the two order oppositely):</p>
{{ ui.table([""] + labels, dist_rows, numeric=range(1, labels|length + 1)|list) }}
{% if s.kemeny_note %}<p>{{ s.kemeny_note }}.</p>{% endif %}
{% if s.condorcet_winner %}<p>Condorcet winner (beats every other model on a majority of tasks): <strong>{{ ui.name(s.condorcet_winner) }}</strong>.</p>
{% else %}<p>No Condorcet winner: no model beats every other on a majority of the tasks. Majority cycles of three models: {{ ui.v(s.n_cycles, "rankings.n_cycles", "d") }}
{%- if s.cycles %}; the first {{ s.cycles|length }}:</p><ul>{% for c in s.cycles %}<li>{{ ui.names(c + [c[0]], " > ") }}</li>{% endfor %}</ul>{% else %}.</p>{% endif %}{% endif %}
"""


def render(view: Any) -> str:
    s = view.s
    defined = [q for q in s["rules"] if "undefined" not in s["rules"][q]]
    labels = [s["rules"][q]["label"] for q in defined]
    rank_rows = [[k + 1, m, *(s["rules"][q]["ranks"][m] for q in defined)] for k, m in enumerate(s["ranking"])]
    numeric = [0, *range(2, len(defined) + 2)]
    specs = {k: "g" for k in numeric}
    dist_rows = [[s["rules"][a]["label"], *(s["kendall_distance"][a][b] for b in defined)] for a in defined]
    return view.html(TEMPLATE, labels=labels, rank_rows=rank_rows, numeric=numeric, specs=specs, dist_rows=dist_rows)


def verdict(s: dict, done: dict) -> list[Sentence]:
    defined = [r for r in s["rules"].values() if "undefined" not in r]
    first = s["ranking"][0]
    agree = sum(1 for r in defined if r["ranks"][first] == 1)
    whole = done.get("table", {}).get("missing_cells") == 0
    text = f"{'On the whole table' if whole else 'On the complete part'}, {first} is first under {agree} of the {len(defined)} rules"
    if s["condorcet_winner"]:
        same = "it" if s["condorcet_winner"] == first else s["condorcet_winner"]
        text += f", and {same} is the Condorcet winner (beats every other model on a majority of tasks)."
    else:
        text += f"; there is no Condorcet winner ({s['n_cycles']} majority cycles of three models)."
    return [Sentence("rankings", text)]


SECTION = register(
    Section(
        name="rankings",
        title="Rankings under several rules (complete part)",
        chapter="elections",
        about="The same scores ranked by a cardinal rule (mean score), by win rates, by positional and by majority "
        "rules. Where they disagree, the ranking is a choice of rule rather than a fact about the models.",
        order=40,
        result=Result,
        compute=compute,
        render=render,
        verdict=verdict,
    )
)
