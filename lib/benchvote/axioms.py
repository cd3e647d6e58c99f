r"""Checking Arrow's conditions on a real leaderboard: Pareto and independence of irrelevant alternatives.

The IIA check rests on one observation.  Under the strict mean win rate
(Zhang & Hardt 2024, eq. 2) the win rate of a protected model a in the field
:math:`P \cup X` (protected models plus added models) is

.. math::

    \bar w_a(X) = \frac{\sum_{j \in P} w_{aj} + \sum_{x \in X} w_{ax}}{|P| + |X|},

so for two protected models a and b

.. math::

    \bar w_a(X) - \bar w_b(X) = \frac{D_{ab} + \sum_{x \in X} \delta_{ab}(x)}{|P| + |X|},
    \qquad D_{ab} = \sum_{j \in P} (w_{aj} - w_{bj}),\quad \delta_{ab}(x) = w_{ax} - w_{bx}.

The denominator is positive, so the *order* of a and b depends on
:math:`D_{ab} + \sum_{x\in X}\delta_{ab}(x)` only, and every added model
contributes an amount :math:`\delta_{ab}(x)` that depends on nothing but that
model.  Whether *some* subset of the pool reverses a and b is therefore
decided by adding every model with a negative contribution; the fewest
models that suffice are the most negative contributions, taken in order.
The same holds for the Borda count with :math:`w` replaced by Borda points.
All arithmetic is done on exact integers (win counts over a common
denominator), so a reported reversal is never a rounding artefact.

**Chained ties.**  The tasks are ranked within the field, as
:func:`benchvote.protected_ranking` does: with the tie tolerance, scores whose
sorted gaps are all at most ``tol`` tie, so an added model whose score lies
between two others can join them into one tie (0 and 1.2e-9 differ, but not
once 0.6e-9 takes part).  Each comparison is therefore counted as it falls in
the smallest field that holds both models, and a *chain term* records every
comparison that models added between them can still turn into a tie; the
terms are evaluated exactly for each added set (:meth:`FieldMargins.totals`).
Without chained ties there are no terms and the decomposition above holds as
written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from math import lcm
from typing import Any

import numpy as np
import pandas as pd

from ._validation import as_label_list, as_score_matrix, direction_of, measure, numbered
from .aggregation import _pairwise_counts, mean_win_rate
from .ranking import DEFAULT_TIE_TOLERANCE, _rank

__all__ = ["pareto_violations", "FieldMargins", "field_margins", "IIAFlip", "iia_flip", "iia_report", "IIA_STATUSES"]

#: The categories of :func:`iia_report`'s ``status`` column.
IIA_STATUSES = ("reversible", "stable", "tied")


def _rule_name(rule: Any) -> str:
    """``"mean_win_rate"`` or ``"borda"``: the two rules whose field margins decompose model by model."""
    name = getattr(rule, "__name__", None)
    if (
        callable(rule)
        and getattr(rule, "__module__", "").startswith("benchvote")
        and name in ("mean_win_rate", "borda")
    ):
        return name
    raise ValueError(
        f"rule must be benchvote.mean_win_rate or benchvote.borda (their margins decompose model by "
        f"model, see benchvote.axioms); got {rule!r}"
    )


@measure(allow_nan=True)
def pareto_violations(scores: Any, higher_is_better: Any = True, *, rule: Callable[..., Any]) -> list[tuple]:
    """Pairs (i, j) where every task prefers i to j but the rule does not rank i strictly above j.

    Parameters
    ----------
    rule : callable
        Maps ``(scores, higher_is_better)`` to one number per model, higher =
        better, as every rule of the library does (e.g.
        :func:`benchvote.mean_win_rate`, :func:`benchvote.borda`,
        :func:`benchvote.voting.ranked_pairs`).

    Returns
    -------
    list of (label, label)
        Empty when the rule satisfies weak Pareto on this table.  A pair is
        only checked when both models share at least one task, and "every
        task" means every shared task.

    References
    ----------
    :cite:t:`arrow1950difficulty`.

    Examples
    --------
    >>> import numpy as np, benchvote as bv
    >>> s = np.array([[3.0, 3.0], [2.0, 1.0], [1.0, 2.0]])
    >>> pareto_violations(s, rule=bv.mean_win_rate)
    []
    >>> pareto_violations(s, rule=lambda s, h: np.zeros(len(s)))  # a constant rule ignores unanimity
    [(0, 1), (0, 2)]
    """
    if not callable(rule):
        raise TypeError(f"rule must be a callable (scores, higher_is_better) -> one number per model, got {rule!r}")
    direction = scores.direction
    counts = _pairwise_counts(scores.values, direction, DEFAULT_TIE_TOLERANCE)
    dominates = (counts.wins == counts.compared) & (counts.compared > 0)
    values = np.asarray(rule(scores.as_input(), higher_is_better), dtype=float)
    if values.shape != (scores.shape[0],):
        raise ValueError(f"rule must return one number per model ({scores.shape[0]}), got shape {values.shape}")
    bad = dominates & ~(values[:, None] > values[None, :])
    return [(scores.models[i], scores.models[j]) for i, j in zip(*np.nonzero(bad))]


@dataclass(frozen=True)
class FieldMargins:
    """Exact pairwise margins of protected models and the contribution of each pool model.

    For protected models a, b (indices into ``protected``) and a pool model x
    (index into ``pool``), model a ranks above b in the field ``protected + X``
    exactly when ``base[a, b] + increments[a, b, X].sum() > 0``.

    Attributes
    ----------
    protected, pool : list
        Model labels.
    own : ndarray of int, shape (p,)
        :math:`\\sum_{j \\in P} w_{aj}` times ``scale`` for each protected model.
    contrib : ndarray of int, shape (p, q)
        :math:`w_{ax}` times ``scale``.
    scale : int
        Common denominator: win rates are ``integer / scale`` (Borda points are ``integer / 2``).
    rule : str
        Name of the rule: ``"mean_win_rate"`` (strict) or ``"borda"``.
    base : ndarray of int, shape (p, p)
        :math:`D_{ab}` times ``scale`` (computed).
    increments : ndarray of int, shape (p, p, q)
        :math:`\\delta_{ab}(x)` times ``scale`` (computed).
    """

    protected: list
    pool: list
    own: np.ndarray
    contrib: np.ndarray
    scale: int
    rule: str
    chains: tuple = ()
    tol: float = DEFAULT_TIE_TOLERANCE

    @cached_property
    def base(self) -> np.ndarray:
        return self.own[:, None] - self.own[None, :]

    @cached_property
    def increments(self) -> np.ndarray:
        return self.contrib[:, None, :] - self.contrib[None, :, :]

    def chains_of(self, models: Sequence[int]) -> tuple:
        """The chain terms that change the total of any of the protected ``models``."""
        wanted = set(models)
        return tuple(t for t in self.chains if wanted & {a for a, _ in t.deltas})

    def totals(self, masks: Any, chains: tuple | None = None) -> np.ndarray:
        """Exact totals (win rates times ``scale`` summed over the field) of every protected model.

        ``masks`` is a boolean array (sets x pool), one row per added set; the
        result has one row per set and one column per protected model.  Two
        protected models rank in the field ``protected + X`` as their totals do.
        """
        masks = np.atleast_2d(np.asarray(masks, dtype=bool))
        own = np.asarray(self.own)
        out = own[None, :] + masks.astype(own.dtype) @ np.asarray(self.contrib).T
        for term in self.chains if chains is None else chains:
            hit = term.joined(masks, self.tol)
            for a, delta in term.deltas:
                out[:, a] += hit.astype(out.dtype) * delta
        return out

    def margin(self, a: int, b: int, added: Sequence[int] = ()) -> float:
        """Win-rate (or Borda-point) difference of protected a over b when pool models ``added`` join."""
        mask = np.zeros(len(self.pool), dtype=bool)
        mask[list(added)] = True
        t = self.totals(mask)[0]
        total = int(t[a]) - int(t[b])
        denom = self.scale * (len(self.protected) + len(added)) if self.rule == "mean_win_rate" else self.scale
        return total / denom


@dataclass(frozen=True)
class ChainTerm:
    """A comparison on one task that added models can turn into a tie (see the module docstring).

    The two models (a protected model and ``partner``) do not tie in the
    smallest field that holds them, but tie in the field when every score
    between them, of the models present, is within ``tol`` of the next.
    ``values`` are the oriented scores between them (ends included,
    ascending) and ``member`` the pool index of each (-1: always present).
    When they tie, protected model ``a`` changes its total by ``delta`` for
    every ``(a, delta)`` of ``deltas``.
    """

    deltas: tuple
    partner: int
    values: np.ndarray
    member: np.ndarray

    def joined(self, masks: np.ndarray, tol: float) -> np.ndarray:
        """Per added set (rows of ``masks``): whether the two models tie (partner present and chained to it)."""
        n_sets = masks.shape[0]
        ok = masks[:, self.partner].copy() if self.partner >= 0 else np.ones(n_sets, dtype=bool)
        last = np.full(n_sets, self.values[0])
        for t in range(1, len(self.values)):
            here = masks[:, self.member[t]] if self.member[t] >= 0 else np.ones(n_sets, dtype=bool)
            ok &= ~here | (self.values[t] - last <= tol)
            last = np.where(here, self.values[t], last)
        return ok


@measure(allow_nan=True)
def field_margins(
    scores: Any,
    higher_is_better: Any = True,
    *,
    protected: Sequence,
    pool: Sequence,
    rule: Callable[..., Any] = mean_win_rate,
) -> FieldMargins:
    """Exact margins between protected models and per-model contributions of the pool.

    See the module docstring for the decomposition.

    Parameters
    ----------
    protected : sequence
        The models whose ranking should not depend on who else takes part.
    pool : sequence
        Candidate "irrelevant" models (disjoint from ``protected``).
    rule : callable
        :func:`benchvote.mean_win_rate` (the strict convention: pairs compared
        on shared tasks) or :func:`benchvote.borda` (complete data only; it
        orders models like the quantile win rate).  The decomposition holds
        for these two rules only.

    Raises
    ------
    ValueError
        For overlapping or too small sets, an unknown rule, a protected model
        that shares no task with another model of the field, or missing data
        with ``rule="borda"``.
    KeyError
        For labels that are not in ``scores``.

    Examples
    --------
    B beats A on three of five tasks, and C costs B more than A (see :func:`iia_flip`):

    >>> import pandas as pd
    >>> s = pd.DataFrame({f"t{k}": ([2.0, 3.0, 1.0] if k <= 3 else [3.0, 1.0, 2.0]) for k in range(1, 6)},
    ...                  index=["A", "B", "C"])
    >>> fm = field_margins(s, protected=["A", "B"], pool=["C"])
    >>> fm.margin(1, 0), round(fm.margin(1, 0, added=[0]), 4)  # B over A, alone and with C
    (0.1, -0.0667)
    """
    rule_name = _rule_name(rule)
    scores = scores.frame()
    protected = as_label_list(protected, "protected", scores.index)
    pool = as_label_list(pool, "pool", scores.index)
    if set(protected) & set(pool):
        both = sorted(map(str, set(protected) & set(pool)))
        who = f"{numbered(len(both), 'model')} {both[:5]} {numbered(len(both), 'is', 'are')}"
        raise ValueError(f"{who} both protected and in the pool")
    if len(protected) < 2:
        raise ValueError(f"the protected set needs at least 2 models, got {len(protected)}")
    field = scores.loc[protected + pool]
    mat = as_score_matrix(field, allow_nan=rule_name == "mean_win_rate")
    direction = direction_of(mat, higher_is_better)
    tol = DEFAULT_TIE_TOLERANCE
    counts = _pairwise_counts(mat.values, direction, tol)
    p = len(protected)
    oriented = np.where(direction[None, :], mat.values, -mat.values)
    wins, ties, loose = _smallest_field_relation(oriented, p, tol)
    if rule_name == "borda":
        points = 2 * wins + ties  # Borda points, doubled to stay integral
        scale = 2
        rate = points.astype(object)
    else:
        needed = counts.compared[:p]  # protected rows against every model of the field
        off = np.ones_like(needed, dtype=bool)
        off[np.arange(p), np.arange(p)] = False
        missing = (needed == 0) & off
        if missing.any():
            i, j = np.argwhere(missing)[0]
            raise ValueError(
                f"{protected[i]!s} and {mat.models[j]!s} share no task with a score; their win rate is undefined"
            )
        scale = 1
        for c in np.unique(needed[off]):
            scale = lcm(scale, int(c))
        rate = np.zeros(counts.wins.shape, dtype=object)
        for i in range(p):
            for j in range(len(mat.models)):
                if i != j:
                    rate[i, j] = int(wins[i, j]) * (scale // int(counts.compared[i, j]))
    own = rate[:p, :p].sum(axis=1)  # sum over the protected field of each protected model's rates
    contrib = rate[:p, p:]  # (p, q)
    chains = _chain_terms(oriented, loose, p, rule_name, scale, counts.compared)
    biggest = max([abs(int(v)) for v in np.ravel(own).tolist() + np.ravel(contrib).tolist()] or [0])
    biggest += sum(abs(d) for t in chains for _, d in t.deltas)
    if biggest * (len(pool) + p + 2) < 2**62:  # sums of differences stay exact in int64
        own, contrib = own.astype(np.int64), contrib.astype(np.int64)
    return FieldMargins(
        protected=protected, pool=pool, own=own, contrib=contrib, scale=scale, rule=rule_name, chains=chains, tol=tol
    )


def _smallest_field_relation(oriented: np.ndarray, p: int, tol: float) -> tuple[np.ndarray, np.ndarray, list]:
    """Wins and ties of each protected model (first ``p`` rows) against every model of the field.

    Each comparison is made in the smallest field that holds both models:
    the protected models, plus the pool model when the other one is from the
    pool.  Task by task, the protected models' tie groups are those of
    :func:`benchvote.rank` on the protected rows alone; a pool model ties
    with a group when its score chains to it (inside the group's range, or
    within ``tol`` of an end).  Returns the wins, the ties, and the
    comparisons (protected row, field row, task) that this field does not
    tie but the whole field does: the candidates for chain terms.
    """
    m, n = oriented.shape
    wins = np.zeros((p, m), dtype=np.int64)
    ties = np.zeros((p, m), dtype=np.int64)
    whole = _rank(oriented, np.ones(n, dtype=bool), tol)
    loose = []
    for k in range(n):
        v = oriented[:, k]
        seen = ~np.isnan(v)
        prot = np.flatnonzero(seen[:p])
        if not len(prot):
            continue
        group = _rank(v[prot][:, None], np.ones(1, dtype=bool), tol)[:, 0]
        labels, gid = np.unique(group, return_inverse=True)
        lo = np.array([v[prot][gid == g].min() for g in range(len(labels))])
        hi = np.array([v[prot][gid == g].max() for g in range(len(labels))])
        tied = np.zeros((p, m), dtype=bool)
        tied[np.ix_(prot, prot)] = gid[:, None] == gid[None, :]
        others = p + np.flatnonzero(seen[p:])
        if len(others):
            x = v[others][:, None]
            joins = ((x >= lo) & (x <= hi)) | ((x > hi) & (x - hi <= tol)) | ((x < lo) & (lo - x <= tol))
            tied[np.ix_(prot, others)] = joins[:, gid].T
        both = seen[:p, None] & seen[None, :]
        both[np.arange(p), np.arange(p)] = False
        wins += both & ~tied & (v[:p, None] > v[None, :])
        ties += both & tied
        field_tie = whole[:p, k][:, None] == whole[None, :, k]
        for a, j in zip(*np.nonzero(both & ~tied & field_tie)):
            loose.append((int(a), int(j), k))
    return wins, ties, loose


def _chain_terms(oriented: np.ndarray, loose: list, p: int, rule: str, scale: int, compared: np.ndarray) -> tuple:
    """One :class:`ChainTerm` per comparison that added models can turn into a tie (see the module docstring)."""
    terms = []
    for a, j, k in loose:
        if j < p and j < a:
            continue  # a protected pair: one term for both, made from the lower index
        v = oriented[:, k]
        low, high = sorted((v[a], v[j]))
        inside = np.flatnonzero(~np.isnan(v) & (v >= low) & (v <= high))  # only these decide the chain
        inside = inside[np.argsort(v[inside], kind="stable")]  # a model level with an end adds a gap of 0
        better, worse = (a, j) if v[a] > v[j] else (j, a)
        deltas = []
        if rule == "borda":  # a win (2 doubled points) and a loss (0) become two ties (1 each)
            deltas = [(x, d) for x, d in ((better, -1), (worse, 1)) if x < p]
        elif better < p:  # the strict win rate: the better model loses a win, the other gains nothing
            deltas = [(better, -(scale // int(compared[better, worse])))]
        if not deltas:
            continue
        member = np.where((inside < p) | (inside == j) | (inside == a), -1, inside - p)
        terms.append(ChainTerm(deltas=tuple(deltas), partner=j - p if j >= p else -1, values=v[inside], member=member))
    return tuple(terms)


@dataclass(frozen=True)
class IIAFlip:
    """Outcome of :func:`iia_flip` for one pair of protected models.

    Attributes
    ----------
    leader, trailer : label
        The pair, ordered as the protected models alone rank them.
    flippable : bool
        Whether some subset of the pool puts ``trailer`` strictly above ``leader``.
    certificate : tuple
        A smallest such subset (empty when not flippable).
    margin_before : float
        Win-rate difference leader minus trailer among the protected models (Borda points for ``rule="borda"``).
    margin_after : float
        The same difference once the certificate has joined (negative when flippable).
    best_margin : float
        The smallest difference any subset of the pool can reach (adding every model that helps the trailer).
    """

    leader: Any
    trailer: Any
    flippable: bool
    certificate: tuple
    margin_before: float
    margin_after: float
    best_margin: float


def _flip_from_margins(fm: FieldMargins, a: int, b: int) -> IIAFlip:
    base = int(fm.base[a, b])
    if base == 0:
        raise ValueError(
            f"{fm.protected[a]!s} and {fm.protected[b]!s} tie among the protected models; there is no order to reverse"
        )
    lead, trail = (a, b) if base > 0 else (b, a)
    chains = fm.chains_of((lead, trail))
    if chains:
        return _flip_with_chains(fm, lead, trail, chains)
    delta = np.array([int(v) for v in fm.increments[lead, trail]], dtype=object)
    helpful = [k for k in np.argsort(np.array([float(v) for v in delta]), kind="stable") if delta[k] < 0]
    running = abs(base)
    chosen: list[int] = []
    for k in helpful:
        if running < 0:
            break
        running += int(delta[k])
        chosen.append(int(k))
    flippable = running < 0
    best = fm.margin(lead, trail, helpful)
    certificate = tuple(fm.pool[k] for k in chosen) if flippable else ()
    after = fm.margin(lead, trail, chosen) if flippable else best
    return IIAFlip(
        leader=fm.protected[lead],
        trailer=fm.protected[trail],
        flippable=flippable,
        certificate=certificate,
        margin_before=fm.margin(lead, trail),
        margin_after=after,
        best_margin=best,
    )


#: Most pool models in chained ties with a pair that :func:`iia_flip` decides by enumerating their subsets.
MAX_CHAINED = 20


def _flip_with_chains(fm: FieldMargins, lead: int, trail: int, chains: tuple) -> IIAFlip:
    """:func:`iia_flip` when added models can chain ties of ``lead`` or ``trail``: every subset of those models.

    The pool models that take part in a chain term of the pair (``chained``)
    are enumerated; every other pool model changes the pair's margin by a
    fixed amount, so for each subset of the chained ones the fewest others
    that reverse the pair are the most negative contributions, in order.
    """
    chained = sorted(
        {t.partner for t in chains if t.partner >= 0} | {int(i) for t in chains for i in t.member if i >= 0}
    )
    if len(chained) > MAX_CHAINED:
        raise ValueError(
            f"{len(chained)} pool models chain ties (scores within the tie tolerance) with {fm.protected[lead]!s} "
            f"or {fm.protected[trail]!s}; deciding the pair exactly needs every subset of them (at most "
            f"{MAX_CHAINED} models)"
        )
    rest = np.array([x for x in range(len(fm.pool)) if x not in set(chained)], dtype=int)
    delta = np.array([int(fm.contrib[lead, x]) - int(fm.contrib[trail, x]) for x in rest], dtype=object)
    by_help = rest[np.argsort(np.array([float(v) for v in delta]), kind="stable")]
    helpful = [int(x) for x in by_help if int(fm.contrib[lead, x]) - int(fm.contrib[trail, x]) < 0]
    steps = np.cumsum([0] + [int(fm.contrib[lead, x]) - int(fm.contrib[trail, x]) for x in helpful])
    best_margin = float("inf")  # there is always at least the empty subset of the chained models
    best: list[int] | None = None
    for start in range(0, 1 << len(chained), 1 << 14):
        codes = np.arange(start, min(start + (1 << 14), 1 << len(chained)))
        picked = (codes[:, None] >> np.arange(len(chained))[None, :]) & 1 == 1
        masks = np.zeros((len(codes), len(fm.pool)), dtype=bool)
        masks[:, chained] = picked
        t = fm.totals(masks, chains=chains)
        m_s = t[:, lead] - t[:, trail]  # the pair's margin with each subset of the chained models
        size = picked.sum(axis=1)
        denom = fm.scale * (len(fm.protected) + size + len(helpful)) if fm.rule == "mean_win_rate" else fm.scale
        best_margin = min(best_margin, float(min((m_s + steps[-1]) / denom)))  # every helpful model added as well
        need = np.searchsorted(-steps, m_s.astype(np.int64), side="right")  # fewest helpful ones: m_s + steps < 0
        can = np.flatnonzero(need < len(steps))
        if len(can):
            row = can[np.argmin((size + need)[can])]  # the smallest certificate, first in enumeration order
            if best is None or int(size[row] + need[row]) < len(best):
                best = [chained[c] for c in np.flatnonzero(picked[row])] + helpful[: int(need[row])]
    return IIAFlip(
        leader=fm.protected[lead],
        trailer=fm.protected[trail],
        flippable=best is not None,
        certificate=() if best is None else tuple(fm.pool[k] for k in sorted(best)),
        margin_before=fm.margin(lead, trail),
        margin_after=best_margin if best is None else fm.margin(lead, trail, best),
        best_margin=best_margin,
    )


@measure(allow_nan=True)
def iia_flip(
    scores: Any,
    higher_is_better: Any = True,
    *,
    pair: tuple,
    protected: Sequence,
    pool: Sequence,
    rule: Callable[..., Any] = mean_win_rate,
) -> IIAFlip:
    """Decide exactly whether adding pool models can reverse two protected models.

    Parameters
    ----------
    pair : (label, label)
        Two distinct protected models.
    protected : sequence
        The models whose ranking should not depend on who else takes part.
    pool : sequence
        Candidate "irrelevant" models (disjoint from ``protected``, not empty).
    rule : callable
        :func:`benchvote.mean_win_rate` (strict) or :func:`benchvote.borda`
        (= quantile win rate on complete data).

    Returns
    -------
    IIAFlip
        With a smallest certificate when the reversal is possible.

    Raises
    ------
    ValueError
        When the pair is not two distinct protected models, the pool is empty,
        or the two models tie among the protected models.

    See Also
    --------
    iia_report
    field_margins

    References
    ----------
    :cite:t:`zhang2024tradeoffs`; :cite:t:`arrow1950difficulty`.

    Examples
    --------
    B beats A on three of five tasks; C lies between A and B on the other two
    and below both elsewhere, so C costs B more than A:

    >>> import pandas as pd
    >>> s = pd.DataFrame({f"t{k}": ([2.0, 3.0, 1.0] if k <= 3 else [3.0, 1.0, 2.0]) for k in range(1, 6)},
    ...                  index=["A", "B", "C"])
    >>> f = iia_flip(s, pair=("A", "B"), protected=["A", "B"], pool=["C"])
    >>> f.leader, f.trailer, f.flippable, f.certificate
    ('B', 'A', True, ('C',))
    """
    pair = tuple(pair)
    if len(pair) != 2 or pair[0] == pair[1]:
        raise ValueError(f"pair must be two distinct models, got {pair}")
    protected = list(protected)
    outside = [x for x in pair if x not in protected]
    if outside:
        raise ValueError(f"the pair must lie in the protected set; {outside} is not protected")
    if len(list(pool)) == 0:
        raise ValueError("the pool of models to add is empty")
    fm = field_margins(scores, higher_is_better, protected=protected, pool=pool, rule=rule)
    return _flip_from_margins(fm, protected.index(pair[0]), protected.index(pair[1]))


@measure(allow_nan=True)
def iia_report(
    scores: Any,
    higher_is_better: Any = True,
    *,
    protected: Sequence,
    pool: Sequence,
    among: Sequence | None = None,
    rule: Callable[..., Any] = mean_win_rate,
) -> pd.DataFrame:
    """:func:`iia_flip` for every pair of ``among`` (default: all protected models), one row per pair.

    The column ``status`` is categorical: ``"reversible"`` (some subset of
    the pool reverses the pair; ``certificate`` is a smallest one),
    ``"stable"`` (no subset does) or ``"tied"`` (the two tie among the
    protected models, so there is nothing to reverse).

    Parameters
    ----------
    protected : sequence
        The models whose ranking should not depend on who else takes part.
    pool : sequence
        Candidate "irrelevant" models (disjoint from ``protected``).
    among : sequence, optional
        The protected models whose pairs are examined (default: all).
    rule : callable
        :func:`benchvote.mean_win_rate` or :func:`benchvote.borda` (see :func:`field_margins`).

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({f"t{k}": ([2.0, 3.0, 1.0] if k <= 3 else [3.0, 1.0, 2.0]) for k in range(1, 6)},
    ...                  index=["A", "B", "C"])
    >>> iia_report(s, protected=["A", "B"], pool=["C"])[["leader", "trailer", "status", "certificate"]]
      leader trailer      status certificate
    0      B       A  reversible        (C,)
    """
    protected = list(protected)
    among = protected if among is None else list(among)
    fm = field_margins(scores, higher_is_better, protected=protected, pool=pool, rule=rule)
    rows = []
    for x in range(len(among)):
        for y in range(x + 1, len(among)):
            a, b = protected.index(among[x]), protected.index(among[y])
            if int(fm.base[a, b]) == 0:
                rows.append(
                    {
                        "leader": among[x],
                        "trailer": among[y],
                        "status": "tied",
                        "certificate": (),
                        "certificate_size": 0,
                        "margin_before": 0.0,
                        "margin_after": 0.0,
                        "best_margin": 0.0,
                    }
                )
                continue
            f = _flip_from_margins(fm, a, b)
            rows.append(
                {
                    "leader": f.leader,
                    "trailer": f.trailer,
                    "status": "reversible" if f.flippable else "stable",
                    "certificate": f.certificate,
                    "certificate_size": len(f.certificate),
                    "margin_before": f.margin_before,
                    "margin_after": f.margin_after,
                    "best_margin": f.best_margin,
                }
            )
    out = pd.DataFrame(
        rows,
        columns=[
            "leader",
            "trailer",
            "status",
            "certificate",
            "certificate_size",
            "margin_before",
            "margin_after",
            "best_margin",
        ],
    )
    out["status"] = pd.Categorical(out["status"], categories=IIA_STATUSES)
    return out
