"""Agreement among the tasks of a benchmark: Kendall's W and diversity."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validation import as_score_matrix, measure
from .missing import expected_ranks
from .ranking import DEFAULT_TIE_TOLERANCE, rank

__all__ = ["kendall_w", "tie_correction", "Diversity", "diversity"]


def tie_correction(ranks: Any) -> np.ndarray:
    r"""Kendall's tie term :math:`T_j = \sum_g (t_g^3 - t_g)` for each column.

    :math:`t_g` runs over the sizes of the groups of equal ranks in column
    :math:`j`; a column without ties has :math:`T_j = 0`, a column where all
    :math:`m` models tie has :math:`T_j = m^3 - m`.

    Parameters
    ----------
    ranks : array_like, shape (m, n)
        Midranks, one column per ranking (e.g. :func:`benchvote.task_ranks`).

    Examples
    --------
    >>> tie_correction([[1, 1.5], [2, 1.5], [3, 3]])
    array([0., 6.])
    """
    r = as_score_matrix(ranks, name="ranks", min_models=1).values
    out = np.zeros(r.shape[1])
    for j in range(r.shape[1]):
        _, counts = np.unique(r[:, j], return_counts=True)
        out[j] = float(np.sum(counts.astype(float) ** 3 - counts))
    return out


def _check_rank_matrix(r: np.ndarray, labels: list) -> None:
    """Every column must be a midrank vector: the midranks of its own values (1 = smallest)."""

    m = r.shape[0]
    expected = m * (m + 1) / 2
    sums = r.sum(axis=0)
    bad = np.flatnonzero(~np.isclose(sums, expected, rtol=0, atol=1e-6))
    if len(bad):
        j = bad[0]
        raise ValueError(
            f"kendall_w expects midranks 1..{m} in every column; column {labels[j]!r} sums to "
            f"{sums[j]:g} instead of {expected:g}. Did you pass scores? Rank them first with benchvote.rank"
        )
    own = rank(r, higher_is_better=False)  # the midranks of each column's own values
    bad = np.flatnonzero(np.abs(own - r).max(axis=0) > 1e-6)
    if len(bad):
        j = bad[0]
        raise ValueError(
            f"kendall_w expects midranks in every column; column {labels[j]!r} ({r[:, j].tolist()[:8]}) is not one "
            f"(tied models must share the mean of their positions, e.g. 1.5, 1.5, 3). Rank scores with benchvote.rank"
        )


def kendall_w(ranks: Any, *, correct_ties: bool = True) -> float:
    r"""Kendall's coefficient of concordance W of n rankings of m models.

    With :math:`r_{ij}` the rank of model :math:`i` in ranking (task)
    :math:`j`, rank sums :math:`R_i = \sum_j r_{ij}` and their mean
    :math:`\bar R = n(m+1)/2`,

    .. math::

        W = \frac{12\, S}{n^2 (m^3 - m) - n \sum_j T_j},
        \qquad S = \sum_{i=1}^m (R_i - \bar R)^2,

    where :math:`T_j = \sum_g (t_g^3 - t_g)` is the tie term of ranking
    :math:`j` (:func:`tie_correction`; dropped when ``correct_ties`` is
    false).  :math:`W = 1` when all rankings agree (ties included) and
    :math:`W = 0` when the rank sums are all equal.

    Parameters
    ----------
    ranks : array_like or DataFrame, shape (m, n)
        Midranks, one column per task (as returned by :func:`benchvote.rank`).
    correct_ties : bool
        Apply the standard tie correction (default).

    Returns
    -------
    float in [0, 1]

    Notes
    -----
    benchbench (the code released with Zhang & Hardt, 2024) casts midranks to
    integers before computing W and applies no tie correction, so on tied data
    its value differs: for three identical rankings of the scores
    (0.9, 0.8, 0.8, 0.1) it reports 1 - W = 0.05 (W = 0.95) where the
    correct value is W = 1; midranks without the tie correction would give
    W = 0.90 (see the test suite and the trade-off chapter).
    Zhang & Hardt's eq. 3 also prints the mean rank sum as a sum; the formula
    above uses the mean :math:`n(m+1)/2`.

    Raises
    ------
    ValueError
        If a column is not a valid midrank vector, a rank is missing, or every
        column is one big tie (W is then undefined).

    See Also
    --------
    diversity

    References
    ----------
    :cite:t:`kendall1948rank`.

    Examples
    --------
    >>> kendall_w([[1, 1, 1], [2, 2, 2], [3, 3, 3]])
    1.0
    >>> kendall_w([[1, 2, 3], [2, 3, 1], [3, 1, 2]])
    0.0
    >>> kendall_w([[1, 1, 1], [2.5, 2.5, 2.5], [2.5, 2.5, 2.5], [4, 4, 4]])
    1.0
    """
    mat = as_score_matrix(ranks, name="ranks", min_models=2, min_tasks=1)
    r = mat.values
    _check_rank_matrix(r, mat.tasks)
    m, n = r.shape
    rank_sums = r.sum(axis=1)
    s = float(np.sum((rank_sums - n * (m + 1) / 2.0) ** 2))
    denom = n**2 * (m**3 - m)
    if correct_ties:
        denom -= n * float(tie_correction(r).sum())
    if denom <= 0:
        raise ValueError("every ranking is a complete tie; Kendall's W is undefined")
    return float(min(1.0, max(0.0, 12.0 * s / denom)))


@dataclass(frozen=True)
class Diversity:
    """Diversity of a benchmark's tasks.

    Attributes
    ----------
    w : float
        Kendall's W of the task rankings (tie-corrected).
    diversity : float
        ``1 - w``: 0 when all tasks rank the models identically.
    mean_pairwise_mrc : float
        Mean over task pairs of the maximum rank change between their rankings.
    n_models, n_tasks : int
        Size of the table the values were computed on.
    nan_policy : str
        How missing scores were handled (see :func:`diversity`).
    dropped : tuple
        Models (or tasks) left out by that handling, if any.
    """

    w: float
    diversity: float
    mean_pairwise_mrc: float
    n_models: int
    n_tasks: int
    nan_policy: str
    dropped: tuple = ()


_MISSING_OPTIONS = ("raise", "complete_models", "complete_tasks", "expected_ranks")


def _mean_pairwise_mrc(r: np.ndarray) -> float:
    """The mean of :func:`~benchvote.ranking.max_rank_change` over the pairs of columns of ``r``.

    In blocks of columns (about two million differences at a time), so thousands of tasks take
    seconds and bounded memory rather than one Python call per pair.
    """
    m, n = r.shape
    block = max(1, 2_000_000 // max(1, m * n))
    total = 0.0
    for a in range(0, n - 1, block):
        sub = r[:, a : a + block]
        moves = np.abs(sub[:, :, None] - r[:, None, :]).max(axis=0)  # block x n
        later = np.arange(n)[None, :] > np.arange(a, a + sub.shape[1])[:, None]
        total += float(moves[later].sum())
    return total / (m - 1) / (n * (n - 1) / 2)


@measure(
    allow_nan=lambda nan_policy: nan_policy != "raise",
    allow_empty_rows=lambda nan_policy: nan_policy == "complete_tasks",
    min_tasks=2,
    nan_choices=_MISSING_OPTIONS,
)
def diversity(
    scores: Any,
    higher_is_better: Any = True,
    *,
    nan_policy: str = "raise",
    tol: float = DEFAULT_TIE_TOLERANCE,
) -> Diversity:
    r"""Task diversity of a benchmark: one minus Kendall's W of the task rankings.

    Zhang & Hardt (2024, eq. 3) call :math:`1 - W` the *diversity* of a
    benchmark: 0 when every task ranks the models the same way and close to
    1 when the task rankings are unrelated.  The mean over task pairs of
    :func:`max_rank_change` is reported beside it.

    Parameters
    ----------
    nan_policy : {"raise", "complete_models", "complete_tasks", "expected_ranks"}
        What to do with missing scores.  ``"raise"`` (default) refuses them.
        ``"complete_models"`` keeps only the models with a score on every task
        and ``"complete_tasks"`` only the tasks with a score for every model;
        the left-out labels are listed in :attr:`Diversity.dropped`.
        ``"expected_ranks"`` keeps everything and replaces each task's ranking
        by the expected rank of every model over all complete rankings
        compatible with the observed partial ranking (uniform linear
        extensions, see :func:`benchvote.missing.expected_ranks`); the tie
        correction then uses the observed ties only.

    Returns
    -------
    Diversity

    See Also
    --------
    kendall_w

    References
    ----------
    :cite:t:`zhang2024tradeoffs`; :cite:t:`kendall1948rank`.

    Examples
    --------
    >>> d = diversity([[3, 3], [2, 2], [1, 1]])
    >>> (d.w, d.diversity, d.mean_pairwise_mrc)
    (1.0, 0.0, 0.0)
    >>> round(diversity([[3, 1], [2, 2], [1, 3]]).diversity, 6)
    1.0
    """
    missing = nan_policy
    mat, direction = scores, scores.direction
    values = mat.values
    dropped: tuple = ()
    if missing == "complete_models":
        keep = ~np.isnan(values).any(axis=1)
        dropped = tuple(np.asarray(mat.models, dtype=object)[~keep])
        values = values[keep]
        if values.shape[0] < 2:
            raise ValueError("fewer than 2 models have a score on every task")
    elif missing == "complete_tasks":
        keep = ~np.isnan(values).any(axis=0)
        dropped = tuple(np.asarray(mat.tasks, dtype=object)[~keep])
        values, direction = values[:, keep], direction[keep]
        if values.shape[1] < 2:
            raise ValueError("fewer than 2 tasks have a score for every model")

    if missing == "expected_ranks":
        r = expected_ranks(values, direction, tol=tol)
        observed_ties = np.zeros(r.shape[1])
        for j in range(r.shape[1]):
            col = rank(values[:, j], direction[j], tol=tol, nan_policy="omit")
            seen = col[~np.isnan(col)]
            _, counts = np.unique(seen, return_counts=True)
            observed_ties[j] = float(np.sum(counts.astype(float) ** 3 - counts))
        m, n = r.shape
        s = float(np.sum((r.sum(axis=1) - n * (m + 1) / 2.0) ** 2))
        denom = n**2 * (m**3 - m) - n * observed_ties.sum()
        if denom <= 0:
            raise ValueError("every ranking is a complete tie; Kendall's W is undefined")
        w = float(min(1.0, max(0.0, 12.0 * s / denom)))
    else:
        r = rank(values, direction, tol=tol)
        w = kendall_w(r)
    m, n = r.shape
    return Diversity(
        w=w,
        diversity=1.0 - w,
        mean_pairwise_mrc=_mean_pairwise_mrc(np.asarray(r, dtype=float)),
        n_models=m,
        n_tasks=n,
        nan_policy=missing,
        dropped=dropped,
    )
