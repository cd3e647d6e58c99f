"""Tests for benchvote.widgets: the controls call the library and report what they show."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from benchvote.data import load_table  # noqa: E402
from benchvote.widgets import model_toggle  # noqa: E402


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
    box = model_toggle(abc, ["A", "B"], ["C"], higher_is_better=False, convention="quantile")
    checkbox, = find(box, widgets.Checkbox)
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
    box = model_toggle(r, ["L1", "L2", "L3"], ["L4"], higher_is_better=False)
    checkbox, = find(box, widgets.Checkbox)
    summary = [h for h in find(box, widgets.HTML) if "weak model" in h.value][0]
    checkbox.value = True
    # L1 and L2 tie at 10/27 without L4; with it L2 leads (19/36 against 16/36)
    assert "L2 now ahead of L1" in summary.value
    assert "<b>1</b> protected pair(s) change order, <b>0</b> reversed outright" in summary.value


def test_toggle_rejects_unknown_models():
    s = pd.DataFrame({"t": [1.0, 2.0, 3.0]}, index=["a", "b", "c"])
    with pytest.raises(KeyError, match="unknown model"):
        model_toggle(s, ["a", "b"], ["zzz"])
    with pytest.raises(ValueError, match="both protected and added"):
        model_toggle(s, ["a", "b"], ["b"], checked=["b"])


def test_toggle_counts_an_outright_reversal():
    import ipywidgets as widgets

    # B beats A on three of five tasks; C sits between A and B exactly where A wins and below both elsewhere,
    # so A beats C everywhere and B only on three tasks: A overtakes B (7/15 against 6/15)
    s = pd.DataFrame({f"t{k}": ([2.0, 3.0, 1.0] if k <= 3 else [3.0, 1.0, 2.0]) for k in range(1, 6)},
                     index=["A", "B", "C"])
    box = model_toggle(s, ["A", "B"], ["C"])
    checkbox, = find(box, widgets.Checkbox)
    summary = [h for h in find(box, widgets.HTML) if "weak model" in h.value][0]
    assert "<b>0</b> protected pair(s) change order" in summary.value
    checkbox.value = True
    assert "<b>1</b> protected pair(s) change order, <b>1</b> reversed outright" in summary.value
    assert "A now ahead of B" in summary.value
