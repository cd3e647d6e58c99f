"""Compiled row kernels (numba) of Bradley-Terry on large match tables, from strengths rather than differences.

With the strengths :math:`p_i = e^{\\beta_i}`, a pair's probabilities are
:math:`s = p_i / (p_i + p_j)` and :math:`t = p_j / (p_i + p_j)`: one division
a pair where :math:`\\sigma(\\beta_i - \\beta_j)` took an exponential and a
logarithm.  The log-likelihood then reads

.. math::

    \\ell(\\beta) = \\sum_i W_i \\beta_i - \\sum_{i < j} n_{ij} \\log(p_i + p_j),

with :math:`W_i` the wins of i and :math:`n_{ij}` the comparisons of i and j,
so the counts enter only through the symmetric :math:`n_{ij}` and the row sums.
Each kernel works on whole rows (all j for one i), so a row's result depends
on nothing but that row: blocks of rows run in threads and give the same
floats on one core or many.

``fastmath`` allows reassociation (the compiler keeps partial sums in vector
registers, a fixed order for a given build) and fused multiply-adds, but no
approximate functions and no assumption that values are finite; numpy's error
model drops numba's division-by-zero check (``p_i + p_j > 0`` always), so the
division loops run several pairs at a time.  Separate from
:mod:`benchvote._kernels` so that numba loads them only for a large fit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

#: Reassociation and contraction only: no approximate functions, no "no NaN / no infinity" assumptions.
_FAST = {"reassoc", "nsz", "contract"}


@njit(cache=True, nogil=True)
def symmetric_counts(wins: np.ndarray, out: np.ndarray, rows: tuple[int, int]) -> None:  # pragma: no cover - compiled
    """``out[i, j] = out[j, i] = wins[i, j] + wins[j, i]`` (the comparisons of i and j) for the pairs i <= j with
    ``lo <= i < hi``, in tiles of 64 rows and columns (blocks of rows write disjoint pairs: they run in threads)."""
    m = len(wins)
    for a in range(rows[0], rows[1], 64):
        b = min(a + 64, rows[1])
        for c in range(a, m, 64):
            for i in range(a, b):
                for j in range(max(c, i), min(c + 64, m)):
                    both = wins[i, j] + wins[j, i]
                    out[i, j] = both
                    out[j, i] = both


@njit(cache=True, nogil=True)
def reaches_all(wins: np.ndarray, backward: bool) -> bool:  # pragma: no cover - compiled
    """Whether a breadth-first search from model 0 reaches every model along the edges i -> j where ``wins[i, j] > 0``
    (i beat j at least once), or, ``backward``, along the reversed edges (every model reaches model 0).

    Reads ``wins`` as it is (no boolean or transposed copy), along rows in
    both directions: forwards, the rows of the frontier; backwards, the row of
    each model not yet reached, at the frontier's columns, until the first
    win.  The diagonal is ignored.
    """
    m = len(wins)
    seen = np.zeros(m, dtype=np.bool_)
    seen[0] = True
    frontier = np.zeros(1, dtype=np.int64)
    reached = 1
    while len(frontier) and reached < m:
        new = np.zeros(m, dtype=np.bool_)
        if backward:
            for v in range(m):
                if not seen[v]:
                    row = wins[v]
                    for u in frontier:
                        if u != v and row[u] > 0:
                            new[v] = True
                            break
        else:
            for u in frontier:
                row = wins[u]
                for v in range(m):
                    if row[v] > 0 and v != u and not seen[v]:
                        new[v] = True
        frontier = np.flatnonzero(new)
        seen |= new
        reached += len(frontier)
    return reached == m


@njit(cache=True, nogil=True, fastmath=_FAST, error_model="numpy")
def bt_rows(
    counts: np.ndarray, strengths: np.ndarray, rows: tuple[int, int], expected: np.ndarray, diagonal: np.ndarray
) -> None:  # pragma: no cover - compiled
    """For each row i with ``lo <= i < hi`` of the comparisons ``counts`` (symmetric, zero diagonal):
    ``expected[i] = sum_j n_ij s_ij``, i's expected wins (the gradient is ``W_i - expected[i]``), and
    ``diagonal[i] = sum_j n_ij s_ij t_ij``, the diagonal of the Laplacian (minus the Hessian)."""
    m = len(strengths)
    for i in range(rows[0], rows[1]):
        pi = strengths[i]
        row = counts[i]
        wins = 0.0
        weight = 0.0
        for j in range(m):
            pj = strengths[j]
            inverse = 1.0 / (pi + pj)
            share = row[j] * (pi * inverse)
            wins += share
            weight += share * (pj * inverse)
        expected[i] = wins
        diagonal[i] = weight


@njit(cache=True, nogil=True, fastmath=_FAST)
def bt_log_rows(
    counts: np.ndarray, strengths: np.ndarray, rows: tuple[int, int], log_terms: np.ndarray
) -> None:  # pragma: no cover - compiled
    """``log_terms[i] = sum_{j > i} n_ij log(p_i + p_j)`` for ``lo <= i < hi`` (each pair once): the part of the
    log-likelihood that is not linear in the log-strengths.  A logarithm a pair, several times the cost of
    :func:`bt_rows`, so it is asked for only when a step's gain must be measured."""
    m = len(strengths)
    for i in range(rows[0], rows[1]):
        pi = strengths[i]
        row = counts[i]
        logs = 0.0
        for j in range(i + 1, m):
            logs += row[j] * np.log(pi + strengths[j])
        log_terms[i] = logs


@njit(cache=True, nogil=True, fastmath=_FAST, error_model="numpy")
def bt_hessian_rows(
    counts: np.ndarray, strengths: np.ndarray, one: Any, v: np.ndarray, rows: tuple[int, int], out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """``out[i] = sum_j n_ij s_ij t_ij (v_i - v_j)`` for ``lo <= i < hi``: the Laplacian (minus the Hessian) times v.

    The pair weights are recomputed from the strengths (a division a pair)
    instead of being stored: no m x m float matrix, and faster than reading
    one.  They are computed in the type of ``strengths`` (``one`` is 1 in that
    type): float32 runs twice as many pairs a vector instruction, within
    about 1e-8 of the float64 product; ``v`` and the sums stay float64.
    """
    m = len(strengths)
    for i in range(rows[0], rows[1]):
        pi = strengths[i]
        vi = v[i]
        row = counts[i]
        acc = 0.0
        for j in range(m):
            pj = strengths[j]
            inverse = one / (pi + pj)
            acc += row[j] * np.float64((pi * inverse) * (pj * inverse)) * (vi - v[j])
        out[i] = acc
