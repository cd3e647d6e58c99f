"""Proofs and certified bounds for the three many-task boards, written into data/benchbench_sensitivity.csv.

On MMLU, BigBenchHard and ImageNet (benchbench's matrices, z-scored tasks,
eps = 0.01, as bench/sensitivity.py) the 60-s exact search of that script
proves nothing; this one runs ``cardinal_sensitivity_exact`` with its default
``method="auto"`` (the library's one policy, ``benchvote.sensitivity.exact_method``,
picks the weight-space clique search on these boards: thousands of ordered pairs
on more than ten distinct tasks) with a deterministic work budget per board (nodes of the weight-space search,
chosen so that each board takes at most about ten minutes on one core) and
updates the board's row of the shipped table: ``tau exact`` (the value
found, recounted exactly), ``exact proven``, ``bound exact`` (the certified
upper bound, equal to ``tau exact`` when proven) and ``exact weights`` (the
task weights that reach ``tau exact``, largest 1, in the columns' order,
written with 17 significant digits so that they read back exactly).  The
other rows and columns are left as they are.  The same budgets give the
same numbers on every run.

Run:  .venv/bin/python bench/certified.py [BOARD ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from bounds import board_values

from benchvote.sensitivity import cardinal_sensitivity_exact

SHIPPED = Path(__file__).resolve().parent.parent / "data" / "benchbench_sensitivity.csv"
#: Nodes of the weight-space search per board (MMLU about ten minutes on the bench machine, the others about three;
#: ImageNet's search finishes, with a proof, well within its budget).
WORK = {"MMLU": 12, "BigBenchHard": 12, "ImageNet": 3000}


def certify(name: str) -> dict:
    values = board_values(name)
    t = time.perf_counter()
    r = cardinal_sensitivity_exact(values, eps=0.01, normalize="zscore", work_limit=WORK[name])
    assert r.method == "cliques", f"the auto policy ran {r.method} on {name}"
    weights = np.asarray(r.weights, dtype=float)
    print(
        f"{name:13s} found {r.tau_distance:.4f} ({r.n_flipped} pairs)  bound {r.upper_bound:.4f}  "
        f"gap {r.upper_bound - r.tau_distance:.4f}  proven {r.optimal}  work {r.work}  "
        f"{time.perf_counter() - t:.0f}s",
        flush=True,
    )
    return {
        "tau exact": r.tau_distance,
        "exact proven": bool(r.optimal),
        "bound exact": r.upper_bound,
        "exact weights": " ".join(f"{w:.17g}" for w in weights),
    }


def main(boards) -> int:
    table = pd.read_csv(SHIPPED, index_col="leaderboard")
    for col in ("bound exact", "exact weights"):
        if col not in table:
            table[col] = np.nan
    table["exact weights"] = table["exact weights"].astype(object)
    table["exact proven"] = table["exact proven"].astype(object)
    for name in boards:
        for col, value in certify(name).items():
            table.at[name, col] = value
    # a proven maximum elsewhere is its own bound
    proven = table["exact proven"].map(lambda v: v is True or v == "True" or v == True)  # noqa: E712
    table.loc[proven & table["bound exact"].isna(), "bound exact"] = table["tau exact"]
    table.to_csv(SHIPPED, float_format="%.12g")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or list(WORK)))
