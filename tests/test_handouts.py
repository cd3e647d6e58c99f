"""The hand-outs that `make book` prints (scripts/handouts.py), read back from their PDFs' text.

The text is extracted with PDFium (pypdfium2): pypdf's pure-Python extractor took about 25 CPU seconds for the book's
350 pages (PDFium about 2) and drops the fi/ff/fl ligatures, which PDFium reads back as letters.

Problem sets hold every exercise of their chapter with its points and no solution; answer keys hold every solution;
the PDF edition holds every page's title.  The exercises and titles are read from the sources (the notebooks'
`exercise` directives and the pages' first headings), not from the HTML the hand-outs were made from.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import cache
from pathlib import Path

import pypdfium2
import pytest
import yaml
from pypdf import PdfReader

ROOT = Path(__file__).resolve().parents[1]
HANDOUTS = ROOT / "_build" / "html" / "handouts"
sys.path.insert(0, str(ROOT / "scripts"))
from handouts import POINTS, reading_order  # noqa: E402

pytestmark = pytest.mark.site

TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
PAGES, CHAPTERS = reading_order(TOC)
EXERCISE = re.compile(r"^(`{3,})\{exercise\}\s*(★{1,3})\s+(.*?)\n(.*?)^\1\s*$", flags=re.S | re.M)


@cache
def text(name: str) -> str:
    path = HANDOUTS / name
    if not path.is_file():
        pytest.fail(f"{path} missing: run `make book` (scripts/handouts.py)")
    pdf = pypdfium2.PdfDocument(path)
    try:
        return "\n".join(pdf[k].get_textpage().get_text_bounded() for k in range(len(pdf)))
    finally:
        pdf.close()


def squash(s: str) -> str:
    """Letters and digits only, lower case: a title matches however the PDF breaks its lines."""
    s = unicodedata.normalize("NFKC", re.sub(r"[`*$\\{}]", "", s))
    return re.sub(r"[^0-9a-z]", "", s.lower())


def source_exercises(pages: list[str]) -> list[tuple[str, str]]:
    """(grade, title) of every exercise of the pages, in order, from their MyST sources."""
    found = []
    for page in pages:
        source = (ROOT / f"{page}.md").read_text(encoding="utf-8")
        found += [(m.group(2), m.group(3).strip()) for m in EXERCISE.finditer(source)]
    return found


def page_title(page: str) -> str:
    source = (ROOT / f"{page}.md").read_text(encoding="utf-8")
    return re.search(r"^# (.+)$", source, flags=re.M).group(1)


def test_the_points_scheme_rises_with_the_grade():
    assert list(POINTS) == ["★", "★★", "★★★"] and list(POINTS.values()) == sorted(set(POINTS.values()))


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.key)
def test_problem_set_has_every_exercise_with_its_points_and_no_solution(chapter):
    body = text(f"problems-{chapter.key}.pdf")
    assert "solution" not in body.lower(), "a problem set shows a solution (or its title)"
    assert "click to show" not in body.lower()
    wanted = source_exercises(chapter.pages)
    assert len(wanted) >= 6
    flat = squash(body)
    for grade, title in wanted:
        points = POINTS[grade]
        assert squash(f"{title} ({points} points)") in flat, f"problems-{chapter.key}: {grade} {title!r} or its points"
    total = sum(POINTS[g] for g, _ in wanted)
    assert f"{len(wanted)} exercises, {total} points in all" in " ".join(body.split())


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.key)
def test_answer_key_has_every_exercise_and_its_solution(chapter):
    body = " ".join(text(f"answers-{chapter.key}.pdf").split())
    wanted = source_exercises(chapter.pages)
    flat = squash(body)
    for grade, title in wanted:
        assert squash(f"{title} ({POINTS[grade]} points)") in flat, f"answers-{chapter.key}: {title!r}"
    assert body.count("Solution to Exercise") == len(wanted), "one unfolded solution per exercise"
    assert "click to show" not in body.lower()
    # each solution's text is there, not only its title: the first sentence of every prose solution
    for page in chapter.pages:
        source = (ROOT / f"{page}.md").read_text(encoding="utf-8")
        for first in re.findall(r"```\{solution-start\}[^\n]*\n(?::[^\n]*\n)*```\n\n([A-Z][^\n$`{]{30,80})", source):
            assert squash(first) in flat, f"answers-{chapter.key}: solution text {first!r} missing"


def test_book_pdf_holds_every_page_title_and_no_solution():
    body = text("benchvote-book.pdf")
    flat = squash(body)
    for page in PAGES:
        assert squash(page_title(page)) in flat, f"the PDF edition lacks {page_title(page)!r}"
    assert "Solution to Exercise" not in " ".join(body.split()), "the book's PDF unfolds a solution"
    assert "click to show" not in body.lower()
    assert len(PdfReader(HANDOUTS / "benchvote-book.pdf").outline) == len(PAGES) + 1  # title page + one per page


def test_instructors_page_links_every_handout():
    html = (ROOT / "_build" / "html" / "book" / "instructors.html").read_text(encoding="utf-8")
    names = ["benchvote-book.pdf"] + [f"{k}-{c.key}.pdf" for c in CHAPTERS for k in ("problems", "answers")]
    for name in names:
        assert f'href="../handouts/{name}"' in html, f"the instructors' page does not link {name}"
        assert (HANDOUTS / name).is_file()
