"""The command line: ``benchvote audit SCORES`` (see :func:`benchvote.audit.audit`).

``SCORES`` is a CSV or TSV file, in one of two layouts:

* **wide**: the first column holds the model names, every other column is a
  task; an empty cell, or one of the markers of :data:`NA_VALUES` (``NA``,
  ``N/A``, ``null``, ``None``, ``-``, ...; ``--na-values`` changes the list),
  is a missing score;
* **long**: columns ``model``, ``task``, ``score`` (any order, any other
  columns refused), and optionally ``instance`` for instance-level scores,
  whose task means make the table and whose redraws add an instance
  bootstrap.  A long table with ``instance`` may also be a ``.parquet``
  file; such tables are read by pyarrow into one compact models x items
  array per task (10 million right/wrong rows in seconds).

``--normalize {none,zscore,minmax,rank}`` transforms each task before the
cardinal parts of the audit; ``--cost NAME`` declares cost columns, left out
of the aggregation and shown on a quality-cost front (see
:func:`benchvote.audit.audit`).  ``--cost``, ``--lower-is-better`` and
``--higher-is-better`` can be repeated; each value is one column name when a
column has exactly that name (commas included), otherwise a comma-separated
list of names (CSV quoting allowed: ``'"a,b",c'``).  ``--lower-is-better
all`` makes every task lower-is-better but those given to
``--higher-is-better``.

Bad input (the table or the options, any bad option value included) prints
one line on stderr and exits with status 2, before any report is written:
the output paths are checked before the table is read, and the reports are
written to temporary files renamed into place once all are written.  A failure inside benchvote is
a bug: it exits with status 1 and asks for a bug report (the traceback is
printed when the environment variable ``BENCHVOTE_DEBUG`` is set to ``1``).
A failure inside one section of the audit is reported in that section of
both reports, which are written all the same; the command then exits with
status 1.
Progress goes to stderr when it is a terminal; with ``--json -`` the JSON is
the only thing written to stdout (native solver output is discarded, and the
summary, if any, goes to stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import os
import sys
import tempfile
import traceback
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from ._items import Fallback, Items, read_long
from ._repository import repository_url
from ._validation import numbered
from .audit import (
    NORMALIZATIONS,
    AuditInputError,
    audit,
    audit_battles,
    progress_bar,
    summary,
)
from .audit._budget import BUDGETS, DEFAULT_BUDGET, describe
from .audit._prepare import check_options
from .audit._rules import split_normalize
from .audit._text import plural
from .audit.sections.scores import table_format, table_text
from .intervals import instance_table
from .ranking import DEFAULT_TIE_TOLERANCE
from .rules import RULES

__all__ = ["main", "read_scores", "read_battle_log", "InputError", "NA_VALUES"]


#: Cell texts read as a missing score (compared without case); an empty cell is always missing.
NA_VALUES = ("NA", "N/A", "NaN", "null", "None", "-")

#: Longest cell the reader accepts (the csv module's default, 131,072 characters, refused long model names).
MAX_CELL = 2**31 - 1


class InputError(ValueError):
    """A problem with the input file or the options; the message names it."""


def _these(items: list, word: str) -> str:
    """ "task name appears" or "task names appear", as many as ``items``."""
    return f"{numbered(len(items), word)} {numbered(len(items), 'appears', 'appear')}"


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: {text!r} is not a number") from None
    if not np.isfinite(value):
        raise InputError(f"{where}: {text!r} is not a finite number")
    return value


@contextlib.contextmanager
def _long_cells() -> Iterator[None]:
    """Let the csv reader take cells of any length (names over 131,072 characters) while the block runs."""
    saved = csv.field_size_limit(MAX_CELL)
    try:
        yield
    finally:
        csv.field_size_limit(saved)


def _rows(path: Path) -> tuple[list[str], list[list[str]]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read {path}: {err.strerror if isinstance(err, OSError) else err}") from None
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise InputError(f"{path} is empty")
    if path.suffix.lower() == ".tsv":
        delimiter = "\t"
    elif path.suffix.lower() == ".csv":
        delimiter = ","
    else:
        delimiter = "\t" if lines[0].count("\t") > lines[0].count(",") else ","
    try:
        with _long_cells():
            rows = [
                [cell.strip() for cell in row] for row in csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)
            ]
    except csv.Error as err:
        raise InputError(f"cannot read {path} as CSV or TSV: {err}") from None
    header, body = rows[0], rows[1:]
    for k, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise InputError(f"line {k} has {len(row)} cells, the header has {len(header)}")
    return header, body


def read_scores(path: str | Path, na_values: Any = NA_VALUES) -> tuple[pd.DataFrame, pd.DataFrame | Items | None]:
    """Read a wide or long score file.

    Parameters
    ----------
    path : str or Path
        A ``.csv`` or ``.tsv`` file (another suffix: the delimiter is guessed
        from the header line), or a ``.parquet`` file holding a long table of
        item scores.  A long table with an ``instance`` column is read by
        pyarrow into compact per-task arrays (:mod:`benchvote._items`).
    na_values : sequence of str
        Cell texts read as a missing score, compared without case (default
        :data:`NA_VALUES`); an empty cell is always missing.

    Returns
    -------
    scores : DataFrame
        Models x tasks; ``nan`` where a cell is empty or a missing marker.
    instances : Items, DataFrame or None
        The item scores when the file has an ``instance`` column: an
        :class:`benchvote._items.Items` (models and tasks in the order of
        their names, whatever the order of the rows), or the long DataFrame
        when pyarrow could not take the file and the plain reader read it.

    Raises
    ------
    InputError
        Unreadable file, no model column, a cell that is not a number,
        repeated model or task names (or a repeated model-task pair), fewer
        than two models or tasks.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "board.csv")
    ...     _ = open(p, "w").write("model,t1,t2\\nA,0.9,\\nB,0.5,0.7\\n")
    ...     scores, instances = read_scores(p)
    >>> scores.to_dict("index"), instances
    ({'A': {'t1': 0.9, 't2': nan}, 'B': {'t1': 0.5, 't2': 0.7}}, None)
    """
    path = Path(path)
    missing = {"", *(str(v).strip().lower() for v in na_values)}
    fast = _columnar(path, missing)
    scores, instances = fast if fast is not None else _plain(path, missing)
    if scores.shape[0] < 2:
        raise InputError(f"{path} has {plural(scores.shape[0], 'model')}; a ranking needs at least 2")
    if scores.shape[1] < 2:
        raise InputError(f"{path} has {plural(scores.shape[1], 'task')}; the audit needs at least 2")
    return scores, instances


def _plain(path: Path, missing: set[str]) -> tuple[pd.DataFrame, pd.DataFrame | Items | None]:
    """The csv module's reader: wide tables, long tables without items, and what pyarrow cannot take."""
    header, body = _rows(path)
    lowered = [h.lower() for h in header]
    if {"task", "score"} <= set(lowered):
        return _long(path, header, lowered, body, missing)
    return _wide(path, header, body, missing), None


def _columnar(path: Path, missing: set[str]) -> tuple[pd.DataFrame, Items] | None:
    """A long table of item scores read by pyarrow (see :mod:`benchvote._items`), or None for the plain reader."""
    if path.suffix.lower() == ".parquet":
        names = _parquet_names(path)
        delimiter = None
    else:
        peeked = _peek(path)
        if peeked is None:
            return None
        names, delimiter = peeked
    header = [n.strip() for n in names]
    lowered = [h.lower() for h in header]
    if not {"task", "score", "instance"} <= set(lowered):
        if path.suffix.lower() == ".parquet":
            raise InputError(f"{path}: a Parquet file must hold a long table (columns model, task, instance, score)")
        return None
    _long_columns(path, header, lowered)
    try:
        items = read_long(path, names, delimiter, missing)
    except Fallback:
        return None
    except ValueError as err:
        raise InputError(str(err)) from None
    return items.table(), items


def _parquet_names(path: Path) -> list[str]:
    try:
        return list(pq.read_schema(path).names)
    except (OSError, pa.ArrowException) as err:
        raise InputError(f"cannot read {path} as Parquet: {err}") from None


#: The columns of a battle log (:mod:`benchvote.battles`), found in a file's header without case.
BATTLE_COLUMNS = ("model_a", "model_b", "winner")


def read_battle_log(path: str | Path) -> pd.DataFrame | None:
    """The battle log in ``path``, or None when the file is not one.

    A CSV, TSV or Parquet file whose header has the columns ``model_a``,
    ``model_b`` and ``winner`` (in any case, among any others, which are not
    read) is a battle log.  pyarrow reads the three columns as text (an
    empty cell is missing; a Parquet column of numbers, bytes or categories
    is cast to text); model names lose surrounding spaces, as in the score
    tables; the rows keep the file's order and are numbered from 1 in the
    messages of :func:`benchvote.battles.battle_counts`.

    Parameters
    ----------
    path : str or Path
        A ``.csv``, ``.tsv`` or ``.parquet`` file (another suffix: the
        delimiter is guessed from the header line, as :func:`read_scores` does).

    Returns
    -------
    DataFrame or None
        The columns ``model_a``, ``model_b``, ``winner`` as text, rows numbered from 1.

    Raises
    ------
    InputError
        A column named twice, a log without rows, a nested Parquet column, or
        a file pyarrow cannot read.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "votes.csv")
    ...     _ = open(p, "w").write("Model_A,model_b,winner,judge\\nx,y,tie,j1\\ny,x,model_a,j2\\n")
    ...     log = read_battle_log(p)
    >>> log.to_dict("list")
    {'model_a': ['x', 'y'], 'model_b': ['y', 'x'], 'winner': ['tie', 'model_a']}
    """
    path = Path(path)
    parquet = path.suffix.lower() == ".parquet"
    peeked = (_parquet_names(path), None) if parquet else _peek(path)
    if peeked is None:
        return None
    names, delimiter = peeked
    lowered = [str(n).strip().lower() for n in names]
    if not set(BATTLE_COLUMNS) <= set(lowered):
        return None
    twice = [c for c in BATTLE_COLUMNS if lowered.count(c) > 1]
    if twice:
        raise InputError(f"{path}: the battle log's header names the column {twice[0]} more than once")
    wanted = [names[lowered.index(c)] for c in BATTLE_COLUMNS]
    try:
        if parquet:
            table = _as_text(pq.read_table(path, columns=wanted), path)
        else:
            parse = pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=True)
            convert = pacsv.ConvertOptions(
                include_columns=wanted,
                column_types={w: pa.string() for w in wanted},
                null_values=[""],
                strings_can_be_null=True,
            )
            table = pacsv.read_csv(path, parse_options=parse, convert_options=convert)
    except (OSError, pa.ArrowException) as err:
        raise InputError(f"cannot read {path} as a battle log: {' '.join(str(err).split())}") from None
    if table.num_rows == 0:
        raise InputError(f"{path}: the battle log has no rows")
    frame = table.to_pandas()
    frame.columns = list(BATTLE_COLUMNS)
    frame.index = pd.RangeIndex(1, len(frame) + 1)
    for column in ("model_a", "model_b"):  # names as the score tables read them: surrounding spaces dropped
        frame[column] = frame[column].str.strip()
    return frame


def _as_text(table: pa.Table, path: Path) -> pa.Table:
    """A Parquet log's three columns as text (numbers, bytes and categories too); a nested column is refused."""
    columns = []
    for name, column in zip(table.column_names, table.columns):
        kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
        if pa.types.is_nested(kind):
            raise InputError(f"{path}: the battle log's column {name} holds {kind}, not names or winners")
        columns.append(column.cast(pa.string()))  # a dictionary column decodes on the way
    return pa.table(columns, names=table.column_names)


def _peek(path: Path) -> tuple[list[str], str] | None:
    """The header's cells as written (unstripped) and the delimiter, by the plain reader's rules; None if unsure."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            line = next((line for line in handle if line.strip()), None)
    except (OSError, UnicodeDecodeError):
        return None
    if line is None:
        return None
    line = line.rstrip("\r\n")
    if path.suffix.lower() == ".tsv":
        delimiter = "\t"
    elif path.suffix.lower() == ".csv":
        delimiter = ","
    else:
        delimiter = "\t" if line.count("\t") > line.count(",") else ","
    try:
        with _long_cells():
            rows = list(csv.reader([line], delimiter=delimiter))
    except csv.Error:
        return None
    return (rows[0], delimiter) if len(rows) == 1 else None


def _repeated(names: list[str]) -> list[str]:
    return sorted(name for name, count in Counter(names).items() if count > 1)


def _wide(path: Path, header: list[str], body: list[list[str]], missing: set[str]) -> pd.DataFrame:
    if len(header) < 2:
        raise InputError(f"{path} has one column; a wide table needs the model names and at least one task")
    models = [row[0] for row in body]
    tasks = header[1:]
    if all(_is_number(m) for m in models if m) or not any(models):
        raise InputError(
            f"{path}: the first column ({header[0]!r}) must hold the model names, but it holds numbers or nothing; "
            "add a model column (wide) or use the long layout (columns model, task, score)"
        )
    if "" in models:
        raise InputError(f"{path}: line {models.index('') + 2} has no model name")
    if "" in tasks:
        raise InputError(f"{path}: column {tasks.index('') + 2} has no task name")
    for kind, names in (("model", models), ("task", tasks)):
        twice = _repeated(names)
        if twice:
            raise InputError(f"{path}: {_these(twice, f'{kind} name')} more than once: {', '.join(twice)}")
    values = np.full((len(models), len(tasks)), np.nan)
    for i, row in enumerate(body):
        for j, cell in enumerate(row[1:]):
            if cell.lower() not in missing:
                values[i, j] = _number(cell, f"{path}, model {models[i]!r}, task {tasks[j]!r}")
    frame = pd.DataFrame(values, index=pd.Index(models, name="model"), columns=pd.Index(tasks, name="task"))
    return frame


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _long_columns(path: Path, header: list[str], lowered: list[str]) -> dict[str, int]:
    """Check the columns of a long table; each column's position."""
    if "model" not in lowered:
        raise InputError(f"{path}: a long table needs a 'model' column next to 'task' and 'score'")
    allowed = {"model", "task", "score", "instance"}
    extra = [h for h in header if h.lower() not in allowed]
    if extra:
        unknown = f"unknown {numbered(len(extra), 'column')} {', '.join(extra)}"
        raise InputError(f"{path}: {unknown} in a long table (model, task, score, instance)")
    twice = _repeated(lowered)
    if twice:
        raise InputError(f"{path}: {_these(twice, 'column')} more than once: {', '.join(twice)}")
    return {name: lowered.index(name) for name in allowed if name in lowered}


def _long(
    path: Path, header: list[str], lowered: list[str], body: list[list[str]], missing: set[str]
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    col = _long_columns(path, header, lowered)
    records = []
    for k, row in enumerate(body, start=2):
        model, task = row[col["model"]], row[col["task"]]
        if not model or not task:
            raise InputError(f"{path}: line {k} has no {'model' if not model else 'task'} name")
        cell = row[col["score"]]
        score = np.nan if cell.lower() in missing else _number(cell, f"{path}, line {k}")
        records.append((model, task, row[col["instance"]] if "instance" in col else None, score))
    long = pd.DataFrame(records, columns=["model", "task", "instance", "score"])
    if "instance" in col:
        if long["score"].isna().any():
            k = int(np.flatnonzero(long["score"].isna())[0]) + 2
            raise InputError(f"{path}: line {k} has no score; instance scores cannot be missing")
        try:
            scores, _ = instance_table(long)
        except ValueError as err:
            raise InputError(f"{path}: {err}") from None
        return scores, long
    pairs = long[["model", "task"]]
    dup = pairs.duplicated()
    if dup.any():
        m, t = pairs.loc[dup].iloc[0]
        raise InputError(f"{path}: model {m!r} has more than one score on task {t!r}")
    scores = long.pivot(index="model", columns="task", values="score")
    scores = scores.reindex(index=pd.unique(long["model"]), columns=pd.unique(long["task"]))
    scores.index.name, scores.columns.name = "model", "task"
    return scores.astype(float), None


class UsageError(InputError):
    """A bad option or option value, as argparse words it."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad option or value raises :class:`UsageError` (one line, exit 2), not the usage text."""

    def error(self, message: str) -> Any:
        raise UsageError(" ".join(message.split()))


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="benchvote", description="Social-choice measures for multi-task benchmarks.")
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser(
        "audit",
        help="audit one leaderboard: rankings, rank intervals, possible winners, sensitivity, domains",
        description="Audit one leaderboard (a wide or long CSV/TSV of scores) and write an HTML and/or JSON report.",
    )
    _input_options(a)
    _output_options(a)
    _rule_options(a)
    _budget_options(a)
    return parser


def _input_options(a: argparse.ArgumentParser) -> None:
    """The table and how to read it: the file, the tasks' directions, missing cells."""
    a.add_argument("scores", help="CSV or TSV: wide (model column, one column per task) or long (model, task, score)")
    a.add_argument(
        "--lower-is-better",
        action="append",
        default=[],
        metavar="TASK",
        help="a task where lower is better (repeatable; a value that is no column's name is read as a comma-separated "
        "list, CSV quoting allowed); 'all': every task but those of --higher-is-better",
    )
    a.add_argument(
        "--higher-is-better",
        action="append",
        default=[],
        metavar="TASK",
        help="a task where higher is better (the default; with --lower-is-better all, the exceptions; repeatable)",
    )
    a.add_argument(
        "--na-values",
        default=",".join(NA_VALUES),
        metavar="M1,M2",
        help=f"comma-separated cell texts read as missing, compared without case; an empty cell is always missing "
        f"(default {','.join(NA_VALUES)})",
    )


def _output_options(a: argparse.ArgumentParser) -> None:
    """Where the report goes: HTML, JSON and the table of every rule's ranks."""
    a.add_argument("--html", metavar="REPORT.html", help="write the self-contained HTML report here")
    a.add_argument("--json", metavar="REPORT.json", help="write every number as JSON here ('-' for stdout)")
    a.add_argument("--title", default=None, help="title of the HTML report (default: the file name)")
    a.add_argument(
        "--book-url",
        default=None,
        metavar="URL",
        help="root of the built book: each section of the HTML report links its chapter there "
        "(default: the chapter is named, not linked)",
    )
    a.add_argument("--quiet", action="store_true", help="no progress and no summary")
    a.add_argument(
        "--timings",
        action="store_true",
        help="print each section's wall-clock seconds on stderr, one line per section (never in the report files)",
    )


def _rule_options(a: argparse.ArgumentParser) -> None:
    """How the table is aggregated: the primary rule, weights, normalisation, costs."""

    a.add_argument(
        "--primary",
        default="mean_score",
        choices=list(RULES),
        help="the rule that leads the verdict (default mean_score, on the normalised, weighted table)",
    )
    a.add_argument(
        "--weights",
        default=None,
        metavar="FILE|T1=W1,T2=W2",
        help="task weights of the cardinal parts (mean score, possible winners, cardinal sensitivity): a CSV/TSV "
        "with columns task,weight or inline task=weight pairs; every task needs one",
    )
    a.add_argument(
        "--table",
        default=None,
        metavar="RANKING.csv|.md|.tex",
        help="write every model's raw scores and each rule's score and rank here (format from the extension)",
    )
    a.add_argument(
        "--normalize",
        default="none",
        metavar="{" + ",".join(NORMALIZATIONS) + "}",
        help="transform each task before the cardinal parts (mean score, possible winners, cardinal sensitivity); "
        "the ordinal parts do not change (default none)",
    )
    a.add_argument(
        "--cost",
        action="append",
        default=[],
        metavar="NAME",
        help="a cost column (lower is better): left out of the aggregation, shown on a quality-cost Pareto front "
        "(repeatable; a value that is no column's name is read as a comma-separated list)",
    )


def _budget_options(a: argparse.ArgumentParser) -> None:
    """How much work the exact and random parts may do, and what they look at."""
    a.add_argument(
        "--time-limit",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="wall-clock safety cap for each exact part (results are decided by work budgets; default 60)",
    )
    a.add_argument(
        "--budget",
        default=DEFAULT_BUDGET,
        choices=list(BUDGETS),
        help="work budgets of the exact parts (deterministic counts, never a time; the report names the level and "
        f"what it certified; default {DEFAULT_BUDGET}): " + "; ".join(describe(level) for level in BUDGETS),
    )
    a.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and the searches")
    a.add_argument("--n-boot", type=int, default=1000, help="bootstrap redraws (default 1000)")
    a.add_argument("--level", type=float, default=0.95, help="coverage of the rank intervals")
    a.add_argument("--eps", type=float, default=None, help="smallest share of intact labels (default: from the data)")
    a.add_argument("--top-k", type=int, default=3, help="k of the top-k possible winners (default 3)")
    a.add_argument(
        "--top-models",
        type=int,
        default=6,
        help="how many top models the IIA certificates, the head-to-head matrix and the domains look at (default 6)",
    )
    a.add_argument(
        "--groups",
        default=None,
        metavar="GROUPS.csv",
        help="CSV/TSV with columns task,group: each group of tasks is also audited as a sub-benchmark",
    )


def _fail(message: str) -> int:
    print(f"benchvote audit: error: {message}", file=sys.stderr)
    return 2


def _internal(err: BaseException) -> int:
    """A failure that is not the input's fault: exit 1 and ask for a bug report."""
    if os.environ.get("BENCHVOTE_DEBUG", "") not in ("", "0"):
        traceback.print_exception(type(err), err, err.__traceback__, file=sys.stderr)
    repo = repository_url()
    where = "to the benchvote authors" if repo is None else f"at {repo}/issues"
    print(
        f"benchvote audit: internal error ({type(err).__name__}: {err}). This is a bug in benchvote; please report "
        f"it {where} with the command you ran (set BENCHVOTE_DEBUG=1 to print the traceback).",
        file=sys.stderr,
    )
    return 1


@contextlib.contextmanager
def _stdout_to_stderr(active: bool) -> Iterator[None]:
    """While the block runs, send everything written to stdout (Python or native code) to stderr."""
    if not active:
        yield
        return
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _columns_hint(scores: pd.DataFrame) -> str:
    shown = ", ".join(repr(str(c)) for c in scores.columns[:12])
    return f"the table's columns: {shown}{', ...' if scores.shape[1] > 12 else ''}"


def _split(value: str) -> list[str]:
    """A comma-separated list of names; CSV quoting keeps a comma inside one name (``'"a,b",c'``)."""
    with _long_cells():
        cells = next(csv.reader([value], skipinitialspace=True), [])
    return [c.strip() for c in cells if c.strip()]


def _names_in(
    option: str, values: str | list[str], scores: pd.DataFrame, kind: str = "task", split: bool = True
) -> list[str]:
    """The column names an option gives, in order, once each; each must be a column of the table.

    Each value is one name when a column has exactly that name (commas and
    all); otherwise, with ``split``, it is read as a comma-separated list.
    The error names the first unknown name.
    """
    names: list[str] = []
    columns = {str(c) for c in scores.columns}
    for value in [values] if isinstance(values, str) else values:
        if value.strip() in columns:
            names.append(value.strip())
            continue
        parts = _split(value) if split else [value.strip()]
        unknown = [p for p in parts if p not in columns]
        if unknown:
            read = f" (read {value!r} as the list {', '.join(map(repr, parts))})" if len(parts) > 1 else ""
            raise InputError(f"{option}: the table has no {kind} named {unknown[0]!r}{read}; {_columns_hint(scores)}")
        names += parts
    return list(dict.fromkeys(names))


def _check_normalize(args: Any) -> None:

    method, model = split_normalize(args.normalize)
    if method not in NORMALIZATIONS or (method == "baseline") != bool(model):
        choices = ", ".join(n for n in NORMALIZATIONS if n != "baseline")
        raise InputError(f"--normalize must be one of {choices} or baseline:MODEL; got {args.normalize!r}")
    if args.table is not None:
        try:
            table_format(args.table)
        except ValueError as err:
            raise InputError(str(err)) from None


def _check_options(args: Any, scores: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The options that depend on the table; returns the lower-is-better tasks and the cost columns."""
    costs = _names_in("--cost", args.cost, scores, kind="column")
    higher = _names_in("--higher-is-better", args.higher_is_better, scores)
    every = [v for v in args.lower_is_better if v.strip() == "all" and "all" not in scores.columns]
    named = _names_in("--lower-is-better", [v for v in args.lower_is_better if v not in every], scores)
    for name in higher:
        if name in costs:
            raise InputError(f"--higher-is-better: {name!r} is a cost column (--cost), and costs are lower-is-better")
        if name in named:
            raise InputError(f"task {name!r} is given to both --lower-is-better and --higher-is-better")
    lower = [str(t) for t in scores.columns if t not in higher] if every else named
    return lower, costs


def _output_paths(args: Any) -> dict[str, Path]:
    """The report files, checked before anything is read or written: a writable folder, no folder, no shared path."""
    paths: dict[str, Path] = {}
    scores = Path(args.scores).resolve()
    for option, value in (("--html", args.html), ("--json", args.json), ("--table", args.table)):
        if value is None or (option == "--json" and value == "-"):
            continue
        path = Path(value).resolve()
        if path.is_dir():
            raise InputError(f"{option}: {value} is a folder; give a file name")
        if not path.parent.is_dir():
            raise InputError(f"{option}: the folder of {value} does not exist")
        if not os.access(path.parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise InputError(f"{option}: {value} cannot be written (permission denied)")
        if path == scores:
            raise InputError(f"{option}: {value} is the score table itself; give the report another name")
        for other, taken in paths.items():
            if path == taken:
                raise InputError(f"{other} and {option} name the same file ({value}); give each report its own name")
        paths[option] = path
    return paths


def _quiet(args: Any) -> bool:
    """No progress and no summary: asked for, or the JSON is the only output."""
    return bool(args.quiet or (args.json is not None and args.html is None))


def _reports(args: Any) -> tuple[Any, str | None, str | None, str | None]:
    """Read, audit and render; raises InputError or AuditInputError for bad input, anything else is a bug."""
    _check_normalize(args)
    _check_values(args)
    _output_paths(args)
    log = read_battle_log(args.scores)
    if log is not None:
        return _battle_reports(args, log)
    scores, instances = read_scores(args.scores, _split(args.na_values))
    lower, costs = _check_options(args, scores)
    hib = pd.Series([t not in lower for t in scores.columns], index=scores.columns)
    report = _run(args, scores, hib, instances, costs, _quiet(args))
    return _rendered(args, report)


#: The options that shape a table's audit, by their ``dest``: a battle log has no tasks, rules or exact parts.
TABLE_OPTIONS = (
    "lower_is_better",
    "higher_is_better",
    "na_values",
    "primary",
    "weights",
    "normalize",
    "cost",
    "time_limit",
    "budget",
    "eps",
    "top_k",
    "top_models",
    "groups",
)


def _battle_reports(args: Any, log: pd.DataFrame) -> tuple[Any, str | None, str | None, str | None]:
    """Audit a battle log: refuse the options of a table, then audit, render, and table the ratings."""
    defaults = _parser().parse_args(["audit", "--", str(args.scores)])
    given = ["--" + d.replace("_", "-") for d in TABLE_OPTIONS if getattr(args, d) != getattr(defaults, d)]
    if given:
        raise InputError(
            f"{args.scores} is a battle log (model_a, model_b, winner), which has no tasks: {', '.join(given)} "
            f"{'applies' if len(given) == 1 else 'apply'} only to a table of scores"
        )
    try:
        with progress_bar(disable=True if _quiet(args) else None, file=sys.stderr) as progress:
            report = audit_battles(log, n_boot=args.n_boot, level=args.level, seed=args.seed, progress=progress)
    except AuditInputError as err:  # one line per problem of the log, on one line
        raise InputError("; ".join(str(err).splitlines())) from None
    return _rendered(args, report)


def _rendered(args: Any, report: Any) -> tuple[Any, str | None, str | None, str | None]:
    """The report and the texts of the files asked for: HTML, JSON and the ``--table`` file."""
    title = args.title or f"Audit of {Path(args.scores).name}"
    html = report.to_html(title, book_url=args.book_url) if args.html else None
    text = report.to_json() if args.json else None
    return report, html, text, _table_text(args, report)


def _table_text(args: Any, report: Any) -> str | None:
    """The ``--table`` file's text (format from its extension, checked before the audit)."""
    if args.table is None:
        return None

    return table_text(report.to_dict(), table_format(args.table))


def _check_values(args: Any) -> None:
    """The option values that need no table, checked as the audit checks them, before the table is read."""

    scheme = urlsplit(args.book_url).scheme if args.book_url else ""
    if scheme not in ("", "http", "https", "file"):
        raise InputError(f"--book-url must be an http(s) or file address or a relative path; got {args.book_url!r}")
    o = args
    check_options(
        o.primary,
        o.normalize,
        o.n_boot,
        o.level,
        o.eps,
        o.top_k,
        o.top_models,
        o.time_limit,
        DEFAULT_TIE_TOLERANCE,
        o.seed,
        budget=o.budget,
    )


def _temporary(path: Path, text: str) -> str:
    """``text`` in a new temporary file next to ``path`` (same folder, so a rename moves it into place)."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(name, path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    return name


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write(args: Any, html: str | None, text: str | None, table: str | None = None) -> None:
    """Every report file or none: each is written to a temporary file, and all are renamed once all are written.

    A path that is not a regular file (``/dev/null``, a pipe) is written in
    place, after every temporary file is complete and before the renames.
    """
    paths = _output_paths(args)
    outputs = (("--html", html), ("--json", text), ("--table", table))
    files = [(paths[o], t) for o, t in outputs if t is not None and o in paths]
    special = [(path, t) for path, t in files if path.exists() and not path.is_file()]
    written: list[tuple[str, Path]] = []
    try:
        for path, content in files:
            if (path, content) not in special:
                written.append((_temporary(path, content), path))
        for path, content in special:
            with path.open("w", encoding="utf-8") as out:
                out.write(content)
        for name, path in written:
            os.replace(name, path)
    finally:
        for name, _ in written:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)
    if text is not None and args.json == "-":
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``benchvote``; returns the exit status (0 done, 1 a bug in benchvote, 2 bad input).

    Parameters
    ----------
    argv : list of str, optional
        Arguments after the program name (default ``sys.argv[1:]``).

    Examples
    --------
    >>> main(["audit", "no-such-file.csv"])
    2
    """
    try:
        args = _parser().parse_args(argv)
    except UsageError as err:  # a bad option or value: one line, not argparse's usage
        return _fail(str(err))
    except SystemExit as exit_:  # --help has printed its text
        return int(exit_.code or 0)

    to_stdout = args.json == "-"
    try:
        with _stdout_to_stderr(to_stdout):  # with --json -, stdout holds the JSON and nothing else
            report, html, text, table = _reports(args)
    except (InputError, AuditInputError) as err:
        return _fail(str(err))
    except Exception as err:  # not the input's fault: a bug, reported as one
        return _internal(err)
    try:
        _write(args, html, text, table)
    except OSError as err:
        return _fail(f"cannot write the report: {err}")
    if not _quiet(args):
        print(summary(report.to_dict()), file=sys.stderr if to_stdout else sys.stdout)
    if args.timings:
        _print_timings(report.timings)
    return _failed_sections(report)


def _failed_sections(report: Any) -> int:
    """After the report is written: a section that failed is a bug (exit 1), named on stderr; else 0."""
    if not report.errors:
        return 0
    for name, err in report.errors.items():
        if os.environ.get("BENCHVOTE_DEBUG", "") not in ("", "0"):
            traceback.print_exception(type(err), err, err.__traceback__, file=sys.stderr)
        repo = repository_url()
        where = "to the benchvote authors" if repo is None else f"at {repo}/issues"
        print(
            f"benchvote audit: internal error in the {name} section ({type(err).__name__}: {err}); the rest of the "
            f"report is written. This is a bug in benchvote; please report it {where} with the command you ran "
            "(set BENCHVOTE_DEBUG=1 to print the traceback).",
            file=sys.stderr,
        )
    return 1


def _print_timings(timings: dict[str, float]) -> None:
    """One line per section on stderr: its name and wall-clock seconds (the report files never hold a clock)."""
    for name, seconds in timings.items():
        print(f"benchvote audit: timing: {name} {seconds:.3f} s", file=sys.stderr)


def _groups(path: str | None, scores: pd.DataFrame) -> dict[str, str] | None:
    """The ``--groups`` file: a CSV or TSV with columns ``task`` and ``group``; every task must be a column."""
    if path is None:
        return None
    file = Path(path)
    if not file.is_file():
        raise InputError(f"--groups: no such file: {path}")
    try:
        with _long_cells():
            frame = pd.read_csv(file, sep=None, engine="python", dtype=str)
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError, csv.Error) as err:
        raise InputError(f"--groups: cannot read {path} as CSV or TSV ({err})") from None
    frame.columns = [str(c).strip().lower() for c in frame.columns]
    if not {"task", "group"} <= set(frame.columns):
        raise InputError(f"--groups: {path} needs the columns task and group; it has {', '.join(frame.columns)}")
    frame = frame.dropna(subset=["task", "group"])
    _names_in("--groups", list(frame["task"]), scores, split=False)
    repeated = frame["task"][frame["task"].duplicated()]
    if len(repeated):
        raise InputError(f"--groups: task {repeated.iloc[0]!r} is listed more than once")
    return dict(zip(frame["task"], frame["group"]))


def _weights(text: str | None, scores: pd.DataFrame) -> dict[str, float] | None:
    """``--weights``: a CSV/TSV file with columns task and weight, or inline ``task=weight`` pairs."""
    if text is None:
        return None
    if Path(text).is_file():
        try:
            frame = pd.read_csv(text, sep=None, engine="python", dtype=str)
        except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as err:
            raise InputError(f"--weights: cannot read {text} as CSV or TSV ({err})") from None
        frame.columns = [str(c).strip().lower() for c in frame.columns]
        if not {"task", "weight"} <= set(frame.columns):
            raise InputError(f"--weights: {text} needs the columns task and weight; it has {', '.join(frame.columns)}")
        pairs = list(zip(frame["task"].fillna(""), frame["weight"].fillna("")))
    else:
        if "=" not in text:
            raise InputError(f"--weights: no such file, and not task=weight pairs: {text}")
        pairs = [(p.rsplit("=", 1)[0], p.rsplit("=", 1)[1] if "=" in p else "") for p in text.split(",") if p.strip()]
    out: dict[str, float] = {}
    for task, weight in pairs:
        task = str(task).strip()
        if task in out:
            raise InputError(f"--weights: task {task!r} is given more than one weight")
        out[task] = _number(str(weight).strip(), f"--weights, task {task!r}")
    unknown = [t for t in out if t not in scores.columns]
    if unknown:
        raise InputError(f"--weights names unknown {numbered(len(unknown), 'task')}: {', '.join(unknown[:5])}")
    return out


def _run(
    args: Any,
    scores: pd.DataFrame,
    hib: pd.Series,
    instances: pd.DataFrame | Items | None,
    costs: list[str],
    quiet: bool,
) -> Any:

    groups = _groups(args.groups, scores)
    with progress_bar(disable=True if quiet else None, file=sys.stderr) as progress:
        report = audit(
            scores,
            hib,
            instances=instances,
            primary=args.primary,
            normalize=args.normalize,
            weights=_weights(args.weights, scores),
            costs=costs,
            groups=groups,
            n_boot=args.n_boot,
            level=args.level,
            eps=args.eps,
            top_k=args.top_k,
            top_models=args.top_models,
            time_limit=args.time_limit,
            seed=args.seed,
            budget=args.budget,
            progress=progress,
        )
    return report


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
