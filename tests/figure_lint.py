"""Figure lint for the book build: what a reader can tell apart in every figure a chapter shows.

Not library code: the build (``scripts/build_book.py``) installs :func:`record_figures` in every kernel it
starts, through an IPython startup file, so that each chapter's figures are recorded with
:func:`figure_facts` into ``_build/figure-data/<chapter>.jsonl`` without the chapter calling anything;
``tests/test_figures.py`` then judges every record with :func:`figure_problems`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from IPython import get_ipython
from matplotlib.colors import to_hex, to_rgba_array

from benchvote.plotting import phone_twins

#: The smallest contrast ratio (WCAG) with white that a line, a marker or a text of a figure needs.
PALE_ON_WHITE = 2.0

#: Colour maps that put red against green (or run through both), unreadable with the commonest
#: colour-vision deficiencies; matplotlib names, reversed variants included.
RED_GREEN_MAPS = frozenset(
    name + suffix
    for name in ("RdYlGn", "Spectral", "jet", "hsv", "rainbow", "gist_rainbow", "nipy_spectral", "turbo", "brg")
    for suffix in ("", "_r")
)

# Machado, Oliveira and Fernandes (2009), severity 1.0, on linear RGB.
_CVD = {
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
}


def figure_facts(fig: Any) -> dict:
    """What a reader can tell apart in a figure: its labels and its colours, axes by axes.

    Parameters
    ----------
    fig : matplotlib Figure

    Returns
    -------
    dict
        ``{"axes": [...]}`` with, for each axes, its ``xlabel`` and ``ylabel``, its tick
        labels, its legend entries, its text labels grouped by horizontal anchor
        (``texts``: a list of lists), the colour maps of its images and collections
        (``cmaps``) and the distinct colours of its lines, patches and markers
        (``colours``, as ``#rrggbb``; white and fully transparent ones left out), and the
        colours of its lines and texts (``strokes``).
    """
    out = []
    for ax in fig.get_axes():
        if not ax.get_visible():
            continue
        groups: dict[float, list[str]] = {}
        for t in ax.texts:
            text = t.get_text().strip()
            if text and t.get_visible():
                anchor = t.xy[0] if hasattr(t, "xy") else t.get_position()[0]
                groups.setdefault(round(float(anchor), 6), []).append(text)
        legend = ax.get_legend()
        colours: set[str] = set()
        values = [t.get_color() for t in ax.texts if t.get_visible() and t.get_text().strip()]
        values += [t.arrow_patch.get_edgecolor() for t in ax.texts if getattr(t, "arrow_patch", None) is not None]
        for artist in [*ax.lines, *ax.patches, *ax.collections]:
            if artist is not ax.patch and artist.get_visible():
                values += [
                    getattr(artist, g)() for g in ("get_color", "get_facecolor", "get_edgecolor") if hasattr(artist, g)
                ]
        for value in values:
            try:
                rgba = to_rgba_array(value)
            except (TypeError, ValueError):
                continue
            for row in rgba:
                if row[3] > 0:
                    colours.add(to_hex(row[:3]))
        colours.discard("#ffffff")
        strokes = {to_hex(to_rgba_array(line.get_color())[0][:3]) for line in ax.lines if line.get_visible()}
        shown = [t for t in ax.texts if t.get_visible() and t.get_text().strip()]
        strokes |= {to_hex(to_rgba_array(t.get_color())[0][:3]) for t in shown}
        out.append(
            {
                "xlabel": ax.get_xlabel(),
                "ylabel": ax.get_ylabel(),
                "xticks": [t.get_text() for t in ax.get_xticklabels() if t.get_text()],
                "yticks": [t.get_text() for t in ax.get_yticklabels() if t.get_text()],
                "legend": [t.get_text() for t in legend.get_texts()] if legend else [],
                "texts": list(groups.values()),
                "cmaps": sorted(
                    {a.get_cmap().name for a in [*ax.images, *ax.collections] if a.get_array() is not None}
                ),
                "colours": sorted(colours),
                "strokes": sorted(strokes),
            }
        )
    return {"axes": out}


def _luminance(hex_colour: str) -> float:
    """WCAG relative luminance of a ``#rrggbb`` colour."""
    rgb = np.array([int(hex_colour[k : k + 2], 16) / 255 for k in (1, 3, 5)])
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(lin @ [0.2126, 0.7152, 0.0722])


def _lab(hex_colours: Sequence[str], deficiency: str | None = None) -> np.ndarray:
    """CIELAB (D65) of colours, optionally as seen with a colour-vision deficiency."""
    rgb = np.array([[int(h[k : k + 2], 16) / 255 for k in (1, 3, 5)] for h in hex_colours])
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    if deficiency:
        lin = np.clip(lin @ _CVD[deficiency].T, 0, 1)
    xyz = lin @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]).T
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.column_stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])])


def figure_problems(facts: dict, *, distinct: float = 12.0, confusable: float = 10.0) -> list[str]:
    """What makes a figure hard to read, from :func:`figure_facts`: an empty list when nothing does.

    A figure has a problem when an axis has ticks but no label, two equal tick labels,
    two equal legend entries or two equal text labels at the same horizontal anchor
    (numbers such as edge margins may repeat), a red–green colour map
    (:data:`RED_GREEN_MAPS`), or two colours that a reader with normal vision tells apart
    (CIELAB distance at least ``distinct``) but that come within ``confusable`` of each other
    for a reader with deuteranopia or protanopia (Machado et al. 2009, full severity), or a
    line or text too pale on the white background (contrast under :data:`PALE_ON_WHITE`).

    Parameters
    ----------
    facts : dict
        The output of :func:`figure_facts`.
    distinct : float
        CIELAB distance from which two colours are meant to differ.
    confusable : float
        CIELAB distance under which two colours look alike.

    Returns
    -------
    list of str
    """
    # values such as "+2", "0.25", "40%", "3 of 10" may repeat; names may not
    numeric = re.compile(r"^[+\-−]?[\d.,]+%?( (of|/) [\d.,]+%?)?$")
    problems = []
    for k, ax in enumerate(facts["axes"]):
        where = f"axes {k}"
        groups = [("x tick", ax["xticks"]), ("y tick", ax["yticks"]), ("legend", ax["legend"])]
        groups += [("text", [t for t in texts if not numeric.match(t)]) for texts in ax["texts"]]
        for kind, labels in groups:
            repeated = sorted({x for x in labels if labels.count(x) > 1})
            if repeated:
                problems.append(f"{where}: repeated {kind} labels {repeated[:3]}")
        for axis in ("x", "y"):
            if ax[f"{axis}ticks"] and not ax[f"{axis}label"].strip():
                problems.append(f"{where}: the {axis} axis has ticks but no label")
        bad = [c for c in ax["cmaps"] if c in RED_GREEN_MAPS]
        if bad:
            problems.append(f"{where}: red-green colour map {bad}")
        for colour in ax.get("strokes", []):
            ratio = 1.05 / (_luminance(colour) + 0.05)
            if ratio < PALE_ON_WHITE:
                problems.append(f"{where}: {colour} is too pale on white ({ratio:.2f}:1)")
        colours = ax["colours"]
        if len(colours) > 1:
            normal = _lab(colours)
            for deficiency in _CVD:
                seen = _lab(colours, deficiency)
                for i in range(len(colours)):
                    for j in range(i + 1, len(colours)):
                        if (
                            np.linalg.norm(normal[i] - normal[j])
                            >= distinct
                            > confusable
                            > np.linalg.norm(seen[i] - seen[j])
                        ):
                            problems.append(f"{where}: {colours[i]} and {colours[j]} look alike with {deficiency}")
    return problems


def record_figures(path: Any) -> None:
    """In IPython, append :func:`figure_facts` of every figure a cell shows to a JSON-lines file.

    The book build calls it in every kernel it starts (``scripts/build_book.py``) so that a test can
    check every built figure with :func:`figure_problems`; it also turns on
    :func:`benchvote.plotting.phone_twins`, so that every figure of the book has its phone layout.
    The file is emptied first.  Outside IPython it does nothing.

    Parameters
    ----------
    path : str or path-like
        The file to write (its folder is created).
    """
    shell = get_ipython()
    if shell is None:
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("")

    def log(*_: Any) -> None:
        with target.open("a") as out:
            for number in plt.get_fignums():
                fig = plt.figure(number)
                record = {"cell": shell.execution_count, "figure": number, **figure_facts(fig)}
                out.write(json.dumps(record) + "\n")

    phone_twins()
    # before matplotlib's own post_execute callback, which shows and closes the figures
    callbacks = shell.events.callbacks["post_execute"]
    callbacks[:] = [c for c in callbacks if not getattr(c, "_benchvote_figure_log", False)]
    log._benchvote_figure_log = True  # type: ignore[attr-defined]
    callbacks.insert(0, log)
