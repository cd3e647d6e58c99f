r"""Audit one leaderboard: every measure of the book on a table you bring.

:func:`audit` runs the book's measures on one models x tasks table and
returns an :class:`Audit`, whose sections hold plain numbers (ready for
JSON) and say in two sentences what they mean.  :meth:`Audit.to_json` and
:meth:`Audit.to_html` write the report; the command line ``benchvote audit``
(:mod:`benchvote.cli`) reads a CSV or TSV and calls these.

**Which table each section sees.**  Most measures need every cell.  When
scores are missing, the ``missing`` section works on the whole table and
every other section on its largest complete part: the models scored on every
task, after leaving out the tasks with the most missing cells when that keeps
more cells (the report lists the models and tasks left out; nothing is
imputed).  A task on which every model has
the same score cannot order anyone; it is reported and left out of the
measures, which would refuse it.  So is a task on which every model of the
complete part has the same score (the part is then chosen again without it).

**Units.**  When the task spreads (standard deviations over the measured
models) differ by more than a factor of :data:`UNIT_RATIO`, or a column is
named like a cost (:data:`COST_WORDS`), a ``units`` notice opens the report:
the columns, their spreads, and the eps the label-noise box uses and why.

**Normalisation.**  ``normalize`` (:data:`NORMALIZATIONS`) transforms each
measured task before the cardinal parts only: the mean-score ranking
(wherever the audit ranks by mean score, the bootstraps included), the
possible winners, the cardinal sensitivity and the default eps, recomputed on
the normalised table.  Every transform is increasing, so each task keeps its
direction and its order; the ordinal parts (win rates, Borda, the voting
rules, the ordinal sensitivity, the domains) read only those orders and are
the same under every normalisation.

**Costs.**  Columns declared in ``costs`` are left out of every aggregation
(the ``table`` section lists them); the ``pareto`` section gives the front of
the primary rule's score (over the other tasks) against the costs.  A cost is always
lower-is-better: the direction ``higher_is_better`` gives for it is ignored.
Its ``front`` lists the models on the front, best quality first, each with
``model``, ``quality`` and ``costs`` (in the order of the section's
``costs``); ``dominated`` the others; ``missing_cost`` and ``no_quality``
the models listed apart (a cost missing, or left out of the complete part).

**Budgets.**  Exact parts (the box search of the cardinal sensitivity, the
mixed-integer programs of the ordinal sensitivity and of the top-k possible
winners) stop at work budgets (:data:`BOX_WORK` boxes, :data:`MILP_NODES`
nodes), so the same table, options and seed give the same report on every
run and machine; ``time_limit`` is only a wall-clock safety cap, and a part
it stops says so (``stopped``).  A part stopped early shows the certified
bound next to the value found.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._validation import as_score_matrix, check_number, check_tol, direction_of, split_table
from .aggregation import borda, mean_score, mean_win_rate
from .normalization import min_max
from .ranking import DEFAULT_TIE_TOLERANCE, kendall_tau_distance, rank

__all__ = ["Audit", "audit", "AUDIT_RULES", "SECTIONS", "NORMALIZATIONS", "AuditInputError", "NotDefined"]


class AuditInputError(ValueError):
    """The table or an option cannot be audited (the user's input, not a bug); the message says what to change."""


class NotDefined(ValueError):
    """A measure is not defined on this table; its section reports the reason instead of stopping the audit.

    Only this exception turns a section into ``{"undefined": reason}``; any
    other error is a bug and propagates.
    """


@contextlib.contextmanager
def _as_input_error() -> Iterator[None]:
    """Report the library's validation of the table and the options as :class:`AuditInputError`."""
    try:
        yield
    except AuditInputError:
        raise
    except ValueError as err:
        raise AuditInputError(str(err)) from err


#: Where the book explains each section (chapter pages of the repository).
BOOK = "https://github.com/benchvote/benchvote/blob/main/notebooks"

#: Section name -> (title, chapter page, two sentences on what it means).
SECTIONS: dict[str, tuple[str, str, str]] = {
    "units": (
        "Notice: units and scales of the columns",
        "tradeoff",
        "Columns on different scales (spreads more than ten times apart) or named like a cost make the mean score "
        "follow the widest column, while rank-based rules (win rates, Borda, Copeland, ...) read only each column's "
        "order. A normalisation puts the tasks on one scale for the cardinal parts; declared costs leave the "
        "aggregation for the quality-cost front.",
    ),
    "table": (
        "The table",
        "elections",
        "What was read: models, tasks, their directions, missing cells, and tasks or models that repeat another. "
        "A task on which every model scores the same cannot order anyone and is left out of the measures.",
    ),
    "rankings": (
        "Rankings under several rules",
        "elections",
        "The same scores ranked by a cardinal rule (mean score), by win rates, by positional and by majority "
        "rules. Where they disagree, the ranking is a choice of rule rather than a fact about the models.",
    ),
    "pareto": (
        "Quality against cost: the Pareto front",
        "tradeoff",
        "The declared cost columns are left out of every aggregation; quality is the primary rule's score over the "
        "other tasks, and every cost is lower-is-better. A model is on the front when no other model is at least as "
        "good and at most as costly on every cost, and strictly better in one.",
    ),
    "diversity": (
        "Diversity of the tasks",
        "tradeoff",
        "Kendall's W measures how much the tasks agree on the order of the models (1 = all the same); "
        "diversity is 1 - W. A diverse benchmark tests more, and its ranking is more fragile.",
    ),
    "intervals": (
        "Rank intervals (bootstrap over tasks)",
        "missing",
        "The tasks are redrawn with replacement many times and the models ranked each time; an interval holds "
        "the middle share of a model's ranks. Two models are inseparable when neither ranks above the other in "
        "that share of the redraws.",
    ),
    "instance_intervals": (
        "Rank intervals (bootstrap over test instances)",
        "missing",
        "Each task's test instances are redrawn, paired across models, and the task scores recomputed. "
        "This measures the doubt that finite test sets leave, as the task bootstrap does for the choice of tasks.",
    ),
    "possible_winners": (
        "Possible winners",
        "tradeoff",
        "Label noise that keeps between eps and all of each task's labels reweights the tasks; a model is a "
        "possible winner when some such weighting puts it first (decided by a linear program). "
        "The same question for the top k needs a mixed-integer program.",
    ),
    "cardinal_sensitivity": (
        "Cardinal sensitivity",
        "tradeoff",
        "The largest share of model pairs that such a reweighting can reverse in the mean-score ranking. "
        "A proven maximum carries a certificate; otherwise the value found and a certified upper bound are shown.",
    ),
    "ordinal_sensitivity": (
        "Ordinal sensitivity and IIA",
        "arrow",
        "How far adding weaker models can reorder the top models under the mean win rate, a failure of the "
        "independence of irrelevant alternatives. For each pair of top models: whether some set of added models "
        "reverses it, with a smallest such set.",
    ),
    "missing": (
        "Missing scores",
        "missing",
        "With cells missing, averages compare models on different tasks. Partial Borda ranks from each task's "
        "partial ranking, and the pairwise confidences say which pairs the observed tasks decide.",
    ),
    "domains": (
        "Restricted domains among the top models",
        "domains",
        "Majority rule gives a transitive ranking when the tasks' rankings are single-peaked, group-separable or "
        "close to one another. Among the top models: which of these hold, and the majority cycles if any.",
    ),
    "spectrum": (
        "Spectrum of the table",
        "tradeoff",
        "Principal components of the standardised table (each task centred and scaled to unit variance, so no "
        "task weighs more for its units): a first component that explains most of the variance means "
        "the tasks mostly measure one thing. A flat spectrum means several directions of ability.",
    ),
}


def _bradley_terry_rule(scores: Any, higher_is_better: Any = True) -> Any:
    """Bradley-Terry ratings; :class:`NotDefined` when the maximum-likelihood ratings do not exist."""
    from .ratings import NOT_CONNECTED, _strongly_connected, bradley_terry, comparison_matrix

    wins = comparison_matrix(scores, higher_is_better)
    if not _strongly_connected(wins):
        raise NotDefined(NOT_CONNECTED)
    return bradley_terry(wins).ratings


def _helm_rule(scores: Any, higher_is_better: Any = True) -> Any:
    return mean_win_rate(scores, higher_is_better, convention="helm")


def _voting(name: str) -> Callable[..., Any]:
    def rule(scores: Any, higher_is_better: Any = True) -> Any:
        from . import voting

        return getattr(voting, name)(scores, higher_is_better)

    return rule


#: Rules the audit ranks by, name -> (label, rule).  ``kemeny`` is added when in reach.
AUDIT_RULES: dict[str, tuple[str, Callable[..., Any]]] = {
    "mean_score": ("Mean score", mean_score),
    "mean_win_rate": ("Mean win rate (strict)", mean_win_rate),
    "helm_win_rate": ("Mean win rate (HELM)", _helm_rule),
    "borda": ("Borda", _voting("borda")),
    "copeland": ("Copeland", _voting("copeland")),
    "ranked_pairs": ("Ranked Pairs", _voting("ranked_pairs")),
    "bradley_terry": ("Bradley-Terry", _bradley_terry_rule),
}
#: The normalisations of the cardinal parts (``normalize``), name -> what it does to each measured task.
NORMALIZATIONS: dict[str, str] = {
    "none": "the scores as read",
    "zscore": "each task centred and divided by its standard deviation over the measured models (ddof=0)",
    "minmax": "each task mapped onto [0, 1] by (score - min) / (max - min)",
    "rank": "each task replaced by its midranks (ties share the mean rank; read in the task's direction, the best "
    "model ranks highest)",
}

#: Work budget of the exact box search in the cardinal section (boxes evaluated; deterministic).
BOX_WORK = 2_000_000
#: Work budget of each mixed-integer program of the audit (branch-and-bound nodes; deterministic).
MILP_NODES = 500
#: The cardinal section runs its mixed-integer program only up to this many reversible pairs (one binary each).
MILP_PAIRS = 1500
KEMENY_MAX_MODELS = 8
CONSTANT_IN_PART = (
    "every model of the complete part (the models scored on every task) has the same score on it, "
    "so it orders none of them there; it still counts in the missing-scores section"
)


@dataclass
class Audit:
    """The report of :func:`audit`.

    Attributes
    ----------
    sections : dict
        Section name -> dict of plain numbers, strings and lists (see
        :data:`SECTIONS`); every section has ``title``, ``about``, ``chapter``
        and ``seconds``.
    settings : dict
        The options the audit ran with (and ``seconds`` per section).
    results : dict
        The library objects behind the sections, for further work:
        ``"scores"`` and ``"higher_is_better"`` (the measured table: complete
        models, no constant task, no cost column), ``"cardinal_scores"`` (the
        same table as the cardinal parts see it, normalised), ``"order"`` (its
        models, best first under the primary rule), ``"primary_scores"`` (the
        primary rule's values), ``"intervals"`` (:class:`benchvote.intervals.RankIntervals`),
        ``"possible_winners"`` and ``"cardinal"`` (the sensitivity result), when computed.
    """

    sections: dict
    settings: dict
    results: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        """Everything as JSON-ready builtins (``nan`` becomes ``None``)."""
        from . import __version__

        return _plain({"benchvote": __version__, "settings": self.settings, "sections": self.sections})

    def to_json(self, indent: int | None = 1) -> str:
        """The report as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def to_html(self, title: str = "Leaderboard audit") -> str:
        """The report as one self-contained HTML page (figures inline, explorables included, no network)."""
        from ._report import render_html

        return render_html(self, title)


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, pd.Series):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return [_plain(v) for v in x.tolist()]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return None if not math.isfinite(float(x)) else float(x)
    if x is None or isinstance(x, str):
        return x
    return str(x)


def _series(values: Any, models: pd.Index) -> dict:
    return {str(m): v for m, v in zip(models, np.asarray(values, dtype=float).tolist())}


def audit(
    scores: Any,
    higher_is_better: Any = True,
    *,
    instances: pd.DataFrame | None = None,
    primary: str = "mean_win_rate",
    normalize: str = "none",
    costs: Any = (),
    n_boot: int = 1000,
    level: float = 0.95,
    eps: float | None = None,
    top_k: int = 3,
    top_models: int = 6,
    time_limit: float = 60.0,
    tol: float = DEFAULT_TIE_TOLERANCE,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> Audit:
    r"""Run every measure of the book on one leaderboard.

    Parameters
    ----------
    scores : DataFrame or Leaderboard, shape (m, n)
        Models x tasks, labelled; ``nan`` marks a missing score.
    higher_is_better : bool or sequence of bool
        Direction of every task.
    instances : DataFrame, optional
        Long instance scores (columns ``model``, ``task``, ``instance``,
        ``score``) behind ``scores``; adds the instance bootstrap.
    primary : str
        The rule that leads the report and ranks the bootstrap redraws, one of
        :data:`AUDIT_RULES` (default ``"mean_win_rate"``, the strict mean win rate).
    normalize : {"none", "zscore", "minmax", "rank"}
        How each measured task is transformed before the cardinal parts (the
        mean score, possible winners, cardinal sensitivity and default eps);
        see :data:`NORMALIZATIONS`.  The ordinal parts do not depend on it.
    costs : sequence of str, or str
        Cost columns (parameters, FLOPs, ...): left out of every aggregation
        and shown against the primary score in the ``pareto`` section; always
        lower-is-better, whatever ``higher_is_better`` says for them.
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
        How many of the primary ranking's top models the IIA certificates
        and the domain tests look at.
    time_limit : float
        A wall-clock safety cap in seconds for each exact part.  Results are
        decided by work budgets (:data:`BOX_WORK` boxes of the box search,
        :data:`MILP_NODES` nodes of each mixed-integer program), so the same
        table, options and seed give the same report on every run and
        machine; a part that the cap stops says so (``stopped``).
    tol : float
        Tie tolerance of the rankings.
    seed : int
        Seed of the bootstrap and of the searches.
    progress : callable, optional
        Called with the name of each section before it runs.

    Returns
    -------
    Audit

    Raises
    ------
    AuditInputError
        (a ``ValueError``) When the table has fewer than two models or tasks
        (cost columns apart), an unknown ``primary`` or ``normalize``, a cost
        that is not a column, a primary rule undefined on the table, an option
        out of range, or no complete part of two models and two tasks.  A measure
        that is not defined on the table does not raise: its section says why
        (``{"undefined": reason}``).

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"t1": [3.0, 2.0, 1.0], "t2": [1.0, 3.0, 2.0], "t3": [2.0, 3.0, 1.0]},
    ...                  index=["A", "B", "C"])
    >>> a = audit(s, n_boot=50, time_limit=2)
    >>> a.sections["rankings"]["ranking"]
    ['B', 'A', 'C']
    >>> a.sections["possible_winners"]["possible"]
    ['A', 'B']
    """
    from .intervals import instance_rank_intervals, rank_intervals

    if primary not in AUDIT_RULES:
        raise AuditInputError(f"unknown primary rule {primary!r}; choose one of {', '.join(AUDIT_RULES)}")
    if normalize not in NORMALIZATIONS:
        raise AuditInputError(f"unknown normalize {normalize!r}; choose one of {', '.join(NORMALIZATIONS)}")
    with _as_input_error():
        n_boot = check_number(n_boot, "n_boot", low=1, integer=True)
        level = check_number(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
        eps = check_number(eps, "eps", low=0.0, high=1.0, low_open=True, high_open=True, allow_none=True)
        top_k = check_number(top_k, "top_k", low=2, integer=True)
        top_models = check_number(top_models, "top_models", low=2, integer=True)
        time_limit = check_number(time_limit, "time_limit", low=0.0, low_open=True)
        tol = check_tol(tol)
        seed = check_number(seed, "seed", low=0, integer=True)
        scores, higher_is_better = split_table(scores, higher_is_better)
    if not isinstance(scores, pd.DataFrame):
        raise TypeError("audit needs a labelled table: a DataFrame (models x tasks) or a Leaderboard")
    with _as_input_error():
        mat = as_score_matrix(scores, allow_nan=True)
        direction = pd.Series(direction_of(mat, higher_is_better), index=scores.columns)
    table, direction, cost_table = _split_costs(scores.astype(float), direction, costs)
    settings = dict(
        primary=primary,
        normalize=normalize,
        costs=[str(c) for c in cost_table.columns],
        n_boot=n_boot,
        level=level,
        eps=eps,
        top_k=top_k,
        top_models=top_models,
        time_limit=time_limit,
        tol=tol,
        seed=seed,
        budgets={"box_search_boxes": BOX_WORK, "milp_nodes": MILP_NODES},
        # the audit never uses the optional torch relaxation: its numbers are the same with or without it
        optional={"torch_installed": _has_torch(), "torch_used": False},
    )
    sections: dict = {}
    clock: dict = {}

    def run(name: str, fn: Callable[[], dict | None]) -> None:
        if progress is not None:
            progress(name)
        start = time.perf_counter()
        try:
            out = fn()
        except NotDefined as err:  # only a measure's documented limit; any other error is a bug and propagates
            out = {"undefined": str(err)}
        if out is None:
            return
        title, chapter, about = SECTIONS[name]
        sections[name] = {"title": title, "about": about, "chapter": f"{BOOK}/{chapter}.md", **out}
        sections[name]["seconds"] = round(time.perf_counter() - start, 3)
        clock[name] = sections[name]["seconds"]

    # ---------------------------------------------------------------- the table and the part every measure sees
    observed = table.notna()
    constant = _constant_tasks(table, tol)
    usable = [t for t in table.columns if t not in constant]
    if not usable:
        raise AuditInputError("every task is constant: no task orders the models")
    work, flat = _complete_part(table[usable], tol)
    hib = direction[work.columns]
    try:
        cardinal = _normalised(work, normalize, tol)  # what the cardinal parts see
    except NotDefined as err:
        raise AuditInputError(f"normalize={normalize!r} is undefined on this table: {err}") from None
    given_eps = eps
    eps, box_undefined = _box_eps(cardinal, hib, eps, tol)

    run("units", lambda: _units(work, eps, given_eps, box_undefined, normalize, cardinal))

    def table_section() -> dict:
        flat_names = {f["task"] for f in flat}
        dup_tasks = _duplicates(table.T)
        dup_models = _duplicates(table)
        return {
            "n_models": table.shape[0],
            "n_tasks": table.shape[1],
            "models": [str(m) for m in table.index],
            "tasks": [str(t) for t in table.columns],
            "higher_is_better": {str(t): bool(v) for t, v in direction.items()},
            "missing_cells": int((~observed).sum().sum()),
            "missing_by_task": {str(t): int(v) for t, v in (~observed).sum().items() if v},
            "missing_by_model": {str(m): int(v) for m, v in (~observed).sum(axis=1).items() if v},
            "constant_tasks": [str(t) for t in constant],
            "duplicated_tasks": dup_tasks,
            "duplicated_models": dup_models,
            "measured_models": [str(m) for m in work.index],
            "left_out_models": [str(m) for m in table.index.difference(work.index, sort=False)],
            "measured_tasks": [str(t) for t in work.columns],
            "left_out_tasks": [str(t) for t in usable if t not in work.columns and str(t) not in flat_names],
            "constant_in_part": flat,
            "cost_columns": [str(c) for c in cost_table.columns],
        }

    run("table", table_section)
    frames: dict = {"scores": work, "higher_is_better": hib, "cardinal_scores": cardinal}
    rules_used = _audit_rules(normalize, tol)

    # ---------------------------------------------------------------- rankings
    def rankings_section() -> dict:
        from . import voting

        rules: dict[str, dict[str, Any]] = {}
        ranks: dict[str, np.ndarray] = {}
        for name, (label, rule) in rules_used.items():
            try:
                values = pd.Series(np.asarray(rule(work, hib), dtype=float), index=work.index)
            except NotDefined as err:  # a rule undefined on this table (e.g. Bradley-Terry when a model never loses)
                if name == primary:
                    raise AuditInputError(f"the primary rule {name} is undefined on this table: {err}") from None
                rules[name] = {"label": label, "undefined": str(err)}
                continue
            ranks[name] = rank(values.to_numpy(), tol=tol)
            if name == primary:
                frames["primary_scores"] = values
            rules[name] = {
                "label": label,
                "scores": _series(values, work.index),
                "ranks": _series(ranks[name], work.index),
            }
        kemeny_note = None
        if work.shape[0] <= KEMENY_MAX_MODELS:
            k = voting.kemeny(work, hib, tol=tol, max_models=KEMENY_MAX_MODELS)
            ranks["kemeny"] = np.asarray(k.ranks, dtype=float)
            rules["kemeny"] = {
                "label": "Kemeny",
                "scores": _series(-ranks["kemeny"], work.index),
                "ranks": _series(ranks["kemeny"], work.index),
                "n_optimal": int(k.n_optimal),
                "disagreements": float(k.disagreements),
            }
        else:
            kemeny_note = (
                f"Kemeny is NP-hard and left out above {KEMENY_MAX_MODELS} models "
                f"({work.shape[0]} here); the domains section runs it among the top models"
            )
        names = list(ranks)
        distance = {a: {b: kendall_tau_distance(ranks[a], ranks[b]) for b in names} for a in names}
        winner = voting.condorcet_winner(work, hib, tol=tol)
        cycles = voting.condorcet_cycles(work, hib, tol=tol, limit=20)  # ten million on 5,000 models
        order = list(work.index[np.argsort(ranks[primary], kind="stable")])
        frames["order"] = order
        return {
            "primary": primary,
            "ranking": [str(m) for m in order],
            "rules": rules,
            "kendall_distance": distance,
            "kemeny_note": kemeny_note,
            "condorcet_winner": None if winner is None else str(winner),
            "n_cycles": voting.count_condorcet_cycles(work, hib, tol=tol),
            "cycles": [[str(m) for m in c.models] for c in cycles],
        }

    run("rankings", rankings_section)
    order = frames["order"]
    primary_rule = rules_used[primary][1]
    if len(cost_table.columns):
        label = rules_used[primary][0]
        run("pareto", lambda: _pareto(frames["primary_scores"], cost_table, primary, label, tol))

    def diversity_section() -> dict:
        from .concordance import diversity

        if (rank(work, hib, tol=tol).nunique() <= 1).all():
            raise NotDefined("every task ranks all models as tied; Kendall's W is undefined")
        d = diversity(work, hib, tol=tol)
        return {"kendall_w": d.w, "diversity": d.diversity, "mean_pairwise_mrc": d.mean_pairwise_mrc}

    run("diversity", diversity_section)

    def interval_dict(r: Any) -> dict:
        return {
            "rule": primary,
            "level": r.level,
            "n_boot": r.n_boot,
            "redrawn": r.redrawn,
            "ranks": _series(r.ranks, work.index),
            "lower": _series(r.lower, work.index),
            "upper": _series(r.upper, work.index),
            "inseparable": [[str(a), str(b)] for a, b in r.inseparable],
            "n_pairs": len(work) * (len(work) - 1) // 2,
            "adjacent_inseparable": _adjacent(order, r.inseparable),
        }

    def intervals_section() -> dict:
        r = rank_intervals(work, hib, rule=primary_rule, n_boot=n_boot, level=level, tol=tol, seed=seed)
        frames["intervals"] = r
        return interval_dict(r)

    run("intervals", intervals_section)
    if instances is not None:

        def instance_section() -> dict:
            keep = instances[instances["model"].isin(work.index) & instances["task"].isin(work.columns)]
            r = instance_rank_intervals(
                keep,
                {str(t): bool(v) for t, v in hib.items()},
                rule=primary_rule,
                n_boot=n_boot,
                level=level,
                tol=tol,
                seed=seed,
            )
            out = interval_dict(r)
            out["tasks"] = sorted(map(str, pd.unique(keep["task"])))
            return out

        run("instance_intervals", instance_section)

    # ---------------------------------------------------------------- the label-noise box
    def winners_section() -> dict:
        from .sensitivity import possible_winners

        if box_undefined:
            raise NotDefined(box_undefined)

        one = possible_winners(cardinal, hib, eps=eps, tol=tol)
        frames["possible_winners"] = one
        k = min(top_k, len(work) - 1)
        several = None
        if k >= 2:
            several = possible_winners(
                cardinal, hib, k=k, eps=eps, tol=tol, work_limit=MILP_NODES, time_limit=time_limit
            )
        out = {
            "eps": one.eps,
            "possible": [str(m) for m in work.index[np.asarray(one.possible)]],
            "undecided": [str(m) for m in work.index[np.asarray(one.undecided)]],
            "weights": {str(m): _series(w, work.columns) for m, w in one.weights.items()},
            "margin": _series(one.margin, work.index),
            "k": k,
        }
        if several is not None:
            out["top_k_possible"] = [str(m) for m in work.index[np.asarray(several.possible)]]
            out["top_k_undecided"] = [str(m) for m in work.index[np.asarray(several.undecided)]]
            out["stopped"] = several.stopped
        return out

    run("possible_winners", winners_section)

    def cardinal_section() -> dict:

        if box_undefined:
            raise NotDefined(box_undefined)

        r, note = _cardinal_search(cardinal, hib, eps, time_limit, seed, tol)
        frames["cardinal"] = r
        return {
            "method": r.method,
            "eps": r.eps,
            "tau_distance": r.tau_distance,
            "n_flipped": r.n_flipped,
            "upper_bound": r.upper_bound,
            "optimal": bool(r.optimal),
            "stopped": r.stopped,
            "work": r.work,
            "mrc": r.mrc,
            "weights": _series(r.weights, work.columns),
            "ranking_before": _series(r.ranking_before, work.index),
            "ranking_after": _series(r.ranking_after, work.index),
            "note": note,
        }

    run("cardinal_sensitivity", cardinal_section)

    def ordinal_section() -> dict:
        from ._quiet import quiet_solver_output
        from .axioms import iia_report
        from .sensitivity import default_protected, ordinal_sensitivity_exact

        protected = default_protected(work, hib)
        if len(protected) >= len(work):
            raise NotDefined(f"all {len(work)} models are protected (the top models): there is no model to add")
        with quiet_solver_output():  # HiGHS may print from C++
            r = ordinal_sensitivity_exact(work, hib, protected=protected, work_limit=MILP_NODES, time_limit=time_limit)
        top = order[: min(top_models, len(order))]
        iia_rule = borda if primary == "borda" else mean_win_rate  # the two rules iia_report handles
        pool = [m for m in work.index if m not in top]
        pairs = []
        if pool:
            rep = iia_report(work, hib, protected=top, pool=pool, rule=iia_rule)
            for row in rep.itertuples():
                pairs.append(
                    {
                        "leader": str(row.leader),
                        "trailer": str(row.trailer),
                        "status": str(row.status),
                        "certificate": [str(m) for m in row.certificate],  # type: ignore[union-attr]
                    }
                )
        return {
            "protected": [str(m) for m in protected],
            "tau_distance": r.tau_distance,
            "n_flipped": r.n_flipped,
            "upper_bound": r.upper_bound,
            "optimal": bool(r.optimal),
            "stopped": r.stopped,
            "added": [str(m) for m in r.added],
            "method": r.method,
            "iia_rule": "borda" if iia_rule is borda else "mean_win_rate",
            "iia_top": [str(m) for m in top],
            "iia_pairs": pairs,
        }

    run("ordinal_sensitivity", ordinal_section)

    # ---------------------------------------------------------------- missing scores
    if (~observed).any().any():

        def missing_section() -> dict:
            from .missing import pairwise_confidence, partial_borda

            full = table[[t for t in table.columns if t not in constant]]
            hib_full = direction[full.columns]
            _check_partial(full)
            pb = partial_borda(full, hib_full, tol=tol)
            conf = pairwise_confidence(full, hib_full, tol=tol)
            decided = np.asarray(conf.decided)
            m = len(full)
            n_pairs = m * (m - 1) // 2
            helm = mean_win_rate(full, hib_full, convention="helm")  # HELM compares exactly
            pb_order = list(full.index[np.argsort(-np.asarray(pb, dtype=float), kind="stable")])
            return {
                "partial_borda": _series(pb, full.index),
                "ranking": [str(x) for x in pb_order],
                "helm_win_rate": _series(helm, full.index),
                "delta": conf.delta,
                "decided_pairs": conf.n_decided_pairs,
                "n_pairs": n_pairs,
                "undecided_top_pairs": [
                    [str(pb_order[a]), str(pb_order[b])]
                    for a in range(min(top_models, m))
                    for b in range(a + 1, min(top_models, m))
                    if not decided[full.index.get_loc(pb_order[a]), full.index.get_loc(pb_order[b])]
                ],
            }

        run("missing", missing_section)

    # ---------------------------------------------------------------- domains among the top models
    def domains_section() -> dict:
        from .domains import domain_report, rankings_from_scores
        from .voting import condorcet_cycles, kemeny

        top = order[: min(max(top_models, 3), len(order))]
        if len(top) > KEMENY_MAX_MODELS:
            raise NotDefined(f"Kemeny is limited to {KEMENY_MAX_MODELS} models; top_models is {top_models}")
        sub = work.loc[top]
        profile = rankings_from_scores(sub, hib, tol=tol)
        rep = domain_report(profile)
        k = kemeny(sub, hib, tol=tol, max_models=KEMENY_MAX_MODELS)
        return {
            "models": [str(m) for m in top],
            "single_peaked": rep.single_peaked,
            "single_peaked_axis": None if rep.single_peaked_axis is None else [str(m) for m in rep.single_peaked_axis],
            "group_separable": rep.group_separable,
            "distance_degree": int(rep.distance_degree),
            "majority_transitive": bool(rep.majority_transitive),
            "cycles": [[str(m) for m in c.models] for c in condorcet_cycles(sub, hib, tol=tol)],
            "kemeny_ranking": [str(m) for m in sub.index[np.argsort(np.asarray(k.ranks, dtype=float), kind="stable")]],
        }

    run("domains", domains_section)

    def spectrum_section() -> dict:
        from .spectrum import benchmark_pca

        p = benchmark_pca(_standardised(work, hib))
        if not np.isfinite(np.asarray(p.explained)).all():
            raise NotDefined("the principal components are not finite numbers on this table")
        return {
            "explained": [float(v) for v in np.asarray(p.explained)],
            "singular_values": [float(v) for v in np.asarray(p.singular_values)],
            "pc1_loadings": _series(p.pc1_loadings, work.columns),
        }

    run("spectrum", spectrum_section)
    settings["seconds"] = clock
    return Audit(sections=sections, settings=settings, results=frames)


def _constant_tasks(table: pd.DataFrame, tol: float) -> list:
    """The tasks whose scored cells all lie within ``tol`` of each other (missing cells ignored)."""
    return [t for t in table.columns if table[t].notna().any() and (table[t].max() - table[t].min()) <= tol]


def _complete_part(table: pd.DataFrame, tol: float) -> tuple[pd.DataFrame, list[dict]]:
    """The complete part the measures see, without the tasks that are constant on it.

    A task that orders the whole table can still give every model of the
    complete part the same score; it cannot order anyone there, so it is left
    out and the complete part chosen again (models left out only for missing
    that task may come back).  Returns the part and, for every task so left
    out, ``{"task", "score", "n_models", "reason"}``.
    """
    flat: list[dict] = []
    dropped: list = []
    while True:
        keep = [t for t in table.columns if t not in dropped]
        if len(keep) < 2:
            raise AuditInputError(
                f"only task {keep[0]!s} orders the models scored on every task; task(s) "
                f"{', '.join(f['task'] for f in flat)} give all of them the same score. The audit needs two tasks"
            )
        part = _measured_part(table[keep])
        same = _constant_tasks(part, tol)
        if not same:
            return part, flat
        dropped += same
        flat += [
            {"task": str(t), "score": float(part[t].iloc[0]), "n_models": len(part), "reason": CONSTANT_IN_PART}
            for t in same
        ]


def _measured_part(table: pd.DataFrame) -> pd.DataFrame:
    """The complete part the measures see: drop the tasks with the most missing cells while that pays.

    Dropping the ``d`` tasks with the most missing cells (ties: later columns
    first kept) leaves the models scored on every remaining task; the part
    with the most cells wins, the fewest dropped tasks among equals.  A
    complete table is returned whole.
    """
    observed = table.notna()
    gaps = (~observed).sum()
    order = sorted(table.columns, key=lambda t: (-int(gaps[t]), list(table.columns).index(t)))
    best: tuple[int, list, pd.Index] | None = None
    for dropped in range(len(order) - 1):  # keep at least two tasks
        keep = [t for t in table.columns if t not in order[:dropped]]
        models = table.index[observed[keep].all(axis=1)]
        cells = len(models) * len(keep)
        if len(models) >= 2 and (best is None or cells > best[0]):
            best = (cells, keep, models)
        if not gaps[order[dropped]]:
            break  # every task still kept is complete: dropping more only loses cells
    if best is None:
        raise AuditInputError(
            "no two models are scored on the same two tasks; the audit needs a complete part of at least 2 x 2 "
            "(partial rankings alone: benchvote.missing.partial_borda)"
        )
    return table.loc[best[2], best[1]]


def _box_eps(work: pd.DataFrame, hib: pd.Series, eps: float | None, tol: float) -> tuple[float | None, str | None]:
    """The eps of the label-noise box, and why the box is undefined (``None`` when it is defined).

    Without a given ``eps`` the default comes from the spread of the tasks; on
    tables whose spreads differ beyond what floating point holds it is 0,
    which no box accepts.
    """
    if eps is not None:
        return eps, None
    from .sensitivity import default_eps

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


#: The spread ratio (largest over smallest task standard deviation) above which the audit gives the units notice.
UNIT_RATIO = 10.0
#: Parts of a column name (case-insensitive) that mark a cost rather than a score.
COST_WORDS = ("param", "flop", "latency", "cost", "size", "memory", "time", "_ms", "tokens/s", "price")
UNITS_MEANING = (
    "the mean score adds the columns as they are, so the widest column decides it; rank-based rules (win rates, "
    "Borda, Copeland, Kemeny) compare models within each column and do not depend on the units"
)


def _unit_columns(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each column divided by its largest absolute value (1 for a zero column), and those values.

    Squares of the scaled columns stay finite even for scores near the largest
    float; standard deviations scale back by the returned factors.
    """
    scale = np.abs(x).max(axis=0)
    scale[scale == 0] = 1.0
    return x / scale, scale


def _spreads(work: pd.DataFrame) -> pd.Series:
    """Each task's standard deviation over the models (``ddof=0``, as :func:`~benchvote.sensitivity.default_eps`)."""
    unit, scale = _unit_columns(work.to_numpy(dtype=float))
    with np.errstate(over="ignore", invalid="ignore"):
        return pd.Series(unit.std(axis=0) * scale, index=work.columns)


def _eps_reason(eps: float | None, given: float | None, box_undefined: str | None) -> str:
    """Why the label-noise box uses the eps it uses (the numbers themselves are in the report's fields)."""
    if given is not None:
        return "given with the eps option"
    if box_undefined is not None:
        return box_undefined
    rule = "default_eps takes min(0.01, smallest spread / largest spread)"
    if eps is not None and eps < 0.01:
        return (
            f"{rule}; it is below 0.01 because the largest task spread is more than 100 times the smallest "
            "(the spread ratio), so the box lets a task keep as little as that share of its labels"
        )
    return f"{rule}; the spread ratio is at most 100, so the cap 0.01 applies"


def _units(
    work: pd.DataFrame,
    eps: float | None,
    given: float | None,
    box_undefined: str | None,
    normalize: str = "none",
    cardinal: pd.DataFrame | None = None,
) -> dict | None:
    """The units notice: columns on different scales or named like a cost, and the normalisation if any.

    The scales are those of the columns as read (``work``); the eps comes from
    the table the cardinal parts see (``cardinal``, normalised).  ``None``
    when there is nothing to say.
    """
    spread = _spreads(work)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        ratio = float(spread.max() / spread.min())
        median = float(spread.median())
    costly = [t for t in work.columns if any(w in str(t).lower() for w in COST_WORDS)]
    mixed = not ratio <= UNIT_RATIO  # an overflowing (inf) or undefined ratio counts as mixed
    if not (mixed or costly or normalize != "none"):
        return None
    far = {spread.idxmax(), spread.idxmin()} if mixed else set()
    far |= {t for t in work.columns if mixed and not median / UNIT_RATIO <= spread[t] <= median * UNIT_RATIO}
    columns = [t for t in work.columns if t in far or t in costly]
    normalised_eps = normalize != "none" and given is None and not box_undefined

    def why(t: Any) -> str:
        return " and ".join(
            (["spread far from the median spread"] if t in far else [])
            + (["name looks like a cost"] if t in costly else [])
        )

    return {
        "mixed_scales": mixed,
        "threshold": UNIT_RATIO,
        "spread_ratio": ratio,
        "widest": str(spread.idxmax()),
        "narrowest": str(spread.idxmin()),
        "columns": [str(t) for t in columns],
        "spreads": [float(spread[t]) for t in columns],
        "why": [why(t) for t in columns],
        "cost_named": [str(t) for t in costly],
        "meaning": UNITS_MEANING,
        "eps": eps,
        "eps_source": "given" if given is not None else "undefined" if box_undefined else "default_eps",
        "eps_reason": (f"on the {normalize}-normalised table, " if normalised_eps else "")
        + _eps_reason(eps, given, box_undefined),
        **_normalisation_note(normalize, cardinal, mixed, bool(costly)),
    }


#: What a normalisation changes and what it cannot.
NORMALIZE_SCOPE = (
    "the normalisation applies to the cardinal parts only (the mean score, the possible winners, the cardinal "
    "sensitivity and the default eps); the ordinal parts (win rates, Borda, the voting rules, the ordinal "
    "sensitivity, the domains) read only each task's order, which every normalisation keeps"
)


def _normalisation_note(normalize: str, cardinal: pd.DataFrame | None, mixed: bool, costly: bool) -> dict:
    """The units notice's fields on the normalisation: which, its effect on the spreads, and a suggestion."""
    ratio = None
    if normalize != "none" and cardinal is not None:
        spread = _spreads(cardinal)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            ratio = float(spread.max() / spread.min())
    suggestion = None
    if normalize == "none" and (mixed or costly):
        zscore = "normalize='zscore' (--normalize zscore) puts every task on unit spread for the cardinal parts; "
        suggestion = (
            (zscore if mixed else "")
            + "columns that are costs rather than scores can be declared with costs=[...] (--cost NAME), which "
            "leaves them out of the aggregation and shows the quality-cost front"
        )
    return {
        "normalize": normalize,
        "normalize_meaning": NORMALIZATIONS[normalize],
        "normalized_spread_ratio": ratio,
        "scope": NORMALIZE_SCOPE,
        "suggestion": suggestion,
    }


def _check_partial(full: pd.DataFrame) -> None:
    """The missing-score measures need every task to compare two models and every model to have a score."""
    thin = [str(t) for t in full.columns if full[t].notna().sum() < 2]
    if thin:
        raise NotDefined(f"task(s) {', '.join(thin[:5])} have fewer than 2 scored models and cannot rank anyone")
    empty = [str(m) for m in full.index if full.loc[m].isna().all()]
    if empty:
        raise NotDefined(f"model(s) {', '.join(empty[:5])} have no score on any task that orders the models")


def _standardised(work: pd.DataFrame, hib: pd.Series) -> pd.DataFrame:
    """Every task oriented, centred and divided by its standard deviation, without overflow.

    Each column is first brought to unit size (:func:`_unit_columns`, which
    leaves the standardised column unchanged), so squares stay finite even for
    scores near the largest float.
    """
    x, _ = _unit_columns(work.to_numpy(dtype=float) * np.where(hib.to_numpy(dtype=bool), 1.0, -1.0))
    x = x - x.mean(axis=0)
    std = x.std(axis=0)
    bad = [str(t) for t, s in zip(work.columns, std) if not (np.isfinite(s) and s > 0)]
    if bad:
        raise NotDefined(f"task(s) {', '.join(bad[:5])} have no spread that floating point can standardise")
    return pd.DataFrame(x / std, index=work.index, columns=work.columns)


def _normalised(work: pd.DataFrame, method: str, tol: float = DEFAULT_TIE_TOLERANCE) -> pd.DataFrame:
    """Every task through the increasing transform ``method`` of :data:`NORMALIZATIONS`.

    Each transform is increasing, so a task keeps its direction (the same
    ``higher_is_better`` applies to the result) and its order: ``rank`` gives
    the largest score the largest midrank (:func:`benchvote.rank` read from
    the bottom, tie tolerance ``tol``).  ``zscore`` is :func:`_standardised`
    and ``minmax`` :func:`benchvote.normalization.min_max` (over 100) of the
    columns brought to unit size (:func:`_unit_columns`, which changes neither),
    so huge scores do not overflow.  A task whose scores lie within ``tol`` of
    each other orders no one and becomes 0 (only a bootstrap redraw of the
    instances can make one).
    """
    if method == "none":
        return work
    if method == "rank":
        return rank(work, False, tol=tol)
    unit, scale = _unit_columns(work.to_numpy(dtype=float))
    with np.errstate(over="ignore"):
        width = unit.max(axis=0) - unit.min(axis=0)
        keep = np.flatnonzero((width > 0) & (width * scale > tol))
    out = np.zeros(unit.shape)
    if len(keep):
        part = pd.DataFrame(unit[:, keep])
        if method == "zscore":
            out[:, keep] = _standardised(part, pd.Series(True, index=part.columns)).to_numpy()
        else:
            out[:, keep] = np.asarray(min_max(part.to_numpy(), True), dtype=float) / 100.0
    return pd.DataFrame(out, index=work.index, columns=work.columns)


def _normalised_rule(method: str, tol: float) -> Callable[..., Any]:
    """The mean score of the ``method``-normalised table, as a rule (the bootstraps call it on arrays)."""

    def rule(scores: Any, higher_is_better: Any = True) -> Any:
        frame = scores if isinstance(scores, pd.DataFrame) else pd.DataFrame(np.asarray(scores, dtype=float))
        return mean_score(_normalised(frame, method, tol), higher_is_better)

    return rule


def _audit_rules(normalize: str, tol: float) -> dict[str, tuple[str, Callable[..., Any]]]:
    """:data:`AUDIT_RULES`, with the mean score read on the ``normalize``-normalised table."""
    if normalize == "none":
        return AUDIT_RULES
    label = AUDIT_RULES["mean_score"][0]
    return {**AUDIT_RULES, "mean_score": (f"{label} ({normalize})", _normalised_rule(normalize, tol))}


def _split_costs(table: pd.DataFrame, direction: pd.Series, costs: Any) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
    """The quality tasks with their directions, and the declared cost columns (each named once, in order)."""
    names = list(dict.fromkeys([costs] if isinstance(costs, str) else list(costs or ())))
    unknown = [str(c) for c in names if c not in table.columns]
    if unknown:
        shown = ", ".join(map(str, table.columns[:12])) + (", ..." if table.shape[1] > 12 else "")
        raise AuditInputError(f"costs name unknown column(s): {', '.join(unknown)} (columns: {shown})")
    quality = [t for t in table.columns if t not in names]
    if names and len(quality) < 2:
        raise AuditInputError(
            f"the audit needs two tasks besides the cost column(s) {', '.join(map(str, names))}; "
            f"the table has {len(quality)}"
        )
    return table[quality], direction[quality], table[names]


def _pareto(quality: pd.Series, cost_table: pd.DataFrame, rule: str, label: str, tol: float) -> dict:
    """The ``pareto`` section: the front of the primary score (ties within ``tol``) against the declared costs."""
    from .ranking import pareto_front

    names = list(cost_table.columns)
    known = [m for m in quality.index if cost_table.loc[m].notna().all()]
    q = quality[known].to_numpy(dtype=float)
    c = cost_table.loc[known].to_numpy(dtype=float)
    ranks = rank(q, tol=tol) if known else np.zeros(0)  # quality ties within tol share a rank
    on = pareto_front(-ranks, c) if known else np.zeros(0, dtype=bool)
    order = sorted(range(len(known)), key=lambda i: (ranks[i], *c[i]))

    def entry(m: Any) -> dict:
        values = cost_table.loc[m]
        return {
            "model": str(m),
            "quality": float(quality[m]) if m in quality.index else None,
            "costs": [None if pd.isna(v) else float(v) for v in values],
        }

    return {
        "quality_rule": rule,
        "quality_label": label,
        "costs": [str(n) for n in names],
        "cost_direction": "lower is better (a declared cost's given direction is ignored)",
        "n_compared": len(known),
        "front": [entry(known[i]) for i in order if on[i]],
        "dominated": [entry(known[i]) for i in order if not on[i]],
        "missing_cost": [entry(m) for m in quality.index if m not in known],
        "no_quality": [entry(m) for m in cost_table.index if m not in quality.index],
    }


def _status(section: dict) -> str:
    """How far a sensitivity section's value is established: proven, bounded, or neither."""
    if section["optimal"]:
        return "proven maximum"
    if section["upper_bound"] is None:
        return "no certified bound"
    return f"certified bound {section['upper_bound']:.3f}"


def _cardinal_search(
    cardinal: pd.DataFrame, hib: pd.Series, eps: float | None, time_limit: float, seed: int, tol: float
) -> tuple[Any, str | None]:
    """The cardinal section's result, the same on every run and machine whether or not torch is installed.

    Up to ten distinct tasks, the exact box search (within :data:`BOX_WORK`
    boxes).  Beyond, the torch-free coordinate search finds the value with a
    loose certified bound (the pairs reversible on their own), and, up to
    :data:`MILP_PAIRS` such pairs, the mixed-integer program (within
    :data:`MILP_NODES` nodes) tightens it; a bound reached only when the
    wall-clock cap stopped the program would depend on the machine's speed,
    so it is left out and the note says so.
    """
    from .sensitivity import cardinal_sensitivity, cardinal_sensitivity_exact

    if cardinal.T.drop_duplicates().shape[0] <= 10:
        r = cardinal_sensitivity_exact(
            cardinal, hib, eps=eps, method="boxes", work_limit=BOX_WORK, time_limit=time_limit, seed=seed, tol=tol
        )
        if r.stopped == "time_limit" and not r.optimal:  # its bound would depend on the machine's speed
            r = dataclasses.replace(r, upper_bound=None)
        return r, _cap_note(r.stopped, time_limit, r.optimal)
    found = cardinal_sensitivity(cardinal, hib, eps=eps, method="search", seed=seed, tol=tol)
    assert found.upper_bound is not None  # the search always attaches the pairs reversible on their own
    pairs = found.upper_bound * len(cardinal) * (len(cardinal) - 1) / 2
    if found.optimal or pairs > MILP_PAIRS:
        note = (
            None
            if found.optimal
            else (
                f"the bound counts the pairs that some weighting reverses on their own; the mixed-integer program "
                f"is not run beyond {MILP_PAIRS} such pairs"
            )
        )
        return found, note
    exact = cardinal_sensitivity_exact(
        cardinal, hib, eps=eps, method="milp", work_limit=MILP_NODES, time_limit=time_limit, seed=seed, tol=tol
    )
    if exact.stopped == "time_limit":
        return found, _cap_note("time_limit", time_limit)
    best = exact if exact.n_flipped > found.n_flipped else found
    bound = found.upper_bound if exact.upper_bound is None else min(exact.upper_bound, found.upper_bound)
    proven = best.tau_distance >= bound
    note = None if proven else f"the bound is the mixed-integer program's after {exact.work} nodes"
    stopped = "" if proven else exact.stopped
    return dataclasses.replace(best, upper_bound=bound, optimal=proven, stopped=stopped), note


def _cap_note(stopped: str, time_limit: float, optimal: bool = False) -> str | None:
    """What the report says when the wall-clock safety cap, not the work budget, ended a search."""
    if stopped != "time_limit":
        return None
    if optimal:
        return (
            f"the {time_limit:g}-second safety cap stopped the exact search, after its value was proven; "
            "the weights shown may differ on another machine"
        )
    return (
        f"the {time_limit:g}-second safety cap stopped the exact search before its work budget: "
        "the value found is a lower bound, no certified bound is shown, and another machine may find more"
    )


def _has_torch() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def _duplicates(frame: pd.DataFrame) -> list[list[str]]:
    """Groups of rows that are identical (missing cells included), each as a list of labels."""
    keyed: dict = {}
    for label, row in frame.iterrows():
        key = tuple("nan" if pd.isna(v) else float(v) for v in row)
        keyed.setdefault(key, []).append(str(label))
    return [group for group in keyed.values() if len(group) > 1]


def _adjacent(order: list, inseparable: list) -> int:
    pairs = {frozenset((str(a), str(b))) for a, b in inseparable}
    return sum(frozenset((str(a), str(b))) in pairs for a, b in zip(order, order[1:]))
