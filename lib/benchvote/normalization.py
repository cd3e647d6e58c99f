"""Putting task scores on a common scale before averaging them.

Cardinal benchmarks average numbers that live on different scales.  Two
published fixes are implemented here: BIG-bench's dynamic-range
normalisation and the random-baseline normalisation of the Open LLM
Leaderboard v2 (both described in Hardt's textbook chapter).  Neither changes
any task's ranking; both can change the average's ranking.  Forecasting
boards divide each task by a baseline model's score instead
(:func:`relative_to_baseline`), then take the geometric mean.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._validation import measure, numbered

__all__ = ["dynamic_range", "random_baseline", "min_max", "relative_to_baseline"]


def _per_task(value: Any, n: int, tasks: list, name: str) -> np.ndarray:
    if isinstance(value, pd.Series):
        missing = [t for t in tasks if t not in value.index]
        if missing:
            raise ValueError(f"{name} has no entry for {numbered(len(missing), 'task')} {missing[:5]}")
        arr = value.loc[tasks].to_numpy(dtype=float)
    else:
        arr = (
            np.broadcast_to(np.asarray(value, dtype=float), (n,)).copy()
            if np.ndim(value) == 0
            else np.asarray(value, dtype=float)
        )
    if arr.shape != (n,):
        raise ValueError(f"{name} must be a scalar or have one entry per task ({n}), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite")
    return arr


def _rebuild(values: np.ndarray, mat: Any) -> Any:
    if mat.labelled:
        return pd.DataFrame(values, index=pd.Index(mat.models), columns=pd.Index(mat.tasks))
    return values


@measure(allow_nan=True, min_models=1, allow_empty_rows=True)
def dynamic_range(
    scores: Any, higher_is_better: Any = True, *, low: Any, high: Any, scale: float = 100.0
) -> np.ndarray | pd.DataFrame:
    r"""BIG-bench's dynamic-range normalisation of each task.

    .. math::

        \tilde s_{ik} = \text{scale} \times \frac{s_{ik} - \ell_k}{h_k - \ell_k},

    with a task-specific reference score :math:`\ell_k` for "no skill" (e.g.
    chance level) and :math:`h_k` for "perfect" (e.g. the best attainable).
    The result is higher-is-better on every task: for a lower-is-better task
    ``high`` lies below ``low`` and the map is decreasing, for the others it is
    increasing, so every task's ranking (read in its own direction) is kept.

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x tasks; ``nan`` cells stay ``nan``.
    low, high : float, array_like of shape (n,) or Series indexed by task
        The "no skill" and "perfect" scores; ``high`` must be better than
        ``low`` in the task's direction.
    scale : float
        Value given to a score equal to ``high`` (default 100).

    See Also
    --------
    random_baseline
    min_max

    References
    ----------
    :cite:t:`srivastava2022bigbench`.

    Examples
    --------
    >>> dynamic_range([[50.0, 0.5], [75.0, 1.0]], low=[50, 0], high=[100, 1])
    array([[  0.,  50.],
           [ 50., 100.]])
    """
    n = scores.shape[1]
    sign = scores.sign
    lo = _per_task(low, n, scores.tasks, "low")
    hi = _per_task(high, n, scores.tasks, "high")
    if (sign * (hi - lo) <= 0).any():
        bad = [scores.tasks[j] for j in np.flatnonzero(sign * (hi - lo) <= 0)]
        raise ValueError(
            f"high must be better than low in each task's direction (above it when higher is better, "
            f"below it otherwise); it is not on {bad[:5]}"
        )
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError("scale must be a positive number")
    return _rebuild(scale * (scores.values - lo) / (hi - lo), scores)


@measure(allow_nan=True, min_models=1, allow_empty_rows=True)
def random_baseline(
    scores: Any, higher_is_better: Any = True, *, baseline: Any, maximum: Any = 100.0, clip: bool = False
) -> np.ndarray | pd.DataFrame:
    r"""Open LLM Leaderboard v2 normalisation: 0 at chance level, 100 at the maximum.

    .. math::

        \tilde s_{ik} = 100 \times \frac{s_{ik} - b_k}{M_k - b_k},

    where :math:`b_k` is the score of random guessing on task :math:`k` (25 for
    four-way multiple choice in percent) and :math:`M_k` the largest possible
    score.  Up to a constant shared by all models this is the weighted mean
    of the raw scores with weights :math:`1/(M_k - b_k)`, so tasks where
    guessing scores high gain weight in the ranking, although their scores
    drop.  With
    ``clip=True`` scores below chance become 0 (which can create ties).
    This is :func:`dynamic_range` with ``low=baseline`` and ``high=maximum``
    (for a lower-is-better task ``maximum`` is the best, i.e. smallest, score).

    Parameters
    ----------
    baseline : float, array_like of shape (n,) or Series indexed by task
        Score of random guessing.
    maximum : float, array_like of shape (n,) or Series indexed by task
        Best attainable score (default 100).
    clip : bool
        Set normalised scores below 0 to 0.

    See Also
    --------
    dynamic_range

    References
    ----------
    :cite:t:`hardt2025benchmarks`.

    Examples
    --------
    >>> random_baseline([[25.0, 75.0], [62.5, 50.0]], baseline=[25, 50])
    array([[ 0., 50.],
           [50.,  0.]])
    """
    out = dynamic_range(scores, higher_is_better, low=baseline, high=maximum, scale=100.0)
    if clip:
        out = out.clip(lower=0.0) if isinstance(out, pd.DataFrame) else np.maximum(out, 0.0)
    return out


@measure(allow_nan=True, allow_empty_rows=True)
def min_max(scores: Any, higher_is_better: Any = True) -> np.ndarray | pd.DataFrame:
    r"""Dynamic range with the observed extremes: 0 for the worst model, 100 for the best.

    .. math::

        \tilde s_{ik} = 100 \times \frac{s_{ik} - \min_j s_{jk}}{\max_j s_{jk} - \min_j s_{jk}}

    for a higher-is-better task (min and max swap roles for a lower-is-better
    one, so the result is higher-is-better everywhere).

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x tasks; ``nan`` cells stay ``nan``.

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
    direction = scores.direction
    smallest = np.nanmin(scores.values, axis=0)
    largest = np.nanmax(scores.values, axis=0)
    if (largest <= smallest).any():
        bad = [scores.tasks[j] for j in np.flatnonzero(largest <= smallest)]
        raise ValueError(f"constant {numbered(len(bad), 'task')} {bad[:5]}: min-max normalisation is undefined")
    worst = np.where(direction, smallest, largest)
    best = np.where(direction, largest, smallest)
    return dynamic_range(scores, direction, low=worst, high=best)


@measure(allow_nan=True, min_models=1, allow_empty_rows=True)
def relative_to_baseline(scores: Any, higher_is_better: Any = True, *, baseline: Any) -> np.ndarray | pd.DataFrame:
    r"""Each task divided by a baseline model's score on it, as forecasting boards do.

    .. math::

        \tilde s_{ik} = \frac{s_{ik}}{s_{bk}},

    with :math:`b` the baseline model (e.g. a seasonal naive forecaster), whose
    normalised scores are all 1.  The baseline's score must be positive on
    every task, so each task keeps its order and its direction (a relative
    error below 1 beats the baseline when lower is better).  The map is linear
    per task: the mean of the result is a weighted mean of the raw scores with
    weights :math:`1/s_{bk}`, and the geometric mean's ranking
    (:func:`benchvote.aggregation.geometric_mean`) does not change at all.

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x tasks; ``nan`` cells stay ``nan``.
    higher_is_better : bool or sequence of bool
        Direction of every task (kept by the map; checked for shape only).
    baseline : label or int
        The baseline model: a row label of a labelled table, or a row index.

    Raises
    ------
    ValueError
        When the baseline is not a model of the table, or its score on a task
        is missing, zero or negative.

    Examples
    --------
    >>> relative_to_baseline([[2.0, 9.0], [4.0, 3.0]], baseline=1)
    array([[0.5, 3. ],
           [1. , 1. ]])
    """
    labels = list(scores.models)
    if baseline in labels:
        row = labels.index(baseline)
    elif not scores.labelled and isinstance(baseline, (int, np.integer)) and 0 <= baseline < len(labels):
        row = int(baseline)
    else:
        raise ValueError(f"the baseline {baseline!r} is not a model of the table")
    ref = scores.values[row]
    bad = [scores.tasks[j] for j in np.flatnonzero(~(ref > 0))]
    if bad:
        raise ValueError(f"the baseline {baseline!r} needs a positive score on every task; it has none on {bad[:5]}")
    return _rebuild(scores.values / ref, scores)
