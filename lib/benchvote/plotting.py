"""Figures used throughout the book (matplotlib), its palette and its figure style.

Every function draws into an :class:`~matplotlib.axes.Axes` (a new one when
``ax`` is None), labels both axes and returns the axes.  No function changes global
state except :func:`book_style` (matplotlib's defaults) and :func:`phone_twins` (IPython's
figure formatter), which the book calls on purpose.

matplotlib (the ``plot`` extra) and IPython are optional dependencies, imported inside the
functions that draw: the audit report imports this module for :data:`OKABE_ITO_NAMED` and
:func:`short_labels` on an installation without them.
"""

from __future__ import annotations

import io
import pickle
import textwrap
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .ranking import changed_pairs

__all__ = [
    "OKABE_ITO",
    "OKABE_ITO_NAMED",
    "OKABE_ITO_LINES",
    "book_style",
    "bump_chart",
    "majority_graph",
    "narrow_twin",
    "phone_twins",
    "rank_interval_chart",
    "short_labels",
]

_FLIP = "#c0392b"
_STAY = "#7f8c8d"


def short_labels(names: Sequence[Any], width: int = 28) -> list[str]:
    """Shorten names to at most ``width`` characters, keeping them distinct.

    A name that fits is kept.  A longer one keeps its start and its end around
    an ellipsis (``"cloudyu/Mixtral_34Bx2_MoE_60B"`` with ``width=20`` becomes
    ``"cloudyu/M…x2_MoE_60B"``), since model names often differ only at the end
    (a size, a version, a date).  When two shortened names would coincide,
    the cut moves, keeping more of the end, until every label is distinct;
    if no cut separates them, a number is appended.  The rule is the one every
    figure of the book and of the audit report uses; the full names belong in
    a tooltip or a table.

    Parameters
    ----------
    names : sequence
        The names (converted with ``str``); they must be distinct.
    width : int
        The largest length of a label, at least 5.

    Returns
    -------
    list of str
        One label per name, in order, each at most ``width`` characters, all distinct.

    Examples
    --------
    >>> short_labels(["Stable Diffusion v1.4", "Stable Diffusion v2.1 base"], width=14)
    ['Stable…on v1.4', 'Stable….1 base']
    """
    if width < 5:
        raise ValueError(f"width must be at least 5, got {width}")
    full = [str(x) for x in names]
    if len(set(full)) != len(full):
        raise ValueError("names must be distinct")
    out = [_cut(name, width, None) for name in full]
    for _ in range(width):
        seen: dict[str, list[int]] = {}
        for k, label in enumerate(out):
            seen.setdefault(label, []).append(k)
        clashes = [ks for ks in seen.values() if len(ks) > 1]
        if not clashes:
            return out
        for ks in clashes:
            out = _separate(full, out, ks, width)
    return out


def _cut(name: str, width: int, head: int | None) -> str:
    """``name`` with its middle replaced by an ellipsis, ``head`` characters kept in front."""
    if len(name) <= width:
        return name
    if head is None:
        head = (width - 1) // 2
    return name[:head] + "…" + name[len(name) - (width - 1 - head) :]


def _separate(full: list[str], out: list[str], clash: list[int], width: int) -> list[str]:
    """Move the cut of the clashing labels until they differ (or number them)."""
    taken = {label for k, label in enumerate(out) if k not in clash}
    for head in [*range((width - 1) // 2 - 1, 0, -1), *range((width - 1) // 2 + 1, width - 1)]:
        trial = [_cut(full[k], width, head) for k in clash]
        if len(set(trial)) == len(trial) and not taken.intersection(trial):
            out = list(out)
            for k, label in zip(clash, trial):
                out[k] = label
            return out
    out = list(out)
    for number, k in enumerate(clash, start=1):
        tag = f"#{number}"
        out[k] = _cut(full[k], width - len(tag), None) + tag
    return out


def _spread_labels(y: np.ndarray, gap: float) -> np.ndarray:
    """Label heights for dots at ``y``: clusters centred on their dots, neighbours at least ``gap`` apart.

    Tied ranks share a dot but their labels are stacked around it; dots closer than ``gap``
    have their labels pushed apart the same way (a cluster grows until it clears its neighbours).
    """
    order = np.argsort(y, kind="stable")
    clusters = [[float(v)] for v in np.asarray(y, dtype=float)[order]]
    centres = [c[0] for c in clusters]
    merged = True
    while merged:
        merged = False
        for k in range(len(clusters) - 1):
            top_of_next = centres[k + 1] - gap * (len(clusters[k + 1]) - 1) / 2
            bottom_of_this = centres[k] + gap * (len(clusters[k]) - 1) / 2
            if top_of_next - bottom_of_this < gap - 1e-12:
                members = clusters[k] + clusters.pop(k + 1)
                centres.pop(k + 1)
                clusters[k], centres[k] = members, float(np.mean(members))
                merged = True
                break
    heights = [c + gap * (i - (len(m) - 1) / 2) for c, m in zip(centres, clusters) for i in range(len(m))]
    out = np.empty(len(heights))
    out[order] = heights
    return out


def _set_label(text: Any, label: str) -> None:
    """Show ``label`` in a bump chart's name text (with its rank, if the chart shows ranks)."""
    text._benchvote_label = label
    text.set_text(getattr(text, "_benchvote_pattern", "\0").replace("\0", label))


def _label_room(ax: Any, texts: list, names: Sequence[str]) -> tuple[float, float]:
    """x-limits that leave room for the name labels on both sides of a bump chart.

    ``texts`` are annotations anchored at x = 0 (left column) or x = 1 (right
    column) with an offset in points, so the room a label needs beyond its
    column, in pixels, does not depend on the limits.  ``texts`` hold two
    labels per model (left, right) of the full ``names``.  When the axes are
    too narrow, the labels are shortened by :func:`short_labels` (distinct
    labels, an ellipsis in the middle) until the two columns keep at least a
    fifth of the width between them.
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

    full = list(names)
    width = max(5, getattr(ax, "_benchvote_max_label", max(len(t.get_text()) for t in texts)))
    labels = short_labels(full, width)  # start again from the longest labels: the axes may have grown
    for k, t in enumerate(texts):
        _set_label(t, labels[k // 2])
    while True:
        need = needed()
        if axes_px - 2 * need >= 0.2 * axes_px or width <= 8:
            break
        width -= 3
        labels = short_labels(full, width)
        for k, t in enumerate(texts):
            _set_label(t, labels[k // 2])
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
    mark: str = "pairs",
    log: bool = False,
    show_ranks: bool = False,
) -> Any:
    """Two rankings of the same models side by side, one line per model.

    Lines of the marked models are drawn solid red, the others dashed grey;
    rank 1 is at the top.  Labels of tied or crowded ranks are stacked around
    their dots, with a thin leader line to the dot.

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
        Longer names are shortened by :func:`short_labels` (distinct, with an
        ellipsis in the middle).
    mark : {"pairs", "ranks"}
        Which models are red: those in a pair whose order changes (reversed,
        or tied on one side only), or those whose rank changes.
    log : bool
        Ranks on a logarithmic axis (for ranks among many models, of which a few are shown).
    show_ranks : bool
        Write each rank beside its label (the rank axis then has no ticks).

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt  # optional: see the module docstring

    b = np.asarray(before, dtype=float)
    a = np.asarray(after, dtype=float)
    if b.shape != a.shape or b.ndim != 1:
        raise ValueError("before and after must be rank vectors of the same length")
    if mark not in ("pairs", "ranks"):
        raise ValueError(f"mark must be 'pairs' or 'ranks', got {mark!r}")
    m = len(b)
    names = [str(i) for i in range(m)] if labels is None else [str(x) for x in labels]
    if len(names) != m:
        raise ValueError(f"labels has {len(names)} entries for {m} models")
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 0.32 * m + 1.4))
    if log:
        ax.set_yscale("log")
    if mark == "pairs":
        moved = {i for pair in changed_pairs(b, a) for i in pair}
    else:
        moved = set(np.flatnonzero(b != a).tolist())
    spread = (lambda y: 10 ** _spread_labels(np.log10(y), 0.042)) if log else (lambda y: _spread_labels(y, 0.42))
    texts = _draw_bump(ax, b, a, spread(b), spread(a), moved, show_ranks)
    ax._benchvote_labels = (texts, names)  # narrow_twin makes room again
    ax._benchvote_max_label = max_label
    ax.set_xlim(*_label_room(ax, texts, names))
    lowest = max(b.max(), a.max(), *(t.get_position()[1] for t in texts))
    ax.set_ylim(*((lowest * 1.12, 0.85) if log else (lowest + 0.6, 0.4)))
    ax.set_xticks([0, 1], titles)
    ax.xaxis.tick_top()
    ax.set_ylabel("rank (1 = best, log scale)" if log else "rank (1 = best)")
    what = ("models in a pair whose order changes", "the others") if mark == "pairs" else ("rank changes", "rank kept")
    ax.set_xlabel(f"solid red: {what[0]}; dashed grey: {what[1]}")
    top = max(b.max(), a.max())
    if show_ranks:
        ax.set_yticks([])
        ax.minorticks_off()
    elif not log:
        ax.set_yticks(range(1, int(np.ceil(top)) + 1) if top <= 30 else np.linspace(1, top, 6).round())
    for spine in ("right", "bottom", *(("left",) if show_ranks else ())):
        ax.spines[spine].set_visible(False)
    return ax


def _draw_bump(
    ax: Any, b: np.ndarray, a: np.ndarray, left_y: np.ndarray, right_y: np.ndarray, moved: set, show_ranks: bool
) -> list:
    """The lines and the name texts of :func:`bump_chart` (two per model: left, right)."""
    texts = []
    for i in range(len(b)):
        colour = _FLIP if i in moved else _STAY
        ax.plot(
            [0, 1],
            [b[i], a[i]],
            color=colour,
            lw=2.2 if i in moved else 1.2,
            ls="-" if i in moved else "--",
            marker="o",
            ms=4,
            zorder=3 if i in moved else 2,
        )
        for x, dot, y, side in ((0, b[i], left_y[i], -1), (1, a[i], right_y[i], 1)):
            text = ax.annotate(
                "",
                (x, dot),
                xytext=(5 * side, y),
                textcoords=("offset points", "data"),
                ha="left" if side > 0 else "right",
                va="center",
                fontsize=8.5,
                color=colour,
                annotation_clip=False,
                arrowprops=dict(arrowstyle="-", color=colour, lw=0.6, shrinkA=0, shrinkB=1) if y != dot else None,
            )
            if show_ranks:
                text._benchvote_pattern = f"\0  {dot:g}" if side < 0 else f"{dot:g}  \0"
            texts.append(text)
    return texts


def majority_graph(
    margins: Any,
    labels: Sequence[str] | None = None,
    *,
    ax: Any = None,
    highlight: Sequence[tuple] = (),
    voters: str = "tasks",
) -> Any:
    """Draw the majority relation: an arrow from i to j when the margin of i over j is positive.

    Models sit on a circle; each arrow is labelled with its margin.  Arrows
    listed in ``highlight`` (pairs of indices) are drawn in red, for example
    the three defeats of a Condorcet cycle.  Long labels are wrapped at 12
    characters and fonts shrink for more than six models, so graphs of up to
    about ten models stay legible.  Arrows end at the name boxes; each margin
    label sits on its arrow where it covers no name and no other label, and
    with more than six models, when one margin is that of more than half of
    the arrows, only the other margins are labelled (the axis label says
    which margin the unlabelled arrows carry).

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
    voters : str
        What the voters are, for the axis label ("tasks", or "metrics" for
        HELM's metric groups).

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt  # optional: see the module docstring

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
    names_drawn, arrows, margins, unlabelled = _draw_majority(ax, m_arr, xy, names, {tuple(h) for h in highlight})
    ax.set_xlim(-1.45, 1.45)
    ax.set_ylim(-1.35, 1.35)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_xlabel(f"arrow i → j: a majority of {voters} prefers i to j (label: margin{unlabelled})")
    ax.set_ylabel("majority relation")
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    # shortest arrows first (they leave the fewest places), red ones before the others
    margins.sort(key=lambda e: (not e[3], float(np.linalg.norm(xy[e[2]] - xy[e[1]]))))
    ax._benchvote_margins = (names_drawn, arrows, [e[:3] for e in margins])  # narrow_twin places them again
    _place_margins(ax)
    return ax


def _draw_majority(ax: Any, m_arr: np.ndarray, xy: np.ndarray, names: list[str], red: set) -> tuple:
    """The names (in boxes) and the arrows of a majority graph, with margin labels; see :func:`majority_graph`.

    Returns the name texts, the margin labels as ``(text, start, end, red)`` and the axis-label
    note on unlabelled arrows: with more than six models, when one margin is that of more than
    half of the arrows, only the other margins are labelled.
    """
    k = len(m_arr)
    small = k > 6
    values = [m_arr[i, j] for i in range(k) for j in range(k) if m_arr[i, j] > 0]
    common = max(sorted(set(values)), key=values.count) if values else None
    quiet = small and values.count(common) > len(values) / 2  # dense: label only the margins that differ
    names_drawn = [
        ax.text(
            x,
            y,
            textwrap.fill(name, 12),
            ha="center",
            va="center",
            fontsize=8 if small else 10,
            zorder=4,
            bbox=dict(boxstyle="round,pad=0.3", fc="#ecf0f1", ec="#2c3e50"),
        )
        for (x, y), name in zip(xy, names)
    ]
    margins, arrows = [], []
    for i, j in zip(*np.nonzero(m_arr > 0)):
        colour = _FLIP if (i, j) in red else "#34495e"
        arrow = ax.annotate("", xy=xy[j], xytext=xy[i], arrowprops=dict(arrowstyle="-|>", color=colour, lw=1.8))
        arrows.append((arrow, i, j))
        if not (quiet and m_arr[i, j] == common):
            text = ax.text(
                *(xy[i] + xy[j]) / 2,
                f"+{m_arr[i, j]:g}",
                fontsize=7 if small else 9,
                ha="center",
                va="center",
                color=colour,
                zorder=4,
                bbox=dict(boxstyle="round,pad=0.12", fc="white", ec="none"),
            )
            margins.append((text, i, j, (i, j) in red))
    return names_drawn, arrows, margins, f"; unlabelled: +{common:g}" if quiet else ""


def _place_margins(ax: Any) -> None:
    """Arrows of a majority graph from name box to name box, each margin label on its arrow where it covers nothing.

    An arrow runs between the edges of its two name boxes, so its head shows at any text size.
    Labels are placed one by one at the first free spot along their arrow (the middle first); a
    label with no free spot goes where it overlaps the fewest.  Placement is in pixels, so a
    phone layout, with larger text, is placed again (:func:`narrow_twin`).
    """
    names, arrows, margins = ax._benchvote_margins
    renderer = ax.figure.canvas.get_renderer()
    to_data = ax.transData.inverted()

    def box(t: Any) -> Any:
        t.update_bbox_position_size(renderer)
        return t.get_bbox_patch().get_window_extent(renderer)

    taken = [box(t) for t in names]
    centres = [ax.transData.transform(t.get_position()) for t in names]

    def edge(k: int, direction: np.ndarray) -> np.ndarray:
        """Where a ray from the centre of name k leaves its box (pixels)."""
        half = np.array([taken[k].width, taken[k].height]) / 2
        reach = min(h / abs(d) for h, d in zip(half, direction) if abs(d) > 1e-9)
        return centres[k] + reach * direction

    ends = {}
    for arrow, i, j in arrows:
        direction = (centres[j] - centres[i]) / np.linalg.norm(centres[j] - centres[i])
        a, b = edge(i, direction), edge(j, -direction)
        arrow.xy, arrow.xyann = tuple(to_data.transform(b)), tuple(to_data.transform(a))
        ends[i, j] = (a, b)
    spots = [(0.5, 0.0), (0.42, 0.0), (0.58, 0.0), (0.34, 0.0), (0.66, 0.0), (0.27, 0.0), (0.73, 0.0)]
    spots += [(f, side) for f in (0.5, 0.35, 0.65) for side in (1, -1)]
    for text, i, j in margins:
        a, b = ends[i, j]
        normal = np.array([a[1] - b[1], b[0] - a[0]]) / np.linalg.norm(b - a)
        lift = 0.9 * text.get_fontsize() * ax.figure.dpi / 72  # a line's height off the arrow, when it must
        best, fewest = None, None
        for along, off in spots:
            text.set_position(to_data.transform(a + along * (b - a) + off * lift * normal))
            hits = sum(box(text).overlaps(other) for other in taken)
            if fewest is None or hits < fewest:
                best, fewest = text.get_position(), hits
            if hits == 0:
                break
        text.set_position(best)
        taken.append(box(text))


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
        Longer names are shortened by :func:`short_labels` (distinct, with an
        ellipsis in the middle).

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt  # optional: see the module docstring

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


# --------------------------------------------------------------------------- the palette

#: The Okabe–Ito palette by colour name (Okabe and Ito 2008): the one home of the book's and the
#: report's colours, distinguishable with the common colour-vision deficiencies.
OKABE_ITO_NAMED = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "bluish green": "#009E73",
    "reddish purple": "#CC79A7",
    "vermillion": "#D55E00",
    "sky blue": "#56B4E9",
    "yellow": "#F0E442",
    "black": "#000000",
}
#: The same colours in the order of the book's colour cycle.
OKABE_ITO = tuple(OKABE_ITO_NAMED.values())
#: The Okabe–Ito colours a thin line or a small marker on white can use: all but the yellow,
#: whose contrast with white (1.3:1) is under the 2:1 a line needs (``tests/figure_lint.py``).
OKABE_ITO_LINES = tuple(c for c in OKABE_ITO if c != OKABE_ITO_NAMED["yellow"])


def book_style() -> None:
    """Set matplotlib's defaults to the book's figure style: the one setup call of every chapter.

    Figures at 110 dots per inch, 10-point text, and the Okabe–Ito colours
    (:data:`OKABE_ITO`) as the colour cycle.  A reader who runs a chapter gets the same
    figures as the book; the book build adds its own checks (``scripts/build_book.py``).
    """
    import matplotlib.pyplot as plt  # optional: see the module docstring

    plt.rcParams.update(
        {"figure.dpi": 110, "savefig.dpi": 110, "font.size": 10, "axes.prop_cycle": plt.cycler(color=OKABE_ITO)}
    )


# --------------------------------------------------------------------------- figures on a phone

#: Width of a figure's phone layout, in inches: a phone's column (342 CSS pixels at 390 px in
#: Chromium) shows a point of its text as about 342 / (72 * 4.2) = 1.13 pixels.
NARROW_WIDTH = 4.2
#: The smallest text of a phone layout, in points: about 10.7 pixels on a phone, so that a layout
#: whose labels widen its saved image by a tenth still shows its smallest text above 9 pixels.
NARROW_SMALLEST_TEXT = 9.5
#: A phone layout is narrowed to make room for labels beyond its axes down to this share of its width.
NARROW_FLOOR = 0.6


def _top_cell(ax: Any) -> Any:
    """The cell of the figure's outermost grid that holds ``ax`` (None for a free-floating axes)."""
    spec = ax.get_subplotspec()
    return None if spec is None else spec.get_topmost_subplotspec()


def _restack(fig: Any) -> int:
    """Move the figure's panels into one column, in reading order; return the number of rows."""
    from matplotlib.gridspec import GridSpec  # optional: see the module docstring

    cells: dict[tuple[int, int], Any] = {}
    for ax in fig.axes:
        cell = _top_cell(ax)
        if cell is not None:
            cells.setdefault((cell.rowspan.start, cell.colspan.start), cell)
    if not cells:
        return 1
    grid = next(iter(cells.values())).get_gridspec()
    if grid.ncols == 1:
        return grid.nrows
    order = {key: k for k, key in enumerate(sorted(cells))}
    column = GridSpec(len(order), 1, figure=fig)
    moved = set()
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        if spec is None:
            continue
        top = spec.get_topmost_subplotspec()
        new = column[order[(top.rowspan.start, top.colspan.start)]]
        if spec.get_gridspec() is grid:
            ax.set_subplotspec(new)
        else:  # a panel split by a colour bar: move the split, once
            inner = spec.get_gridspec()
            if id(inner) not in moved:
                inner._subplot_spec = new
                moved.add(id(inner))
            ax.set_subplotspec(spec)
    return len(order)


def _label_every_panel(fig: Any) -> None:
    """Stacked panels that shared an axis each show its tick labels and its label, to be read on their own.

    Side by side, panels sharing an axis label it once (matplotlib's ``sharey`` hides the tick
    labels of every panel but the first); one above the other, each panel needs them.
    """
    for ax in fig.axes:
        for axis, side, shared in (
            (ax.yaxis, "left", ax.get_shared_y_axes()),
            (ax.xaxis, "bottom", ax.get_shared_x_axes()),
        ):
            siblings = [other for other in shared.get_siblings(ax) if other is not ax]
            if not siblings or axis.get_label_position() != side:
                continue  # not shared, or a twin axis labelled on the other side
            axis.set_tick_params(which="both", **{f"label{side}": True})
            if not axis.get_label_text().strip():
                named = [o for o in siblings if (o.yaxis if axis is ax.yaxis else o.xaxis).get_label_text().strip()]
                if named:
                    axis.set_label_text((named[0].yaxis if axis is ax.yaxis else named[0].xaxis).get_label_text())


def _fit_xticks(fig: Any, renderer: Any) -> None:
    """Named x ticks of a phone layout that would overlap go on two lines, then on a slant, before any is left out."""
    from matplotlib.ticker import FixedLocator  # optional: see the module docstring

    for ax in fig.axes:
        if getattr(ax, "_benchvote_labels", None) is not None or not isinstance(
            ax.xaxis.get_major_locator(), FixedLocator
        ):
            continue  # a bump chart's columns, or ticks a locator places (numbers, which it spaces itself)

        def overlap(ax: Any = ax) -> bool:
            boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text().strip()]
            return any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])

        if not overlap():
            continue
        ticks, texts = ax.get_xticks(), [t.get_text() for t in ax.get_xticklabels()]
        longest = max(len(t) for t in texts)
        for wrap in [_two_lines, *(lambda t, w=w: textwrap.fill(t, w) for w in range(longest // 2, 5, -1))]:
            ax.set_xticks(ticks, [wrap(t) for t in texts], rotation=0, ha="center")
            if not overlap():
                break
        else:
            ax.set_xticks(ticks, texts, rotation=40, ha="right", rotation_mode="anchor")


def _two_lines(text: str) -> str:
    """``text`` broken at the space that makes its longer line shortest (unchanged without a space)."""
    words = text.split(" ")
    if len(words) < 2:
        return text
    cut = min(range(1, len(words)), key=lambda k: max(len(" ".join(words[:k])), len(" ".join(words[k:]))))
    return " ".join(words[:cut]) + "\n" + " ".join(words[cut:])


def _declutter(fig: Any, renderer: Any) -> None:
    """Hide a point label or a tick label that would overlap one drawn before it."""
    for ax in fig.axes:
        if getattr(ax, "_benchvote_labels", None) is not None or getattr(ax, "_benchvote_margins", None) is not None:
            continue  # a bump chart's labels are made to fit by _label_room, a majority graph's by _place_margins
        for group in (
            [t for t in ax.texts if t.get_text().strip()],  # an arrow without text is no label
            [t for t in ax.get_xticklabels() if t.get_text().strip()],
            [t for t in ax.get_yticklabels() if t.get_text().strip()],
        ):
            kept: list = []
            for t in group:
                if not t.get_visible():
                    continue
                box = t.get_window_extent(renderer)
                if any(box.overlaps(other) for other in kept):
                    t.set_visible(False)
                else:
                    kept.append(box)


def _legends_below(fig: Any, renderer: Any) -> None:
    """Move a legend that sticks out of its axes on the right to below the axes, in two columns."""
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or legend.get_window_extent(renderer).x1 <= ax.get_window_extent(renderer).x1 + 1:
            continue
        handles, labels = legend.legend_handles, [t.get_text() for t in legend.get_texts()]
        size = legend.get_texts()[0].get_fontsize() if labels else None
        below = ax.transAxes.inverted().transform((0, ax.get_tightbbox(renderer).y0))[1]
        ax.legend(
            handles,
            labels,
            loc="upper center",
            bbox_to_anchor=(0.5, below - 0.02),
            ncols=2,
            frameon=False,
            fontsize=size,
        )


def _lay_out(fig: Any) -> None:
    """Place the figure's panels (tight layout, unless constrained layout does it while drawing), and draw."""
    engine = fig.get_layout_engine()
    if engine is None or engine.colorbar_gridspec:  # a pickled figure has a placeholder engine
        fig.tight_layout()
    fig.canvas.draw()


def narrow_twin(fig: Any, width: float = NARROW_WIDTH) -> Any:
    """A copy of ``fig`` laid out for a phone: one column of panels, ``width`` inches wide.

    Panels side by side are stacked in reading order (each keeps its height), text smaller
    than :data:`NARROW_SMALLEST_TEXT` points is enlarged to it, log axes label their ticks
    without superscripts, a bump chart makes room for
    its labels again (shortening them), and a point or tick label that would overlap an
    earlier one is left out (the caption, the alt text and the wide figure keep every label).
    ``fig`` itself is not changed.

    Parameters
    ----------
    fig : matplotlib Figure
    width : float
        Width in inches; shown across a phone's column, a point of text is about
        ``350 / (72 * width)`` CSS pixels.

    Returns
    -------
    matplotlib Figure
        A new figure, not registered with pyplot.
    """
    import matplotlib.pyplot as plt  # optional: see the module docstring
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # optional: see the module docstring
    from matplotlib.text import Text  # optional: see the module docstring

    twin = pickle.loads(pickle.dumps(fig))
    if twin in [plt.figure(n) for n in plt.get_fignums()]:
        plt.close(twin)  # unpickling registers a pyplot figure: the cell must not show it
    FigureCanvasAgg(twin)
    old_w, old_h = fig.get_size_inches()
    grid_rows = max((c.get_gridspec().nrows for c in filter(None, map(_top_cell, fig.axes))), default=1)
    rows = _restack(twin)
    if rows > grid_rows:
        _label_every_panel(twin)
    twin.set_size_inches(width, max(2.6, old_h / grid_rows * rows * (0.85 if rows > grid_rows else 1.0)))
    _plain_log_ticks(twin)
    for text in twin.findobj(Text):
        if text.get_text().strip() and text.get_fontsize() < NARROW_SMALLEST_TEXT:
            text.set_fontsize(NARROW_SMALLEST_TEXT)
    _wrap_titles(twin, width)
    for ax in twin.axes:
        if getattr(ax, "_benchvote_margins", None) is not None:
            ax.set_aspect("auto")  # a majority graph: on a tall phone panel, the circle becomes a tall ellipse
    for ax in twin.axes:  # a bump chart's names are fitted into its axes by _label_room, not by the layout
        for text in getattr(ax, "_benchvote_labels", ((),))[0]:
            text.set_in_layout(False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _lay_out(twin)
        _legends_below(twin, twin.canvas.get_renderer())
        for _ in range(3):  # labels beyond the axes widen the saved image: narrow the figure until it fits
            _lay_out(twin)
            for ax in twin.axes:
                labels = getattr(ax, "_benchvote_labels", None)
                if labels is not None:  # a bump chart: room for the names, column titles as wide as the gap
                    ax.set_xlim(*_label_room(ax, *labels))
                    _fit_column_titles(ax)
            _lay_out(twin)
            extra = twin.get_tightbbox(twin.canvas.get_renderer()).width - width
            if extra <= 0.02 * width:
                break
            # labels placed beyond the axes in data units do not shrink with the figure: never below 60 %
            narrower = max(twin.get_size_inches()[0] - extra, NARROW_FLOOR * width)
            twin.set_size_inches(narrower, twin.get_size_inches()[1])
        _lay_out(twin)
        _fit_xticks(twin, twin.canvas.get_renderer())
        _lay_out(twin)
        for ax in twin.axes:
            if getattr(ax, "_benchvote_margins", None) is not None:
                _place_margins(ax)  # a majority graph: its margins placed again at the phone's text size
        _declutter(twin, twin.canvas.get_renderer())
        for ax in twin.axes:
            if getattr(ax, "_benchvote_labels", None) is not None:
                _name_key(ax, *ax._benchvote_labels)
    return twin


def _fit_column_titles(ax: Any) -> None:
    """A bump chart's two column titles, wrapped so that neither reaches past the middle between the columns."""
    renderer = ax.figure.canvas.get_renderer()
    gap = abs(ax.transData.transform((1, 0))[0] - ax.transData.transform((0, 0))[0])
    titles = [t.get_text().replace("\n", " ") for t in ax.get_xticklabels()]
    size = ax.get_xticklabels()[0].get_fontsize() * ax.figure.dpi / 72
    chars = max(6, int(0.95 * gap / (0.6 * size)))
    # whole words first ("chance-normalised" stays one, where a break inside it read "chance-n / ormalise / d");
    # then breaks after hyphens; inside a word only when the two titles would overlap otherwise
    for hyphens, inside in ((False, False), (True, False), (True, True)):
        wrapped = [textwrap.fill(t, chars, break_on_hyphens=hyphens, break_long_words=inside) for t in titles]
        ax.set_xticks([0, 1], wrapped)
        boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels()]
        if not boxes[0].overlaps(boxes[1]):
            return


def _name_key(ax: Any, texts: list, names: Sequence[str]) -> None:
    """Under a bump chart whose labels were shortened, the full names: a phone has no tooltip to show them.

    One line per shortened name, ``short = full``, in the order of the left column, wrapped to the
    figure's width; the figure grows by the key's height.
    """
    rows = sorted(
        (texts[2 * k].xy[1], texts[2 * k]._benchvote_label, full)
        for k, full in enumerate(names)
        if texts[2 * k]._benchvote_label != full
    )
    if not rows:
        return
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    chars = int(fig.get_size_inches()[0] * 72 * 0.94 / (0.6 * NARROW_SMALLEST_TEXT))
    lines = [
        textwrap.fill(f"{short} = {full}", chars, subsequent_indent="\u00a0" * 4, break_on_hyphens=False)
        for _, short, full in rows
    ]
    below = ax.transAxes.inverted().transform((0, ax.get_tightbbox(renderer).y0))[1]
    key = ax.annotate(
        "\n".join(["Names in full:", *lines]),
        (0.02, below - 0.02),
        xycoords=("figure fraction", "axes fraction"),
        ha="left",
        va="top",
        fontsize=NARROW_SMALLEST_TEXT,
        color="#1d2330",
        annotation_clip=False,
    )
    w, h = fig.get_size_inches()
    fig.set_size_inches(w, h + key.get_window_extent(renderer).height / fig.dpi + 0.1)
    _lay_out(fig)  # the axes keep their height, the key goes under them


def _wrap_titles(fig: Any, width: float) -> None:
    """Titles and axis labels of a phone layout on as many lines as the width needs (they do not shrink with it)."""

    def fill(text: Any) -> None:
        words = text.get_text().replace("\n", " ")
        chars = int(width * 72 / (0.6 * text.get_fontsize()))  # about 0.6 em a character
        if words.strip() and len(words) > chars and "$" not in words:
            text.set_text(textwrap.fill(words, chars))

    for ax in fig.axes:
        for text in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label):
            fill(text)
    if fig._suptitle is not None:
        fill(fig._suptitle)


def _plain_log_ticks(fig: Any) -> None:
    """Log axes of a phone layout label their ticks 0.01, 0.1, 1 rather than 10 to a small superscript power."""
    from matplotlib.ticker import FuncFormatter, NullFormatter  # optional: see the module docstring

    plain = FuncFormatter(lambda v, _: f"{v:g}")
    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            if scale in ("log", "symlog"):
                axis.set_major_formatter(plain)
                axis.set_minor_formatter(NullFormatter())


def _svg(fig: Any) -> str:
    """The figure as SVG text whose words stay text (so a test can measure them), byte-stable."""
    import matplotlib  # optional: see the module docstring

    out = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "benchvote"}):
        fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    return out.getvalue()


def phone_twins() -> None:
    """In IPython, give every figure a cell shows a phone layout (:func:`narrow_twin`) beside it.

    The PNG a figure shows is unchanged; its output metadata gains
    ``{"image/png": {"benchvote-narrow": <SVG text>}}``, which the book's Sphinx extension
    (``book/_ext/bookfixes.py``) turns into a second image shown instead on narrow screens.
    Outside IPython, or without matplotlib's inline backend, it does nothing.
    """
    try:
        from IPython import get_ipython  # optional: see the module docstring
    except ImportError:  # pragma: no cover - IPython comes with Jupyter
        return
    shell = get_ipython()
    if shell is None:
        return
    from matplotlib.figure import Figure  # optional: see the module docstring

    formatter = shell.display_formatter.formatters["image/png"]
    try:
        png = formatter.lookup_by_type(Figure)
    except KeyError:
        return
    png = getattr(png, "_benchvote_wide", png)  # called again: wrap the backend's own function once

    def both(fig: Any) -> Any:
        wide = png(fig)
        if not fig.axes or wide is None:
            return wide
        return wide, {"benchvote-narrow": _svg(narrow_twin(fig))}

    both._benchvote_wide = png  # type: ignore[attr-defined]
    formatter.for_type(Figure, both)
