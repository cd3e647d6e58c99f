"""What every section sees: the options, checked, and the table split into the parts the measures need.

**Order.**  The models and tasks are put in the order of their names first
(:func:`canonical`), so permuting the file's rows or columns gives the same
report.

**Which table each section sees.**  The ``standings`` and ``missing``
sections rank every model on the whole table under rules that handle missing
scores, with each model's coverage.  The measures that need every cell work
on the table's largest complete part: the models scored on every task, after
leaving out the tasks with the most missing cells when that keeps more cells
(nothing is imputed; each section lists the models and tasks it uses).  A
task on which every model has the same score cannot order anyone; it is
reported and left out.  So is a task on which every model of the complete
part has the same score (the part is then chosen again without it).

**What is left out, and what is refused.**  A model with no score on any task
that orders the models, and a task with no score at all, are listed (the
``table`` and ``standings`` sections) and left out of every measure.  A table
without a complete part of two models and two tasks is audited as far as the
data allow: the sections that need the complete part say why they are not
applicable.  Only a table that cannot be audited at all is refused
(:class:`AuditInputError`): fewer than two models with a score, every task
constant or empty, or scores too large to add up in floating point
(:func:`check_magnitude`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._items import Items
from .._validation import as_score_matrix, check_number, check_tol, constant_tasks, direction_of, numbered, split_table
from ..battles import BattleCounts, battle_counts
from ..rules import RULES
from ..sensitivity import default_eps
from ._budget import BUDGETS, DEFAULT_BUDGET
from ._errors import AuditInputError, NotDefined, as_input_error
from ._rules import NORMALIZATIONS, Cardinal, Rule, audit_rules, split_normalize

CONSTANT_IN_PART = (
    "every model of the complete part (the models scored on every task) has the same score on it, "
    "so it orders none of them there; it still counts in the missing-scores section"
)


@dataclass(frozen=True)
class Options:
    """The audit's options, checked (see :func:`benchvote.audit.audit`)."""

    primary: str
    normalize: str
    n_boot: int
    level: float
    eps: float | None
    top_k: int
    top_models: int
    time_limit: float
    tol: float
    seed: int
    weights: Mapping[str, float] | None = None
    budget: str = DEFAULT_BUDGET


@dataclass(frozen=True)
class Context:
    """The checked options and the parts of the table, shared read-only by every section.

    ``table`` holds the quality tasks (cost columns apart) with missing cells;
    ``work`` its complete part without constant tasks (no rows and no columns
    when the table has none, with ``part_undefined`` saying why); ``cardinal``
    that part normalised for the cardinal measures; ``eps`` the label-noise box's eps
    (``None`` with ``box_undefined`` saying why).  ``unscored`` are the models
    with no score on a task that orders the models, ``empty`` the tasks with no
    score at all; both are left out of :attr:`quality`.

    A battle log (:func:`prepare_battles`) has no tasks: ``battles`` holds
    the log and ``counts`` its checked counts, the table has the models as
    rows and no column, and :attr:`kind` is ``"battles"``.
    """

    options: Options
    table: pd.DataFrame
    direction: pd.Series
    cost_table: pd.DataFrame
    constant: list
    flat: list
    work: pd.DataFrame
    hib: pd.Series
    cardinal: pd.DataFrame
    eps: float | None
    box_undefined: str | None
    rules: Mapping[str, Rule]
    instances: pd.DataFrame | Items | None  # the item scores: the reader's Items, or a long DataFrame
    groups: Mapping[str, str]
    transform: Cardinal = Cardinal()
    part_undefined: str | None = None
    unscored: tuple = ()
    empty: tuple = ()
    battles: pd.DataFrame | None = None
    counts: BattleCounts | None = None

    @property
    def kind(self) -> str:
        """The input a section must read (:attr:`benchvote.audit.Section.reads`): ``"table"`` or ``"battles"``."""
        return "table" if self.battles is None else "battles"

    @property
    def has_missing(self) -> bool:
        return bool(self.table.isna().to_numpy().any())

    @property
    def quality(self) -> pd.DataFrame:
        """The table without its constant or empty tasks and unscored models (what the missing-score rules rank)."""
        left_out = set(self.constant) | set(self.empty)
        unscored = set(self.unscored)
        return self.table.loc[
            [m for m in self.table.index if m not in unscored], [t for t in self.table.columns if t not in left_out]
        ]


def check_options(
    primary: str,
    normalize: str,
    n_boot: Any,
    level: Any,
    eps: Any,
    top_k: Any,
    top_models: Any,
    time_limit: Any,
    tol: Any,
    seed: Any,
    weights: Any = None,
    budget: Any = DEFAULT_BUDGET,
) -> Options:
    """The options, checked; :class:`AuditInputError` names the first that is out of range."""
    if primary not in RULES:
        raise AuditInputError(f"unknown primary rule {primary!r}; choose one of {', '.join(RULES)}")
    method, model = split_normalize(normalize)
    if method not in NORMALIZATIONS or (method == "baseline") != bool(model):
        raise AuditInputError(
            f"unknown normalize {normalize!r}; choose one of {', '.join(n for n in NORMALIZATIONS if n != 'baseline')} "
            "or baseline:MODEL"
        )
    if budget not in BUDGETS:
        raise AuditInputError(f"unknown budget {budget!r}; choose one of {', '.join(BUDGETS)}")
    with as_input_error():
        return Options(
            weights=check_weights(weights),
            primary=primary,
            normalize=normalize,
            n_boot=check_number(n_boot, "n_boot", low=1, integer=True),
            level=check_number(level, "level", low=0.0, high=1.0, low_open=True, high_open=True),
            eps=check_number(eps, "eps", low=0.0, high=1.0, low_open=True, high_open=True, allow_none=True),
            top_k=check_number(top_k, "top_k", low=2, integer=True),
            top_models=check_number(top_models, "top_models", low=2, integer=True),
            time_limit=check_number(time_limit, "time_limit", low=0.0, low_open=True),
            tol=check_tol(tol),
            seed=check_number(seed, "seed", low=0, integer=True),
            budget=budget,
        )


def check_weights(weights: Any) -> dict[str, float] | None:
    """Task name -> weight (positive and finite), from a mapping or a Series; ``None`` stays ``None``."""
    if weights is None:
        return None
    out = {str(k): float(v) for k, v in dict(weights).items()}
    bad = [t for t, v in out.items() if not (np.isfinite(v) and v > 0)]
    if bad:
        raise AuditInputError(
            f"weights must be positive and finite; {numbered(len(bad), 'task')} {', '.join(bad[:5])} "
            f"{numbered(len(bad), 'has', 'have')} another weight "
            "(leave a task out of the table to give it no weight)"
        )
    return out


def cardinal_transform(work: pd.DataFrame, table: pd.DataFrame, options: Options) -> Cardinal:
    """The cardinal parts' transform: the normalisation (its baseline row found in ``work``) and the weights."""
    method, model = split_normalize(options.normalize)
    row = None
    if model is not None:
        labels = [str(m) for m in work.index]
        if model not in labels:
            where = (
                "is not a model of the table"
                if model not in map(str, table.index)
                else ("misses a task of the complete part (it must be scored on every task the cardinal parts read)")
            )
            raise AuditInputError(f"normalize baseline:{model}: the baseline model {where}")
        row = labels.index(model)
    weights = None
    if options.weights is not None:
        tasks = [str(t) for t in table.columns]
        unknown = [t for t in options.weights if t not in tasks]
        if unknown:
            raise AuditInputError(f"weights name unknown {numbered(len(unknown), 'task')}: {', '.join(unknown[:5])}")
        absent = [t for t in tasks if t not in options.weights]
        if absent:
            raise AuditInputError(
                f"weights give no weight to {numbered(len(absent), 'task')} {', '.join(absent[:5])}; "
                "give every task one"
            )
        weights = pd.Series([options.weights[str(t)] for t in work.columns], index=[str(t) for t in work.columns])
    return Cardinal(options.normalize, options.tol, row, weights)


def prepare(scores: Any, higher_is_better: Any, options: Options, costs: Any, instances: Any, groups: Any) -> Context:
    """Split the table into the parts the sections see (see the module's docstring)."""
    if isinstance(scores, pd.DataFrame) and {"model_a", "model_b", "winner"} <= {
        str(c).strip().lower() for c in scores.columns
    }:
        raise AuditInputError(
            "this table is a battle log (columns model_a, model_b, winner), not scores: audit it with "
            "benchvote.audit.audit_battles"
        )
    with as_input_error():
        scores, higher_is_better = split_table(scores, higher_is_better)  # own validation: the audit's input
    if not isinstance(scores, pd.DataFrame):
        raise TypeError("audit needs a labelled table: a DataFrame (models x tasks) or a Leaderboard")
    with as_input_error():
        mat = as_score_matrix(scores, allow_nan=True, allow_empty_rows=True)
        direction = pd.Series(direction_of(mat, higher_is_better), index=scores.columns)
    scores, direction = canonical(scores.astype(float), direction)
    table, direction, cost_table = split_costs(scores, direction, costs)
    empty = list(table.columns[table.isna().all().to_numpy()])
    check_magnitude(table.drop(columns=empty))
    scored = list(table.index[table.notna().any(axis=1).to_numpy()])
    if len(scored) < 2:
        who = f"only one model ({scored[0]!s}) has" if scored else "no model has"
        raise AuditInputError(f"{who} a score; a ranking needs two models with scores")
    constant = list(table.columns[constant_tasks(table.to_numpy(dtype=float), options.tol)])
    unusable = {*constant, *empty}
    usable = [t for t in table.columns if t not in unusable]
    if not usable:
        raise AuditInputError(f"no task orders the models: {_unusable(table, constant, empty)}")
    unscored = list(table.index[table[usable].isna().all(axis=1).to_numpy()])
    left_out = set(unscored)
    rated = [m for m in table.index if m not in left_out]
    work, flat, part_undefined = complete_part(table.loc[rated, usable], options.tol, constant)
    hib = direction[work.columns]
    transform = cardinal_transform(work, table, options)
    cardinal, eps = work, options.eps
    box_undefined: str | None = f"the table has no complete part ({part_undefined})"
    if part_undefined is None:
        try:
            cardinal = transform(work)
        except NotDefined as err:
            raise AuditInputError(f"normalize={options.normalize!r} is undefined on this table: {err}") from None
        eps, box_undefined = box_eps(cardinal, hib, options.eps, options.tol)
    return Context(
        options=options,
        table=table,
        direction=direction,
        cost_table=cost_table,
        constant=constant,
        flat=flat,
        work=work,
        hib=hib,
        cardinal=cardinal,
        eps=eps,
        box_undefined=box_undefined,
        rules=audit_rules(transform),
        instances=instances,
        groups=check_groups(groups, table),
        transform=transform,
        part_undefined=part_undefined,
        unscored=tuple(unscored),
        empty=tuple(empty),
    )


#: Why the sections that compare tasks do not run on a battle log.
NO_TASKS = "the input is a battle log (model_a, model_b, winner), which has no tasks"


def prepare_battles(battles: Any, options: Options) -> Context:
    """The context of a battle log: the log, its counts (checked: one line per problem), and no tasks."""
    try:
        counts = battle_counts(battles)
    except (TypeError, ValueError) as err:
        raise AuditInputError(str(err)) from None
    empty = pd.DataFrame(index=pd.Index(counts.models), columns=pd.Index([], dtype=object), dtype=float)
    direction = pd.Series([], dtype=bool)
    return Context(
        options=options,
        table=empty,
        direction=direction,
        cost_table=empty,
        constant=[],
        flat=[],
        work=empty,
        hib=direction,
        cardinal=empty,
        eps=None,
        box_undefined=NO_TASKS,
        rules=audit_rules(Cardinal(tol=options.tol)),
        instances=None,
        groups={},
        part_undefined=NO_TASKS,
        battles=battles,
        counts=counts,
    )


def canonical(scores: pd.DataFrame, direction: pd.Series) -> tuple[pd.DataFrame, pd.Series]:
    """The table with its models and tasks in the order of their names, so nothing depends on the file's order.

    Every tie the report breaks (the complete part's tasks, the top models, the
    bootstrap's draws of columns, the rules' own tie-breaks) is then broken by
    name rather than by position.
    """
    rows = sorted(range(scores.shape[0]), key=lambda i: (str(scores.index[i]), i))
    cols = sorted(range(scores.shape[1]), key=lambda j: (str(scores.columns[j]), j))
    return scores.iloc[rows, cols], direction.iloc[cols]


def _listed(tasks: Any, limit: int = 5) -> str:
    """Up to ``limit`` names, comma-separated, and how many more."""
    names = [str(t) for t in tasks]
    more = len(names) - limit
    return ", ".join(names[:limit]) + (f" and {more} more" if more > 0 else "")


def _unusable(table: pd.DataFrame, constant: list, empty: list) -> str:
    """Why the tasks named order no model: one score, the same score for every model, or no score."""
    single = [t for t in constant if table[t].notna().sum() == 1]
    same = [t for t in constant if t not in single]
    parts = []
    if same:
        parts.append(f"every model scored has the same score on {_listed(same)}")
    if single:
        parts.append(f"only one model has a score on {_listed(single)}")
    if empty:
        parts.append(f"no model has a score on {_listed(empty)}")
    return "; ".join(parts)


#: Scores may be at most this share of the largest float, over the table's larger side (see :func:`check_magnitude`).
MAGNITUDE_SHARE = 0.25


def check_magnitude(table: pd.DataFrame) -> None:
    """Refuse scores so large that adding up a row or a column, or subtracting two scores, overflows.

    The measures add up to ``max(m, n)`` scores and subtract two; with every
    score at most :data:`MAGNITUDE_SHARE` x the largest float over ``max(m, n)``
    no sum or difference overflows.  The message names the tasks beyond that.
    """
    bound = MAGNITUDE_SHARE * np.finfo(float).max / max(table.shape)
    size = np.nanmax(np.abs(table.to_numpy(dtype=float)), axis=0, initial=0.0)
    big = [t for t, v in zip(table.columns, size) if v > bound]
    if big:
        raise AuditInputError(
            f"{numbered(len(big), 'task')} {_listed(big)} {numbered(len(big), 'has', 'have')} scores beyond "
            f"{bound:.3g} in absolute value: sums of the {max(table.shape)} scores of a row or a column would "
            "overflow; rescale them (e.g. divide by 1e300)"
        )


def check_groups(groups: Any, table: pd.DataFrame) -> dict[str, str]:
    """Task -> group name, for the tasks of ``table``; every named task must be a column."""
    if groups is None:
        return {}
    mapping = {str(k): str(v) for k, v in dict(groups).items()}
    names = {str(t) for t in table.columns}
    unknown = [t for t in mapping if t not in names]
    if unknown:
        raise AuditInputError(f"groups name unknown {numbered(len(unknown), 'task')}: {', '.join(unknown[:5])}")
    return mapping


def split_costs(table: pd.DataFrame, direction: pd.Series, costs: Any) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
    """The quality tasks with their directions, and the declared cost columns (each named once, in order)."""
    names = list(dict.fromkeys([costs] if isinstance(costs, str) else list(costs or ())))
    unknown = [str(c) for c in names if c not in table.columns]
    if unknown:
        shown = ", ".join(map(str, table.columns[:12])) + (", ..." if table.shape[1] > 12 else "")
        what = numbered(len(unknown), "column")
        raise AuditInputError(f"costs name unknown {what}: {', '.join(unknown)} (columns: {shown})")
    quality = [t for t in table.columns if t not in names]
    if names and len(quality) < 2:
        raise AuditInputError(
            f"the audit needs two tasks besides the cost {numbered(len(names), 'column')} "
            f"{', '.join(map(str, names))}; "
            f"the table has {len(quality)}"
        )
    return table[quality], direction[quality], table[names]


def complete_part(table: pd.DataFrame, tol: float, constant: Any = ()) -> tuple[pd.DataFrame, list[dict], str | None]:
    """The complete part the measures see, without the tasks that are constant on it.

    A task that orders the whole table can still give every model of the
    complete part the same score; it cannot order anyone there, so it is left
    out and the complete part chosen again (models left out only for missing
    that task may come back).  Returns the part, for every task so left out
    ``{"task", "score", "n_models", "reason"}``, and ``None``; or, when no part
    of two models and two tasks remains, an empty part and the reason, naming
    the tasks (``constant``: those constant on the whole table).
    """
    flat: list[dict] = []
    dropped: set = set()
    while True:
        keep = [t for t in table.columns if t not in dropped]
        part = measured_part(table[keep]) if len(keep) >= 2 else None
        if part is None:
            return table.iloc[:0, :0], flat, _no_part(keep, [f["task"] for f in flat], list(constant))
        same = list(part.columns[constant_tasks(part.to_numpy(dtype=float), tol)])
        if not same:
            return part, flat, None
        dropped.update(same)
        flat += [
            {"task": str(t), "score": float(part[t].iloc[0]), "n_models": len(part), "reason": CONSTANT_IN_PART}
            for t in same
        ]


def _no_part(keep: list, flat: list, constant: list) -> str:
    """Why there is no complete part of two models and two tasks, naming the tasks."""
    if len(keep) >= 2:
        return "no two models are scored on the same two tasks"
    same = [*constant, *flat]
    only = f"only task {keep[0]!s} orders the models" if keep else "no task orders the models"
    if flat:
        only += " scored on every task"
    if same:
        only += f"; every model{' of that part' if flat else ''} has the same score on {_listed(same)}"
    return only + ", and the complete-data measures need two tasks"


def measured_part(table: pd.DataFrame) -> pd.DataFrame | None:
    """The complete part the measures see: drop the tasks with the most missing cells while that pays.

    Dropping the ``d`` tasks with the most missing cells (ties: later columns
    first kept) leaves the models scored on every remaining task; the part
    with the most cells wins, the fewest dropped tasks among equals.  A
    complete table is returned whole; ``None`` when no two models share two tasks.
    """
    missing = table.isna().to_numpy()
    gaps = missing.sum(axis=0)
    order = np.lexsort((np.arange(len(gaps)), -gaps))  # most missing first; among equals, earlier columns first
    kept = np.ones(len(gaps), dtype=bool)
    holes = missing.sum(axis=1)  # each model's missing cells among the kept tasks
    best: tuple[int, np.ndarray, np.ndarray] | None = None
    for dropped in range(len(order) - 1):  # keep at least two tasks
        models = holes == 0
        cells = int(models.sum()) * (len(gaps) - dropped)
        if models.sum() >= 2 and (best is None or cells > best[0]):
            best = (cells, kept.copy(), models)
        if not gaps[order[dropped]]:
            break  # every task still kept is complete: dropping more only loses cells
        kept[order[dropped]] = False
        holes -= missing[:, order[dropped]]
    return None if best is None else table.loc[table.index[best[2]], table.columns[best[1]]]


def box_eps(work: pd.DataFrame, hib: pd.Series, eps: float | None, tol: float) -> tuple[float | None, str | None]:
    """The eps of the label-noise box, and why the box is undefined (``None`` when it is defined).

    Without a given ``eps`` the default comes from the spread of the tasks; on
    tables whose spreads differ beyond what floating point holds it is 0,
    which no box accepts.
    """
    if eps is not None:
        return eps, None

    try:
        with np.errstate(over="ignore", invalid="ignore"):
            value = default_eps(work, hib, tol=tol)
    except ValueError as err:  # a task that the rank normalisation leaves constant (its gaps all within tol)
        return None, f"the default eps is undefined on the normalised table ({err}); give eps explicitly"
    if not 0.0 < value < 1.0:
        return None, (
            f"the default eps from the task spreads is {value:g} (the spreads differ beyond what floating point "
            "holds), outside (0, 1); give eps explicitly"
        )
    return value, None


def series(values: Any, labels: Any) -> dict:
    """Label -> float, for the JSON report."""
    return {str(m): v for m, v in zip(labels, np.asarray(values, dtype=float).tolist())}


def names(labels: Any) -> list[str]:
    return [str(m) for m in labels]
