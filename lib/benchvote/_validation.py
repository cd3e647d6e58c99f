"""Input checks shared by every measure.

Every public function funnels its inputs through these helpers so that bad
input fails early with a message that names the problem.  Nothing here ever
imputes, reorders or drops data.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "ScoreMatrix",
    "as_score_matrix",
    "as_direction",
    "as_vector",
    "wrap_models",
]


class ScoreMatrix:
    """A validated models x tasks matrix with its labels.

    Attributes
    ----------
    values : ndarray of float, shape (m, n)
        Scores, ``nan`` marking a missing cell (only when allowed).
    models : list
        Row labels (``0, 1, ...`` for unlabelled arrays).
    tasks : list
        Column labels (``0, 1, ...`` for unlabelled arrays).
    labelled : bool
        Whether the input was a :class:`pandas.DataFrame`.
    """

    __slots__ = ("values", "models", "tasks", "labelled")

    def __init__(self, values: np.ndarray, models: list, tasks: list, labelled: bool):
        self.values = values
        self.models = models
        self.tasks = tasks
        self.labelled = labelled

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape  # type: ignore[return-value]

    @property
    def observed(self) -> np.ndarray:
        return ~np.isnan(self.values)


def _describe_cells(mask: np.ndarray, models: Sequence[str], tasks: Sequence[str], limit: int = 5) -> str:
    rows, cols = np.nonzero(mask)
    cells = [f"({models[i]!s}, {tasks[j]!s})" for i, j in zip(rows[:limit], cols[:limit])]
    more = "" if len(rows) <= limit else f" and {len(rows) - limit} more"
    return ", ".join(cells) + more


def as_score_matrix(
    scores: Any,
    *,
    allow_nan: bool = False,
    min_models: int = 2,
    min_tasks: int = 1,
    name: str = "scores",
    allow_empty_rows: bool = False,
) -> ScoreMatrix:
    """Validate a models x tasks score table.

    Parameters
    ----------
    scores : array_like or DataFrame, shape (m, n)
        One row per model, one column per task.
    allow_nan : bool
        Whether missing cells (``nan``) are allowed.
    min_models, min_tasks : int
        Smallest acceptable number of rows and columns.
    name : str
        Name used in error messages.
    allow_empty_rows : bool
        Whether a model may have no observed score at all (only relevant when
        ``allow_nan`` is true).

    Raises
    ------
    ValueError
        On a non-numeric, non-2-D, too small, infinite or (unless allowed)
        missing entry, or a duplicated model or task label.
    """
    labelled = isinstance(scores, pd.DataFrame)
    if labelled:
        frame = scores
        bad = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
        if bad:
            raise ValueError(
                f"{name} must be numeric; column(s) {bad[:5]} have non-numeric dtype "
                f"({', '.join(str(frame[c].dtype) for c in bad[:5])})"
            )
        models = list(frame.index)
        tasks = list(frame.columns)
        values = frame.to_numpy(dtype=float, na_value=np.nan)
    else:
        try:
            values = np.asarray(scores, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be numeric: {exc}") from None
        if values.ndim != 2:
            raise ValueError(
                f"{name} must be a 2-D models x tasks table, got an array with {values.ndim} dimension(s)"
                + (" (use scores[:, None] for a single task)" if values.ndim == 1 else "")
            )
        models = list(range(values.shape[0]))
        tasks = list(range(values.shape[1]))
    if values.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {values.shape}")
    m, n = values.shape
    if m < min_models:
        raise ValueError(f"{name} needs at least {min_models} models (rows), got {m}")
    if n < min_tasks:
        raise ValueError(f"{name} needs at least {min_tasks} task(s) (columns), got {n}")
    if len(set(models)) != m:
        dup = pd.Index(models)[pd.Index(models).duplicated()].unique().tolist()
        raise ValueError(f"{name} has duplicated model labels: {dup[:5]}")
    if len(set(tasks)) != n:
        dup = pd.Index(tasks)[pd.Index(tasks).duplicated()].unique().tolist()
        raise ValueError(f"{name} has duplicated task labels: {dup[:5]}")
    if np.isinf(values).any():
        raise ValueError(f"{name} contains infinite values at {_describe_cells(np.isinf(values), models, tasks)}")
    missing = np.isnan(values)
    if missing.any():
        if not allow_nan:
            raise ValueError(
                f"{name} contains {int(missing.sum())} missing value(s) (NaN) at "
                f"{_describe_cells(missing, models, tasks)}; this measure needs complete data "
                "(see benchvote.missing for rankings that handle missing scores)"
            )
        if not allow_empty_rows:
            empty = missing.all(axis=1)
            if empty.any():
                names = [models[i] for i in np.flatnonzero(empty)]
                raise ValueError(f"{name}: model(s) {names[:5]} have no observed score on any task")
    return ScoreMatrix(values, models, tasks, labelled)


def as_direction(higher_is_better: Any, n_tasks: int, tasks: Sequence[str] | None = None) -> np.ndarray:
    """Return a boolean array of length ``n_tasks`` saying which tasks reward high scores.

    ``higher_is_better`` may be a single bool, a sequence of bools or a
    :class:`pandas.Series` indexed by task label (aligned to ``tasks``).
    """
    if isinstance(higher_is_better, (bool, np.bool_)):
        return np.full(n_tasks, bool(higher_is_better))
    if isinstance(higher_is_better, pd.Series) and tasks is not None:
        missing = [t for t in tasks if t not in higher_is_better.index]
        if missing:
            raise ValueError(f"higher_is_better has no entry for task(s) {missing[:5]}")
        arr = higher_is_better.loc[list(tasks)].to_numpy()
    else:
        arr = np.asarray(higher_is_better)
    if arr.shape != (n_tasks,):
        raise ValueError(f"higher_is_better must be a bool or have one entry per task ({n_tasks}), got shape {arr.shape}")
    if arr.dtype != bool:
        if not np.isin(arr, [0, 1, True, False]).all():
            raise ValueError("higher_is_better entries must be booleans")
        arr = arr.astype(bool)
    return arr


def as_vector(x: Any, *, name: str, length: int | None = None, allow_nan: bool = False, min_length: int = 1) -> np.ndarray:
    """Validate a 1-D numeric vector."""
    if isinstance(x, (pd.Series, pd.Index)):
        x = x.to_numpy(dtype=float, na_value=np.nan)
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have length {length}, got {arr.shape[0]}")
    if arr.shape[0] < min_length:
        raise ValueError(f"{name} needs at least {min_length} entries, got {arr.shape[0]}")
    if np.isinf(arr).any():
        raise ValueError(f"{name} contains infinite values")
    if not allow_nan and np.isnan(arr).any():
        raise ValueError(f"{name} contains {int(np.isnan(arr).sum())} missing value(s) (NaN)")
    return arr


def wrap_models(values: np.ndarray, matrix: ScoreMatrix, name: str) -> np.ndarray | pd.Series:
    """Return ``values`` as a Series indexed by model when the input was labelled."""
    if matrix.labelled:
        return pd.Series(values, index=pd.Index(matrix.models), name=name)
    return values
