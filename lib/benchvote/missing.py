r"""Rankings when scores are missing: compatible permutations and Borda (Himmi et al., 2024).

On a task where only :math:`k` of :math:`n` models have a score, the
observed scores give a *partial ranking*.  Every complete ranking of the
:math:`n` models that keeps the observed ones in their observed order is
*compatible* with it (a linear extension).  Taking all compatible rankings
as equally likely, the task is summarised by the matrix

.. math::

    M_{ij} = \Pr(\text{model } i \text{ is ranked above model } j),

which has a simple closed form (:func:`compatible_matrix`): with :math:`r_j`
the partial rank of an observed model :math:`j` (1 = best among the
observed),

* two observed models: 1, 0 (or 1/2 for a tie);
* two unobserved models: 1/2;
* an unobserved :math:`u` against an observed :math:`j`: :math:`r_j / (k + 1)`.

*Why.*  Restrict a uniformly random compatible ranking to the :math:`k`
observed models and :math:`u`.  The observed models keep their order and
:math:`u` is equally likely to fall into any of the :math:`k + 1` gaps
between them (every gap is completed by the same number of arrangements of
the other unobserved models).  :math:`u` lands above :math:`j` in exactly
:math:`r_j` of those gaps.

Himmi et al. print the count of compatible rankings with sums of factorials
where products are meant (their eq. 6: :math:`(a+b)!/(a!+b!)` for the number
of shuffles of two lists); the corrected count gives the same :math:`r_j/(k+1)`
(see the missing-scores chapter, which checks both against enumeration).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._validation import (
    as_direction,
    as_score_matrix,
    as_vector,
    check_number,
    measure,
    numbered,
    split_table,
    wrap_models,
)
from .aggregation import pairwise_wins
from .ranking import DEFAULT_TIE_TOLERANCE, kendall_tau_distance, rank

__all__ = [
    "knock_out",
    "knn_impute",
    "robustness_study",
    "instance_robustness",
    "compatible_matrix",
    "task_matrix",
    "expected_ranks",
    "partial_borda",
    "two_level_borda",
    "PairwiseConfidence",
    "pairwise_confidence",
]


def _groups(partial_ranking: Sequence, n: int) -> list[list[int]]:
    groups = []
    seen: set[int] = set()
    for entry in partial_ranking:
        members = list(entry) if isinstance(entry, (list, tuple, set, frozenset, np.ndarray)) else [entry]
        if not members:
            raise ValueError("a tie group in the partial ranking is empty")
        group = []
        for x in members:
            if isinstance(x, (bool, np.bool_)) or int(x) != x:
                raise ValueError(f"partial ranking entries must be model indices, got {x!r}")
            x = int(x)
            if not 0 <= x < n:
                raise ValueError(f"model index {x} is outside 0..{n - 1}")
            if x in seen:
                raise ValueError(f"model {x} appears twice in the partial ranking")
            seen.add(x)
            group.append(x)
        groups.append(group)
    return groups


def compatible_matrix(partial_ranking: Sequence, n: int) -> np.ndarray:
    r"""Share of compatible complete rankings that put model i above model j.

    Parameters
    ----------
    partial_ranking : sequence
        The observed models of one task, best first, as indices in
        ``0..n-1``.  An entry may be a list of indices: a group of tied
        models.  Ties are resolved deterministically by treating every order
        of a tied group as equally likely, which is the average of the
        authors' random tie-breaking: tied observed models get 1/2 against
        each other, and an unobserved model beats a tied model with
        probability (midrank of the group)/(k + 1).
    n : int
        Total number of models.

    Returns
    -------
    ndarray, shape (n, n)
        :math:`M_{ij}` as described in the module docstring; :math:`M_{ii} = 0`
        and :math:`M_{ij} + M_{ji} = 1` for :math:`i \ne j`.

    Raises
    ------
    ValueError
        With fewer than 2 observed models, or malformed indices.

    See Also
    --------
    task_matrix

    References
    ----------
    :cite:t:`himmi2024missing`.

    Examples
    --------
    Models 2 and 0 observed (2 best), model 1 unobserved:

    >>> compatible_matrix([2, 0], 3)
    array([[0.        , 0.33333333, 0.        ],
           [0.66666667, 0.        , 0.33333333],
           [1.        , 0.66666667, 0.        ]])
    """
    if int(n) != n or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n}")
    n = int(n)
    groups = _groups(partial_ranking, n)
    k = sum(len(g) for g in groups)
    if k < 2:
        raise ValueError(f"a task needs at least 2 observed models to rank anything, got {k}")
    midrank = np.full(n, np.nan)
    position = 0
    for g in groups:
        midrank[g] = position + (len(g) + 1) / 2.0
        position += len(g)
    observed = ~np.isnan(midrank)
    out = np.full((n, n), 0.5)
    ro = midrank[observed]
    out[np.ix_(observed, observed)] = np.where(
        ro[:, None] < ro[None, :], 1.0, np.where(ro[:, None] > ro[None, :], 0.0, 0.5)
    )
    share = midrank / (k + 1)  # unobserved above observed j
    out[np.ix_(~observed, observed)] = share[observed][None, :]
    out[np.ix_(observed, ~observed)] = 1.0 - share[observed][:, None]
    np.fill_diagonal(out, 0.0)
    return out


def task_matrix(scores: Any, higher_is_better: bool = True, *, tol: float = DEFAULT_TIE_TOLERANCE) -> np.ndarray:
    """:func:`compatible_matrix` of one task given as a score vector (``nan`` = not evaluated).

    Scores equal within ``tol`` (:func:`benchvote.rank`) form a tie group.

    Parameters
    ----------
    scores : array_like, shape (m,)
        One task's scores; ``nan`` marks a model not evaluated on it.
    higher_is_better : bool
        Direction of the task.
    tol : float
        Tie tolerance: scores within ``tol`` of each other (chained, as in
        :func:`benchvote.rank`) tie.

    Examples
    --------
    >>> float(task_matrix([0.9, float("nan"), 0.4])[1, 0])  # the unobserved model beats the best with chance 1/3
    0.3333333333333333
    """
    scores, higher_is_better = split_table(scores, higher_is_better)  # own validation: one task's vector
    x = as_vector(scores, name="scores", allow_nan=True, min_length=2)
    r = rank(x, higher_is_better, tol=tol, nan_policy="omit")
    seen = np.flatnonzero(~np.isnan(r))
    if len(seen) < 2:
        raise ValueError(f"a task needs at least 2 observed models to rank anything, got {len(seen)}")
    groups = [list(seen[r[seen] == v]) for v in np.unique(r[seen])]
    return compatible_matrix(groups, len(x))


def _task_matrices(mat, direction, tol):
    n_models, n_tasks = mat.shape
    for k in range(n_tasks):
        col = mat.values[:, k]
        if (~np.isnan(col)).sum() < 2:
            raise ValueError(f"task {mat.tasks[k]!s} has fewer than 2 observed models")
        yield task_matrix(col, bool(direction[k]), tol=tol)


@measure(allow_nan=True, allow_empty_rows=True)
def expected_ranks(scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE) -> np.ndarray:
    r"""Expected rank of every model on every task over all compatible complete rankings.

    An observed model with partial midrank :math:`r` among :math:`k`
    observed models has expected rank :math:`r\,(n+1)/(k+1)`; an
    unobserved model has :math:`(n+1)/2`.  Each column sums to
    :math:`n(n+1)/2`, like a complete ranking.

    See Also
    --------
    partial_borda

    References
    ----------
    :cite:t:`himmi2024missing`.

    Examples
    --------
    >>> expected_ranks([[3.0], [float("nan")], [1.0]])
    array([[1.33333333],
           [2.        ],
           [2.66666667]])
    """
    direction = scores.direction
    out = np.empty(scores.shape)
    for k, mk in enumerate(_task_matrices(scores, direction, tol)):
        out[:, k] = 1.0 + mk.sum(axis=0)  # 1 + expected number of models ranked above
    return out


def _expected_wins(mat, direction, tol) -> np.ndarray:
    """Row sums of every task's compatible matrix, by the closed form (no n x n matrices).

    An observed model at partial midrank r among k observed beats (k - r)
    observed models (ties count 1/2) and each of the n - k unobserved ones
    with probability 1 - r/(k + 1); an unobserved model expects (n - 1)/2.
    """
    n = mat.shape[0]
    r = rank(mat.values, direction, tol=tol, nan_policy="omit")
    seen = ~np.isnan(r)
    k = seen.sum(axis=0)
    if (k < 2).any():
        j = int(np.flatnonzero(k < 2)[0])
        raise ValueError(f"task {mat.tasks[j]!s} has fewer than 2 observed models")
    observed_wins = (k - r) + (n - k) * (1.0 - r / (k + 1))
    return np.where(seen, observed_wins, (n - 1) / 2.0)


@measure(
    allow_nan=lambda nan_policy: nan_policy != "raise",
    allow_empty_rows=lambda nan_policy: nan_policy == "middle",
    nan_choices=("omit", "middle", "raise"),
)
def partial_borda(
    scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE, nan_policy: str = "omit"
) -> np.ndarray | pd.Series:
    r"""One-level Borda aggregation with missing scores (:math:`\sigma^l` of Himmi et al.).

    Sums the compatible matrices of all tasks, :math:`M = \sum_t M^{(t)}`, and
    scores each model by its row sum, the expected number of (task, model)
    pairs it beats.  With no missing score this is exactly the Borda count.

    Parameters
    ----------
    nan_policy : {"omit", "middle", "raise"}
        ``"omit"`` (default) leaves each missing score out of its task's
        ranking (the partial ranking above) and refuses a model without any
        score, which would be ranked on no evidence at all; ``"middle"`` gives
        such a model the middle of every task, :math:`(n-1)/2` expected wins
        per task; ``"raise"`` refuses any missing score.

    Raises
    ------
    ValueError
        If a task has fewer than 2 observed models, or a model has no score
        at all under ``nan_policy="omit"``.

    See Also
    --------
    two_level_borda
    expected_ranks

    References
    ----------
    :cite:t:`himmi2024missing`.

    Examples
    --------
    >>> partial_borda([[1.0, 2.0], [0.0, float("nan")], [2.0, 1.0]])
    array([2.66666667, 1.        , 2.33333333])
    """
    direction = scores.direction
    return wrap_models(_expected_wins(scores, direction, tol).sum(axis=1), scores, "partial_borda")


def two_level_borda(
    instance_scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE
) -> np.ndarray | pd.Series:
    r"""Two-level Borda aggregation (:math:`\sigma^{2l}` of Himmi et al.) from instance-level scores.

    Step one ranks the models on each task by :func:`partial_borda` over
    that task's instances; a model not evaluated on a task at all still gets
    a position there, the one its compatible rankings give it on average
    (the middle, against the other unevaluated models).  Step two
    aggregates the task rankings with the Borda count.  Returns the Borda
    points of step two.  A model without any score on any task is refused.

    Parameters
    ----------
    instance_scores : sequence of array_like or dict of DataFrame
        One models x instances table per task (``nan`` = not evaluated).
        All tables list the same models in the same order.
    higher_is_better : bool or sequence of bool
        One direction per task.
    tol : float
        Tie tolerance of every ranking.

    See Also
    --------
    partial_borda

    References
    ----------
    :cite:t:`himmi2024missing`.

    Examples
    --------
    >>> t1 = [[0.9, 0.8], [0.1, 0.2], [0.5, float("nan")]]
    >>> t2 = [[0.3, 0.2], [0.7, 0.9], [0.1, 0.05]]
    >>> two_level_borda([t1, t2])
    array([3., 2., 1.])
    """
    if isinstance(instance_scores, dict):
        tasks = list(instance_scores.items())
    else:
        tasks = [(k, t) for k, t in enumerate(instance_scores)]
    if len(tasks) < 1:
        raise ValueError("need at least one task")
    direction = as_direction(higher_is_better, len(tasks))
    per_task = []
    models = None
    labelled = None
    seen_anywhere = None
    for (name, table), hib in zip(tasks, direction):
        mat = as_score_matrix(table, allow_nan=True, name=f"instance_scores[{name!s}]", allow_empty_rows=True)
        if models is None:
            models, labelled = mat.models, mat
            seen_anywhere = np.zeros(len(models), dtype=bool)
        elif list(mat.models) != list(models):
            raise ValueError(f"task {name!s} lists different models from the first task")
        seen_anywhere |= ~np.isnan(mat.values).all(axis=1)
        per_task.append(np.asarray(partial_borda(mat.values, bool(hib), tol=tol, nan_policy="middle")))
    assert seen_anywhere is not None and models is not None and labelled is not None  # tasks is not empty
    if not seen_anywhere.all():
        bad = [models[i] for i in np.flatnonzero(~seen_anywhere)]
        who = f"{numbered(len(bad), 'model')} {bad[:5]} {numbered(len(bad), 'has', 'have')}"
        raise ValueError(f"{who} no observed score on any task")
    task_scores = np.column_stack(per_task)
    r = rank(task_scores, tol=tol)
    values = (len(models) - r).sum(axis=1)
    return wrap_models(values, labelled, "two_level_borda")


@dataclass(frozen=True)
class PairwiseConfidence:
    """Hoeffding confidence intervals on pairwise preferences (see :func:`pairwise_confidence`).

    Attributes
    ----------
    preference : ndarray (m, m)
        :math:`\\hat M_{ij}`: share of the tasks comparing i and j on which i ranks above j (ties 1/2).
    comparisons : ndarray of int (m, m)
        :math:`z_{ij}`: number of tasks on which both were evaluated.
    half_width : ndarray (m, m)
        :math:`c_{ij} = \\sqrt{-\\log\\delta / (2 z_{ij})}` (infinite where :math:`z_{ij} = 0`).
    decided : ndarray of bool (m, m)
        True where 1/2 lies outside :math:`[\\hat M_{ij} - c_{ij}, \\hat M_{ij} + c_{ij}]`.
    delta : float
    models : list
    """

    preference: np.ndarray
    comparisons: np.ndarray
    half_width: np.ndarray
    decided: np.ndarray
    delta: float
    models: list

    @property
    def n_decided_pairs(self) -> int:
        """Number of unordered pairs whose order is decided at level delta."""
        return int(np.triu(self.decided, k=1).sum())

    def frame(self) -> pd.DataFrame:
        """The signed distance from 1/2 to the interval (positive: row beats column with confidence)."""
        decided = np.asarray(self.decided, dtype=bool)
        signed = np.zeros(decided.shape)
        lead = self.preference[decided] - 0.5
        signed[decided] = np.sign(lead) * (
            np.abs(lead) - self.half_width[decided]
        )  # undecided pairs (and the diagonal) stay 0
        return pd.DataFrame(signed, index=self.models, columns=self.models)


@measure(allow_nan=True)
def pairwise_confidence(
    scores: Any, higher_is_better: Any = True, delta: float = 0.05, *, tol: float = DEFAULT_TIE_TOLERANCE
) -> PairwiseConfidence:
    r"""Which pairwise orders are supported by the data at confidence level ``delta``.

    For each pair, :math:`\hat M_{ij}` is the share of the :math:`z_{ij}`
    tasks (rankings) evaluating both models on which i ranks above j (a
    tie counts 1/2).  By Hoeffding's inequality the true preference lies
    within :math:`c_{ij} = \sqrt{-\log\delta/(2 z_{ij})}` of it, except with
    probability at most :math:`\delta` on each side; the order of i and j is
    *decided* when 1/2 lies outside the interval (Himmi et al., eq. 4).

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        One column per ranking (task, or task instance for instance-level
        data); ``nan`` marks a missing score.
    higher_is_better : bool or sequence of bool
        Direction of every column.
    delta : float in (0, 1)
        Confidence level: each interval holds with probability at least ``1 - delta``.
    tol : float
        Tie tolerance of each column's ranking.

    References
    ----------
    :cite:t:`himmi2024missing`.

    Examples
    --------
    >>> c = pairwise_confidence([[1.0] * 30, [0.0] * 30], delta=0.05)
    >>> bool(c.decided[0, 1]), round(float(c.half_width[0, 1]), 3)
    (True, 0.223)
    """
    if not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1), got {delta}")
    direction = scores.direction

    counts = pairwise_wins(scores.values, direction, tol=tol)
    z = counts.compared
    with np.errstate(invalid="ignore", divide="ignore"):
        pref = np.where(z > 0, (counts.wins + 0.5 * counts.ties) / np.maximum(z, 1), 0.5)
        half = np.where(z > 0, np.sqrt(-np.log(delta) / (2.0 * np.maximum(z, 1))), np.inf)
    np.fill_diagonal(pref, 0.5)
    decided = np.abs(pref - 0.5) > half
    np.fill_diagonal(decided, False)
    return PairwiseConfidence(pref, z, half, decided, delta, list(scores.models))


def _check_methods(methods: Any, known: Sequence[str]) -> list[str]:
    if isinstance(methods, str) or methods is None:
        raise TypeError(f"methods must be a list of method names from {list(known)}, got {methods!r}")
    methods = list(methods)
    unknown = [m for m in methods if m not in known]
    if unknown or not methods:
        raise ValueError(
            f"methods: unknown {numbered(len(unknown), 'method')} {unknown} (known: {', '.join(known)})"
            if unknown
            else "methods must name at least one method"
        )
    return methods


def _check_shares(shares: Any) -> list[float]:
    if shares is None or isinstance(shares, (str, bytes)):
        raise TypeError(f"shares must be a list of numbers in [0, 1), got {shares!r}")
    out = [
        check_number(x, "shares", low=0.0, high=1.0, high_open=True) for x in np.ravel(np.asarray(shares, dtype=object))
    ]
    if not out:
        raise ValueError("shares must hold at least one share")
    return out


def _check_instance_tasks(tasks: Any) -> list[np.ndarray]:
    """Instance-level scores: one models x instances matrix per task, same models everywhere."""
    if tasks is None or isinstance(tasks, (str, bytes, np.ndarray, pd.DataFrame)):
        raise TypeError("tasks must be a list with one models x instances matrix per task")
    tasks = list(tasks)
    if len(tasks) < 1:
        raise ValueError("tasks must hold at least one models x instances matrix, got an empty list")
    out = [as_score_matrix(t, name=f"tasks[{k}]", allow_nan=True).values for k, t in enumerate(tasks)]
    rows = {t.shape[0] for t in out}
    if len(rows) != 1:
        raise ValueError(f"every task matrix must have the same models (rows); got row counts {sorted(rows)}")
    return out


def knock_out(scores: pd.DataFrame, share: float, *, seed: int = 0, min_per_task: int = 2) -> pd.DataFrame:
    """Remove a share of the observed cells at random (seeded), keeping every ranking defined.

    Cells are removed in a random order; a removal is skipped when it would
    leave a task with fewer than ``min_per_task`` observed models or a model
    without any score, so slightly fewer cells than ``share`` may go for
    large shares.

    Parameters
    ----------
    scores : DataFrame
        Models x tasks; cells already missing stay missing.
    share : float in [0, 1)
        Share of the observed cells to remove.
    seed : int
        Seed of the random order in which cells are removed.
    min_per_task : int
        Smallest number of scores a task keeps (a removal that would go below it is skipped).

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> int(knock_out(s, 0.34, seed=0).isna().sum().sum())
    2
    """
    share = check_number(share, "share", low=0.0, high=1.0, high_open=True)
    seed = check_number(seed, "seed", low=0, integer=True)
    min_per_task = check_number(min_per_task, "min_per_task", low=1, integer=True)
    mat = as_score_matrix(scores, allow_nan=True)
    values = mat.values.copy()
    rows, cols = np.nonzero(~np.isnan(values))
    target = int(round(share * len(rows)))
    rng = np.random.default_rng(seed)
    per_task = (~np.isnan(values)).sum(axis=0)
    per_model = (~np.isnan(values)).sum(axis=1)
    removed = 0
    for k in rng.permutation(len(rows)):
        if removed >= target:
            break
        i, j = rows[k], cols[k]
        if per_task[j] <= min_per_task or per_model[i] <= 1:
            continue
        values[i, j] = np.nan
        per_task[j] -= 1
        per_model[i] -= 1
        removed += 1
    return pd.DataFrame(values, index=pd.Index(mat.models), columns=pd.Index(mat.tasks))


def knn_impute(scores: pd.DataFrame, *, n_neighbors: int = 5) -> pd.DataFrame:
    """Fill missing cells from the ``n_neighbors`` most similar models (scikit-learn's ``KNNImputer``).

    This is the imputation benchbench applies before computing diversity;
    here it is only ever applied on request.  Similarity is the Euclidean
    distance over the tasks both models have, rescaled for the number of
    shared tasks; a cell becomes the mean of the neighbours' scores on that task.

    Parameters
    ----------
    scores : DataFrame
        Models x tasks with missing cells.
    n_neighbors : int
        Number of most similar models averaged for each missing cell.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> t = pd.DataFrame([[1.0, 2.0], [2.0, np.nan], [3.0, 6.0]], index=list("abc"), columns=["x", "y"])
    >>> knn_impute(t, n_neighbors=1).loc["b", "y"]  # from a, the model closest to b on x
    np.float64(2.0)
    """
    n_neighbors = check_number(n_neighbors, "n_neighbors", low=1, integer=True)
    mat = as_score_matrix(scores, allow_nan=True)  # before scikit-learn sees it: inf, strings, empty, labels

    from sklearn.impute import KNNImputer

    filled = KNNImputer(n_neighbors=n_neighbors, weights="uniform", keep_empty_features=True).fit_transform(mat.values)
    return pd.DataFrame(filled, index=pd.Index(mat.models), columns=pd.Index(mat.tasks))


@measure(allow_nan=True)
def robustness_study(
    scores: Any,
    higher_is_better: Any = True,
    *,
    shares: Sequence[float],
    repetitions: int = 50,
    seed: int = 0,
    methods: Sequence[str] = ("mean", "partial_borda", "knn_mean"),
) -> pd.DataFrame:
    r"""Rankings after knocking out a share of the scores, compared with the ranking on all scores.

    For every share and repetition, :func:`knock_out` removes cells (seed =
    ``seed`` + repetition), and each method ranks the models:

    * ``"mean"``: mean over the observed scores (:math:`\sigma^\mu`);
    * ``"partial_borda"``: one-level Borda on compatible rankings (:math:`\sigma^l`);
    * ``"knn_mean"``: nearest-neighbour imputation, then the mean.

    Lower-is-better tasks are negated for the two cardinal methods.
    Returns one row per (share, repetition, method) with the Kendall rank
    correlation (column ``kendall_correlation``) to the same method's ranking
    on the unperturbed table
    (:math:`1 - 2\times` the tau distance; 1 = unchanged) and whether the top 1
    and the top-3 set changed.

    Parameters
    ----------
    shares : sequence of float in [0, 1)
        Shares of the cells removed.
    repetitions : int
        Random removals per share.
    seed : int
        Seed of the first repetition; repetition k uses ``seed + k``.
    methods : sequence of {"mean", "partial_borda", "knn_mean"}
        The rankings compared.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> s = pd.DataFrame(np.arange(12.0).reshape(4, 3) % 5, columns=list("xyz"))
    >>> r = robustness_study(s, shares=[0.25], repetitions=2, methods=["mean", "partial_borda"])
    >>> r.columns.tolist(), len(r)
    (['share', 'repetition', 'method', 'kendall_correlation', 'top1_changed', 'top3_changed'], 4)
    """

    direction = scores.direction
    scores = scores.frame()
    methods = _check_methods(methods, ("mean", "partial_borda", "knn_mean"))
    shares = _check_shares(shares)
    repetitions = check_number(repetitions, "repetitions", low=1, integer=True)
    oriented = scores * np.where(direction, 1.0, -1.0)

    def aggregate(frame: pd.DataFrame, method: str) -> np.ndarray:
        if method == "mean":
            return np.nanmean(frame.to_numpy(dtype=float), axis=1)
        if method == "knn_mean":
            return knn_impute(frame).to_numpy().mean(axis=1)
        return np.asarray(partial_borda(frame.to_numpy(dtype=float)))

    reference = {m: rank(aggregate(oriented, m)) for m in methods}
    rows = []
    for share in shares:
        for rep in range(repetitions):
            frame = knock_out(oriented, share, seed=seed + rep)
            for m in methods:
                r = rank(aggregate(frame, m))
                ref = reference[m]
                rows.append(
                    {
                        "share": share,
                        "repetition": rep,
                        "method": m,
                        "kendall_correlation": 1.0 - 2.0 * kendall_tau_distance(ref, r),
                        "top1_changed": set(np.flatnonzero(r == r.min())) != set(np.flatnonzero(ref == ref.min())),
                        "top3_changed": set(np.argsort(r, kind="stable")[:3])
                        != set(np.argsort(ref, kind="stable")[:3]),
                    }
                )
    return pd.DataFrame(rows)


def _instance_rankings(tasks: list[np.ndarray], methods: Sequence[str]) -> dict:
    out: dict[str, Any] = {}
    if "mean" in methods:
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a removed block is an all-nan row: its mean is nan
            per_task = np.column_stack([np.nanmean(t, axis=1) for t in tasks])
        out["mean"] = rank(np.nanmean(per_task, axis=1))
    if "partial_borda" in methods:
        out["partial_borda"] = rank(np.asarray(partial_borda(np.hstack(tasks))))
    if "two_level_borda" in methods:
        out["two_level_borda"] = rank(np.asarray(two_level_borda(tasks)))
    return out


def instance_robustness(
    tasks: Sequence[np.ndarray],
    shares: Sequence[float],
    *,
    repetitions: int = 20,
    seed: int = 0,
    scale_task: float | None = None,
    methods: Sequence[str] = ("mean", "partial_borda", "two_level_borda"),
) -> pd.DataFrame:
    r"""Himmi et al.'s instance-level robustness experiment.

    Each repetition removes a share of the (model, task) blocks, all of a
    model's instances on a task at once (at least two models are kept per
    task and one task per model), and ranks the models by

    * ``"mean"``: mean over a task's observed instances, then over the model's tasks (:math:`\sigma^\mu`);
    * ``"partial_borda"``: one-level Borda over every instance ranking (:math:`\sigma^l`);
    * ``"two_level_borda"``: per-task Borda, then Borda over tasks (:math:`\sigma^{2l}`).

    With ``scale_task`` the scores of the first task are multiplied by that
    factor before removal (the paper's scaling corruption :math:`\lambda`).
    Returns the Kendall rank correlation (column ``kendall_correlation``,
    :math:`1 - 2\tau`) of each ranking with the same method's ranking on the
    complete, unscaled data.

    Parameters
    ----------
    tasks : sequence of array_like
        One models x instances matrix per task, the same models in every one.
    shares : sequence of float in [0, 1)
        Shares of the instance scores removed.
    repetitions : int
        Random removals per share.
    seed : int
        Seed of the first repetition.
    scale_task : float, optional
        Multiply the scores of the first task by this factor (a task on another scale).
    methods : sequence of {"mean", "partial_borda", "two_level_borda"}
        The rankings compared.

    Examples
    --------
    >>> from benchvote.data import gumbel_instances
    >>> r = instance_robustness(gumbel_instances(5, 3, 10, phi=1.0, seed=0), [0.2], repetitions=2, seed=0)
    >>> r.groupby("method")["kendall_correlation"].mean().round(2).to_dict()
    {'mean': 1.0, 'partial_borda': 0.9, 'two_level_borda': 0.8}
    """

    tasks = _check_instance_tasks(tasks)
    methods = _check_methods(methods, ("mean", "partial_borda", "two_level_borda"))
    shares = _check_shares(shares)
    repetitions = check_number(repetitions, "repetitions", low=1, integer=True)
    seed = check_number(seed, "seed", low=0, integer=True)
    scale_task = check_number(scale_task, "scale_task", low=0.0, low_open=True, allow_none=True)
    n_sys, n_tasks = tasks[0].shape[0], len(tasks)
    reference = _instance_rankings(tasks, methods)
    rows = []
    for share in shares:
        for rep in range(repetitions):
            rng = np.random.default_rng(seed + rep)
            work = [t.copy() for t in tasks]
            if scale_task is not None:
                work[0] = work[0] * scale_task
            blocks = [(i, k) for i in range(n_sys) for k in range(n_tasks)]
            per_task = np.full(n_tasks, n_sys)
            per_sys = np.full(n_sys, n_tasks)
            removed, target = 0, int(round(share * len(blocks)))
            for b in rng.permutation(len(blocks)):
                if removed >= target:
                    break
                i, k = blocks[b]
                if per_task[k] <= 2 or per_sys[i] <= 1:
                    continue
                work[k][i] = np.nan
                per_task[k] -= 1
                per_sys[i] -= 1
                removed += 1
            ranked = _instance_rankings(work, methods)
            for m in methods:
                rows.append(
                    {
                        "share": share,
                        "repetition": rep,
                        "method": m,
                        "kendall_correlation": 1.0 - 2.0 * kendall_tau_distance(reference[m], ranked[m]),
                    }
                )
    return pd.DataFrame(rows)
