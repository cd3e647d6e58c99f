"""The report's charts as geometry: plain numbers and strings that the templates draw as SVG.

Each chart is a small dataclass of positions, labels and tooltips, computed
here and drawn by the macros of ``_web/audit_macros.html.j2``, so the tests
can check what a reader will see (distinct labels, ticks that do not
overlap) on the data, without a browser.  Long names are shortened by the
book's one rule, :func:`benchvote.plotting.short_labels` (the report's sliders
use its JavaScript twin), which keeps them distinct; the full name is the
tooltip and is in every table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..plotting import OKABE_ITO_NAMED, short_labels

#: Width of one character of 11-px text, in pixels (a generous estimate for the label layout checks).
CHAR_PX = 6.6
#: Colours of the charts (from the one Okabe–Ito palette): the front, the other models.
BLUE, ORANGE = OKABE_ITO_NAMED["blue"], OKABE_ITO_NAMED["orange"]


def short_names(names: list[str], width: int = 28) -> dict[str, str]:
    """Name -> its label by :func:`benchvote.plotting.short_labels` (the one rule of the book and the report)."""
    return dict(zip(names, short_labels(names, width)))


@dataclass(frozen=True)
class Label:
    """A text on the chart: its anchor point, text, anchor side and full text for the tooltip."""

    x: float
    y: float
    text: str
    anchor: str = "middle"
    full: str = ""

    def box(self, font: float = 11.0) -> tuple[float, float, float, float]:
        """(left, right, top, bottom) of the text, estimated from its length."""
        w = len(self.text) * CHAR_PX * font / 11.0
        left = {"start": self.x, "middle": self.x - w / 2, "end": self.x - w}[self.anchor]
        return left, left + w, self.y - font, self.y + 2


@dataclass(frozen=True)
class HBars:
    """Horizontal bars, one row per label (readable for 5 or 60 labels): the weights charts."""

    width: int
    height: int
    left: float
    top: float
    row: float
    span: float
    zero: float
    bars: list[dict]
    labels: list[Label]
    ticks: list[Label]
    gridlines: list[float]
    title: str
    desc: str
    xlabel: str


def hbars(values: list[float], labels: list[str], title: str, desc: str, xlabel: str, signed: bool = False) -> HBars:
    """Horizontal bars for ``values`` (a missing value draws no bar); ``signed`` puts 0 in the middle."""
    short = short_names(labels, 26)
    row, top = 18.0, 10.0
    left = 12 + CHAR_PX * max((len(short[x]) for x in labels), default=4)
    width, span = 720, 720 - left - 24
    vals = [float(v) if v is not None and np.isfinite(v) else math.nan for v in values]
    finite = [v for v in vals if not math.isnan(v)] or [0.0]
    hi = max(max(finite), 0.0)
    lo = min(min(finite), 0.0) if signed else 0.0
    if hi - lo <= 0:
        hi = lo + 1.0
    ticks_v = nice_ticks(lo, hi, max(2, int(span // 70)))
    lo, hi = min(lo, ticks_v[0]), max(hi, ticks_v[-1])

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * span

    bars, names_ = [], []
    for k, (lab, v) in enumerate(zip(labels, vals)):
        y = top + k * row
        names_.append(Label(left - 6, y + row * 0.7, short[lab], "end", lab))
        if not math.isnan(v):
            a, b = sorted((x(0.0), x(v)))
            bars.append({"x": a, "y": y + 2, "w": max(b - a, 0.5), "h": row - 4, "tip": f"{lab}: {v:.4g}"})
    axis_y = top + row * len(labels) + 14
    ticks = [Label(x(t), axis_y, fmt_tick(t)) for t in ticks_v]
    height = int(axis_y + 30)
    return HBars(
        width, height, left, top, row, span, x(0.0), bars, names_, ticks, [x(t) for t in ticks_v], title, desc, xlabel
    )


def nice_ticks(lo: float, hi: float, most: int) -> list[float]:
    """At most ``most`` round tick values covering [lo, hi] (steps 1, 2 or 5 times a power of ten)."""
    span = hi - lo if hi > lo else 1.0
    raw = span / max(most - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(s * power for s in (1, 2, 5, 10) if s * power >= raw)
    start = math.floor(lo / step) * step
    out = []
    v = start
    while v <= hi + step * 1e-9:
        out.append(round(v, 12))
        v += step
    if out[-1] < hi - 1e-12:
        out.append(round(v, 12))
    return out


def fmt_tick(v: float) -> str:
    return f"{v:.3g}"


@dataclass(frozen=True)
class Intervals:
    """Rank intervals, one row per model (the top ``shown`` of ``total``), with a rank axis."""

    width: int
    height: int
    rows: list[dict]
    labels: list[Label]
    ticks: list[Label]
    gridlines: list[float]
    axis_left: float
    axis_right: float
    top: float
    bottom: float
    shown: int
    total: int
    title: str
    desc: str


def intervals(order: list[str], lower: dict, upper: dict, ranks: dict, level: float, top: int = 40) -> Intervals:
    """The rank intervals of the first ``top`` models of ``order``, on an axis of the ranks they reach."""
    shown = order[:top]
    short = short_names(shown, 30)
    row, head = 17.0, 30.0
    left = 14 + CHAR_PX * max(len(short[m]) for m in shown)
    width = 760
    span = width - left - 28
    reach = max([float(upper[m]) for m in shown if upper.get(m) is not None] + [float(len(shown))])
    ticks_v = [t for t in nice_ticks(1, reach, max(2, int(span // 50))) if t >= 1] or [1.0]
    if ticks_v[0] != 1:
        ticks_v = [1.0, *ticks_v]
    hi = max(reach, ticks_v[-1])

    def x(r: float) -> float:
        return left + (r - 1) / max(hi - 1, 1) * span

    rows, labels = [], []
    for k, m in enumerate(shown):
        y = head + row * k + row / 2
        labels.append(Label(left - 8, y + 4, short[m], "end", m))
        lo, up, r = lower.get(m), upper.get(m), ranks.get(m)
        if lo is None or up is None or r is None:
            continue
        rows.append(
            {"x1": x(lo), "x2": x(up), "y": y, "cx": x(r), "tip": f"{m}: rank {r:g}, interval {lo:g} to {up:g}"}
        )
    bottom = head + row * len(shown)
    ticks = [Label(x(t), head - 10, f"{t:g}") for t in ticks_v]
    desc = (
        f"For each of the first {len(shown)} models of {len(order)}, a line from the lower to the upper end of its "
        f"{level * 100:.0f}% bootstrap interval of ranks and a dot at its rank on the full table, best first."
    )
    return Intervals(
        width,
        int(bottom + 36),
        rows,
        labels,
        ticks,
        [x(t) for t in ticks_v],
        left,
        left + span,
        head,
        bottom,
        len(shown),
        len(order),
        f"Rank intervals of the first {len(shown)} models",
        desc,
    )


@dataclass(frozen=True)
class Heatmap:
    """A square matrix of values in [-1, 1] (or [0, 1]) with row and column labels; cells carry tooltips."""

    width: int
    height: int
    cell: float
    left: float
    top: float
    cells: list[dict]
    row_labels: list[Label]
    col_labels: list[Label]
    title: str
    desc: str
    legend: list[dict] = field(default_factory=list)


def heatmap(
    matrix: np.ndarray, names: list[str], title: str, desc: str, diverging: bool = True, fmt: str = ".2f"
) -> Heatmap:
    """Cells coloured by value (a blue-white-orange scale, colour-blind safe); columns labelled by number."""
    n = len(names)
    short = short_names(names, 26)
    cell = float(max(13, min(28, 560 // max(n, 1))))  # at least one 10-px label per row
    left = 14 + CHAR_PX * max(len(f"{k + 1}. {short[t]}") for k, t in enumerate(names))
    top = 26.0
    cells = []
    for i in range(n):
        for j in range(n):
            v = float(matrix[i, j])
            cells.append(
                {
                    "x": left + j * cell,
                    "y": top + i * cell,
                    "fill": _colour(v, diverging),
                    "tip": f"{names[i]} / {names[j]}: {format(v, fmt) if np.isfinite(v) else 'n/a'}",
                }
            )
    rows = [Label(left - 6, top + (k + 0.7) * cell, f"{k + 1}. {short[t]}", "end", t) for k, t in enumerate(names)]
    step = 1 if cell * 11 >= CHAR_PX * 9 * len(str(n)) + 2 else 2
    cols = [
        Label(left + (k + 0.5) * cell, top - 8, str(k + 1), "middle", t) for k, t in enumerate(names) if k % step == 0
    ]
    legend = [
        {"x": left + n * cell + 16, "y": top + k * 14, "fill": _colour(v, diverging), "text": f"{v:g}"}
        for k, v in enumerate((1.0, 0.5, 0.0, -0.5, -1.0) if diverging else (1.0, 0.75, 0.5, 0.25, 0.0))
    ]
    width = int(left + n * cell + 70)
    return Heatmap(width, int(top + n * cell + 16), cell, left, top, cells, rows, cols, title, desc, legend)


def _colour(v: float, diverging: bool) -> str:
    """Blue (high) through white to orange (low; white when not diverging): Okabe-Ito hues, colour-blind safe."""
    if not np.isfinite(v):
        return "#bbbbbb"
    share = (v + 1) / 2 if diverging else v
    share = min(max(share, 0.0), 1.0)
    hi, lo, mid = (0, 114, 178), (230, 159, 0), (255, 255, 255)
    if not diverging:
        lo = mid
    a, b, t = (mid, hi, share * 2 - 1) if share >= 0.5 else (lo, mid, share * 2)
    rgb = [round(p + (q - p) * t) for p, q in zip(a, b)]
    return "#" + "".join(f"{c:02x}" for c in rgb)


def overlapping(labels: list[Label], font: float = 11.0, gap: float = 1.0) -> list[tuple[str, str]]:
    """Pairs of labels whose estimated boxes overlap (the layout checks of the tests)."""
    boxes = [(lab, lab.box(font)) for lab in labels]
    out = []
    for k, (a, (l1, r1, t1, b1)) in enumerate(boxes):
        for b, (l2, r2, t2, b2) in boxes[k + 1 :]:
            if l1 < r2 - gap and l2 < r1 - gap and t1 < b2 - gap and t2 < b1 - gap:
                out.append((a.text, b.text))
    return out


@dataclass(frozen=True)
class Scatter:
    """Points in the plane (the quality-cost front): filled points on the front joined by a line, the others hollow."""

    width: int
    height: int
    left: float
    top: float
    span_x: float
    span_y: float
    points: list[dict]
    line: str
    labels: list[Label]
    xticks: list[Label]
    yticks: list[Label]
    legend: list[dict]
    title: str
    desc: str
    xlabel: str
    ylabel: str
    front_colour: str = BLUE
    other_colour: str = ORANGE


def scatter(
    points: list[tuple[str, float, float, bool]],
    title: str,
    desc: str,
    xlabel: str,
    ylabel: str,
    log_x: bool = False,
    xname: str = "x",
) -> Scatter:
    """One dot per ``(name, x, y, on_front)``; ``log_x`` puts x on a log scale (every x must then be positive).

    Each dot's tooltip reads ``"name: <xname> x, quality y"``.

    The front's points are filled, joined in order of x and labelled where a
    label does not overlap one already placed (the full name is every dot's
    tooltip); the others are hollow.
    """
    width, height, left, top = 720, 380, 72.0, 20.0
    span_x, span_y = width - left - 170.0, height - top - 56.0
    tx = [math.log10(x) for _, x, _, _ in points] if log_x else [x for _, x, _, _ in points]
    ys = [y for _, _, y, _ in points]
    sx, x_lo, x_hi = _scatter_scale(tx, left, span_x, False)
    sy, y_lo, y_hi = _scatter_scale(ys, top, span_y, True)

    def px(v: float) -> float:
        return sx(math.log10(v) if log_x else v)

    short = short_names(sorted({n for n, *_ in points}), 24)
    dots: list[dict] = []
    labels: list[Label] = []
    for name, x, y, on in points:
        dots.append({"x": px(x), "y": sy(y), "on": on, "tip": f"{name}: {xname} {x:.6g}, quality {y:.4g}"})
    for name, x, y, _on in sorted((p for p in points if p[3]), key=lambda p: -p[2]):
        if len(labels) >= 40:
            break
        lab = Label(px(x) + 7, sy(y) - 6, short[name], "start", name)
        if not overlapping([*labels, lab]):
            labels.append(lab)
    line = " ".join(f"{px(x):.1f},{sy(y):.1f}" for x, y in sorted((x, y) for _, x, y, on in points if on))
    xt = (
        [10.0**k for k in range(math.ceil(x_lo), math.floor(x_hi) + 1)] or [10.0**x_lo]
        if log_x
        else ([v for v in nice_ticks(x_lo, x_hi, 6) if x_lo - 1e-12 <= v <= x_hi + 1e-12] or [x_lo])
    )
    yt = [v for v in nice_ticks(y_lo, y_hi, 6) if y_lo - 1e-12 <= v <= y_hi + 1e-12] or [y_lo]
    xticks = [Label(px(v), top + span_y + 16, f"{v:.6g}" if log_x else fmt_tick(v)) for v in xt]
    yticks = [Label(left - 6, sy(v) + 4, fmt_tick(v), "end") for v in yt]
    key, low = left + span_x + 24, top + span_y
    legend = [
        {"x": key, "y": low - 28, "on": True, "text": "on the front"},
        {"x": key, "y": low - 8, "on": False, "text": "dominated"},
    ]
    return Scatter(
        width,
        height,
        left,
        top,
        span_x,
        span_y,
        dots,
        line,
        labels,
        xticks,
        yticks,
        legend,
        title,
        desc,
        xlabel,
        ylabel,
    )


def _scatter_scale(values: list[float], lo_px: float, span: float, flip: bool) -> tuple:
    """A map from data to pixels over ``span`` (upwards when ``flip``), 12 px inside each end; and the data range."""
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)

    def at(v: float) -> float:
        share = 0.5 if hi <= lo else (v - lo) / (hi - lo)
        return lo_px + 12 + (1 - share if flip else share) * (span - 24)

    return at, lo, hi
