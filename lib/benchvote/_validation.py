"""Input checks shared by every measure.

Every public function funnels its inputs through these helpers so that bad
input fails early with a message that names the problem.  Nothing here ever
imputes, reorders or drops data.
"""

from __future__ import annotations

import functools
import inspect
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np
import pandas as pd

__all__ = [
    "ScoreMatrix",
    "Table",
    "measure",
    "CONTRACT_DOCS",
    "split_table",
    "direction_of",
    "check_nan_policy",
    "UnknownLabelError",
    "as_label_list",
    "as_score_frame",
    "score_frame_and_matrix",
    "as_float_array",
    "check_frame",
    "check_choice",
    "check_number",
    "check_tol",
    "constant_tasks",
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
        return self.values.shape

    @property
    def observed(self) -> np.ndarray:
        return ~np.isnan(self.values)


def numbered(n: int, word: str, many: str | None = None) -> str:
    """``word`` in the number ``n`` asks for: messages never say "task(s)" or "have" of one model."""
    return word if n == 1 else (many or word + "s")


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
    if scores is None:
        raise TypeError(f"{name} must be a models x tasks table (array or DataFrame), got None")
    labelled = isinstance(scores, pd.DataFrame)
    if isinstance(scores, ScoreMatrix):  # validated by the measure that hands it on: its labels are checked
        values, models, tasks, labelled = scores.values, scores.models, scores.tasks, scores.labelled
    elif labelled:
        frame = scores
        check_frame(frame, name, ("model", "task"))
        models = list(frame.index)
        tasks = list(frame.columns)
        values = frame.to_numpy(dtype=float, na_value=np.nan)
    else:
        values = as_float_array(scores, name, "a models x tasks table (array or DataFrame)")
        if values.ndim != 2:
            raise ValueError(
                f"{name} must be a 2-D models x tasks table, got an array with {values.ndim} "
                f"{numbered(values.ndim, 'dimension')}"
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
        raise ValueError(f"{name} needs at least {min_tasks} {numbered(min_tasks, 'task')} (columns), got {n}")
    if np.isinf(values).any():
        raise ValueError(f"{name} contains infinite values at {_describe_cells(np.isinf(values), models, tasks)}")
    missing = np.isnan(values)
    if missing.any():
        if not allow_nan:
            raise ValueError(
                f"{name} contains {int(missing.sum())} missing {numbered(int(missing.sum()), 'value')} (NaN) at "
                f"{_describe_cells(missing, models, tasks)}; this measure needs complete data "
                "(see benchvote.missing for rankings that handle missing scores)"
            )
        if not allow_empty_rows:
            empty = missing.all(axis=1)
            if empty.any():
                names = [models[i] for i in np.flatnonzero(empty)]
                who = f"{numbered(len(names), 'model')} {names[:5]} {numbered(len(names), 'has', 'have')}"
                raise ValueError(f"{name}: {who} no observed score on any task")
    return ScoreMatrix(values, models, tasks, labelled)


def check_frame(frame: pd.DataFrame, name: str, axis_names: tuple[str, str]) -> None:
    """Refuse duplicated labels (checked first: with them, ``frame[label]`` is a frame) and non-numeric columns."""
    for axis_name, labels in zip(axis_names, (frame.index, frame.columns)):
        if labels.has_duplicates:
            dup = labels[labels.duplicated()].unique().tolist()
            raise ValueError(f"{name} has duplicated {axis_name} labels: {dup[:5]}")
    # the distinct dtypes first: a wide table has thousands of columns and a handful of dtypes
    odd = {t for t in set(frame.dtypes) if not pd.api.types.is_numeric_dtype(t)}
    bad = [(c, t) for c, t in zip(frame.columns, frame.dtypes) if t in odd] if odd else []
    if bad:
        raise ValueError(
            f"{name} must be numeric; {numbered(len(bad), 'column')} {[c for c, _ in bad[:5]]} "
            f"{numbered(len(bad), 'has a', 'have')} non-numeric dtype "
            f"({', '.join(str(t) for _, t in bad[:5])})"
        )


def as_float_array(x: Any, name: str, what: str) -> np.ndarray:
    """``x`` as a float array, refusing strings, ragged nesting and non-numeric entries with named errors."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be {what}, got a string")
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        if "inhomogeneous" in str(exc) or "sequence" in str(exc):
            raise ValueError(f"{name} must be rectangular; its rows have different lengths") from None
        raise ValueError(f"{name} must be numeric: {exc}") from None


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
            raise ValueError(f"higher_is_better has no entry for {numbered(len(missing), 'task')} {missing[:5]}")
        arr = higher_is_better.loc[list(tasks)].to_numpy()
    else:
        arr = np.asarray(higher_is_better)
    if arr.shape != (n_tasks,):
        raise ValueError(
            f"higher_is_better must be a bool or have one entry per task ({n_tasks}), got shape {arr.shape}"
        )
    if arr.dtype != bool:
        if not np.isin(arr, [0, 1, True, False]).all():
            raise ValueError("higher_is_better entries must be booleans")
        arr = arr.astype(bool)
    return arr


def as_vector(
    x: Any, *, name: str, length: int | None = None, allow_nan: bool = False, min_length: int = 1
) -> np.ndarray:
    """Validate a 1-D numeric vector."""
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be a numeric vector, got {'None' if x is None else 'a string'}")
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
        holes = int(np.isnan(arr).sum())
        raise ValueError(f"{name} contains {holes} missing {numbered(holes, 'value')} (NaN)")
    return arr


def wrap_models(values: np.ndarray, matrix: ScoreMatrix, name: str) -> np.ndarray | pd.Series:
    """Return ``values`` as a Series indexed by model when the input was labelled."""
    if matrix.labelled:
        return pd.Series(values, index=pd.Index(matrix.models), name=name)
    return values


def check_number(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    integer: bool = False,
    allow_none: bool = False,
) -> Any:
    """Validate a numeric parameter and return it as a Python ``float`` (or ``int``).

    Raises :class:`TypeError` when ``value`` is not a real number (a string,
    ``None``, a bool, an array) and :class:`ValueError` when it is nan,
    infinite or outside ``[low, high]`` (ends excluded when ``*_open``).
    """
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        kind = "an integer" if integer else "a number"
        raise TypeError(f"{name} must be {kind}, got {type(value).__name__} {value!r}")
    if integer:
        if isinstance(value, (float, np.floating)) and not float(value).is_integer():
            raise TypeError(f"{name} must be an integer, got {value!r}")
        if isinstance(value, (float, np.floating)) and not np.isfinite(value):
            raise ValueError(f"{name} must be a finite integer, got {value!r}")
        out: Any = int(value)
    else:
        out = float(value)
        if not np.isfinite(out):
            raise ValueError(f"{name} must be a finite number, got {value!r}")
    if low is not None and (out < low or (low_open and out == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low:g}, got {value!r}")
    if high is not None and (out > high or (high_open and out == high)):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high:g}, got {value!r}")
    return out


def check_tol(tol: Any, name: str = "tol") -> float:
    """A tie tolerance: a finite number >= 0."""
    return check_number(tol, name, low=0.0)


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """``value`` must be one of ``choices`` (strings)."""
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}; got {value!r}")
    return value


def as_score_frame(scores: Any, **kwargs: Any) -> pd.DataFrame:
    """Validate like :func:`as_score_matrix` and return a DataFrame (integer labels for arrays)."""
    return score_frame_and_matrix(scores, **kwargs)[0]


def score_frame_and_matrix(scores: Any, **kwargs: Any) -> tuple[pd.DataFrame, ScoreMatrix]:
    """:func:`as_score_frame` and the validated :class:`ScoreMatrix` behind it, from one validation."""
    mat = as_score_matrix(scores, **kwargs)
    if mat.labelled:
        return scores, mat
    return pd.DataFrame(mat.values, index=pd.Index(mat.models), columns=pd.Index(mat.tasks)), mat


def constant_tasks(values: np.ndarray, tol: float) -> np.ndarray:
    """Boolean mask of the tasks with a score whose observed scores are all tied (spread at most ``tol``).

    The one rule of the library and the audit.  The spread ``max - min`` is
    exact in floating point, unlike the standard deviation: three copies of
    55.55555555555556 have a standard deviation of about 7e-15 but a spread of
    exactly 0.  A task with one observed score is constant (nothing to order);
    a task with no observed score is not: it is empty, which callers report
    as its own reason (no model has a score there, rather than every model
    having the same one).
    """
    observed = ~np.isnan(values)
    high = np.where(observed, values, -np.inf).max(axis=0)
    low = np.where(observed, values, np.inf).min(axis=0)
    scored = observed.any(axis=0)
    spread = np.where(scored, high - low, 0.0)
    return scored & ~(spread > tol)


class UnknownLabelError(KeyError, ValueError):
    """A model or task label that is not in the table (both a ``KeyError`` and a ``ValueError``)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def as_label_list(labels: Any, name: str, known: Any, *, what: str = "model") -> list:
    """Validate a list of labels drawn from ``known``: no strings in place of lists, no repeats, no unknowns."""
    if labels is None:
        raise TypeError(f"{name} must be a list of {what} labels, got None")
    if isinstance(labels, (str, bytes)):
        raise TypeError(f"{name} must be a list of {what} labels, got the string {labels!r}")
    try:
        out = list(labels)
    except TypeError:
        raise TypeError(f"{name} must be a list of {what} labels, got {type(labels).__name__}") from None
    known_set = set(known)
    unknown = [x for x in out if x not in known_set]
    if unknown:
        raise UnknownLabelError(f"{name}: unknown {numbered(len(unknown), what)} {unknown[:5]}")
    if len(set(out)) != len(out):
        dup = pd.Index(out)[pd.Index(out).duplicated()].unique().tolist()
        raise ValueError(f"{name} repeats {numbered(len(dup), what)} {dup[:5]}")
    return out


def split_table(scores: Any, higher_is_better: Any) -> tuple[Any, Any]:
    """``(scores, higher_is_better)`` from a :class:`benchvote.data.Leaderboard` or from the pair itself.

    Any object with a ``scores`` table and a ``higher_is_better`` Series (a
    leaderboard) stands for the pair.  It carries its tasks' directions, so
    passing one together with an explicit ``higher_is_better`` other than the
    default ``True`` is an error rather than a silent choice between the two.
    """
    if hasattr(scores, "scores") and hasattr(scores, "higher_is_better"):
        if higher_is_better is not True:
            raise ValueError(
                "scores is a Leaderboard, which carries its own higher_is_better; "
                "pass the leaderboard alone, or its .scores with a higher_is_better of your own"
            )
        return scores.scores, scores.higher_is_better
    return scores, higher_is_better


def direction_of(mat: ScoreMatrix, higher_is_better: Any) -> np.ndarray:
    """The direction of each task of a validated table (a Series is aligned by task label)."""
    return as_direction(higher_is_better, mat.shape[1], mat.tasks if isinstance(higher_is_better, pd.Series) else None)


def check_nan_policy(nan_policy: Any, choices: Sequence[str] = ("raise", "omit")) -> str:
    """Validate ``nan_policy``: "raise" refuses missing cells, "omit" leaves them out.

    Some measures add named strategies of their own to ``choices``.
    """
    return check_choice(nan_policy, "nan_policy", choices)


# --------------------------------------------------------------------------- the measure contract, carried once


class Table(ScoreMatrix):
    """A validated score table with the direction of each of its tasks: what a measure's body receives.

    Attributes
    ----------
    values, models, tasks, labelled
        As in :class:`ScoreMatrix`.
    direction : ndarray of bool, shape (n,)
        Whether each task rewards high scores.
    """

    __slots__ = ("direction",)

    def __init__(self, mat: ScoreMatrix, direction: np.ndarray):
        super().__init__(mat.values, mat.models, mat.tasks, mat.labelled)
        self.direction = direction

    @classmethod
    def validate(cls, scores: Any, higher_is_better: Any = True, **options: Any) -> Table:
        """The table a measure's body would receive (``options`` as in :func:`as_score_matrix`)."""
        scores, higher_is_better = split_table(scores, higher_is_better)
        mat = as_score_matrix(scores, **options)
        return cls(mat, direction_of(mat, higher_is_better))

    @property
    def sign(self) -> np.ndarray:
        """``+1`` for the tasks that reward high scores, ``-1`` for the others."""
        return np.where(self.direction, 1.0, -1.0)

    @property
    def oriented(self) -> np.ndarray:
        """The scores turned so that higher is better on every task (``nan`` stays ``nan``)."""
        return self.values * self.sign

    def as_input(self) -> np.ndarray | pd.DataFrame:
        """The table in the form a caller gave it: a DataFrame when labelled, else the array of values."""
        return self.frame() if self.labelled else self.values

    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame (``0, 1, ...`` labels for an unlabelled input)."""
        return pd.DataFrame(self.values, index=pd.Index(self.models), columns=pd.Index(self.tasks))


_Flag = bool | Callable[[str], bool]
_Measure = TypeVar("_Measure", bound=Callable[..., Any])

#: What a measure's docstring says about the contract's parameters unless it says something of its own.
CONTRACT_DOCS = {
    "scores": (
        "scores : array_like, DataFrame or Leaderboard, shape (m, n)",
        "One row per model, one column per task{missing}. A :class:`benchvote.data.Leaderboard` stands for the "
        "pair ``(scores, higher_is_better)``.",
    ),
    "higher_is_better": (
        "higher_is_better : bool, sequence of bool or Series",
        "Direction of every task (one bool for all; a Series is aligned by task label).",
    ),
    "tol": (
        "tol : float",
        "Tie tolerance: two scores of a task within ``tol`` of each other (chained, as in :func:`benchvote.rank`) "
        "are tied.",
    ),
    "nan_policy": (
        "nan_policy : {choices}",
        '``"raise"`` refuses missing cells (``nan``); ``"omit"`` leaves them out.',
    ),
    "seed": (
        "seed : int",
        "Seed of the random generator: the same seed gives the same result on every run and machine.",
    ),
}


def _documented(doc: str | None, names: Sequence[str], allow_nan: _Flag, choices: Sequence[str]) -> str | None:
    """``doc`` whose Parameters section describes every contract parameter, in the order of the signature.

    An entry the body's docstring writes stays as written; a contract parameter it leaves out gets the
    contract's entry (:data:`CONTRACT_DOCS`), which says what the decorator checks: whether missing cells are
    allowed, and the ``nan_policy`` choices.  A docstring without a Parameters section gets one before its
    first other section.
    """
    if not doc:
        return doc
    missing = (
        "; missing cells (``nan``) as ``nan_policy`` says"
        if callable(allow_nan)
        else ("; ``nan`` marks a missing score" if allow_nan else ", every cell scored")
    )
    fill = {"missing": missing, "choices": "{" + ", ".join(f'"{c}"' for c in choices) + "}"}
    lines = doc.split("\n")
    heads = [k for k in range(len(lines) - 1) if lines[k].strip() and set(lines[k + 1].strip()) == {"-"}]
    indent = next((lines[k][: len(lines[k]) - len(lines[k].lstrip())] for k in heads), "    ")
    start = next((k for k in heads if lines[k].strip() == "Parameters"), None)
    if start is None:  # a section of its own, before the first other one (or at the end)
        at = heads[0] if heads else len(lines)
        lines[at:at] = [indent + "Parameters", indent + "----------", ""]
        return _documented("\n".join(lines), names, allow_nan, choices)
    end = next((k for k in heads if k > start), len(lines))
    while end > start + 2 and not lines[end - 1].strip():
        end -= 1
    entries: list[tuple[list[str], list[str]]] = []  # (names, lines) of each entry the body writes
    for line in lines[start + 2 : end]:
        if line.strip() and not line.startswith(indent + " "):
            entries.append(([n.strip() for n in line.split(":")[0].split(",")], [line]))
        elif entries:
            entries[-1][1].append(line)
    width = 110 - len(indent)
    out: list[str] = []
    for name in names:
        own = [e for e in entries if name in e[0]]
        if own and own[0][0][0] == name:
            out += own[0][1]
        elif not own and name in CONTRACT_DOCS:
            kind, text = (part.format(**fill) for part in CONTRACT_DOCS[name])
            out += [
                indent + kind,
                *textwrap.wrap(text, width, initial_indent=indent + "    ", subsequent_indent=indent + "    "),
            ]
    out += [line for e in entries if not set(e[0]) & set(names) for line in e[1]]  # e.g. ``*args``, ``**kwargs``
    return "\n".join(lines[: start + 2] + out + lines[end:])


def measure(
    *,
    allow_nan: _Flag = lambda policy: policy != "raise",
    allow_empty_rows: _Flag = False,
    min_models: int = 2,
    min_tasks: int = 1,
    nan_choices: Sequence[str] = ("raise", "omit"),
) -> Callable[[_Measure], _Measure]:
    """Carry the measure contract for a function ``f(scores, higher_is_better=True, *, ..., tol, nan_policy, seed)``.

    The wrapper unpacks a :class:`benchvote.data.Leaderboard`, checks
    ``nan_policy`` (one of ``nan_choices``), ``tol`` and ``seed``, validates the table
    (``allow_nan`` and ``allow_empty_rows`` are fixed or decided by the checked
    ``nan_policy``) and the directions, and calls the body with ``scores`` a
    :class:`Table` and ``higher_is_better`` its boolean direction array.  The
    public signature is the body's; the docstring gains the contract's entry
    for every contract parameter it does not describe itself
    (:data:`CONTRACT_DOCS`).  ``wrapper.__measure__`` records the options, so
    ``tests/test_api.py`` can check that every measure goes through here.
    """

    def flag(value: _Flag, policy: str) -> bool:
        return value(policy) if callable(value) else value

    def decorate(body: _Measure) -> _Measure:
        sig = inspect.signature(body)
        names = list(sig.parameters)
        if names[:2] != ["scores", "higher_is_better"]:
            raise TypeError(f"{body.__qualname__}: a measure takes (scores, higher_is_better, ...)")

        @functools.wraps(body)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            options = bound.arguments
            scores, higher_is_better = split_table(options["scores"], options["higher_is_better"])
            policy = "omit"
            if "nan_policy" in options:
                policy = options["nan_policy"] = check_nan_policy(options["nan_policy"], nan_choices)
            mat = as_score_matrix(
                scores,
                allow_nan=flag(allow_nan, policy),
                allow_empty_rows=flag(allow_empty_rows, policy),
                min_models=min_models,
                min_tasks=min_tasks,
            )
            if "tol" in options:
                tol = check_tol(options["tol"])  # a float subclass is passed on itself: a default may be a marker
                options["tol"] = options["tol"] if isinstance(options["tol"], float) else tol
            if "seed" in options:
                options["seed"] = check_number(options["seed"], "seed", low=0, integer=True)
            table = Table(mat, direction_of(mat, higher_is_better))
            options["scores"], options["higher_is_better"] = table, table.direction
            return body(*bound.args, **bound.kwargs)

        wrapper.__doc__ = _documented(body.__doc__, names, allow_nan, nan_choices)
        wrapper.__measure__ = {  # type: ignore[attr-defined]
            "allow_nan": allow_nan,
            "allow_empty_rows": allow_empty_rows,
            "min_models": min_models,
            "min_tasks": min_tasks,
            "nan_choices": tuple(nan_choices),
        }
        return cast(_Measure, wrapper)

    return decorate
