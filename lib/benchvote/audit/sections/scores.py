"""The raw table beside every rule's score and rank per model: sortable in the page, exportable as CSV, Markdown or LaTeX.

Each row is a model (every model of the table, best first under the primary
rule; models that share a rank, and the models outside the complete part,
in the order of their names), with its raw scores on every task (cost columns
included, missing cells empty) and, for the models of the complete part, each
defined rule's score and rank as the ``rankings`` section computes them.
:func:`export_table` writes the same rows to a file whose extension picks the
format (:data:`TABLE_FORMATS`); names are escaped for Markdown and LaTeX.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from .._prepare import Context, names
from .._registry import Output, Section, register
from .battles import rows as battle_rows
from .rankings import by_rank

#: The file formats of :func:`export_table`, by extension.
TABLE_FORMATS = (".csv", ".md", ".tex")
#: At most this many task columns are drawn in the page (the JSON and the exported file hold them all).
PAGE_TASKS = 40


class Result(TypedDict):
    primary: str
    models: list[str]
    tasks: list[str]
    costs: list[str]
    rules: list[str]
    labels: list[str]
    raw: list[list[float | None]]
    scores: list[list[float | None]]
    ranks: list[list[float | None]]
    in_complete_part: list[bool]


def compute(ctx: Context, done: dict) -> Output:
    ranking = done["rankings"].fields
    rules = [q for q, r in ranking["rules"].items() if "undefined" not in r]
    primary = ranking["rules"][ranking["primary"]]["ranks"]
    measured = [m for m in ctx.table.index if str(m) in primary]
    rest = sorted((m for m in ctx.table.index if str(m) not in primary), key=str)
    order = by_rank(measured, [primary[str(m)] for m in measured]) + rest
    full = ctx.table.join(ctx.cost_table)
    raw = full.loc[order].to_numpy(dtype=float)

    def per_rule(key: str) -> list[list[float | None]]:
        return [[ranking["rules"][q][key].get(str(m)) for q in rules] for m in order]

    fields: Result = {
        "primary": ranking["primary"],
        "models": names(order),
        "tasks": names(ctx.table.columns),
        "costs": names(ctx.cost_table.columns),
        "rules": rules,
        "labels": [ranking["rules"][q]["label"] for q in rules],
        "raw": [[float(v) if math.isfinite(v) else None for v in row] for row in raw.tolist()],
        "scores": per_rule("scores"),
        "ranks": per_rule("ranks"),
        "in_complete_part": [str(m) in primary for m in order],
    }
    return Output(dict(fields))


def rows(s: dict) -> tuple[list[str], list[list[Any]]]:
    """The header and the rows: model, raw scores (tasks, then costs), then each rule's score and rank."""
    header = ["model", *s["tasks"], *s["costs"]]
    header += [h for label in s["labels"] for h in (f"{label} (score)", f"{label} (rank)")]
    body = [
        [m, *raw, *(v for pair in zip(sc, rk) for v in pair)]
        for m, raw, sc, rk in zip(s["models"], s["raw"], s["scores"], s["ranks"])
    ]
    return header, body


def _number(v: Any, spec: str) -> str:
    """A cell: empty when missing; a count as written; ``repr`` (every digit) for ``spec="r"``, else ``format(v, spec)``."""
    if v is None or not math.isfinite(v):
        return ""
    if isinstance(v, int):
        return str(v)
    return repr(float(v)) if spec == "r" else format(v, spec)


MARKDOWN_SPECIAL = "\\`*_{}[]<>()#+!|~$"
LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "|": r"\textbar{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def markdown_escape(text: str) -> str:
    """``text`` safe inside a Markdown table cell: special characters backslash-escaped, line breaks as spaces."""
    flat = " ".join(str(text).split("\n"))
    return "".join("\\" + c if c in MARKDOWN_SPECIAL else c for c in flat)


def latex_escape(text: str) -> str:
    """``text`` safe in LaTeX text mode: the special characters (and ``|``, ``<``, ``>``) replaced, line breaks as spaces."""
    return "".join(LATEX_SPECIAL.get(c, c) for c in " ".join(str(text).split("\n")))


def _csv(header: list[str], body: list[list[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in body:
        writer.writerow([row[0], *(_number(v, "r") for v in row[1:])])
    return out.getvalue()


def _markdown(header: list[str], body: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(markdown_escape(h) for h in header) + " |"]
    lines.append("|" + "|".join([" --- "] + [" ---: "] * (len(header) - 1)) + "|")
    for row in body:
        cells = [markdown_escape(row[0]), *(_number(v, ".6g") or "–" for v in row[1:])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _latex(header: list[str], body: list[list[Any]]) -> str:
    lines = [r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}", r"\hline"]
    lines.append(" & ".join(latex_escape(h) for h in header) + r" \\")
    lines.append(r"\hline")
    for row in body:
        lines.append(" & ".join([latex_escape(row[0]), *(_number(v, ".6g") or "--" for v in row[1:])]) + r" \\")
    lines += [r"\hline", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def table_format(path: str | Path) -> str:
    """The format of ``path`` from its extension, one of :data:`TABLE_FORMATS`; ``ValueError`` otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in TABLE_FORMATS:
        raise ValueError(
            f"--table: cannot tell the format of {Path(path).name} from its extension; use one of "
            f"{', '.join(TABLE_FORMATS)}"
        )
    return suffix


def table_text(report: dict, fmt: str) -> str:
    """The scores table of a report (:meth:`Audit.to_dict`) as CSV, Markdown or LaTeX text (``fmt``: an extension).

    A battle log's report has no scores: its table is the ratings (:func:`benchvote.audit.sections.battles.rows`).
    """
    sections = report["sections"]
    header, body = rows(sections["scores"]) if "scores" in sections else battle_rows(sections["battles"])
    return {".csv": _csv, ".md": _markdown, ".tex": _latex}[fmt](header, body)


def export_table(report: dict, path: str | Path) -> None:
    """Write the scores table of ``report`` to ``path``, in the format its extension names (:data:`TABLE_FORMATS`)."""
    Path(path).write_text(table_text(report, table_format(path)), encoding="utf-8")


TEMPLATE = """
<p>Every model with its raw scores and each rule's score and rank (1 = best; ties share the mean rank), best first
under the primary rule; models outside the complete part have raw scores only.
Sort by any column; <code>benchvote audit SCORES --table ranking.csv</code> (or <code>.md</code>, <code>.tex</code>) writes the same table to a file.
{% if hidden %}The page shows the first {{ shown }} of the {{ s.tasks|length }} task columns; the JSON and the file hold them all.{% endif %}</p>
{{ ui.table(header, body, numeric=numeric, specs=specs) }}
"""


def render(view: Any) -> str:
    s = dict(view.s)
    shown = min(len(s["tasks"]), PAGE_TASKS)
    hidden = len(s["tasks"]) > shown
    if hidden:
        s["raw"] = [row[:shown] + row[len(s["tasks"]) :] for row in s["raw"]]
        s["tasks"] = s["tasks"][:shown]
    header, body = rows(s)
    numeric = list(range(1, len(header)))
    specs = {k: ".4g" for k in numeric}
    body = [[row[0], *(np.nan if v is None else v for v in row[1:])] for row in body]
    return view.html(TEMPLATE, header=header, body=body, numeric=numeric, specs=specs, hidden=hidden, shown=shown)


SECTION = register(
    Section(
        name="scores",
        title="Scores and ranks per model, under every rule",
        chapter="elections",
        about="The raw table beside each rule's score and rank for every model, sortable by any column and "
        "exportable with --table. It shows where the rules part ways and on which tasks.",
        order=45,
        cost="O(m n) per rule: the scores and ranks already computed, copied per model",
        result=Result,
        compute=compute,
        render=render,
        needs=("rankings",),
    )
)
