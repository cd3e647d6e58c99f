"""Rankings and distances between rankings.

A *ranking* here is a vector of ranks, one per model, where rank 1 is the
best model and tied models share the average of the positions they occupy
(*midranks*).  All other modules derive "who beats whom on a task" from
:func:`rank`, so there is exactly one definition of a tie in the library.
:func:`pareto_front` orders models by a quality and one or more costs at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import Any, overload

import numpy as np
import pandas as pd

from ._validation import (
    as_direction,
    as_float_array,
    as_vector,
    check_choice,
    check_frame,
    check_tol,
    numbered,
    split_table,
)

__all__ = [
    "rank",
    "kendall_tau_distance",
    "max_rank_change",
    "flipped_pairs",
    "changed_pairs",
    "swap_distance",
    "pareto_front",
    "DEFAULT_TIE_TOLERANCE",
]

#: Two scores closer than this (after sorting, gap by gap) count as a tie.
DEFAULT_TIE_TOLERANCE = 1e-9


def _rank_1d(x: np.ndarray, tol: float) -> np.ndarray:
    """Midranks of the finite vector ``x``, highest value first."""
    order = np.argsort(-x, kind="stable")
    xs = x[order]
    starts_new = np.empty(len(x), dtype=bool)
    starts_new[0] = True
    starts_new[1:] = (xs[:-1] - xs[1:]) > tol
    group = np.cumsum(starts_new) - 1
    starts = np.flatnonzero(starts_new)
    ends = np.append(starts[1:], len(x))
    # positions start+1 .. end (1-based); their mean is (start + 1 + end) / 2
    midrank = (starts + 1 + ends) / 2.0
    out = np.empty(len(x), dtype=float)
    out[order] = midrank[group]
    return out


def _rank_complete(x: np.ndarray, tol: float) -> np.ndarray:
    """:func:`_rank_1d` down every column of a 2-D array without ``nan``, all columns at once (same arithmetic)."""
    m = x.shape[0]
    order = np.argsort(-x, axis=0, kind="stable")
    xs = np.take_along_axis(x, order, axis=0)
    starts_new = np.empty(x.shape, dtype=bool)
    starts_new[0] = True
    starts_new[1:] = (xs[:-1] - xs[1:]) > tol
    rows = np.arange(m)[:, None]
    # each position's group: the row where it starts, and the row where the next one starts (m after the last)
    starts = np.maximum.accumulate(np.where(starts_new, rows, 0), axis=0)
    next_start = np.where(starts_new[1:], rows[1:], m)
    ends = np.empty(x.shape, dtype=np.int64)
    ends[-1] = m
    ends[:-1] = np.minimum.accumulate(next_start[::-1], axis=0)[::-1]
    out = np.empty(x.shape, dtype=float)
    np.put_along_axis(out, order, (starts + 1 + ends) / 2.0, axis=0)
    return out


def _rank(table: np.ndarray, direction: np.ndarray, tol: float) -> np.ndarray:
    """Kernel of :func:`rank`: midranks down every column of a validated 2-D array (``nan`` stays ``nan``)."""
    out = np.full(table.shape, np.nan)
    seen = ~np.isnan(table)
    full = seen.all(axis=0)
    if full.any() and table.shape[0]:  # the complete columns in one pass: wide tables have thousands
        oriented = np.where(direction[full], table[:, full], -table[:, full])
        out[:, full] = _rank_complete(oriented, tol)
    for j in np.flatnonzero(~full):
        col = table[:, j]
        if not seen[:, j].any():
            continue
        x = col[seen[:, j]] if direction[j] else -col[seen[:, j]]
        out[seen[:, j], j] = _rank_1d(x, tol)
    return out


@overload
def rank(
    scores: pd.DataFrame, higher_is_better: Any = ..., *, axis: int = ..., tol: float = ..., nan_policy: str = ...
) -> pd.DataFrame: ...
@overload
def rank(
    scores: pd.Series, higher_is_better: Any = ..., *, axis: int = ..., tol: float = ..., nan_policy: str = ...
) -> pd.Series: ...
@overload
def rank(
    scores: Any, higher_is_better: Any = ..., *, axis: int = ..., tol: float = ..., nan_policy: str = ...
) -> np.ndarray: ...
def rank(
    scores: Any,
    higher_is_better: Any = True,
    *,
    axis: int = 0,
    tol: float = DEFAULT_TIE_TOLERANCE,
    nan_policy: str = "raise",
) -> np.ndarray | pd.Series | pd.DataFrame:
    r"""Rank scores, 1 = best, with average ranks (midranks) for ties.

    For one vector of scores :math:`s_1, \dots, s_m` (higher is better) the rank
    of model :math:`i` is

    .. math::

        r_i = 1 + \#\{j : s_j > s_i\} + \tfrac12\,\#\{j \ne i : s_j = s_i\},

    so tied models share the mean of the positions they occupy and the ranks
    always sum to :math:`m(m+1)/2`.

    Parameters
    ----------
    scores : array_like, Series or DataFrame
        A vector, or a 2-D table ranked along ``axis``.  With the default
        ``axis=0`` a models x tasks table gives each task's ranking of the
        models (one column per task).
    higher_is_better : bool or sequence of bool
        Direction of each ranking (one entry per column for 2-D input with
        ``axis=0``).  ``False`` ranks the smallest score first.
    axis : {0, 1}
        Axis along which a 2-D table is ranked.
    tol : float
        Tie tolerance.  After sorting, consecutive scores whose gap is at most
        ``tol`` belong to the same tie group (groups chain: with ``tol=1`` the
        scores 0, 1, 2 form one group).  The default ``1e-9`` absorbs
        floating-point noise such as ``0.1 + 0.2 != 0.3``; use ``0`` for exact
        comparisons.
    nan_policy : {"raise", "omit"}
        ``"raise"`` rejects missing scores; ``"omit"`` ranks the observed
        scores among themselves and leaves ``nan`` in the missing cells.

    Returns
    -------
    ndarray, Series or DataFrame of float
        Same shape and labels as ``scores``.

    Raises
    ------
    ValueError
        On non-numeric input, a negative ``tol``, an unknown ``nan_policy``, or
        a missing score with ``nan_policy="raise"``.

    Examples
    --------
    >>> rank([0.9, 0.5, 0.9, 0.1])
    array([1.5, 3. , 1.5, 4. ])
    >>> rank([3.0, 1.0, 2.0], higher_is_better=False)
    array([3., 1., 2.])
    >>> rank([0.1 + 0.2, 0.3, 0.0])
    array([1.5, 1.5, 3. ])
    """
    scores, higher_is_better = split_table(scores, higher_is_better)  # own validation: a vector or a table
    tol = check_tol(tol)
    check_choice(nan_policy, "nan_policy", ("raise", "omit"))
    if scores is None:
        raise TypeError("scores must be a vector or a models x tasks table, got None")
    if axis not in (0, 1, -1, -2):
        raise ValueError(f"axis must be 0 or 1, got {axis}")

    index = columns = None
    if isinstance(scores, pd.DataFrame):
        check_frame(scores, "scores", ("row", "column"))
        index, columns = scores.index, scores.columns
        values = scores.to_numpy(dtype=float, na_value=np.nan)
    elif isinstance(scores, pd.Series):
        index = scores.index
        values = as_vector(scores, name="scores", allow_nan=True)
    else:
        values = as_float_array(scores, "scores", "a vector or a models x tasks table")
    if values.ndim not in (1, 2):
        raise ValueError(f"scores must be 1-D or 2-D, got {values.ndim} dimensions")
    if np.isinf(values).any():
        raise ValueError("scores contain infinite values")
    missing = np.isnan(values)
    if missing.any() and nan_policy == "raise":
        n_missing = int(missing.sum())
        raise ValueError(
            f"scores contain {n_missing} missing {numbered(n_missing, 'value')}; pass nan_policy='omit' "
            "to rank the observed scores among themselves"
        )

    one_d = values.ndim == 1
    table = values[:, None] if one_d else (values if axis in (0, -2) else values.T)
    direction = as_direction(
        higher_is_better,
        table.shape[1],
        list(columns) if columns is not None and not one_d and axis in (0, -2) else None,
    )
    out = _rank(table, direction, tol)
    if one_d:
        out = out[:, 0]
    elif axis in (1, -1):
        out = out.T

    if isinstance(scores, pd.DataFrame):
        return pd.DataFrame(out, index=index, columns=columns)
    if isinstance(scores, pd.Series):
        return pd.Series(out, index=index, name=scores.name)
    return out


def exact_midranks(values: Any, tol: Any = 0) -> np.ndarray:
    """Midranks (1 = highest) of exact numbers (ints or Fractions); a gap of at most ``tol`` ties.

    The same tie groups as :func:`rank`, without rounding: used for win-rate
    totals and weighted means that the library compares exactly.
    """
    order = sorted(range(len(values)), key=values.__getitem__, reverse=True)
    out = np.empty(len(values))
    start = 0
    for pos in range(1, len(order) + 1):
        if pos == len(order) or values[order[pos - 1]] - values[order[pos]] > tol:
            for k in order[start:pos]:
                out[k] = (start + 1 + pos) / 2.0
            start = pos
    return out


def _rank_vectors(before: Any, after: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two rankings of the same models as float vectors, checked to be one-dimensional and of one length."""
    b = np.asarray(before, dtype=float)
    a = np.asarray(after, dtype=float)
    if b.shape != a.shape or b.ndim != 1:
        raise ValueError("before and after must be rank vectors of the same length")
    return b, a


def flipped_pairs(before: Any, after: Any) -> list[tuple[int, int]]:
    """Index pairs (i, j) with i ranked strictly above j before and strictly below after.

    The pairs are the true cells of :func:`reversed_pairs`, listed row by row.

    Parameters
    ----------
    before, after : array_like, shape (m,)
        Two rankings (ranks, 1 = best) of the same models.

    Examples
    --------
    >>> flipped_pairs([1, 2, 3], [2, 1, 3])
    [(0, 1)]
    """
    b, a = _rank_vectors(before, after)
    i, j = np.nonzero(reversed_pairs(b, a))  # row by row: i ascending, then j
    return list(zip(i.tolist(), j.tolist()))


def changed_pairs(before: Any, after: Any) -> list[tuple[int, int]]:
    """Index pairs (i, j), i < j, whose relative order differs in any way (reversed, tied or untied).

    Parameters
    ----------
    before, after : array_like, shape (m,)
        Two rankings (ranks, 1 = best) of the same models.

    Examples
    --------
    >>> changed_pairs([1, 2, 3], [1.5, 1.5, 3])
    [(0, 1)]
    """
    b, a = _rank_vectors(before, after)
    sb = np.sign(b[:, None] - b[None, :])
    sa = np.sign(a[:, None] - a[None, :])
    i, j = np.nonzero(np.triu(sb != sa, k=1))
    return list(zip(i.tolist(), j.tolist()))


def _as_profile(rankings: Any, min_models: int = 3) -> tuple[list, list[list[int]]]:
    """Validate a profile; return the model labels and each ranking as a list of indices, best first."""
    rankings = [list(r) for r in rankings]
    if not rankings:
        raise ValueError("a profile needs at least one ranking")
    models = list(rankings[0])
    if len(set(models)) != len(models):
        raise ValueError("a ranking lists a model twice")
    if len(models) < min_models:
        raise ValueError(f"a profile needs at least {min_models} models, got {len(models)}")
    index = {m: k for k, m in enumerate(models)}
    out = []
    for v, r in enumerate(rankings):
        if len(r) != len(models) or set(r) != set(models):
            raise ValueError(f"ranking {v} does not rank the same set of models as ranking 0")
        out.append([index[m] for m in r])
    return models, out


def swap_distance(first: Sequence, second: Sequence) -> int:
    """Number of pairs of models that two strict rankings order differently (Kendall's swap distance).

    Parameters
    ----------
    first, second : sequence
        Two strict rankings of the same models, best first.

    Examples
    --------
    >>> swap_distance(["a", "b", "c"], ["b", "a", "c"])
    1
    >>> swap_distance(["a", "b", "c"], ["c", "b", "a"])
    3
    """
    models, (r1, r2) = _as_profile([first, second], min_models=2)
    pos1 = np.empty(len(models), dtype=int)
    pos2 = np.empty(len(models), dtype=int)
    pos1[r1] = np.arange(len(models))
    pos2[r2] = np.arange(len(models))
    i, j = np.triu_indices(len(models), k=1)
    return int(np.sum((pos1[i] - pos1[j]) * (pos2[i] - pos2[j]) < 0))


def reversed_pairs(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """``out[i, j]``: i ranks strictly above j before and strictly below it after (the library's "reversed").

    The one definition of a reversed pair; :func:`flipped_pairs` lists its true cells.
    """
    before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    return (before[:, None] < before[None, :]) & (after[:, None] > after[None, :])


def kendall_tau_distance(r1: Any, r2: Any, *, tie_penalty: float = 0.0) -> float:
    r"""Normalised Kendall tau distance between two rankings.

    Zhang & Hardt (2024, eq. 4) measure how far two rankings of the same
    :math:`m` models are apart by the share of model pairs they order in
    opposite ways:

    .. math::

        \tau(r, r') = \frac{\#\{i<j : (r_i - r_j)(r'_i - r'_j) < 0\}
                            + p\,\#\{i<j : \text{tied in exactly one of } r, r'\}}
                           {\binom{m}{2}} \in [0, 1].

    :math:`\tau = 0` for identical orders and :math:`\tau = 1` for reversed ones.

    **Ties.**  A pair tied in both rankings never counts.  A pair tied in
    exactly one ranking counts ``tie_penalty`` (:math:`p`, Fagin et al.'s
    :math:`K^{(p)}`); the default :math:`p = 0` counts only strict reversals,
    so a sensitivity measured with it is a lower bound for any tie-penalising
    variant.  (The paper's wording, "otherwise discordant", would make every
    tied pair count; benchbench instead uses :math:`(1-\tau_b)/2`, which
    rescales for ties.  On tie-free rankings all three agree.)

    Parameters
    ----------
    r1, r2 : array_like of shape (m,)
        Ranks (or scores oriented the same way) of the same models.
    tie_penalty : float in [0, 1]
        Weight of a pair tied in exactly one of the two rankings.

    Returns
    -------
    float

    See Also
    --------
    max_rank_change

    References
    ----------
    :cite:t:`fagin2006ties`; :cite:t:`zhang2024tradeoffs`.

    Examples
    --------
    >>> kendall_tau_distance([1, 2, 3, 4], [1, 2, 3, 4])
    0.0
    >>> kendall_tau_distance([1, 2, 3, 4], [4, 3, 2, 1])
    1.0
    >>> kendall_tau_distance([1, 2, 3], [2, 1, 3])  # one of three pairs swapped
    0.3333333333333333
    >>> kendall_tau_distance([1, 2, 3], [1.5, 1.5, 3], tie_penalty=0.5)
    0.16666666666666666
    """
    a = as_vector(r1, name="r1", min_length=2)
    b = as_vector(r2, name="r2", length=len(a))
    if not 0.0 <= tie_penalty <= 1.0:
        raise ValueError(f"tie_penalty must lie in [0, 1], got {tie_penalty}")
    from ._kernels import discordant_pairs  # numba loads with the first kernel call, not with benchvote

    # opposite pairs: a strict inversion of b sorted by a then b (merge sort); the tie groups are measured only
    # when they count (the default penalty 0 counts strict reversals alone)
    half_tied = _half_tied(a, b) if tie_penalty else 0
    return float((discordant_pairs(a, b) + tie_penalty * half_tied) / comb(len(a), 2))


def _half_tied(a: np.ndarray, b: np.ndarray) -> int:
    """Pairs i < j tied in exactly one of ``a`` and ``b``, in O(m log m).

    Pairs tied in ``a``, in ``b`` and in both are counted from the sizes of the
    tie groups, so no m x m array is formed.
    """

    def tied(*keys: np.ndarray) -> int:  # pairs equal on every key: runs of the keys sorted together (finite)
        order = np.lexsort(keys[::-1])
        same = np.ones(len(order) - 1, dtype=bool)
        for key in keys:
            k = key[order]
            same &= k[1:] == k[:-1]
        starts = np.flatnonzero(np.concatenate(([True], ~same, [True])))
        sizes = np.diff(starts)
        return int((sizes * (sizes - 1) // 2).sum())

    return tied(a) + tied(b) - 2 * tied(a, b)


def max_rank_change(r1: Any, r2: Any) -> float:
    r"""Largest rank change of any model, normalised to [0, 1].

    Zhang & Hardt (2024, eq. 5):

    .. math::

        \mathrm{MRC}(r, r') = \max_i \frac{|r_i - r'_i|}{m - 1}.

    Parameters
    ----------
    r1, r2 : array_like of shape (m,)
        Rank vectors (1 = best) of the same models.

    See Also
    --------
    kendall_tau_distance

    References
    ----------
    :cite:t:`zhang2024tradeoffs`.

    Examples
    --------
    >>> max_rank_change([1, 2, 3, 4, 5], [5, 2, 3, 4, 1])
    1.0
    >>> max_rank_change([1, 2, 3], [2, 1, 3])
    0.5
    """
    a = as_vector(r1, name="r1", min_length=2)
    b = as_vector(r2, name="r2", length=len(a))
    return float(np.max(np.abs(a - b)) / (len(a) - 1))


def pareto_front(quality: Any, costs: Any) -> np.ndarray | pd.Series:
    r"""Which models are on the quality-versus-cost Pareto front.

    Model :math:`j` dominates model :math:`i` when it is at least as good in
    quality and at most as costly on every cost, and strictly better in one:

    .. math::

        q_j \ge q_i,\quad c_{jk} \le c_{ik}\ \forall k,\quad
        q_j > q_i \ \text{or}\ \exists k:\ c_{jk} < c_{ik}.

    A model is on the front when no model dominates it.  Comparisons are
    exact: two models with the same quality and the same costs are both on
    the front or both off it (pass tie-aware values, such as ``-rank(q)``, to
    treat near-equal qualities as equal).  A model with a missing quality or
    cost is not compared: it is not on the front and it dominates no one.

    Parameters
    ----------
    quality : array_like or Series of shape (m,)
        One number per model, higher = better (``nan``: not compared).
    costs : array_like or DataFrame of shape (m,) or (m, k)
        One or more costs per model, lower = better, rows in the order of
        ``quality`` (``nan``: not compared).

    Returns
    -------
    ndarray or Series of bool, shape (m,)
        ``True`` for the models on the front (a Series with the index of
        ``quality`` when it is one).

    Raises
    ------
    ValueError
        On non-numeric input, infinite values, or shapes that do not match.

    Examples
    --------
    >>> pareto_front([0.9, 0.8, 0.7, 0.6], [70.0, 13.0, 70.0, 1.5])
    array([ True,  True, False,  True])
    >>> pareto_front([0.9, 0.9, 0.5], [[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]])
    array([ True,  True, False])
    """
    q = as_vector(quality, name="quality", allow_nan=True)
    c = as_float_array(
        costs.to_numpy(dtype=float, na_value=np.nan) if isinstance(costs, pd.DataFrame) else costs,
        "costs",
        "one or more costs per model",
    )
    if c.ndim == 1:
        c = c[:, None]
    if c.ndim != 2 or c.shape[0] != len(q):
        raise ValueError(f"costs must have one row per model ({len(q)}), got shape {c.shape}")
    if np.isinf(c).any():
        raise ValueError("costs contain infinite values")
    compared = ~np.isnan(q) & ~np.isnan(c).any(axis=1)
    on = np.zeros(len(q), dtype=bool)
    idx = np.flatnonzero(compared)
    qq, cc = q[idx], c[idx]
    for pos, i in enumerate(idx):
        no_worse = (qq >= qq[pos]) & (cc <= cc[pos]).all(axis=1)
        better = (qq > qq[pos]) | (cc < cc[pos]).any(axis=1)
        on[i] = not (no_worse & better).any()
    if isinstance(quality, pd.Series):
        return pd.Series(on, index=quality.index, name="pareto_front")
    return on
