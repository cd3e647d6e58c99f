"""Tests for benchvote.widgets: the live domain explorer calls the library and reports what it shows."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402


def find(widget, kind):
    found = []
    stack = [widget]
    while stack:
        w = stack.pop()
        if isinstance(w, kind):
            found.append(w)
        stack.extend(getattr(w, "children", ()))
    return found


def test_domain_explorer_reports_restrictions():
    import ipywidgets as widgets

    from benchvote import data
    from benchvote.widgets import domain_explorer

    models = list(data.helm_scenarios(("accuracy", "robustness", "fairness"))["MMLU"][0].index[:6])
    box = domain_explorer(models, models[:4])
    report = [h for h in find(box, widgets.HTML) if "single-peaked" in h.value or "Tick" in h.value][0]
    assert "4 models, 3 metrics on MMLU" in report.value
    metric = {b.description: b for b in find(box, widgets.Checkbox)}
    metric["fairness"].value = False
    metric["robustness"].value = False
    assert "Tick at least two metrics" in report.value
    with pytest.raises(KeyError, match="unknown scenario"):
        domain_explorer(models, scenario="Chess")


def test_the_widget_agrees_with_the_explorable():
    """Same scenario, metrics and models: the widget's report and the explorable's lookup give the same verdicts."""
    import ipywidgets as widgets

    from benchvote import data
    from benchvote.domains import domain_report, rankings_from_scores
    from benchvote.explorables import domain_explorer as page_explorer
    from benchvote.widgets import domain_explorer

    scores, direction = data.helm_scenarios(("accuracy", "robustness", "fairness"))["MMLU"]
    models = list(scores.index[:6])
    box = domain_explorer(models, models[:4])
    report = [h for h in find(box, widgets.HTML) if "single-peaked" in h.value][0].value
    looked_up = page_explorer(scores, direction, models=models, max_models=4).data["lookup"][str(0b1111)]
    r = domain_report(rankings_from_scores(scores.loc[models[:4]], direction))
    assert (looked_up[0] is not None, looked_up[1], looked_up[2]) == (r.single_peaked, r.group_separable, r.cycles)
    assert f"single-peaked {'<b>yes</b>' if r.single_peaked else 'no'}" in report
    assert f"group-separable {'<b>yes</b>' if r.group_separable else 'no'}" in report
    assert f"{r.cycles} three-model {'cycle' if r.cycles == 1 else 'cycles'}" in report


def test_only_the_domain_explorer_is_left():
    import benchvote.widgets as w

    assert w.__all__ == ["domain_explorer"]
