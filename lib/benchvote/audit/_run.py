"""The audit itself: check the options, prepare the table, run every section of the registry, write the verdict."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from tqdm.std import tqdm

from ..ranking import DEFAULT_TIE_TOLERANCE
from ..rules import RuleUndefined
from ._budget import BUDGETS, DEFAULT_BUDGET
from ._errors import AuditInputError
from ._prepare import Context, check_options, prepare, prepare_battles
from ._registry import Output, Section, Sentence, section_registry
from ._text import plural

#: Work budget of the exact box search in the cardinal section at the default level (boxes evaluated).
BOX_WORK = BUDGETS[DEFAULT_BUDGET].box_search_boxes
#: Work budget of each mixed-integer program of the audit at the default level (branch-and-bound nodes).
MILP_NODES = BUDGETS[DEFAULT_BUDGET].milp_nodes
#: What the report says of a part that ended unfinished, by the budget (``stopped``) that ended it.
STOPPED = {
    "work_limit": "a program reached its work budget; the same table, options and budget level give this answer "
    "on every run (a higher level, such as --budget thorough, searches further)",
    "time_limit": "the wall-clock safety cap stopped a program: this answer may differ on another machine",
    "solver": "the solver ended a program unfinished; its model is left undecided",
}

#: A section's ``status``: computed, not applicable to this table (``reason`` says why), or failed (a bug;
#: ``reason`` and ``error`` say what failed, the report is written all the same).
OK, NOT_APPLICABLE, ERROR = "ok", "not_applicable", "error"
STATUS_TEXT = {NOT_APPLICABLE: "is not computed on this {input}", ERROR: "failed (a bug in benchvote)"}
#: How the report names its input, by :attr:`Context.kind`.
INPUT_NAMES = {"table": "table", "battles": "battle log"}
#: The keys every section has, set by the audit; no section's own field may use them.
RESERVED = frozenset({"title", "about", "chapter", "cost", "status", "reason", "error"})
#: Longest error message a failed section quotes.
MESSAGE_CHARS = 300


@dataclass(frozen=True)
class Step:
    """What :func:`audit` tells its ``progress`` callback before each section: which, and how many in all."""

    name: str
    title: str
    index: int
    total: int


@dataclass
class Audit:
    """The report of :func:`audit`.

    Attributes
    ----------
    sections : dict
        Section name -> dict of plain numbers, strings and lists (the section's
        typed result, see :data:`benchvote.audit.SECTIONS`); every section has
        ``title``, ``about``, ``chapter``, ``cost`` (its cost class) and ``status``.  ``status``
        is ``"ok"`` (the typed result follows), ``"not_applicable"`` (``reason``
        says why the table does not allow it) or ``"error"`` (a bug in
        benchvote: ``reason`` and ``error`` say what failed).
    settings : dict
        The options the audit ran with.
    verdict : list of dict
        The opening sentences, each ``{"section", "text"}``.
    errors : dict
        Section name -> the exception of each section that failed (a bug in
        benchvote, also stated in that section: ``status`` ``"error"``).
    results : dict
        The library objects behind the sections, for further work:
        ``"scores"`` and ``"higher_is_better"`` (the complete part), ``"cardinal_scores"``
        (that part normalised), ``"order"`` (its models, best first under the primary rule),
        ``"primary_scores"``, ``"intervals"`` (:class:`benchvote.intervals.RankIntervals`),
        ``"possible_winners"`` and ``"cardinal"`` (the sensitivity result), when computed.
    timings : dict
        Section name -> wall-clock seconds of its computation.  Never part of
        :meth:`to_dict`, :meth:`to_json` or :meth:`to_html`, so the same table,
        options and seed give byte-identical files (``benchvote audit --timings``
        prints them on stderr).
    """

    sections: dict
    settings: dict
    verdict: list = field(default_factory=list)
    results: dict = field(default_factory=dict, repr=False)
    timings: dict = field(default_factory=dict, repr=False)
    errors: dict = field(default_factory=dict, repr=False)

    @property
    def failed(self) -> list[str]:
        """The sections that failed (a bug in benchvote), in report order."""
        return [name for name, sec in self.sections.items() if sec.get("status") == ERROR]

    def to_dict(self) -> dict:
        """Everything as JSON-ready builtins (``nan`` becomes ``None``)."""
        from .. import __version__  # the package's __init__ imports the audit: read when a report is made

        return plain(
            {"benchvote": __version__, "settings": self.settings, "verdict": self.verdict, "sections": self.sections}
        )

    def to_json(self, indent: int | None = 1) -> str:
        """The report as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def to_html(self, title: str = "Leaderboard audit", book_url: str | None = None) -> str:
        """The report as one self-contained HTML page (figures inline, explorables included, no network).

        ``book_url`` is the root of the built book: each section then links its
        chapter's page; without it, the chapter is named, not linked.
        """
        from ._html import render_page  # a cycle: the page imports this module's section states

        return render_page(self, title, book_url)

    def summary(self) -> list[str]:
        """The verdict as plain sentences: what the command prints and the chapter shows."""
        return [s["text"] for s in self.verdict]


def plain(x: Any) -> Any:
    """``x`` as JSON-ready builtins; a non-finite float becomes ``None``."""
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, pd.Series):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return [plain(v) for v in x.tolist()]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return None if not math.isfinite(float(x)) else float(x)
    if x is None or isinstance(x, str):
        return x
    return str(x)


def audit(
    scores: Any,
    higher_is_better: Any = True,
    *,
    instances: Any = None,
    primary: str = "mean_score",
    normalize: str = "none",
    weights: Any = None,
    costs: Any = (),
    groups: Any = None,
    n_boot: int = 1000,
    level: float = 0.95,
    eps: float | None = None,
    top_k: int = 3,
    top_models: int = 6,
    time_limit: float = 60.0,
    tol: float = DEFAULT_TIE_TOLERANCE,
    seed: int = 0,
    budget: str = DEFAULT_BUDGET,
    progress: Callable[[Step], None] | None = None,
) -> Audit:
    r"""Run every measure of the book on one leaderboard.

    Parameters
    ----------
    scores : DataFrame or Leaderboard, shape (m, n)
        Models x tasks, labelled; ``nan`` marks a missing score.
    higher_is_better : bool or sequence of bool
        Direction of every task.
    instances : DataFrame or Items, optional
        Long instance scores (columns ``model``, ``task``, ``instance``,
        ``score``) behind ``scores``, or the compact per-task arrays the
        command line's reader builds (:class:`benchvote._items.Items`); adds
        the instance bootstrap.
    primary : str
        The rule that leads the report (the verdict's first sentence names its
        leader) and ranks the bootstrap redraws, one of :data:`benchvote.rules.RULES`
        (default ``"mean_score"``, the aggregate most leaderboards publish; on
        the normalised, weighted table when ``normalize`` or ``weights`` is given).
    normalize : {"none", "zscore", "minmax", "rank", "baseline:MODEL"}
        How each measured task is transformed before the cardinal parts (the
        mean score, possible winners, cardinal sensitivity and default eps);
        see :data:`NORMALIZATIONS`.  ``baseline:MODEL`` divides each task by
        that model's score (it must be positive).  The ordinal parts do not
        depend on it.
    weights : mapping, optional
        Task -> positive weight, for every task (cost columns apart): the
        published weighting.  Every cardinal part starts from it: the mean
        (and geometric mean) score, the possible winners' box (weights relative
        to it), the cardinal sensitivity's starting ranking, the bootstrap's
        one-task scores.  The ordinal rules compare task by task and ignore it.
    costs : sequence of str, or str
        Cost columns (parameters, FLOPs, ...): left out of every aggregation
        and shown against the primary score in the ``pareto`` section; always
        lower-is-better, whatever ``higher_is_better`` says for them.
    groups : mapping, optional
        Task -> group name; the ``groups`` section audits each group as a sub-benchmark.
    n_boot : int
        Bootstrap redraws.
    level : float in (0, 1)
        Coverage of the rank intervals.
    eps : float in (0, 1), optional
        Smallest share of intact labels in the label-noise box (default
        :func:`benchvote.sensitivity.default_eps`).
    top_k : int
        The k of "can it reach the top k?" (at least 2; capped below the number of models).
    top_models : int
        How many of the primary ranking's top models the IIA certificates,
        the head-to-head matrix and the domain tests look at.
    time_limit : float
        A wall-clock safety cap in seconds for each exact part.  Results are
        decided by work budgets (``budget``), so the same table, options and
        seed give the same report on every run and machine; a part that the
        cap stops says so (``stopped``).
    tol : float
        Tie tolerance of the rankings.
    seed : int
        Seed of the bootstrap and of the searches.
    budget : {"quick", "standard", "thorough"}
        The level of work budgets of the exact parts
        (:data:`benchvote.audit.BUDGETS`: boxes of the box search, pair-steps
        of the coordinate search, nodes of each mixed-integer program, ...).
        ``"standard"`` keeps tables of a few hundred models and a hundred tasks
        to seconds; ``"thorough"`` searches further for certificates.  The
        report names the level and says which parts a budget stopped.
    progress : callable, optional
        Called with a :class:`Step` before each section runs.

    Returns
    -------
    Audit

    Raises
    ------
    AuditInputError
        (a ``ValueError``) Only input that cannot be audited at all: fewer than
        two models with a score or two tasks with one (cost columns apart),
        every task constant, scores too large to add up, an unknown ``primary``
        or ``normalize``, a cost or group that is not a column, a primary rule
        undefined on the table, an option out of range.  A measure that is not
        defined on the table does not raise: its section says why (``status``
        ``"not_applicable"`` and ``reason``), and so do the sections that build
        on it or on the complete part when the table has none.  An unexpected
        error inside a section does not raise either: the section reports it
        (``status`` ``"error"``, see :attr:`Audit.errors`) and the others stand.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"t1": [3.0, 2.0, 1.0], "t2": [1.0, 3.0, 2.0], "t3": [2.0, 3.0, 1.0]},
    ...                  index=["A", "B", "C"])
    >>> a = audit(s, n_boot=50)
    >>> a.sections["rankings"]["ranking"]
    ['B', 'A', 'C']
    >>> a.sections["possible_winners"]["possible"]
    ['B', 'A']
    """
    options = check_options(
        primary, normalize, n_boot, level, eps, top_k, top_models, time_limit, tol, seed, weights=weights, budget=budget
    )
    ctx = prepare(scores, higher_is_better, options, costs, instances, groups)
    return _audit(ctx, progress)


def audit_battles(
    battles: Any,
    *,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    progress: Callable[[Step], None] | None = None,
) -> Audit:
    """Audit a pairwise battle log, as arena leaderboards publish: the sections that read one.

    A battle log has no tasks, so the sections that compare tasks do not
    run; the report holds the log and its Bradley-Terry ratings with their
    bootstrap intervals (section ``battles``), and every pair of models
    compared with simultaneous rank sets and tiers (section ``comparisons``).

    Parameters
    ----------
    battles : DataFrame
        One row per battle, columns ``model_a``, ``model_b`` and ``winner``
        (:func:`benchvote.battles.battle_counts` lists the spellings).
    n_boot : int
        Bootstrap redraws of the battles (at least 2).
    level : float in (0, 1)
        Coverage of the marginal intervals and of the simultaneous rank sets.
    seed : int
        Seed of the redraws.
    progress : callable, optional
        Called with a :class:`Step` before each section runs.

    Returns
    -------
    Audit

    Raises
    ------
    AuditInputError
        A log that cannot be read as battles (one line per problem: a missing
        column, an unknown winner, a row without a model, a model playing
        itself, fewer than two models, groups that never met), or an option
        out of range.

    Examples
    --------
    >>> log = pd.DataFrame({"model_a": ["x", "y", "z"] * 30, "model_b": ["y", "z", "x"] * 30,
    ...                     "winner": ["model_a"] * 60 + ["model_b", "model_a", "tie"] * 10})
    >>> a = audit_battles(log, n_boot=100)
    >>> a.sections["battles"]["order"], a.sections["comparisons"]["tiers"]
    (['y', 'x', 'z'], [['y', 'x'], ['z']])
    """
    options = check_options(
        "mean_score", "none", n_boot, level, None, 3, 6, 60.0, DEFAULT_TIE_TOLERANCE, seed, budget=DEFAULT_BUDGET
    )
    if options.n_boot < 2:
        raise AuditInputError("n_boot must be at least 2 for a battle log's bootstrap")
    return _audit(prepare_battles(battles, options), progress)


def _audit(ctx: Context, progress: Callable[[Step], None] | None) -> Audit:
    """Run the sections planned for ``ctx`` in report order, and write the verdict."""
    planned = _plan(ctx)
    done: dict[str, Output] = {}
    report: dict[str, dict] = {}
    errors: dict[str, BaseException] = {}
    timings: dict[str, float] = {}
    for k, section in enumerate(planned):
        if progress is not None:
            progress(Step(section.name, section.title, k, len(planned)))
        start = time.perf_counter()
        report[section.name] = _run_section(section, ctx, done, report, errors)
        timings[section.name] = time.perf_counter() - start
    results: dict[str, Any] = {}
    if ctx.kind == "table":
        results.update(scores=ctx.work, higher_is_better=ctx.hib, cardinal_scores=ctx.cardinal)
    for out in done.values():
        results.update(out.objects)
    verdict = _verdict(planned, report, errors)
    return Audit(
        sections=report, settings=_settings(ctx), verdict=verdict, results=results, timings=timings, errors=errors
    )


def _plan(ctx: Context) -> list[Section]:
    """The sections that run on this table and these options, in report order.

    A section whose own condition fails is planned all the same, so that its
    failure is reported in its place.
    """
    planned = []
    for section in section_registry().values():
        if ctx.kind not in section.reads:
            continue
        try:
            runs = bool(section.when(ctx))
        except Exception:  # noqa: BLE001 - compute will meet the same failure and report it as this section's bug
            runs = True
        if runs:
            planned.append(section)
    return planned


def _not_applicable(section: Section, ctx: Context, report: dict[str, dict]) -> str | None:
    """Why ``section`` cannot be computed before it is tried: no complete part, or a section it builds on."""
    if section.complete_part and ctx.kind == "table" and ctx.part_undefined is not None:
        return f"it measures the complete part of the table, and there is none: {ctx.part_undefined}"
    registry = section_registry()
    for need in section.needs:
        if need in registry and ctx.kind not in registry[need].reads:
            continue  # that section reads the other kind of input
        sec = report.get(need)
        if sec is None or sec["status"] != OK:
            why = "does not run on this {input}" if sec is None else STATUS_TEXT[sec["status"]]
            why = why.format(input=INPUT_NAMES[ctx.kind])
            title = sec["title"] if sec is not None else need
            return f"it builds on the section {title!r}, which {why}"
    return None


def failure(section: str, err: BaseException, where: str = "") -> dict:
    """The fields of a section that failed: a bug in benchvote, said in its place (the traceback is not shown)."""
    message = f"{type(err).__name__}: {err}"
    if len(message) > MESSAGE_CHARS:
        message = message[: MESSAGE_CHARS - 3] + "..."
    return {
        "status": ERROR,
        "reason": f"a bug in benchvote: the {section} section failed{where} ({message}); the other sections are "
        "not affected; please report it with the command you ran",
        "error": message,
    }


def _run_section(
    section: Section, ctx: Context, done: dict[str, Output], report: dict[str, dict], errors: dict
) -> dict:
    """One section's fields, with its title, meaning, chapter and status.

    A measure's documented limit (:class:`~benchvote.rules.RuleUndefined`) makes it
    not applicable with the reason; any other exception is recorded as a bug in this
    section (``errors``), and the audit goes on.  Only bad input
    (:class:`AuditInputError`) stops the audit.
    """
    reason = _not_applicable(section, ctx, report)
    fields: dict[str, Any] = {"status": NOT_APPLICABLE, "reason": reason}
    if reason is None:
        try:
            out = section.compute(ctx, done)
            clash = sorted(set(out.fields) & RESERVED)
            if clash:
                raise RuntimeError(f"the section's fields use the report's own keys {clash}")
            done[section.name] = out
            fields = {"status": OK, **out.fields}
        except AuditInputError:
            raise
        except RuleUndefined as err:  # NotDefined or a rule's own: a measure's documented limit
            fields = {"status": NOT_APPLICABLE, "reason": str(err)}
        except Exception as err:  # noqa: BLE001 - a bug in this section: reported in its place, the rest stands
            errors[section.name] = err
            fields = failure(section.name, err)
    head = {"title": section.title, "about": section.about, "chapter": section.chapter, "cost": section.cost}
    return {**head, **fields}


#: The verdict's length at most: secondary sentences go first, then the last ones in report order.
VERDICT_SENTENCES = 6


def _verdict(planned: list[Section], report: dict[str, dict], errors: dict) -> list[dict]:
    """The lead sentence, then the sections' sentences in report order, at most :data:`VERDICT_SENTENCES`.

    A section that is not computed says nothing; a verdict that fails is a bug
    in its section, recorded there.
    """
    out: list[Sentence] = []
    fields = {name: sec for name, sec in report.items() if sec["status"] == OK}
    for section in planned:
        if section.name not in fields:
            continue
        try:
            out += section.verdict(fields[section.name], fields)
        except Exception as err:  # noqa: BLE001 - reported as a bug in this section's verdict
            errors[section.name] = err
            report[section.name].update(failure(section.name, err, " to write its verdict sentence"))
    ranked = sorted(range(len(out)), key=lambda k: (not out[k].lead, out[k].secondary, k))[:VERDICT_SENTENCES]
    kept = sorted(ranked, key=lambda k: (not out[k].lead, k))  # the lead first, then report order
    return [{"section": out[k].section, "text": out[k].text} for k in kept]


def _settings(ctx: Context) -> dict:
    o = ctx.options
    if ctx.kind == "battles":
        return {"input": "battles", "n_boot": o.n_boot, "level": o.level, "seed": o.seed}
    return dict(
        primary=o.primary,
        normalize=o.normalize,
        weights=None if o.weights is None else {t: o.weights[t] for t in sorted(o.weights)},
        costs=[str(c) for c in ctx.cost_table.columns],
        groups=dict(ctx.groups),
        n_boot=o.n_boot,
        level=o.level,
        eps=o.eps,
        top_k=o.top_k,
        top_models=o.top_models,
        time_limit=o.time_limit,
        tol=o.tol,
        seed=o.seed,
        budget=o.budget,
        budgets=BUDGETS[o.budget].as_dict(),
        # the audit never uses the optional torch relaxation: its numbers are the same with or without it
        optional={"torch_installed": _has_torch(), "torch_used": False},
    )


def _has_torch() -> bool:
    return importlib.util.find_spec("torch") is not None


def summary(report: dict) -> str:
    """The verdict as text: the table's size, then one line per sentence, then the sections not computed.

    The command prints this, the report opens with the same sentences and the
    book's chapter shows them.

    Parameters
    ----------
    report : dict
        :meth:`Audit.to_dict` of an audit.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"t1": [3.0, 2.0, 1.0], "t2": [1.0, 3.0, 2.0], "t3": [2.0, 3.0, 1.0]}, index=["A", "B", "C"])
    >>> print(summary(audit(s, n_boot=50).to_dict()).splitlines()[0])
    3 models x 3 tasks, 0 missing cells
    """
    t = report["sections"].get("table") or report["sections"].get("battles") or {"status": None}
    lines = []
    if t["status"] == OK and "n_tasks" in t:
        lines.append(f"{t['n_models']} models x {t['n_tasks']} tasks, {t['missing_cells']} missing cells")
    elif t["status"] == OK:
        lines.append(f"{t['n_battles']:,} battles among {t['n_models']} models, {plural(t['n_ties'], 'tie')}")
    lines += [f"- {s['text']}" for s in report["verdict"]]
    for name, sec in report["sections"].items():
        if sec["status"] == NOT_APPLICABLE:
            lines.append(f"{name}: not computed ({sec['reason']})")
        elif sec["status"] == ERROR:
            lines.append(f"{name}: FAILED ({sec['reason']})")
    return "\n".join(lines)


@contextlib.contextmanager
def progress_bar(**options: Any) -> Iterator[Callable[[Step], None]]:
    """A tqdm bar of the audit's sections, as the ``progress`` callback of :func:`audit` (command and chapter).

    The bar learns the number of sections from the first :class:`Step` and
    shows the section that runs.

    Parameters
    ----------
    **options
        Passed to :class:`tqdm.std.tqdm` (``disable``, ``file``, ...).

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"t1": [3.0, 2.0, 1.0], "t2": [1.0, 3.0, 2.0]}, index=["A", "B", "C"])
    >>> with progress_bar(disable=True) as progress:
    ...     report = audit(s, n_boot=20, progress=progress)
    >>> report.sections["rankings"]["ranking"][0]
    'B'
    """
    with tqdm(total=None, desc="audit", unit="section", **options) as bar:

        def progress(step: Step) -> None:
            if bar.total is None:
                bar.reset(total=step.total)
            bar.update(step.index - bar.n)
            bar.set_description_str(f"audit: {step.title[:40]}")

        yield progress
        if bar.total is not None:
            bar.update(bar.total - bar.n)
            bar.set_description_str("audit")
