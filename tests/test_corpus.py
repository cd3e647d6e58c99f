"""The corpus of real leaderboards (data/corpus/, issue 37): its manifest and the boards' published aggregates.

Every table is described completely (provenance, a 40-hex commit, what was changed, directions and costs that
name its columns), every CSV of the folder is a table or a published file of the manifest, the folder stays
under 5 MB, and where the board publishes an aggregate that the manifest can re-derive (a mean, or the one
column it ranks by) pandas re-derives it from the table within the rounding of the printed numbers and in the
board's order.  The audit of every table by the command line is tests that run two audits per table; they are
kept out of this file for now (see the branch ``corpus``: about 45 minutes on a loaded two-core machine).
"""

from __future__ import annotations

import re

import corpus
import pandas as pd
import pytest

ENTRIES = {e.id: e for e in corpus.load()}


# ---------------------------------------------------------------- the manifest


def test_manifest_describes_every_table_completely():
    raw = corpus.manifest()
    assert len(raw) >= 25
    assert len({r["id"] for r in raw}) == len(raw)
    readme = (corpus.CORPUS / "README.md").read_text(encoding="utf-8")
    listed = {p.name for p in corpus.CORPUS.glob("*.csv")}
    named = set()
    for r in raw:
        assert {"id", "file", "domain", "source_repo", "source_path", "commit", "changes"} <= set(r), r["id"]
        assert re.fullmatch(r"[0-9a-f]{40}", r["commit"]), r["id"]
        assert r["changes"].strip(), r["id"]
        assert f"`{r['id']}`" in readme
        named |= {r["file"], r.get("published_file", r["file"])}
        if "published" in r:
            assert re.fullmatch(r"mean|weighted_mean|geometric_mean_relative:.+|column:.+|other:.+", r["published"])
    assert listed == named, "every CSV of data/corpus/ is a table or a published file of the manifest"
    assert sum(p.stat().st_size for p in corpus.CORPUS.iterdir()) < 5_000_000


@pytest.mark.parametrize("name", ENTRIES)
def test_manifest_options_name_columns_of_the_table(name):
    entry = ENTRIES[name]
    scores = entry.scores()
    assert scores.index.is_unique and scores.columns.is_unique
    assert set(entry.costs) <= set(scores.columns)
    assert set(entry.lower_is_better) <= set(scores.columns)
    tasks = entry.tasks()
    assert len(tasks) >= 3
    if entry.weights:
        assert set(entry.weights) == set(tasks) and all(w > 0 for w in entry.weights.values())
    published = entry.published_values()
    if published is not None:
        assert published.index.is_unique and set(published.index) <= set(scores.index)


# ---------------------------------------------------------------- the boards' own aggregates


def aggregate(entry: corpus.Entry) -> pd.Series | None:
    """The board's aggregate re-derived from the table, where the manifest's rule allows it."""
    scores = entry.scores()[entry.tasks()]
    if entry.published == "mean":
        return scores.mean(axis=1, skipna=False)
    if entry.published.startswith("column:"):
        return scores[entry.published.removeprefix("column:")]
    return None


@pytest.mark.parametrize(
    "name", [n for n, e in ENTRIES.items() if e.published_path is not None and aggregate(e) is not None]
)
def test_published_aggregate_is_re_derived_and_in_the_same_order(name):
    entry = ENTRIES[name]
    published = entry.published_values()
    ours = aggregate(entry).reindex(published.index).dropna()
    assert len(ours) >= 3
    printed = published.loc[ours.index]
    cells = entry.scores().loc[ours.index, entry.tasks()]
    # each printed number is within half a unit of its last digit; so is each task score the board averaged
    tolerance = 0.5 * 10.0 ** -decimals(printed) + 0.5 * 10.0 ** -decimals(cells.stack())
    assert (ours - printed).abs().max() <= tolerance + 1e-9
    # the board's order is ours wherever the rounding cannot have swapped two models
    ordered = printed.sort_values()
    for (a, x), (b, y) in zip(ordered.items(), list(ordered.items())[1:]):
        if y - x > 2 * tolerance:
            assert ours[a] < ours[b], (a, b)


def decimals(values: pd.Series) -> int:
    """The most decimals any of ``values`` is printed with (shortest round-trip form)."""
    return max(len(repr(float(v)).partition(".")[2].rstrip("0")) for v in values)
