"""Rank-flip controls that compute in the page: they work on the static site, offline, and in Jupyter alike.

Each function returns an :class:`Explorable`, a self-contained HTML fragment
(controls, a chart, a JSON payload and two small scripts shipped with the
package: the shared runtime ``_web/explorables.js``, then the kind's own
``_web/explorables.<kind>.js``, which registers itself with the runtime).
It needs no kernel, no CDN and no JavaScript library.  The payload
holds the library's own results wherever the page cannot recompute them:

* :func:`model_toggle`: pairwise win and comparison counts
  (:func:`benchvote.pairwise_wins`); the page sums exact rational win rates
  over the ticked field, as :func:`benchvote.protected_ranking` does, and
  offers a button per certificate (a set of pool models).  With
  ``convention="quantile"`` every subset of the pool is computed here and
  looked up, with the exact quantile win rates as fractions.
* :func:`label_noise`: the table and the worst-case weights of
  :func:`benchvote.sensitivity.cardinal_sensitivity`; the page ranks weighted
  means with the library's tie tolerance and midranks (sliders on a log scale).
* :func:`missing_share`: every state of the slider, with both rules' scores,
  computed here with :func:`benchvote.missing.knock_out` and looked up.
* :func:`cell_knockout`: the table; the page recomputes the mean of observed
  scores and one-level Borda (:func:`benchvote.missing.partial_borda`, by its
  closed form).
* :func:`effort`: the return curves; the page solves water filling for
  logarithmic returns in closed form (:func:`benchvote.strategy.water_filling`)
  and draws the vessels and their water level.
* :func:`domain_explorer`: check boxes for up to ``max_models`` models; every
  subset's verdicts (:func:`benchvote.domains.domain_report`) are computed here
  and looked up, and the page draws the majority relation from the margins of
  :func:`benchvote.domains.profile_majority`.
* :func:`positional_rule`: the complete table; the page ranks every task
  with the library's tie tolerance and midranks, splits the points of tied
  places as :func:`benchvote.positional.positional_scores` does, and sums
  them under :math:`k`-approval (a slider) or Borda (a button).
* :func:`rank_sets_explorer`: the right/wrong answers of every model on
  every item; for the chosen numbers of items and tasks the page counts the
  discordant items and the tasks won, computes McNemar's and the sign test's
  exact p-values, Holm's adjustment, the simultaneous rank sets and the tiers
  (:func:`benchvote.comparisons.rank_sets`).

Every explorable also carries a guided path, :attr:`Explorable.steps`: what
to do and what the reader should then see, written here from the library's
own results.  The page prints the steps under the controls, and the browser
tests perform each one and compare the page with the expected outcome.
:data:`KINDS` is the one registry of kinds that the code and the tests loop over; each kind has
exactly one page script.

The site tests drive every control in Chromium and compare what the page shows
with these functions' library counterparts.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from importlib import resources
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from ._validation import (
    as_label_list,
    check_choice,
    check_number,
    measure,
    numbered,
)
from .aggregation import mean_score, mean_win_rate, pairwise_wins, protected_ranking
from .comparisons import rank_sets
from .domains import domain_report, profile_majority, rankings_from_scores
from .missing import knock_out, partial_borda
from .positional import positional_winners
from .ranking import (
    DEFAULT_TIE_TOLERANCE,
    changed_pairs,
    flipped_pairs,
    kendall_tau_distance,
    max_rank_change,
    rank,
)
from .strategy import water_filling

__all__ = [
    "KINDS",
    "Explorable",
    "model_toggle",
    "label_noise",
    "missing_share",
    "cell_knockout",
    "effort",
    "domain_explorer",
    "positional_rule",
    "rank_sets_explorer",
    "script_json",
]


@cache
def _asset(name: str) -> str:
    return (resources.files("benchvote") / "_web" / name).read_text(encoding="utf-8")


#: The shared runtime of the page: ranks and ties by the library's definitions, drawing, the registry of kinds.
_RUNTIME = "explorables.js"


def _scripts(kind: str) -> tuple[str, str]:
    """The files in ``benchvote/_web`` that an explorable of ``kind`` runs, in order: the runtime, then its kind's.

    Each is a classic script (no modules, so that a page opened from ``file://`` works), inlined by
    :meth:`Explorable.to_html`; the kind's script registers the kind with the runtime and mounts the explorable.

    Examples
    --------
    >>> _scripts("effort")
    ('explorables.js', 'explorables.effort.js')
    """
    return (_RUNTIME, f"explorables.{kind}.js")


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
        """The fragment: a ``div`` with the stylesheet, the payload and two scripts: the shared runtime
        (``_web/explorables.js``, about 17 KB), then the kind's own (``_web/explorables.<kind>.js``, 3 to 11 KB)."""
        payload = script_json(self.data)
        code = "".join(f"<script>{_asset(name)}</script>" for name in _scripts(self.kind))
        return (
            f'<div class="bv-explorable" data-kind="{html.escape(self.kind)}">'
            f"<style>{_asset('explorables.css')}</style>"
            f'<script type="application/json" class="bv-data">{payload}</script>'
            f"<noscript>This control needs JavaScript.</noscript>"
            f"{code}</div>"
        )

    def _repr_html_(self) -> str:
        return self.to_html()

    @property
    def steps(self) -> list[dict]:
        """The guided path: each step has ``say`` (what to do), ``see`` (what the reader should then see),
        ``do`` (the same actions as data: ``boxes`` with ``on`` or ``off``, ``click``, ``range``) and
        ``view``/``text`` (the outcome: values of ``bvView()`` and phrases of the summary)."""
        return list(self.data.get("steps", ()))


def _step(say: str, see: str, do: list[dict], view: dict | None = None, text: Sequence[str] = ()) -> dict:
    """One step of a guided path (see :attr:`Explorable.steps`)."""
    return {"say": say, "see": see, "do": do, "view": view or {}, "text": list(text)}


def _describe(before: Any, after: Any, labels: Sequence[str]) -> list[str]:
    """How each changed pair now stands, in the words of the page's summary ("A now ahead of B", "A and B now tie")."""
    out = []
    for i, j in changed_pairs(np.asarray(before, dtype=float), np.asarray(after, dtype=float)):
        a, b = labels[i], labels[j]
        if after[i] == after[j]:
            out.append(f"{a} and {b} now tie")
        else:
            out.append(f"{a} now ahead of {b}" if after[i] < after[j] else f"{b} now ahead of {a}")
    return out


def _names(labels: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    labels = [str(x) for x in labels]
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


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


def _ranks(values: Any) -> list[float]:
    return [float(v) for v in np.asarray(values, dtype=float)]


@measure(allow_nan=True, allow_empty_rows=True)
def model_toggle(
    scores: Any,
    higher_is_better: Any = True,
    *,
    protected: Sequence,
    pool: Sequence,
    convention: str = "strict",
    checked: Sequence = (),
    certificates: Sequence[Sequence] = (),
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
    protected, pool : sequence of labels
        The models ranked, and the models that can join the field.
    convention : {"strict", "quantile"}
        Win-rate convention of :func:`benchvote.mean_win_rate`.
    checked : sequence of labels
        Pool models ticked at the start.
    certificates : sequence of sequences of labels
        Sets of pool models, each with a *certificate* button that ticks exactly
        that set (for instance the certificates of :func:`benchvote.axioms.iia_report`).
        The guided path presses the one that reverses the most pairs; without
        certificates it ticks the pool model that alone changes the most pairs.
    columns : int
        Columns of the check-box grid.
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
    check_choice(convention, "convention", ("strict", "quantile"))
    columns = check_number(columns, "columns", low=1, integer=True)
    frame = scores.frame()
    protected = as_label_list(protected, "protected", frame.index)
    pool = as_label_list(pool, "pool", frame.index)
    checked = as_label_list(checked, "checked", pool)
    overlap = set(protected) & set(pool)
    if overlap:
        raise ValueError(
            f"{numbered(len(overlap), 'model')} {sorted(map(str, overlap))[:5]} {numbered(len(overlap), 'is', 'are')} "
            "both protected and added"
        )
    certificates = [as_label_list(c, "certificates", pool) for c in certificates]
    if any(not c for c in certificates):
        raise ValueError("every certificate needs at least one pool model")
    base = protected_ranking(frame, higher_is_better, protected=protected, convention=convention, tol=tol)
    field_labels = protected + pool
    sub = frame.loc[field_labels]
    direction = scores.direction
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
        "certificates": [sorted({pool.index(x) for x in c}) for c in certificates],
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
    data["steps"] = _toggle_steps(frame, higher_is_better, protected, pool, data)
    return Explorable("model-toggle", data)


def _rate_text(f: Any) -> str:
    """A win rate as the page prints it: "7/9 = 0.7778" when the reduced denominator is at most 200."""
    text = f"{f.numerator}/{f.denominator}" if f.denominator != 1 else str(f.numerator)
    return f"{text} = {float(f):.4f}" if f.denominator <= 200 else f"{float(f):.4f}"


def _toggle_rates(data: dict, added: list[int]) -> list[Any]:
    """Exact win rates of the protected models with the pool models ``added`` (indices), as the page sums them."""
    p = len(data["protected"])
    if data["convention"] == "quantile":
        return [Fraction(a, b) for a, b in data["fractions"][sum(2**k for k in added)]]
    field_idx = list(range(p)) + [p + k for k in added]
    return [
        sum((Fraction(data["wins"][a][j], data["compared"][a][j]) for j in field_idx if j != a), Fraction(0))
        / len(field_idx)
        for a in range(p)
    ]


def _toggle_outcome(
    frame: pd.DataFrame, higher_is_better: Any, protected: list, pool: list, data: dict, added: list[int]
) -> dict | None:
    """What the page of :func:`model_toggle` shows with the pool models ``added`` (indices) ticked: the sentence
    ``see``, the ``view`` (``bvView()``) and the summary's ``text``, from :func:`benchvote.protected_ranking`;
    ``None`` when the library refuses that field."""
    try:
        after = _ranks(
            protected_ranking(
                frame,
                higher_is_better,
                protected=protected,
                added=[pool[k] for k in added],
                convention=data["convention"],
                tol=data["tol"],
            )
        )
    except ValueError:  # the library refuses this field (two models share no task)
        return None
    rates = _toggle_rates(data, added)
    changed = changed_pairs(np.asarray(data["base"]), np.asarray(after))
    parts = _describe(data["base"], after, data["protected"])
    shown = list(parts[:2])
    if changed:  # the numbers behind the first change, in the order the sentence names the models
        i, j = changed[0] if after[changed[0][0]] <= after[changed[0][1]] else changed[0][::-1]
        names = data["protected"]
        shown[0] += f" ({names[i]} at {_rate_text(rates[i])}, {names[j]} at {_rate_text(rates[j])})"
    see = "; ".join(shown) + (f" and {len(parts) - 2} more" if len(parts) > 2 else "")
    view = {
        "added": [data["pool"][k] for k in added],
        "after": after,
        "changed": len(changed),
        "reversed": len(flipped_pairs(np.asarray(data["base"]), np.asarray(after))),
        "fractions": [f"{f.numerator}/{f.denominator}" if f.denominator != 1 else str(f.numerator) for f in rates],
    }
    return {"see": see or "no pair of protected models changes order", "view": view, "text": parts[:2]}


def _toggle_first_step(data: dict, outcome: Callable[[list[int]], dict | None]) -> dict | None:
    """The first step of :func:`model_toggle`'s path: the certificate that reverses the most pairs or, without
    certificates, the pool model that alone changes the most pairs (``None`` when none changes any)."""
    if data["certificates"]:
        found: list[tuple[int, dict]] = [
            (k, o) for k, c in enumerate(data["certificates"]) if (o := outcome(sorted(c))) is not None
        ]
        k, o = max(found, key=lambda ko: (ko[1]["view"]["reversed"], -ko[0]))
        names = _names([data["pool"][q] for q in data["certificates"][k]])
        return _step(
            f"Press “certificate {k + 1}”, which ticks {names} and nothing else.",
            o["see"],
            [{"op": "click", "name": f"cert-{k}"}],
            o["view"],
            o["text"],
        )
    alone: list[tuple[int, dict]] = [
        (k, o) for k in range(len(data["pool"])) if (o := outcome([k])) is not None and o["view"]["changed"]
    ]
    if not alone:
        return None
    k, o = max(alone, key=lambda ko: (ko[1]["view"]["changed"], -ko[0]))
    return _step(
        f"Tick {data['pool'][k]} alone.", o["see"], [{"op": "boxes", "on": [f"add-{k}"]}], o["view"], o["text"]
    )


def _toggle_steps(frame: pd.DataFrame, higher_is_better: Any, protected: list, pool: list, data: dict) -> list[dict]:
    """The guided path of :func:`model_toggle`, with outcomes from :func:`benchvote.protected_ranking`."""

    def outcome(added: list[int]) -> dict | None:
        return _toggle_outcome(frame, higher_is_better, protected, pool, data, added)

    first = _toggle_first_step(data, outcome)
    steps = [] if first is None else [first]
    if len(pool) > 1:
        every = outcome(list(range(len(pool))))
        if every is not None:
            n = every["view"]["changed"]
            pairs = len(protected) * (len(protected) - 1) // 2
            steps.append(
                _step(
                    "Tick every box.",
                    f"{n} of the {pairs} {numbered(pairs, 'pair')} of protected models "
                    + ("changes order" if n == 1 else "change order"),
                    [{"op": "boxes", "on": [f"add-{k}" for k in range(len(pool))]}],
                    every["view"],
                )
            )
    return steps


def _quantile_fractions(
    frame: pd.DataFrame, direction: np.ndarray, protected: list, added: list, tol: float
) -> list[list[int]]:
    """Exact quantile win rates ``[numerator, denominator]`` of the protected models in the field ``protected + added``.

    Counted from :func:`benchvote.rank` on each task's observed scores and checked against
    :func:`benchvote.mean_win_rate`, so that the page can print fractions such as 7/9.
    """
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


@measure(allow_nan=False)
def label_noise(
    scores: Any,
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
    # imported on use: benchvote.sensitivity loads numba and its solvers, about 5 s on a first import
    # (python -X importtime), which no other explorable needs
    from .sensitivity import cardinal_sensitivity, default_eps

    frame = scores.frame()
    top = check_number(top, "top", low=2, integer=True)
    direction = scores.direction
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
    worst = np.clip(worst, low, 1.0)
    return Explorable(
        "label-noise",
        {
            "steps": _noise_steps(oriented, [str(t) for t in frame.columns], before, worst, low, tol),
            "models": [str(x) for x in frame.index],
            "tasks": [str(t) for t in frame.columns],
            "values": oriented.tolist(),
            "eps": float(low),
            "worst": worst.tolist(),
            "before": _ranks(before),
            "shown": shown.tolist(),
            "tol": tol,
            "caption": caption,
        },
    )


def _noise_steps(
    values: np.ndarray, tasks: list[str], before: Any, worst: np.ndarray, eps: float, tol: float
) -> list[dict]:
    """The guided path of :func:`label_noise`: the worst case, then the one task whose silencing alone moves most."""

    def outcome(alpha: np.ndarray) -> tuple[dict, str]:
        after = rank(values @ alpha / alpha.sum(), tol=tol)
        tau, mrc = kendall_tau_distance(before, after), max_rank_change(before, after)
        view = {"after": _ranks(after), "tau": tau, "mrc": mrc}
        return view, f"Kendall tau distance {tau:.3f}"

    view, phrase = outcome(worst)
    steps = [
        _step(
            "Press “worst case”.",
            f"the sliders jump to the weights found by the library and the summary reads {phrase} "
            f"(max rank change {view['mrc']:.3f})",
            [{"op": "click", "name": "worst"}],
            view,
            [phrase],
        )
    ]
    silenced = []
    for k in range(len(tasks)):
        alpha = np.ones(len(tasks))
        alpha[k] = eps
        silenced.append(outcome(alpha))
    k = max(range(len(tasks)), key=lambda q: (silenced[q][0]["tau"], -q))
    steps.append(
        _step(
            f"Press “no noise”, then drag the slider of {tasks[k]} all the way down (ε = {eps:g}).",
            f"{silenced[k][1]}: silencing that one task moves the ranking most",
            [{"op": "click", "name": "clean"}, {"op": "range", "name": f"alpha-{k}", "value": "min"}],
            silenced[k][0],
            [silenced[k][1]],
        )
    )
    return steps


@measure(allow_nan=True)
def missing_share(
    scores: Any,
    higher_is_better: Any = True,
    *,
    top: int = 8,
    shares: Sequence[float] = tuple(np.round(np.arange(0, 0.61, 0.05), 2)),
    seed: int = 0,
    tol: float = DEFAULT_TIE_TOLERANCE,
) -> Explorable:
    r"""A slider for the share of scores removed at random, and the top models under two rules, with their scores.

    For every share, :func:`benchvote.missing.knock_out` (seeded) removes
    cells and the full-table top ``top`` under the mean of observed scores and
    under one-level Borda (:func:`benchvote.missing.partial_borda`) are ranked
    again; the page looks these states up.

    Parameters
    ----------
    top : int
        Models shown per rule.
    shares : sequence of float
        The slider's positions, each in [0, 1).
    seed : int
        Seed of :func:`benchvote.missing.knock_out` (the same for every share).

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
    frame = scores.frame()
    top = check_number(top, "top", low=2, integer=True)
    shares = [check_number(s, "share", low=0.0, high=1.0, high_open=True) for s in shares]
    if len(shares) < 2:
        raise ValueError("shares needs at least 2 positions")
    direction = scores.direction
    oriented = frame * np.where(direction, 1.0, -1.0)

    def values(table: pd.DataFrame) -> list[Any]:
        return [mean_score(table, nan_policy="omit"), partial_borda(table, tol=tol)]

    full_values = values(oriented)
    full = [rank(v, tol=tol) for v in full_values]
    shown = [list(r.sort_values(kind="stable").index[:top]) for r in full]
    states: list[dict[str, Any]] = []
    for share in shares:
        holed = knock_out(oriented, share, seed=seed)
        now = values(holed)
        after = [rank(v, tol=tol) for v in now]
        states.append(
            {
                "share": float(share),
                "missing": int(holed.isna().sum().sum()),
                "ranks": [_ranks(a[s]) for a, s in zip(after, shown)],
                "values": [_ranks(v[s]) for v, s in zip(now, shown)],
                "tau": [kendall_tau_distance(f, a) for f, a in zip(full, after)],
            }
        )
    gap = [st["tau"][0] - st["tau"][1] for st in states]
    pos = max(range(len(states)), key=lambda q: (gap[q], -q))
    st = states[pos]
    phrases = [
        f"{rule}: Kendall tau distance {t:.3f}" for rule, t in zip(("mean of observed", "one-level Borda"), st["tau"])
    ]
    steps = [
        _step(
            f"Move the slider to {round(st['share'] * 100)}%.",
            f"{st['missing']} cells missing; {phrases[0]} against {st['tau'][1]:.3f} for one-level Borda",
            [{"op": "range", "name": "share", "value": pos}],
            {"share": st["share"], "missing": st["missing"], "tau": st["tau"]},
            phrases,
        )
    ]
    return Explorable(
        "missing-share",
        {
            "steps": steps,
            "fullValues": [_ranks(v[s]) for v, s in zip(full_values, shown)],
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


@measure(allow_nan=True)
def cell_knockout(scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE) -> Explorable:
    r"""One check box per observed cell (ticked = kept); the page ranks the models under two rules.

    The page computes the mean of each model's observed scores and one-level
    Borda by the closed form of :func:`benchvote.missing.partial_borda`: on a
    task with :math:`k` of :math:`m` models observed, an observed model at
    midrank :math:`r` expects :math:`(k - r) + (m - k)(1 - r/(k+1))` wins and
    an unobserved one :math:`(m-1)/2`.  Like the library it refuses a model
    without a score and a task with fewer than two.

    Parameters
    ----------
    higher_is_better : bool or sequence of bool
        Direction of each task (Borda only; the mean uses the scores as given).

    Returns
    -------
    Explorable

    Examples
    --------
    >>> s = pd.DataFrame([[1.0, 2.0], [0.0, float("nan")], [2.0, 1.0]], index=list("ABC"), columns=["x", "y"])
    >>> cell_knockout(s).data["values"][1]
    [0.0, None]
    """
    frame = scores.frame()
    direction = scores.direction
    values = frame.to_numpy(dtype=float)
    return Explorable(
        "cell-knockout",
        {
            "steps": _knockout_steps(frame, direction, tol),
            "models": [str(x) for x in frame.index],
            "tasks": [str(t) for t in frame.columns],
            "values": [[None if np.isnan(v) else float(v) for v in row] for row in values],
            "labels": [["" if np.isnan(v) else f"{v:g}" for v in row] for row in values],
            "sign": [1.0 if d else -1.0 for d in direction],
            "tol": tol,
        },
    )


def _knockout_steps(frame: pd.DataFrame, direction: np.ndarray, tol: float) -> list[dict]:
    """The guided path of :func:`cell_knockout`: the one cell whose removal changes the mean's order most."""
    labels = [str(x) for x in frame.index]

    def ranks(table: pd.DataFrame) -> list[list[float]] | None:
        try:
            return [
                _ranks(rank(mean_score(table, nan_policy="omit"), tol=tol)),
                _ranks(rank(partial_borda(table, direction, tol=tol), tol=tol)),
            ]
        except ValueError:  # a model without a score or a task with fewer than two
            return None

    base = ranks(frame)
    if base is None:
        return []
    best = None
    for i, j in zip(*np.nonzero(frame.notna().to_numpy())):
        holed = frame.copy()
        holed.iat[i, j] = np.nan
        got = ranks(holed)
        if got is None:
            continue
        score = tuple(len(changed_pairs(np.asarray(b), np.asarray(a))) for b, a in zip(base, got))
        if best is None or score > best[0]:
            best = (score, int(i), int(j), got)
    if best is None:
        return []
    _, i, j, got = best
    said, shown = [], []
    for rule, b, a in zip(("mean of observed", "one-level Borda"), base, got):
        words = _describe(b, a, labels)
        more = f" and {len(words) - 2} more" if len(words) > 2 else ""
        said.append(f"{rule}: {', '.join(words[:2])}{more}" if words else f"{rule}: no pair changes order")
        shown.append(f"{rule}: {', '.join(words)}" if words else said[-1])  # the page lists every change
    return [
        _step(
            f"Untick {labels[i]}'s score on {frame.columns[j]} ({frame.to_numpy(dtype=float)[i, j]:g}).",
            "; ".join(said),
            [{"op": "boxes", "off": [f"cell-{i}-{j}"]}],
            {"meanRanks": got[0], "bordaRanks": got[1]},
            text=["1 cell removed", "; ".join(shown)],
        )
    ]


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
    for these curves.  It draws the marginal returns with the water level as a
    line that moves with every slider, the budget's included.

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
    budget_range = [budget / 20, 4 * budget]
    return Explorable(
        "effort",
        {
            "tasks": tasks,
            "a": a.tolist(),
            "b": b0.tolist(),
            "budget": budget,
            "aRange": [0.05, float(max(5 * a.max(), 1.0))],
            "bRange": [0.1, float(max(3 * b0.max(), 1.0))],
            "budgetRange": budget_range,
            "caption": caption,
            "steps": _effort_steps(a, b0, tasks, budget, budget_range),
        },
    )


def _effort_steps(a: np.ndarray, b: np.ndarray, tasks: list[str], budget: float, budget_range: list) -> list[dict]:
    """The guided path of :func:`effort`, with outcomes from :func:`benchvote.strategy.water_filling`."""

    def slope(ai: float, bi: float) -> Callable[[float], float]:
        return lambda x: ai * bi / (1 + bi * x)

    def plan(total: float) -> Any:
        return water_filling([slope(ai, bi) for ai, bi in zip(a, b)], total)

    def funded(p: Any) -> str:
        names = [t for t, on in zip(tasks, p.active) if on]
        return f"{len(names)} of {len(tasks)} tasks get effort ({_names(names)})"

    steps = []
    start = plan(budget)
    # the budget at which the second task (by marginal return at zero) starts to get effort
    order = np.argsort(-(a * b), kind="stable")
    if len(tasks) > 1 and a[order[0]] * b[order[0]] > a[order[1]] * b[order[1]]:
        entry = a[order[0]] / (a[order[1]] * b[order[1]]) - 1 / b[order[0]]
        low = float(np.round(max(entry / 2, budget_range[0]), 3))
        if budget_range[0] <= low < budget and int(plan(low).active.sum()) < int(start.active.sum()):
            p = plan(low)
            steps.append(
                _step(
                    f"Drag the budget down to {low:g}.",
                    f"the water level rises to {p.level:.3f} and {funded(p)}",
                    [{"op": "range", "name": "budget", "value": low}],
                    {"level": p.level, "active": p.active.tolist(), "allocation": p.allocation.tolist()},
                    [f"Water level {p.level:.3f}"],
                )
            )
    high = budget_range[1]
    p = plan(high)
    steps.append(
        _step(
            f"Drag the budget up to {high:g}.",
            f"the water level falls to {p.level:.3f} and {funded(p)}",
            [{"op": "range", "name": "budget", "value": high}],
            {"level": p.level, "active": p.active.tolist(), "allocation": p.allocation.tolist()},
            [f"Water level {p.level:.3f}"],
        )
    )
    return steps


@measure(allow_nan=False)
def domain_explorer(
    scores: Any,
    higher_is_better: Any = True,
    *,
    models: Sequence,
    checked: Sequence = (),
    max_models: int = 8,
    tie_break: str = "alphabetical",
    tol: float = DEFAULT_TIE_TOLERANCE,
    caption: str = "Majority relation of the ticked models: an arrow points from the winner of each pairwise majority.",
) -> Explorable:
    r"""Check boxes for models (candidates), with the metrics as voters: domain restrictions and the majority relation.

    Each metric ranks the ticked models strictly (:func:`benchvote.domains.rankings_from_scores`,
    ties broken by ``tie_break``).  For every subset of 3 to ``max_models`` of the offered models,
    :func:`benchvote.domains.domain_report` is computed here and looked up by the page: whether the
    profile is single-peaked (with an axis), group-separable, and how many three-model majority
    cycles it has.  The page draws the majority relation from the pairwise margins of
    :func:`benchvote.domains.profile_majority` on all offered models; restricting a profile to
    fewer models leaves every pair's margin unchanged, which is checked here for every subset.

    Parameters
    ----------
    scores : DataFrame
        Models x metrics, complete on the offered models.
    higher_is_better : bool or sequence of bool
        Direction of each metric.
    models : sequence of labels
        The models offered as check boxes (3 to 12).
    checked : sequence of labels
        Models ticked at the start.
    max_models : int
        Most models looked up at once (3 to 8).
    tie_break : {"alphabetical", "reverse"}
        How :func:`benchvote.domains.rankings_from_scores` orders tied models.
    caption : str
        Caption under the chart.

    Returns
    -------
    Explorable

    Examples
    --------
    >>> s = pd.DataFrame({"x": [3, 2, 1], "y": [1, 3, 2], "z": [2, 1, 3]}, index=list("ABC"))
    >>> x = domain_explorer(s, models=list("ABC"), checked=list("ABC"))
    >>> x.data["lookup"]["7"]
    [None, False, 1]
    """
    frame = scores.frame()
    models = as_label_list(models, "models", frame.index)
    checked = as_label_list(checked, "checked", models)
    if not 3 <= len(models) <= 12:
        raise ValueError(f"models: offer 3 to 12 models, got {len(models)}")
    max_models = check_number(max_models, "max_models", low=3, high=8, integer=True)
    direction = scores.direction
    sub = frame.loc[models]

    def profile(labels: Sequence) -> list[tuple]:
        return rankings_from_scores(sub.loc[list(labels)], direction, tie_break=tie_break, tol=tol)

    margins = profile_majority(profile(models)).loc[models, models]
    lookup: dict[str, list] = {}
    for size in range(3, min(max_models, len(models)) + 1):
        for chosen in combinations(range(len(models)), size):
            labels = [models[k] for k in chosen]
            prof = profile(labels)
            if not profile_majority(prof).loc[labels, labels].equals(margins.loc[labels, labels]):
                raise RuntimeError("a subset's majority margins differ from those of all offered models")
            r = domain_report(prof)
            axis = None if r.single_peaked_axis is None else [models.index(x) for x in r.single_peaked_axis]
            lookup[str(sum(2**k for k in chosen))] = [axis, r.group_separable, r.cycles]
    return Explorable(
        "domains",
        {
            "models": [str(x) for x in models],
            "metrics": [str(t) for t in frame.columns],
            "checked": [models.index(x) for x in checked],
            "maxModels": max_models,
            "ballots": [[models.index(x) for x in ballot] for ballot in profile(models)],
            "margins": margins.to_numpy().astype(int).tolist(),
            "lookup": lookup,
            "caption": caption,
            "steps": _domain_steps(models, lookup, margins.to_numpy(), max_models),
        },
    )


def _domain_steps(models: list, lookup: dict, margins: np.ndarray, max_models: int) -> list[dict]:
    """The guided path of :func:`domain_explorer`: three models that cycle, then the largest single-peaked set."""
    labels = [str(x) for x in models]

    def members(key: str) -> list[int]:
        return [k for k in range(len(models)) if int(key) >> k & 1]

    def tick(key: str) -> dict:
        return {"op": "boxes", "on": [f"model-{k}" for k in members(key)]}

    steps = []
    cycles = [key for key, (_, _, c) in lookup.items() if len(members(key)) == 3 and c]
    if cycles:
        key = min(cycles, key=int)
        i, j, k = members(key)
        if margins[i, j] < 0:  # name the cycle in the direction of its arrows
            j, k = k, j
        steps.append(
            _step(
                f"Tick only {_names([labels[q] for q in (i, j, k)])}.",
                f"a majority cycle: {labels[i]} beats {labels[j]}, {labels[j]} beats {labels[k]} and {labels[k]} "
                f"beats {labels[i]}, so there is no Condorcet winner",
                [tick(key)],
                {"ticked": [labels[q] for q in members(key)], "cycles": 1, "condorcet": None},
                ["no Condorcet winner"],
            )
        )
    peaked = [key for key, (axis, _, _) in lookup.items() if axis is not None]
    if peaked:
        key = max(peaked, key=lambda q: (len(members(q)), -int(q)))
        axis = " – ".join(labels[q] for q in lookup[key][0])
        steps.append(
            _step(
                f"Tick only {_names([labels[q] for q in members(key)])}.",
                f"these {len(members(key))} models are single-peaked, on the axis {axis}",
                [tick(key)],
                {"ticked": [labels[q] for q in members(key)], "singlePeaked": True},
                ["single-peaked: yes"],
            )
        )
    return steps


@measure(allow_nan=False)
def positional_rule(
    scores: Any,
    higher_is_better: Any = True,
    *,
    k: int = 1,
    top: int = 10,
    tol: float = DEFAULT_TIE_TOLERANCE,
    caption: str = "Total points of the best models under the chosen scoring vector; winners in blue.",
) -> Explorable:
    r"""A slider for :math:`k` in :math:`k`-approval and a Borda button; the page counts every model's points.

    The page ranks every task (:func:`benchvote.rank`: the tie tolerance, midranks), gives the
    model in place :math:`p` the points :math:`w_p` and a tie group the mean of the points of the
    places it occupies, and sums over the tasks, as :func:`benchvote.positional.positional_scores`
    does.  The scoring vector is :math:`k` ones and :math:`m - k` zeros
    (:func:`benchvote.positional.scoring_vector`; plurality at :math:`k = 1`, veto at
    :math:`k = m - 1`) or Borda's :math:`(m - 1, \dots, 1, 0)`.  The winners are the models
    within :math:`10^{-9}` of the most points, as in :func:`benchvote.positional.positional_winners`,
    whose results write the guided path.

    Parameters
    ----------
    scores : DataFrame
        Models x tasks, complete, at least three models.
    k : int
        The slider's first position, ``1 <= k < m``.
    top : int
        Models drawn in the chart, best first (at least 2; at most all).
    caption : str
        Caption under the chart.

    Returns
    -------
    Explorable

    Examples
    --------
    >>> s = pd.DataFrame({"t1": [3, 2, 1], "t2": [1, 3, 2], "t3": [3, 2, 1]}, index=list("ABC"))
    >>> [st["view"]["winners"] for st in positional_rule(s).steps]
    [['B'], ['A', 'B']]
    """
    frame = scores.frame()
    m = frame.shape[0]
    if m < 3:
        raise ValueError(f"scores: a positional rule needs at least 3 models to vary its points, got {m}")
    k = check_number(k, "k", low=1, high=m - 1, integer=True)
    top = min(check_number(top, "top", low=2, integer=True), m)
    direction = scores.direction
    winners = positional_winners(frame, direction, tol=tol)
    return Explorable(
        "positional",
        {
            "models": [str(x) for x in frame.index],
            "tasks": [str(t) for t in frame.columns],
            "scores": frame.to_numpy(dtype=float).tolist(),
            "sign": [1.0 if d else -1.0 for d in direction],
            "tol": tol,
            "k": k,
            "top": top,
            "caption": caption,
            "steps": _positional_steps(winners, [str(x) for x in frame.index], k),
        },
    )


def _points_text(v: float) -> str:
    """Points as the page prints them: an integer as such, anything else with two decimals."""
    v = round(v * 1e6) / 1e6
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}"


def _positional_outcome(row: Any) -> tuple[str, dict, list[str]]:
    """What the page shows for one row of :func:`benchvote.positional.positional_winners`: words, view, phrase."""
    won, pts = [str(x) for x in row["winners"]], _points_text(row["points"])
    if len(won) == 1:
        see, phrase = f"{won[0]} wins alone with {pts} points", f"Winner: {won[0]} with {pts} points"
    else:
        shown = _names(won) if len(won) <= 3 else f"{', '.join(won[:3])} and {len(won) - 3} more"
        see, phrase = f"{len(won)} models tie for first with {pts} points ({shown})", f"{len(won)} models tie for first"
    k = None if pd.isna(row["k"]) else int(row["k"])
    return see, {"rule": str(row["rule"]), "k": k, "winners": won, "best": float(row["points"])}, [phrase]


def _positional_steps(winners: pd.DataFrame, labels: list[str], start: int) -> list[dict]:
    """The guided path of :func:`positional_rule`: each k at which a new model takes first place alone, then
    Borda, then veto; the outcomes are :func:`benchvote.positional.positional_winners`'s rows."""
    approval = winners[winners["k"].notna()].reset_index(drop=True)
    steps: list[dict] = []
    before = approval.loc[start - 1, "winners"]
    for _, row in approval.iterrows():
        if len(steps) < 3 and row["k"] != start and len(row["winners"]) == 1 and row["winners"] != before:
            see, view, text = _positional_outcome(row)
            steps.append(
                _step(
                    f"Drag k to {int(row['k'])} ({row['rule']}).",
                    see,
                    [{"op": "range", "name": "k", "value": int(row["k"])}],
                    view,
                    text,
                )
            )
        before = row["winners"]
    see, view, text = _positional_outcome(winners.iloc[-1])
    steps.append(_step("Press “Borda”.", see, [{"op": "click", "name": "borda"}], view, text))
    last = approval.iloc[-1]
    if any(st["do"][0].get("value") == int(last["k"]) for st in steps):
        return steps
    see, view, text = _positional_outcome(last)
    steps.append(
        _step(
            f"Drag k to {int(last['k'])} (veto: a point for every place but the last).",
            see,
            [{"op": "range", "name": "k", "value": int(last["k"])}],
            view,
            text,
        )
    )
    return steps


def _rank_set_states(blocks: list[np.ndarray], items: int, tasks: int, level: float, tol: float) -> list[Any]:
    """The library's rank sets on the first ``items`` items of the first ``tasks`` tasks: over the pooled items
    (McNemar's test) and over the tasks (the sign test on each task's share of right answers)."""
    pooled = np.hstack([b[:, :items] for b in blocks[:tasks]])
    shares = np.column_stack([b[:, :items].mean(axis=1) for b in blocks[:tasks]])
    return [
        rank_sets(pooled, test="mcnemar", level=level, n_boot=1, tol=tol),
        rank_sets(shares, test="sign", level=level, n_boot=1, tol=tol),
    ]


def _rank_set_phrases(states: list[Any], pairs: int) -> list[str]:
    """The page's summary for one setting, panel by panel, in its own words."""
    out = []
    for name, r in zip(("over items", "over tasks"), states):
        separated, tiers = int(r.above.sum()), len(r.tiers)
        pair_word, tier_word = numbered(pairs, "pair"), numbered(tiers, "tier")
        out.append(f"{name}: {separated} of {pairs} {pair_word} separated, {tiers} {tier_word}")
    return out


def _rank_set_steps(blocks: list[np.ndarray], counts: list[int], models: list[str], level: float, tol: float):
    """Two steps: fewest items on every task, then every item on three tasks, each with the library's outcome."""
    m, n_tasks = len(models), len(blocks)
    pairs = m * (m - 1) // 2
    steps = []
    for pos, tasks in ((0, n_tasks), (len(counts) - 1, min(3, n_tasks))):
        states = _rank_set_states(blocks, counts[pos], tasks, level, tol)
        phrases = _rank_set_phrases(states, pairs)
        steps.append(
            _step(
                f"Set {counts[pos]} {numbered(counts[pos], 'item')} per task and {tasks} {numbered(tasks, 'task')}.",
                "; ".join(phrases),
                [{"op": "range", "name": "items", "value": pos}, {"op": "range", "name": "tasks", "value": tasks}],
                {
                    "items": counts[pos],
                    "tasks": tasks,
                    "lowest": [r.lowest.tolist() for r in states],
                    "highest": [r.highest.tolist() for r in states],
                },
                phrases,
            )
        )
    return steps


def rank_sets_explorer(
    blocks: Any,
    models: Sequence[str],
    *,
    item_counts: Sequence[int] = (10, 20, 50, 100, 200, 500),
    level: float = 0.95,
    tol: float = DEFAULT_TIE_TOLERANCE,
) -> Explorable:
    r"""Two sliders, items per task and tasks; the page computes simultaneous rank sets and tiers both ways.

    For the first ``items`` items of each of the first ``tasks`` tasks the
    page ranks the models twice, as :func:`benchvote.comparisons.rank_sets`
    does with ``method="holm"``: over the pooled items, by McNemar's exact
    test on each pair's discordant items, and over the tasks, by the sign
    test on each task's share of right answers.  It computes the exact
    two-sided binomial p-values, Holm's adjustment of all pairs, the rank set
    ``[1 + #surely better, m - #surely worse]`` of every model and the tiers,
    and draws the rank sets.  The payload holds the answers themselves.

    Parameters
    ----------
    blocks : mapping or sequence of array_like
        One ``models x items`` array of 0 and 1 per task (a mapping: task name -> array), each with at least
        ``max(item_counts)`` items.
    models : sequence of str
        The models, in the rows' order.
    item_counts : sequence of int
        The positions of the items slider, increasing.
    level : float in (0, 1)
        Simultaneous coverage of the rank sets.
    tol : float
        Two shares of right answers within ``tol`` tie on a task.

    Returns
    -------
    Explorable

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> answers = {t: (rng.random((3, 60)) < [[0.9], [0.5], [0.4]]).astype(float) for t in ("x", "y")}
    >>> x = rank_sets_explorer(answers, ["a", "b", "c"], item_counts=[20, 60])
    >>> x.kind, x.data["itemCounts"], x.data["tasks"]
    ('rank-sets', [20, 60], ['x', 'y'])
    """
    names = list(blocks) if isinstance(blocks, dict) else [f"task {t + 1}" for t in range(len(blocks))]
    arrays = [np.asarray(b, dtype=float) for b in (blocks.values() if isinstance(blocks, dict) else blocks)]
    models = [str(x) for x in models]
    counts = [check_number(c, "item count", low=1, integer=True) for c in item_counts]
    level = check_number(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    if len(models) < 2 or not arrays:
        raise ValueError("need at least 2 models and 1 task")
    if len(counts) < 2 or counts != sorted(set(counts)):
        raise ValueError("item_counts needs at least 2 positions, increasing")
    for name, b in zip(names, arrays):
        if b.ndim != 2 or b.shape[0] != len(models) or b.shape[1] < counts[-1]:
            raise ValueError(f"task {name!r} needs {len(models)} rows and at least {counts[-1]} items")
        if not np.isin(b, (0.0, 1.0)).all():
            raise ValueError(f"task {name!r}: answers must be 0 or 1")
    bits = [["".join("1" if v else "0" for v in row[: counts[-1]]) for row in b] for b in arrays]
    return Explorable(
        "rank-sets",
        {
            "steps": _rank_set_steps(arrays, counts, models, level, tol),
            "models": models,
            "tasks": [str(t) for t in names],
            "bits": bits,
            "itemCounts": counts,
            "level": level,
            "alpha": float(1 - Fraction(repr(level))),
            "tol": tol,
        },
    )


#: Every kind of explorable and the function that builds it; each has its page script, ``_web/explorables.<kind>.js``.
KINDS = {
    "model-toggle": model_toggle,
    "label-noise": label_noise,
    "missing-share": missing_share,
    "cell-knockout": cell_knockout,
    "effort": effort,
    "domains": domain_explorer,
    "positional": positional_rule,
    "rank-sets": rank_sets_explorer,
}
