"""The complete part ranked by every rule of :data:`benchvote.rules.RULES`, with Kemeny when in reach.

Where the rules disagree, the ranking is a choice of rule rather than a fact
about the models.  The Condorcet winner and the majority cycles of three
models come from the pairwise majority relation (:mod:`benchvote.voting`),
counted from the m x m relation so that 5,000 models stay cheap.

**Ties and order.**  Models with the same score under a rule share its rank
and are named together, in the order of their names: nothing here depends on
the table's row order.  When no model beats every other on a majority of tasks
but some models are beaten by none (two identical models on top, say), they
are the weak Condorcet winners, tied.  A rule with exact ranks
(:attr:`benchvote.rules.Rule.ranks`, the mean score) is ranked by them: the
rounded means of tasks on scales 1e16 apart would merge models that the exact
means, and the cardinal sensitivity, tell apart.

**Cost** (m models, n tasks).  The majority margins are one compiled
O(m^2 n) pass into an m x m matrix of one byte per pair (two above 127
tasks), shared by the Condorcet winner, the weak winners and the cycle
count.  The cycles of three models are counted in O(m^2) from the
out-degrees, plus O(m / 64) per tied pair (:func:`benchvote.voting.count_condorcet_cycles`);
they are listed, the most robust first, when there are at most
:data:`CYCLES_LISTED_MAX` (work proportional to their number), and otherwise
from the top :data:`CYCLES_AMONG` models by the primary rule only (the report
says so).  Copeland is O(m^2); Ranked Pairs scans the margins once per margin
value and searches the locked graph only for the defeats that disagree with
its current order; Bradley-Terry's Newton steps are O(m^2) each (matrix-free
above 250 models); the strict mean win rate reads blocks of 256
rows.  Whether majority rule is transitive among the top
:data:`TOP_TRANSITIVE` models is checked on their triples directly.
"""

from __future__ import annotations

from math import comb
from typing import Any, TypedDict

import numpy as np
import pandas as pd

from ... import voting
from ...ranking import kendall_tau_distance, rank
from ...rules import RuleUndefined
from ...voting import KEMENY_MAX_MODELS, kemeny
from .._errors import AuditInputError
from .._prepare import Context, names, series
from .._registry import Output, Section, Sentence, register
from .._text import plural, suffix

#: How many majority cycles the report lists (all are counted).
CYCLES_SHOWN = 20
#: Above this many majority cycles the listed ones are drawn from the top :data:`CYCLES_AMONG` models only.
CYCLES_LISTED_MAX = 100_000
#: How many models, best first by the primary rule, the listed cycles come from when there are too many to sort.
CYCLES_AMONG = 400
#: The verdict says whether majority rule is transitive among this many models, best first by the primary rule.
TOP_TRANSITIVE = 20


class Result(TypedDict):
    primary: str
    ranking: list[str]
    models: list[str]
    tasks: list[str]
    rules: dict[str, dict]
    kendall_distance: dict[str, dict[str, float]]
    kemeny_note: str | None
    condorcet_winner: str | None
    weak_condorcet_winners: list[str]
    leaders: dict[str, list[str]]
    n_cycles: int
    cycles: list[list[str]]
    cycles_among: int | None
    top_cycles: dict[str, Any]


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
        ranks[name] = rank(values.to_numpy(), tol=tol) if rule.ranks is None else rule.ranks(work, hib, tol)
        if name == primary:
            primary_scores = values
        rules[name] = {
            "label": rule.label,
            "definition": rule.definition,
            "scores": series(values, work.index),
            "ranks": series(ranks[name], work.index),
        }
    return rules, ranks, primary_scores


def by_rank(models: Any, ranks: Any) -> list:
    """The models best first; models that share a rank in the order of their names (never the table's order)."""
    r = np.asarray(ranks, dtype=float)
    return [m for _, _, m in sorted(zip(r.tolist(), [str(m) for m in models], models))]


def _kemeny(ctx: Context, rules: dict, ranks: dict) -> str | None:

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


def _distances(ranks: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """Kendall's tau distance between every two rules' ranks: each pair once (the distance is symmetric)."""
    keys = list(ranks)
    half = {(a, b): kendall_tau_distance(ranks[a], ranks[b]) for k, a in enumerate(keys) for b in keys[k + 1 :]}
    return {a: {b: 0.0 if a == b else half.get((a, b), half.get((b, a), 0.0)) for b in keys} for a in keys}


def compute(ctx: Context, done: dict) -> Output:

    work, hib, tol, primary = ctx.work, ctx.hib, ctx.options.tol, ctx.options.primary
    rules, ranks, primary_scores = _rule_ranks(ctx)
    kemeny_note = _kemeny(ctx, rules, ranks)
    distance = _distances(ranks)
    values, direction = work.to_numpy(dtype=float), hib.to_numpy(dtype=bool)
    margins = voting._margins(values, direction, tol)  # one compact m x m matrix for the majority questions
    best = voting._winner(margins)
    winner = None if best is None else work.index[best]
    unbeaten = voting._row_count(margins, -1) == 0
    weak = [] if winner is not None else sorted(str(m) for m, top in zip(work.index, unbeaten.tolist()) if top)
    order = by_rank(work.index, ranks[primary])
    n_cycles = voting._n_cycles(margins)
    position = {m: k for k, m in enumerate(work.index)}
    among = None if n_cycles <= CYCLES_LISTED_MAX else min(CYCLES_AMONG, len(order))
    rows = None if among is None else sorted(position[m] for m in order[:among])
    cycles = voting._list_cycles(values, direction, tol, list(work.index), CYCLES_SHOWN, rows) if n_cycles else []
    top = [position[m] for m in order[:TOP_TRANSITIVE]]
    fields: Result = {
        "primary": primary,
        "ranking": names(order),
        "models": names(work.index),
        "tasks": names(work.columns),
        "rules": rules,
        "kendall_distance": distance,
        "kemeny_note": kemeny_note,
        "condorcet_winner": None if winner is None else str(winner),
        "weak_condorcet_winners": weak,
        "leaders": {q: sorted(str(m) for m in work.index[r == r.min()]) for q, r in ranks.items()},
        "n_cycles": n_cycles,
        "cycles": [names(c.models) for c in cycles],
        "cycles_among": among,
        "top_cycles": _top_cycles(margins[np.ix_(top, top)], names(order[:TOP_TRANSITIVE])),
    }
    return Output(dict(fields), {"order": order, "primary_scores": primary_scores})


def _top_cycles(sub: np.ndarray, models: list[str]) -> dict[str, Any]:
    """Majority cycles among the top models (``sub``: their margins, best first): how many, and the highest-placed one.

    The example is the cycle whose worst-placed model is placed best (then
    the second, then the first), written from its best-placed model on.
    """

    example = None
    for c in range(2, len(models)):
        for b in range(1, c):
            for a in range(b):
                if sub[a, b] > 0 and sub[b, c] > 0 and sub[c, a] > 0:
                    example = [models[a], models[b], models[c]]
                elif sub[a, c] > 0 and sub[c, b] > 0 and sub[b, a] > 0:
                    example = [models[a], models[c], models[b]]
                if example:
                    return {"models": len(models), "n_cycles": voting._n_cycles(sub), "example": example}
    return {"models": len(models), "n_cycles": 0, "example": None}


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
{%- if s.cycles %}; {% if s.cycles_among %}the {{ s.cycles|length }} most robust among the top {{ ui.v(s.cycles_among, "rankings.cycles_among", "d") }} models by the primary rule (the cycles are too many to sort; all are counted, from the models' out-degrees){% else %}the first {{ s.cycles|length }}{% endif %}:</p><ul>{% for c in s.cycles %}<li>{{ ui.names(c + [c[0]], " > ") }}</li>{% endfor %}</ul>{% else %}.</p>{% endif %}{% endif %}
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


def _together(models: list[str]) -> str:
    return models[0] if len(models) == 1 else ", ".join(models[:-1]) + " and " + models[-1]


def agreement(k: int, n: int) -> str:
    """How many of the ``n`` other rules agree (``k``), in words.

    Examples
    --------
    >>> agreement(5, 5), agreement(0, 5), agreement(2, 5), agreement(1, 5), agreement(1, 1), agreement(0, 1)
    ('all 5 other rules agree', 'none of the 5 other rules agrees', '2 of the 5 other rules agree', '1 of the 5 other rules agrees', 'the other rule agrees', 'the other rule does not agree')
    """
    if n == 1:
        return "the other rule agrees" if k else "the other rule does not agree"
    if k == n:
        return f"all {n} other rules agree"
    if k == 0:
        return f"none of the {n} other rules agrees"
    return f"{k} of the {n} other rules agree{'s' if k == 1 else ''}"


def lead_sentence(s: dict, first_models: int | None = None) -> str:
    """The verdict's first sentence: the primary rule's leader or leaders, how many other rules agree, who the others pick."""
    primary, rules = s["primary"], s["rules"]
    top = s["leaders"][primary]
    label = rules[primary]["label"]
    head = f"{_together(top)} {'leads' if len(top) == 1 else 'tie for first'} under the primary rule ({label})"
    head = (
        f"On the whole table, {head}"
        if first_models is None
        else f"On the complete part ({first_models} models), {head}"
    )
    others = [q for q in s["leaders"] if q != primary]
    agree = [q for q in others if s["leaders"][q] == top]
    picks: dict[tuple, list[str]] = {}
    for q in others:
        if s["leaders"][q] != top:
            picks.setdefault(tuple(s["leaders"][q]), []).append(rules[q]["label"])
    text = f"{head}; {agreement(len(agree), len(others))}"
    if picks:
        text += "; " + "; ".join(
            f"{_together(names)} put{'s' if len(names) == 1 else ''} {_together(list(ms))} first"
            for ms, names in sorted(picks.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        )
    return text + "."


def verdict(s: dict, done: dict) -> list[Sentence]:
    whole = done.get("table", {}).get("missing_cells") == 0
    out = [Sentence("rankings", lead_sentence(s, None if whole else len(s["models"])), lead=True)]
    if s["condorcet_winner"]:
        text = f"{s['condorcet_winner']} is the Condorcet winner (beats every other model on a majority of tasks)."
    elif s["weak_condorcet_winners"]:
        weak = s["weak_condorcet_winners"]
        text = (
            f"{_together(weak)} {'is the weak Condorcet winner' if len(weak) == 1 else 'are tied weak Condorcet winners'}: "
            "no model beats "
            + ("it" if len(weak) == 1 else "them")
            + " on a majority of tasks"
            + ("" if len(weak) == 1 else ", and they tie with each other")
            + "."
        )
    else:
        text = _cycles_sentence(s)
    return out + [Sentence("rankings", text, secondary=True)]


def _cycles_sentence(s: dict) -> str:
    """Without a Condorcet winner: is majority rule transitive among the top models, with a cycle to show if not."""
    n, top, m = s["n_cycles"], s["top_cycles"], len(s["models"])
    label = s["rules"][s["primary"]]["label"]
    group = f"the {m} models" if top["models"] == m else f"the top {top['models']} by {label}"
    count = f"{n:,} cycle{suffix(n)} of three models"
    whole = "" if top["models"] == m else f"; {count} on the whole table"
    if top["example"]:
        a, b, c = top["example"]
        return (
            f"There is no Condorcet winner, and majority rule is intransitive among {group}: "
            f"{a} beats {b} on a majority of tasks, {b} beats {c} and {c} beats {a} "
            f"({plural(top['n_cycles'], 'such cycle')} among them{whole})."
        )
    if n == 0:
        return "There is no Condorcet winner, and no majority cycle of three models."
    share = n / comb(m, 3)
    return (
        f"There is no Condorcet winner; majority rule is transitive among {group}, "
        f"but the whole table has {count} ({share:.2%} of its triples of models), "
        "all involving lower-placed models."
    )


SECTION = register(
    Section(
        name="rankings",
        title="Rankings under several rules (complete part)",
        chapter="elections",
        about="The same scores ranked by a cardinal rule (mean score), by win rates, by positional and by majority "
        "rules. Where they disagree, the ranking is a choice of rule rather than a fact about the models.",
        order=40,
        cost=(
            "O(m^2 n) time, m^2 bytes: the majority margins in one compiled pass (int8), shared by Condorcet, "
            "Copeland, Ranked Pairs and the cycle count (closed form, O(m^2)); Bradley-Terry O(m^2) a Newton "
            "step; the other rules O(m n log m)"
        ),
        result=Result,
        compute=compute,
        render=render,
        verdict=verdict,
    )
)
