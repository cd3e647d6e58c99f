"""The aggregation rules a leaderboard can be ranked by: one registry for the audit, the command line and the tests.

Each :class:`Rule` is a function ``(scores, higher_is_better) -> values``
(higher is better), its label, whether it accepts missing scores, and its
definition in one sentence (shown wherever its numbers are).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .aggregation import mean_score, mean_win_rate

__all__ = ["Rule", "RULES", "RuleUndefined"]


class RuleUndefined(ValueError):
    """The rule has no value on this table (e.g. Bradley-Terry when some model never loses)."""


@dataclass(frozen=True)
class Rule:
    """An aggregation rule: its label, the function, whether it accepts missing scores, and its definition."""

    label: str
    fn: Callable[..., Any]
    handles_missing: bool
    definition: str


def _bradley_terry(scores: Any, higher_is_better: Any = True) -> Any:
    """Bradley-Terry ratings; :class:`RuleUndefined` when the maximum-likelihood ratings do not exist."""
    from .ratings import NOT_CONNECTED, _strongly_connected, bradley_terry, comparison_matrix

    wins = comparison_matrix(scores, higher_is_better)
    if not _strongly_connected(wins):
        raise RuleUndefined(NOT_CONNECTED)
    return bradley_terry(wins).ratings


def _helm(scores: Any, higher_is_better: Any = True) -> Any:
    return mean_win_rate(scores, higher_is_better, convention="helm")


def _strict(scores: Any, higher_is_better: Any = True) -> Any:
    return mean_win_rate(scores, higher_is_better)


def _voting(name: str) -> Callable[..., Any]:
    def rule(scores: Any, higher_is_better: Any = True) -> Any:
        from . import voting

        return getattr(voting, name)(scores, higher_is_better)

    return rule


#: The rules, name -> :class:`Rule` (the audit ranks by all of them; Kemeny joins them on small tables).
RULES: dict[str, Rule] = {
    "mean_score": Rule("Mean score", mean_score, False, "the average of the task scores"),
    "mean_win_rate": Rule(
        "Mean win rate (strict)",
        _strict,
        True,
        "the share of (opponent, task) comparisons a model wins, ties counting as no win, each pair compared on the "
        "tasks both are scored on, averaged over all models including the model itself (a comparison it cannot "
        "win), as Zhang and Hardt define it",
    ),
    "helm_win_rate": Rule(
        "Mean win rate (HELM)",
        _helm,
        True,
        "on each task the share of the other scored models a model beats (a tie counts half), averaged over the "
        "tasks the model is scored on",
    ),
    "borda": Rule("Borda", _voting("borda"), False, "the number of models ranked below on each task, summed"),
    "copeland": Rule("Copeland", _voting("copeland"), False, "pairwise majority wins minus losses"),
    "ranked_pairs": Rule("Ranked Pairs", _voting("ranked_pairs"), False, "Tideman's rule on the majority margins"),
    "bradley_terry": Rule(
        "Bradley-Terry", _bradley_terry, False, "maximum-likelihood strengths of the task-by-task wins"
    ),
}
