"""Rank-flip controls that compute in the page: they work on the static site, offline, and in Jupyter alike.

Each function returns an :class:`Explorable`, a self-contained HTML fragment
(controls, a chart, a JSON payload and a small script shipped with the
package).  It needs no kernel, no CDN and no JavaScript library.  The payload
holds the library's own results wherever the page cannot recompute them:

* :func:`model_toggle`: pairwise win and comparison counts
  (:func:`benchvote.pairwise_wins`); the page sums exact rational win rates
  over the ticked field, as :func:`benchvote.protected_ranking` does.  With
  ``convention="quantile"`` every subset of the pool is computed here and
  looked up, with the exact quantile win rates as fractions.
* :func:`label_noise`: the table and the worst-case weights of
  :func:`benchvote.sensitivity.cardinal_sensitivity`; the page ranks weighted
  means with the library's tie tolerance and midranks.
* :func:`missing_share`: every state of the slider, computed here with
  :func:`benchvote.missing.knock_out` and looked up.
* :func:`cell_knockout`: the table; the page recomputes the mean of observed
  scores and one-level Borda (:func:`benchvote.missing.partial_borda`, by its
  closed form).
* :func:`effort`: the return curves; the page solves water filling for
  logarithmic returns in closed form (:func:`benchvote.strategy.water_filling`).

The site tests drive every control in Chromium and compare what the page shows
with these functions' library counterparts.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from ._validation import as_direction, as_label_list, as_score_frame, check_choice, check_number, check_tol, split_table
from .ranking import DEFAULT_TIE_TOLERANCE, kendall_tau_distance, rank

__all__ = ["Explorable", "model_toggle", "label_noise", "missing_share", "cell_knockout", "effort", "script_json"]


@cache
def _asset(name: str) -> str:
    return (resources.files("benchvote") / "_web" / name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Explorable:
    """A control and its chart, rendered as one HTML fragment that computes in the page.

    Attributes
    ----------
    kind : str
        Which explorable (``"model-toggle"``, ``"label-noise"``, ...).
    data : dict
        The JSON payload the page computes from.
    """

    kind: str
    data: dict = field(repr=False)

    def to_html(self) -> str:
        """The fragment: a ``div`` with the payload, the stylesheet and the script (the script alone is about 31 KB)."""
        payload = script_json(self.data)
        return (
            f'<div class="bv-explorable" data-kind="{html.escape(self.kind)}">'
            f"<style>{_asset('explorables.css')}</style>"
            f'<script type="application/json" class="bv-data">{payload}</script>'
            f"<noscript>This control needs JavaScript.</noscript>"
            f"<script>{_asset('explorables.js')}</script></div>"
        )

    def _repr_html_(self) -> str:
        return self.to_html()


_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def script_json(data: Any) -> str:
    """JSON that is safe inside an HTML ``<script>`` element.

    ``< > &`` and the line separators U+2028 and U+2029 are written as ``\\uXXXX``
    escapes, so no model or task name can end the element, open a comment or
    break the script; ``json.loads`` reads the same data back.

    Parameters
    ----------
    data : JSON-serialisable object

    Returns
    -------
    str

    Examples
    --------
    >>> script_json({"name": "</script><!--"})
    '{"name":"\\\\u003c/script\\\\u003e\\\\u003c!--"}'
    """
    text = json.dumps(data, allow_nan=False, separators=(",", ":"))
    return "".join(_SCRIPT_ESCAPES.get(ch, ch) for ch in text)


def _direction(frame: pd.DataFrame, higher_is_better: Any) -> np.ndarray:
    return as_direction(
        higher_is_better, frame.shape[1], list(frame.columns) if isinstance(higher_is_better, pd.Series) else None
    )


def _ranks(values: Any) -> list[float]:
    return [float(v) for v in np.asarray(values, dtype=float)]


def model_toggle(
    scores: pd.DataFrame,
    higher_is_better: Any = True,
    *,
    protected: Sequence,
    pool: Sequence,
    convention: str = "strict",
    checked: Sequence = (),
    columns: int = 3,
    tol: float = DEFAULT_TIE_TOLERANCE,
    caption: str = "Win-rate ranks of the protected models, without and with the ticked models in the field.",
) -> Explorable:
    r"""Check boxes that add ``pool`` models to the field, and the ``protected`` models' ranking among themselves.

    The page computes :func:`benchvote.protected_ranking`: with
    ``convention="strict"`` the win rate of a protected model :math:`a` in
    field :math:`F` is :math:`\sum_{j \in F \setminus a} \mathrm{wins}_{aj} /
    \mathrm{compared}_{aj}` (up to the factor :math:`1/|F|`, the same for every
    protected model), summed in exact rational arithmetic from the counts of
    :func:`benchvote.pairwise_wins` on the whole field.  Those counts do not
    depend on which pool models are ticked unless a tie chain at ``tol`` runs
    through a pool model; such a table is refused.  With
    ``convention="quantile"`` all :math:`2^{|pool|}` states (at most 256) are
    computed here.

    Parameters
    ----------
    scores : DataFrame
        Models x tasks; ``nan`` marks a missing score.
    protected, pool : sequence of labels
        The models ranked, and the models that can join the field.
    higher_is_better : bool or sequence of bool
        Direction of each task.
    convention : {"strict", "quantile"}
        Win-rate convention of :func:`benchvote.mean_win_rate`.
    checked : sequence of labels
        Pool models ticked at the start.
    columns : int
        Columns of the check-box grid.
    tol : float
        Tie tolerance of :func:`benchvote.rank`.
    caption : str
        Caption under the chart.

    Returns
    -------
    Explorable

    Examples
    --------
    >>> s = pd.DataFrame({"t1": [2, 3, 1], "t2": [2, 3, 1], "t3": [3, 1, 2]}, index=list("ABC"))
    >>> x = model_toggle(s, protected=["A", "B"], pool=["C"])
    >>> x.data["base"], x.data["wins"][0]
    ([2.0, 1.0], [0, 1, 3])
    """
    from .aggregation import pairwise_wins, protected_ranking

    check_choice(convention, "convention", ("strict", "quantile"))
    tol = check_tol(tol)
    columns = check_number(columns, "columns", low=1, integer=True)
    scores, higher_is_better = split_table(scores, higher_is_better)
    frame = as_score_frame(scores, allow_nan=True, allow_empty_rows=True)
    protected = as_label_list(protected, "protected", frame.index)
    pool = as_label_list(pool, "pool", frame.index)
    checked = as_label_list(checked, "checked", pool)
    overlap = set(protected) & set(pool)
    if overlap:
        raise ValueError(f"model(s) {sorted(map(str, overlap))[:5]} are both protected and added")
    base = protected_ranking(frame, higher_is_better, protected=protected, convention=convention, tol=tol)
    field_labels = protected + pool
    sub = frame.loc[field_labels]
    direction = _direction(frame, higher_is_better)
    data: dict[str, Any] = {
        "protected": [str(x) for x in protected],
        "pool": [str(x) for x in pool],
        "field": [str(x) for x in field_labels],
        "checked": [str(x) for x in checked],
        "columns": columns,
        "convention": convention,
        "base": _ranks(base),
        "caption": caption,
        "scores": [[None if np.isnan(v) else float(v) for v in row] for row in sub.to_numpy(dtype=float)],
        "tasks": [str(t) for t in frame.columns],
        "higher_is_better": [bool(d) for d in direction],
        "tol": tol,
    }
    if convention == "strict":
        if _chains(sub.to_numpy(dtype=float), tol):
            raise ValueError(
                "scores has distinct values within tol of each other in the field; the page's "
                "fixed pairwise counts could then differ from a recount on a smaller field"
            )
        counts = pairwise_wins(sub, direction, tol=tol)
        data["wins"] = counts.wins[: len(protected)].astype(int).tolist()
        data["compared"] = counts.compared[: len(protected)].astype(int).tolist()
    else:
        if len(pool) > 8:
            raise ValueError(
                f"convention='quantile' is looked up for every subset of the pool; at most 8 pool "
                f"models, got {len(pool)}"
            )
        lookup = []
        subsets = [[pool[k] for k in range(len(pool)) if key >> k & 1] for key in range(2 ** len(pool))]
        for added in subsets:
            lookup.append(
                _ranks(
                    protected_ranking(
                        frame, higher_is_better, protected=protected, added=added, convention=convention, tol=tol
                    )
                )
            )
        data["lookup"] = lookup
        data["fractions"] = [_quantile_fractions(frame, direction, protected, added, tol) for added in subsets]
    return Explorable("model-toggle", data)


def _quantile_fractions(
    frame: pd.DataFrame, direction: np.ndarray, protected: list, added: list, tol: float
) -> list[list[int]]:
    """Exact quantile win rates ``[numerator, denominator]`` of the protected models in the field ``protected + added``.

    Counted from :func:`benchvote.rank` on each task's observed scores and checked against
    :func:`benchvote.mean_win_rate`, so that the page can print fractions such as 7/9.
    """
    from fractions import Fraction

    from .aggregation import mean_win_rate

    field_frame = frame.loc[protected + added]
    values = field_frame.to_numpy(dtype=float)
    totals = [Fraction(0)] * len(protected)
    seen = [0] * len(protected)
    for t in range(values.shape[1]):
        observed = np.flatnonzero(~np.isnan(values[:, t]))
        if len(observed) == 0:
            continue
        r = np.asarray(rank(values[observed, t], higher_is_better=bool(direction[t]), tol=tol), dtype=float)
        for q, i in enumerate(observed):
            if i < len(protected):
                totals[i] += Fraction(int(np.sum(r >= r[q])), len(observed))
                seen[i] += 1
    rates = [total / count for total, count in zip(totals, seen)]
    library = np.asarray(mean_win_rate(field_frame, direction, convention="quantile", tol=tol), dtype=float)
    if not np.allclose([float(x) for x in rates], library[: len(protected)], rtol=0, atol=1e-12):
        raise RuntimeError("exact quantile win rates disagree with benchvote.mean_win_rate")
    return [[x.numerator, x.denominator] for x in rates]


def _chains(values: np.ndarray, tol: float) -> bool:
    """Whether some task has two distinct observed scores at most ``tol`` apart."""
    for col in values.T:
        seen = np.unique(col[~np.isnan(col)])
        if len(seen) > 1 and np.min(np.diff(seen)) <= tol:
            return True
    return False


def label_noise(
    scores: pd.DataFrame,
    higher_is_better: Any = True,
    *,
    top: int = 15,
    eps: float | None = None,
    worst: Any = None,
    seed: int = 0,
    tol: float = DEFAULT_TIE_TOLERANCE,
    caption: str = "The best models by mean score, ranked among themselves with clean labels and with label noise.",
) -> Explorable:
    r"""One slider per task for its share of intact labels :math:`\alpha_t \in [\varepsilon, 1]`, and the ranking.

    The page ranks the weighted means :math:`S_i = \sum_t \alpha_t s_{it} / \sum_t \alpha_t`
    with :func:`benchvote.rank` (tie tolerance ``tol``, midranks), the
    definition every sensitivity solver of the library uses, and reports the
    Kendall tau distance and the max rank change of all models against the
    plain mean.  The chart shows the ``top`` models by plain mean, ranked
    among themselves.  The *worst case* button sets the weights of
    :func:`benchvote.sensitivity.cardinal_sensitivity` (computed here unless
    ``worst`` is given).

    Parameters
    ----------
    scores : DataFrame
        Models x tasks, complete.
    higher_is_better : bool or sequence of bool
        Direction of each task; lower-is-better tasks are negated first.
    top : int
        Models shown in the chart.
    eps : float, optional
        Lowest share of intact labels (default :func:`benchvote.sensitivity.default_eps`).
    worst : array_like, optional
        Weights for the worst-case button.
    seed : int
        Seed of the search for the worst case.
    tol : float
        Tie tolerance of :func:`benchvote.rank`.
    caption : str
        Caption under the chart.

    Returns
    -------
    Explorable

    Examples
    --------
    >>> s = pd.DataFrame({"t1": [1.0, 0.0, 0.5], "t2": [0.0, 1.0, 0.4]}, index=list("ABC"))
    >>> label_noise(s, eps=0.5, worst=[1.0, 0.5]).data["before"]
    [1.5, 1.5, 3.0]
    """
    from .sensitivity import cardinal_sensitivity, default_eps

    tol = check_tol(tol)
    scores, higher_is_better = split_table(scores, higher_is_better)
    frame = as_score_frame(scores)
    top = check_number(top, "top", low=2, integer=True)
    direction = _direction(frame, higher_is_better)
    oriented = frame.to_numpy(dtype=float) * np.where(direction, 1.0, -1.0)
    low = (
        default_eps(oriented, tol=tol)
        if eps is None
        else check_number(eps, "eps", low=0.0, high=1.0, low_open=True, high_open=True)
    )
    if worst is None:
        worst = cardinal_sensitivity(
            oriented, eps=low, method="relaxation", restarts=8, steps=100, polish_starts=16, seed=seed, tol=tol
        ).weights
    worst = np.asarray(worst, dtype=float)
    if worst.shape != (frame.shape[1],) or not np.all((worst >= low - 1e-12) & (worst <= 1 + 1e-12)):
        raise ValueError(f"worst must hold one weight in [eps, 1] = [{low:g}, 1] per task")
    before = rank(oriented.mean(axis=1), tol=tol)
    shown = np.argsort(before, kind="stable")[: min(top, len(before))]
    return Explorable(
        "label-noise",
        {
            "models": [str(x) for x in frame.index],
            "tasks": [str(t) for t in frame.columns],
            "values": oriented.tolist(),
            "eps": float(low),
            "worst": np.clip(worst, low, 1.0).tolist(),
            "before": _ranks(before),
            "shown": shown.tolist(),
            "tol": tol,
            "caption": caption,
        },
    )


def missing_share(
    scores: pd.DataFrame,
    higher_is_better: Any = True,
    *,
    top: int = 8,
    shares: Sequence[float] = tuple(np.round(np.arange(0, 0.61, 0.05), 2)),
    seed: int = 0,
    tol: float = DEFAULT_TIE_TOLERANCE,
) -> Explorable:
    r"""A slider for the share of scores removed at random, and the top models under two rules.

    For every share, :func:`benchvote.missing.knock_out` (seeded) removes
    cells and the full-table top ``top`` under the mean of observed scores and
    under one-level Borda (:func:`benchvote.missing.partial_borda`) are ranked
    again; the page looks these states up.

    Parameters
    ----------
    scores : DataFrame
        Models x tasks.
    higher_is_better : bool or sequence of bool
        Direction of each task.
    top : int
        Models shown per rule.
    shares : sequence of float
        The slider's positions, each in [0, 1).
    seed : int
        Seed of :func:`benchvote.missing.knock_out` (the same for every share).
    tol : float
        Tie tolerance of :func:`benchvote.rank`.

    Returns
    -------
    Explorable

    Examples
    --------
    >>> s = pd.DataFrame([[3.0, 2.0], [2.0, 3.0], [1.0, 1.0]], index=list("ABC"), columns=["x", "y"])
    >>> x = missing_share(s, top=3, shares=[0.0, 0.2])
    >>> x.data["states"][0]["tau"]
    [0.0, 0.0]
    """
    from .aggregation import mean_score
    from .missing import knock_out, partial_borda

    tol = check_tol(tol)
    scores, higher_is_better = split_table(scores, higher_is_better)
    frame = as_score_frame(scores, allow_nan=True)
    top = check_number(top, "top", low=2, integer=True)
    seed = check_number(seed, "seed", low=0, integer=True)
    shares = [check_number(s, "share", low=0.0, high=1.0, high_open=True) for s in shares]
    if len(shares) < 2:
        raise ValueError("shares needs at least 2 positions")
    direction = _direction(frame, higher_is_better)
    oriented = frame * np.where(direction, 1.0, -1.0)

    def rules(table: pd.DataFrame) -> list[Any]:
        return [rank(mean_score(table, nan_policy="omit"), tol=tol), rank(partial_borda(table, tol=tol), tol=tol)]

    full = rules(oriented)
    shown = [list(r.sort_values(kind="stable").index[:top]) for r in full]
    states = []
    for share in shares:
        holed = knock_out(oriented, share, seed=seed)
        after = rules(holed)
        states.append(
            {
                "share": float(share),
                "missing": int(holed.isna().sum().sum()),
                "ranks": [_ranks(a[s]) for a, s in zip(after, shown)],
                "tau": [kendall_tau_distance(f, a) for f, a in zip(full, after)],
            }
        )
    return Explorable(
        "missing-share",
        {
            "rules": ["mean of observed", "one-level Borda"],
            "full": [_ranks(f[s]) for f, s in zip(full, shown)],
            "shown": [[str(x) for x in s] for s in shown],
            "states": states,
            "seed": seed,
            "scores": [[None if np.isnan(v) else float(v) for v in row] for row in oriented.to_numpy(dtype=float)],
            "models": [str(x) for x in frame.index],
            "tasks": [str(t) for t in frame.columns],
            "tol": tol,
        },
    )


def cell_knockout(
    scores: pd.DataFrame, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE
) -> Explorable:
    r"""One check box per observed cell (ticked = kept); the page ranks the models under two rules.

    The page computes the mean of each model's observed scores and one-level
    Borda by the closed form of :func:`benchvote.missing.partial_borda`: on a
    task with :math:`k` of :math:`m` models observed, an observed model at
    midrank :math:`r` expects :math:`(k - r) + (m - k)(1 - r/(k+1))` wins and
    an unobserved one :math:`(m-1)/2`.  Like the library it refuses a model
    without a score and a task with fewer than two.

    Parameters
    ----------
    scores : DataFrame
        Models x tasks; ``nan`` marks a missing score.
    higher_is_better : bool or sequence of bool
        Direction of each task (Borda only; the mean uses the scores as given).
    tol : float
        Tie tolerance of :func:`benchvote.rank`.

    Returns
    -------
    Explorable

    Examples
    --------
    >>> s = pd.DataFrame([[1.0, 2.0], [0.0, float("nan")], [2.0, 1.0]], index=list("ABC"), columns=["x", "y"])
    >>> cell_knockout(s).data["values"][1]
    [0.0, None]
    """
    tol = check_tol(tol)
    scores, higher_is_better = split_table(scores, higher_is_better)
    frame = as_score_frame(scores, allow_nan=True)
    direction = _direction(frame, higher_is_better)
    values = frame.to_numpy(dtype=float)
    return Explorable(
        "cell-knockout",
        {
            "models": [str(x) for x in frame.index],
            "tasks": [str(t) for t in frame.columns],
            "values": [[None if np.isnan(v) else float(v) for v in row] for row in values],
            "labels": [["" if np.isnan(v) else f"{v:g}" for v in row] for row in values],
            "sign": [1.0 if d else -1.0 for d in direction],
            "tol": tol,
        },
    )


def effort(
    returns_at_zero: Sequence[float],
    curvature: Sequence[float],
    tasks: Sequence[str],
    *,
    budget: float = 1.0,
    caption: str = "Optimal effort per task for the return curves set above.",
) -> Explorable:
    r"""Sliders for the return curves :math:`f_i(x) = a_i \log(1 + b_i x)`; the page solves water filling.

    The marginal return :math:`a_i b_i / (1 + b_i x)` equals the water level
    :math:`\lambda` on every task that gets effort, so
    :math:`x_i = \max(0, a_i/\lambda - 1/b_i)` with :math:`\sum_i x_i = B`;
    the page finds :math:`\lambda` by adding tasks in order of
    :math:`a_i b_i`, the closed form of :func:`benchvote.strategy.water_filling`
    for these curves.

    Parameters
    ----------
    returns_at_zero : sequence of float
        :math:`a_i b_i`, the marginal return at zero effort.
    curvature : sequence of float
        :math:`b_i`.
    tasks : sequence of str
        Task names.
    budget : float
        Total effort :math:`B`.
    caption : str
        Caption under the chart.

    Returns
    -------
    Explorable

    Examples
    --------
    >>> effort([2.0, 1.0], [1.0, 1.0], ["x", "y"]).data["a"]
    [2.0, 1.0]
    """
    a0 = np.asarray(returns_at_zero, dtype=float)
    b0 = np.asarray(curvature, dtype=float)
    tasks = [str(t) for t in tasks]
    if not (len(a0) == len(b0) == len(tasks)) or len(tasks) < 1:
        raise ValueError("returns_at_zero, curvature and tasks must have the same positive length")
    if not (np.all(np.isfinite(a0)) and np.all(np.isfinite(b0))) or (a0 <= 0).any() or (b0 <= 0).any():
        raise ValueError("returns at zero and curvatures must be finite and positive")
    budget = check_number(budget, "budget", low=0.0, low_open=True)
    a = a0 / b0
    return Explorable(
        "effort",
        {
            "tasks": tasks,
            "a": a.tolist(),
            "b": b0.tolist(),
            "budget": budget,
            "aRange": [0.05, float(max(5 * a.max(), 1.0))],
            "bRange": [0.1, float(max(3 * b0.max(), 1.0))],
            "caption": caption,
        },
    )
