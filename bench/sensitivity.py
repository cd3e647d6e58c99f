"""Sensitivity: benchvote against benchbench (the code released with Zhang & Hardt, 2024), same data, same run.

For every leaderboard benchbench ships, both implementations get the same
matrix (benchbench's own loader output, re-ranked as benchbench does, with
lower-is-better metrics negated) and the same conventions:

* cardinal: weight box on z-scored tasks with eps = 0.01 (benchbench's
  defaults, ``normalize_epsilon=True, min_value=0.01``); benchvote runs
  ``cardinal_sensitivity(..., normalize="zscore", eps=0.01)`` (timed) and,
  on boards with at most ten distinct tasks or at most 20 models, the exact
  ``cardinal_sensitivity_exact`` (timed separately, in "s exact");
* ordinal: the first 20 percent of benchbench's re-ranked rows are protected
  (benchbench's default ``inv_indices``), the rest is the pool; benchvote
  runs ``ordinal_sensitivity`` (relaxation + local search, timed) and, for
  reference and untimed, the exact ``ordinal_sensitivity_exact``.

benchbench reports :math:`(1 - \tau_b)/2` from scipy, which rescales for
ties; benchvote counts strict reversals.  So that the comparison is like for
like, the table also scores benchbench's own solution (its weights or added
models) with benchvote's definition ("tau benchbench (strict)").

Both sides run here, in the same process, one board after the other, on the
same machine state: no timing is cached.  Where benchbench takes under
``REPEAT_BELOW`` seconds, each side is timed three times, interleaved, and
"s ours" and "s benchbench" are the medians.  benchbench takes several minutes on
MMLU and BIG-Bench Hard; ``--quick`` leaves those two out (benchbench takes
under a minute on every other board).  Before any timing, each side's timed
functions run once on a small random table (imports, torch's kernels): up to
the run at 2a7e4a4 only benchvote was warmed, so benchbench's first board
(GLUE) carried its one-off cost of about 1.3 s and its ratio was overstated.
On our side the warm-up also loads the box search's numba kernels from
numba's disk cache (or compiles them, a few seconds, on a fresh install).

Cores: benchbench's optimisers run on torch's default threads (two here); benchvote's
relaxations run on one torch thread, and its box search halves two groups of boxes a level
on a second thread when the machine has two cores (the same steps and result on one).

What is timed for benchvote is the default entry point a user calls:
``cardinal_sensitivity(values, eps=0.01, normalize="zscore")`` (``method="auto"``:
the exact box search on at most ten distinct tasks, the relaxation otherwise)
and ``ordinal_sensitivity(values, protected=...)``.  The table also gives, untimed
against benchbench, the exact solvers' result with a time limit
(``--bound-limit``, default 60 s): a proven maximum or a certified upper bound
on every board ("tau exact", "bound", "proven", "s exact").  The full mode also
rewrites ``data/benchbench_sensitivity.csv``; there an exact value changes only
to a proven one, so a proof from an earlier run with a longer limit is kept.

Run:  make bench   (or .venv/bin/python bench/sensitivity.py [--quick] [--bound-limit SECONDS])
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
#: Boards where benchbench takes less (seconds) are timed three times on each side, interleaved: the machine's
#: speed drifts by tens of percent within a minute here, so one timing of a 0.1-s call says little.
REPEAT_BELOW = 5.0
#: benchbench takes minutes on these (235 s and 311 s on a 2-core machine): left out by --quick
SLOW_FOR_BENCHBENCH = ("MMLU", "BigBenchHard")


def boards():
    from benchbench.data import cardinal_benchmark_list, ordinal_benchmark_list

    return [(n, "cardinal") for n in cardinal_benchmark_list + ["ImageNet"]] + [
        (n, "ordinal") for n in ordinal_benchmark_list
    ]


def benchbench_data(name: str, kind: str):
    """benchbench's own matrix; for ordinal boards, models that cannot be compared are removed for both sides.

    benchbench keeps models without any score and sets the win rate of a pair
    that shares no task to 0; benchvote refuses such pairs.  So that both
    implementations see the same data, those models are dropped here: first
    rows without any score, then pool models sharing no task with a protected
    model.  The table reports how many.
    """
    from benchbench.data import load_cardinal_benchmark, load_ordinal_benchmark

    if kind == "cardinal":
        frame, cols = load_cardinal_benchmark(name)
        return frame.reset_index(drop=True), list(cols), 0
    frame, cols = load_ordinal_benchmark(name)
    cols = list(cols)
    frame = frame.reset_index(drop=True)
    values = frame[cols].astype(float)
    before = len(frame)
    keep = values.notna().any(axis=1).to_numpy()
    frame, values = frame[keep].reset_index(drop=True), values[keep].reset_index(drop=True)
    p = len(frame) // 5
    seen = values.notna().to_numpy().astype(int)
    shared = seen @ seen.T
    ok = np.ones(len(frame), dtype=bool)
    ok[p:] = (shared[p:, :p] > 0).all(axis=1)
    frame = frame[ok].reset_index(drop=True)
    return frame, cols, before - len(frame)


def run_benchbench(name: str, kind: str, frame, cols):
    """benchbench's sensitivity with its defaults; also its solution scored with benchvote's tau (strict reversals)."""
    import benchvote as bv

    values = frame[cols].astype(float).to_numpy()
    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # benchbench prints every optimisation step
        if kind == "cardinal":
            from benchbench.measures.cardinal import get_sensitivity

            (tau, mrc), weights = get_sensitivity(frame, cols, return_weight=True)
        else:
            from benchbench.measures.ordinal import get_sensitivity

            (tau, mrc), indices = get_sensitivity(frame, cols, return_indices=True)
    seconds = time.perf_counter() - t
    if kind == "cardinal":
        keep = values.std(axis=0) > 1e-8  # benchbench drops constant tasks before weighting
        before = bv.rank(values[:, keep].mean(axis=1))
        after = bv.rank(values[:, keep] @ np.asarray(weights))
    else:
        p = len(frame) // 5
        protected = list(range(p))
        added = [int(i) for i in indices if int(i) >= p]
        labelled = pd.DataFrame(values)
        before = bv.protected_ranking(labelled, protected=protected).to_numpy()
        after = bv.protected_ranking(labelled, protected=protected, added=added).to_numpy()
    ours_formula = bv.kendall_tau_distance(before, after)
    return float(tau), float(mrc), seconds, ours_formula


def run_ours(name: str, kind: str, frame, cols, bound_limit: float, timing_only: bool = False):
    """benchvote's default entry point (timed), then the exact solver with a time limit (proof or certified bound).

    ``timing_only``: the seconds of the default entry point alone (a repeated timing).
    """
    from benchvote.sensitivity import (
        cardinal_sensitivity,
        cardinal_sensitivity_exact,
        ordinal_sensitivity,
        ordinal_sensitivity_exact,
    )

    values = frame[cols].astype(float)
    if kind == "cardinal":
        keep = values.std(axis=0) > 1e-8  # benchbench drops constant tasks silently; we drop them here, explicitly
        values = values.loc[:, keep]
        t = time.perf_counter()
        r = cardinal_sensitivity(values, eps=0.01, normalize="zscore")
        seconds = time.perf_counter() - t
        if timing_only:
            return {"seconds": seconds}
        if r.optimal:
            exact = r
        else:
            exact = cardinal_sensitivity_exact(values, eps=0.01, normalize="zscore", time_limit=bound_limit)
        return {
            "tau": r.tau_distance,
            "mrc": r.mrc,
            "seconds": seconds,
            "method": r.method,
            "tau exact": max(exact.tau_distance, r.tau_distance),
            "bound": exact.upper_bound,
            "proven": bool(exact.optimal or (exact.upper_bound is not None and r.tau_distance >= exact.upper_bound)),
            "s exact": exact.seconds if exact is not r else seconds,
        }
    values.index = [f"row{i}" for i in range(len(values))]
    protected = list(values.index[: len(values) // 5])
    t = time.perf_counter()
    r = ordinal_sensitivity(values, protected=protected)
    seconds = time.perf_counter() - t
    if timing_only:
        return {"seconds": seconds}
    t = time.perf_counter()
    exact = ordinal_sensitivity_exact(values, protected=protected, time_limit=bound_limit)
    return {
        "tau": r.tau_distance,
        "mrc": r.mrc,
        "seconds": seconds,
        "method": r.method,
        "tau exact": max(exact.tau_distance, r.tau_distance),
        "bound": exact.upper_bound,
        "proven": bool(exact.optimal),
        "s exact": time.perf_counter() - t,
    }


def warm_up() -> None:
    """One small call of every timed function on each side (a random 10 x 3 table, both kinds)."""
    from benchvote.sensitivity import cardinal_sensitivity

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(10, 3)), columns=["a", "b", "c"])
    cardinal_sensitivity(frame.to_numpy(), eps=0.1, method="relaxation", restarts=2, steps=2)
    for kind in ("cardinal", "ordinal"):
        run_benchbench("warm-up", kind, frame, list(frame.columns))
        run_ours("warm-up", kind, frame, list(frame.columns), bound_limit=5.0)


def keep_earlier_exact(new: pd.DataFrame, old: pd.DataFrame) -> pd.DataFrame:
    """Exact values change only to a proof: where this run proved nothing, keep the shipped entry.

    An earlier, longer run may have proven a maximum (HELM-bias) that the 60-s limit here cannot,
    and a board with no exact value shipped (empty cells) stays empty rather than taking an unproven
    value.  ``exact proven`` is read as True only where it says so; empty cells stay empty.
    The certified bound (``bound exact``) follows the same rule, and the weights shipped by
    bench/certified.py (``exact weights``, which this script does not compute) are kept while the
    value they reach is the one shipped.
    """
    exact = [col for col in ("tau exact", "exact proven", "bound exact", "exact weights") if col in old]
    out = new.copy()
    out["tau exact"] = out["tau exact"].astype(float)
    out["exact proven"] = out["exact proven"].astype(object)
    if "exact weights" in old:
        out["exact weights"] = pd.Series(np.nan, index=out.index, dtype=object)
    proven_now = new["exact proven"].astype(bool)
    for name in new.index.intersection(old.index):
        if not proven_now[name]:
            for col in exact:
                out.at[name, col] = old.at[name, col]
        elif "exact weights" in old and np.isclose(old.at[name, "tau exact"], out.at[name, "tau exact"], atol=1e-12):
            out.at[name, "exact weights"] = old.at[name, "exact weights"]
    return out


def main(quick: bool = False, bound_limit: float = 60.0) -> int:
    import torch  # noqa: F401  (imported before timing, for both)

    # warm up both sides once (imports, torch's kernels), so that the first leaderboard is not charged for it:
    # benchbench's first call costs about 1.3 s more than its later ones (GLUE: 2.4 s cold, 1.1 s warm)
    warm_up()
    RESULTS.mkdir(exist_ok=True)
    rows = []
    for name, kind in boards():
        if quick and name in SLOW_FOR_BENCHBENCH:
            continue
        frame, cols, dropped = benchbench_data(name, kind)
        bb = run_benchbench(name, kind, frame, cols)
        ours = run_ours(name, kind, frame, cols, bound_limit)
        if bb[2] < REPEAT_BELOW:  # two more timings of each side, interleaved; the medians are compared
            theirs, mine = [bb[2]], [ours["seconds"]]
            for _ in range(2):
                theirs.append(run_benchbench(name, kind, frame, cols)[2])
                mine.append(run_ours(name, kind, frame, cols, bound_limit, timing_only=True)["seconds"])
            bb = (bb[0], bb[1], float(np.median(theirs)), bb[3])
            ours["seconds"] = float(np.median(mine))
        rows.append(
            {
                "leaderboard": name,
                "kind": kind,
                "models": len(frame),
                "dropped": dropped,
                "tasks": len(cols),
                "tau ours": ours["tau"],
                "tau benchbench": bb[0],
                "tau benchbench (strict)": bb[3],
                "method": ours["method"],
                "tau exact": ours["tau exact"],
                "bound": ours["bound"],
                "exact proven": ours["proven"],
                "MRC ours": ours["mrc"],
                "MRC benchbench": bb[1],
                "s ours": ours["seconds"],
                "s benchbench": bb[2],
                "speed-up": bb[2] / ours["seconds"],
                "s exact": ours["s exact"],
            }
        )
        print(
            f"{name:24s} tau {ours['tau']:.3f} vs {bb[0]:.3f}   {ours['seconds']:6.3f}s vs {bb[2]:7.3f}s "
            f"({bb[2] / ours['seconds']:.1f}x)",
            file=sys.stderr,
            flush=True,
        )
    table = pd.DataFrame(rows).set_index("leaderboard")
    table.to_csv(RESULTS / ("sensitivity_quick.csv" if quick else "sensitivity.csv"), float_format="%.12g")
    if not quick:  # the book reads benchbench's results (and the exact values) from the data folder
        shipped = table[
            ["kind", "tau benchbench", "tau benchbench (strict)", "MRC benchbench", "tau exact", "exact proven"]
        ].copy()
        shipped["bound exact"] = table["bound"].where(~table["exact proven"].astype(bool), table["tau exact"])
        shipped_path = HERE.parent / "data" / "benchbench_sensitivity.csv"
        if shipped_path.exists():
            shipped = keep_earlier_exact(shipped, pd.read_csv(shipped_path, index_col="leaderboard"))
        shipped.to_csv(shipped_path, float_format="%.12g")
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(table.round(3).to_string())
    best = table[["tau ours", "tau exact"]].max(axis=1)
    bounded = table["bound"].notna() | table["exact proven"]
    print(
        f"\nboards: {len(table)}; exact maximum proven on {int(table['exact proven'].sum())}, "
        f"a certified bound (or proof) on {int(bounded.sum())}"
    )
    print(
        f"tau ours (default entry point) >= benchbench's solution recounted with strict reversals on "
        f"{int((table['tau ours'] >= table['tau benchbench (strict)'] - 1e-12).sum())} of {len(table)}; "
        f"best of ours and exact >= benchbench's own (1 - tau_b)/2 on "
        f"{int((best >= table['tau benchbench'] - 1e-12).sum())} of {len(table)}"
    )
    speed = table["speed-up"]
    print(
        f"speed-up (benchbench seconds / ours, both in this run): median {speed.median():.1f}x, "
        f"smallest {speed.min():.1f}x ({speed.idxmin()}); at least 10x on {int((speed >= 10).sum())} of {len(table)}"
    )
    slow = table.loc[speed < 10, ["kind", "method", "s ours", "s benchbench", "speed-up"]]
    if len(slow):
        print("under 10x:\n" + slow.round(3).to_string())
    return 0


if __name__ == "__main__":
    limit = 60.0
    if "--bound-limit" in sys.argv:
        limit = float(sys.argv[sys.argv.index("--bound-limit") + 1])
    sys.exit(main(quick="--quick" in sys.argv, bound_limit=limit))
