"""Putting task scores on a common scale before averaging them.

Cardinal benchmarks average numbers that live on different scales.  Two
published fixes are implemented here: BIG-bench's dynamic-range
normalisation and the random-baseline normalisation of the Open LLM
Leaderboard v2 (both described in Hardt's textbook chapter).  Neither changes
any task's ranking; both can change the average's ranking.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._validation import as_score_matrix

__all__ = ["dynamic_range", "random_baseline", "min_max"]


def _per_task(value: Any, n: int, tasks: list, name: str) -> np.ndarray:
    if isinstance(value, pd.Series):
        missing = [t for t in tasks if t not in value.index]
        if missing:
            raise ValueError(f"{name} has no entry for task(s) {missing[:5]}")
        arr = value.loc[tasks].to_numpy(dtype=float)
    else:
        arr = np.broadcast_to(np.asarray(value, dtype=float), (n,)).copy() if np.ndim(value) == 0 else np.asarray(value, dtype=float)
    if arr.shape != (n,):
        raise ValueError(f"{name} must be a scalar or have one entry per task ({n}), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite")
    return arr


def _rebuild(values: np.ndarray, scores: Any) -> Any:
    if isinstance(scores, pd.DataFrame):
        return pd.DataFrame(values, index=scores.index, columns=scores.columns)
    return values


def dynamic_range(scores: Any, low: Any, high: Any, *, scale: float = 100.0) -> np.ndarray | pd.DataFrame:
    r"""BIG-bench's dynamic-range normalisation of each task.

    .. math::

        \tilde s_{ik} = \text{scale} \times \frac{s_{ik} - \ell_k}{h_k - \ell_k},

    with a task-specific low score :math:`\ell_k` (e.g. chance level) and high
    score :math:`h_k` (e.g. the maximum attainable).  A strictly increasing
    affine map per task: every task's ranking is unchanged.

    Parameters
    ----------
    scores : array_like or DataFrame, shape (m, n)
    low, high : float, array_like of shape (n,) or Series indexed by task
        ``high`` must exceed ``low`` on every task.
    scale : float
        Value given to a score equal to ``high`` (default 100).

    Examples
    --------
    >>> dynamic_range([[50.0, 0.5], [75.0, 1.0]], low=[50, 0], high=[100, 1])
    array([[  0.,  50.],
           [ 50., 100.]])
    """
    mat = as_score_matrix(scores, allow_nan=True, min_models=1, allow_empty_rows=True)
    n = mat.shape[1]
    lo = _per_task(low, n, mat.tasks, "low")
    hi = _per_task(high, n, mat.tasks, "high")
    if (hi <= lo).any():
        bad = [mat.tasks[j] for j in np.flatnonzero(hi <= lo)]
        raise ValueError(f"high must exceed low on every task; it does not on {bad[:5]}")
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError("scale must be a positive number")
    return _rebuild(scale * (mat.values - lo) / (hi - lo), scores)


def random_baseline(scores: Any, baseline: Any, *, maximum: Any = 100.0, clip: bool = False) -> np.ndarray | pd.DataFrame:
    r"""Open LLM Leaderboard v2 normalisation: 0 at chance level, 100 at the maximum.

    .. math::

        \tilde s_{ik} = 100 \times \frac{s_{ik} - b_k}{M_k - b_k},

    where :math:`b_k` is the score of random guessing on task :math:`k` (25 for
    four-way multiple choice in percent) and :math:`M_k` the largest possible
    score.  Tasks where guessing scores high lose weight in the average.  With
    ``clip=True`` scores below chance become 0 (which can create ties).

    Examples
    --------
    >>> random_baseline([[25.0, 75.0], [62.5, 50.0]], baseline=[25, 50])
    array([[ 0., 50.],
           [50.,  0.]])
    """
    out = dynamic_range(scores, low=baseline, high=maximum, scale=100.0)
    if clip:
        out = out.clip(lower=0.0) if isinstance(out, pd.DataFrame) else np.maximum(out, 0.0)
    return out


def min_max(scores: Any) -> np.ndarray | pd.DataFrame:
    r"""Dynamic range with the observed extremes: 0 for the worst model, 100 for the best.

    .. math::

        \tilde s_{ik} = 100 \times \frac{s_{ik} - \min_j s_{jk}}{\max_j s_{jk} - \min_j s_{jk}}.

    Raises
    ------
    ValueError
        On a constant task (its range is zero).

    Examples
    --------
    >>> min_max([[1.0, 10.0], [3.0, 30.0], [2.0, 20.0]])
    array([[  0.,   0.],
           [100., 100.],
           [ 50.,  50.]])
    """
    mat = as_score_matrix(scores, allow_nan=True, allow_empty_rows=True)
    lo = np.nanmin(mat.values, axis=0)
    hi = np.nanmax(mat.values, axis=0)
    if (hi <= lo).any():
        bad = [mat.tasks[j] for j in np.flatnonzero(hi <= lo)]
        raise ValueError(f"constant task(s) {bad[:5]}: min-max normalisation is undefined")
    return dynamic_range(scores, low=lo, high=hi)
