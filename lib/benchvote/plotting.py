"""Figures used throughout the book (matplotlib, no global state).

Every function draws into an :class:`~matplotlib.axes.Axes` (a new one when
``ax`` is None), labels both axes and returns the axes.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np

from .ranking import changed_pairs

__all__ = ["bump_chart", "majority_graph", "rank_interval_chart"]

_FLIP = "#c0392b"
_STAY = "#7f8c8d"


def _spread_ties(y: np.ndarray, step: float = 0.42) -> np.ndarray:
    """Label positions: tied ranks share a dot but their labels are stacked around it."""
    out = y.astype(float).copy()
    for value in np.unique(y):
        idx = np.flatnonzero(y == value)
        if len(idx) > 1:
            out[idx] = value + (np.arange(len(idx)) - (len(idx) - 1) / 2) * step
    return out


def _label_room(ax: Any, texts: list) -> tuple[float, float]:
    """x-limits that leave room for the name labels on both sides of a bump chart.

    ``texts`` are annotations anchored at x = 0 (left column) or x = 1 (right
    column) with an offset in points, so the room a label needs beyond its
    column, in pixels, does not depend on the limits.  When the axes are too
    narrow, the labels are shortened (with an ellipsis) until the two columns
    keep at least a fifth of the width between them.
    """
    renderer = ax.figure.canvas.get_renderer()
    axes_px = ax.get_window_extent(renderer).width

    def needed() -> float:
        room = 0.0
        for t in texts:
            box = t.get_window_extent(renderer)
            anchor = ax.transData.transform((t.xy[0], t.xy[1]))[0]
            room = max(room, anchor - box.x0 if t.xy[0] == 0 else box.x1 - anchor)
        return room * 1.05 + 4

    while True:
        need = needed()
        longest = max(len(t.get_text()) for t in texts)
        if axes_px - 2 * need >= 0.2 * axes_px or longest <= 8:
            break
        for t in texts:
            name = t.get_text()
            if len(name) > longest - 3:
                t.set_text(name[: longest - 4] + "…")
    # With limits (-r, 1 + r) a data unit spans axes_px / (1 + 2r) pixels, and a
    # label needs r * axes_px / (1 + 2r) >= need.
    r = need / max(axes_px - 2 * need, 0.15 * axes_px)
    return -r, 1 + r


def bump_chart(
    before: Any,
    after: Any,
    labels: Sequence[str] | None = None,
    *,
    ax: Any = None,
    titles: tuple[str, str] = ("before", "after"),
    max_label: int = 28,
) -> Any:
    """Two rankings of the same models side by side, one line per model.

    Lines of models in a pair whose order changes (reversed, or tied on one
    side only) are drawn in red, the others in grey; rank 1 is at the top.

    Parameters
    ----------
    before, after : sequence of float
        Rank vectors (1 = best) of the same models.
    labels : sequence of str, optional
        Model names (default ``0, 1, ...``).
    ax : matplotlib Axes, optional
    titles : (str, str)
        Captions over the two columns.
    max_label : int
        Longer names are shortened with an ellipsis.

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt

    b = np.asarray(before, dtype=float)
    a = np.asarray(after, dtype=float)
    if b.shape != a.shape or b.ndim != 1:
        raise ValueError("before and after must be rank vectors of the same length")
    m = len(b)
    names = [str(i) for i in range(m)] if labels is None else [str(x) for x in labels]
    if len(names) != m:
        raise ValueError(f"labels has {len(names)} entries for {m} models")
    names = [n if len(n) <= max_label else n[: max_label - 1] + "…" for n in names]
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 0.32 * m + 1.4))
    moved = {i for pair in changed_pairs(b, a) for i in pair}
    left_y, right_y = _spread_ties(b), _spread_ties(a)
    texts = []
    for i in range(m):
        colour = _FLIP if i in moved else _STAY
        width = 2.2 if i in moved else 1.2
        ax.plot([0, 1], [b[i], a[i]], color=colour, lw=width, marker="o", ms=4, zorder=3 if i in moved else 2)
        for x, y, side in ((0, left_y[i], -1), (1, right_y[i], 1)):
            texts.append(
                ax.annotate(
                    names[i],
                    (x, y),
                    xytext=(5 * side, 0),
                    textcoords="offset points",
                    ha="left" if side > 0 else "right",
                    va="center",
                    fontsize=8.5,
                    color=colour,
                    annotation_clip=False,
                )
            )
    ax.set_xlim(*_label_room(ax, texts))
    top = max(b.max(), a.max())
    ax.set_ylim(top + 0.6, 0.4)
    ax.set_xticks([0, 1], titles)
    ax.xaxis.tick_top()
    ax.set_ylabel("rank (1 = best)")
    ax.set_xlabel("red: models in a pair whose order changes")
    ax.set_yticks(range(1, int(np.ceil(top)) + 1) if top <= 30 else np.linspace(1, top, 6).round())
    for spine in ("right", "bottom"):
        ax.spines[spine].set_visible(False)
    return ax


def majority_graph(
    margins: Any, labels: Sequence[str] | None = None, *, ax: Any = None, highlight: Sequence[tuple] = ()
) -> Any:
    """Draw the majority relation: an arrow from i to j when the margin of i over j is positive.

    Models sit on a circle; each arrow is labelled with its margin.  Arrows
    listed in ``highlight`` (pairs of indices) are drawn in red, for example
    the three defeats of a Condorcet cycle.  Long labels are wrapped at 12
    characters and fonts shrink for more than six models, so graphs of up to
    about ten models stay legible.

    Parameters
    ----------
    margins : array_like or DataFrame, shape (m, m)
        Majority margins (:func:`benchvote.voting.margin_matrix`).
    labels : sequence of str, optional
        Model names (default: the frame's labels or 0, 1, ...).
    ax : matplotlib Axes, optional
        Where to draw (a new figure by default).
    highlight : sequence of (i, j)
        Arrows drawn in red, e.g. the defeats of a cycle.

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt

    m_arr = np.asarray(margins)
    if m_arr.ndim != 2 or m_arr.shape[0] != m_arr.shape[1]:
        raise ValueError("margins must be a square matrix")
    if not np.array_equal(m_arr, -m_arr.T):
        raise ValueError("margins must be antisymmetric (margin_matrix output)")
    k = len(m_arr)
    names = [str(i) for i in range(k)] if labels is None else [str(x) for x in labels]
    if len(names) != k:
        raise ValueError(f"labels has {len(names)} entries for {k} models")
    if ax is None:
        _, ax = plt.subplots(figsize=(4.2, 4.2))
    angles = np.pi / 2 - 2 * np.pi * np.arange(k) / k
    xy = np.column_stack([np.cos(angles), np.sin(angles)])
    red = {tuple(h) for h in highlight}
    small = k > 6
    for i in range(k):
        for j in range(k):
            if m_arr[i, j] > 0:
                start, end = xy[i], xy[j]
                direction = (end - start) / np.linalg.norm(end - start)
                a, b = start + 0.17 * direction, end - 0.17 * direction
                colour = _FLIP if (i, j) in red else "#34495e"
                ax.annotate("", xy=b, xytext=a, arrowprops=dict(arrowstyle="-|>", color=colour, lw=1.8))
                mid = (a + b) / 2 + 0.08 * np.array([-direction[1], direction[0]])
                ax.text(
                    mid[0],
                    mid[1],
                    f"+{m_arr[i, j]:g}",
                    fontsize=7 if small else 9,
                    ha="center",
                    va="center",
                    color=colour,
                )
    for (x, y), name in zip(xy, names):
        ax.text(
            x,
            y,
            textwrap.fill(name, 12),
            ha="center",
            va="center",
            fontsize=8 if small else 10,
            bbox=dict(boxstyle="round,pad=0.3", fc="#ecf0f1", ec="#2c3e50"),
        )
    ax.set_xlim(-1.45, 1.45)
    ax.set_ylim(-1.35, 1.35)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_xlabel("arrow i → j: a majority of tasks prefers i to j (label: margin)")
    ax.set_ylabel("majority relation")
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    return ax


def rank_interval_chart(
    intervals: Any,
    *,
    ax: Any = None,
    top: int | None = None,
    highlight: Sequence = (),
    max_label: int = 30,
) -> Any:
    """Bootstrap rank intervals, one row per model, best first.

    A bar runs from the lower to the upper end of each model's interval and
    a dot marks its rank on the full table (:func:`benchvote.intervals.rank_intervals`).

    Parameters
    ----------
    intervals : RankIntervals
        From :func:`benchvote.intervals.rank_intervals` or
        :func:`benchvote.intervals.instance_rank_intervals`.
    ax : matplotlib Axes, optional
    top : int, optional
        Show only the best ``top`` models (by the full table's rank).
    highlight : sequence
        Models drawn in red (for instance those the text discusses).
    max_label : int
        Longer names are shortened with an ellipsis.

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt

    if not callable(getattr(intervals, "frame", None)) or not hasattr(intervals, "level"):
        raise TypeError(
            "intervals must be a RankIntervals (from benchvote.intervals.rank_intervals), "
            f"got {type(intervals).__name__}"
        )
    frame = intervals.frame()
    if top is not None:
        frame = frame.iloc[:top]
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 0.22 * len(frame) + 1.2))
    y = np.arange(len(frame))
    marked = {str(h) for h in highlight}
    colours = [_FLIP if str(name) in marked else "#2b6cb0" for name in frame.index]
    ax.hlines(y, frame["lower"], frame["upper"], colors=colours, linewidth=3)
    ax.plot(frame["rank"], y, "o", color="#1d2330", markersize=3.5)
    ax.set_yticks(y, [textwrap.shorten(str(n), max_label, placeholder="...") for n in frame.index], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"rank (1 = best); bar: {round(intervals.level * 100)}% bootstrap interval, dot: full table")
    ax.set_ylabel("model")
    ax.grid(axis="x", color="#e3e7ee")
    return ax
