"""The command line: ``benchvote audit SCORES`` (see :func:`benchvote.audit.audit`).

``SCORES`` is a CSV or TSV file, in one of two layouts:

* **wide**: the first column holds the model names, every other column is a
  task; an empty cell is a missing score;
* **long**: columns ``model``, ``task``, ``score`` (any order, any other
  columns refused), and optionally ``instance`` for instance-level scores,
  whose task means make the table and whose redraws add an instance
  bootstrap.

``--normalize {none,zscore,minmax,rank}`` transforms each task before the
cardinal parts of the audit; ``--cost NAME[,NAME...]`` declares cost columns,
left out of the aggregation and shown on a quality-cost front (see
:func:`benchvote.audit.audit`).

Bad input (the table or the options) prints one line on stderr and exits
with status 2, before any report is written.  A failure inside benchvote is
a bug: it exits with status 1 and asks for a bug report (the traceback is
printed when the environment variable ``BENCHVOTE_DEBUG`` is set to ``1``).
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
import traceback
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["main", "read_scores", "InputError"]

#: Where a failure inside benchvote should be reported.
BUG_REPORTS = "https://github.com/benchvote/benchvote/issues"


class InputError(ValueError):
    """A problem with the input file or the options; the message names it."""


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: {text!r} is not a number") from None
    if not np.isfinite(value):
        raise InputError(f"{where}: {text!r} is not a finite number")
    return value


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
    reader = csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)
    rows = [[cell.strip() for cell in row] for row in reader]
    header, body = rows[0], rows[1:]
    for k, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise InputError(f"line {k} has {len(row)} cells, the header has {len(header)}")
    return header, body


def read_scores(path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Read a wide or long score file.

    Parameters
    ----------
    path : str or Path
        A ``.csv`` or ``.tsv`` file (another suffix: the delimiter is guessed
        from the header line).

    Returns
    -------
    scores : DataFrame
        Models x tasks; ``nan`` where a cell is empty.
    instances : DataFrame or None
        The long instance scores when the file has an ``instance`` column.

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
    header, body = _rows(path)
    lowered = [h.lower() for h in header]
    instances = None
    if {"task", "score"} <= set(lowered):
        scores, instances = _long(path, header, lowered, body)
    else:
        scores = _wide(path, header, body)
    if scores.shape[0] < 2:
        raise InputError(f"{path} has {scores.shape[0]} model(s); a ranking needs at least 2")
    if scores.shape[1] < 2:
        raise InputError(f"{path} has {scores.shape[1]} task(s); the audit needs at least 2")
    return scores, instances


def _repeated(names: list[str]) -> list[str]:
    return sorted(name for name, count in Counter(names).items() if count > 1)


def _wide(path: Path, header: list[str], body: list[list[str]]) -> pd.DataFrame:
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
            raise InputError(f"{path}: {kind} name(s) appear more than once: {', '.join(twice)}")
    values = np.full((len(models), len(tasks)), np.nan)
    for i, row in enumerate(body):
        for j, cell in enumerate(row[1:]):
            if cell != "" and cell.upper() not in ("NA", "NAN"):
                values[i, j] = _number(cell, f"{path}, model {models[i]!r}, task {tasks[j]!r}")
    frame = pd.DataFrame(values, index=pd.Index(models, name="model"), columns=pd.Index(tasks, name="task"))
    return frame


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _long(
    path: Path, header: list[str], lowered: list[str], body: list[list[str]]
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    if "model" not in lowered:
        raise InputError(f"{path}: a long table needs a 'model' column next to 'task' and 'score'")
    allowed = {"model", "task", "score", "instance"}
    extra = [h for h in header if h.lower() not in allowed]
    if extra:
        raise InputError(f"{path}: unknown column(s) {', '.join(extra)} in a long table (model, task, score, instance)")
    twice = _repeated(lowered)
    if twice:
        raise InputError(f"{path}: column(s) appear more than once: {', '.join(twice)}")
    col = {name: lowered.index(name) for name in allowed if name in lowered}
    records = []
    for k, row in enumerate(body, start=2):
        model, task = row[col["model"]], row[col["task"]]
        if not model or not task:
            raise InputError(f"{path}: line {k} has no {'model' if not model else 'task'} name")
        cell = row[col["score"]]
        score = np.nan if cell == "" or cell.upper() in ("NA", "NAN") else _number(cell, f"{path}, line {k}")
        records.append((model, task, row[col["instance"]] if "instance" in col else None, score))
    long = pd.DataFrame(records, columns=["model", "task", "instance", "score"])
    if "instance" in col:
        from .intervals import instance_table

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


def _parser() -> argparse.ArgumentParser:
    from .audit import AUDIT_RULES, NORMALIZATIONS

    parser = argparse.ArgumentParser(prog="benchvote", description="Social-choice measures for multi-task benchmarks.")
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser(
        "audit",
        help="audit one leaderboard: rankings, rank intervals, possible winners, sensitivity, domains",
        description="Audit one leaderboard (a wide or long CSV/TSV of scores) and write an HTML and/or JSON report.",
    )
    a.add_argument("scores", help="CSV or TSV: wide (model column, one column per task) or long (model, task, score)")
    a.add_argument("--lower-is-better", default="", metavar="T1,T2", help="comma-separated tasks where lower is better")
    a.add_argument("--html", metavar="REPORT.html", help="write the self-contained HTML report here")
    a.add_argument("--json", metavar="REPORT.json", help="write every number as JSON here ('-' for stdout)")
    a.add_argument("--primary", default="mean_win_rate", choices=list(AUDIT_RULES), help="the rule that leads")
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
        metavar="NAME[,NAME...]",
        help="cost columns (lower is better): left out of the aggregation, shown on a quality-cost Pareto front",
    )
    a.add_argument(
        "--time-limit",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="wall-clock safety cap for each exact part (results are decided by work budgets; default 60)",
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
    a.add_argument("--title", default=None, help="title of the HTML report (default: the file name)")
    a.add_argument("--quiet", action="store_true", help="no progress and no summary")
    a.add_argument(
        "--timings",
        action="store_true",
        help="print each section's wall-clock seconds on stderr, one line per section (never in the report files)",
    )
    return parser


def _fail(message: str) -> int:
    print(f"benchvote audit: error: {message}", file=sys.stderr)
    return 2


def _internal(err: BaseException) -> int:
    """A failure that is not the input's fault: exit 1 and ask for a bug report."""
    if os.environ.get("BENCHVOTE_DEBUG", "") not in ("", "0"):
        traceback.print_exception(type(err), err, err.__traceback__, file=sys.stderr)
    print(
        f"benchvote audit: internal error ({type(err).__name__}: {err}). This is a bug in benchvote; please report "
        f"it at {BUG_REPORTS} with the command you ran (set BENCHVOTE_DEBUG=1 to print the traceback).",
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


def _names_in(option: str, text: str, scores: pd.DataFrame, kind: str = "task") -> list[str]:
    """The comma-separated column names of an option, each of which must be a column of the table."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in names if t not in scores.columns]
    if unknown:
        raise InputError(
            f"{option} names unknown {kind}(s): {', '.join(unknown)} "
            f"(columns: {', '.join(map(str, scores.columns[:12]))}{', ...' if scores.shape[1] > 12 else ''})"
        )
    return names


def _check_normalize(args: Any) -> None:
    from .audit import NORMALIZATIONS

    if args.normalize not in NORMALIZATIONS:
        raise InputError(f"--normalize must be one of {', '.join(NORMALIZATIONS)}; got {args.normalize!r}")


def _check_options(args: Any, scores: pd.DataFrame) -> tuple[list[str], list[str]]:
    """The options that depend on the table; returns the lower-is-better tasks and the cost columns."""
    lower = _names_in("--lower-is-better", args.lower_is_better, scores)
    costs = list(dict.fromkeys(_names_in("--cost", ",".join(args.cost), scores, kind="column")))
    for name, value in (("--html", args.html), ("--json", args.json)):
        if value and value != "-" and not Path(value).parent.resolve().is_dir():
            raise InputError(f"{name}: the folder of {value} does not exist")
    return lower, costs


def _quiet(args: Any) -> bool:
    """No progress and no summary: asked for, or the JSON is the only output."""
    return bool(args.quiet or (args.json is not None and args.html is None))


def _reports(args: Any) -> tuple[Any, str | None, str | None]:
    """Read, audit and render; raises InputError or AuditInputError for bad input, anything else is a bug."""
    _check_normalize(args)
    scores, instances = read_scores(args.scores)
    lower, costs = _check_options(args, scores)
    hib = pd.Series([t not in lower for t in scores.columns], index=scores.columns)
    report = _run(args, scores, hib, instances, costs, _quiet(args))
    html = report.to_html(args.title or f"Audit of {Path(args.scores).name}") if args.html else None
    text = report.to_json() if args.json else None
    return report, html, text


def _write(args: Any, html: str | None, text: str | None) -> None:
    if html is not None:
        Path(args.html).write_text(html, encoding="utf-8")
    if text is not None and args.json != "-":
        Path(args.json).write_text(text, encoding="utf-8")
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
    except SystemExit as exit_:  # argparse has printed its message
        return int(exit_.code or 0)
    from .audit import AuditInputError

    to_stdout = args.json == "-"
    try:
        with _stdout_to_stderr(to_stdout):  # with --json -, stdout holds the JSON and nothing else
            report, html, text = _reports(args)
    except (InputError, AuditInputError) as err:
        return _fail(str(err))
    except Exception as err:  # not the input's fault: a bug, reported as one
        return _internal(err)
    try:
        _write(args, html, text)
    except OSError as err:
        return _fail(f"cannot write the report: {err}")
    if not _quiet(args):
        print(summary(report.to_dict()), file=sys.stderr if to_stdout else sys.stdout)
    if args.timings:
        _print_timings(report.timings)
    return 0


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
        frame = pd.read_csv(file, sep=None, engine="python", dtype=str)
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as err:
        raise InputError(f"--groups: cannot read {path} as CSV or TSV ({err})") from None
    frame.columns = [str(c).strip().lower() for c in frame.columns]
    if not {"task", "group"} <= set(frame.columns):
        raise InputError(f"--groups: {path} needs the columns task and group; it has {', '.join(frame.columns)}")
    frame = frame.dropna(subset=["task", "group"])
    _names_in("--groups", ",".join(frame["task"]), scores)
    repeated = frame["task"][frame["task"].duplicated()]
    if len(repeated):
        raise InputError(f"--groups: task {repeated.iloc[0]!r} is listed more than once")
    return dict(zip(frame["task"], frame["group"]))


def _run(
    args: Any, scores: pd.DataFrame, hib: pd.Series, instances: pd.DataFrame | None, costs: list[str], quiet: bool
) -> Any:
    from .audit import audit, progress_bar

    groups = _groups(args.groups, scores)
    with progress_bar(disable=True if quiet else None, file=sys.stderr) as progress:
        report = audit(
            scores,
            hib,
            instances=instances,
            primary=args.primary,
            normalize=args.normalize,
            costs=costs,
            groups=groups,
            n_boot=args.n_boot,
            level=args.level,
            eps=args.eps,
            top_k=args.top_k,
            top_models=args.top_models,
            time_limit=args.time_limit,
            seed=args.seed,
            progress=progress,
        )
    return report


def summary(report: dict) -> str:
    """The lines the command prints: the table's size and the verdict (:func:`benchvote.audit.summary`)."""
    from .audit import summary as verdict

    return verdict(report)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
