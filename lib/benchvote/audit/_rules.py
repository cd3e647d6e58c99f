"""The aggregation rules the audit ranks by: one registry, read by the audit, the command line and the tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..aggregation import mean_score
from ..ranking import DEFAULT_TIE_TOLERANCE, rank
from ..rules import RULES, Rule
from ._errors import NotDefined

__all__ = ["Rule", "AUDIT_RULES", "NORMALIZATIONS", "audit_rules", "normalised"]


#: The rules the audit ranks by: the library's registry (:data:`benchvote.rules.RULES`).
AUDIT_RULES = RULES


#: The normalisations of the cardinal parts (``normalize``), name -> what it does to each measured task.
NORMALIZATIONS: dict[str, str] = {
    "none": "the scores as read",
    "zscore": "each task centred and divided by its standard deviation over the measured models (ddof=0)",
    "minmax": "each task mapped onto [0, 1] by (score - min) / (max - min)",
    "rank": "each task replaced by its midranks (ties share the mean rank; read in the task's direction, the best "
    "model ranks highest)",
}


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
        raise NotDefined(f"task(s) {', '.join(bad[:5])} have no spread that floating point can standardise")
    return pd.DataFrame(x / std, index=work.index, columns=work.columns)


def normalised(work: pd.DataFrame, method: str, tol: float = DEFAULT_TIE_TOLERANCE) -> pd.DataFrame:
    """Every task through the increasing transform ``method`` of :data:`NORMALIZATIONS`.

    Each transform is increasing, so a task keeps its direction (the same
    ``higher_is_better`` applies to the result) and its order: ``rank`` gives
    the largest score the largest midrank (:func:`benchvote.rank` read from
    the bottom, tie tolerance ``tol``).  ``zscore`` is :func:`standardised`
    and ``minmax`` :func:`benchvote.normalization.min_max` (over 100) of the
    columns brought to unit size (:func:`unit_columns`, which changes neither),
    so huge scores do not overflow.  A task whose scores lie within ``tol`` of
    each other orders no one and becomes 0 (only a bootstrap redraw of the
    instances can make one).
    """
    from ..normalization import min_max

    if method == "none":
        return work
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


def _normalised_rule(method: str, tol: float) -> Callable[..., Any]:
    """The mean score of the ``method``-normalised table, as a rule (the bootstraps call it on arrays)."""

    def rule(scores: Any, higher_is_better: Any = True) -> Any:
        frame = scores if isinstance(scores, pd.DataFrame) else pd.DataFrame(np.asarray(scores, dtype=float))
        return mean_score(normalised(frame, method, tol), higher_is_better)

    return rule


def audit_rules(normalize: str, tol: float) -> dict[str, Rule]:
    """:data:`AUDIT_RULES`, with the mean score read on the ``normalize``-normalised table."""
    if normalize == "none":
        return AUDIT_RULES
    base = AUDIT_RULES["mean_score"]
    return {
        **AUDIT_RULES,
        "mean_score": Rule(
            f"{base.label} ({normalize})",
            _normalised_rule(normalize, tol),
            False,
            f"{base.definition}, after the {normalize} normalisation",
        ),
    }
