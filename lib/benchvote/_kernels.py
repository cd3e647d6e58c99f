"""Compiled kernels (numba) of the library's work over all pairs of models, for leaderboards of thousands of models.

Each kernel is the inner loop of one public function, which validates the
input, documents the result and is tested against an independent oracle:

* :func:`pair_counts`: the head-to-head counts of :func:`benchvote.pairwise_wins`;
* :func:`margins_and_gaps`: the margins and score gaps of :func:`benchvote.voting.condorcet_cycles`;
* :func:`strict_above_counts`: the pair shares of
  :func:`benchvote.intervals.rank_intervals` (how often i ranks strictly above j);
* :func:`ranked_pairs_order`: the locking and placing of :func:`benchvote.voting.ranked_pairs`;
* :func:`fill_margins`, :func:`cyclic_triads`: the margins and the cycle count of :mod:`benchvote.voting`;
* :func:`fill_doubled_wins`: the doubled win counts of Bradley-Terry on a table (:mod:`benchvote._bt_kernels` has
  its row kernels above 250 models);
* :func:`win_fraction_rows`: the strict mean win rate, a block of rows at a time;
* :func:`discordant_pairs`: the reversed pairs of :func:`benchvote.kendall_tau_distance`;
* :func:`sign_products`: the concordant minus discordant pairs of every two tasks
  (the audit's ``correlation`` section, Kendall's tau-b);
* :func:`bt_newton_system`: the Newton steps of
  :func:`benchvote.ratings.bradley_terry`;
* :func:`count_weighted_sums`, :func:`count_weighted_whole_sums`: each model's sum over a task's
  items of the times an item is drawn times its score, in every redraw of
  :func:`benchvote.intervals.instance_rank_intervals`.

They are imported on first use, so that ``import benchvote`` does not load numba.
"""

from __future__ import annotations

import heapq

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def pair_counts(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Wins, ties and shared tasks of every pair, from models x tasks ranks (``nan`` = missing, lower = better).

    One pass over the pairs i < j, the tasks innermost: ``wins[i, j]`` counts
    the tasks where both have a rank and i's is lower, ``ties`` those where
    the ranks are equal, ``compared`` those where both have one (diagonals 0).
    """
    m, n = ranks.shape
    wins = np.zeros((m, m), dtype=np.int64)
    ties = np.zeros((m, m), dtype=np.int64)
    compared = np.zeros((m, m), dtype=np.int64)
    for i in range(m):
        ri = ranks[i]
        for j in range(i + 1, m):
            rj = ranks[j]
            win = 0
            loss = 0
            both = 0
            for k in range(n):
                a = ri[k]
                b = rj[k]
                if a == a and b == b:  # neither is nan
                    both += 1
                    win += a < b
                    loss += b < a
            wins[i, j] = win
            wins[j, i] = loss
            ties[i, j] = ties[j, i] = both - win - loss
            compared[i, j] = compared[j, i] = both
    return wins, ties, compared


@njit(cache=True, nogil=True)
def margins_and_gaps(ranks: np.ndarray, signed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """Majority margins and, for each ordered pair, the smallest score gap among the tasks voting i over j.

    ``ranks`` is models x tasks (``nan`` = missing, which never votes),
    ``signed`` the scores oriented so that higher is better; a task votes i
    over j when i's rank is lower, with gap ``signed[i, k] - signed[j, k]``.
    ``gaps`` is ``inf`` where no task votes i over j.  One pass over the pairs.
    """
    m, n = ranks.shape
    margins = np.zeros((m, m), dtype=np.int64)
    gaps = np.full((m, m), np.inf)
    for i in range(m):
        for j in range(i + 1, m):
            up = 0
            down = 0
            gap_up = np.inf
            gap_down = np.inf
            for k in range(n):
                a = ranks[i, k]
                b = ranks[j, k]
                if a < b:
                    up += 1
                    gap_up = min(gap_up, signed[i, k] - signed[j, k])
                elif b < a:
                    down += 1
                    gap_down = min(gap_down, signed[j, k] - signed[i, k])
            margins[i, j] = up - down
            margins[j, i] = down - up
            gaps[i, j] = gap_up
            gaps[j, i] = gap_down
    return margins, gaps


@njit(cache=True, nogil=True)
def strict_above_counts(ranks: np.ndarray, weight: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """``out[i, j]``: the total ``weight`` of the columns b with ``ranks[i, b] < ranks[j, b]``.

    ``ranks`` is models x distinct redraws (integers, e.g. twice the
    midranks) and ``weight[b]`` how often redraw b occurred.  A pair whose
    ranges of ranks do not overlap is settled by the ends (every column or
    none); only overlapping pairs are counted column by column, both ways at once.
    """
    m, n_cols = ranks.shape
    total = 0
    for b in range(n_cols):
        total += weight[b]
    lo = np.empty(m, dtype=ranks.dtype)
    hi = np.empty(m, dtype=ranks.dtype)
    for i in range(m):
        lo[i] = ranks[i].min()
        hi[i] = ranks[i].max()
    out = np.zeros((m, m), dtype=np.int64)
    for i in range(m):
        ri = ranks[i]
        for j in range(i + 1, m):
            if hi[i] < lo[j]:
                out[i, j] = total
            elif hi[j] < lo[i]:
                out[j, i] = total
            else:
                rj = ranks[j]
                below = np.int32(0)
                above = np.int32(0)
                for b in range(n_cols):
                    x = ri[b]
                    y = rj[b]
                    below += weight[b] * np.int32(x < y)
                    above += weight[b] * np.int32(y < x)
                out[i, j] = below
                out[j, i] = above
    return out


#: :func:`ranked_pairs_order` renames the nodes by their places once the words its searches read beyond the
#: window's own exceed this many times the locked defeats (the renaming's cost, one pass over them).
RELABEL_WASTE = 4

#: De Bruijn table: the index of the single set bit of ``x`` is ``_DEBRUIJN[(x * _DEBRUIJN_K) >> 58]``.
_DEBRUIJN_K = 0x03F79D71B4CB0A89
_DEBRUIJN = np.zeros(64, dtype=np.int64)
for _bit in range(64):
    _DEBRUIJN[((((1 << _bit) * _DEBRUIJN_K) & 0xFFFFFFFFFFFFFFFF) >> 58)] = _bit


@njit(cache=True, nogil=True)
def _lowest_bit(x: np.uint64) -> np.int64:  # pragma: no cover - compiled
    """Index of the lowest set bit of a non-zero word."""
    low = x & (~x + np.uint64(1))
    return _DEBRUIJN[np.int64((low * np.uint64(_DEBRUIJN_K)) >> np.uint64(58))]


@njit(cache=True, nogil=True)
def strict_inversions(keys: np.ndarray) -> int:  # pragma: no cover - compiled
    """The number of pairs p < q with ``keys[p] > keys[q]`` (equal keys are no inversion), in O(m log m).

    Bottom-up merge sort: when a key of the right run is strictly smaller
    than the head of the left run, it jumps over every key left in that run.
    """
    m = len(keys)
    src = keys.copy()
    dst = np.empty_like(src)
    count = 0
    width = 1
    while width < m:
        for lo in range(0, m, 2 * width):
            mid = min(lo + width, m)
            hi = min(lo + 2 * width, m)
            a, b, k = lo, mid, lo
            while a < mid and b < hi:
                if src[b] < src[a]:
                    count += mid - a
                    dst[k] = src[b]
                    b += 1
                else:
                    dst[k] = src[a]
                    a += 1
                k += 1
            while a < mid:
                dst[k] = src[a]
                a += 1
                k += 1
            while b < hi:
                dst[k] = src[b]
                b += 1
                k += 1
        src, dst = dst, src
        width *= 2
    return count


def discordant_pairs(a: np.ndarray, b: np.ndarray) -> int:
    """The number of pairs i < j with ``(a_i - a_j)(b_i - b_j) < 0``.

    Sorted by ``a`` and then by ``b``, a reversed pair is an inversion of
    ``b``; pairs tied in ``a`` are sorted by ``b`` and so never inverted.
    """
    order = np.lexsort((b, a))
    return int(strict_inversions(np.ascontiguousarray(b[order])))


@njit(cache=True, nogil=True, inline="always")
def bt_pair_terms(up: float, down: float, d: float) -> tuple[float, float, float]:  # pragma: no cover - compiled
    """One pair's Bradley-Terry terms at the rating difference ``d``: ``s = sigma(d)``, ``t = 1 - s`` and minus the
    log-likelihood of ``up`` wins and ``down`` losses, computed without overflow from ``a = |d|``,
    ``e = exp(-a)`` and ``l = log1p(e)`` (the better-rated side has ``log sigma = -l``, the other ``-a - l``)."""
    a = abs(d)
    e = np.exp(-a)
    log_loss = np.log1p(e)
    big = 1.0 / (1.0 + e)
    small = e / (1.0 + e)
    if d >= 0:
        return big, small, up * log_loss + down * (a + log_loss)
    return small, big, up * (a + log_loss) + down * log_loss


@njit(cache=True, nogil=True)
def bt_newton_system(wins: np.ndarray, losses: np.ndarray, beta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The Bradley-Terry log-likelihood at ``beta``, its gradient and minus its Hessian (a graph Laplacian).

    ``losses`` is ``wins.T`` stored by rows, so both are read along rows.
    One pass over the pairs i < j.  With ``a = |beta_i - beta_j|``,
    ``e = exp(-a)`` and ``l = log1p(e)`` (no overflow), the better-rated side
    of a pair has ``log sigma = -l`` and probability ``1 / (1 + e)``, the other
    ``-a - l`` and ``e / (1 + e)``.  With ``s = sigma(beta_i - beta_j)``,
    ``t = 1 - s`` and ``n_ij = wins[i, j] + wins[j, i]``: the log-likelihood adds
    ``wins[i, j] log s + wins[j, i] log t``, ``grad_i = sum_j wins[i, j] - n_ij s``,
    and the Laplacian's off-diagonal entries are ``-n_ij s t``.
    """
    m = len(beta)
    loglik = 0.0
    grad = np.zeros(m)
    laplacian = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            up = wins[i, j]
            down = losses[i, j]
            n_ij = up + down
            if n_ij == 0:
                continue
            s, t, minus = bt_pair_terms(up, down, beta[i] - beta[j])
            loglik -= minus
            grad[i] += up - n_ij * s
            grad[j] += down - n_ij * t
            weight = n_ij * s * t
            laplacian[i, j] = -weight
            laplacian[j, i] = -weight
            laplacian[i, i] += weight
            laplacian[j, j] += weight
    return loglik, grad, laplacian


@njit(cache=True, nogil=True)
def fill_margins(ranks: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """``out[i, j]``: tasks ranking i above j minus tasks ranking j above i (``nan`` ranks abstain).

    ``out`` is a preallocated m x m array of a small integer type (the
    margins lie in ``[-n, n]``); one pass over the pairs i <= j, the tasks
    innermost, in blocks of 64 rows.
    """
    m, n = ranks.shape
    for lo in range(0, m, 64):  # a block of rows i against every later j: both writes stay within a few cache lines
        hi = min(lo + 64, m)
        for j in range(lo, m):
            rj = ranks[j]
            for i in range(lo, min(hi, j + 1)):
                ri = ranks[i]
                d = 0
                for k in range(n):
                    a = ri[k]
                    b = rj[k]
                    if a < b:
                        d += 1
                    elif b < a:
                        d -= 1
                out[i, j] = d
                out[j, i] = -d


@njit(cache=True, nogil=True)
def sign_products(codes: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """``out[k, q]``: the sum over the pairs of models i < j of ``sign(c_jk - c_ik) * sign(c_jq - c_iq)``.

    ``codes`` holds each task's ranks as integers ``0 .. m - 1`` (equal ranks,
    equal codes).  Off the diagonal, the pairs two tasks order alike minus
    those they order oppositely; on it, the pairs task k does not tie: ``S.T @ S``
    for the pairs-of-models by tasks matrix ``S`` of signs, in exact
    integers, without ``S``.  For each task k the models are visited in its
    order, a group of tied models at a time; a Fenwick tree over task q's
    codes (q > k) of the models already visited (strictly before on k) counts those
    that q puts before (alike) and after (opposite) each model of the group:
    O(m log m) per pair of tasks, O(n^2 m log m) in all.
    """
    m, n = codes.shape
    out = np.zeros((n, n), dtype=np.int64)
    tree = np.zeros(m + 1, dtype=np.int64)
    for k in range(n):
        order = np.argsort(codes[:, k], kind="mergesort")
        key = codes[order, k]
        untied = np.int64(m) * (m - 1) // 2
        start = 0
        while start < m:
            stop = start
            while stop < m and key[stop] == key[start]:
                stop += 1
            untied -= np.int64(stop - start) * (stop - start - 1) // 2
            start = stop
        out[k, k] = untied
        for q in range(k + 1, n):
            tree[:] = 0
            total = np.int64(0)
            seen = 0
            start = 0
            while start < m:
                stop = start
                while stop < m and key[stop] == key[start]:
                    stop += 1
                for p in range(start, stop):  # the group against the models strictly before it on k
                    c = codes[order[p], q]
                    below = np.int64(0)  # visited models with a smaller code on q than c
                    x = c
                    while x > 0:
                        below += tree[x]
                        x -= x & -x
                    not_above = np.int64(0)  # ... with a code <= c
                    x = c + 1
                    while x > 0:
                        not_above += tree[x]
                        x -= x & -x
                    total += below - (seen - not_above)
                for p in range(start, stop):
                    x = codes[order[p], q] + 1
                    while x <= m:
                        tree[x] += 1
                        x += x & -x
                seen += stop - start
                start = stop
            out[k, q] = total
            out[q, k] = total
    return out


@njit(cache=True, nogil=True)
def _popcount(x: np.uint64) -> np.int64:  # pragma: no cover - compiled
    """Set bits of a 64-bit word (the SWAR sum, which LLVM compiles to one instruction)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, nogil=True)
def cyclic_triads(margins: np.ndarray) -> np.int64:  # pragma: no cover - compiled
    """The number of 3-cycles of the strict relation ``margins > 0`` (``margins`` antisymmetric, zero = tie).

    Kendall and Babington Smith's closed form for a tournament,
    ``C(m, 3) - sum_i C(s_i, 2)`` with ``s_i`` the out-degrees, corrected for
    the tied pairs (derivation in :func:`benchvote.voting.count_condorcet_cycles`):
    ``- T (m - 2) + sum_i C(u_i, 2) - K + S`` with ``T`` the tied pairs,
    ``u_i`` the ties of i, ``K`` the triangles of tied pairs and ``S`` the
    (tied pair, model beating both) incidences.  ``K`` and ``S`` are
    counted over the tied pairs only, with rows of bits: O(m^2) without
    ties, O(m^2 + T m / 64) with them.
    """
    m = margins.shape[0]
    words = (m + 63) // 64
    out_deg = np.zeros(m, dtype=np.int64)
    tie_deg = np.zeros(m, dtype=np.int64)
    beaten_by = np.zeros((m, words), dtype=np.uint64)  # bit k of row i: k beats i
    tied = np.zeros((m, words), dtype=np.uint64)  # bit k of row i: k ties with i (k != i)
    one = np.uint64(1)
    for i in range(m):
        for k in range(m):
            v = margins[i, k]
            if v > 0:
                out_deg[i] += 1
            elif v < 0:
                beaten_by[i, k >> 6] |= one << np.uint64(k & 63)
            elif k != i:
                tie_deg[i] += 1
                tied[i, k >> 6] |= one << np.uint64(k & 63)
    total = np.int64(m) * (m - 1) * (m - 2) // 6
    for i in range(m):
        total -= out_deg[i] * (out_deg[i] - 1) // 2
        total += tie_deg[i] * (tie_deg[i] - 1) // 2
    n_ties = np.int64(0)
    common_in = np.int64(0)
    common_tied = np.int64(0)
    for i in range(m):
        if tie_deg[i] == 0:
            continue
        for j in range(i + 1, m):
            if margins[i, j] == 0:
                n_ties += 1
                for w in range(words):
                    common_in += _popcount(beaten_by[i, w] & beaten_by[j, w])
                    common_tied += _popcount(tied[i, w] & tied[j, w])
    return total - n_ties * (m - 2) - common_tied // 3 + common_in


@njit(cache=True, nogil=True)
def fill_doubled_wins(ranks: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """``out[i, j]``: twice the tasks i wins against j plus the tasks they tie on (``nan`` ranks abstain).

    Twice :func:`benchvote.ratings.comparison_matrix` (a tie counts 1/2 to
    each side), in a small integer type preallocated by the caller.
    """
    m, n = ranks.shape
    for lo in range(0, m, 64):  # blocks of rows, as in fill_margins
        hi = min(lo + 64, m)
        for j in range(lo, m):
            rj = ranks[j]
            for i in range(lo, min(hi, j + 1)):
                ri = ranks[i]
                up = 0
                down = 0
                if i != j:
                    for k in range(n):
                        a = ri[k]
                        b = rj[k]
                        if a < b:
                            up += 2
                        elif b < a:
                            down += 2
                        elif a == b:
                            up += 1
                            down += 1
                out[i, j] = up
                out[j, i] = down


@njit(cache=True, nogil=True)
def win_fraction_rows(ranks: np.ndarray, lo: int, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Rows ``lo .. lo + len(out)`` of :meth:`benchvote.aggregation.PairwiseCounts.win_fraction`.

    ``out[i - lo, j]`` is the share of the tasks both score on that rank i
    above j (``nan`` when they share none, 0 on the diagonal): one block of
    rows at a time, so no m x m array of counts is needed.
    """
    m, n = ranks.shape
    for r in range(out.shape[0]):
        i = lo + r
        ri = ranks[i]
        for j in range(m):
            if j == i:
                out[r, j] = 0.0
                continue
            rj = ranks[j]
            win = 0
            both = 0
            for k in range(n):
                a = ri[k]
                b = rj[k]
                if a == a and b == b:
                    both += 1
                    win += a < b
            out[r, j] = np.float64(win) / np.float64(both) if both > 0 else np.nan


@njit(cache=True, nogil=True)
def _expand(
    bits: np.ndarray, v: int, span: tuple, sides: tuple, stack: np.ndarray, top: int
) -> int:  # pragma: no cover
    """Pushes onto ``stack`` the successors along ``bits`` of ``v`` that are still free; -1 on meeting the other side.

    ``span`` is the first and last word of labels to read, ``sides`` is
    ``(free, seen, other)``, three rows of words: ``free`` holds the window's
    nodes this side has not met yet (a pushed node leaves it and joins
    ``seen``), ``other`` the nodes the other side has met.  A word is read
    from ``bits`` only where ``free`` or ``other`` has a bit, so a node costs
    one look at each word of the span and one step per new node, not one per edge.
    Returns the new top of the stack.
    """
    one = np.uint64(1)
    free, seen, other = sides
    for w in range(span[0], span[1] + 1):
        if not (free[w] | other[w]):
            continue
        word = bits[v, w]
        if word & other[w]:
            return -1
        new = word & free[w]
        free[w] &= ~new
        seen[w] |= new
        while new:
            stack[top] = w * 64 + _lowest_bit(new)
            top += 1
            new &= new - one
    return top


@njit(cache=True, nogil=True)
def _meet(
    out_bits: np.ndarray, in_bits: np.ndarray, j: int, i: int, span: tuple, rows: np.ndarray, work: tuple
) -> tuple:  # pragma: no cover - compiled
    """Whether j reaches i, searched from both ends at once: ``(n_f, n_b, met)``, the nodes expanded each way.

    ``rows`` holds four rows of words: the window's nodes (those placed
    strictly between j and i, the only ones a path from j to i can pass
    through) not yet met forward, and backward, then the nodes met forward
    (from j, along ``out_bits``) and backward (from i, along ``in_bits``).
    Each step expands one node of the side that has expanded fewer, by depth
    first search (:func:`_expand`); the search stops when a node of one side
    has an edge to a node the other side met (a path j -> ... -> i: ``met``),
    or when both are exhausted.  Then ``work = (stack_f, found_f, stack_b,
    found_b)`` holds in ``found_f[:n_f]`` every node j reaches and in
    ``found_b[:n_b]`` every node that reaches i, inside the window (j and i
    included): the two sets Pearce and Kelly's repair moves.  Either way
    ``rows`` must be cleared over ``span`` afterwards.  The backward side goes first,
    so that the first forward step already finds a path of two edges.
    """
    free_f, free_b, seen_f, seen_b = rows[0], rows[1], rows[2], rows[3]
    stack_f, found_f, stack_b, found_b = work
    one = np.uint64(1)
    seen_f[j >> 6] |= one << np.uint64(j & 63)
    seen_b[i >> 6] |= one << np.uint64(i & 63)
    stack_f[0], stack_b[0] = j, i
    top_f, top_b, n_f, n_b = 1, 1, 0, 0
    while top_f or top_b:
        if top_b and (n_b <= n_f or not top_f):
            top_b -= 1
            found_b[n_b] = stack_b[top_b]
            n_b += 1
            top_b = _expand(in_bits, found_b[n_b - 1], span, (free_b, seen_b, seen_f), stack_b, top_b)
            if top_b < 0:
                return n_f, n_b, True
        else:
            top_f -= 1
            found_f[n_f] = stack_f[top_f]
            n_f += 1
            top_f = _expand(out_bits, found_f[n_f - 1], span, (free_f, seen_f, seen_b), stack_f, top_f)
            if top_f < 0:
                return n_f, n_b, True
    return n_f, n_b, False


@njit(cache=True, nogil=True)
def _search_back(
    out_bits: np.ndarray, in_bits: np.ndarray, j: int, i: int, places: tuple, rows: np.ndarray, work: tuple
) -> tuple:  # pragma: no cover - compiled
    """Whether j reaches i, searched between their places (:func:`_meet`): ``(n_f, n_b, met, wasted)``.

    ``places`` is ``(node, pos)``; ``rows[:4]`` are :func:`_meet`'s rows
    (zero before and after), ``rows[4]`` nodes known to reach i.  Those start
    the backward side, so that a forward step onto one of them ends the
    search, and the nodes the backward side meets (and j, if it reaches i)
    join them.  ``wasted`` counts the words of the span beyond the window's
    own, times the nodes expanded: what the search paid for the labels'
    drift from the places.
    """
    node, pos = places
    first, last = _window(node, pos, j, i, rows)
    rows[3, first : last + 1] = rows[4, first : last + 1]
    n_f, n_b, met = _meet(out_bits, in_bits, j, i, (first, last), rows, work)
    rows[4, first : last + 1] |= rows[3, first : last + 1]
    if met:
        rows[4, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
    rows[:4, first : last + 1] = 0
    return n_f, n_b, met, (n_f + n_b) * max(0, last - first - (pos[i] - pos[j]) // 64 - 1)


@njit(cache=True, nogil=True)
def _window(node: np.ndarray, pos: np.ndarray, j: int, i: int, rows: np.ndarray) -> tuple:  # pragma: no cover
    """Marks the nodes placed strictly between j and i as free in ``rows[0]`` and ``rows[1]``; returns the span.

    The span is the first and last word holding the labels of j, i and those
    nodes: the only words a search between them reads (or has to clear).
    """
    one = np.uint64(1)
    low, high = min(i, j), max(i, j)
    for k in range(pos[j] + 1, pos[i]):
        v = node[k]
        low, high = min(low, v), max(high, v)
        bit = one << np.uint64(v & 63)
        rows[0, v >> 6] |= bit
        rows[1, v >> 6] |= bit
    return low >> 6, high >> 6


@njit(cache=True, nogil=True)
def _transpose(out_bits: np.ndarray, in_bits: np.ndarray) -> None:  # pragma: no cover - compiled
    """Fills ``in_bits`` (zeros) with the transpose of ``out_bits``, a block of 64 x 64 bits at a time.

    Setting the bit of a defeat in ``in_bits`` as it is locked writes to the
    row of its loser, a different row of a large matrix each time; until the
    first backward defeat (all of the largest margins, on a one-factor table)
    the in-edges are not needed, and transposing them afterwards by blocks
    keeps the rows written to within a few cache lines.
    """
    m, words = out_bits.shape
    one = np.uint64(1)
    for block in range(words):
        for w in range(words):
            for v in range(block * 64, min(block * 64 + 64, m)):
                word = out_bits[v, w]
                bit = one << np.uint64(v & 63)
                while word:
                    in_bits[w * 64 + _lowest_bit(word), block] |= bit
                    word &= word - one


@njit(cache=True, nogil=True)
def _two_steps(out_bits: np.ndarray, in_bits: np.ndarray, a: int, b: int) -> bool:  # pragma: no cover - compiled
    """Whether some node k has the edges a -> k and k -> b (a word of ``out_bits[a] & in_bits[b]`` is not zero).

    Eight words at a time without a branch, which the compiler turns into vector instructions.
    """
    words = out_bits.shape[1]
    row_a, row_b = out_bits[a], in_bits[b]
    for lo in range(0, words - 7, 8):
        both = np.uint64(0)
        for w in range(lo, lo + 8):
            both |= row_a[w] & row_b[w]
        if both:
            return True
    for w in range(words - words % 8, words):
        if row_a[w] & row_b[w]:
            return True
    return False


@njit(cache=True, nogil=True)
def ranked_pairs_order(
    permuted: np.ndarray, start: np.ndarray, relabel_waste: float = RELABEL_WASTE
) -> np.ndarray:  # pragma: no cover - compiled
    """Ranked Pairs on margins in tie-break order (node p = priority p): the nodes, first placed first.

    The defeats are taken by margin, largest first, and within a margin in
    row-major order of ``permuted``; each is locked unless its loser already
    reaches its winner.  That question is answered by keeping a topological
    order of the locked graph (Pearce and Kelly's dynamic order, started from
    ``start``, any order: a good guess such as Copeland's makes most defeats
    point forward, and a forward defeat cannot close a cycle); a backward
    defeat is dropped at once when a path of two locked defeats leads back
    (one AND of two rows of bits: two in three of them on 10,000 one-factor
    models), else the nodes placed between its two ends are searched from
    both ends at once (:func:`_search_back`), and the order is repaired when
    it is locked.  All the defeats of a row of ``permuted`` within a margin
    share their winner i, and locking one of them (an edge out of i) cannot
    change which nodes reach i: so the nodes a search of the row found to
    reach i are kept until the row ends, and a later defeat whose loser is
    one of them is dropped without a search, or its search stops on meeting one.

    Inside, a node is named by a label, at first its place in ``start``, so
    that the nodes of a window have nearby labels and a search reads only the
    few words of bits that hold them.  As the order is repaired the places
    drift from the labels and the windows' labels spread over more words;
    once the searches have read ``relabel_waste`` times as many words beyond
    their windows' own as there are locked defeats, every node is renamed by
    its place (:func:`_relabel`, one pass over the locked defeats).  Until
    the first backward defeat the in-edges are not kept, then transposed
    from the out-edges at once (:func:`_transpose`).  None of this changes
    what is locked: whether a path leads back is a property of the locked
    graph, and the repaired order depends only on the sets of nodes either
    end reaches.  The ranking is then the topological order that always
    places the available node of highest priority (smallest p).

    On the 20,000 x 6 one-factor table of ``bench/scale.py`` (642,000
    backward defeats of margin 4 and 6 million of margin 2, 1.8 million of
    them searched): 117 CPU s with one depth-first search from the loser
    that looked at every edge of the nodes it visited (61 million nodes, 17
    billion edges), 28 s searched from both ends over masks of the window's
    nodes (27 million nodes), about 15 s with the nodes known to reach the
    winner (13 million nodes), the renaming and the late in-edges.
    """
    m = permuted.shape[0]
    words = (m + 63) // 64
    one = np.uint64(1)
    out_bits = np.zeros((m, words), dtype=np.uint64)
    in_bits = np.zeros((m, words), dtype=np.uint64)
    label = np.empty(m, dtype=np.int64)
    for k in range(m):
        label[start[k]] = k
    node = np.arange(m)  # node[position] = label; labels start where they stand
    pos = np.arange(m)
    rows = np.zeros((5, words), dtype=np.uint64)  # :func:`_search_back`'s rows of bits
    work = (np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty_like(pos))
    spare = np.zeros((m, words), dtype=np.uint64)
    prio = start.copy()
    waste, locked, row, kept = 0, 0, -1, False  # kept: whether in_bits is kept up to date
    top = np.int64(0)
    for p in range(m):
        for q in range(m):
            if permuted[p, q] > top:
                top = np.int64(permuted[p, q])
    for level in range(top, 0, -1):
        for p in range(m):
            for q in range(m):
                if permuted[p, q] != level:
                    continue
                i, j = label[p], label[q]
                if pos[j] < pos[i]:  # a backward defeat: does j reach i? then it closes a cycle
                    if not kept:  # the first one: the in-edges are needed from now on
                        _transpose(out_bits, in_bits)
                        kept = True
                    if row != level * m + p:  # a new winner: forget the nodes known to reach the last one
                        rows[4] = 0
                        row = level * m + p
                    if _two_steps(out_bits, in_bits, j, i) or rows[4, j >> 6] >> np.uint64(j & 63) & one:
                        continue  # the common cases on a dense graph: no search
                    if waste > relabel_waste * locked:  # the labels have drifted from the places: rename
                        _relabel(out_bits, in_bits, spare, (node, pos, label, prio))
                        i, j, waste = label[p], label[q], 0
                        rows[4] = 0  # the nodes known to reach i, under their old names
                    n_f, n_b, met, wasted = _search_back(out_bits, in_bits, j, i, (node, pos), rows, work)
                    waste += wasted
                    if met:
                        continue
                    _reorder(node, pos, work[3][:n_b], work[1][:n_f])
                out_bits[i, j >> 6] |= one << np.uint64(j & 63)
                if kept:
                    in_bits[j, i >> 6] |= one << np.uint64(i & 63)
                locked += 1
    if not kept:
        _transpose(out_bits, in_bits)
    return prio[_by_priority(out_bits, in_bits, prio)]


@njit(cache=True, nogil=True)
def _relabel(out_bits: np.ndarray, in_bits: np.ndarray, spare: np.ndarray, names: tuple) -> None:  # pragma: no cover
    """Renames every node by its place (label = position), moving the bits of both graphs in place.

    ``names`` is ``(node, pos, label, prio)``: afterwards ``node`` and ``pos``
    are the identity, ``label`` (priority -> node) and ``prio`` (node ->
    priority) follow the new names.  One pass over the locked defeats, the
    new rows built in ``spare`` and copied back.
    """
    node, pos, label, prio = names
    for bits in (out_bits, in_bits):
        spare[:] = 0
        for v in range(bits.shape[0]):
            _move_row(bits[v], spare[pos[v]], pos)
        bits[:] = spare
    old = prio.copy()
    for v in range(len(pos)):
        prio[pos[v]] = old[v]
    for p in range(len(label)):
        label[p] = pos[label[p]]
    node[:] = np.arange(len(node))
    pos[:] = node


@njit(cache=True, nogil=True)
def _move_row(row: np.ndarray, into: np.ndarray, pos: np.ndarray) -> None:  # pragma: no cover - compiled
    """Sets in ``into`` the bit ``pos[x]`` of each bit x of ``row``."""
    one = np.uint64(1)
    for w in range(len(row)):
        word = row[w]
        while word:
            y = pos[w * 64 + _lowest_bit(word)]
            word &= word - one
            into[y >> 6] |= one << np.uint64(y & 63)


@njit(cache=True, nogil=True)
def _reorder(node: np.ndarray, pos: np.ndarray, before: np.ndarray, after: np.ndarray) -> None:  # pragma: no cover
    """Pearce-Kelly repair: the nodes ``before`` (in their order) then ``after`` take the positions both held."""
    b = before[np.argsort(pos[before])]
    a = after[np.argsort(pos[after])]
    both = np.concatenate((b, a))
    slots = np.sort(pos[both])
    for k in range(len(both)):
        node[slots[k]] = both[k]
        pos[both[k]] = slots[k]


@njit(cache=True, nogil=True)
def _by_priority(out_bits: np.ndarray, in_bits: np.ndarray, priority: np.ndarray) -> np.ndarray:  # pragma: no cover
    """The topological order of an acyclic graph that always takes the available node with the smallest ``priority``.

    ``priority`` is a permutation of the nodes' labels; the order is returned as labels.
    """
    m = out_bits.shape[0]
    one = np.uint64(1)
    waiting = np.zeros(m, dtype=np.int64)
    for v in range(m):
        for w in range(in_bits.shape[1]):
            waiting[v] += _popcount(in_bits[v, w])
    by_priority = np.empty(m, dtype=np.int64)
    for v in range(m):
        by_priority[priority[v]] = v
    heap = [np.int64(v) for v in range(0)]
    for v in range(m):
        if waiting[v] == 0:
            heapq.heappush(heap, priority[v])
    order = np.empty(m, dtype=np.int64)
    for k in range(m):
        v = by_priority[heapq.heappop(heap)]
        order[k] = v
        for w in range(out_bits.shape[1]):
            word = out_bits[v, w]
            while word:
                x = w * 64 + _lowest_bit(word)
                word &= word - one
                waiting[x] -= 1
                if waiting[x] == 0:
                    heapq.heappush(heap, priority[x])
    return order


@njit(cache=True, nogil=True)
def count_weighted_sums(block: np.ndarray, counts: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Row sums of ``block * counts`` in float64, summed left to right.

    A plain loop rather than BLAS: a matrix-vector product in a multithreaded
    BLAS runs tens of times slower on a machine whose cores are busy, and the
    order of the sums is then the one of numpy's own loop, the same on every machine.
    """
    m, n = block.shape
    out = np.zeros(m)
    for i in range(m):
        total = 0.0
        for j in range(n):
            total += np.float64(block[i, j]) * counts[j]
        out[i] = total
    return out


@njit(cache=True, nogil=True)
def count_weighted_whole_sums(block: np.ndarray, counts: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Row sums of ``block * counts`` for whole-number scores (uint8), exact in the counts' integer dtype.

    The caller picks int32 counts when ``255 * items`` fits (the loop then runs
    on twice as many lanes as in int64), int64 otherwise.
    """
    m, n = block.shape
    out = np.zeros(m, dtype=np.int64)
    for i in range(m):
        acc = counts[0] - counts[0]
        for j in range(n):
            acc += block[i, j] * counts[j]
        out[i] = acc
    return out
