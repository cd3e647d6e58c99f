"""The one control with Python callbacks (ipywidgets; live in Binder or Jupyter only).

A widget needs a kernel: on a static page it could only show its initial
state.  Every control of the book is therefore an explorable
(:mod:`benchvote.explorables`), which computes in the page, including a domain
explorer for one scenario.  What no page can look up is the free choice of
scenario and metric groups: :func:`domain_explorer` offers that, live.  It only
wires inputs to the library's pure functions; all computation happens there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._validation import numbered
from .data import helm_scenarios
from .domains import domain_report, profile_majority, rankings_from_scores
from .plotting import majority_graph

__all__ = ["domain_explorer"]


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
            f"largest disagreement {r.distance_degree} {numbered(r.distance_degree, 'pair')}, majority transitive "
            f"{yes[r.majority_transitive]}, {r.cycles} three-model {numbered(r.cycles, 'cycle')}."
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
