"""Item-level scores held compactly: each task's models x items array, built from integer codes.

A long table of item scores (``model, task, instance, score``: one row per
model, task and test item) is read by pyarrow's columnar readers
(:func:`read_long`: CSV, TSV or Parquet), its names mapped to integer codes
(dictionary encoding) and each task's models x items array filled from the
codes in one vectorised assignment, in the smallest dtype that holds the
scores exactly (``uint8`` for right/wrong items).  No Python object is made
per row: 10 million right/wrong rows take about 10 MB once read.

:class:`Items` is what :func:`benchvote.intervals.instance_table` accepts
beside a long DataFrame; :meth:`Items.from_frame` is the plain (pandas) path
for tables given in memory, with the same checks and messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from ._validation import numbered

__all__ = ["Items", "as_items", "read_long", "Fallback"]

#: The columns of a long table of item scores.
COLUMNS = ("model", "task", "instance", "score")

#: Line breaks of :meth:`str.splitlines` that CSV readers do not split on; a name holding one takes the plain path.
_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")

#: Most distinct score texts converted one by one with Python's ``float`` (beyond: pyarrow's cast).
_PYTHON_PARSE_MAX = 200_000

_STRING = pa.dictionary(pa.int32(), pa.string())


class Fallback(Exception):
    """The columnar reader cannot take this file as it is; the plain reader reads it (and words any error)."""


@dataclass(frozen=True, eq=False)
class Items:
    """Item scores, task by task.

    Attributes
    ----------
    models : Index
        The row order of every block.
    tasks : Index
        The tasks, in the order of ``blocks``.
    blocks : mapping
        Task -> models x items array; a model without the task has a row of
        ``nan`` (the block is then of a float dtype).
    labels : mapping
        Task -> the items' names, in the order of the block's columns.
    """

    models: pd.Index
    tasks: pd.Index
    blocks: Mapping[Any, np.ndarray]
    labels: Mapping[Any, np.ndarray]

    def table(self) -> pd.DataFrame:
        """Models x tasks, each cell the model's mean over the task's items (``nan`` without the task)."""
        table = pd.DataFrame({t: _row_means(self.blocks[t]) for t in self.tasks}, index=self.models)
        table.columns = pd.Index(list(self.tasks), name="task")
        return table

    def select(self, models: Iterable, tasks: Iterable) -> Items:
        """The items of these models and tasks (order kept), without a model or task left with no score."""
        wanted_models, wanted_tasks = set(models), set(tasks)
        rows = np.array([m in wanted_models for m in self.models], dtype=bool)
        kept = [t for t in self.tasks if t in wanted_tasks and _scored(self.blocks[t][rows]).any()]
        seen = np.zeros(int(rows.sum()), dtype=bool)
        for t in kept:
            seen |= _scored(self.blocks[t][rows])
        index = np.flatnonzero(rows)[seen]
        return Items(
            self.models[index],
            pd.Index(kept, name="task"),
            {t: self.blocks[t][index] for t in kept},
            {t: self.labels[t] for t in kept},
        )

    @classmethod
    def from_frame(cls, scores: Any) -> Items:
        """Check a long DataFrame of item scores and split it by task (models and tasks in order of appearance)."""
        if not isinstance(scores, pd.DataFrame):
            raise TypeError(f"instance scores must be a DataFrame with columns {', '.join(COLUMNS)}")
        absent = [c for c in COLUMNS if c not in scores.columns]
        if absent:
            raise ValueError(f"instance scores lack the {numbered(len(absent), 'column')} {', '.join(absent)}")
        values = pd.to_numeric(scores["score"], errors="coerce")
        bad = ~np.isfinite(values.to_numpy(dtype=float))
        if bad.any():
            row = scores.loc[bad].iloc[0]
            raise ValueError(
                f"{int(bad.sum())} instance {numbered(int(bad.sum()), 'score is', 'scores are')} missing or not finite "
                f"numbers, e.g. model "
                f"{row['model']!s}, task {row['task']!s}, instance {row['instance']!s}: {row['score']!r}"
            )
        keys = scores[["model", "task", "instance"]]
        repeated = keys.duplicated()
        if repeated.any():
            row = keys.loc[repeated].iloc[0]
            raise ValueError(_repeated(row["model"], row["task"], row["instance"]))
        models = pd.Index(pd.unique(scores["model"]), name="model")
        tasks = pd.Index(pd.unique(scores["task"]), name="task")
        long = scores.assign(score=values.astype(float))
        blocks, labels = {}, {}
        for task in tasks:
            part = long[long["task"] == task].pivot(index="model", columns="instance", values="score")
            holes = part.isna().to_numpy()
            if holes.any():
                r, c = np.argwhere(holes)[0]
                raise ValueError(_hole(part.index[r], part.columns[c], task))
            blocks[task] = part.reindex(models).to_numpy(dtype=float)
            labels[task] = part.columns.to_numpy()
        return cls(models, tasks, blocks, labels)


def as_items(instances: Any, models: Iterable | None = None, tasks: Iterable | None = None) -> Items:
    """``instances`` (an :class:`Items` or a long DataFrame) as :class:`Items`, kept to these models and tasks."""
    if isinstance(instances, Items):
        if models is None and tasks is None:
            return instances
        return instances.select(instances.models if models is None else models,
                                instances.tasks if tasks is None else tasks)  # fmt: skip
    if models is not None or tasks is not None:
        keep = pd.Series(True, index=instances.index)
        if models is not None:
            keep &= instances["model"].isin(list(models))
        if tasks is not None:
            keep &= instances["task"].isin(list(tasks))
        instances = instances[keep]
    return Items.from_frame(instances)


def _scored(block: np.ndarray) -> np.ndarray:
    """Which rows of a block hold scores (a row of ``nan`` is a model without the task)."""
    if block.dtype.kind != "f" or block.shape[1] == 0:
        return np.full(block.shape[0], block.shape[1] > 0)
    return ~np.isnan(block[:, 0])


def _row_means(block: np.ndarray) -> np.ndarray:
    """Each row's mean, summed in float64 as the plain path does (so both give the same bits)."""
    block = np.asarray(block, dtype=float)
    out = np.full(block.shape[0], np.nan)
    seen = ~np.isnan(block).all(axis=1)
    out[seen] = block[seen].mean(axis=1)
    return out


def _repeated(model: Any, task: Any, item: Any) -> str:
    return f"model {model!s}, task {task!s}, instance {item!s} has more than one score"


def _hole(model: Any, item: Any, task: Any) -> str:
    return (
        f"model {model!s} has no score on instance {item!s} of task {task!s}, "
        "which other models have; instance bootstraps need every scored model on every instance"
    )


def read_long(path: Path, names: list[str], delimiter: str | None, missing: set[str]) -> Items:
    """Read a long table of item scores with pyarrow (a ``.parquet`` file, else CSV/TSV) and check it.

    ``names`` are the file's column names as its header spells them (CSV) and
    ``missing`` the lowered cell texts that mean a missing score.  The checks
    and their messages are those of the plain reader (``benchvote.cli``):
    a ``ValueError`` names the first problem, in file order.  Raises
    :class:`Fallback` when pyarrow cannot take the CSV file as it is (a row of
    the wrong length, a line break inside a name, bad UTF-8, ...): the plain
    reader then reads it and words the error.
    """
    parquet = path.suffix.lower() == ".parquet"
    table = _parquet(path) if parquet else _csv(path, names, delimiter)
    lowered = [n.strip().lower() for n in table.column_names]
    column = {name: table.column(lowered.index(name)) for name in COLUMNS}
    del table  # each column is freed once its codes are made
    codes, labels = {}, {}
    for name in ("model", "task", "instance"):
        codes[name], labels[name] = _names(column.pop(name), strict=not parquet)
    score_codes, values, flags, texts = _score_values(column.pop("score"), missing)
    _check_rows(path, codes, labels, score_codes, flags, texts)
    return _blocks(path, codes, labels, values, score_codes)


def _csv(path: Path, names: list[str], delimiter: str | None) -> pa.Table:
    try:
        table = pacsv.read_csv(
            path,
            parse_options=pacsv.ParseOptions(delimiter=delimiter or ","),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(names, _STRING), strings_can_be_null=False, quoted_strings_can_be_null=False
            ),
        )
    except (pa.ArrowException, OSError, UnicodeError) as err:
        raise Fallback(str(err)) from None
    if table.column_names != names or table.num_rows == 0:
        raise Fallback("the header is not what the plain reader read")
    return table


def _parquet(path: Path) -> pa.Table:
    try:
        schema = pq.read_schema(path)
        text = [f.name for f in schema if f.name.strip().lower() in COLUMNS[:3] and pa.types.is_string(f.type)]
        return pq.read_table(path, read_dictionary=text)  # names straight into codes, not one string per row
    except (pa.ArrowException, OSError) as err:
        raise ValueError(f"cannot read {path} as Parquet: {err}") from None


def _codes(column: pa.ChunkedArray) -> tuple[np.ndarray, list]:
    """Integer codes (-1 for a null) and the dictionary of one column."""
    if not pa.types.is_dictionary(column.type):
        column = column.dictionary_encode()
    column = pa.table({"c": column}).unify_dictionaries().column(0)
    if column.num_chunks == 0:
        return np.empty(0, dtype=np.int32), []
    parts = [chunk.indices.fill_null(-1).to_numpy(zero_copy_only=False) for chunk in column.chunks]
    return np.concatenate(parts).astype(np.int32, copy=False), column.chunk(0).dictionary.to_pylist()


def _names(column: pa.ChunkedArray, strict: bool) -> tuple[np.ndarray, list[str]]:
    """Codes into the sorted, stripped names of one column ("" for a null)."""
    if not pa.types.is_dictionary(column.type) and not pa.types.is_string(column.type):
        column = column.cast(pa.string())
    raw, dictionary = _codes(column)
    stripped = [str(n).strip() for n in dictionary] + [""]  # the last one for -1, a null
    if strict and any(_BREAKS.intersection(n) for n in stripped):
        raise Fallback("a name holds a line break")
    used = np.bincount(raw + 1, minlength=len(stripped)) > 0  # raw + 1: a null's -1 counted at 0
    sorted_names = sorted({n for n, u in zip(stripped, [*used[1:], used[0]], strict=True) if u})
    position = {n: k for k, n in enumerate(sorted_names)}
    remap = np.array([position.get(n, -1) for n in stripped], dtype=np.int32)
    return remap[raw], sorted_names


def _score_values(column: pa.ChunkedArray, missing: set[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """Each row's code, each distinct score as a float (the last entry, for a null, is ``nan``), a flag and a text.

    Flags: 0 a finite number, 1 missing, 2 not a number, 3 not finite.
    """
    codes, dictionary = _codes(column)
    values = np.full(len(dictionary) + 1, np.nan)
    flags = np.zeros(len(dictionary) + 1, dtype=np.int8)
    flags[-1] = 1
    if column.type == _STRING or pa.types.is_string(column.type):
        texts = [str(t).strip() for t in dictionary]
        for k, text in enumerate(texts):
            if text.lower() in missing:
                flags[k] = 1
                continue
            try:
                values[k] = float(text)
            except ValueError:
                flags[k] = 2
    else:
        texts = [str(t) for t in dictionary]
        values[:-1] = np.asarray(dictionary, dtype=float)
    flags[(flags == 0) & ~np.isfinite(values)] = 3
    return codes, values, flags, [*texts, ""]


def _first(mask: np.ndarray) -> int:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.size else -1


def _check_rows(path: Path, codes: dict, labels: dict, score_codes: np.ndarray, flags: np.ndarray, texts: list) -> None:
    """The plain reader's checks of each row, first problem in file order first."""
    empty = {n: labels[n].index("") if "" in labels[n] else -1 for n in ("model", "task")}
    no_name = np.zeros(len(score_codes), dtype=bool)
    for n, code in empty.items():
        if code >= 0:
            no_name |= codes[n] == code
    bad = (flags == 2) | (flags == 3)
    unreadable = bad[score_codes] if bad.any() else np.zeros(len(score_codes), dtype=bool)
    first = _first(no_name | unreadable)
    if first >= 0:
        k = first + 2
        if no_name[first]:
            which = "model" if codes["model"][first] == empty["model"] else "task"
            raise ValueError(f"{path}: line {k} has no {which} name")
        text = texts[score_codes[first]]
        word = "not a number" if flags[score_codes[first]] == 2 else "not a finite number"
        raise ValueError(f"{path}, line {k}: {text!r} is {word}")
    if (flags == 1).any():
        gap = _first((flags == 1)[score_codes])
        if gap >= 0:
            raise ValueError(f"{path}: line {gap + 2} has no score; instance scores cannot be missing")


def _blocks(path: Path, codes: dict, labels: dict, values: np.ndarray, score_codes: np.ndarray) -> Items:
    """Each task's models x items array, filled from the codes in one assignment; repeats and holes refused."""
    m, t, i = codes["model"], codes["task"], codes["instance"]
    n_models, n_tasks, n_items = len(labels["model"]), len(labels["task"]), len(labels["instance"])
    key = t.astype(np.int64)  # in place from here on: one row-sized int64 array besides the cell index
    key *= n_items
    key += i
    present: np.ndarray = np.zeros(n_tasks * n_items, dtype=bool)
    present[key] = True
    present = present.reshape(n_tasks, n_items)
    width = present.sum(axis=1)
    offset = np.concatenate([[0], np.cumsum(width * n_models)])
    flat = m.astype(np.int64)
    flat *= width.astype(np.int32)[t]
    flat += offset[t]
    np.take((np.cumsum(present, axis=1) - 1).ravel(), key, out=key)  # each row's column in its task's block
    flat += key
    del key
    seen = np.zeros(int(offset[-1]), dtype=bool)
    seen[flat] = True
    if int(seen.sum()) < len(flat):
        _refuse_repeat(path, flat, m, t, i, labels)
    dtype = _compact_dtype(values[np.bincount(score_codes, minlength=len(values)) > 0])
    cells: np.ndarray = np.zeros(int(offset[-1]), dtype=dtype)
    cells[flat] = np.where(np.isfinite(values), values, 0).astype(dtype)[score_codes]  # nan: the null slot, unused
    del flat
    blocks, item_labels = {}, {}
    item_names = np.array(labels["instance"], dtype=object)
    for k in _appearance(t, n_tasks):
        part = slice(offset[k], offset[k + 1])
        has = seen[part].reshape(n_models, width[k])
        scored = has.any(axis=1)
        holes = ~has[scored]
        if holes.any():
            r, c = np.argwhere(holes)[0]
            model = np.array(labels["model"], dtype=object)[scored][r]
            item = item_names[np.flatnonzero(present[k])][c]
            raise ValueError(f"{path}: {_hole(model, item, labels['task'][k])}")
        block = cells[part].reshape(n_models, width[k])
        if not scored.all():
            block = block.astype(np.float32 if dtype == np.uint8 else dtype)
            block[~scored] = np.nan
        blocks[labels["task"][k]] = block
        item_labels[labels["task"][k]] = item_names[np.flatnonzero(present[k])]
    tasks = pd.Index(labels["task"], name="task")
    return Items(pd.Index(labels["model"], name="model"), tasks, {t: blocks[t] for t in tasks}, item_labels)


def _compact_dtype(values: np.ndarray) -> type:
    """The smallest dtype that holds these scores exactly: uint8 for 0/1, float32 when exact, else float64."""
    if np.isin(values, (0.0, 1.0)).all():
        return np.uint8
    if (values.astype(np.float32).astype(float) == values).all():
        return np.float32
    return np.float64


def _appearance(codes: np.ndarray, n: int) -> list[int]:
    """The codes in the order of their first row (the plain reader checks the tasks in this order).

    Read a million rows at a time, only where the code changes, and stopped once every code is seen.
    """
    first = np.full(n, -1, dtype=np.int64)
    step = 1 << 20
    for start in range(0, len(codes), step):
        chunk = codes[start : start + step].astype(np.int64)
        heads = np.flatnonzero(np.diff(chunk, prepend=-1) != 0)
        values, where = np.unique(chunk[heads], return_index=True)
        new = first[values] < 0
        first[values[new]] = start + heads[where[new]]
        if (first >= 0).all():
            break
    return [int(k) for k in np.argsort(first, kind="stable")]


def _refuse_repeat(path: Path, flat: np.ndarray, m: np.ndarray, t: np.ndarray, i: np.ndarray, labels: dict) -> None:
    """Name the first row that repeats an earlier (model, task, instance) (an error path: pandas may be slow)."""
    row = int(np.flatnonzero(pd.Series(flat).duplicated().to_numpy())[0])
    names = (labels["model"][m[row]], labels["task"][t[row]], labels["instance"][i[row]])
    raise ValueError(f"{path}: {_repeated(*names)}")
