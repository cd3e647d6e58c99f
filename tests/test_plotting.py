"""Tests for benchvote.plotting."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from conftest import score_tables  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from benchvote import rank  # noqa: E402
from benchvote.plotting import bump_chart  # noqa: E402
from benchvote.ranking import changed_pairs, flipped_pairs  # noqa: E402


@given(score_tables(min_tasks=2, max_tasks=2))
def test_flipped_pairs_brute_force(table):
    a, b = rank(table[:, 0]), rank(table[:, 1])
    expected = [(i, j) for i in range(len(a)) for j in range(len(a)) if a[i] < a[j] and b[i] > b[j]]
    assert flipped_pairs(a, b) == expected


@given(score_tables(min_tasks=2, max_tasks=2))
def test_changed_pairs_brute_force(table):
    a, b = rank(table[:, 0]), rank(table[:, 1])
    expected = [
        (i, j) for i in range(len(a)) for j in range(i + 1, len(a)) if np.sign(a[i] - a[j]) != np.sign(b[i] - b[j])
    ]
    assert changed_pairs(a, b) == expected
    assert set(flipped_pairs(a, b)) <= {p for q in expected for p in (q, q[::-1])}


def test_bump_chart_labels_axes_and_marks_flips():
    ax = bump_chart([1, 2, 3], [2, 1, 3], labels=["a", "b", "c"])
    assert ax.get_ylabel() == "rank (1 = best)"
    assert "changes" in ax.get_xlabel()
    colours = [line.get_color() for line in ax.get_lines()]
    assert colours.count("#c0392b") == 2 and colours.count("#7f8c8d") == 1
    assert ax.get_ylim()[0] > ax.get_ylim()[1]  # rank 1 at the top
    plt.close("all")


def test_tied_labels_do_not_overlap():
    ax = bump_chart([1.5, 1.5, 3], [1, 2, 3], labels=["a", "b", "c"])
    left = sorted(t.get_position()[1] for t in ax.texts if t.xy[0] == 0)  # the labels, stacked beside the dot
    assert len(set(np.round(left, 6))) == 3
    plt.close("all")


@pytest.mark.parametrize("width", [3.0, 5.0, 9.0])
def test_labels_stay_inside_the_axes(width):
    # Long names must not spill over the rank axis or past the right edge,
    # whatever the width of the axes.
    names = ["a model with a very long descriptive name", "short", "middle-sized name", "x" * 30]
    fig, ax = plt.subplots(figsize=(width, 3))
    bump_chart([1, 2, 3, 4], [4, 3, 2, 1], labels=names, ax=ax)
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    for t in ax.texts:
        box = t.get_window_extent(renderer)
        assert box.x0 >= frame.x0 - 0.5 and box.x1 <= frame.x1 + 0.5, t.get_text()
    lo, hi = ax.get_xlim()
    assert (hi - lo) < 1 / 0.15 + 1e-9  # the two columns keep part of the width
    plt.close(fig)


def test_bad_input():
    with pytest.raises(ValueError, match="same length"):
        flipped_pairs([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="labels"):
        bump_chart([1, 2], [2, 1], labels=["only one"])


def test_majority_graph_draws_one_arrow_per_majority():
    from benchvote.plotting import majority_graph
    from benchvote.voting import margin_matrix

    m = margin_matrix([[3, 1, 2], [2, 3, 1], [1, 2, 3]])
    ax = majority_graph(m, labels=["a", "b", "c"], highlight=[(0, 1)])
    from matplotlib.text import Annotation

    arrows = [c for c in ax.get_children() if isinstance(c, Annotation) and c.arrow_patch is not None]
    assert len(arrows) == 3
    assert sum(a.arrow_patch.get_edgecolor()[:3] == matplotlib.colors.to_rgb("#c0392b") for a in arrows) == 1
    assert "majority" in ax.get_xlabel() and ax.get_ylabel() == "majority relation"
    with pytest.raises(ValueError, match="antisymmetric"):
        majority_graph([[0, 1], [1, 0]])
    plt.close("all")


def test_rank_interval_chart_draws_every_interval_where_the_library_puts_it():
    import pandas as pd

    from benchvote.intervals import rank_intervals
    from benchvote.plotting import rank_interval_chart

    rng = np.random.default_rng(3)
    scores = pd.DataFrame(rng.normal(size=(8, 5)), index=[f"m{i}" for i in range(8)])
    r = rank_intervals(scores, n_boot=200, seed=1)
    ax = rank_interval_chart(r, top=6, highlight=["m3"])
    frame = r.frame().iloc[:6]
    segments = ax.collections[0].get_segments()
    assert len(segments) == 6
    for seg, (_, row) in zip(segments, frame.iterrows()):
        assert (seg[0][0], seg[1][0]) == (row["lower"], row["upper"])
    assert [t.get_text() for t in ax.get_yticklabels()] == list(frame.index)
    assert ax.get_xlabel().startswith("rank") and ax.get_ylabel() == "model"
    colours = ax.collections[0].get_colors()
    marked = list(frame.index).index("m3") if "m3" in frame.index else None
    if marked is not None:
        assert tuple(colours[marked][:3]) != tuple(colours[(marked + 1) % 6][:3])
    plt.close(ax.figure)
    with pytest.raises(TypeError, match="RankIntervals"):
        rank_interval_chart(frame)


def test_short_labels_keeps_the_names_apart_that_truncation_merged():
    from benchvote.plotting import short_labels

    names = ["cloudyu/Mixtral_34Bx2_MoE_60B", "cloudyu/Mixtral_34Bx2_MoE_60B-dpo", "cloudyu/Mixtral_34Bx2_MoE_60B-v2"]
    assert len({n[:27] for n in names}) == 1  # the old rule cut them into one string
    labels = short_labels(names, 28)
    assert len(set(labels)) == 3 and all(len(x) <= 28 for x in labels)
    sd = [f"Stable Diffusion v{v}" for v in ("1.4", "1.5", "2 base", "2.1 base")]
    assert len(set(short_labels(sd, 14))) == 4


@given(
    st.lists(st.text(min_size=1, max_size=50), min_size=1, max_size=15, unique=True),
    st.integers(5, 40),
)
def test_short_labels_are_distinct_short_and_keep_short_names(names, width):
    from benchvote.plotting import short_labels

    labels = short_labels(names, width)
    assert len(labels) == len(names)
    assert len(set(labels)) == len(labels)
    assert all(len(x) <= width for x in labels)
    for name, label in zip(names, labels):
        if len(name) <= width and all(len(other) <= width for other in names):
            assert label == name


def test_short_labels_refuses_repeated_names_and_tiny_widths():
    from benchvote.plotting import short_labels

    with pytest.raises(ValueError, match="distinct"):
        short_labels(["a", "a"])
    with pytest.raises(ValueError, match="width"):
        short_labels(["a"], 3)


def test_bump_chart_labels_stay_distinct_when_squeezed():
    names = [f"organisation/very-long-model-name-{k}-instruct" for k in range(8)]
    fig, ax = plt.subplots(figsize=(3.0, 3.0))
    bump_chart(np.arange(1, 9), np.arange(8, 0, -1), names, ax=ax)
    fig.canvas.draw()
    left = [t.get_text() for t in ax.texts[0::2]]
    assert len(set(left)) == 8
    plt.close(fig)


def test_book_style_sets_the_books_defaults_and_its_palette_as_the_colour_cycle():
    from benchvote.plotting import OKABE_ITO, book_style

    with matplotlib.rc_context():
        book_style()
        assert plt.rcParams["figure.dpi"] == plt.rcParams["savefig.dpi"] == 110
        assert plt.rcParams["font.size"] == 10
        assert tuple(plt.rcParams["axes.prop_cycle"].by_key()["color"]) == OKABE_ITO
        fig, ax = plt.subplots()
        (line,) = ax.plot([0, 1])
        assert line.get_color() == OKABE_ITO[0]
        plt.close(fig)
    assert plt.rcParams["figure.dpi"] != 110  # rc_context restored matplotlib's defaults


def test_the_report_colours_are_the_book_palette_by_name():
    """One palette: the report's charts and stylesheet draw with ``plotting.OKABE_ITO`` (by name, not by copy)."""
    import re
    from importlib import resources

    from benchvote.audit import _charts
    from benchvote.plotting import OKABE_ITO, OKABE_ITO_NAMED

    assert tuple(OKABE_ITO_NAMED.values()) == OKABE_ITO and len(set(OKABE_ITO)) == 8
    assert (_charts.BLUE, _charts.ORANGE) == (OKABE_ITO_NAMED["blue"], OKABE_ITO_NAMED["orange"])
    css = resources.files("benchvote").joinpath("_web/audit_report.css").read_text(encoding="utf-8")
    drawn = re.findall(r"--(?:bar|point):(#[0-9A-Fa-f]{6})", css)  # the light and the dark scheme
    assert len(drawn) == 4 and set(drawn) <= set(OKABE_ITO)


def _text_sizes(svg: str) -> tuple[float, list[float]]:
    """The SVG's width and the font sizes of its words (in its own units)."""
    import re

    width = float(re.search(r'viewBox="0 0 ([\d.]+)', svg).group(1))
    return width, [float(x) for x in re.findall(r"font-size: ([\d.]+)px", svg)]


def test_narrow_twin_stacks_panels_in_reading_order_and_leaves_the_figure_alone():
    from benchvote.plotting import NARROW_WIDTH, _svg, narrow_twin

    fig, axes = plt.subplots(2, 2, figsize=(10, 8))
    for k, ax in enumerate(axes.flat):
        ax.set_title(f"panel {k}")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
    fig.tight_layout()
    before = [ax.get_position().bounds for ax in fig.axes]
    twin = narrow_twin(fig)
    assert [ax.get_position().bounds for ax in fig.axes] == before and tuple(fig.get_size_inches()) == (10, 8)
    assert twin not in [plt.figure(n) for n in plt.get_fignums()]
    assert 0.8 * 72 * NARROW_WIDTH <= _text_sizes(_svg(twin))[0] <= 1.02 * 72 * NARROW_WIDTH  # the saved image
    tops = [ax.get_position().y0 for ax in twin.axes]
    lefts = {round(ax.get_position().x0, 2) for ax in twin.axes}
    assert [ax.get_title() for ax in twin.axes] == [f"panel {k}" for k in range(4)]
    assert tops == sorted(tops, reverse=True) and len(lefts) == 1  # one column, top to bottom
    plt.close(fig)


def test_narrow_twin_text_is_legible_across_a_phone_and_nothing_overlaps():
    from benchvote.plotting import NARROW_SMALLEST_TEXT, _svg, narrow_twin

    rng = np.random.default_rng(1)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    x, y = rng.random(40), rng.random(40)
    for ax in axes:
        ax.scatter(x, y)
        for i in range(40):
            ax.annotate(f"board {i}", (x[i], y[i]), fontsize=5)
        ax.set_xlabel("x")
        ax.set_ylabel("y")
    for k in range(8):
        axes[1].plot([0, 1], [k, k], label=f"line {k}")
    axes[1].legend(bbox_to_anchor=(1.02, 1), loc="upper left", fontsize=6)
    fig.tight_layout()
    twin = narrow_twin(fig)
    width, sizes = _text_sizes(_svg(twin))
    column = 342  # CSS pixels across a phone's column at 390 px (the book's figures, measured in Chromium)
    assert min(sizes) >= NARROW_SMALLEST_TEXT and min(sizes) * column / width >= 9
    renderer = twin.canvas.get_renderer()
    for ax in twin.axes:
        boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_visible()]
        assert 0 < len(boxes) < 40  # fewer labels, none on another
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
        legend = ax.get_legend()
        if legend is not None:  # moved under the axes, inside the figure's width
            assert legend.get_window_extent(renderer).x1 <= twin.bbox.x1
    plt.close(fig)


def test_narrow_twin_gives_a_bump_chart_room_for_its_labels():
    from benchvote.plotting import _svg, narrow_twin

    names = [f"organisation/a-long-model-name-{i}-v2" for i in range(12)]
    fig, ax = plt.subplots(figsize=(8, 5))
    bump_chart(np.arange(1, 13), np.arange(12, 0, -1), names, ax=ax)
    fig.tight_layout()
    twin = narrow_twin(fig)
    width, sizes = _text_sizes(_svg(twin))
    assert width <= 72 * twin.get_size_inches()[0] * 1.05  # the labels do not widen the image
    labels = [t.get_text() for t in twin.axes[0].texts[0:24:2]]
    assert len(set(labels)) == 12 and all(len(t) < len(names[0]) for t in labels)
    plt.close(fig)


def test_a_phone_bump_chart_keeps_readable_labels_and_gives_the_full_names_under_it():
    from benchvote.plotting import NARROW_SMALLEST_TEXT, _svg, narrow_twin, short_labels

    names = ["meta-llama/Llama-2-70b-chat-hf", "mistralai/Mixtral-8x7B-Instruct-v0.1", "01-ai/Yi-34B-Chat"]
    names += ["cloudyu/Mixtral_34Bx2_MoE_60B", "Qwen/Qwen-72B", "upstage/SOLAR-10.7B-Instruct-v1.0", "gpt2"]
    fig, ax = plt.subplots(figsize=(7.5, 4))
    bump_chart(np.arange(1, 8), np.array([2, 1, 3, 5, 4, 7, 6]), names, ax=ax, titles=("all scores", "30% removed"))
    fig.tight_layout()
    twin = narrow_twin(fig)
    width, sizes = _text_sizes(_svg(twin))
    assert width <= 72 * twin.get_size_inches()[0] * 1.05 and min(sizes) >= NARROW_SMALLEST_TEXT
    shown = [t.get_text() for t in twin.axes[0].texts[0:14:2]]
    assert all(len(t) >= 12 or t in names for t in shown)  # not cut to a handful of characters
    assert shown == short_labels(names, max(len(t) for t in shown))  # the library's one shortening rule
    key = " ".join(t.get_text() for t in twin.axes[0].texts[14:]).replace("\n\u00a0\u00a0\u00a0\u00a0", " ")
    for label, name in zip(shown, names):  # on a phone no tooltip shows a name: a key under the chart does
        assert (f"{label} = {name}" in key) == (label != name)
    titles = [t.get_window_extent(twin.canvas.get_renderer()) for t in twin.axes[0].get_xticklabels()]
    assert not titles[0].overlaps(titles[1])  # the column titles fit the gap between the columns
    plt.close(fig)


def test_narrow_twin_keeps_every_name_of_a_majority_graph():
    from benchvote.plotting import majority_graph, narrow_twin

    fig, axes = plt.subplots(1, 2, figsize=(8.4, 4.2))
    cycle = np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]])
    for ax in axes:
        majority_graph(cycle, ["GPT-4", "Claude", "PaLM"], ax=ax, highlight=[(0, 1), (1, 2), (2, 0)])
    twin = narrow_twin(fig)
    for ax in twin.axes:  # the arrows cross the margins' places, but no name or margin is dropped
        assert sorted(t.get_text() for t in ax.texts if t.get_visible() and t.get_text()) == sorted(
            t.get_text() for t in axes[0].texts if t.get_text()
        )
    plt.close(fig)


def test_narrow_twin_labels_log_ticks_without_small_superscripts():
    from benchvote.plotting import NARROW_SMALLEST_TEXT, _svg, narrow_twin

    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot([1e-3, 1e-2, 1e-1, 1.0], [1, 2, 3, 4])
    ax.set_xscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("pairs")
    wide = _svg(fig)
    assert min(_text_sizes(wide)[1]) < NARROW_SMALLEST_TEXT  # matplotlib's 10^{-2}: a superscript at 70 %
    twin = narrow_twin(fig)
    assert {"0.001", "0.01", "0.1", "1"} <= {t.get_text() for t in twin.axes[0].get_xticklabels()}
    assert min(_text_sizes(_svg(twin))[1]) >= NARROW_SMALLEST_TEXT
    plt.close(fig)


def test_narrow_twin_wraps_a_long_title_and_survives_labels_far_beyond_the_axes():
    from benchvote.plotting import NARROW_WIDTH, _svg, narrow_twin

    fig, ax = plt.subplots(figsize=(7.2, 4.6))
    ax.plot([0, 1], [0, 1])
    ax.set_title("HELM-accuracy, complete models: ranks over 1000 redraws of the scenarios")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    twin = narrow_twin(fig)
    assert "\n" in twin.axes[0].get_title() and "\n" not in ax.get_title()  # the figure itself is left alone
    width, _ = _text_sizes(_svg(twin))
    assert width <= NARROW_WIDTH * 72 * 1.05
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(8, 4))  # an annotation in data units, far right of the axes
    ax.plot([0, 1], [0, 1])
    ax.annotate("a label placed well beyond the axes", (6.0, 0.5), annotation_clip=False)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    twin = narrow_twin(fig)  # it used to narrow the figure to a negative width (ValueError)
    assert twin.get_size_inches()[0] > 0
    plt.close(fig)


def test_narrow_twin_labels_the_ticks_of_every_stacked_panel_that_shared_an_axis():
    from benchvote.plotting import narrow_twin

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
    for ax in axes:
        ax.bar([0, 1], [0.2, 0.8])
        ax.set_xlabel("model set")
    axes[0].set_ylabel("share of scenarios")
    fig.tight_layout()
    assert not [t for t in axes[1].get_yticklabels() if t.get_visible() and t.get_text()]  # sharey hides them
    twin = narrow_twin(fig)
    for ax in twin.axes:  # one above the other, each panel reads on its own
        assert [t.get_text() for t in ax.get_yticklabels() if t.get_visible() and t.get_text()]
        assert ax.get_ylabel() == "share of scenarios"
    assert axes[1].get_ylabel() == ""  # the figure itself is left alone
    plt.close(fig)


def test_narrow_twin_wraps_long_named_ticks_rather_than_leaving_one_out():
    from benchvote.plotting import narrow_twin

    names = ["top 5", "top 9", "top 4 + mid-range 3", "top 1 + weakest 3"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for ax in axes:
        ax.bar(range(4), [0.9, 0.4, 0.6, 1.0])
        ax.set_xticks(range(4), names, rotation=15)
        ax.set_xlabel("model set")
        ax.set_ylabel("share")
    fig.tight_layout()
    twin = narrow_twin(fig)
    renderer = twin.canvas.get_renderer()
    for ax in twin.axes:
        shown = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        assert [" ".join(t.get_text().split()) for t in shown] == names
        boxes = [t.get_window_extent(renderer) for t in shown]
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    plt.close(fig)


def _dense_majority(seed=3, k=9, unanimous=0.8):
    """Margins of a k-model relation under three metrics: +3 (unanimous) or +1, some cycles."""
    rng = np.random.default_rng(seed)
    margins = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            value = (3 if rng.random() < unanimous else 1) * (1 if rng.random() < 0.7 else -1)
            margins[i, j], margins[j, i] = value, -value
    return margins


def test_a_dense_majority_graph_labels_the_uncommon_margins_where_they_cover_nothing():
    from benchvote.plotting import _svg, majority_graph, narrow_twin

    names = ["text-davinci-002", "Anthropic-LM v4-s3 (52B)", "OPT (175B)", "Cohere xlarge v20220609 (52.4B)"]
    names += ["davinci (175B)", "GLM (130B)", "J1-Jumbo v1 (178B)", "J1-Grande v1 (17B)", "BLOOM (176B)"]
    margins = _dense_majority()
    fig, axes = plt.subplots(1, 1, figsize=(7.5, 7), squeeze=False)
    majority_graph(margins, names, ax=axes[0, 0], voters="metrics")
    fig.tight_layout()
    axes = axes[0]
    values = margins[margins > 0]
    shown = sorted(t.get_text() for t in axes[0].texts if t.get_text().startswith("+"))
    assert shown == sorted(f"+{v:g}" for v in values if v != 3) and "unlabelled: +3" in axes[0].get_xlabel()
    twin = narrow_twin(fig)
    _svg(twin)  # drawn as the book saves it
    renderer = twin.canvas.get_renderer()
    for ax in twin.axes:
        texts = [t for t in ax.texts if t.get_text()]
        assert all(t.get_visible() for t in texts)  # every name and every margin on the phone too
        boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in texts if t.get_text().startswith("+")]
        names_boxes = [
            t.get_bbox_patch().get_window_extent(renderer) for t in texts if not t.get_text().startswith("+")
        ]
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :] + names_boxes)
    plt.close(fig)


def test_bump_chart_can_mark_rank_changes_on_a_log_axis_with_the_ranks_beside_the_names():
    before, after = np.array([1, 2, 3, 4.5, 4.5]), np.array([2, 1, 3, 40, 70])
    fig, ax = plt.subplots(figsize=(6, 5))
    bump_chart(before, after, list("abcde"), ax=ax, mark="ranks", log=True, show_ranks=True)
    assert ax.get_yscale() == "log" and ax.get_ylim()[0] > 70 > 1 > ax.get_ylim()[1] > 0
    lines = ax.get_lines()
    assert [line.get_color() for line in lines] == ["#c0392b", "#c0392b", "#7f8c8d", "#c0392b", "#c0392b"]
    assert lines[2].get_linestyle() == "--"  # kept rank: grey and dashed (a cue beside colour)
    left = [t.get_text() for t in ax.texts[0::2]]
    right = [t.get_text() for t in ax.texts[1::2]]
    assert left == ["a  1", "b  2", "c  3", "d  4.5", "e  4.5"] and right[3] == "40  d"
    tied = sorted(t.get_position()[1] for t in ax.texts[6::2])  # d and e share a dot, not a label place
    assert tied[0] < 4.5 < tied[1]
    with pytest.raises(ValueError, match="mark"):
        bump_chart(before, after, mark="moves")
    plt.close("all")


@pytest.mark.parametrize("titles", [("raw mean", "chance-normalised mean"), ("contenders only", "with davinci (175B)")])
def test_a_phone_bump_chart_breaks_its_column_titles_between_words(titles):
    """Fig. 1.1 and 1.3 on a phone read "chance-n / ormalise / d mean" and "contende / rs only": titles wrap at spaces,
    then after hyphens, and inside a word only when the two titles would overlap otherwise (not here)."""
    import re

    from benchvote.plotting import narrow_twin

    names = [f"organisation/model-{i}" for i in range(8)]
    fig, ax = plt.subplots(figsize=(7.5, 4))
    bump_chart(np.arange(1, 9), np.array([2, 1, 3, 5, 4, 8, 6, 7]), names, ax=ax, titles=titles)
    fig.tight_layout()
    twin = narrow_twin(fig)
    shown = [t.get_text() for t in twin.axes[0].get_xticklabels()]
    for title, text in zip(titles, shown):
        pieces = set(re.findall(r"[^\s-]+-?", title))  # the words, and the parts of a word that end at a hyphen
        assert "\n" in text or len(title) < 10, text  # wrapped at all: the phone's columns are close
        assert text.replace("-\n", "-").replace("\n", " ") == title, text
        assert set(re.findall(r"[^\s-]+-?", text)) <= pieces, text
    plt.close(fig)
    plt.close(twin)
