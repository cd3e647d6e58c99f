"""Tests for benchvote.widgets: the controls call the library and report what they show."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from benchvote.data import load_table  # noqa: E402
from benchvote.widgets import label_noise_sliders, model_toggle  # noqa: E402


def find(widget, kind):
    found = []
    stack = [widget]
    while stack:
        w = stack.pop()
        if isinstance(w, kind):
            found.append(w)
        stack.extend(getattr(w, "children", ()))
    return found


def test_toggle_reports_the_abc_tie():
    import ipywidgets as widgets

    abc = load_table("abc_ranks")
    box = model_toggle(abc, False, protected=["A", "B"], pool=["C"], convention="quantile")
    (checkbox,) = find(box, widgets.Checkbox)
    summary = [h for h in find(box, widgets.HTML) if "weak model" in h.value][0]
    assert "<b>0</b> protected pair(s) change order" in summary.value
    checkbox.value = True
    # B led A; with C they tie: the order changes but nothing is reversed outright
    assert "<b>1</b> weak model(s) added" in summary.value
    assert "<b>1</b> protected pair(s) change order, <b>0</b> reversed outright" in summary.value
    assert "A and B now tie" in summary.value


def test_toggle_reports_an_untied_pair():
    import ipywidgets as widgets

    r = load_table("nine_task_ranks")
    box = model_toggle(r, False, protected=["L1", "L2", "L3"], pool=["L4"])
    (checkbox,) = find(box, widgets.Checkbox)
    summary = [h for h in find(box, widgets.HTML) if "weak model" in h.value][0]
    checkbox.value = True
    # L1 and L2 tie at 10/27 without L4; with it L2 leads (19/36 against 16/36)
    assert "L2 now ahead of L1" in summary.value
    assert "<b>1</b> protected pair(s) change order, <b>0</b> reversed outright" in summary.value


def test_toggle_rejects_unknown_models():
    s = pd.DataFrame({"t": [1.0, 2.0, 3.0]}, index=["a", "b", "c"])
    with pytest.raises(KeyError, match="unknown model"):
        model_toggle(s, protected=["a", "b"], pool=["zzz"])
    with pytest.raises(ValueError, match="both protected and added"):
        model_toggle(s, protected=["a", "b"], pool=["b"], checked=["b"])


def test_toggle_counts_an_outright_reversal():
    import ipywidgets as widgets

    # B beats A on three of five tasks; C sits between A and B exactly where A wins and below both elsewhere,
    # so A beats C everywhere and B only on three tasks: A overtakes B (7/15 against 6/15)
    s = pd.DataFrame(
        {f"t{k}": ([2.0, 3.0, 1.0] if k <= 3 else [3.0, 1.0, 2.0]) for k in range(1, 6)}, index=["A", "B", "C"]
    )
    box = model_toggle(s, protected=["A", "B"], pool=["C"])
    (checkbox,) = find(box, widgets.Checkbox)
    summary = [h for h in find(box, widgets.HTML) if "weak model" in h.value][0]
    assert "<b>0</b> protected pair(s) change order" in summary.value
    checkbox.value = True
    assert "<b>1</b> protected pair(s) change order, <b>1</b> reversed outright" in summary.value
    assert "A now ahead of B" in summary.value


def test_label_noise_sliders_move_the_ranking_and_find_a_worst_case():
    import ipywidgets as widgets
    import numpy as np

    s = pd.DataFrame({"t1": [4.0, 1.0, 0.0], "t2": [0.0, 2.0, 2.5]}, index=["A", "B", "C"])
    box = label_noise_sliders(s, top=3, eps=0.1)
    sliders = sorted(find(box, widgets.FloatSlider), key=lambda w: w.description)
    summary = [h for h in find(box, widgets.HTML) if "Kendall" in h.value][0]
    assert [w.description for w in sliders] == ["t1", "t2"] and "distance <b>0.000</b>" in summary.value
    sliders[0].value = 0.1  # silence task 1: the order C > B > A follows task 2
    assert "distance <b>1.000</b>" in summary.value
    worst_button = [b for b in find(box, widgets.Button) if b.description == "worst case"][0]
    sliders[0].value = 1.0
    worst_button.click()
    assert "distance <b>1.000</b>" in summary.value
    assert np.isclose(max(sl.value for sl in sliders), 1.0)


def test_label_noise_sliders_bad_input():
    with pytest.raises(TypeError):
        label_noise_sliders([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="top"):
        label_noise_sliders(pd.DataFrame({"a": [1.0, 2.0]}), top=1)


def test_missing_share_slider_reports_both_rules():
    import ipywidgets as widgets

    from benchvote.widgets import missing_share_slider

    s = pd.DataFrame(
        {f"t{k}": [5.0 - i + 0.1 * k * (i % 2) for i in range(6)] for k in range(5)}, index=[f"m{i}" for i in range(6)]
    )
    box = missing_share_slider(s, top=4)
    (slider,) = find(box, widgets.FloatSlider)
    summary = [h for h in find(box, widgets.HTML) if "Kendall" in h.value][0]
    assert "(0 cells missing)" in summary.value
    slider.value = 0.3
    assert "(9 cells missing)" in summary.value
    assert summary.value.count("Kendall tau distance") == 2


def test_cell_knockout_grid_updates_rankings():
    import ipywidgets as widgets

    from benchvote.widgets import cell_knockout_grid

    s = pd.DataFrame({"t1": [3.0, 2.0, 1.0], "t2": [1.5, 3.0, 2.5]}, index=["a", "b", "c"])
    box = cell_knockout_grid(s)
    boxes = {b.description: b for b in find(box, widgets.Checkbox)}
    result = [h for h in find(box, widgets.HTML) if "Borda" in h.value][0]
    assert result.value.split("<br>")[0].endswith("b &gt; a &gt; c")  # means 2.25, 2.5, 1.75
    boxes["1.5"].value = False  # remove a's score on t2: a's mean becomes 3
    assert result.value.split("<br>")[0].endswith("a &gt; b &gt; c")


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


def test_effort_explorer_updates_the_allocation():
    import ipywidgets as widgets

    from benchvote.widgets import effort_explorer

    box = effort_explorer([8.0, 0.5], [8.0, 1.0], ["easy", "hard"])  # marginal returns at zero 8 and 0.5
    summary = [h for h in find(box, widgets.HTML) if "Water level" in h.value][0]
    assert "1 of 2 tasks get effort" in summary.value
    sliders = {s.description: s for s in find(box, widgets.FloatSlider)}
    initial = summary.value
    sliders["hard: a"].value = 5.0  # the hard task now starts with a return of 5 > the level
    assert "2 of 2 tasks get effort" in summary.value
    (reset,) = [b for b in find(box, widgets.Button) if b.description == "reset"]
    reset.click()
    assert summary.value == initial and sliders["hard: a"].value == pytest.approx(0.5)
    with pytest.raises(ValueError, match="positive"):
        effort_explorer([1.0], [-1.0], ["x"])
