"""Companions of diversity: agreement of task subsets with the full benchmark, a regression through the origin."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import pandas as pd

from .._validation import (
    as_score_matrix,
    as_vector,
    check_choice,
    check_number,
    measure,
)
from ..ranking import (
    kendall_tau_distance,
    max_rank_change,
    rank,
)


@measure(allow_nan=True)
def subset_agreement(
    scores: Any,
    higher_is_better: Any = True,
    *,
    sizes: Sequence[int] = (1, 2, 3, 4, 5, 6),
    kind: str = "cardinal",
    samples: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """How closely small random subsets of the tasks reproduce the full ranking (Zhang & Hardt, Appendix D).

    For each size, ``samples`` random task subsets are drawn (all of them when
    there are fewer), each subset ranks the models (mean score for
    ``kind="cardinal"``, strict mean win rate for ``"ordinal"``), and the
    smallest Kendall tau distance and maximum rank change to the full
    ranking are reported.

    Parameters
    ----------
    sizes : sequence of int
        Subset sizes (numbers of tasks).
    kind : {"cardinal", "ordinal"}
        Rank by mean score or by strict mean win rate.
    samples : int
        Subsets drawn per size when there are more than that.
    seed : int
        Seed of the subset draws.

    References
    ----------
    :cite:t:`zhang2024tradeoffs`.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.repeat(np.arange(5.0)[:, None], 4, axis=1)
    >>> subset_agreement(s, sizes=[1], samples=10)["min_tau_distance"].tolist()
    [0.0]
    """
    check_choice(kind, "kind", ("cardinal", "ordinal"))
    samples = check_number(samples, "samples", low=1, integer=True)
    if sizes is None or isinstance(sizes, (str, bytes)):
        raise TypeError(f"sizes must be a list of subset sizes, got {sizes!r}")
    sizes = [check_number(k, "sizes", low=1, integer=True) for k in sizes]
    # missing cells are allowed on the ordinal kind only: the cardinal kind validates the table again without them
    mat = scores if kind == "ordinal" else as_score_matrix(scores, allow_nan=False)
    direction = scores.direction
    n = mat.shape[1]

    m = mat.shape[0]
    if kind == "ordinal":
        # per-task head-to-head wins and comparisons, so that a subset only needs a sum
        r = rank(mat.values, direction, nan_policy="omit")
        seen = ~np.isnan(r)
        wins = np.zeros((n, m, m), dtype=np.int16)
        compared = np.zeros((n, m, m), dtype=np.int16)
        for k in range(n):
            rk = np.where(seen[:, k], r[:, k], np.inf)
            both = seen[:, k][:, None] & seen[:, k][None, :]
            wins[k] = both & (rk[:, None] < rk[None, :])
            compared[k] = both
        off = ~np.eye(m, dtype=bool)

    def standing(cols):  # the subset's scores of the models: their ranking is rank(standing(cols))
        if kind == "cardinal":
            return mat.values[:, cols].mean(axis=1)
        w, c = wins[cols].sum(axis=0), compared[cols].sum(axis=0)
        if (c[off] == 0).any():
            raise ValueError("two models share no task in this subset")
        return np.where(off, w / np.maximum(c, 1), 0.0).sum(axis=1) / m

    full = rank(standing(np.arange(n)))
    rng = np.random.default_rng(seed)
    rows = []
    for size in sizes:
        if not 1 <= size <= n:
            raise ValueError(f"subset sizes must lie in 1..{n}, got {size}")
        if comb(n, size) <= samples:
            subsets = [list(c) for c in combinations(range(n), size)]
        else:
            subsets = [sorted(rng.choice(n, size=size, replace=False)) for _ in range(samples)]
        columns = []
        for cols in subsets:
            try:
                columns.append(standing(np.array(cols)))
            except ValueError:
                continue  # e.g. two models that share no task in this subset
        # every subset's ranking at once: rank() ranks each column with the arithmetic of a single vector
        ranked = rank(np.column_stack(columns)) if columns else np.empty((m, 0))
        taus = [kendall_tau_distance(full, ranked[:, k]) for k in range(ranked.shape[1])]
        mrcs = [max_rank_change(full, ranked[:, k]) for k in range(ranked.shape[1])]
        rows.append(
            {
                "size": size,
                "subsets": len(taus),
                "min_tau_distance": min(taus),
                "min_mrc": min(mrcs),
                "median_tau_distance": float(np.median(taus)),
            }
        )
    return pd.DataFrame(rows).set_index("size")


def no_intercept_fit(x: Any, y: Any) -> tuple[float, float]:
    r"""Slope of the least-squares line through the origin and Pearson's r.

    .. math::

        \hat b = \frac{\sum_i x_i y_i}{\sum_i x_i^2}.

    Parameters
    ----------
    x, y : array_like, shape (k,)
        Paired observations (at least 2, ``x`` not all zero).

    Examples
    --------
    >>> slope, r = no_intercept_fit([1.0, 2.0, 3.0], [2.0, 4.0, 6.0])
    >>> slope, round(r, 12)
    (2.0, 1.0)
    """
    from scipy.stats import pearsonr

    xa = as_vector(x, name="x", min_length=3)
    ya = as_vector(y, name="y", length=len(xa))
    if np.ptp(xa) == 0 or np.ptp(ya) == 0:
        which = "x" if np.ptp(xa) == 0 else "y"
        raise ValueError(f"{which} is constant: the slope through the origin may exist but Pearson's r is undefined")
    slope = float(xa @ ya / (xa @ xa))
    return slope, float(pearsonr(xa, ya).statistic)
