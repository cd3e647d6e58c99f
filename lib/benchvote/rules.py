"""The aggregation rules a leaderboard can be ranked by: one registry for the audit, the command line and the tests.

Each :class:`Rule` is a function ``(scores, higher_is_better) -> values``
(higher is better), its label, whether it accepts missing scores, and its
definition in one sentence (shown wherever its numbers are).  The cardinal
rules (the mean and the geometric mean) read the numbers and take task
weights: :func:`with_weights` gives the registry with a published weighting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import voting
from ._validation import measure
from .aggregation import geometric_mean, mean_score, mean_win_rate
from .ranking import DEFAULT_TIE_TOLERANCE
from .ratings import NOT_CONNECTED, table_ratings
from .sensitivity._problem import _exact_ranks

__all__ = ["Rule", "RULES", "RuleUndefined", "with_weights", "mean_ranks"]


class RuleUndefined(ValueError):
    """The rule has no value on this table (e.g. Bradley-Terry when some model never loses)."""


@dataclass(frozen=True)
class Rule:
    """An aggregation rule: its label, the function, whether it accepts missing scores, and its definition."""

    label: str
    fn: Callable[..., Any]
    handles_missing: bool
    definition: str
    #: ``ranks(scores, higher_is_better, tol)``: the rule's midranks computed exactly, when rounding its values
    #: could merge or swap models (a mean over scales 1e16 apart); ``None``: rank the values.
    ranks: Callable[..., Any] | None = None
    #: Whether the rule reads the numbers (and so takes task weights and a normalisation).
    cardinal: bool = False


@measure(allow_nan=False)
def mean_ranks(
    scores: Any, higher_is_better: Any = True, *, weights: Any = None, tol: float = DEFAULT_TIE_TOLERANCE
) -> Any:
    """Midranks (1 = best) of the weighted mean scores, compared in exact rational arithmetic.

    Every float is a rational number, so the weighted means are compared without
    rounding; a gap of at most ``tol`` ties, as :func:`benchvote.rank` does with
    the rounded means (which merge 1e16 + 1 and 1e16).

    Parameters
    ----------
    higher_is_better : bool or sequence of bool
        Direction of every task (a lower-is-better task enters negated).
    weights : array_like of shape (n,), optional
        Non-negative task weights (default: all equal).
    tol : float
        Tie tolerance on the means.

    Examples
    --------
    >>> mean_ranks([[1e16, 1.0, 0.0], [1e16, 0.0, 0.5]])
    array([1., 2.])
    """

    values = scores.values * scores.sign
    w = np.ones(scores.shape[1]) if weights is None else np.asarray(weights, dtype=float)
    return _exact_ranks(values, w, tol)


def _bradley_terry(scores: Any, higher_is_better: Any = True) -> Any:
    """Bradley-Terry ratings; :class:`RuleUndefined` when the maximum-likelihood ratings do not exist."""

    try:
        return table_ratings(scores, higher_is_better)
    except ValueError as err:
        if str(err) == NOT_CONNECTED:
            raise RuleUndefined(NOT_CONNECTED) from None
        raise


def _geometric(scores: Any, higher_is_better: Any = True, *, weights: Any = None) -> Any:
    """The geometric mean; :class:`RuleUndefined` when a score is not positive."""
    try:
        return geometric_mean(scores, higher_is_better, weights=weights)
    except ValueError as err:
        if "positive scores" in str(err):
            raise RuleUndefined(str(err)) from None
        raise


def _helm(scores: Any, higher_is_better: Any = True) -> Any:
    return mean_win_rate(scores, higher_is_better, convention="helm")


def _strict(scores: Any, higher_is_better: Any = True) -> Any:
    return mean_win_rate(scores, higher_is_better)


def _voting(name: str) -> Callable[..., Any]:
    def rule(scores: Any, higher_is_better: Any = True) -> Any:

        return getattr(voting, name)(scores, higher_is_better)

    return rule


#: The rules, name -> :class:`Rule` (the audit ranks by all of them; Kemeny joins them on small tables).
RULES: dict[str, Rule] = {
    "mean_score": Rule(
        "Mean score",
        mean_score,
        False,
        "the average of the task scores",
        ranks=lambda s, h, tol: mean_ranks(s, h, tol=tol),
        cardinal=True,
    ),
    "geometric_mean": Rule(
        "Geometric mean",
        _geometric,
        False,
        "the geometric mean of the task scores (a lower-is-better task through its reciprocal), defined for "
        "positive scores only; its ranking does not depend on each task's unit",
        cardinal=True,
    ),
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


def with_weights(weights: Any) -> dict[str, Rule]:
    """:data:`RULES` with the cardinal rules weighting the tasks by ``weights`` (one per task, in column order).

    The ordinal rules compare models task by task and are unchanged.

    Parameters
    ----------
    weights : array_like of shape (n,)
        Non-negative task weights, in the order of the table's columns.

    Examples
    --------
    >>> with_weights([3.0, 1.0])["mean_score"].fn([[1.0, 0.0], [0.0, 2.0]])
    array([0.75, 0.5 ])
    """
    w = np.asarray(weights, dtype=float)

    def weighted_mean(scores: Any, higher_is_better: Any = True) -> Any:
        return mean_score(scores, higher_is_better, weights=w)

    def weighted_geometric(scores: Any, higher_is_better: Any = True) -> Any:
        return _geometric(scores, higher_is_better, weights=w)

    def ranks(scores: Any, higher_is_better: Any, tol: float) -> Any:
        return mean_ranks(scores, higher_is_better, weights=w, tol=tol)

    geo = RULES["geometric_mean"]
    return {
        **RULES,
        "mean_score": Rule(
            "Weighted mean score",
            weighted_mean,
            False,
            "the task scores averaged with the given task weights",
            ranks=ranks,
            cardinal=True,
        ),  # fmt: skip
        "geometric_mean": Rule(
            f"Weighted {geo.label.lower()}",
            weighted_geometric,
            False,
            f"{geo.definition}, with the given task weights",
            cardinal=True,
        ),  # fmt: skip
    }
