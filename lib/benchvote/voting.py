"""Voting rules built on pairwise majority: Condorcet, Copeland, Ranked Pairs, Kemeny.

A benchmark is read as an election: every task (or metric) votes, in each
pair of models, for the one it scores higher; a tie on a task is an
abstention.  All rules here take the same models x tasks table as the rest
of the library.  The positional Borda count lives in
:mod:`benchvote.aggregation` and is re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

import numpy as np
import pandas as pd

from ._validation import (
    ScoreMatrix,
    check_number,
    measure,
    wrap_models,
)
from .aggregation import _pairwise_counts, borda
from .ranking import DEFAULT_TIE_TOLERANCE, _rank

__all__ = [
    "majority_counts",
    "margin_matrix",
    "majority_relation",
    "is_transitive",
    "condorcet_winner",
    "CondorcetCycle",
    "condorcet_cycles",
    "count_condorcet_cycles",
    "copeland",
    "ranked_pairs",
    "KemenyResult",
    "kemeny",
    "KEMENY_MAX_MODELS",
    "borda",
]

#: Largest number of models :func:`kemeny` searches exhaustively (8! = 40,320 orders).
KEMENY_MAX_MODELS = 8


@measure(allow_nan=True, allow_empty_rows=True)
def majority_counts(scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE) -> np.ndarray:
    r"""Number of tasks preferring model i to model j, for every ordered pair.

    .. math::

        N_{ij} = \#\{k : s_{ik} \text{ beats } s_{jk}\}.

    "Beats" means a better rank on the task (:func:`benchvote.rank` with tie
    tolerance ``tol``): models tied on a task abstain on it.  The default
    ``tol`` only absorbs floating-point noise; a larger one treats near-ties
    as abstentions, as in Gordienko et al.'s search for Condorcet cycles on
    HELM (tie groups chain, exactly as in :func:`benchvote.rank`).  Missing
    scores abstain.

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x tasks; ``nan`` marks a missing score (it abstains).

    Examples
    --------
    >>> majority_counts([[3, 1, 2], [2, 3, 1], [1, 2, 3]])
    array([[0, 2, 1],
           [1, 0, 2],
           [2, 1, 0]])
    """
    mat, direction = scores, scores.direction
    return _counts(mat.values, direction, tol)


def _counts(values: np.ndarray, direction: np.ndarray, tol: float) -> np.ndarray:
    """Kernel of :func:`majority_counts` on a validated table: ``N[i, j]``, the tasks whose ranking puts i above j.

    A task votes by its ranking (:func:`benchvote.rank` with tie tolerance
    ``tol``); models tied on it, or without a score on it, abstain.  These are
    the wins of :func:`benchvote.pairwise_wins`, counted pair by pair by a
    compiled kernel (no models x models x tasks array).
    """
    return _pairwise_counts(values, direction, tol).wins


def _margin_dtype(n_tasks: int) -> type:
    """The smallest signed integer type holding margins in ``[-n_tasks, n_tasks]``."""
    return np.int8 if n_tasks <= 127 else np.int16 if n_tasks <= 32767 else np.int32


def _margins(values: np.ndarray, direction: np.ndarray, tol: float) -> np.ndarray:
    """Majority margins ``N[i, j] - N[j, i]`` of a validated table, in the smallest integer type that holds them.

    One compiled pass over the pairs (:func:`benchvote._kernels.fill_margins`):
    on 6 tasks an int8 matrix, 25 MB for 5,000 models where the counts in
    int64 took 200 MB each.
    """
    from ._kernels import fill_margins

    r = _rank(values, direction, tol)
    out: np.ndarray = np.empty((r.shape[0], r.shape[0]), dtype=_margin_dtype(r.shape[1]))
    fill_margins(np.ascontiguousarray(r), out)
    return out


def _labelled_square(values: np.ndarray, mat: ScoreMatrix) -> np.ndarray | pd.DataFrame:
    if mat.labelled:
        index = pd.Index(mat.models)
        return pd.DataFrame(values, index=index, columns=index)
    return values


@measure(allow_nan=True, allow_empty_rows=True)
def margin_matrix(
    scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE
) -> np.ndarray | pd.DataFrame:
    r"""Majority margins :math:`M_{ij} = N_{ij} - N_{ji}` (antisymmetric).

    :math:`M_{ij} > 0` means a majority of the voting tasks prefers model i to
    model j.  See :func:`majority_counts` for ``tol``.

    Examples
    --------
    Condorcet's paradox: three tasks, three models, each model first once.

    >>> margin_matrix([[3, 1, 2], [2, 3, 1], [1, 2, 3]])
    array([[ 0,  1, -1],
           [-1,  0,  1],
           [ 1, -1,  0]])
    """
    mat, direction = scores, scores.direction
    return _labelled_square(_margins(mat.values, direction, tol).astype(np.int64), mat)


@measure(allow_nan=True, allow_empty_rows=True)
def majority_relation(
    scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE
) -> np.ndarray | pd.DataFrame:
    """Strict majority relation: entry (i, j) is True when more tasks prefer i to j than j to i.

    Examples
    --------
    >>> majority_relation([[2, 2], [1, 1]]).astype(int)
    array([[0, 1],
           [0, 0]])
    """
    mat, direction = scores, scores.direction
    return _labelled_square(_margins(mat.values, direction, tol) > 0, mat)


def is_transitive(relation: Any) -> bool:
    """Whether a strict relation (boolean matrix) is transitive: i > j and j > k imply i > k.

    Parameters
    ----------
    relation : array_like of bool, shape (m, m)
        A strict relation: entry (i, j) says i beats j.

    Examples
    --------
    >>> is_transitive([[0, 1, 1], [0, 0, 1], [0, 0, 0]])
    True
    >>> is_transitive([[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    False
    """
    if relation is None:
        raise TypeError("relation must be a square boolean matrix, got None")
    raw = np.asarray(relation)
    if raw.ndim != 2 or raw.shape[0] != raw.shape[1]:
        raise ValueError(f"relation must be a square boolean matrix, got shape {raw.shape}")
    if raw.dtype != bool:
        if raw.dtype.kind not in "iuf" or not np.isin(raw, [0, 1]).all():
            raise ValueError(f"relation must hold booleans (or 0/1), got dtype {raw.dtype}")
    r = raw.astype(bool)
    two_steps = (r.astype(np.int64) @ r.astype(np.int64)) > 0
    return bool(not (two_steps & ~r).any())


@measure(allow_nan=True)
def condorcet_winner(scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE):
    """The model that beats every other model by a strict majority of tasks, or None.

    Returns the model's label (its row index for an array).

    Examples
    --------
    >>> condorcet_winner([[0.8, 0.8, 0.2], [0.7, 0.6, 0.8], [0.4, 0.1, 0.4]])
    0
    >>> condorcet_winner([[3, 1, 2], [2, 3, 1], [1, 2, 3]]) is None
    True
    """
    mat, direction = scores, scores.direction
    winner = _winner(_margins(mat.values, direction, tol))
    return None if winner is None else mat.models[winner]


def _winner(margins: np.ndarray) -> int | None:
    """The row that beats every other row (positive margins off the diagonal), or None."""
    wins = _row_count(margins, 1)
    winners = np.flatnonzero(wins == len(margins) - 1)
    return int(winners[0]) if len(winners) else None


def _row_count(margins: np.ndarray, sign: int) -> np.ndarray:
    """Per row, how many margins have the sign ``sign`` (1: victories, -1: defeats), a block of rows at a time."""
    out = np.empty(len(margins), dtype=np.int64)
    for lo in range(0, len(margins), _BLOCK):
        block = margins[lo : lo + _BLOCK]
        out[lo : lo + _BLOCK] = np.count_nonzero(block > 0 if sign > 0 else block < 0, axis=1)
    return out


@dataclass(frozen=True)
class CondorcetCycle:
    """A majority cycle a > b > c > a.

    Attributes
    ----------
    models : tuple
        The three models, in cycle order, starting with the one listed first
        in the input.
    margins : tuple of int
        Majority margins of the three defeats (a over b, b over c, c over a).
    buffer : float
        Robustness of the cycle: for each defeat, the smallest score gap among
        the tasks voting for it; the buffer is the smallest of these three.
        A cycle with a large buffer survives small perturbations of the scores.
    """

    models: tuple
    margins: tuple
    buffer: float


@measure(allow_nan=True)
def condorcet_cycles(
    scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE, limit: int | None = None
) -> list[CondorcetCycle]:
    r"""All three-model majority cycles, each reported once.

    A triple (a, b, c) is a Condorcet cycle when a strict majority of the
    voting tasks prefers a to b, b to c and c to a.  Models tied on a task
    (within ``tol``, see :func:`majority_counts`) abstain on it.

    A tournament on m models can hold of the order of :math:`m^3/24` cycles
    (ten million on a 5,000-model table with one common factor), so ``limit``
    keeps only the first ones of the sorted list and
    :func:`count_condorcet_cycles` counts them without listing them.  The
    cycles are found from the m x m majority relation, block by block, never
    from an m x m x m array.

    Parameters
    ----------
    limit : int, optional
        Return only the first ``limit`` cycles of the sorted list (default: all).

    Returns
    -------
    list of CondorcetCycle
        Sorted by decreasing buffer; equal buffers in the order of the
        models' input positions (first model, then second, then third).

    See Also
    --------
    margin_matrix
    count_condorcet_cycles

    References
    ----------
    :cite:t:`gordienko2025beyond`.

    Examples
    --------
    >>> cycles = condorcet_cycles([[3, 1, 2], [2, 3, 1], [1, 2, 3]])
    >>> [c.models for c in cycles], cycles[0].margins
    ([(0, 1, 2)], (1, 1, 1))
    """
    if limit is not None:
        limit = check_number(limit, "limit", low=0, integer=True)
    mat, direction = scores, scores.direction
    return _list_cycles(mat.values, direction, tol, list(mat.models), limit)


def _list_cycles(
    values: np.ndarray, direction: np.ndarray, tol: float, models: list, limit: int | None, rows: Any = None
) -> list[CondorcetCycle]:
    """Kernel of :func:`condorcet_cycles`; with ``rows`` (increasing positions) only the cycles among those models.

    The ranks, and so the ties, come from the whole table either way.
    """
    r = _rank(values, direction, tol)
    signed = values * np.where(direction, 1.0, -1.0)
    if rows is not None:
        r, signed, models = r[rows], signed[rows], [models[i] for i in rows]
    margins, gaps = _margins_and_gaps(r, signed)
    a, b, c = _three_cycles(margins > 0)
    buffers = np.minimum(np.minimum(gaps[a, b], gaps[b, c]), gaps[c, a])
    order = np.arange(len(a))
    if limit is not None and limit < len(a):  # only cycles at least as robust as the limit-th can be listed
        order = np.flatnonzero(buffers >= -np.partition(-buffers, limit - 1)[limit - 1]) if limit else order[:0]
    m = len(margins)
    key = (a[order] * m + b[order]) * m + c[order]  # the input order of the triple, as one number
    order = order[np.lexsort((key, -buffers[order]))][:limit]
    return [
        CondorcetCycle(
            models=(models[i], models[j], models[k]),
            margins=(int(margins[i, j]), int(margins[j, k]), int(margins[k, i])),
            buffer=float(buffers[t]),
        )
        for t, i, j, k in zip(order, a[order], b[order], c[order])
    ]


@measure(allow_nan=True)
def count_condorcet_cycles(scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE) -> int:
    r"""Number of three-model majority cycles: ``len(condorcet_cycles(...))`` without listing them.

    Counted from the models' out-degrees in O(m^2), never by looking at the
    :math:`\binom{m}{3}` triples.  When no pair ties (a tournament), Kendall
    and Babington Smith's closed form holds: a triple that is not a cycle has
    exactly one model beating the other two, so with :math:`s_i` the number
    of models i beats,

    .. math::

        c_3 = \binom{m}{3} - \sum_i \binom{s_i}{2}.

    With tied pairs (no strict majority either way) that count also removes
    the triples holding a tie, and it mis-counts those where a model beats
    two tied models.  Sorting the triples by their number of tied pairs gives
    the exact correction

    .. math::

        c_3 = \binom{m}{3} - \sum_i \binom{s_i}{2} - T(m-2)
              + \sum_i \binom{u_i}{2} - K + S,

    with :math:`T` the tied pairs, :math:`u_i` the ties of model i,
    :math:`K` the triangles of tied pairs and :math:`S` the number of
    (tied pair, model beating both) incidences.  :math:`K` and :math:`S` are
    counted over the tied pairs only, with rows of bits
    (:func:`benchvote._kernels.cyclic_triads`): O(m^2 + T m / 64).

    Examples
    --------
    >>> count_condorcet_cycles([[3, 1, 2], [2, 3, 1], [1, 2, 3]])
    1
    """
    mat, direction = scores, scores.direction
    return _n_cycles(_margins(mat.values, direction, tol))


def _n_cycles(margins: np.ndarray) -> int:
    """Kernel of :func:`count_condorcet_cycles` on the margins (:func:`benchvote._kernels.cyclic_triads`)."""
    from ._kernels import cyclic_triads

    return int(cyclic_triads(margins))


#: Rows of the majority relation handled at once by the cycle kernels.
_BLOCK = 512


def _margins_and_gaps(ranks: np.ndarray, signed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Majority margins, and for each ordered pair the smallest score gap among the tasks voting i over j.

    ``ranks`` and ``signed`` (the scores, higher = better) are models x tasks.
    A compiled pass over the pairs (m x m arrays only); ``inf`` where no task votes i over j.
    """
    from ._kernels import margins_and_gaps

    return margins_and_gaps(np.ascontiguousarray(ranks), np.ascontiguousarray(signed))


def _three_cycles(beats: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every 3-cycle a -> b -> c -> a of a strict relation once, a its smallest index (in no particular order).

    For each block of rows a: the pairs (a, c) with c -> a, c > a and a
    two-step path a -> b -> c through some b > a (a float32 product, exact
    below 2**24 models); then, for those pairs only, the b's as the bitwise
    AND of a's packed out-row and c's packed in-column.
    """
    m = len(beats)
    later = np.triu(np.ones((m, m), dtype=bool), k=1)
    forward = beats & later  # a -> b with b > a
    out_bits = _as_words(np.packbits(forward, axis=1))
    in_bits = _as_words(np.packbits(beats.T, axis=1))
    dense_fwd, dense = forward.astype(np.float32), beats.astype(np.float32)
    parts = []
    for lo in range(0, m, _BLOCK):
        closing = (dense_fwd[lo : lo + _BLOCK] @ dense > 0) & beats.T[lo : lo + _BLOCK] & later[lo : lo + _BLOCK]
        pa, pc = np.nonzero(closing)
        for s in range(0, len(pa), 65536):
            a, c = pa[s : s + 65536] + lo, pc[s : s + 65536]
            parts.append(_common_members(out_bits[a], in_bits[c], a, c))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    a, b, c = (np.concatenate(x) for x in zip(*parts))
    return a, b, c


def _as_words(packed: np.ndarray) -> np.ndarray:
    """Rows of packed bits (uint8, big-endian bit order) padded to whole uint64 words."""
    pad = (-packed.shape[1]) % 8
    return np.ascontiguousarray(np.pad(packed, ((0, 0), (0, pad)))).view(np.uint64)


def _common_members(
    rows: np.ndarray, cols: np.ndarray, a: np.ndarray, c: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each pair t, the b's whose bit is set in both ``rows[t]`` and ``cols[t]``: triples (a[t], b, c[t])."""
    both = rows & cols
    pair, word = np.nonzero(both)
    bits = np.unpackbits(both[pair, word].view(np.uint8).reshape(-1, 8), axis=1)
    hit, bit = np.nonzero(bits)
    pair, b = pair[hit], word[hit] * 64 + bit  # bytes keep their order in a word's view; bits are big-endian
    return a[pair].astype(np.int64), b.astype(np.int64), c[pair].astype(np.int64)


@measure(allow_nan=True)
def copeland(
    scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE
) -> np.ndarray | pd.Series:
    """Copeland score: pairwise majority victories minus defeats.

    Examples
    --------
    >>> copeland([[3, 3, 1], [2, 2, 3], [1, 1, 2]])
    array([ 2.,  0., -2.])
    """
    mat, direction = scores, scores.direction
    margins = _margins(mat.values, direction, tol)
    values = _row_count(margins, 1).astype(float) - _row_count(margins, -1)
    return wrap_models(values, mat, "copeland")


def _ranked_pairs_order(margins: np.ndarray, priority: np.ndarray) -> np.ndarray:
    """The models in Ranked Pairs order, first placed first (a compiled kernel).

    The defeats (positive margins) are taken by margin, largest first, then
    by the tie-break priority of the winner and of the loser; each is locked
    unless its loser already reaches its winner, and the models are placed in
    the topological order of the locked defeats that always takes the
    available model of highest priority.  The kernel keeps a topological
    order of the locked defeats (started from Copeland's order), so that a
    defeat that agrees with it is locked at once and only the others search
    the graph (:func:`benchvote._kernels.ranked_pairs_order`); keeping the
    transitive closure instead cost half a minute on 5,000 models.
    """
    from ._kernels import ranked_pairs_order

    by_priority = np.argsort(priority)  # row-major order of the permuted matrix = (winner, loser) by priority
    permuted = margins[np.ix_(by_priority, by_priority)]
    score = _row_count(permuted, 1) - _row_count(permuted, -1)
    start = np.lexsort((np.arange(len(permuted)), -score))  # Copeland's order: any order would do, this one is close
    return by_priority[ranked_pairs_order(permuted, start)]


def _order_free_priority(mat: ScoreMatrix, direction: np.ndarray, tol: float) -> np.ndarray:
    """Ranked Pairs' default tie-break: a priority per model (0 = preferred) that the rows' order does not change.

    Each model's task ranks (:func:`benchvote.rank` down every task, a missing
    score counted last), sorted best first, are compared lexicographically
    (this also ignores the columns' order); equal places fall back on the
    ranks task by task in column order, then on the model's name, then
    (identical rows with equal names only) the input order.  Ranks ignore
    increasing transforms of a task and a negated task with its direction
    flipped, as the rule itself does.
    """
    ranks = np.nan_to_num(_rank(mat.values, direction, tol), nan=np.inf)
    places = np.sort(ranks, axis=1)
    names = [str(x) for x in mat.models]
    order = sorted(range(len(names)), key=lambda i: (places[i].tolist(), ranks[i].tolist(), names[i], i))
    priority = np.empty(len(names), dtype=np.int64)
    priority[order] = np.arange(len(names))
    return priority


@measure(allow_nan=True)
def ranked_pairs(
    scores: Any,
    higher_is_better: Any = True,
    *,
    tie_break: Sequence | None = None,
    tol: float = DEFAULT_TIE_TOLERANCE,
) -> np.ndarray | pd.Series:
    r"""Tideman's Ranked Pairs: a complete ranking that respects the strongest majorities.

    1. Sort the majority defeats (pairs with a positive margin) by margin, largest first.
    2. Lock each defeat in turn unless it would close a cycle with the ones already locked.
    3. Rank the models by the locked graph (a topological order).

    Equal margins, and models the locked graph leaves unordered (when margins
    are zero), are ordered by ``tie_break``: a sequence of all models, earlier
    = preferred.  By default the order does not depend on the rows' order
    (:func:`_order_free_priority`): the model with the better places (each
    model's task ranks sorted best first, compared lexicographically, a
    missing score last) is preferred, then the better ranks task by task in
    column order, then the model whose name sorts first; only identical rows
    with equal names are left in input order.  Defeats with equal margins are
    considered in the order of their winners, then losers, in ``tie_break``.
    The Condorcet winner, when one exists, is always ranked first.

    Parameters
    ----------
    tie_break : sequence, optional
        All models in order of priority, earlier = preferred (default: by
        places, then names, whatever the order of the rows and columns).

    Returns
    -------
    ndarray or Series of float
        A score per model, higher = better, like every rule of the library:
        the number of models placed below it (``m - 1`` for the first, ``0``
        for the last, no ties).  ``benchvote.rank`` of it gives the ranks.

    See Also
    --------
    copeland
    kemeny

    References
    ----------
    :cite:t:`taylor2005manipulation`.

    Examples
    --------
    >>> ranked_pairs([[3, 1, 2], [2, 3, 1], [1, 2, 3], [0, 0, 0]])
    array([3., 2., 1., 0.])
    """
    mat, direction = scores, scores.direction
    m_count = mat.shape[0]
    if tie_break is None:
        priority = _order_free_priority(mat, direction, tol)
    else:
        order = list(tie_break)
        if sorted(map(str, order)) != sorted(map(str, mat.models)) or len(order) != m_count:
            raise ValueError("tie_break must list every model exactly once")
        pos = {str(x): k for k, x in enumerate(order)}
        priority = np.array([pos[str(x)] for x in mat.models])
    placed = _ranked_pairs_order(_margins(mat.values, direction, tol), priority)
    ranks = np.empty(m_count)
    ranks[placed] = np.arange(m_count - 1, -1, -1, dtype=float)
    return wrap_models(ranks, mat, "ranked_pairs")


@dataclass(frozen=True)
class KemenyResult:
    """Outcome of :func:`kemeny`.

    Attributes
    ----------
    ranks : ndarray or Series
        A Kemeny ranking (1 = best); the first optimal order in the search.
    disagreements : int
        Total number of (task, pair) disagreements between the ranking and the
        tasks: the Kemeny distance that the ranking minimises.
    n_optimal : int
        Number of orders attaining that minimum.
    """

    ranks: Any
    disagreements: int
    n_optimal: int


@measure(allow_nan=True)
def kemeny(
    scores: Any,
    higher_is_better: Any = True,
    *,
    tol: float = DEFAULT_TIE_TOLERANCE,
    max_models: int = KEMENY_MAX_MODELS,
) -> KemenyResult:
    r"""Kemeny–Young ranking by exhaustive search.

    Finds the order :math:`\pi` of the models minimising the total number of
    disagreements with the tasks,

    .. math::

        K(\pi) = \sum_{i \succ_\pi j} N_{ji},

    where :math:`N_{ji}` counts tasks preferring j to i (:func:`majority_counts`).
    The problem is NP-hard in general; this exact search visits all
    :math:`m!` orders (vectorised) and refuses more than ``max_models`` models.
    Among optimal orders the one returned is the first in lexicographic order
    of the models' priorities under Ranked Pairs' default tie-break (task
    ranks sorted best first, then task by task, then the name): the rows'
    order does not decide it, and both rules prefer the same model of a tie.

    Parameters
    ----------
    max_models : int
        Largest number of models searched (:math:`m!` orders).

    Raises
    ------
    ValueError
        For more than ``max_models`` models (default 8).

    Examples
    --------
    >>> r = kemeny([[3, 3, 1], [2, 2, 3], [1, 1, 2]])
    >>> r.ranks.tolist(), r.disagreements, r.n_optimal
    ([1.0, 2.0, 3.0], 2, 1)
    """
    mat, direction = scores, scores.direction
    m = mat.shape[0]
    if m > max_models:
        raise ValueError(
            f"kemeny searches all orders exhaustively and is limited to {max_models} models; "
            f"got {m}. Restrict the table to fewer models (for example the top {max_models})"
        )
    n = _counts(mat.values, direction, tol)
    perms = np.array(list(permutations(range(m))), dtype=np.int64)  # each row: models best first
    position = np.empty_like(perms)
    rows = np.arange(len(perms))[:, None]
    position[rows, perms] = np.arange(m)[None, :]
    # disagreement: sum over ordered pairs (i above j in pi) of N[j, i]
    above = position[:, :, None] < position[:, None, :]
    cost = (above * n.T[None, :, :]).sum(axis=(1, 2))
    best = int(cost.min())
    optimal = np.flatnonzero(cost == best)
    # the optimal order whose models, best first, have the smallest priorities (lexicographically)
    by_priority = _order_free_priority(mat, direction, tol)[perms[optimal]]
    first = int(optimal[np.lexsort(by_priority.T[::-1])[0]])
    ranks = position[first].astype(float) + 1
    return KemenyResult(
        ranks=wrap_models(ranks, mat, "kemeny"), disagreements=best, n_optimal=int((cost == best).sum())
    )
