"""The chapters: jupytext pairs in sync, listed in the table of contents, shaped like a course text.

Execution itself is checked by the book build that `make test` runs first
(``execute_notebooks: force`` with warnings as errors); here we check the
sources and the build's execution reports.
"""

from __future__ import annotations

import ast
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
    # one way: a colour by its name (the sequences OKABE_ITO and OKABE_ITO_LINES serve the colour cycle and the report)
    other = sorted(set(re.findall(r"\bOKABE_ITO(?:_LINES)?\b", code)))
    assert not other, f"{md.name} uses {other}: take the colours by name from benchvote.plotting.OKABE_ITO_NAMED"


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


#: Tags that keep a cell's code off the page.  ``hide-input`` and ``hide-cell`` fold the code behind a button
#: that shows it, and ``hide-output`` and ``remove-output`` leave it shown: the code of those is on the page.
REMOVED_TAGS = {"remove-cell", "remove-input"}
#: What a removed cell may call as a statement: myst_nb's glue and the chapters' one setup call.
GLUE_CALLS = {"glue", "book_style"}


def hidden_logic(source: str) -> list[str]:
    """What a removed cell does beyond gluing values into the prose: an empty list when nothing.

    A removed cell may hold imports; asserts (checks of what the prose says, any expression); calls of
    ``glue(...)`` or ``book_style()`` as statements; simple bindings of glue values, ``name = value`` or
    ``a, b = value`` where a bound name is read by a glue call or an assert of the same cell, directly or
    through another such binding (an unpacking may leave a part unused); and ``for`` loops (without
    ``else``) whose body holds only these, which check or glue every case.  Neither a glue call, a loop's
    iterable nor a binding may hold a lambda.  IPython magics (``%`` lines) are skipped.  Any other
    statement (a condition, a ``with``, a definition, an augmented or subscript assignment, a bare
    expression, a binding of a name no glue reads, which a later cell would use) is reported as
    ``line N: what``.
    """
    tree = ast.parse("\n".join("" if line.lstrip().startswith("%") else line for line in source.splitlines()))

    def loads(node: ast.AST) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}

    def has_lambda(node: ast.AST) -> bool:
        return any(isinstance(n, ast.Lambda) for n in ast.walk(node))

    def is_glue(stmt: ast.stmt) -> bool:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in GLUE_CALLS

    def bound(stmt: ast.stmt) -> set[str] | None:
        """The names a simple binding binds (None for any other statement)."""
        if not isinstance(stmt, ast.Assign) or has_lambda(stmt.value):
            return None
        names = [n for t in stmt.targets for n in ast.walk(t) if not isinstance(n, (ast.Tuple, ast.Store))]
        if not names or not all(isinstance(n, ast.Name) for n in names):
            return None
        return {n.id for n in names}

    statements = [s for s in ast.walk(tree) if isinstance(s, ast.stmt)]
    needed = set().union(*(loads(s) for s in statements if is_glue(s) or isinstance(s, ast.Assert)))
    needed |= set().union(*(loads(s.iter) for s in statements if isinstance(s, ast.For)))  # what the checks run over
    bindings = [(s, bound(s)) for s in statements if bound(s) is not None]
    grown = True
    while grown:  # a binding that feeds a glue value is a glue value too
        before = len(needed)
        for stmt, names in bindings:
            if names & needed:
                needed |= loads(stmt.value)
        grown = len(needed) > before

    def problems(body: list[ast.stmt]) -> list[str]:
        found = []
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Assert)) or (is_glue(stmt) and not has_lambda(stmt)):
                continue
            if isinstance(stmt, ast.For) and not stmt.orelse and not has_lambda(stmt.iter):
                found += problems(stmt.body)  # a loop of checks or glue calls checks every case
                continue
            names = bound(stmt)
            if names is not None and names & needed:  # unpacking may leave a part unused
                continue
            what = f"binds {sorted(names - needed)}, which no glue reads" if names else type(stmt).__name__
            found.append(f"line {stmt.lineno}: {what}")
        return found

    return problems(tree.body)


def test_hidden_logic_allows_glue_asserts_setup_and_glue_bindings_only():
    allowed = """
from benchvote.plotting import book_style
%matplotlib inline
book_style()
top = ranking.index[0]
label, share = top.upper(), f"{counts[top] / total:.0%}"
glue("top", label, display=False)
glue("share", share, display=False)
assert counts[top] > 0
for name, row in frame.iterrows():
    low = row.min()
    assert low >= 0, name
"""
    assert hidden_logic(allowed) == []
    hidden = """
for name in names:
    glue(name, 1)
    frame.loc[name] = 1
def helper(x):
    return x
table = frame.dropna()
frame.loc["a"] = 1
total += 1
frame.plot()
glue("f", (lambda: 1)())
"""
    assert hidden_logic(hidden) == [
        "line 4: Assign",
        "line 5: FunctionDef",
        "line 7: binds ['table'], which no glue reads",
        "line 8: Assign",
        "line 9: AugAssign",
        "line 10: Expr",
        "line 11: Expr",
    ]


#: Removed cells that still compute beyond glue, by (chapter, first line), with the reason they are left.
HIDDEN_LOGIC_LEFT: dict[tuple[str, str], str] = {
    (
        "audit",
        "# the refusals above, checked on small files: exit status 2, one line on stderr, no report written",
    ): "a check of the refusals the page lists: runs the command line on small files in a temporary folder "
    "(a `with` block), and nothing it binds is used elsewhere",
    (
        "design",
        "# the file above is one the command line reads back unchanged, and the command's options exist",
    ): "a check that the command line reads the page's CSV back and accepts the options the page prints: "
    "writes to a temporary folder (a `with` block), and nothing it binds is used elsewhere",
    ("domains", "def has_split(profile, models):"): "a brute-force oracle (every subset of the models) for the "
    "claim that this profile has no group-separable tree although every triple has one: only asserts call it",
    ("missing", "assert np.isclose(threshold, 188 / 3)"): "a check of the threshold the prose derives: the helper "
    "moves one score across it and reports who leads, and only asserts call it",
}


def _removed_cells(md: Path) -> list[tuple[str, str]]:
    """The removed code cells of a chapter, each as (its first line, its source)."""
    cells = jupytext.read(md).cells
    return [
        (c.source.strip().splitlines()[0], c.source)
        for c in cells
        if c.cell_type == "code" and REMOVED_TAGS & set(c.metadata.get("tags", []))
    ]


@pytest.mark.parametrize("md", NOTEBOOKS, ids=lambda p: p.stem)
def test_removed_cells_hold_only_glue_asserts_and_the_setup_call(md):
    """A chapter's computations are in the library (tested) or on the page; a removed cell only glues and checks.

    The first cell of every chapter is the one setup call, ``book_style()``; the build records the figures
    itself (``scripts/build_book.py``).  The cells still listed in :data:`HIDDEN_LOGIC_LEFT` are named with
    the reason they are left; a listed cell that now passes must leave the list.
    """
    removed = _removed_cells(md)
    assert removed and removed[0][1].strip() == "from benchvote.plotting import book_style\n\nbook_style()"
    code = "\n".join(c.source for c in jupytext.read(md).cells if c.cell_type == "code")
    styled = re.findall(r"rcParams|rc_context|%matplotlib|record_figures", code)
    assert not styled, f"{md.name} sets up figures itself ({styled}): book_style() and the build do it"
    left = {first: why for (chapter, first), why in HIDDEN_LOGIC_LEFT.items() if chapter == md.stem}
    found = {}
    for first, source in removed:
        problems = hidden_logic(source)
        if problems and first not in left:
            found[first] = problems
        if not problems:
            assert first not in left, f"{md.name}: the cell starting {first!r} passes now: drop it from the list"
    assert not found, f"{md.name}: removed cells compute what the page does not show: {found}"
    starts = [first for first, _ in removed]
    assert not set(left) - set(starts), f"{md.name}: listed cells no longer exist: {set(left) - set(starts)}"


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
