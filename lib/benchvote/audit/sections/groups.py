"""Task groups as sub-benchmarks: the primary rule's ranking on each group's tasks alone.

When the tasks come in groups (``groups``: task -> group name; on the command
line ``--groups FILE``, a CSV of task,group), each group with at least two
tasks of the complete part is ranked on its own: the primary rule applied to
the complete part's models on that group's tasks only, its top five, the
Kendall tau distance from the overall ranking of the complete part (the share
of model pairs the two order oppositely; ties never count) and where the
overall first model stands there.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np

from ..._validation import numbered
from ...ranking import kendall_tau_distance, rank
from ...rules import RuleUndefined
from .._errors import NotDefined
from .._prepare import Context, names
from .._registry import Output, Section, Sentence, register
from .._text import plural

#: Models listed per group.
TOP = 5


class Result(TypedDict):
    rule: str
    rule_label: str
    leader: str
    n_models: int
    groups: list[dict]
    skipped: list[dict]
    n_leader_first: int


def when(ctx: Context) -> bool:
    return bool(ctx.groups)


def _members(ctx: Context) -> dict[str, list]:
    """Group -> its tasks, in the table's column order."""
    out: dict[str, list] = {}
    for t in ctx.table.columns:
        g = ctx.groups.get(str(t))
        if g is not None:
            out.setdefault(g, []).append(t)
    return out


def _one(ctx: Context, tasks: list, overall: np.ndarray, leader: int) -> dict:
    """The primary rule's ranking of the complete part on ``tasks``; raises what the rule raises."""

    work = ctx.work
    rule = ctx.rules[ctx.options.primary]
    try:
        values = np.asarray(rule.fn(work[tasks], ctx.hib[tasks]), dtype=float)
    except (RuleUndefined, NotDefined) as err:
        raise NotDefined(str(err)) from None
    ranks = rank(values, tol=ctx.options.tol)
    order = np.argsort(ranks, kind="stable")
    return {
        "tasks": names(tasks),
        "top": names(work.index[order[:TOP]]),
        "first": str(work.index[order[0]]),
        "tau_distance": kendall_tau_distance(overall, ranks),
        "leader_rank": float(ranks[leader]),
        "leader_first": bool(ranks[leader] == 1.0),
    }


def compute(ctx: Context, done: dict) -> Output:
    work, primary = ctx.work, ctx.options.primary
    overall = np.array([done["rankings"].fields["rules"][primary]["ranks"][str(m)] for m in work.index], dtype=float)
    leader_label = done["rankings"].objects["order"][0]
    leader = list(work.index).index(leader_label)
    groups, skipped = [], []
    for g, tasks in _members(ctx).items():
        used = [t for t in tasks if t in work.columns]
        apart = [str(t) for t in tasks if t not in work.columns]
        if len(used) < 2:
            reason = (
                f"{len(used)} of its {len(tasks)} {numbered(len(used), 'task orders', 'tasks order')} the complete "
                "part (the others are constant or left out for missing scores); a ranking needs two"
            )
            skipped.append({"group": g, "tasks": names(tasks), "reason": reason})
            continue
        try:
            entry = _one(ctx, used, overall, leader)
        except NotDefined as err:
            skipped.append({"group": g, "tasks": names(tasks), "reason": f"the primary rule is undefined there: {err}"})
            continue
        groups.append({"group": g, **entry, "left_out": apart})
    fields: Result = {
        "rule": primary,
        "rule_label": ctx.rules[primary].label,
        "leader": str(leader_label),
        "n_models": len(work),
        "groups": groups,
        "skipped": skipped,
        "n_leader_first": sum(e["leader_first"] for e in groups),
    }
    return Output(dict(fields))


TEMPLATE = """
{% set key = "groups" %}
<p>Each group with at least two tasks of the complete part is ranked alone by the {{ s.rule_label }}, on the
{{ ui.v(s.n_models, key ~ ".n_models", "d") }} models of the complete part (the models scored on every task it keeps). Tau distance: the share of model pairs the group's ranking and the overall ranking order oppositely
(0 = the same order, 1 = reversed; ties never count). {{ ui.name(s.leader) }}, first overall, is alone first in
{{ ui.v(s.n_leader_first, key ~ ".n_leader_first", "d") }} of {{ s.groups|length }} groups.</p>
{% if s.groups %}{{ ui.table(["group", "tasks", "top " ~ top, "tau distance", "rank of " ~ s.leader], rows,
   numeric=[1, 3, 4], specs={1: "d", 3: ".3f", 4: "g"},
   caption="Each task group as a sub-benchmark (the overall first model's rank there: 1 = alone first, ties share the mean rank)") }}{% endif %}
{% for e in s.groups if e.left_out %}<p>Group {{ ui.name(e.group) }}: tasks left out (constant, or not in the complete part): {{ ui.names(e.left_out) }}.</p>{% endfor %}
{% for e in s.skipped %}<p>Group {{ ui.name(e.group) }} ({{ ui.names(e.tasks) }}) is not ranked: {{ e.reason }}.</p>{% endfor %}
"""


def render(view: Any) -> str:
    s = view.s
    rows = [
        [e["group"], len(e["tasks"]), ", ".join(e["top"]), e["tau_distance"], e["leader_rank"]] for e in s["groups"]
    ]
    return view.html(TEMPLATE, rows=rows, top=TOP)


def verdict(s: dict, done: dict) -> list:
    groups = s["groups"]
    if not groups:
        return []
    others = [f"{e['group']} puts {e['first']} first" for e in groups if not e["leader_first"]]
    text = f"Ranked on each task group alone, {s['leader']} (first overall) is first in {s['n_leader_first']} of {len(groups)} groups"
    if others:
        text += (
            "; "
            + "; ".join(others[:3])
            + (f"; {plural(len(others) - 3, 'other group')} too" if len(others) > 3 else "")
        )
    return [Sentence("groups", text + ".")]


SECTION = register(
    Section(
        name="groups",
        title="Task groups as sub-benchmarks",
        chapter="tradeoff",
        about="When the tasks come in groups (domains, skills, languages), each group is a benchmark of its own. "
        "Ranking every group alone by the same rule shows whether the overall order holds within each, or whether "
        "the leader owes its place to some groups only.",
        order=130,
        cost=(
            "one primary ranking per group: O(sum of the groups' costs) on m models, plus O(m log m) a group for "
            "the distance"
        ),
        result=Result,
        compute=compute,
        render=render,
        needs=("rankings",),
        when=when,
        verdict=verdict,
    )
)
