"""Certified bounds on the three boards where the cardinal maximum is not proven: MMLU, BigBenchHard, ImageNet.

Same matrices and conventions as bench/sensitivity.py (benchbench's loader,
z-scored tasks, eps = 0.01).  For each board: the default entry point
(``cardinal_sensitivity``, the relaxation on these many-task boards) and the
exact solver with a 600-second limit, which returns the best value it found
and a certified upper bound; the gap is bound minus the best value found.

Run:  .venv/bin/python bench/bounds.py [BOARD ...] [--limit SECONDS]
"""

from __future__ import annotations

import sys
import time

from sensitivity import benchbench_data

from benchvote.sensitivity import cardinal_sensitivity, cardinal_sensitivity_exact


def bound(name: str, limit: float) -> str:
    frame, cols, _ = benchbench_data(name, "cardinal")
    values = frame[cols].astype(float)
    values = values.loc[:, values.std(axis=0) > 1e-8]
    t = time.perf_counter()
    r = cardinal_sensitivity(values, eps=0.01, normalize="zscore")
    found_in = time.perf_counter() - t
    e = cardinal_sensitivity_exact(values, eps=0.01, normalize="zscore", time_limit=limit)
    best = max(r.tau_distance, e.tau_distance)
    return (
        f"{name}: default {r.method} tau {r.tau_distance:.4f} in {found_in:.1f}s; exact {e.method} tau "
        f"{e.tau_distance:.4f}, certified bound {e.upper_bound:.4f}, proven {e.optimal}, in {e.seconds:.0f}s; "
        f"gap {e.upper_bound - best:.4f}"
    )


if __name__ == "__main__":
    args = sys.argv[1:]
    limit = 600.0
    if "--limit" in args:
        k = args.index("--limit")
        limit = float(args[k + 1])
        del args[k : k + 2]
    for board in args or ["MMLU", "BigBenchHard", "ImageNet"]:
        print(bound(board, limit), flush=True)
