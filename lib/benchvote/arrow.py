r"""An executable proof of Arrow's theorem in its smallest case.

Three models, two tasks, strict rankings.  A rule that satisfies independence
of irrelevant alternatives (IIA) decides each pair of models from the two
tasks' votes on that pair alone.  Each task votes one way or the other, so a
pair sees one of four vote patterns and the rule must name a winner for each:
:math:`2^4 = 16` possible decision tables per pair and :math:`16^3 = 4096`
IIA rules in all.  :func:`enumerate_iia_rules` applies every one of them to
all :math:`6^2 = 36` profiles and keeps the rules that always produce a
transitive ranking and respect unanimity (weak Pareto).  Exactly two
survive, and both copy one task: the two dictatorships.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Any

import numpy as np

__all__ = ["ArrowEnumeration", "enumerate_iia_rules", "PAIRS", "RANKINGS"]

#: The three pairs of models (x, y); a decision table says whether x beats y.
PAIRS = tuple(combinations(range(3), 2))
#: The six strict rankings of three models, best first.
RANKINGS = tuple(permutations(range(3)))


@dataclass(frozen=True)
class ArrowEnumeration:
    """Result of :func:`enumerate_iia_rules`.

    Attributes
    ----------
    n_rules : int
        Number of IIA rules (4096).
    transitive : ndarray of bool, shape (4096,)
        Rules whose outcome is a strict ranking on every profile.
    pareto : ndarray of bool, shape (4096,)
        Rules that follow unanimous votes.
    survivors : tuple of int
        Rule ids that are both.
    dictator : dict
        For each survivor, the task (0 or 1) whose ranking it always copies,
        or None if it copies neither.
    imposed : ndarray of bool
        Rules that ignore the votes entirely (the same decision for every pattern of every pair).
    """

    n_rules: int
    transitive: np.ndarray
    pareto: np.ndarray
    survivors: tuple
    dictator: dict
    imposed: np.ndarray

    def decision_table(self, rule: int) -> dict:
        """The rule as ``{(x, y): {(vote of task 0, vote of task 1): winner}}``, votes naming the preferred model."""
        return _decision_table(rule)


def _prefers(ranking: tuple, x: int, y: int) -> bool:
    return ranking.index(x) < ranking.index(y)


def _decision_table(rule: int) -> dict:
    table: dict[Any, Any] = {}
    for k, (x, y) in enumerate(PAIRS):
        bits = (rule >> (4 * k)) & 15
        table[(x, y)] = {}
        for pattern in range(4):
            v0, v1 = (pattern >> 1) & 1, pattern & 1  # 1 = that task prefers x
            winner = x if (bits >> pattern) & 1 else y
            table[(x, y)][(x if v0 else y, x if v1 else y)] = winner
    return table


def enumerate_iia_rules() -> ArrowEnumeration:
    """Apply all 4096 IIA rules on three models and two tasks to all 36 profiles.

    References
    ----------
    :cite:t:`arrow1950difficulty`.

    Examples
    --------
    >>> result = enumerate_iia_rules()
    >>> result.n_rules, len(result.survivors), sorted(result.dictator.values())
    (4096, 2, [0, 1])
    """
    rules = np.arange(16**3)
    profiles = [(r0, r1) for r0 in RANKINGS for r1 in RANKINGS]
    # pattern of each pair in each profile: 2 * [task 0 prefers x] + [task 1 prefers x]
    pattern = np.array([[2 * _prefers(r0, x, y) + _prefers(r1, x, y) for (x, y) in PAIRS] for r0, r1 in profiles])
    bits = np.stack([(rules >> (4 * k)) & 15 for k in range(3)], axis=1)  # (4096, 3)
    # outcome[rule, profile, pair] = 1 if x beats y
    outcome = (bits[:, None, :] >> pattern[None, :, :]) & 1
    # pairs: (0,1), (0,2), (1,2). Cycles: 0>1, 1>2, 2>0  or  1>0, 2>1, 0>2
    o01, o02, o12 = outcome[..., 0], outcome[..., 1], outcome[..., 2]
    cyclic = ((o01 == 1) & (o12 == 1) & (o02 == 0)) | ((o01 == 0) & (o12 == 0) & (o02 == 1))
    transitive = ~cyclic.any(axis=1)
    # weak Pareto: pattern 3 (both prefer x) must give x, pattern 0 (both prefer y) must give y
    pareto = (((bits >> 3) & 1) == 1).all(axis=1) & (((bits >> 0) & 1) == 0).all(axis=1)
    imposed = ((bits == 0) | (bits == 15)).all(axis=1)
    survivors = tuple(int(r) for r in np.flatnonzero(transitive & pareto))
    dictator = {}
    for r in survivors:
        copies = []
        for task in (0, 1):
            same = all(
                outcome[r, p, k] == _prefers(profiles[p][task], x, y)
                for p in range(len(profiles))
                for k, (x, y) in enumerate(PAIRS)
            )
            if same:
                copies.append(task)
        dictator[r] = copies[0] if len(copies) == 1 else None
    return ArrowEnumeration(
        n_rules=len(rules),
        transitive=transitive,
        pareto=pareto,
        survivors=survivors,
        dictator=dictator,
        imposed=imposed,
    )
