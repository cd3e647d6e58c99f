"""Tests for tests/figure_lint.py, the build's check of every figure (tests/test_figures.py judges the book's)."""

from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from figure_lint import figure_facts, figure_problems  # noqa: E402

from benchvote.plotting import OKABE_ITO, OKABE_ITO_LINES, bump_chart, majority_graph  # noqa: E402


def test_figure_problems_finds_what_a_reader_cannot_tell_apart():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], color="#ff7f0e", label="one")
    ax.plot([0, 1], [1, 0], color="#2ca02c", label="one")
    ax.imshow(np.eye(3), cmap="RdYlGn")
    ax.set_xticks([0, 1], ["Stable Diffusion v…", "Stable Diffusion v…"])
    ax.legend()
    problems = " | ".join(figure_problems(figure_facts(fig)))
    plt.close(fig)
    assert "repeated legend labels" in problems
    assert "repeated x tick labels" in problems
    assert "red-green colour map ['RdYlGn']" in problems
    assert "look alike with protanopia" in problems


def test_figure_problems_accepts_the_books_own_charts():
    fig, (a, b) = plt.subplots(1, 2)
    bump_chart([1, 2, 3, 4], [2, 1, 3, 4], ["a" * 40 + "1", "a" * 40 + "2", "b", "c"], ax=a)
    majority_graph(np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]]), ["x", "y", "z"], ax=b, highlight=[(0, 1)])
    fig.canvas.draw()
    facts = figure_facts(fig)
    plt.close(fig)
    assert figure_problems(facts) == []
    assert facts["axes"][0]["colours"] == ["#7f8c8d", "#c0392b"]
    assert facts["axes"][1]["xlabel"].startswith("arrow i → j: a majority of tasks")


def test_okabe_ito_colours_pass_and_tab10_does_not():
    okabe = ["#000000", "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7"]
    tab10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]

    def facts(colours):
        empty = {"xlabel": "x", "ylabel": "y", "xticks": [], "yticks": [], "legend": [], "texts": [], "cmaps": []}
        return {"axes": [{**empty, "colours": colours}]}

    assert figure_problems(facts(okabe)) == []
    assert figure_problems(facts(tab10))


def test_a_pale_line_on_white_is_a_problem_and_the_line_palette_has_none():
    fig, ax = plt.subplots()
    for k, colour in enumerate(OKABE_ITO):
        ax.plot([0, 1], [k, k], color=colour)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    problems = figure_problems(figure_facts(fig))
    plt.close(fig)
    assert problems == ["axes 0: #f0e442 is too pale on white (1.32:1)"]  # WCAG ratio of Okabe–Ito yellow
    fig, ax = plt.subplots()
    for k, colour in enumerate(OKABE_ITO_LINES):
        ax.plot([0, 1], [k, k], color=colour)
        ax.text(0.5, k, f"line {k}", color=colour)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    assert figure_problems(figure_facts(fig)) == []
    plt.close(fig)


def test_record_figures_writes_the_facts_of_every_figure_a_cell_shows(tmp_path):
    from figure_lint import record_figures
    from IPython.testing.globalipapp import get_ipython

    shell = get_ipython()
    target = tmp_path / "figure-data" / "chapter.jsonl"
    target.parent.mkdir()
    target.write_text("left from an earlier build\n")
    record_figures(target)
    record_figures(target)  # a second call replaces the first recorder
    assert sum(getattr(c, "_benchvote_figure_log", False) for c in shell.events.callbacks["post_execute"]) == 1
    assert target.read_text() == ""
    shell.run_cell(
        "import matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots()\n"
        "ax.plot([0, 1], [0, 1], label='a')\n"
        "ax.set_xlabel('x'); ax.set_ylabel('y')"
    )
    plt.close("all")
    records = [json.loads(line) for line in target.read_text().splitlines()]
    assert len(records) == 1
    assert records[0]["axes"][0]["xlabel"] == "x" and records[0]["axes"][0]["strokes"]
    callbacks = shell.events.callbacks["post_execute"]
    callbacks[:] = [c for c in callbacks if not getattr(c, "_benchvote_figure_log", False)]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # jupyter_book on click 8.2
def test_the_book_build_records_every_chapter_without_the_chapter_asking(tmp_path, monkeypatch):
    """scripts/build_book.py: a startup file for every kernel, and each chapter's record named while it runs."""
    import os
    import sys
    from pathlib import Path

    from myst_nb.core.execute.direct import NotebookClientDirect

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "scripts"))
    import build_book

    seen = []
    monkeypatch.setattr(
        NotebookClientDirect, "start_client", lambda self: seen.append(os.environ[build_book.FIGURE_LOG])
    )
    monkeypatch.setenv("IPYTHONDIR", "unchanged")  # restored after the test
    monkeypatch.delenv(build_book.FIGURE_LOG, raising=False)
    build_book.record_figures_in_every_kernel(tmp_path)
    startup = tmp_path / "ipython" / "profile_default" / "startup" / "00-benchvote-figures.py"
    assert os.environ["IPYTHONDIR"] == str(tmp_path / "ipython") and startup.read_text() == build_book.STARTUP
    compile(build_book.STARTUP, str(startup), "exec")
    assert str(Path(__file__).with_name("figure_lint.py")) in build_book.STARTUP

    class Chapter:
        path = Path("notebooks/arrow.md")

    NotebookClientDirect.start_client(Chapter())
    assert seen == [str(tmp_path / "figure-data" / "arrow.jsonl")]
    assert build_book.FIGURE_LOG not in os.environ  # only while the chapter runs
    sys.modules.pop("build_book")
