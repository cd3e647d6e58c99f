"""The bench scripts' own bookkeeping (not their timings, which are never asserted)."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def sensitivity_bench():
    spec = importlib.util.spec_from_file_location("bench_sensitivity", ROOT / "bench" / "sensitivity.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _frame(rows):
    return pd.DataFrame(rows, columns=["leaderboard", "kind", "tau exact", "exact proven"]).set_index("leaderboard")


def test_exact_values_change_only_to_a_proof(sensitivity_bench):
    old = pd.read_csv(
        io.StringIO(
            "leaderboard,kind,tau exact,exact proven\n"
            "A,cardinal,0.5,True\n"  # proven earlier, not now: kept
            "B,cardinal,,\n"  # nothing shipped, nothing proven now: stays empty
            "C,cardinal,0.2,True\n"  # proven again now with the same value
            "D,ordinal,0.1,\n"  # unproven before, proven now: replaced
        ),
        index_col="leaderboard",
    )
    new = _frame(
        [
            ("A", "cardinal", 0.45, False),
            ("B", "cardinal", 0.3, False),
            ("C", "cardinal", 0.2, True),
            ("D", "ordinal", 0.15, True),
            ("E", "ordinal", 0.7, False),  # a board the shipped table does not have yet
        ]
    )
    out = sensitivity_bench.keep_earlier_exact(new, old)
    assert out.loc["A", "tau exact"] == 0.5 and out.loc["A", "exact proven"] is True
    assert np.isnan(out.loc["B", "tau exact"]) and pd.isna(out.loc["B", "exact proven"])
    assert out.loc["C", "tau exact"] == 0.2 and bool(out.loc["C", "exact proven"])
    assert out.loc["D", "tau exact"] == 0.15 and bool(out.loc["D", "exact proven"])
    assert out.loc["E", "tau exact"] == 0.7 and not bool(out.loc["E", "exact proven"])
    # the input is not modified, and the table round-trips through csv as the book reads it
    assert new.loc["A", "tau exact"] == 0.45
    back = pd.read_csv(io.StringIO(out.to_csv(float_format="%.12g")), index_col="leaderboard")
    assert back.loc["A", "exact proven"] == True  # noqa: E712  (read back as a cell, not a Python bool)
    assert pd.isna(back.loc["B", "exact proven"])


def test_shipped_table_survives_a_run_that_proves_less(sensitivity_bench):
    """The committed data table, merged with a run that proves nothing, comes back unchanged."""
    shipped = pd.read_csv(ROOT / "data" / "benchbench_sensitivity.csv", index_col="leaderboard")
    unproven = shipped.copy()
    unproven["tau exact"] = 0.0
    unproven["exact proven"] = False
    out = sensitivity_bench.keep_earlier_exact(unproven, shipped)
    pd.testing.assert_series_equal(out["tau exact"], shipped["tau exact"].astype(float))
    assert list(out["exact proven"].map(lambda v: "" if pd.isna(v) else bool(v))) == list(
        shipped["exact proven"].map(lambda v: "" if pd.isna(v) else bool(v))
    )


@pytest.fixture(scope="module")
def audit_bench():
    spec = importlib.util.spec_from_file_location("bench_audit", ROOT / "bench" / "audit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_synthetic_tables_are_seeded_rounded_and_keep_a_complete_part(audit_bench):
    a, b = audit_bench.one_factor(300, 6), audit_bench.one_factor(300, 6)
    pd.testing.assert_frame_equal(a, b)
    values = a.to_numpy()
    seen = values[~np.isnan(values)]
    assert np.array_equal(np.round(seen, 1), seen)
    assert 0 < np.isnan(values).sum() < 0.01 * values.size
    assert (a.notna().sum() >= 2).all() and len(a.dropna()) >= 2
    assert {(m, n) for m, n in audit_bench.SIZES} == {(5000, 6), (1000, 60), (150, 40)}


def test_time_parts_times_every_section_of_the_audit(audit_bench):
    from benchvote.audit import SECTIONS

    seconds = audit_bench.time_parts(audit_bench.one_factor(30, 5, missing=0.05), n_boot=20)
    optional = {"units", "pareto", "instance_intervals", "groups"}  # mixed scales, costs, instances, groups only
    tables = {name for name, section in SECTIONS.items() if "table" in section.reads}  # not the battle logs'
    assert set(seconds) - {"total"} == tables - optional
    assert all(isinstance(v, float) and v >= 0 for v in seconds.values())
    assert seconds["total"] >= max(v for k, v in seconds.items() if k != "total")


def test_an_undefined_part_is_recorded_and_the_others_still_timed(audit_bench):
    table = audit_bench.one_factor(20, 4)
    table.iloc[0] = 1000.0  # a model that never loses: Bradley-Terry has no maximum
    failures: dict = {}
    seconds = audit_bench.time_parts(table, n_boot=10, failures=failures)
    assert "not strongly connected" in failures["rankings: bradley_terry"]
    assert all(np.isfinite(v) for v in seconds.values())


def test_the_peers_agree_with_ours_on_a_small_table(audit_bench):
    work = audit_bench.one_factor(40, 8).dropna()
    rows = audit_bench.bradley_terry_peers(work) + audit_bench.voting_peers(work)
    parts = {(r["part"], r["peer"]) for r in rows}
    assert ("Bradley-Terry", "choix.ilsr_pairwise_dense") in parts and ("Ranked Pairs", "pref_voting") in parts
    for row in rows:
        assert "DIFFER" not in row["agree"], row
    gaps = [float(r["agree"].split("gap| ")[1].split(",")[0]) for r in rows if r["part"] == "Bradley-Terry"]
    assert gaps and max(gaps) < 1e-5


def test_certified_bounds_and_weights_follow_the_shipped_value(sensitivity_bench):
    """``bound exact`` is kept with an unproven run; ``exact weights`` only while they reach the shipped value."""
    old = pd.read_csv(
        io.StringIO(
            "leaderboard,kind,tau exact,exact proven,bound exact,exact weights\n"
            "A,cardinal,0.3,False,0.5,1 0.5\n"  # bound only: kept when nothing is proven now
            "B,cardinal,0.2,True,0.2,1 0.25\n"  # proven again with the same value: weights kept
            "C,cardinal,0.1,False,0.4,1 0.125\n"  # proven now with another value: the old weights go
        ),
        index_col="leaderboard",
    )
    new = _frame([("A", "cardinal", 0.25, False), ("B", "cardinal", 0.2, True), ("C", "cardinal", 0.15, True)])
    new["bound exact"] = [0.6, 0.2, 0.15]
    out = sensitivity_bench.keep_earlier_exact(new, old)
    assert out.loc["A", "bound exact"] == 0.5 and out.loc["A", "exact weights"] == "1 0.5"
    assert out.loc["B", "exact weights"] == "1 0.25"
    assert out.loc["C", "bound exact"] == 0.15 and pd.isna(out.loc["C", "exact weights"])
