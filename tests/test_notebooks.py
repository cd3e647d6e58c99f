"""The chapters: jupytext pairs in sync, listed in the table of contents, shaped like a course text.

Execution itself is checked by the book build that `make test` runs first
(``execute_notebooks: force`` with warnings as errors); here we check the
sources and the build's execution reports.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest
import yaml
from jupytext.compare import compare_notebooks

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.md"))
PAGES = sorted((ROOT / "book").glob("*.md")) + NOTEBOOKS


def toc_files() -> set[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    found = {toc["root"]}

    def walk(entries):
        for e in entries or []:
            if "file" in e:
                found.add(e["file"])
            walk(e.get("sections"))
            walk(e.get("chapters"))

    for part in toc["parts"]:
        walk(part["chapters"])
    return found


def test_there_are_chapters():
    assert NOTEBOOKS, "no notebooks/*.md found"


@pytest.mark.parametrize("md", NOTEBOOKS, ids=lambda p: p.name)
def test_pair_exists_and_is_in_sync(md):
    ipynb = md.with_suffix(".ipynb")
    assert ipynb.is_file(), f"{md.name} has no paired .ipynb: run `make sync`"
    text_nb = jupytext.read(md)
    paired = jupytext.read(ipynb)
    # raises with a readable diff when the pair differs (ignoring outputs)
    compare_notebooks(paired, text_nb, fmt="md:myst", allow_expected_differences=False)


def test_no_orphan_ipynb():
    for ipynb in (ROOT / "notebooks").glob("*.ipynb"):
        assert ipynb.with_suffix(".md").is_file(), f"{ipynb.name} has no .md source"


@pytest.mark.parametrize("md", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_header_and_toc(md):
    nb = jupytext.read(md)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert nb.metadata["jupytext"]["text_representation"]["format_name"] == "myst"
    assert f"notebooks/{md.stem}" in toc_files(), f"{md.name} is not listed in _toc.yml"


def test_toc_entries_exist():
    for entry in toc_files():
        assert (ROOT / f"{entry}.md").is_file(), f"_toc.yml lists {entry} which does not exist"


def test_build_reads_only_markdown():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert "**/*.ipynb" in config["exclude_patterns"]
    assert config["only_build_toc_files"] is True
    assert config["execute"]["execute_notebooks"] == "force"
    assert config["execute"]["allow_errors"] is False


@pytest.mark.parametrize("md", NOTEBOOKS, ids=lambda p: p.name)
def test_every_name_a_chapter_imports_from_benchvote_exists(md):
    """Catches API drift without executing the chapter: every `from benchvote... import x` must resolve."""
    import ast
    import importlib

    import jupytext

    tree = ast.parse(jupytext.writes(jupytext.read(md), fmt="py:percent"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("benchvote"):
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{md.name}: {node.module} has no {alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("benchvote"):
                    importlib.import_module(alias.name)


@pytest.mark.parametrize("md", NOTEBOOKS, ids=lambda p: p.name)
def test_chapters_read_no_file_outside_the_library(md):
    """Numbers come from benchvote (its shipped tables included) or are computed: no chapter opens a repository file."""
    text = md.read_text(encoding="utf-8")
    assert not re.search(r"\.\./(bench|data|lib)/|read_csv\(|open\(", text), f"{md.name} reads a file directly"


@pytest.mark.parametrize("md", NOTEBOOKS, ids=lambda p: p.name)
def test_chapters_take_their_palette_from_the_library(md):
    """One home for the book's colours (benchvote.plotting.OKABE_ITO_NAMED): no chapter spells an Okabe–Ito colour."""
    from benchvote.plotting import OKABE_ITO_NAMED

    code = "\n".join(c.source for c in jupytext.read(md).cells if c.cell_type == "code")
    spelled = sorted({h.upper() for h in re.findall(r"#[0-9a-fA-F]{6}\b", code)} & set(OKABE_ITO_NAMED.values()))
    assert not spelled, f"{md.name} spells the colours {spelled}: use benchvote.plotting.OKABE_ITO_NAMED"
    assert not re.search(r"^\s*OKABE_ITO\w*\s*=", code, re.M), f"{md.name} redefines the palette"


@pytest.mark.parametrize("md", NOTEBOOKS, ids=lambda p: p.name)
def test_chapters_draw_bump_charts_with_the_library(md):
    """A bump chart is benchvote.plotting.bump_chart: no chapter draws the two columns of lines itself."""
    code = "\n".join(c.source for c in jupytext.read(md).cells if c.cell_type == "code")
    assert not re.search(r"\.plot\(\s*\[0,\s*1\]", code), f"{md.name} draws a bump chart by hand: use bump_chart"


@pytest.mark.parametrize("md", NOTEBOOKS, ids=lambda p: p.name)
def test_chapter_shape(md):
    nb = jupytext.read(md)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "**What you will learn**" in markdown[:3000], f"{md.name} should open with what the reader will learn"
    tail = markdown[markdown.rfind("\n## ") :]
    assert tail.startswith("\n## Exercises"), f"{md.name} should end with its exercises"
    assert markdown.count("{exercise}") >= 2
    assert markdown.count("{exercise}") == markdown.count("{solution-start}") + markdown.count("{solution}")
    for cell in nb.cells:
        assert cell.source.strip(), f"{md.name} has an empty cell"
    assert "TODO" not in md.read_text() and "TBD" not in md.read_text()


_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "vs.", "Fig.", "cf.", "resp.", "Eq.", "eq.", "No.", "approx.")


def _prose_lines(text: str):
    """Markdown prose lines outside code fences, directives' options and math blocks.

    Prose inside directives (exercises, solutions, dropdowns, proofs) is prose too; the body of a code
    cell or of a plain code fence is not.
    """
    code_fence = None
    directives: list[str] = []
    in_math = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if code_fence:
            if stripped == code_fence:
                code_fence = None
            continue
        m = re.match(r"^(`{3,}|~{3,})(.*)$", stripped)
        if m:
            fence, rest = m.groups()
            if not rest.strip() and directives and directives[-1] == fence:
                directives.pop()
            elif rest.startswith("{code-cell}") or not rest.startswith("{"):
                code_fence = fence
            else:
                directives.append(fence)
            continue
        if stripped == "$$":
            in_math = not in_math
            continue
        if in_math or stripped.startswith((":", "|", "#", "---")):
            continue
        yield number, line


def test_prose_lines_skip_code_and_keep_directive_prose():
    text = "A.\n````{exercise}\nInside.\n````\n```{code-cell} ipython3\nx = 1\n```\n```python\ny\n```\nAfter.\n"
    assert [line for _, line in _prose_lines(text)] == ["A.", "Inside.", "After."]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_one_sentence_per_line(page):
    offenders = []
    for number, line in _prose_lines(page.read_text()):
        cleaned = re.sub(r"`[^`]*`|\$[^$]*\$|\([^)]*\)|\[[^\]]*\]", "", line)
        for abbreviation in _ABBREVIATIONS:
            cleaned = cleaned.replace(abbreviation, "")
        if re.search(r"[a-z0-9%)][.!?] +[A-Z]", cleaned):
            offenders.append(f"{page.name}:{number}: {line.strip()[:90]}")
    assert not offenders, "write one sentence per line:\n" + "\n".join(offenders[:10])


MAX_WORDS = 35


@pytest.mark.parametrize("md", NOTEBOOKS, ids=lambda p: p.name)
def test_figures_are_numbered_and_referenced(md):
    """Every named figure is cited with {numref}; no prose points at "the figure below" instead."""
    nb = jupytext.read(md)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    names = [
        c.metadata["mystnb"]["figure"]["name"]
        for c in nb.cells
        if c.metadata.get("mystnb", {}).get("figure", {}).get("name")
    ]
    assert names, f"{md.name} has no named figure"
    unreferenced = [n for n in names if f"{{numref}}`{n}`" not in prose]
    assert not unreferenced, f"{md.name}: figures never cited with numref: {unreferenced}"
    vague = re.findall(r"(?:figure|picture|chart|plot)s? (?:above|below)", prose, flags=re.I)
    assert not vague, f"{md.name}: cite figures with numref instead of {vague[:3]}"
    for c in nb.cells:
        caption = c.metadata.get("mystnb", {}).get("figure", {}).get("caption", "")
        if caption:
            assert "\n" not in caption.strip() and len(caption.split()) <= 16, (
                f"{md.name}: captions are one short line, the explanation goes in the prose: {caption[:60]}"
            )


def _word_count(line: str) -> int:
    """Words of one prose line; a formula or a role such as {glue:text}`x` counts as one word."""
    text = re.sub(r"\{[a-z:-]+\}`", "`", line)
    text = re.sub(r"\$[^$]*\$", "X", text)
    return len(text.strip().lstrip("-*0123456789. ").split())


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_sentences_are_short(page):
    """A course text reads in short sentences: at most 35 words each (one sentence per line, checked above)."""
    long = [
        f"{page.name}:{n}: {_word_count(line)} words: {line.strip()[:70]}"
        for n, line in _prose_lines(page.read_text())
        if _word_count(line) > MAX_WORDS
    ]
    assert not long, f"split sentences of more than {MAX_WORDS} words:\n" + "\n".join(long[:10])


def test_word_count_counts_formulas_and_roles_as_words():
    assert _word_count("- The mean $\\sum_i x_i / n$ is {glue:text}`m:.2f` here.") == 6
    assert not list(_prose_lines("```{code-cell} ipython3\n" + "word " * 50 + "\n```\n"))


@pytest.mark.site
def test_build_reported_no_execution_errors():
    reports = ROOT / "_build" / "html" / "reports"
    assert (ROOT / "_build" / "html" / "index.html").is_file(), "run `make book` first (make test does)"
    logs = list(reports.glob("*.log")) if reports.is_dir() else []
    assert not logs, f"notebook execution errors: {[p.name for p in logs]}"


@pytest.mark.site
def test_no_page_shows_a_traceback():
    """An error in a display formatter (a figure's phone layout, say) does not stop the cell: it reaches the page."""
    pages = sorted((ROOT / "_build" / "html").rglob("*.html"))
    assert pages, "run `make book` first (make test does)"
    shown = [p.name for p in pages if 'class="output traceback' in p.read_text(encoding="utf-8")]
    assert not shown, f"pages with a traceback: {shown}"


# Caption mentions that are right although the code does not spell the name out.
CAPTION_NAMES_CHECKED_BY_HAND = {
    ("arrow", "MMLU"): "HELM's MMLU scenario (the formal_logic table), not the MMLU leaderboard",
    ("arrow", "HEIM-black_out"): "loaded by the loop over all HEIM leaderboards",
}


@pytest.mark.parametrize("md", NOTEBOOKS, ids=lambda p: p.stem)
def test_captions_name_leaderboards_the_code_uses(md):
    """A figure caption that names a leaderboard must be about data the notebook loads."""
    from benchvote import data

    nb = jupytext.read(md)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    names = sorted(data.list_leaderboards(), key=len, reverse=True)
    wrong = []
    for cell in nb.cells:
        figure = cell.metadata.get("mystnb", {}).get("figure", {})
        caption = figure.get("caption", "")
        for name in names:
            if (
                re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", caption)
                and f'"{name}"' not in code
                and (md.stem, name) not in CAPTION_NAMES_CHECKED_BY_HAND
            ):
                wrong.append(f"{figure.get('name')}: {name}")
    assert not wrong, f"captions name leaderboards the code never loads: {wrong}"


@pytest.mark.site
@pytest.mark.parametrize("page", [p.relative_to(ROOT).with_suffix("") for p in PAGES], ids=str)
def test_no_unrendered_markup(page):
    """No directive or role may reach the reader as raw text.

    A backtick fence whose info string itself contains a backtick is not a
    fence in CommonMark, so the whole block silently turns into prose and code;
    Sphinx does not warn.  Look for the leftovers in the built page.
    """
    from html.parser import HTMLParser

    html = ROOT / "_build" / "html" / f"{page}.html"
    assert html.is_file(), "run `make book` first (make test does)"

    class Visible(HTMLParser):
        """Text of the page outside <script> and <style>."""

        def __init__(self):
            super().__init__()
            self.skip, self.chunks = False, []

        def handle_starttag(self, tag, attrs):
            self.skip = tag in ("script", "style")

        def handle_endtag(self, tag):
            self.skip = False

        def handle_data(self, data):
            if not self.skip:
                self.chunks.append(data)

    parser = Visible()
    parser.feed(html.read_text())
    text = "".join(parser.chunks)
    leftovers = re.findall(r"```|:::\{|\{(?:prf|cite|doc|ref|glue|numref|eq|math)[:a-z]*\}`", text)
    assert not leftovers, f"{page}: raw MyST markup in the page: {leftovers[:5]}"


def test_intro_example_runs():
    """The short example on the book's front page must work as printed."""
    text = (ROOT / "book" / "intro.md").read_text()
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(block, "intro.md", "exec"), {})


GRADING_LINE = "Exercises are graded: ★ reading, ★★ computing with the library, ★★★ proving or designing."
MIN_EXERCISES = 6


def _exercise_grades(text: str) -> list[str | None]:
    """The grade marker (★, ★★ or ★★★) at the start of each exercise title of the Exercises section, or None."""
    section = text[text.index("\n## Exercises\n") :]
    grades = []
    for match in re.finditer(r"^(`{3,}|~{3,})\{exercise\}[ \t]*(.*)$", section, flags=re.M):
        grade = re.match(r"(★{1,3})(?=\s+\S)", match.group(2))
        grades.append(grade.group(1) if grade else None)
    return grades


def test_exercise_grades_are_read_from_titles():
    text = (
        "\n## Exercises\n\n```{exercise} ★ A\n:label: a\n```\n````{exercise} ★★★ B\n````\n"
        "```{exercise}\nuntitled\n```\n```{exercise} ★★★★ four\n```\n```{exercise} ★★no space\n```\n"
    )
    assert _exercise_grades(text) == ["★", "★★★", None, None, None]


@pytest.mark.parametrize("md", NOTEBOOKS, ids=lambda p: p.stem)
def test_exercises_are_graded(md):
    """A chapter's Exercises: opened by the grading key, at least six, each titled with its grade, every grade used."""
    text = md.read_text(encoding="utf-8")
    if "\n## Exercises\n" not in text:
        pytest.skip(f"{md.name} has no Exercises section")
    section = text[text.index("\n## Exercises\n") :]
    first_line = next(line for line in section.splitlines()[2:] if line.strip())
    assert first_line == GRADING_LINE, f"{md.name}: open the Exercises section with the grading key"
    grades = _exercise_grades(text)
    assert len(grades) >= MIN_EXERCISES, f"{md.name}: {len(grades)} exercises, at least {MIN_EXERCISES} wanted"
    ungraded = [k + 1 for k, g in enumerate(grades) if g is None]
    assert not ungraded, f"{md.name}: exercises {ungraded} have no grade (★, ★★ or ★★★) at the start of the title"
    missing = {"★", "★★", "★★★"} - set(grades)
    assert not missing, f"{md.name}: no exercise of grade {sorted(missing)}"


# The works the text names, each with the bibliography key that cites it (maintained by hand: a new name in
# the prose needs a line here and an entry in book/references.bib).
NAMED_WORKS = {
    r"Arrow's theorem|\bArrow\b": "arrow1950difficulty",
    r"\bBorda\b": "borda1781memoire",
    r"\bCondorcet\b": "condorcet1785essai",
    r"\bCopeland\b": "copeland1951reasonable",
    r"\bKemeny\b": "kemeny1959mathematics",
    r"\bRanked Pairs\b|\bTideman\b": "tideman1987independence",
    r"\bBlack\b": "black1948rationale",
    r"\bInada\b": "inada1964note",
    r"\bGibbard\b": "gibbard1973manipulation",
    r"\bSatterthwaite\b": "satterthwaite1975strategy",
    r"\bMay's theorem\b|\bMay \{cite": "may1952set",
    r"\bHoeffding\b": "hoeffding1963probability",
    r"\bBradley[–-]Terry\b": "bradley1952rank",
    r"\bZermelo\b": "zermelo1929",
    r"\bFord\b": "ford1957",
    r"\bElo\b": "elo1978rating",
    r"\bTukey\b": "tukey1975picturing",
    r"Chatbot Arena": "chiang2024arena",
    r"Kendall tau|Kendall rank correlation": "kendall1938new",
    r"Kendall's (?:W|coefficient)": "kendall1939problem",
    r"\bSpearman\b": "spearman1904proof",
    r"\bPearson\b": "pearson1895note",
    r"\bHELM\b": "liang2023helm",
    r"\bHEIM\b": "lee2023heim",
    r"\bBIG-bench\b": "srivastava2022bigbench",
    r"BIG-Bench Hard|BigBenchHard": "suzgun2023bbh",
    r"(?<!Super)\bGLUE\b": "wang2019glue",
    r"\bSuperGLUE\b": "wang2019superglue",
    r"\bMTEB\b": "muennighoff2023mteb",
    r"\bVTAB\b": "zhai2019vtab",
    r"\bMMLU\b": "hendrycks2021mmlu",
    r"\bOpen LLM\b": "beeching2023openllm",
    r"\bXTREME\b": "hu2020xtreme",
    r"\bGEM\b": "gehrmann2021gem",
    r"\bImageNet\b": "deng2009imagenet",
    r"\bbenchbench\b": "zhang2024tradeoffs",
    r"\bHimmi\b": "himmi2024missing",
    r"\bGordienko\b": "gordienko2025beyond",
    r"\bZhang and Hardt\b|\bZhang & Hardt\b": "zhang2024tradeoffs",
}
CITED_PAGES = [p for p in PAGES if p.name not in ("bibliography.md", "glossary.md", "api.md")]


def _bib_keys() -> set[str]:
    return set(re.findall(r"^@\w+\{([^,\s]+),", (ROOT / "book" / "references.bib").read_text(), flags=re.M))


def _cited_keys(text: str) -> set[str]:
    return {k.strip() for group in re.findall(r"\{cite(?::[a-z]+)?\}`([^`]*)`", text) for k in group.split(",")}


def _prose(page: Path) -> str:
    return "\n".join(line for _, line in _prose_lines(page.read_text()))


def test_every_cited_key_is_in_the_bibliography():
    keys = _bib_keys()
    missing = sorted({f"{p.name}: {k}" for p in PAGES for k in _cited_keys(p.read_text()) if k not in keys})
    assert not missing, f"{{cite}} keys absent from book/references.bib: {missing}"


@pytest.mark.parametrize("pattern", sorted(NAMED_WORKS), ids=lambda p: NAMED_WORKS[p])
def test_every_named_work_is_cited(pattern):
    """A work the prose names is in the bibliography and cited on at least one page that names it."""
    key = NAMED_WORKS[pattern]
    assert key in _bib_keys(), f"{key} is not in book/references.bib"
    naming = [p for p in CITED_PAGES if re.search(pattern, _prose(p))]
    if naming:
        assert any(key in _cited_keys(p.read_text()) for p in naming), (
            f"{pattern!r} is named on {[p.name for p in naming]} but none of them cites {key}"
        )


def test_named_works_list_catches_an_uncited_name():
    assert re.search(r"\bInada\b", "as Inada showed") and not _cited_keys("as Inada showed")
    assert _cited_keys("see {cite:t}`a, b` and {cite}`c`") == {"a", "b", "c"}


def _glossary_terms() -> set[str]:
    text = (ROOT / "book" / "glossary.md").read_text()
    body = text.split("```{glossary}", 1)[1].split("\n```", 1)[0]
    return {line.strip().lower() for line in body.splitlines() if line.strip() and not line.startswith((" ", ":"))}


def _term_targets(text: str) -> set[str]:
    """Targets of the {term} roles: the text itself, or what stands in <...> at its end."""
    targets = set()
    for role in re.findall(r"\{term\}`([^`]*)`", text):
        explicit = re.search(r"<([^>]*)>\s*$", role)
        targets.add((explicit.group(1) if explicit else role).strip().lower())
    return targets


def test_every_term_role_has_a_glossary_entry_and_every_entry_is_used():
    terms = _glossary_terms()
    assert len(terms) >= 40
    used = set().union(*(_term_targets(p.read_text()) for p in PAGES))
    assert not used - terms, f"{{term}} targets missing from book/glossary.md: {sorted(used - terms)}"
    assert not terms - used, f"glossary terms never linked with {{term}}: {sorted(terms - used)}"
    assert _term_targets("a {term}`Borda counts <Borda count>` and {term}`voter`") == {"borda count", "voter"}
