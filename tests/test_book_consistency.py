"""Pages that state the same fact state it the same way (issue 38's contradictions between pages).

The numbers are bound inside the chapters (glue and hidden asserts, checked by the build); these tests
check what the sources say across pages: the glossary against the chapters' theorems, one install
instruction, the chapter plan against the table of contents, the syllabus against its own table, and
every glue value pasted from another page against the page that defines it.  The tests marked
``site`` read the built pages.
"""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from benchvote.battles import WINNERS
from benchvote.cli import TABLE_OPTIONS
from benchvote.data import load_battles

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
NOTEBOOKS = ROOT / "notebooks"
PAGES = sorted(BOOK.glob("*.md")) + sorted(NOTEBOOKS.glob("*.md"))
HTML = ROOT / "_build" / "html"


def glossary_entry(term: str, text: str | None = None) -> str:
    """The definition lines of one glossary term."""
    text = (BOOK / "glossary.md").read_text() if text is None else text
    lines = text.splitlines()
    start = lines.index(term)
    body = []
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        body.append(line.strip())
    return " ".join(body)


def least_models(sentence: str) -> int:
    """The number in 'every set of at least N models'."""
    words = {"two": 2, "three": 3, "four": 4}
    found = re.search(r"every set of at least (\w+) models", sentence)
    assert found, f"no 'every set of at least N models' in {sentence!r}"
    return words.get(found.group(1), 0) or int(found.group(1))


def single_peaked_claims(entry: str) -> list[str]:
    """What a single-peaked definition gets wrong, judged by the domains chapter's theorem."""
    wrong = []
    if not re.search(r"transitive for every number of voters", entry):
        wrong.append("transitivity is proven for every number of voters")
    if re.search(r"then has a Condorcet winner", entry) or not re.search(r"odd number", entry):
        wrong.append("a Condorcet winner is guaranteed only for an odd number of voters")
    if "::sp_pair_winners" not in entry:
        wrong.append("the two-voter example without a Condorcet winner is glued from the chapter")
    return wrong


def test_glossary_single_peaked_entry_states_the_chapters_theorem():
    theorem = (NOTEBOOKS / "domains.md").read_text()
    assert "(ii) For every $n$, odd or even, $\\succ_M$ is transitive." in theorem
    assert "(i) If $n$ is odd, the {term}`majority relation` $\\succ_M$ is complete" in theorem
    assert single_peaked_claims(glossary_entry("single-peaked")) == []


def test_single_peaked_check_catches_the_old_glossary_sentence():
    old = "Majority rule then has a Condorcet winner and, for an odd number of voters, a transitive majority relation."
    assert len(single_peaked_claims(old)) == 3


def test_glossary_and_chapter_agree_on_group_separable():
    chapter = (NOTEBOOKS / "domains.md").read_text()
    definition = next(line for line in chapter.splitlines() if line.startswith("A profile is **group-separable**"))
    assert least_models(glossary_entry("group separable")) == least_models(definition) == 3


def test_group_separable_check_catches_a_different_count():
    text = "group separable\n  A profile in which every set of at least two models splits into two parts.\n"
    assert least_models(glossary_entry("group separable", text)) == 2


# `pip install .` and its extras from a clone, and the README's checks of the pinned files
FROM_A_CLONE = r"pip install (\.|\"\.\[|--dry-run|--no-deps)"


def install_lines(text: str) -> list[str]:
    return re.findall(r"pip install [^\n`]*", text)


def test_one_install_instruction_everywhere():
    """The package is not on PyPI: every page and the README install it from a clone with `pip install .`."""
    sources = [*PAGES, ROOT / "README.md"]
    found = {(p.name, line.strip()) for p in sources for line in install_lines(p.read_text())}
    wrong = sorted(
        (name, line) for name, line in found if not re.match(r"pip install (\.|--dry-run|--no-deps|\"\.\[)", line)
    )
    assert not wrong, f"an install instruction other than `pip install .` from a clone: {wrong}"
    assert ("audit.md", "pip install .") in found


def test_install_check_catches_the_unpublished_name():
    assert install_lines("$ pip install benchvote\n") == ["pip install benchvote"]
    assert not re.match(FROM_A_CLONE, "pip install benchvote")


def toc_docs() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    docs = []

    def walk(entries):
        for entry in entries or []:
            docs.append(entry["file"])
            walk(entry.get("sections"))

    for part in toc["parts"]:
        walk(part["chapters"])
    return docs


def numbered_chapters() -> list[list[str]]:
    """The numbered part of the table of contents: each chapter with its sections."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    part = next(p for p in toc["parts"] if p.get("numbered"))
    return [[c["file"]] + [s["file"] for s in c.get("sections", [])] for c in part["chapters"]]


def plan_misses(intro: str) -> list[str]:
    """Pages of the table of contents that the intro's chapter plan does not link."""
    plan = intro.split("## Chapter plan", 1)[1].split("\n## ", 1)[0]
    linked = {Path(t.split("<")[-1].rstrip(">").strip()).name for t in re.findall(r"\{doc\}`([^`]*)`", plan)}
    parts = {f"book/part-{x}" for x in ("aggregation", "fragility", "structure")}
    return [d for d in toc_docs() if d not in parts and Path(d).name not in linked]


def test_intro_chapter_plan_covers_every_chapter_and_appendix():
    intro = (BOOK / "intro.md").read_text()
    assert plan_misses(intro) == []
    for k in range(1, len(numbered_chapters()) + 1):
        assert f"**Chapter {k}," in intro, f"the chapter plan has no Chapter {k}"


def test_chapter_plan_check_catches_a_missing_chapter():
    intro = (BOOK / "intro.md").read_text()
    assert "notebooks/design" in plan_misses(intro.replace("{doc}`../notebooks/design`", "the design chapter"))


def last_chapter_claims() -> list[str]:
    """Pages that call themselves the last chapter while a numbered page follows them."""
    order = [doc for chapter in numbered_chapters() for doc in chapter]
    wrong = []
    for doc in order[:-1]:
        path = ROOT / f"{doc}.md"
        if re.search(r"\b[Tt]his (last|final) chapter\b", path.read_text()):
            wrong.append(doc)
    return wrong


def test_only_the_last_chapter_calls_itself_last():
    assert last_chapter_claims() == []
    assert numbered_chapters()[-1] == ["notebooks/design"]


def dropped_sessions(text: str) -> tuple[list[int], dict[int, str]]:
    """The sessions the syllabus says can be dropped, and the reading of every session in its table."""
    found = re.search(r"Sessions (\d+) and (\d+) can be dropped", text)
    assert found, "the syllabus no longer says which sessions can be dropped"
    rows = dict(re.findall(r"^\| (\d+) \| ([^|]*)\|", text, flags=re.M))
    return [int(found.group(1)), int(found.group(2))], {int(k): v for k, v in rows.items()}


def test_syllabus_never_drops_the_closing_session():
    text = (BOOK / "instructors.md").read_text()
    dropped, readings = dropped_sessions(text)
    closing = max(readings)
    assert "notebooks/design" in readings[closing]
    assert closing not in dropped and all(d in readings for d in dropped)


def test_syllabus_check_catches_dropping_the_closing_session():
    text = (BOOK / "instructors.md").read_text()
    text = re.sub(r"Sessions (\d+) and (\d+) can be dropped", r"Sessions \1 and 8 can be dropped", text)
    dropped, readings = dropped_sessions(text)
    assert max(readings) in dropped


def test_instructors_page_gives_one_hand_out_instruction():
    text = (BOOK / "instructors.md").read_text()
    assert "to hand out as it stands" not in text and "without the site" not in text


def glue_pastes(text: str) -> set[tuple[str, str]]:
    """(page, key) of every glue role or directive that pastes from another page."""
    return set(re.findall(r"\{glue(?::\w+)?\}`([^`:]+\.md)::([A-Za-z0-9_]+)", text))


def glued_keys(notebook: Path) -> set[str]:
    return set(re.findall(r"glue\(\s*[f]?\"([A-Za-z0-9_{}]+)\"", notebook.read_text()))


def test_every_value_pasted_from_another_page_is_glued_there():
    missing = []
    for page in PAGES:
        for target, key in glue_pastes(page.read_text()):
            source = (page.parent / target).resolve()
            keys = glued_keys(source)
            patterns = [re.compile("^" + re.sub(r"\\\{[^}]*\\\}", ".+", re.escape(k)) + "$") for k in keys]
            if not any(p.match(key) for p in patterns):
                missing.append(f"{page.name}: {target}::{key}")
    assert not missing, f"glue keys pasted but never glued: {missing}"
    assert ("../notebooks/domains.md", "sp_pair_winners") in glue_pastes((BOOK / "glossary.md").read_text())


def page_text(name: str) -> str:
    path = HTML / name
    if not path.is_file():
        pytest.fail("the built site is missing: run `make book` first")
    text = re.sub(r"<[^>]+>", " ", path.read_text())
    return re.sub(r"\s+", " ", html.unescape(text))


@pytest.mark.site
def test_built_glossary_shows_the_example_without_a_condorcet_winner():
    text = page_text("book/glossary.html")
    assert re.search(r"transitive for every number of voters", text)
    assert re.search(
        r"single-peaked on the axis a, b, c and tie every pair, so their Condorcet winners are: none", text
    )


@pytest.mark.site
def test_built_trade_off_page_gives_vtab_one_value_and_one_status():
    text = page_text("notebooks/tradeoff.html")
    proven = re.search(r"Proven among them, in at least one box: ([^.]*)\.", text).group(1)
    opened = re.search(r"On ([^.]*?) the maximum lies between the value and its bound", text).group(1)
    assert "VTAB" in proven and "VTAB" not in opened
    # the formula "$\tau =$" reaches the page as MathJax source, "\(\tau =\)"
    exact = re.search(r"proves that the maximum on VTAB is [^0-9]*([0-9]+\.[0-9]+)", text).group(1)
    from benchvote import data
    from benchvote.sensitivity import cardinal_sensitivity_exact

    recount = cardinal_sensitivity_exact(data.load("VTAB").scores, time_limit=120)
    assert recount.optimal and exact == f"{recount.tau_distance:.3f}"


# The reference pages of the back matter (issue 40): the README is short and points at them, and each page
# is checked against what it describes, so it cannot drift from the command, the requirements or the tree.
README = ROOT / "README.md"
REFERENCE_PAGES = [README, BOOK / "install.md", BOOK / "audit-options.md", BOOK / "layout.md"]
GENERATED = ("_build/", ".venv", ".benchvote-cache", "web_assets", "~")
TOP_LEVEL_FILE = re.compile(r"^[\w.-]+\.(py|md|yml|yaml|toml|cff|in|txt)$|^(Makefile|LICENSE|postBuild)$")


def named_paths(text: str) -> set[str]:
    """Repository paths a page names: code spans that look like a path or a top-level file, and relative links.

    A path is relative, made of names, and ends with a folder's slash or a file's extension (so `N/A` is none);
    the targets of roles such as {doc} are left to Sphinx, which fails the build on a missing one.
    """
    spans = set(re.findall(r"(?<![}\w])`([^`\s]+)`", text))
    links = {target.split("#")[0] for target in re.findall(r"\]\(([^)\s]+)\)", text)}
    candidates = {s for s in spans if "/" in s or TOP_LEVEL_FILE.match(s)} | {t for t in links if t}
    return {
        p
        for p in candidates
        if re.fullmatch(r"[\w.-]+(/[\w.-]+)*/?", p)
        and (p.endswith("/") or "." in p.rsplit("/", 1)[-1] or TOP_LEVEL_FILE.match(p))
        and not p.startswith(GENERATED)
    }


def missing_paths(page: Path, text: str | None = None) -> list[str]:
    text = page.read_text() if text is None else text
    return sorted(p for p in named_paths(text) if not (page.parent / p).exists() and not (ROOT / p).exists())


@pytest.mark.parametrize("page", REFERENCE_PAGES, ids=lambda p: p.name)
def test_every_path_a_reference_page_names_exists(page):
    assert missing_paths(page) == []


def test_path_check_catches_a_removed_module():
    text = (
        "The HTML page is `lib/benchvote/audit/_report.py`, see [the API](book/api.md), `Makefile`, {doc}`api`, "
        "`N/A`, `/usr/bin/chromium`, `_build/html/` and [the site](https://example.org/a.html).\n"
    )
    assert named_paths(text) == {"lib/benchvote/audit/_report.py", "book/api.md", "Makefile"}
    assert missing_paths(README, text) == ["lib/benchvote/audit/_report.py"]


def test_layout_page_names_every_folder_of_the_repository():
    text = (BOOK / "layout.md").read_text()
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    folders = {line.split("/", 1)[0] for line in files.splitlines() if "/" in line}
    assert {"lib", "notebooks", "tests"} <= folders
    assert sorted(f for f in folders if f"`{f}/`" not in text) == []


def audit_parser():
    """The `benchvote audit` subcommand's parser, as the command builds it."""
    import argparse

    from benchvote import cli

    sub = next(a for a in cli._parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["audit"]


def documented_options(text: str) -> dict[str, str]:
    """Each option of the audit page's table with the rest of its row (default and description)."""
    section = text.split("## Every option", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `--"):
            rows[re.match(r"`(--[a-z][a-z-]*)", cells[0]).group(1)] = " | ".join(cells[1:])
    return rows


def option_mismatches(text: str) -> list[str]:
    """What the audit page's table says differently from the command's parser."""
    rows = documented_options(text)
    actions = {s: a for a in audit_parser()._actions for s in a.option_strings if s.startswith("--") and s != "--help"}
    wrong = [f"{o}: not on the page" for o in sorted(set(actions) - set(rows))]
    wrong += [f"{o}: not an option of the command" for o in sorted(set(rows) - set(actions))]
    for option in sorted(set(rows) & set(actions)):
        action, row = actions[option], rows[option]
        default = action.default
        if isinstance(default, (int, float, str)) and not isinstance(default, bool):
            shown = f"{default:g}" if isinstance(default, float) else str(default)
            if f"`{shown}`" not in row.split(" | ")[0]:
                wrong.append(f"{option}: default {shown} is not the page's {row.split(' | ')[0]!r}")
        missing = [c for c in action.choices or [] if f"`{c}`" not in row]
        if missing:
            wrong.append(f"{option}: choices {missing} not on the page")
    return wrong


def test_audit_options_page_lists_exactly_the_commands_options():
    text = (BOOK / "audit-options.md").read_text()
    assert option_mismatches(text) == []
    assert "`--normalize`" in text and all(f"`{n}`" in text for n in ("zscore", "minmax", "rank", "baseline:MODEL"))


def test_audit_options_page_says_which_options_a_battle_log_takes_and_every_winner_spelling():
    text = (BOOK / "audit-options.md").read_text()
    section = text.split("## Battle logs", 1)[1].split("\n## ", 1)[0]
    line = next(x for x in section.splitlines() if x.startswith("Options that apply to a battle log:"))
    listed = set(re.findall(r"`(--[a-z-]+)`", line))
    table_only = {"--" + d.replace("_", "-") for d in TABLE_OPTIONS}
    every = {s for a in audit_parser()._actions for s in a.option_strings if s.startswith("--") and s != "--help"}
    assert listed == every - table_only
    assert all(f"`{w}`" in section for w in WINNERS)
    assert f"the {len(load_battles('mt_bench_human')):,} expert votes of the MT-Bench human judgments" in section


def test_option_check_catches_a_missing_option_and_a_wrong_default():
    text = (BOOK / "audit-options.md").read_text()
    dropped = "\n".join(line for line in text.splitlines() if not line.startswith("| `--timings`"))
    assert option_mismatches(dropped) == ["--timings: not on the page"]
    changed = text.replace("| `--n-boot` | `1000` |", "| `--n-boot` | `2000` |")
    assert option_mismatches(changed) == ["--n-boot: default 1000 is not the page's '`2000`'"]
    invented = text.replace("| `--quiet` |", "| `--silent` | off | nothing |\n| `--quiet` |")
    assert option_mismatches(invented) == ["--silent: not an option of the command"]


def test_readme_first_audit_is_a_valid_command_on_a_shipped_table():
    text = README.read_text()
    section = text.split("## A first audit", 1)[1].split("\n## ", 1)[0]
    command = re.search(r"```bash\n(.*?)\n```", section, flags=re.S).group(1).split()
    assert command[0].endswith("benchvote") and command[1] == "audit"
    args = audit_parser().parse_args(command[2:])
    assert (ROOT / args.scores).is_file() and args.scores.startswith("data/")
    assert args.html == "report.html" and args.json == "report.json"
    assert "`report.html`" in section and "`report.json`" in section


def test_readme_is_short_and_gives_the_two_commands():
    text = README.read_text()
    assert len(text.splitlines()) <= 80
    assert "make book   #" in text and "make test   #" in text and "Python 3.11" in text and "chromium" in text
    assert "make test\n" in (ROOT / ".ci" / "run").read_text()  # CI runs exactly the README's test command
    for page in ("install", "audit-options", "layout", "api"):
        assert f"(book/{page}.md" in text, f"the README does not link book/{page}.md"


def requirement_names(text: str) -> set[str]:
    names = set()
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            names.add(re.split(r"[=<>;\[ ]", line, maxsplit=1)[0].lower())
    return names


def unexplained(requirements: str, page: str) -> list[str]:
    """Packages of requirements.in without a row in the page's table of reasons."""
    table = page.split("## Why each dependency is there", 1)[1].split("\n## ", 1)[0]
    first = {
        n.strip().split(" ")[0].lower()
        for line in table.splitlines()
        if line.startswith("| ")
        for n in line.split("|")[1].split(",")
    }
    return sorted(requirement_names(requirements) - first)


def test_every_pinned_package_says_why_it_is_there():
    page = (BOOK / "install.md").read_text()
    assert unexplained((ROOT / "requirements.in").read_text(), page) == []


def test_reason_check_catches_a_new_package():
    page = (BOOK / "install.md").read_text()
    assert unexplained("numpy==2.0\nleftpad>=1  # why?\n--extra-index-url https://x\n", page) == ["leftpad"]
