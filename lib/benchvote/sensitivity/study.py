"""The diversity-sensitivity study of Zhang & Hardt (2024) on many leaderboards: one row per board.

A row holds a board's diversity and its cardinal or ordinal sensitivity, with the status of the value (proven
maximum, certified bound or lower bound) and the relaxation's value beside it.  :func:`trade_off_table` computes
the rows of many boards, one after another, each from its own seeds.  They run in one process: the book's build
already runs two notebooks at once on two cores, and in a measured build two more processes for the study (its
cardinal and its ordinal rows side by side) made the trade-off chapter end about two minutes later; each fresh
process also pays about 7 CPU seconds to import torch before its first relaxation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .._validation import check_choice, check_number
from ..concordance import diversity
from ._problem import default_eps
from .cardinal import cardinal_sensitivity
from .ordinal import ordinal_sensitivity, ordinal_sensitivity_exact

__all__ = ["TradeOffJob", "cardinal_row", "ordinal_row", "trade_off_table"]


@dataclass(frozen=True)
class TradeOffJob:
    """One row of the study: a board (anything with ``name``, ``scores``, ``higher_is_better``, ``n_models``,
    ``n_tasks`` and ``n_missing``, as :class:`benchvote.data.Leaderboard`), the kind of sensitivity, and for an
    ordinal row the protected models (default :func:`benchvote.sensitivity.default_protected`)."""

    board: Any
    kind: str
    protected: Sequence | None = None


def cardinal_row(board: Any, *, time_limit: float = 120.0) -> dict:
    """Diversity and cardinal sensitivity in the raw box and in the z-score box (eps = 0.01).

    ``cardinal_sensitivity`` with ``method="auto"``: the exact box search on boards with at most ten distinct
    tasks; elsewhere the relaxation with the certified bound of the clique linear program's root.  The raw box's
    row also gives the relaxation alone (``tau (relaxation + search)``), to show how close it gets.

    Parameters
    ----------
    board : Leaderboard
        A board of :mod:`benchvote.data` (or anything with its attributes: see :class:`TradeOffJob`).
    time_limit : float
        A wall-clock guard in seconds, far above the work budgets, which decide every number.

    Examples
    --------
    >>> from benchvote import data
    >>> row = cardinal_row(data.load("SuperGLUE"))
    >>> row["optimal"], row["tau"] <= row["bound"]
    (True, True)
    """
    time_limit = check_number(time_limit, "time_limit", low=0.0, low_open=True)
    row = {
        "leaderboard": board.name,
        "kind": "cardinal",
        "models": board.n_models,
        "tasks": board.n_tasks,
        "diversity": diversity(board.scores).diversity,
        "eps": default_eps(board.scores),
    }
    boxes: list[tuple[str, dict[str, Any]]] = [("", {}), (" (z-score box)", {"eps": 0.01, "normalize": "zscore"})]
    for suffix, options in boxes:
        best = cardinal_sensitivity(board.scores, **options, time_limit=time_limit)
        if suffix == "":
            alone = (
                best
                if best.method.startswith("relaxation")
                else cardinal_sensitivity(board.scores, method="relaxation")
            )
            row["tau (relaxation + search)"] = alone.tau_distance
        row.update(
            {
                f"tau{suffix}": best.tau_distance,
                f"mrc{suffix}": best.mrc,
                f"optimal{suffix}": best.optimal,
                f"bound{suffix}": best.upper_bound,
            }
        )
    return row


def ordinal_row(board: Any, *, protected: Sequence | None = None) -> dict:
    """Diversity and ordinal sensitivity (exact: enumeration or the mixed-integer program; its work budget decides).

    A task scored for a single model ranks nothing: it is left out of the diversity and counted
    (``uninformative tasks``).  Missing cells enter the diversity through expected ranks.

    Parameters
    ----------
    board : Leaderboard
        A board of :mod:`benchvote.data` (or anything with its attributes: see :class:`TradeOffJob`).
    protected : sequence, optional
        The protected models (default :func:`benchvote.sensitivity.default_protected`).

    Examples
    --------
    >>> from benchvote import data
    >>> row = ordinal_row(data.load("HELM-efficiency"))
    >>> row["optimal"], row["tau"] >= row["tau (relaxation)"]
    (True, True)
    """
    scores, direction = board.scores, board.higher_is_better
    informative = scores.columns[scores.notna().sum() >= 2]
    policy = "expected_ranks" if board.n_missing else "raise"
    div = diversity(scores[informative], direction[informative], nan_policy=policy)
    exact = ordinal_sensitivity_exact(scores, direction, protected=protected)
    relax = ordinal_sensitivity(scores, direction, protected=protected)
    return {
        "leaderboard": board.name,
        "kind": "ordinal",
        "models": board.n_models,
        "tasks": board.n_tasks,
        "diversity": div.diversity,
        "tau": exact.tau_distance,
        "mrc": exact.mrc,
        "optimal": exact.optimal,
        "tau (relaxation)": relax.tau_distance,
        "added": len(exact.added),
        "uninformative tasks": board.n_tasks - len(informative),
    }


#: The kinds of row: how each is computed from its job.
ROWS = {
    "cardinal": lambda job: cardinal_row(job.board),
    "ordinal": lambda job: ordinal_row(job.board, protected=job.protected),
}


def trade_off_table(jobs: Sequence[TradeOffJob]) -> pd.DataFrame:
    """The rows of many boards as one table indexed by board name, in the order of ``jobs``.

    Parameters
    ----------
    jobs : sequence of TradeOffJob
        The rows to compute (every kind is checked before any row is computed).

    Examples
    --------
    >>> from benchvote import data
    >>> table = trade_off_table([TradeOffJob(data.load("SuperGLUE"), "cardinal"),
    ...                          TradeOffJob(data.load("HELM-efficiency"), "ordinal")])
    >>> list(table.index), list(table.kind)
    (['SuperGLUE', 'HELM-efficiency'], ['cardinal', 'ordinal'])
    """
    jobs = list(jobs)
    for job in jobs:
        check_choice(job.kind, "kind", tuple(ROWS))
    return pd.DataFrame([ROWS[job.kind](job) for job in jobs]).set_index("leaderboard")
