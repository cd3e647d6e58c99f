"""Compiled kernels of the box search of :func:`cardinal_sensitivity_exact` (numba).

A *box* is a product of weight intervals ``[lo_t, hi_t]``.  For pair k with
condition vector ``d_k`` the box has a smallest and a largest value of
``d_k . a``: ``low_k = sum_t d_kt (lo_t if d_kt > 0 else hi_t)`` and
``high_k = sum_t d_kt (hi_t if d_kt > 0 else lo_t)``.  A pair with
``low_k < s_k`` may satisfy the condition somewhere in the box ("reachable"),
one with ``high_k < -s_k`` satisfies it everywhere ("sure"); the others are
*undecided*, and only they can change when the box is cut.

Every box carries its own list of undecided pairs with their ``low`` and
``high``.  Halving a box along weight t at ``mid`` moves one end of one
coordinate, so a child's values follow from the parent's with one product
each: the left child (``hi_t = mid``) adds ``min(d_kt, 0) (mid - hi_t)`` to
``low`` and ``max(d_kt, 0) (mid - hi_t)`` to ``high``; the right child
(``lo_t = mid``) adds ``max(d_kt, 0) (mid - lo_t)`` to ``low`` and
``min(d_kt, 0) (mid - lo_t)`` to ``high``.  After ``J_MAX - 1`` such updates
the values are computed again from the box, so that rounding cannot build up.

**Margins.**  A value computed from the box (n products and sums) is off by
at most the problem's per-pair ``slack``.  One update, ``fl(v + fl(d fl(mid - e)))``
with ``|d (mid - e)| <= M_k = sum_t |d_kt| hi_t`` and ``|v| <= M_k``, adds at
most ``(3u + u) M_k`` plus second-order terms (``u = 2^-53``), less than
``5 u M_k``.  :func:`box_margins` returns ``slack + J_MAX * 6 u M_k``
(rounded up), which covers a computed value and ``J_MAX - 1`` updates, so a
pair that can be reversed in a box is never reported unreachable and a pair is
"sure" only when it is reversed everywhere in the box.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: A box's values are computed afresh from its ends after this many halvings minus one.
J_MAX = 16
_U = 2.0**-53
_READY = False


def ensure_compiled() -> None:
    """Compile the kernels, or load them from numba's disk cache, once per process, on a two-pair box.

    The box search calls this before its clock starts, so that the one-off
    compilation (a few seconds after installing) never eats into a time limit.
    """
    global _READY
    if _READY:
        return
    d = np.array([[1.0, -1.0], [-1.0, 2.0]])
    d_abs = np.abs(d)
    margin = box_margins(d, np.zeros(2), np.ones(2))
    box_lo, box_hi = np.full((1, 2), 0.1), np.ones((1, 2))
    bound, base, _, split, off, pk, low, high = evaluate_boxes(
        d, d_abs, margin, box_lo, box_hi, np.zeros(1, dtype=np.int64), np.arange(2, dtype=np.int32), 64
    )
    halve_boxes(
        d,
        d.T.copy(),
        d_abs,
        margin,
        box_lo,
        box_hi,
        base,
        bound,
        split,
        np.zeros(1, dtype=np.int64),
        off,
        pk,
        low,
        high,
        -1,
        64,
    )
    _READY = True


def box_margins(d: np.ndarray, slack: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per-pair margins that cover a value computed from a box plus ``J_MAX - 1`` halving updates."""
    grow = J_MAX * 6 * _U * (np.abs(d) @ hi)
    return (slack + grow) * (1 + 16 * _U)


@njit(cache=True, nogil=True)
def _values(dk: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[float, float]:
    """``low`` and ``high`` of one pair over one box, from the box's ends."""
    low = 0.0
    high = 0.0
    for t in range(dk.shape[0]):
        v = dk[t]
        vp = max(v, 0.0)
        vn = min(v, 0.0)
        low += vp * lo[t] + vn * hi[t]
        high += vp * hi[t] + vn * lo[t]
    return low, high


@njit(cache=True, nogil=True)
def _split_weight(pk, low, start, stop, absd, s, lo, hi, sample):
    """The weight to halve: the one whose halving leaves the most undecided pairs out of a half.

    Halving weight t at its midpoint raises ``low_k`` by ``|d_kt| w_t / 2`` in one half (the left when
    ``d_kt < 0``), so pair k leaves that half's bound when ``low_k + |d_kt| w_t / 2 >= s_k``.  Counted on
    at most ``sample`` of the box's undecided pairs, evenly spaced; ties go to the largest
    ``w_t * sum_k |d_kt|`` (how far the pairs' ranges narrow), then to the first weight.
    """
    n = lo.shape[0]
    out = np.zeros(n, np.int64)
    narrow = np.zeros(n)
    width = hi - lo
    step = max(1, -(-(stop - start) // sample))
    for q in range(start, stop, step):
        k = pk[q]
        need = 2.0 * (s[k] - low[q])
        for t in range(n):
            shift = absd[k, t] * width[t]
            narrow[t] += shift
            out[t] += 1 if shift >= need else 0
    best_t = 0
    for t in range(1, n):
        if out[t] > out[best_t] or (out[t] == out[best_t] and narrow[t] > narrow[best_t]):
            best_t = t
    return best_t


@njit(cache=True, nogil=True)
def evaluate_boxes(d, absd, s, box_lo, box_hi, base, idx, sample):
    """Evaluate boxes on the pairs ``idx`` from their ends.

    Returns per box its bound (``base`` plus reachable pairs), its new base
    (plus sure pairs), its centre count, the weight to split, and its list of
    undecided pairs (offsets into ``pk``, ``low``, ``high``).
    """
    n_box, n = box_lo.shape
    m = idx.shape[0]
    bound = np.empty(n_box, np.int64)
    new_base = np.empty(n_box, np.int64)
    centre = np.empty(n_box, np.int64)
    split = np.empty(n_box, np.int64)
    off = np.zeros(n_box + 1, np.int64)
    pk = np.empty(n_box * m, np.int32)
    low = np.empty(n_box * m)
    high = np.empty(n_box * m)
    pos = 0
    for b in range(n_box):
        lo_b = box_lo[b]
        hi_b = box_hi[b]
        reach = 0
        sure = 0
        cen = 0
        for q in range(m):
            k = idx[q]
            lw, hg = _values(d[k], lo_b, hi_b)
            sk = s[k]
            r = 1 if lw < sk else 0
            su = 1 if hg < -sk else 0
            reach += r
            sure += su
            cen += 1 if lw + hg < -2.0 * sk else 0
            pk[pos] = k
            low[pos] = lw
            high[pos] = hg
            pos += r * (1 - su)
        off[b + 1] = pos
        bound[b] = base[b] + reach
        new_base[b] = base[b] + sure
        centre[b] = base[b] + cen
        split[b] = _split_weight(pk, low, off[b], pos, absd, s, lo_b, hi_b, sample)
    return bound, new_base, centre, split, off, pk[:pos], low[:pos], high[:pos]


@njit(cache=True, nogil=True)
def _halve_lists(col, s, pk, low, high, start, stop, d_left, d_right, c_pk, c_low, c_high, o_left, o_right):
    """One box's undecided pairs in its two halves: each half's reach, sure and centre counts and its list.

    ``col`` holds every pair's coefficient on the split weight; the left half's values move by ``d_left``
    times it, the right half's by ``d_right``.  The lists are written from ``o_left`` and ``o_right``.
    """
    r_l = s_l = c_l = u_l = 0
    r_r = s_r = c_r = u_r = 0
    for q in range(start, stop):
        k = pk[q]
        v = col[k]
        sk = s[k]
        vp = max(v, 0.0)
        vn = min(v, 0.0)
        a1 = low[q] + vn * d_left
        b1 = high[q] + vp * d_left
        a2 = low[q] + vp * d_right
        b2 = high[q] + vn * d_right
        x1 = 1 if a1 < sk else 0
        y1 = 1 if b1 < -sk else 0
        x2 = 1 if a2 < sk else 0
        y2 = 1 if b2 < -sk else 0
        r_l += x1
        s_l += y1
        c_l += 1 if a1 + b1 < -2.0 * sk else 0
        r_r += x2
        s_r += y2
        c_r += 1 if a2 + b2 < -2.0 * sk else 0
        c_pk[o_left + u_l] = k
        c_low[o_left + u_l] = a1
        c_high[o_left + u_l] = b1
        u_l += x1 * (1 - y1)
        c_pk[o_right + u_r] = k
        c_low[o_right + u_r] = a2
        c_high[o_right + u_r] = b2
        u_r += x2 * (1 - y2)
    return r_l, s_l, c_l, u_l, r_r, s_r, c_r, u_r


@njit(cache=True, nogil=True)
def halve_boxes(d, d_cols, absd, s, box_lo, box_hi, base, bound, split, updates, off, pk, low, high, best, sample):
    """Halve every box whose ``bound`` exceeds ``best`` along its split weight; keep the children that do too.

    Children come in the order of their parents (left, then right).  Returns
    the children's ends, bases, bounds, centre counts, split weights, update
    counts and lists, plus the largest bound of a box too narrow to halve
    (-1 if none; such a box stays open and the search cannot finish).
    """
    n_box, n = box_lo.shape
    cap = 2 * off[n_box]
    c_lo = np.empty((2 * n_box, n))
    c_hi = np.empty((2 * n_box, n))
    c_base = np.empty(2 * n_box, np.int64)
    c_bound = np.empty(2 * n_box, np.int64)
    c_cen = np.empty(2 * n_box, np.int64)
    c_split = np.empty(2 * n_box, np.int64)
    c_upd = np.empty(2 * n_box, np.int64)
    c_off = np.zeros(2 * n_box + 1, np.int64)
    c_pk = np.empty(cap, np.int32)
    c_low = np.empty(cap)
    c_high = np.empty(cap)
    kept = 0
    pos = 0
    stuck = -1
    for b in range(n_box):
        if bound[b] <= best:
            continue
        lo_b = box_lo[b]
        hi_b = box_hi[b]
        t0 = split[b]
        mid = 0.5 * (lo_b[t0] + hi_b[t0])
        start, stop = off[b], off[b + 1]
        if not (lo_b[t0] < mid < hi_b[t0]):  # too narrow to halve: it stays open
            bnd = base[b] + (stop - start)
            if bnd > stuck:
                stuck = bnd
            continue
        upd = updates[b] + 1
        if upd >= J_MAX:  # values from the box's ends again, so that rounding cannot build up
            for q in range(start, stop):
                low[q], high[q] = _values(d[pk[q]], lo_b, hi_b)
            upd = 1
        d_left = mid - hi_b[t0]
        d_right = mid - lo_b[t0]
        o_left = pos
        o_right = pos + (stop - start)
        r_l, s_l, c_l, u_l, r_r, s_r, c_r, u_r = _halve_lists(
            d_cols[t0], s, pk, low, high, start, stop, d_left, d_right, c_pk, c_low, c_high, o_left, o_right
        )
        for side in range(2):
            bnd = base[b] + (r_l if side == 0 else r_r)
            if bnd <= best:
                continue
            o_from = o_left if side == 0 else o_right
            u = u_l if side == 0 else u_r
            if o_from != pos:  # move the list down, next to the previous child's
                for q in range(u):
                    c_pk[pos + q] = c_pk[o_from + q]
                    c_low[pos + q] = c_low[o_from + q]
                    c_high[pos + q] = c_high[o_from + q]
            c_lo[kept] = lo_b
            c_hi[kept] = hi_b
            if side == 0:
                c_hi[kept, t0] = mid
            else:
                c_lo[kept, t0] = mid
            c_base[kept] = base[b] + (s_l if side == 0 else s_r)
            c_bound[kept] = bnd
            c_cen[kept] = base[b] + (c_l if side == 0 else c_r)
            c_upd[kept] = upd
            c_split[kept] = _split_weight(c_pk, c_low, pos, pos + u, absd, s, c_lo[kept], c_hi[kept], sample)
            pos += u
            kept += 1
            c_off[kept] = pos
    return (
        c_lo[:kept],
        c_hi[:kept],
        c_base[:kept],
        c_bound[:kept],
        c_cen[:kept],
        c_split[:kept],
        c_upd[:kept],
        c_off[: kept + 1],
        c_pk[:pos],
        c_low[:pos],
        c_high[:pos],
        stuck,
    )
