"""Hand-outs of the built book: a PDF edition, and for every chapter a problem set and an answer key.

    python scripts/handouts.py            # after jupyter-book build; `make book` runs it

Reads the built HTML in ``_build/html`` and writes ``_build/html/handouts/``:

- ``benchvote-book.pdf``: every page of the table of contents in reading order, printed by Chromium with the
  site's print stylesheet (``book/static/print.css``: no navigation, no buttons, folded content stays folded and
  solutions are left out), joined by pypdf with one bookmark per page;
- ``problems-<n>.pdf`` and ``answers-<n>.pdf`` for each numbered chapter ``n`` (its sections' Exercises) and
  ``problems-audit.pdf`` / ``answers-audit.pdf`` for the audit page's project exercises: the exercises as the
  book renders them (numbers, mathematics, code), each titled with its points (:data:`POINTS`); the problem set
  holds no solution, the answer key puts each solution, unfolded, under its exercise.

Each hand-out is first written as an HTML page beside the PDF (it shares the book's stylesheets and MathJax), so
the PDFs and the pages show the same thing.  Chromium is Debian's ``/usr/bin/chromium`` driven by Playwright,
printing two pages at a time.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from bs4 import BeautifulSoup, Tag
from pypdf import PdfReader, PdfWriter

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]

#: Points per grade: ★ reading, ★★ computing with the library, ★★★ proving or designing.
POINTS = {"★": 2, "★★": 4, "★★★": 6}
GRADE = re.compile(r"^\s*(★{1,3})(?!★)")
BOOK_PDF = "benchvote-book.pdf"


@dataclass
class Chapter:
    """One hand-out: a key (``1``, ``2``, ... or ``audit``), its title and the pages whose exercises it holds."""

    key: str
    title: str
    pages: list[str] = field(default_factory=list)


def reading_order(toc: dict) -> tuple[list[str], list[Chapter]]:
    """The book's pages in reading order, and its hand-outs: one per numbered chapter plus the audit's project."""
    pages = [toc["root"]]
    chapters: list[Chapter] = []
    for part in toc["parts"]:
        for entry in part["chapters"]:
            sections = [s["file"] for s in entry.get("sections", [])]
            pages += [entry["file"], *sections]
            if part.get("numbered"):
                chapters.append(Chapter(str(len(chapters) + 1), "", sections or [entry["file"]]))
            elif entry["file"].endswith("notebooks/audit"):
                chapters.append(Chapter("audit", "", [entry["file"]]))
    return pages, chapters


def grade(title: str) -> str:
    """The grade (★, ★★ or ★★★) that opens an exercise's own title; an ungraded exercise is an error."""
    match = GRADE.match(title)
    if not match:
        raise ValueError(f"exercise without a grade: {title!r}")
    return match.group(1)


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def _title(soup: BeautifulSoup) -> str:
    h1 = soup.select_one("article h1, main h1, h1")
    text = h1.get_text(" ", strip=True) if h1 else soup.title.get_text(strip=True)
    return re.sub(r"\s*#\s*$", "", text)


def _exercise_title(div: Tag) -> str:
    """The exercise's own title, after its number: 'Exercise 1.1.3 (★ Title)' gives '★ Title'."""
    sub = div.select_one(".admonition-title")
    text = sub.get_text(" ", strip=True) if sub else ""
    match = re.search(r"\((.*)\)\s*$", text, flags=re.S)
    return (match.group(1) if match else text).strip()


def exercises(soup: BeautifulSoup) -> list[tuple[Tag, Tag | None]]:
    """The Exercises section's exercises, each with its solution (None when it has none)."""
    section = soup.select_one("section#exercises")
    if section is None:
        return []
    solutions: dict[str, Tag] = {}
    for sol in section.select("div.solution"):
        link = sol.select_one(".admonition-title a[href^='#']")
        if link is not None:
            solutions[str(link["href"])[1:]] = sol
    return [(ex, solutions.get(str(ex.get("id")))) for ex in section.select("div.exercise")]


def _absolute_links(node: Tag, page: str) -> None:
    """Links inside the page (``#anchor``) point at the chapter page, since the hand-out is another page."""
    for a in node.select("a[href^='#']"):
        a["href"] = f"../{page}.html{a['href']}"


def _with_points(ex: Tag) -> Tag:
    ex = copy.copy(ex)
    points = POINTS[grade(_exercise_title(ex))]
    title = ex.select_one(".admonition-title")
    assert title is not None
    span = BeautifulSoup(f'<span class="points"> ({points} points)</span>', "html.parser")
    title.append(span)
    return ex


def _unfolded(sol: Tag) -> Tag:
    sol = copy.copy(sol)
    sol["class"] = [c for c in sol.get("class", []) if c not in ("dropdown", "toggle", "toggle-hidden")]
    for hidden in sol.select(".toggle-hidden"):
        hidden["class"] = [c for c in hidden.get("class", []) if c != "toggle-hidden"]
    return sol


HANDOUT_CSS = """
body.handout { margin: 0; font-size: 11pt; font-family: var(--pst-font-family-base, sans-serif); }
main.handout { max-width: 46rem; margin: 0 auto; padding: 1rem; }
main.handout h1 { font-size: 1.6rem; margin-top: 0; }
main.handout h2 { font-size: 1.2rem; margin-top: 1.6rem; }
main.handout .points { font-weight: 600; white-space: nowrap; }
main.handout .admonition { break-inside: avoid; margin: 0.8rem 0; }
main.handout div.solution { break-inside: auto; display: block; }
main.handout .scheme { border: 1px solid #999; padding: 0.4rem 0.6rem; }
main.handout .headerlink, main.handout .copybtn { display: none; }
main.handout pre { white-space: pre-wrap; overflow-wrap: anywhere; }
@page { size: A4; margin: 16mm 14mm; }
"""


def _head(soup: BeautifulSoup) -> str:
    """The chapter page's stylesheets and MathJax (same folder depth, so relative paths hold), nothing else."""
    parts = ['<meta charset="utf-8">']
    for link in soup.select("head link[rel~=stylesheet]"):
        if "print.css" not in str(link.get("href", "")):  # the site's print rules leave solutions out
            parts.append(str(link))
    for script in soup.select("head script"):
        src = str(script.get("src", ""))
        if "mathjax" in src.lower() or "MathJax" in script.get_text():
            parts.append(str(script))
    parts.append(f"<style>{HANDOUT_CSS}</style>")
    return "\n".join(parts)


def handout_html(chapter: Chapter, html: Path, *, answers: bool) -> tuple[str, int, int]:
    """One hand-out page: (html, number of exercises, total points)."""
    kind = "Answer key" if answers else "Problem set"
    body: list[str] = []
    head = ""
    n_ex = total = 0
    for page in chapter.pages:
        soup = _soup(html / f"{page}.html")
        head = head or _head(soup)
        found = exercises(soup)
        if not found:
            continue
        body.append(f"<h2>{_title(soup)}</h2>")
        for ex, sol in found:
            ex = _with_points(ex)
            _absolute_links(ex, page)
            body.append(str(ex))
            n_ex += 1
            total += POINTS[grade(_exercise_title(ex))]
            if answers:
                if sol is None:
                    raise ValueError(f"{page}: exercise {ex.get('id')} has no solution")
                sol = _unfolded(sol)
                _absolute_links(sol, page)
                body.append(str(sol))
    scheme = ", ".join(f"{stars} = {p} points" for stars, p in POINTS.items())
    what = "each exercise, then its solution" if answers else "the exercises only; the answer key is separate"
    intro = (
        f"<h1>{kind}: {chapter.title}</h1>"
        f'<p class="scheme">Points: {scheme} (★ reading, ★★ computing with the library, ★★★ proving or designing); '
        f"{n_ex} exercises, {total} points in all. This hand-out holds {what}.</p>"
    )
    if not answers:
        intro += "<p>Name: ______________________________</p>"
    doc = '<!DOCTYPE html><html lang="en" data-theme="light">'
    doc += f"<head>{head}<title>benchvote: {kind}, {chapter.title}</title></head>"
    doc += f'<body class="handout"><main class="handout">{intro}{"".join(body)}</main></body></html>'
    return doc, n_ex, total


def title_page(html: Path, pages: list[tuple[str, str]]) -> str:
    """The PDF edition's first page: title, authors, version, date and the contents."""
    sys.path.insert(0, str(ROOT / "lib"))
    import benchvote

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    soup = _soup(html / "book" / "intro.html")
    items = "".join(f"<li>{title}</li>" for _, title in pages)
    return (
        f'<!DOCTYPE html><html lang="en" data-theme="light"><head>{_head(soup)}<title>benchvote</title></head>'
        '<body class="handout"><main class="handout">'
        f"<h1>{cff['title']}</h1><p>{cff['authors'][0]['name']}</p>"
        f"<p>Version {benchvote.__version__}, {cff['date-released']}. PDF edition of the book's web pages; the "
        "explorables compute only in the web pages, and the solutions are in the answer keys.</p>"
        f"<h2>Contents</h2><ol>{items}</ol></main></body></html>"
    )


#: Pages Chromium prints at once: each page has its own renderer process, so two use both cores of a small machine.
PRINTERS = 2


async def _wait_for_page(page) -> None:
    await page.wait_for_load_state("load")
    await page.evaluate(
        "async () => { if (window.MathJax && MathJax.startup && MathJax.startup.promise) "
        "{ await MathJax.startup.promise; } await document.fonts.ready; }"
    )


async def print_pdf(page, url: str, target: Path, footer: str | None = None) -> None:
    await page.goto(url, wait_until="load")
    await _wait_for_page(page)
    options = {"path": str(target), "format": "A4", "print_background": True, "prefer_css_page_size": True}
    if footer is not None:
        options.update(
            display_header_footer=True,
            header_template="<span></span>",
            footer_template=(
                '<div style="font-size:8px;width:100%;text-align:center;color:#555">'
                f"{footer} · <span class='pageNumber'></span></div>"
            ),
            margin={"top": "14mm", "bottom": "16mm", "left": "12mm", "right": "12mm"},
        )
    await page.pdf(**options)


async def print_all(jobs: list[tuple[Path, Path, str]]) -> None:
    """Print every ``(source, target PDF, footer)``, :data:`PRINTERS` pages at a time (each PDF is its own file)."""
    from playwright.async_api import async_playwright

    queue = list(jobs)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)

        async def printer() -> None:
            page = await browser.new_page(viewport={"width": 1000, "height": 1200})
            page.set_default_timeout(300_000)  # a long page (the API reference) on a busy machine
            while queue:
                source, target, footer = queue.pop(0)
                await print_pdf(page, source.as_uri(), target, footer=footer)
            await page.close()

        await asyncio.gather(*(printer() for _ in range(PRINTERS)))
        await browser.close()


def build(html: Path) -> float:
    """Write the hand-outs of the book built in ``html``; returns the seconds it took."""
    start = time.perf_counter()
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    order, chapters = reading_order(toc)
    out = html / "handouts"
    out.mkdir(exist_ok=True)
    parts = out / "_pages"
    parts.mkdir(exist_ok=True)
    titles = [(page, _title(_soup(html / f"{page}.html"))) for page in order]
    for chapter in chapters:
        opener = chapter.pages[0] if chapter.key == "audit" else _opener(toc, chapter)
        chapter.title = dict(titles)[opener]
    if not Path(CHROMIUM).is_file():
        sys.exit(f"scripts/handouts.py: Chromium not found at {CHROMIUM} (apt-get install chromium)")
    jobs = []
    for chapter in chapters:
        for answers, stem in ((False, "problems"), (True, "answers")):
            doc, n_ex, _ = handout_html(chapter, html, answers=answers)
            if n_ex == 0:
                raise ValueError(f"chapter {chapter.key} has no exercises")
            target = out / f"{stem}-{chapter.key}.html"
            target.write_text(doc, encoding="utf-8")
            jobs.append((target, target.with_suffix(".pdf"), f"benchvote · {chapter.title}"))
    cover = parts / "title.html"
    cover.write_text(title_page(html, titles), encoding="utf-8")
    files = [(parts / "00-title.pdf", "benchvote", cover)]
    for k, (name, title) in enumerate(titles, start=1):
        files.append((parts / f"{k:02d}.pdf", title, html / f"{name}.html"))
    jobs += [(source, pdf, f"benchvote · {title}") for pdf, title, source in files]
    asyncio.run(print_all(jobs))
    writer = PdfWriter()
    for pdf, title, _ in files:
        writer.append(PdfReader(pdf), outline_item=title)
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    writer.add_metadata({"/Title": cff["title"], "/Author": cff["authors"][0]["name"]})
    with open(out / BOOK_PDF, "wb") as handle:
        writer.write(handle)
    for pdf, _, _ in files:
        pdf.unlink()
    cover.unlink()
    parts.rmdir()
    return time.perf_counter() - start


def _opener(toc: dict, chapter: Chapter) -> str:
    for part in toc["parts"]:
        for entry in part["chapters"]:
            sections = [s["file"] for s in entry.get("sections", [])]
            if (sections or [entry["file"]]) == chapter.pages:
                return entry["file"]
    raise KeyError(chapter.key)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", nargs="?", default=str(ROOT / "_build" / "html"), help="the built book")
    args = parser.parse_args(argv)
    seconds = build(Path(args.html))
    print(f"hand-outs in {Path(args.html) / 'handouts'} ({seconds:.1f} s, {PRINTERS} pages printing at once)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
