"""Certified bounds on the three many-task boards: MMLU, BigBenchHard, ImageNet; the clique search against the MILP.

Same matrices and conventions as bench/sensitivity.py (benchbench's loader,
z-scored tasks, eps = 0.01).  For each board and each time limit (60 s and
600 s by default), in the same run: ``cardinal_sensitivity_exact`` with
``method="cliques"`` (the clique LP and the weight-space branch and bound)
and with ``method="milp"`` (the mixed-integer program), each with its time
limit as the only budget that binds.  Every line gives the value found
(recounted exactly), the certified bound, the gap (bound minus found, in
Kendall tau distance), whether it is proven, and the seconds.  One solve at
a time, on one solver thread.

Run:  .venv/bin/python bench/bounds.py [BOARD ...] [--limits 60,600] [--methods cliques,milp]
"""

from __future__ import annotations

import sys
import warnings

import pandas as pd
from sensitivity import benchbench_data

from benchvote.sensitivity import cardinal_sensitivity_exact

BOARDS = ("MMLU", "BigBenchHard", "ImageNet")
#: Work budgets far above what the time limits allow: the time limit ends every run here.
UNBOUNDED = {"cliques": 10**9, "milp": 10**9}


def board_values(name: str):
    with warnings.catch_warnings():  # benchbench's ImageNet loader builds its frame column by column
        warnings.simplefilter("ignore", pd.errors.PerformanceWarning)
        frame, cols, _ = benchbench_data(name, "cardinal")
    values = frame[cols].astype(float)
    return values.loc[:, values.std(axis=0) > 1e-8]


def line(name: str, values, method: str, limit: float) -> str:
    r = cardinal_sensitivity_exact(
        values, eps=0.01, normalize="zscore", method=method, time_limit=limit, work_limit=UNBOUNDED[method]
    )
    return (
        f"{name:13s} {method:8s} limit {limit:5.0f}s  found {r.tau_distance:.4f} ({r.n_flipped} pairs)  "
        f"bound {r.upper_bound:.4f}  gap {r.upper_bound - r.tau_distance:.4f}  proven {r.optimal!s:5s}  "
        f"{r.seconds:6.1f}s  work {r.work}"
    )


def main(boards, limits, methods) -> int:
    for name in boards:
        values = board_values(name)
        for limit in limits:
            for method in methods:
                print(line(name, values, method, limit), flush=True)
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    options = {"--limits": "60,600", "--methods": "cliques,milp"}
    for key in list(options):
        if key in args:
            k = args.index(key)
            options[key] = args[k + 1]
            del args[k : k + 2]
    sys.exit(
        main(
            args or BOARDS,
            [float(v) for v in options["--limits"].split(",")],
            options["--methods"].split(","),
        )
    )
