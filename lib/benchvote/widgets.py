"""Interactive controls with Python callbacks (ipywidgets; live in Binder or Jupyter only).

A widget needs a kernel: on a static page it could only show its initial
state.  The chapters therefore use :mod:`benchvote.explorables`, which compute
in the page, for every rank-flip control; of these widgets the book shows only
:func:`domain_explorer`, live, with a static figure on the site.  The widgets
only wire inputs to the library's pure functions; all computation happens there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._validation import split_table
from .aggregation import protected_ranking
from .plotting import bump_chart
from .ranking import changed_pairs, flipped_pairs, kendall_tau_distance

__all__ = [
    "model_toggle",
    "label_noise_sliders",
    "missing_share_slider",
    "cell_knockout_grid",
    "domain_explorer",
    "effort_explorer",
]


def _log_return_slope(a: float, b: float) -> Any:
    """The marginal return of f(x) = a log(1 + b x): f'(x) = a b / (1 + b x)."""
    return lambda x: a * b / (1 + b * x)


def _oriented(scores: Any, higher_is_better: Any) -> pd.DataFrame:
    """A labelled table with every lower-is-better task negated (the controls below read higher as better)."""
    from ._validation import as_score_matrix, direction_of, split_table

    scores, higher_is_better = split_table(scores, higher_is_better)
    if not isinstance(scores, pd.DataFrame):
        raise TypeError("scores must be a DataFrame with model and task labels")
    mat = as_score_matrix(scores, allow_nan=True, allow_empty_rows=True)
    return scores * np.where(direction_of(mat, higher_is_better), 1.0, -1.0)


def model_toggle(
    scores: pd.DataFrame,
    higher_is_better: Any = True,
    *,
    protected: Sequence,
    pool: Sequence,
    convention: str = "strict",
    checked: Sequence = (),
    columns: int = 3,
) -> Any:
    """Check boxes for the ``pool`` models and a live bump chart of the ``protected`` ranking.

    Left column of the chart: the protected models ranked among themselves.
    Right column: their ranking when the checked pool models join the field.

    Parameters
    ----------
    scores : DataFrame or Leaderboard
        Models x tasks with labels.
    higher_is_better : bool or sequence of bool
        Direction of every task (one bool for all tasks).
    protected : sequence
        The models whose ranking is shown.
    pool : sequence
        The models that can be ticked into the field.
    convention : {"strict", "quantile"}
        Win-rate convention.
    checked : sequence
        Pool models ticked at the start.
    columns : int
        Check boxes per row.

    Returns
    -------
    ipywidgets.VBox
    """
    scores, higher_is_better = split_table(scores, higher_is_better)
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    protected = list(protected)
    pool = list(pool)
    unknown = [x for x in protected + pool if x not in scores.index]
    if unknown:
        raise KeyError(f"unknown model(s) {unknown[:5]}")
    if set(protected) & set(pool):
        raise ValueError(f"model(s) {sorted(map(str, set(protected) & set(pool)))[:5]} are both protected and added")
    base = protected_ranking(scores, higher_is_better, protected=protected, convention=convention)
    boxes = [
        widgets.Checkbox(value=x in set(checked), description=str(x), indent=False, layout=widgets.Layout(width="auto"))
        for x in pool
    ]
    out = widgets.Output()
    summary = widgets.HTML()

    def redraw(*_: Any) -> None:
        added = [x for x, box in zip(pool, boxes) if box.value]
        new = protected_ranking(scores, higher_is_better, protected=protected, added=added, convention=convention)
        before, after = base.to_numpy(), new.to_numpy()
        changed = changed_pairs(before, after)
        flips = flipped_pairs(before, after)
        tau = kendall_tau_distance(before, after)

        def describe(i: int, j: int) -> str:
            a, b = protected[i], protected[j]
            if after[i] == after[j]:
                return f"{a} and {b} now tie"
            return f"{a} now ahead of {b}" if after[i] < after[j] else f"{b} now ahead of {a}"

        names = "; ".join(describe(i, j) for i, j in changed[:4])
        more = f" and {len(changed) - 4} more" if len(changed) > 4 else ""
        summary.value = (
            f"<b>{len(added)}</b> weak model(s) added; <b>{len(changed)}</b> protected pair(s) change "
            f"order, <b>{len(flips)}</b> reversed outright (Kendall tau distance {tau:.3f})"
            f"{': ' + names + more if changed else ''}."
        )
        out.clear_output(wait=True)
        with out:
            fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(protected) + 1.4))
            bump_chart(
                base.to_numpy(),
                new.to_numpy(),
                labels=protected,
                ax=ax,
                titles=("protected models only", f"with {len(added)} added"),
            )
            fig.tight_layout()
            plt.show()

    for box in boxes:
        box.observe(redraw, names="value")
    grid = widgets.GridBox(boxes, layout=widgets.Layout(grid_template_columns=f"repeat({columns}, auto)"))
    redraw()
    return widgets.VBox([widgets.HTML("<b>Add weak models to the field:</b>"), grid, summary, out])


def label_noise_sliders(
    scores: pd.DataFrame, higher_is_better: Any = True, *, top: int = 15, eps: float | None = None
) -> Any:
    """One slider per task for its share of intact labels, a live bump chart of the ``top`` models (among themselves),
    and a button that moves the sliders to the worst case found by :func:`benchvote.sensitivity.cardinal_sensitivity`.

    With shares :math:`\\alpha_j`, the reweighted mean score is :math:`\\sum_j \\alpha_j s_{ij}`
    (up to a constant), as in Zhang & Hardt's label-noise model.

    Parameters
    ----------
    scores : DataFrame or Leaderboard
        Models x tasks with labels.
    higher_is_better : bool or sequence of bool
        Direction of every task (one bool for all tasks).
    top : int
        Number of models shown.
    eps : float, optional
        Lowest share of intact labels (default :func:`benchvote.sensitivity.default_eps`).

    Returns
    -------
    ipywidgets.VBox
    """
    scores, higher_is_better = split_table(scores, higher_is_better)
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .ranking import max_rank_change, rank
    from .sensitivity import cardinal_sensitivity, default_eps

    scores = _oriented(scores, higher_is_better)
    if top < 2:
        raise ValueError("top must be at least 2")
    low = default_eps(scores) if eps is None else float(eps)
    values = scores.to_numpy(dtype=float)
    before = rank(values.mean(axis=1))
    shown = np.argsort(before, kind="stable")[:top]
    sliders = [
        widgets.FloatSlider(
            value=1.0,
            min=low,
            max=1.0,
            step=0.01,
            description=str(t)[:18],
            continuous_update=False,
            readout_format=".2f",
            style={"description_width": "130px"},
            layout=widgets.Layout(width="420px"),
        )
        for t in scores.columns
    ]
    button = widgets.Button(description="worst case", tooltip="search for the weights that reverse most pairs")
    reset = widgets.Button(description="no noise")
    out = widgets.Output()
    summary = widgets.HTML()

    def redraw(*_: Any) -> None:
        alpha = np.array([s.value for s in sliders])
        after = rank(values @ alpha / alpha.sum())  # the weighted mean, as in benchvote.sensitivity
        tau = kendall_tau_distance(before, after)
        summary.value = (
            f"All {len(before)} models: Kendall tau distance <b>{tau:.3f}</b>, "
            f"max rank change <b>{max_rank_change(before, after):.3f}</b>."
        )
        out.clear_output(wait=True)
        with out:
            fig, ax = plt.subplots(figsize=(7.5, 0.3 * top + 1.4))
            # ranks among the shown models (the summary above speaks of all models)
            bump_chart(
                rank(before[shown], higher_is_better=False),
                rank(after[shown], higher_is_better=False),
                labels=[scores.index[i] for i in shown],
                ax=ax,
                titles=("clean labels", "with label noise"),
            )
            fig.tight_layout()
            plt.show()

    def worst(_: Any) -> None:
        result = cardinal_sensitivity(scores, eps=low, method="relaxation", restarts=8, steps=100, polish_starts=16)
        for s, w in zip(sliders, np.asarray(result.weights)):
            s.unobserve(redraw, names="value")
            s.value = float(max(low, w))
            s.observe(redraw, names="value")
        redraw()

    def clean(_: Any) -> None:
        for s in sliders:
            s.unobserve(redraw, names="value")
            s.value = 1.0
            s.observe(redraw, names="value")
        redraw()

    for s in sliders:
        s.observe(redraw, names="value")
    button.on_click(worst)
    reset.on_click(clean)
    redraw()
    return widgets.VBox(
        [widgets.HTML("<b>Share of intact labels per task:</b>"), *sliders, widgets.HBox([button, reset]), summary, out]
    )


def missing_share_slider(scores: pd.DataFrame, higher_is_better: Any = True, *, top: int = 8, seed: int = 0) -> Any:
    """A slider for the share of scores removed at random, with the top models under two rules.

    Left chart: mean of the observed scores; right chart: one-level Borda on
    compatible rankings (:func:`benchvote.missing.partial_borda`).  Each chart
    compares the full-table ranks of the full-table top ``top`` with their ranks
    after the removal (:func:`benchvote.missing.knock_out`, seeded).

    Parameters
    ----------
    scores : DataFrame or Leaderboard
        Models x tasks with labels.
    higher_is_better : bool or sequence of bool
        Direction of every task (one bool for all tasks).
    top : int
        Number of models shown.
    seed : int
        Seed of the removals.

    Returns
    -------
    ipywidgets.VBox
    """
    scores, higher_is_better = split_table(scores, higher_is_better)
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .aggregation import mean_score
    from .missing import knock_out, partial_borda
    from .ranking import rank

    scores = _oriented(scores, higher_is_better)
    rules = {"mean of observed": lambda s: mean_score(s, nan_policy="omit"), "one-level Borda": partial_borda}
    full: dict[str, Any] = {name: rank(rule(scores)) for name, rule in rules.items()}
    slider = widgets.FloatSlider(
        value=0.0,
        min=0.0,
        max=0.6,
        step=0.05,
        description="share removed",
        continuous_update=False,
        style={"description_width": "110px"},
    )
    out = widgets.Output()
    summary = widgets.HTML()

    def redraw(*_: Any) -> None:
        holed = knock_out(scores, slider.value, seed=seed)
        parts = []
        out.clear_output(wait=True)
        with out:
            fig, axes = plt.subplots(1, 2, figsize=(11, 0.32 * top + 1.6))
            for ax, (name, rule) in zip(axes, rules.items()):
                after = rank(rule(holed))
                shown = full[name].sort_values().index[:top]
                bump_chart(
                    full[name][shown].to_numpy(),
                    after[shown].to_numpy(),
                    labels=list(shown),
                    ax=ax,
                    titles=("all scores", f"{slider.value:.0%} removed"),
                )
                ax.set_title(name, fontsize=10)
                parts.append(f"{name}: Kendall tau distance <b>{kendall_tau_distance(full[name], after):.3f}</b>")
            fig.tight_layout()
            plt.show()
        summary.value = "; ".join(parts) + f" ({int(holed.isna().sum().sum())} cells missing)."

    slider.observe(redraw, names="value")
    redraw()
    return widgets.VBox([slider, summary, out])


def cell_knockout_grid(scores: pd.DataFrame, higher_is_better: Any = True) -> Any:
    """One check box per observed cell (ticked = kept); the rankings under both rules update live.

    Parameters
    ----------
    scores : DataFrame or Leaderboard
        Models x tasks with labels.
    higher_is_better : bool or sequence of bool
        Direction of every task (one bool for all tasks).

    Returns
    -------
    ipywidgets.VBox
    """
    scores, higher_is_better = split_table(scores, higher_is_better)
    import ipywidgets as widgets

    from .aggregation import mean_score
    from .missing import partial_borda

    scores = _oriented(scores, higher_is_better)
    observed = ~scores.isna().to_numpy()
    boxes: dict[tuple[int, int], Any] = {}
    cells = [widgets.HTML("")] + [widgets.HTML(f"<b>{str(t)[:14]}</b>") for t in scores.columns]
    for i, model in enumerate(scores.index):
        cells.append(widgets.HTML(f"<b>{model}</b>"))
        for j in range(scores.shape[1]):
            if observed[i, j]:
                box = widgets.Checkbox(
                    value=True,
                    description=f"{scores.to_numpy(dtype=float)[i, j]:g}",
                    indent=False,
                    layout=widgets.Layout(width="auto"),
                )
                boxes[(i, j)] = box
                cells.append(box)
            else:
                cells.append(widgets.HTML("<i>missing</i>"))
    grid = widgets.GridBox(cells, layout=widgets.Layout(grid_template_columns=f"repeat({scores.shape[1] + 1}, auto)"))
    result = widgets.HTML()

    def redraw(*_: Any) -> None:
        values = scores.copy()
        for (i, j), box in boxes.items():
            if not box.value:
                values.iat[i, j] = np.nan
        try:
            mu = pd.Series(mean_score(values, nan_policy="omit")).sort_values(ascending=False)
            bl = pd.Series(partial_borda(values)).sort_values(ascending=False)
        except ValueError as err:
            result.value = f"<b>Cannot rank:</b> {err}"
            return
        result.value = (
            "<b>mean of observed:</b> "
            + " &gt; ".join(map(str, mu.index))
            + "<br><b>one-level Borda:</b> "
            + " &gt; ".join(map(str, bl.index))
        )

    for box in boxes.values():
        box.observe(redraw, names="value")
    redraw()
    return widgets.VBox([widgets.HTML("<b>Untick a cell to remove that score:</b>"), grid, result])


def domain_explorer(
    models: Sequence,
    checked: Sequence = (),
    *,
    scenario: str = "MMLU",
    metrics: Sequence[str] = ("accuracy", "robustness", "fairness"),
) -> Any:
    """Pick a HELM scenario, models and metric groups; see which domain restrictions hold and the majority graph.

    Uses :func:`benchvote.data.helm_scenarios` and :func:`benchvote.domains.domain_report`.

    Parameters
    ----------
    models : sequence
        HELM Classic models offered as check boxes.
    checked : sequence
        Models ticked at the start.
    scenario : str
        Scenario shown first.
    metrics : sequence of str
        Metric groups (the voters).

    Returns
    -------
    ipywidgets.VBox
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .data import helm_scenarios
    from .domains import domain_report, profile_majority, rankings_from_scores
    from .plotting import majority_graph

    groups = ("accuracy", "robustness", "fairness", "efficiency", "calibration")
    models = list(models)
    scenarios = sorted(helm_scenarios(("accuracy", "robustness")))
    if scenario not in scenarios:
        raise KeyError(f"unknown scenario {scenario!r}; known: {', '.join(scenarios)}")
    pick_scenario = widgets.Dropdown(options=scenarios, value=scenario, description="scenario")
    metric_boxes = [
        widgets.Checkbox(value=g in metrics, description=g, indent=False, layout=widgets.Layout(width="auto"))
        for g in groups
    ]
    model_boxes = [
        widgets.Checkbox(value=m in set(checked), description=str(m), indent=False, layout=widgets.Layout(width="auto"))
        for m in models
    ]
    report = widgets.HTML()
    out = widgets.Output()

    def redraw(*_: Any) -> None:
        chosen_metrics = tuple(b.description for b in metric_boxes if b.value)
        chosen_models = [m for m, b in zip(models, model_boxes) if b.value]
        out.clear_output(wait=True)
        if len(chosen_metrics) < 2:
            report.value = "Tick at least two metrics."
            return
        tables = helm_scenarios(chosen_metrics)
        if pick_scenario.value not in tables:
            report.value = f"No model has all of {', '.join(chosen_metrics)} on {pick_scenario.value}."
            return
        scores, direction = tables[pick_scenario.value]
        present = [m for m in chosen_models if m in scores.index]
        if len(present) < 3:
            report.value = f"Tick at least three models with every chosen metric ({len(present)} so far)."
            return
        profile = rankings_from_scores(scores.loc[present], direction)
        r = domain_report(profile)
        yes = {True: "<b>yes</b>", False: "no"}
        report.value = (
            f"{len(present)} models, {len(chosen_metrics)} metrics on {pick_scenario.value}: "
            f"single-peaked {yes[r.single_peaked]}, group-separable {yes[r.group_separable]}, "
            f"largest disagreement {r.distance_degree} pair(s), majority transitive "
            f"{yes[r.majority_transitive]}, {r.cycles} three-model cycle(s)."
        )
        margins = profile_majority(profile).loc[present, present].to_numpy()
        beats = margins > 0
        red = [
            (i, j)
            for i in range(len(present))
            for j in range(len(present))
            if beats[i, j] and any(beats[j, k] and beats[k, i] for k in range(len(present)))
        ]
        with out:
            fig, ax = plt.subplots(figsize=(5.6, 5.0))
            majority_graph(margins, [m.split(" (")[0] for m in present], ax=ax, highlight=red)
            fig.tight_layout()
            plt.show()

    for w in [pick_scenario, *metric_boxes, *model_boxes]:
        w.observe(redraw, names="value")
    redraw()
    grid = widgets.GridBox(model_boxes, layout=widgets.Layout(grid_template_columns="repeat(2, auto)"))
    return widgets.VBox(
        [
            pick_scenario,
            widgets.HTML("<b>Metrics (voters):</b>"),
            widgets.HBox(metric_boxes),
            widgets.HTML("<b>Models (candidates):</b>"),
            grid,
            report,
            out,
        ]
    )


def effort_explorer(
    returns_at_zero: Sequence[float], curvature: Sequence[float], tasks: Sequence[str], *, budget: float = 1.0
) -> Any:
    """Sliders for the return curves f_i(x) = a_i log(1 + b_i x) of a few tasks; the water-filling allocation follows.

    ``returns_at_zero`` are the products a_i b_i (the marginal return at zero
    effort) and ``curvature`` the b_i.  The summary compares the mean-score
    gain of the optimal allocation with that of an even split.

    Parameters
    ----------
    returns_at_zero, curvature : sequence of float
        :math:`a_i` and :math:`b_i` of each task's curve at the start.
    tasks : sequence of str
        Task names.
    budget : float
        Total effort.

    Returns
    -------
    ipywidgets.VBox
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .strategy import water_filling

    tasks = [str(t) for t in tasks]
    a0 = np.asarray(returns_at_zero, dtype=float)
    b0 = np.asarray(curvature, dtype=float)
    if not (len(a0) == len(b0) == len(tasks)) or len(tasks) < 1:
        raise ValueError("returns_at_zero, curvature and tasks must have the same positive length")
    if (a0 <= 0).any() or (b0 <= 0).any():
        raise ValueError("returns at zero and curvatures must be positive")
    a_init = a0 / b0
    scale = [
        widgets.FloatSlider(
            value=float(v),
            min=0.05,
            max=float(max(5 * a_init.max(), 1.0)),
            step=0.05,
            description=f"{t}: a",
            continuous_update=False,
        )
        for t, v in zip(tasks, a_init)
    ]
    bend = [
        widgets.FloatSlider(
            value=float(v),
            min=0.1,
            max=float(max(3 * b0.max(), 1.0)),
            step=0.1,
            description=f"{t}: b",
            continuous_update=False,
        )
        for t, v in zip(tasks, b0)
    ]
    out = widgets.Output()
    summary = widgets.HTML()

    def redraw(*_: Any) -> None:
        a = np.array([s.value for s in scale])
        b = np.array([s.value for s in bend])
        plan = water_filling([_log_return_slope(ai, bi) for ai, bi in zip(a, b)], budget)
        gain = float(np.sum(a * np.log1p(b * plan.allocation))) / len(a)
        even = float(np.sum(a * np.log1p(b * budget / len(a)))) / len(a)
        summary.value = (
            f"Water level <b>{plan.level:.3f}</b>; {int(plan.active.sum())} of {len(a)} tasks get effort. "
            f"Mean-score gain: optimal <b>{gain:.3f}</b>, even split {even:.3f}."
        )
        out.clear_output(wait=True)
        with out:
            fig, ax = plt.subplots(figsize=(6.0, 2.8))
            ax.bar(tasks, plan.allocation, color=["#2c7fb8" if on else "#bdc3c7" for on in plan.active])
            ax.set_ylabel("effort")
            ax.set_xlabel("task")
            ax.set_ylim(0, budget)
            fig.tight_layout()
            plt.show()

    reset = widgets.Button(description="reset", tooltip="back to the chapter's return curves")

    def restore(_: Any) -> None:
        for s, v in zip(scale + bend, list(a_init) + list(b0)):
            s.unobserve(redraw, names="value")
            s.value = float(v)
            s.observe(redraw, names="value")
        redraw()

    for s in scale + bend:
        s.observe(redraw, names="value")
    reset.on_click(restore)
    redraw()
    rows = [widgets.HBox([sa, sb]) for sa, sb in zip(scale, bend)]
    return widgets.VBox([widgets.HTML("<b>Return curves f(x) = a log(1 + b x):</b>"), *rows, reset, summary, out])
