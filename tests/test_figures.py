"""Every figure the book build drew: distinct labels, labelled axes, colours a colour-blind reader can tell apart.

The book build (``scripts/build_book.py``) records the labels and colours of the figures each chapter shows
(``figure_lint.record_figures``, installed in every kernel it starts) into ``_build/figure-data/<chapter>.jsonl``
while ``make book`` executes the chapter; ``figure_lint.figure_problems`` then judges every record.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from figure_lint import figure_problems

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "_build" / "figure-data"
CHAPTERS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.md"))


def _records(chapter: str) -> list[dict]:
    path = DATA / f"{chapter}.jsonl"
    if not path.is_file():
        pytest.fail(f"{path} is missing: build the book (`make book`) so that the chapter records its figures")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_records_its_figures(chapter):
    source = (ROOT / "notebooks" / f"{chapter}.md").read_text()
    shown = source.count("  figure:\n")  # one `mystnb: figure:` block per captioned figure
    assert len(_records(chapter)) >= shown > 0


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_built_figure_is_readable(chapter):
    problems = [f"cell {r['cell']} figure {r['figure']}: {p}" for r in _records(chapter) for p in figure_problems(r)]
    assert not problems, "\n".join(problems)
