"""Interactive controls for the book (ipywidgets; live in Binder or Jupyter).

On the static site a widget shows only its initial state, so every chapter
places a static figure beside each widget.  The widgets only wire inputs to
the library's pure functions; all computation happens there.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from .aggregation import protected_ranking
from .plotting import bump_chart, changed_pairs, flipped_pairs
from .ranking import kendall_tau_distance

__all__ = ["model_toggle"]


def model_toggle(
    scores: pd.DataFrame,
    protected: Sequence,
    pool: Sequence,
    *,
    higher_is_better: Any = True,
    convention: str = "strict",
    checked: Sequence = (),
    columns: int = 3,
) -> Any:
    """Check boxes for the ``pool`` models and a live bump chart of the ``protected`` ranking.

    Left column of the chart: the protected models ranked among themselves.
    Right column: their ranking when the checked pool models join the field.

    Returns
    -------
    ipywidgets.VBox
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    protected = list(protected)
    pool = list(pool)
    unknown = [x for x in protected + pool if x not in scores.index]
    if unknown:
        raise KeyError(f"unknown model(s) {unknown[:5]}")
    if set(protected) & set(pool):
        raise ValueError(f"model(s) {sorted(map(str, set(protected) & set(pool)))[:5]} are both protected and added")
    base = protected_ranking(scores, protected, higher_is_better=higher_is_better, convention=convention)
    boxes = [widgets.Checkbox(value=x in set(checked), description=str(x), indent=False,
                              layout=widgets.Layout(width="auto")) for x in pool]
    out = widgets.Output()
    summary = widgets.HTML()

    def redraw(*_: Any) -> None:
        added = [x for x, box in zip(pool, boxes) if box.value]
        new = protected_ranking(scores, protected, added, higher_is_better=higher_is_better, convention=convention)
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
        summary.value = (f"<b>{len(added)}</b> weak model(s) added; <b>{len(changed)}</b> protected pair(s) change "
                         f"order, <b>{len(flips)}</b> reversed outright (Kendall tau distance {tau:.3f})"
                         f"{': ' + names + more if changed else ''}.")
        out.clear_output(wait=True)
        with out:
            fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(protected) + 1.4))
            bump_chart(base.to_numpy(), new.to_numpy(), labels=protected, ax=ax,
                       titles=("protected models only", f"with {len(added)} added"))
            fig.tight_layout()
            plt.show()

    for box in boxes:
        box.observe(redraw, names="value")
    grid = widgets.GridBox(boxes, layout=widgets.Layout(grid_template_columns=f"repeat({columns}, auto)"))
    redraw()
    return widgets.VBox([widgets.HTML("<b>Add weak models to the field:</b>"), grid, summary, out])
