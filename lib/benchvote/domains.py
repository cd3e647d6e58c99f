r"""Restricted domains on which pairwise majority is well behaved (Gordienko et al., "Beyond Arrow").

The voters are metrics (accuracy, robustness, efficiency, ...) and the
candidates are models.  A *profile* here is a list of strict rankings of the
same models, one per metric, each given best first.  On an unrestricted
profile the majority relation may cycle (Condorcet's paradox); on the
restricted domains recognised below it cannot:

* **single-peaked**: the models can be placed on a line (an *axis*) so that
  every voter's preference falls off on both sides of its favourite
  (:func:`single_peaked_axis`, polynomial, instead of trying all :math:`m!` axes);
* **group-separable**: every set of at least three models splits into two
  non-empty parts that every voter puts one entirely above the other
  (:func:`group_separable_tree`);
* **distance-restricted**: every two voters disagree on at most ``p`` pairs
  (:func:`distance_restriction_degree`).

:func:`deepest_ranking` aggregates many rankings into the one with the
largest generalised Tukey depth, the *commonality-sharing* rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ._validation import (
    as_label_list,
    check_choice,
    measure,
    numbered,
)
from .aggregation import borda
from .ranking import DEFAULT_TIE_TOLERANCE, _as_profile, rank, reversed_pairs, swap_distance
from .voting import is_transitive

__all__ = [
    "rankings_from_scores",
    "is_single_peaked_on",
    "single_peaked_axis",
    "group_separable_tree",
    "distance_restriction_degree",
    "profile_majority",
    "tukey_depth",
    "DeepestRanking",
    "deepest_ranking",
    "DomainReport",
    "domain_report",
    "average_rank_flips",
    "scenario_study",
]


@measure(min_models=1, allow_nan=False)
def rankings_from_scores(
    scores: Any, higher_is_better: Any = True, *, tie_break: str = "alphabetical", tol: float = DEFAULT_TIE_TOLERANCE
) -> list[tuple]:
    """Strict rankings (best first), one per metric column, with a deterministic tie-break.

    Two models tie on a metric when :func:`benchvote.rank` ties them (scores
    within ``tol``, so float noise such as 84.30000000000001 against 84.3 is
    a tie); tied models are ordered by the tie-break.  Gordienko et al. break
    ties alphabetically by model name and rerun with the reverse order to see
    whether a verdict depends on it; ``tie_break="reverse"`` gives the second run,
    and ``tie_break="input"`` keeps tied models in the order of the table's rows.

    Parameters
    ----------
    tie_break : {"alphabetical", "reverse", "input"}
        How models tied on a metric are ordered: by label (as text), by label
        in reverse, or by their row order in ``scores``.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"acc": [0.6, 0.6, 0.4], "time": [2.0, 1.0, 3.0]}, index=["b", "a", "c"])
    >>> rankings_from_scores(s, [True, False])
    [('a', 'b', 'c'), ('a', 'b', 'c')]
    >>> rankings_from_scores(s, [True, False], tie_break="reverse")[0]
    ('b', 'a', 'c')
    >>> rankings_from_scores(s, [True, False], tie_break="input")[0]
    ('b', 'a', 'c')
    """
    check_choice(tie_break, "tie_break", ("alphabetical", "reverse", "input"))
    direction = scores.direction
    r = rank(scores.values, direction, tol=tol)
    names = [str(m) for m in scores.models]
    alpha = np.argsort(np.argsort(names, kind="stable"), kind="stable")  # alphabetical position of each model
    if tie_break == "reverse":
        alpha = -alpha
    elif tie_break == "input":
        alpha = np.arange(len(names))  # the row order itself
    out = []
    for j in range(scores.shape[1]):
        order = np.lexsort((alpha, r[:, j]))  # best rank first, ties by the tie-break
        out.append(tuple(scores.models[i] for i in order))
    return out


def is_single_peaked_on(rankings: Any, axis: Sequence) -> bool:
    """Whether every ranking is single-peaked with respect to ``axis`` (a left-to-right order of the models).

    A ranking is single-peaked on an axis when, for every k, its top k
    models occupy consecutive positions of the axis.

    Parameters
    ----------
    rankings : sequence of sequences
        A profile: strict rankings of the same models, best first, one per voter.
    axis : sequence
        A left-to-right order of all the models.

    Examples
    --------
    >>> is_single_peaked_on([("b", "a", "c"), ("c", "b", "a")], ["a", "b", "c"])
    True
    >>> is_single_peaked_on([("a", "c", "b")], ["a", "b", "c"])
    False
    """
    models, prof = _as_profile(rankings, min_models=1)
    axis = list(axis)
    if sorted(map(str, axis)) != sorted(map(str, models)) or len(axis) != len(models):
        raise ValueError("the axis must list every model exactly once")
    index = {m: k for k, m in enumerate(models)}
    position = np.empty(len(models), dtype=int)
    for p, m in enumerate(axis):
        position[index[m]] = p
    for r in prof:
        lo = hi = position[r[0]]
        for k, c in enumerate(r[1:], start=2):
            p = position[c]
            lo, hi = min(lo, p), max(hi, p)
            if hi - lo + 1 != k:
                return False
    return True


def single_peaked_axis(rankings: Any) -> list | None:
    """An axis on which the profile is single-peaked, or None when there is none.

    The axis is built from the outside in.  On the remaining models X (a
    middle stretch of the axis), every voter's least preferred model in X must
    sit at one of the two ends of X; so the voters' bottom models in X number
    at most two, and a bottom model that a voter ranks below the innermost
    model already placed on one side cannot go next to it.  These forced
    choices are followed; where a choice is free both branches are explored
    (with memoisation on the state), and the result is verified with
    :func:`is_single_peaked_on`.  Polynomial: the stretches do not depend on
    the branch, so there are O(m^3) memoised states; a returned axis is
    verified, and that None is never wrong is tested against all
    :math:`m!/2` axes for small m.

    Parameters
    ----------
    rankings : sequence of sequences
        Strict rankings of the same models, best first (at least 3 models).

    See Also
    --------
    is_single_peaked_on

    References
    ----------
    :cite:t:`gordienko2025beyond`.

    Examples
    --------
    >>> single_peaked_axis([("b", "a", "c"), ("c", "b", "a"), ("a", "b", "c")])
    ['a', 'b', 'c']
    >>> single_peaked_axis([("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]) is None
    True
    """
    models, prof = _as_profile(rankings)
    m = len(models)
    # rank[v][c]: position of model c in voter v's ranking (0 = best)
    rank = np.empty((len(prof), m), dtype=int)
    for v, r in enumerate(prof):
        rank[v, r] = np.arange(m)
    memo: dict = {}

    def solve(remaining: frozenset, l_in: int | None, r_in: int | None, seeded: bool) -> tuple | None:
        """Placements (left additions, right additions) that complete the axis from this state, or None."""
        if not remaining:
            return (), ()
        key = (remaining, l_in, r_in, seeded)
        if key in memo:
            return memo[key]
        rem = np.fromiter(remaining, dtype=int)
        bottom_of = {v: int(rem[np.argmax(rank[v, rem])]) for v in range(len(prof))}
        bottoms = sorted(set(bottom_of.values()))
        result = None
        if len(bottoms) <= 2:
            allowed = {}
            for b in bottoms:
                voters = [v for v, bv in bottom_of.items() if bv == b]
                can_left = l_in is None or all(rank[v, b] < rank[v, l_in] for v in voters)
                can_right = r_in is None or all(rank[v, b] < rank[v, r_in] for v in voters)
                allowed[b] = (can_left, can_right)
            options: list[tuple[tuple, tuple]] = []
            if len(remaining) == 1:
                options.append(((bottoms[0],), ()))  # the last model fills the middle
            elif len(bottoms) == 2:
                b1, b2 = bottoms
                if allowed[b1][0] and allowed[b2][1]:
                    options.append(((b1,), (b2,)))
                if allowed[b2][0] and allowed[b1][1] and seeded:  # before seeding the two are mirror images
                    options.append(((b2,), (b1,)))
            else:
                b = bottoms[0]
                if not seeded:
                    options.append(((b,), ()))  # by symmetry the first model may go to the left end
                else:
                    if allowed[b][0]:
                        options.append(((b,), ()))
                    if allowed[b][1]:
                        options.append(((), (b,)))
            for add_left, add_right in options:
                rest = solve(
                    remaining - set(add_left) - set(add_right),
                    add_left[-1] if add_left else l_in,
                    add_right[-1] if add_right else r_in,
                    True,
                )
                if rest is not None:
                    result = (add_left + rest[0], add_right + rest[1])
                    break
        memo[key] = result
        return result

    result = solve(frozenset(range(m)), None, None, False)
    if result is None:
        return None
    left, right = result
    axis = [models[c] for c in list(left) + list(reversed(right))]
    return axis if is_single_peaked_on(rankings, axis) else None


def group_separable_tree(rankings: Any) -> Any:
    """A separation tree proving group separability, or None.

    Every set of at least three models must split into two non-empty parts,
    one ranked entirely above the other by every voter (the part may be above
    for some voters and below for others).  The property passes to subsets,
    so splitting recursively suffices.  A split of a set S must be a prefix
    (or suffix) of the first voter's ranking restricted to S, so trying the
    prefixes of that ranking finds one when it exists: O(n m^2) overall.

    Parameters
    ----------
    rankings : sequence of sequences
        A profile: strict rankings of the same models, best first, one per voter.

    Returns
    -------
    nested tuples or None
        A binary tree whose leaves are models; each internal node's two
        children are the two parts of a separation.

    References
    ----------
    :cite:t:`gordienko2025beyond`.

    Examples
    --------
    >>> group_separable_tree([("a", "b", "c", "d"), ("b", "a", "d", "c"), ("d", "c", "a", "b")])
    (('a', 'b'), ('c', 'd'))
    >>> group_separable_tree([("a", "b", "c", "d"), ("b", "d", "a", "c")]) is None
    True
    """
    models, prof = _as_profile(rankings)

    def split(block: list[int]) -> Any:
        if len(block) == 1:
            return models[block[0]]
        if len(block) == 2:
            return (models[block[0]], models[block[1]])
        inside = set(block)
        restricted = [[c for c in r if c in inside] for r in prof]
        first = restricted[0]
        size = len(block)
        positions = [{c: k for k, c in enumerate(r)} for r in restricted]
        lo = [size] * len(prof)
        hi = [-1] * len(prof)
        for t in range(1, size):
            c = first[t - 1]
            ok = True
            for v, pos in enumerate(positions):
                p = pos[c]
                lo[v], hi[v] = min(lo[v], p), max(hi[v], p)
                if not (hi[v] == t - 1 or lo[v] == size - t):
                    ok = False
            if ok:
                top, rest = first[:t], first[t:]
                left, right = split(top), split(rest)
                if left is None or right is None:
                    return None
                return (left, right)
        return None

    return split(list(prof[0]))


def distance_restriction_degree(rankings: Any) -> int:
    """The largest swap distance between two voters: the profile is distance-restricted to this degree.

    Parameters
    ----------
    rankings : sequence of sequences
        A profile: strict rankings of the same models, best first, one per voter.

    Examples
    --------
    >>> distance_restriction_degree([("a", "b", "c"), ("b", "a", "c"), ("a", "b", "c")])
    1
    """
    _as_profile(rankings, min_models=2)
    distinct = [list(r) for r in dict.fromkeys(tuple(r) for r in rankings)]  # equal voters are at distance 0
    return max((swap_distance(a, b) for a, b in combinations(distinct, 2)), default=0)


def _preference_counts(prof: list[list[int]], m: int) -> np.ndarray:
    """counts[i, j]: number of rankings (index lists, best first) that put model i above model j."""
    counts = np.zeros((m, m), dtype=np.int64)
    for r in prof:
        pos = np.empty(m, dtype=int)
        pos[r] = np.arange(m)
        counts += pos[:, None] < pos[None, :]
    return counts


def profile_majority(rankings: Any) -> pd.DataFrame:
    """Majority margins of a profile of strict rankings: voters preferring row to column, minus the reverse.

    Parameters
    ----------
    rankings : sequence of sequences
        A profile: strict rankings of the same models, best first, one per voter.

    Examples
    --------
    >>> profile_majority([("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]).loc["a", "b"]
    np.int64(1)
    """
    models, prof = _as_profile(rankings, min_models=2)
    counts = _preference_counts(prof, len(models))
    return pd.DataFrame(counts - counts.T, index=models, columns=models)


def tukey_depth(rankings: Any, candidate: Sequence) -> float:
    r"""Generalised Tukey depth of a strict ranking within a population of strict rankings.

    .. math::

        D(R) = \min_{(a, b):\ a \succ_R b} \frac{\#\{\text{rankings putting } a \text{ above } b\}}{\#\text{rankings}},

    the smallest support the population gives to any pair that R asserts
    (the depth used by the commonality-sharing rule; for strict total orders
    it coincides with the formal-concept definition of Blocher & Schollmeyer).

    Parameters
    ----------
    rankings : sequence of sequences
        The population: strict rankings of the same models, best first.
    candidate : sequence
        The strict ranking whose depth is measured.

    Examples
    --------
    >>> pop = [("a", "b", "c"), ("a", "c", "b"), ("b", "a", "c")]
    >>> tukey_depth(pop, ("a", "b", "c"))
    0.6666666666666666
    """
    if rankings is None or candidate is None:
        raise TypeError("rankings and candidate must be sequences of model labels")
    rankings = list(rankings)
    if not rankings:
        raise ValueError(
            "rankings: the population needs at least one ranking (the depth of an empty population is undefined)"
        )
    models, prof = _as_profile(rankings + [list(candidate)], min_models=2)
    population, (cand,) = prof[:-1], prof[-1:]
    m = len(models)
    support = _preference_counts(population, m) / len(population)
    pos = np.empty(m, dtype=int)
    pos[cand] = np.arange(m)
    asserted = pos[:, None] < pos[None, :]
    return float(support[asserted].min())


@dataclass(frozen=True)
class DeepestRanking:
    """Result of :func:`deepest_ranking`.

    Attributes
    ----------
    ranking : tuple
        A ranking of largest depth over all orders of the models (best first).
    depth : float
        Its depth.
    observed : tuple
        The deepest ranking among those in the population (what the R package ddandrda returns).
    observed_depth : float
    """

    ranking: tuple
    depth: float
    observed: tuple
    observed_depth: float


def deepest_ranking(rankings: Any) -> DeepestRanking:
    r"""The commonality-sharing aggregate: the ranking of largest generalised Tukey depth.

    A ranking has depth at least t exactly when it never asserts a pair whose
    support is below t, i.e. when it reverses every such pair.  So the
    largest attainable depth is the largest support level t for which the
    forced reversals (all pairs with support below t) form an acyclic
    relation; any topological order of them, completed arbitrarily, has depth
    at least t.  The support levels are tried from the top down.  The deepest
    *observed* ranking is reported too, since it can be strictly shallower.

    Parameters
    ----------
    rankings : sequence of sequences
        A profile: strict rankings of the same models, best first, one per voter.

    See Also
    --------
    tukey_depth

    References
    ----------
    :cite:t:`gordienko2025beyond`.

    Examples
    --------
    >>> pop = [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b"), ("a", "c", "b")]
    >>> r = deepest_ranking(pop)
    >>> r.depth >= r.observed_depth
    True
    """
    models, prof = _as_profile(rankings, min_models=2)
    m = len(models)
    support = _preference_counts(prof, m) / len(prof)
    off = ~np.eye(m, dtype=bool)
    levels = sorted(set(np.round(support[off], 12)), reverse=True)
    best_order = None
    for t in levels:
        forced = (support >= t - 1e-12) & off & (support.T < t - 1e-12)  # i above j is forced: j above i lacks support
        order = _topological(forced, support)
        if order is not None:
            # every asserted pair must have support >= t
            pos = np.empty(m, dtype=int)
            pos[order] = np.arange(m)
            asserted = (pos[:, None] < pos[None, :]) & off
            if support[asserted].min() >= t - 1e-12:
                best_order = order
                break
    assert best_order is not None  # the lowest level forces nothing, so an order always exists
    ranking = tuple(models[c] for c in best_order)
    depths = [tukey_depth(rankings, r) for r in rankings]
    k = int(np.argmax(depths))
    return DeepestRanking(
        ranking=ranking, depth=tukey_depth(rankings, ranking), observed=tuple(rankings[k]), observed_depth=depths[k]
    )


def _topological(forced: np.ndarray, support: np.ndarray) -> list[int] | None:
    """A topological order of the forced relation (i above j), breaking choices by total support; None if cyclic."""
    m = len(forced)
    indegree = forced.sum(axis=0).astype(int)
    placed = np.zeros(m, dtype=bool)
    strength = support.sum(axis=1)
    order = []
    for _ in range(m):
        free = np.flatnonzero(~placed & (indegree == 0))
        if not len(free):
            return None
        pick = int(free[np.argmax(strength[free])])
        order.append(pick)
        placed[pick] = True
        indegree -= forced[pick].astype(int)
    return order


@dataclass(frozen=True)
class DomainReport:
    """Which restrictions a profile satisfies and how its majority behaves.

    Attributes
    ----------
    single_peaked_axis : list or None
    group_separable_tree : tuple or None
    distance_degree : int
    majority_transitive : bool
        Whether the strict majority relation is transitive.
    cycles : int
        Number of three-model majority cycles.
    """

    single_peaked_axis: Any
    group_separable_tree: Any
    distance_degree: int
    majority_transitive: bool
    cycles: int

    @property
    def single_peaked(self) -> bool:
        return self.single_peaked_axis is not None

    @property
    def group_separable(self) -> bool:
        return self.group_separable_tree is not None


def domain_report(rankings: Any) -> DomainReport:
    """Check a profile of strict rankings against every restriction at once.

    Parameters
    ----------
    rankings : sequence of sequences
        A profile: strict rankings of the same models, best first, one per voter.

    See Also
    --------
    single_peaked_axis
    group_separable_tree
    distance_restriction_degree

    References
    ----------
    :cite:t:`gordienko2025beyond`.

    Examples
    --------
    >>> r = domain_report([("a", "b", "c"), ("b", "a", "c"), ("a", "b", "c")])
    >>> r.single_peaked, r.group_separable, r.distance_degree, r.majority_transitive
    (True, True, 1, True)
    """

    margins = profile_majority(rankings).to_numpy()
    beats = margins > 0
    cycles = int((beats[:, :, None] & beats[None, :, :] & beats.T[:, None, :]).sum() // 3)
    # the restrictions concern which rankings occur, not how often: thousands of voters hold few distinct ones
    distinct = list(dict.fromkeys(tuple(r) for r in rankings))
    return DomainReport(
        single_peaked_axis=single_peaked_axis(distinct),
        group_separable_tree=group_separable_tree(distinct),
        distance_degree=distance_restriction_degree(distinct),
        majority_transitive=is_transitive(beats),
        cycles=cycles,
    )


@measure(allow_nan=False)
def average_rank_flips(scores: Any, higher_is_better: Any = True, *, models: Sequence, candidates: Sequence) -> list:
    """Candidates whose addition alone reverses some pair of ``models`` under average-rank aggregation.

    Average rank over metrics orders models like the Borda count
    (:func:`benchvote.borda`); Gordienko et al. use it to show instability to
    changes in the model set.

    Parameters
    ----------
    models : sequence
        The models whose ranking is watched.
    candidates : sequence
        The models that may join, one at a time (disjoint from ``models``).

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"acc": [3.0, 2.0, 1.0], "speed": [1.0, 3.0, 2.0]}, index=["a", "b", "c"])
    >>> average_rank_flips(s, models=["a", "b"], candidates=["c"])
    []
    """

    scores = scores.frame()
    models = as_label_list(models, "models", scores.index)
    candidates = as_label_list(candidates, "candidates", scores.index)
    overlap = set(models) & set(candidates)
    if overlap:
        raise ValueError(
            f"{numbered(len(overlap), 'model')} {sorted(map(str, overlap))[:5]} {numbered(len(overlap), 'is', 'are')} "
            "both in models and candidates"
        )
    base = rank(np.asarray(borda(scores.loc[models], higher_is_better)))
    out = []
    for c in candidates:
        field = borda(scores.loc[models + [c]], higher_is_better)
        after = rank(np.asarray(field)[: len(models)])
        if reversed_pairs(base, after).any():
            out.append(c)
    return out


def scenario_study(
    tables: dict, models: Sequence, *, tie_break: str = "alphabetical", candidates: Sequence | None = None
) -> pd.DataFrame:
    """Domain checks for a fixed model set across many scenarios (one profile per scenario).

    Parameters
    ----------
    tables : dict
        Scenario -> (models x metrics scores, higher_is_better), as
        :func:`benchvote.data.helm_scenarios` returns.
    models : sequence
        The model set; on each scenario only the models with every metric are used.
    tie_break : {"alphabetical", "reverse"}
        Tie-break of :func:`rankings_from_scores`.
    candidates : sequence, optional
        Models that may be added for the instability check (default: none).

    Returns
    -------
    DataFrame
        One row per scenario: models used, single-peaked, group-separable,
        distance degree, majority transitive, number of 3-cycles, whether some
        single candidate reverses a pair under average rank, and the majority
        ranking (best first) when it is transitive.

    See Also
    --------
    domain_report

    References
    ----------
    :cite:t:`gordienko2025beyond`.

    Examples
    --------
    Condorcet's paradox as one scenario with three metrics:

    >>> import pandas as pd
    >>> table = pd.DataFrame({"a": [3.0, 2.0, 1.0], "b": [1.0, 3.0, 2.0], "c": [2.0, 1.0, 3.0]},
    ...                      index=["m1", "m2", "m3"])
    >>> row = scenario_study({"s1": (table, pd.Series(True, index=table.columns))}, ["m1", "m2", "m3"]).iloc[0]
    >>> bool(row["single_peaked"]), int(row["cycles"]), row["majority_ranking"]
    (False, 1, None)
    """
    rows = []
    for scenario, (scores, direction) in tables.items():
        present = [m for m in models if m in scores.index]
        if len(present) < 3:
            continue
        sub = scores.loc[present]
        profile = rankings_from_scores(sub, direction, tie_break=tie_break)
        report = domain_report(profile)
        margins = profile_majority(profile)
        ranking = None
        if report.majority_transitive:
            wins = (margins > 0).sum(axis=1) - (margins < 0).sum(axis=1)
            ranking = tuple(wins.sort_values(ascending=False, kind="stable").index)
        flips = None
        if candidates is not None:
            extra = [c for c in candidates if c in scores.index and c not in present]
            flips = len(average_rank_flips(scores, direction, models=present, candidates=extra)) > 0
        rows.append(
            {
                "scenario": scenario,
                "models": len(present),
                "single_peaked": report.single_peaked,
                "group_separable": report.group_separable,
                "distance_degree": report.distance_degree,
                "distance_restricted": report.distance_degree <= 1,
                "transitive": report.majority_transitive,
                "cycles": report.cycles,
                "flip_by_one_model": flips,
                "majority_ranking": ranking,
            }
        )
    return pd.DataFrame(rows).set_index("scenario")
