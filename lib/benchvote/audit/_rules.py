"""The aggregation rules the audit ranks by: one registry, read by the audit, the command line and the tests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import numbered
from ..aggregation import mean_score
from ..normalization import min_max, relative_to_baseline
from ..ranking import DEFAULT_TIE_TOLERANCE, rank
from ..rules import RULES, Rule, _geometric, mean_ranks
from ._errors import NotDefined

__all__ = ["Rule", "NORMALIZATIONS", "Cardinal", "audit_rules", "normalised", "split_normalize"]


#: The normalisations of the cardinal parts (``normalize``), name -> what it does to each measured task.
NORMALIZATIONS: dict[str, str] = {
    "none": "the scores as read",
    "zscore": "each task centred and divided by its standard deviation over the measured models (ddof=0)",
    "minmax": "each task mapped onto [0, 1] by (score - min) / (max - min)",
    "rank": "each task replaced by its midranks (ties share the mean rank; read in the task's direction, the best "
    "model ranks highest)",
    "baseline": "each task divided by the baseline model's score on it (baseline:MODEL), as forecasting boards "
    "report errors relative to a naive forecaster; the baseline scores 1 everywhere",
}
#: The normalisations after which every score stays positive when it was: the geometric mean reads their table.
RATIO_PRESERVING = ("none", "baseline")


def split_normalize(normalize: str) -> tuple[str, str | None]:
    """``"baseline:MODEL"`` -> ``("baseline", "MODEL")``; any other name -> ``(name, None)``."""
    method, sep, model = str(normalize).partition(":")
    return (method, model) if sep else (method, None)


def unit_columns(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each column divided by its largest absolute value (1 for a zero column), and those values.

    Squares of the scaled columns stay finite even for scores near the largest
    float; standard deviations scale back by the returned factors.
    """
    scale = np.abs(x).max(axis=0)
    scale[scale == 0] = 1.0
    return x / scale, scale


def standardised(work: pd.DataFrame, hib: pd.Series) -> pd.DataFrame:
    """Every task oriented, centred and divided by its standard deviation, without overflow.

    Each column is first brought to unit size (:func:`unit_columns`, which
    leaves the standardised column unchanged), so squares stay finite even for
    scores near the largest float.
    """
    x, _ = unit_columns(work.to_numpy(dtype=float) * np.where(hib.to_numpy(dtype=bool), 1.0, -1.0))
    x = x - x.mean(axis=0)
    std = x.std(axis=0)
    bad = [str(t) for t, s in zip(work.columns, std) if not (np.isfinite(s) and s > 0)]
    if bad:
        raise NotDefined(
            f"{numbered(len(bad), 'task')} {', '.join(bad[:5])} {numbered(len(bad), 'has', 'have')} no spread that "
            "floating point can standardise"
        )
    return pd.DataFrame(x / std, index=work.index, columns=work.columns)


def normalised(
    work: pd.DataFrame, method: str, tol: float = DEFAULT_TIE_TOLERANCE, baseline_row: int | None = None
) -> pd.DataFrame:
    """Every task through the increasing transform ``method`` of :data:`NORMALIZATIONS`.

    Each transform is increasing, so a task keeps its direction (the same
    ``higher_is_better`` applies to the result) and its order: ``rank`` gives
    the largest score the largest midrank (:func:`benchvote.rank` read from
    the bottom, tie tolerance ``tol``).  ``zscore`` is :func:`standardised`
    and ``minmax`` :func:`benchvote.normalization.min_max` (over 100) of the
    columns brought to unit size (:func:`unit_columns`, which changes neither),
    so huge scores do not overflow.  A task whose scores lie within ``tol`` of
    each other orders no one and becomes 0 (only a bootstrap redraw of the
    instances can make one).  ``baseline:MODEL`` divides each task by the
    score of the model in row ``baseline_row``
    (:func:`benchvote.normalization.relative_to_baseline`).
    """

    method, _ = split_normalize(method)
    if method == "none":
        return work
    if method == "baseline":
        if baseline_row is None:
            raise NotDefined("the baseline normalisation needs a baseline model")
        try:
            return pd.DataFrame(relative_to_baseline(work, baseline=work.index[baseline_row]))
        except ValueError as err:
            raise NotDefined(str(err)) from None
    if method == "rank":
        return rank(work, False, tol=tol)
    unit, scale = unit_columns(work.to_numpy(dtype=float))
    with np.errstate(over="ignore"):
        width = unit.max(axis=0) - unit.min(axis=0)
        keep = np.flatnonzero((width > 0) & (width * scale > tol))
    out = np.zeros(unit.shape)
    if len(keep):
        part = pd.DataFrame(unit[:, keep])
        if method == "zscore":
            out[:, keep] = standardised(part, pd.Series(True, index=part.columns)).to_numpy()
        else:
            out[:, keep] = np.asarray(min_max(part.to_numpy(), True), dtype=float) / 100.0
    return pd.DataFrame(out, index=work.index, columns=work.columns)


@dataclass(frozen=True)
class Cardinal:
    r"""What the cardinal parts read: the normalisation, then each task scaled by its weight.

    Scaling task k by :math:`n w_k / \sum_j w_j` makes the plain mean of the
    result the weighted mean, so the possible winners' box, the cardinal
    sensitivity's starting point and the bootstrap's one-task scores all
    start from the published weighting.  ``weights`` is indexed by task name;
    an unlabelled table (a bootstrap redraw) must have the tasks in that order.
    """

    method: str = "none"
    tol: float = DEFAULT_TIE_TOLERANCE
    baseline_row: int | None = None
    weights: pd.Series | None = None

    def task_weights(self, frame: pd.DataFrame, labelled: bool) -> np.ndarray | None:
        """The weights of ``frame``'s columns: by name when labelled, by position otherwise."""
        if self.weights is None:
            return None
        if labelled:
            return self.weights.reindex([str(t) for t in frame.columns]).to_numpy(dtype=float)
        if frame.shape[1] != len(self.weights):
            raise ValueError("an unlabelled table must have one column per weighted task, in order")
        return self.weights.to_numpy(dtype=float)

    def __call__(self, scores: Any) -> pd.DataFrame:
        labelled = isinstance(scores, pd.DataFrame)
        frame = scores if labelled else pd.DataFrame(np.asarray(scores, dtype=float))
        out = normalised(frame, self.method, self.tol, self.baseline_row)
        w = self.task_weights(frame, labelled)
        return out if w is None else out * (w * len(w) / w.sum())

    def ratio_table(self, scores: Any) -> tuple[pd.DataFrame, np.ndarray | None]:
        """The table the geometric mean reads (raw, or relative to the baseline) and its task weights."""
        labelled = isinstance(scores, pd.DataFrame)
        frame = scores if labelled else pd.DataFrame(np.asarray(scores, dtype=float))
        method = split_normalize(self.method)[0]
        table = normalised(frame, self.method, self.tol, self.baseline_row) if method == "baseline" else frame
        return table, self.task_weights(frame, labelled)


def audit_rules(cardinal: Cardinal) -> dict[str, Rule]:
    """:data:`benchvote.rules.RULES`, with the cardinal rules on the table ``cardinal`` makes (normalised and weighted).

    The mean score is the plain mean of ``cardinal(scores)`` and its ranks are
    compared exactly (:func:`benchvote.rules.mean_ranks`) on that same table,
    the one the possible winners and the cardinal sensitivity read.  The
    geometric mean reads the raw table, or the baseline-relative one, with the
    task weights as exponents (a centring normalisation would make scores
    negative; the geometric mean's ranking does not depend on the units anyway).
    """
    method = split_normalize(cardinal.method)[0]
    if method == "none" and cardinal.weights is None:
        return RULES
    base, geo = RULES["mean_score"], RULES["geometric_mean"]
    weighted = cardinal.weights is not None

    def mean(scores: Any, higher_is_better: Any = True) -> Any:
        return mean_score(cardinal(scores), higher_is_better)

    def ranks(scores: Any, higher_is_better: Any, tol: float) -> Any:
        return mean_ranks(cardinal(scores), higher_is_better, tol=tol)

    def geometric(scores: Any, higher_is_better: Any = True) -> Any:
        table, w = cardinal.ratio_table(scores)
        return _geometric(table, higher_is_better, weights=w)

    label = ("Weighted mean score" if weighted else base.label) + ("" if method == "none" else f" ({method})")
    how = (" with the given task weights" if weighted else "") + (
        "" if method == "none" else f", after the {method} normalisation"
    )
    geo_how = (" with the given task weights" if weighted else "") + (
        ", relative to the baseline" if method == "baseline" else ""
    )
    return {
        **RULES,
        "mean_score": Rule(label, mean, False, f"{base.definition}{how}", ranks=ranks, cardinal=True),
        "geometric_mean": Rule(
            ("Weighted geometric mean" if weighted else geo.label) + (" (baseline)" if method == "baseline" else ""),
            geometric,
            False,
            f"{geo.definition}{geo_how}",
            cardinal=True,
        ),
    }
