"""Positional scoring rules: each task hands out points by position, the same points on every task.

A scoring vector :math:`w_1 \\ge w_2 \\ge \\dots \\ge w_m` gives :math:`w_p` points to
the model in position :math:`p` of a task's ranking; a model's score is the sum of
its points over the tasks.  Plurality (:math:`1, 0, \\dots, 0`), veto
(:math:`1, \\dots, 1, 0`), :math:`k`-approval (:math:`k` ones) and Borda
(:math:`m-1, m-2, \\dots, 0`) are the common choices.  Tied models share the points
of the positions they occupy, so every task hands out the same total.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._validation import as_vector, measure, wrap_models
from .ranking import DEFAULT_TIE_TOLERANCE, _rank

__all__ = ["scoring_vector", "positional_scores", "positional_winners"]

#: The named scoring vectors: name -> (points for a board of m models, what it rewards).
KINDS = {
    "plurality": "one point for first place on a task",
    "veto": "one point for every place but the last",
    "borda": "m - p points for place p",
}


def scoring_vector(kind: str, m: int, k: int = 1) -> np.ndarray:
    """The scoring vector of a named positional rule for ``m`` models.

    ``kind`` is ``"plurality"``, ``"veto"``, ``"borda"`` or ``"approval"``
    (``k`` points-earning places, ``1 <= k < m``).

    Parameters
    ----------
    kind : {"plurality", "veto", "borda", "approval"}
        The rule.
    m : int
        Number of models (positions), at least 2.
    k : int
        Places that earn a point under ``"approval"``; ignored otherwise.

    Examples
    --------
    >>> scoring_vector("borda", 4)
    array([3., 2., 1., 0.])
    >>> scoring_vector("approval", 4, k=2)
    array([1., 1., 0., 0.])
    """
    if not isinstance(m, (int, np.integer)) or isinstance(m, bool) or m < 2:
        raise ValueError(f"m must be an integer of at least 2, got {m!r}")
    if kind == "plurality":
        return scoring_vector("approval", m, 1)
    if kind == "veto":
        return scoring_vector("approval", m, m - 1)
    if kind == "borda":
        return np.arange(m - 1, -1, -1, dtype=float)
    if kind == "approval":
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 1 <= k < m:
            raise ValueError(f"k-approval needs an integer k with 1 <= k < m = {m}, got {k!r}")
        return (np.arange(m) < k).astype(float)
    raise ValueError(f"unknown scoring rule {kind!r}; known: plurality, veto, borda, approval")


def _points(ranks: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Points of every model on every task: the mean weight of the positions its tie group occupies."""
    cum = np.concatenate([[0.0], np.cumsum(weights)])
    out = np.empty_like(ranks)
    for j in range(ranks.shape[1]):
        r = ranks[:, j]
        size = (r[:, None] == r[None, :]).sum(axis=1)  # midranks are exact halves, so == is safe
        first = np.rint(r - (size - 1) / 2).astype(int)
        last = first + size - 1
        out[:, j] = (cum[last] - cum[first - 1]) / size
    return out


@measure(allow_nan=False)
def positional_scores(
    scores: Any, higher_is_better: Any = True, *, weights: Any, tol: float = DEFAULT_TIE_TOLERANCE
) -> np.ndarray | pd.Series:
    r"""Total points of every model under the scoring vector ``weights``.

    .. math::

        P_i = \sum_{t=1}^n \frac{1}{|G_{it}|} \sum_{p \in G_{it}} w_p,

    where :math:`G_{it}` is the set of positions that model :math:`i`'s tie group
    occupies on task :math:`t` (a single position when nobody ties with it).

    Parameters
    ----------
    weights : sequence of float, length m
        Points for positions 1..m; non-increasing (a rule that paid more for a
        worse place would not be a ranking rule).  See :func:`scoring_vector`.

    Examples
    --------
    >>> positional_scores([[3, 1], [2, 3], [1, 2]], weights=[1, 0, 0])
    array([1., 1., 0.])
    """
    mat, ranks = scores, _rank(scores.values, scores.direction, tol)
    w = as_vector(weights, name="weights", length=mat.shape[0])
    if np.any(np.diff(w) > 0):
        raise ValueError("weights must be non-increasing: position 1 earns at least as much as position 2, and so on")
    return wrap_models(_points(ranks, w).sum(axis=1), mat, "positional_score")


@measure(allow_nan=False)
def positional_winners(
    scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE
) -> pd.DataFrame:
    """The winners of every k-approval rule (k = 1: plurality, k = m - 1: veto) and of Borda.

    Returns a frame with one row per rule (``rule``, ``k`` or ``<NA>`` for
    Borda, ``winners``: the tuple of co-winning model labels in table order,
    ``points``: their total).

    Examples
    --------
    >>> positional_winners([[3, 1, 3], [2, 3, 2], [1, 2, 1]])["winners"].tolist()
    [(0,), (1,), (0, 1)]
    """
    mat, ranks = scores, _rank(scores.values, scores.direction, tol)
    labels = list(mat.models)
    m = mat.shape[0]
    rows = []
    for name, k in [*((f"{k}-approval", k) for k in range(1, m)), ("Borda", None)]:
        w = scoring_vector("borda", m) if k is None else scoring_vector("approval", m, k)
        total = _points(ranks, w).sum(axis=1)
        best = np.flatnonzero(np.isclose(total, total.max(), rtol=0, atol=1e-9))
        label = {1: "plurality", m - 1: "veto"}.get(k, name) if k is not None else name
        rows.append({"rule": label, "k": k, "winners": tuple(labels[i] for i in best), "points": float(total.max())})
    frame = pd.DataFrame(rows)
    frame["k"] = frame["k"].astype("Int64")  # Borda has no k
    return frame
