"""Two classical results made computable: May's theorem and Gibbard-Satterthwaite manipulations.

:func:`may_rules` enumerates every anonymous, neutral rule for two candidates and
``n`` voters and keeps the positively responsive ones: May's theorem says only
majority rule survives.  :func:`manipulations` searches, task by task, for a
ballot (a reported ranking) that makes a rule elect a model the task honestly
ranks above the honest winner: the Gibbard-Satterthwaite theorem says that for
three or more possible winners such a ballot exists on some table for every rule
that is not a dictatorship.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._validation import measure
from .ranking import DEFAULT_TIE_TOLERANCE, rank

__all__ = ["MayEnumeration", "may_rules", "Manipulation", "manipulations"]


@dataclass(frozen=True)
class MayEnumeration:
    """Every anonymous, neutral two-candidate rule for ``n_voters``, and which are positively responsive.

    A rule maps the counts ``(a, b)`` of voters preferring each candidate (the
    rest are indifferent) to ``+1`` (a wins), ``0`` (tie) or ``-1`` (b wins).

    Attributes
    ----------
    n_voters : int
    count_pairs : list of tuple
        The ``(a, b)`` with ``a + b <= n_voters``: the profiles an anonymous rule can tell apart.
    anonymous : int
        Number of anonymous rules, ``3 ** len(count_pairs)``.
    neutral : int
        Number of those that are also neutral (enumerated one by one).
    responsive : list of dict
        The neutral rules that are positively responsive, each as ``{(a, b): outcome}``.
    majority_only : bool
        Whether the only survivor is majority rule, ``sign(a - b)``.
    """

    n_voters: int
    count_pairs: list
    anonymous: int
    neutral: int
    responsive: list
    majority_only: bool


def _responsive(rule: dict) -> bool:
    """Positive responsiveness: one voter moving towards a (b -> indifferent, or indifferent -> a) makes a
    tie or a win for a a strict win for a; by neutrality the same then holds for b."""
    for (a, b), out in rule.items():
        if out < 0:
            continue
        for up in ((a, b - 1), (a + 1, b)):
            if up in rule and min(up) >= 0 and up != (a, b) and rule[up] != 1:
                return False
    return True


def may_rules(n_voters: int) -> MayEnumeration:
    """Enumerate the anonymous, neutral two-candidate rules for ``n_voters`` and test positive responsiveness.

    Neutrality fixes the outcome at ``a == b`` (a tie) and pairs ``(a, b)`` with
    ``(b, a)``, so a neutral rule is a free choice of outcome on the pairs with
    ``a > b``: ``3 ** h`` rules for ``h`` such pairs.  Each one is checked
    against positive responsiveness.

    Parameters
    ----------
    n_voters : int
        Number of voters, 1 to 5.

    Examples
    --------
    >>> e = may_rules(3)
    >>> e.anonymous, e.neutral, len(e.responsive), e.majority_only
    (59049, 81, 1, True)
    """
    if not isinstance(n_voters, (int, np.integer)) or isinstance(n_voters, bool) or not 1 <= n_voters <= 5:
        raise ValueError(f"n_voters must be an integer from 1 to 5 (3**9 neutral rules at 5), got {n_voters!r}")
    pairs = [(a, b) for a in range(n_voters + 1) for b in range(n_voters + 1 - a)]
    upper = [(a, b) for a, b in pairs if a > b]
    survivors = []
    for outcomes in itertools.product((-1, 0, 1), repeat=len(upper)):
        rule = {(a, a): 0 for a, b in pairs if a == b}
        for (a, b), out in zip(upper, outcomes):
            rule[(a, b)], rule[(b, a)] = out, -out
        if _responsive(rule):
            survivors.append(dict(sorted(rule.items())))
    majority = {(a, b): int(np.sign(a - b)) for a, b in pairs}
    return MayEnumeration(
        n_voters=int(n_voters),
        count_pairs=pairs,
        anonymous=3 ** len(pairs),
        neutral=3 ** len(upper),
        responsive=survivors,
        majority_only=survivors == [dict(sorted(majority.items()))],
    )


@dataclass(frozen=True)
class Manipulation:
    """A ballot with which one task changes the winner to a model it honestly prefers.

    Attributes
    ----------
    task : label
        The task (voter) that misreports.
    honest_winners : tuple
        The rule's winners on the honest table (co-winners when tied).
    winner : label
        The sole winner once the task reports ``ballot``; the task ranks it
        strictly above every honest winner.
    ballot : tuple
        The reported ranking of the task, best first (a strict order).
    searched : str
        ``"exhaustive"`` (every strict order was tried) or ``"constructive"``
        (the preferred model first and the strongest rivals last).
    """

    task: Any
    honest_winners: tuple
    winner: Any
    ballot: tuple
    searched: str


def _winners(rule: Callable[..., Any], table: pd.DataFrame) -> tuple:
    values = np.asarray(rule(table, True), dtype=float)
    best = np.flatnonzero(np.isclose(values, np.nanmax(values), rtol=0, atol=1e-9))
    return tuple(table.index[best].tolist())


def _with_ballot(table: pd.DataFrame, task: Any, ballot: tuple) -> pd.DataFrame:
    out = table.copy()
    out[task] = pd.Series(np.arange(len(ballot), 0, -1, dtype=float), index=list(ballot))
    return out


def _ballots(order: list, target: Any, strength: pd.Series, exhaustive: bool):
    """Candidate ballots for making ``target`` win: every order, or the one that buries the strongest rivals."""
    if exhaustive:
        yield from (b for b in itertools.permutations(order) if b[0] == target)
        return
    rivals = sorted((x for x in order if x != target), key=lambda x: (strength[x], order.index(x)))
    yield (target, *rivals)


@measure(allow_nan=False)
def manipulations(
    scores: Any,
    higher_is_better: Any = True,
    *,
    rule: Callable[..., Any],
    tol: float = DEFAULT_TIE_TOLERANCE,
    exhaustive_max: int = 6,
) -> list[Manipulation]:
    """For every task, a ballot that makes ``rule`` elect a model the task honestly prefers to the winner.

    Every task's scores are replaced by the ballot's positions (its other
    columns stay as they are, oriented so that higher is better) and the rule
    is rerun.  A manipulation succeeds when the new winner is a single model
    that the task ranks strictly above every honest winner.  Up to
    ``exhaustive_max`` models every strict order is tried (so a task missing
    from the result cannot manipulate); above it one constructive ballot per
    preferred model is tried: the model first, the rest in increasing order of
    the rule's honest value, which buries the strongest rivals.  Tasks are
    visited in table order and preferred models from the task's best down;
    the first success per task is returned.

    Parameters
    ----------
    rule : callable
        ``rule(table, higher_is_better) -> values`` with higher better, as in
        :data:`benchvote.rules.RULES` (each entry's ``fn``).
    tol : float
        Tie tolerance of the tasks' honest rankings.
    exhaustive_max : int
        Largest number of models searched exhaustively.

    Examples
    --------
    >>> from benchvote.aggregation import borda
    >>> table = [[4, 5, 8], [6, 5, 4], [5, 8, 2], [7, 6, 0]]
    >>> [(m.task, m.honest_winners, m.winner, m.ballot) for m in manipulations(table, rule=borda)]
    [(2, (2, 3), 1, (1, 0, 2, 3))]
    """
    frame = scores.frame()
    honest_ranks = rank(frame, higher_is_better, tol=tol)
    oriented = -honest_ranks  # higher is better on every column, ties kept
    honest = _winners(rule, oriented)
    strength = pd.Series(np.asarray(rule(oriented, True), dtype=float), index=oriented.index)
    exhaustive = frame.shape[0] <= exhaustive_max
    found = []
    for task in frame.columns:
        r = honest_ranks[task]
        order = sorted(frame.index, key=lambda x: (r[x], list(frame.index).index(x)))
        preferred = [x for x in order if all(r[x] < r[w] for w in honest)]
        hit = _first_success(rule, oriented, task, order, preferred, honest, strength, exhaustive)
        if hit is not None:
            found.append(hit)
    return found


def _first_success(rule, oriented, task, order, preferred, honest, strength, exhaustive) -> Manipulation | None:
    for target in preferred:
        for ballot in _ballots(order, target, strength, exhaustive):
            if _winners(rule, _with_ballot(oriented, task, ballot)) == (target,):
                kind = "exhaustive" if exhaustive else "constructive"
                return Manipulation(task, honest, target, tuple(ballot), kind)
    return None
