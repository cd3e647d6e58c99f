"""The corpus of real leaderboards (data/corpus/): its manifest, its tables and the audit options of each.

Shared by tests/test_corpus.py and bench/corpus.py; not part of the library.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "data" / "corpus"
MANIFEST = CORPUS / "manifest.toml"


@dataclass(frozen=True)
class Entry:
    """One table of the corpus as the manifest describes it."""

    id: str
    path: Path
    domain: str
    source_repo: str
    source_path: str
    commit: str
    changes: str
    lower_is_better: tuple[str, ...]
    costs: tuple[str, ...]
    license: str = ""
    weights: dict[str, float] = field(default_factory=dict)
    published: str = ""
    published_path: Path | None = None

    def scores(self) -> pd.DataFrame:
        """The table as a frame: model names as the index (kept as strings), one float column per task or cost."""
        frame = pd.read_csv(self.path, index_col=0, dtype={0: str}, keep_default_na=False, na_values=[""])
        return frame.astype(float)

    def tasks(self) -> list[str]:
        """The columns that are scores (every column but the costs), in file order."""
        return [c for c in self.scores().columns if c not in self.costs]

    def published_values(self) -> pd.Series | None:
        """The board's own aggregate per model (``published_file``), or None."""
        if self.published_path is None:
            return None
        frame = pd.read_csv(self.published_path, dtype={"model": str}, keep_default_na=False, na_values=[""])
        return frame.set_index("model")["value"].astype(float)

    def cli_options(self) -> list[str]:
        """Options of ``benchvote audit`` that carry the manifest's directions and costs."""
        options: list[str] = []
        for name in self.lower_is_better:
            if name not in self.costs:
                options += ["--lower-is-better", name]  # one name per option: names may hold commas
        for name in self.costs:
            options += ["--cost", name]
        return options


def _entry(raw: dict, columns: list[str]) -> Entry:
    lower = raw.get("lower_is_better", [])
    if lower == "all":
        lower = [c for c in columns if c not in raw.get("costs", [])]
    published_file = raw.get("published_file")
    return Entry(
        id=raw["id"],
        path=CORPUS / raw["file"],
        domain=raw["domain"],
        source_repo=raw["source_repo"],
        source_path=raw["source_path"],
        commit=raw["commit"],
        changes=raw["changes"],
        lower_is_better=tuple(lower),
        costs=tuple(raw.get("costs", [])),
        license=raw.get("license", ""),
        weights=dict(raw.get("weights", {})),
        published=raw.get("published", ""),
        published_path=CORPUS / published_file if published_file else None,
    )


def manifest() -> list[dict]:
    """The manifest's ``[[table]]`` entries as read (no defaults filled in)."""
    with MANIFEST.open("rb") as handle:
        return tomllib.load(handle)["table"]


def load() -> list[Entry]:
    """Every table of the corpus, in manifest order."""
    entries = []
    for raw in manifest():
        columns = list(pd.read_csv(CORPUS / raw["file"], nrows=0).columns[1:])
        entries.append(_entry(raw, columns))
    return entries


def ids() -> list[str]:
    return [raw["id"] for raw in manifest()]
