"""The citation record: CITATION.cff, the changelog and the intro's "How to cite" name one version and date."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import yaml

import benchvote

ROOT = Path(__file__).resolve().parents[1]
AUTHORS = "The benchvote authors"


def _cff() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def _changelog_versions() -> list[tuple[str, str]]:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return re.findall(r"^## (\d+\.\d+\.\d+) \((\d{4}-\d{2}-\d{2})\)$", text, flags=re.M)


def _bibtex() -> dict[str, str]:
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    section = intro[intro.index("## How to cite") :]
    entry = re.search(r"```bibtex\n(@\w+\{[^\n]+\n.*?\n\})\n```", section, flags=re.S)
    assert entry, "the intro's How to cite section has no BibTeX entry"
    return dict(re.findall(r"^\s*(\w+)\s*=\s*\{+(.*?)\}+,?$", entry.group(1), flags=re.M))


def test_citation_file_is_cff_1_2_with_the_required_keys():
    cff = _cff()
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "version", "date-released"):
        assert cff.get(key), f"CITATION.cff has no {key}"
    assert cff["authors"] == [{"name": AUTHORS}]
    assert isinstance(cff["version"], str), "quote the version: YAML would read 1.10 as a number"
    datetime.date.fromisoformat(str(cff["date-released"]))


def test_citation_changelog_and_intro_name_the_library_version():
    cff = _cff()
    versions = _changelog_versions()
    assert versions, "CHANGELOG.md has no '## X.Y.Z (YYYY-MM-DD)' heading"
    newest, newest_date = versions[0]
    bib = _bibtex()
    assert cff["version"] == newest == bib["version"] == benchvote.__version__
    assert str(cff["date-released"]) == newest_date == bib["date"]
    assert bib["author"] == AUTHORS
    assert bib["year"] == newest_date[:4]
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    assert f"This is version {newest} of" in intro, "the How to cite prose names another version"


def test_changelog_versions_are_newest_first_and_dated_in_order():
    versions = _changelog_versions()
    numbers = [tuple(int(p) for p in v.split(".")) for v, _ in versions]
    dates = [d for _, d in versions]
    assert numbers == sorted(numbers, reverse=True) and len(set(numbers)) == len(numbers)
    assert dates == sorted(dates, reverse=True)
