"""Issue 41: how MMLU's certified bound moves with the work given to the weight-space search.

MMLU as ``bench/certified.py`` takes it (benchbench's matrix, z-scored tasks,
eps = 0.01), ``cardinal_sensitivity_exact(method="cliques")`` with a work
limit of 1, 3, 6 and 12 nodes (12 is the budget of the shipped table, about
ten minutes on one core), each run from the start in its own call: the value
found, the certified upper bound, the gap between them and the seconds
(one solver thread).  Work limits, not clocks, decide the numbers, so every
run prints the same ones; only the seconds differ.  The table goes to
``bench/results/trajectory.txt``.

Run:  .venv/bin/python bench/trajectory.py [NODES ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd
from bounds import board_values

from benchvote.sensitivity import cardinal_sensitivity_exact

RESULTS = Path(__file__).resolve().parent / "results" / "trajectory.txt"
NODES = (1, 3, 6, 12)


def main(nodes: list[int]) -> int:
    values = board_values("MMLU")
    rows = []
    for limit in nodes:
        t = time.perf_counter()
        r = cardinal_sensitivity_exact(values, eps=0.01, normalize="zscore", method="cliques", work_limit=limit)
        rows.append(
            {
                "work limit (nodes)": limit,
                "nodes": r.work,
                "found tau": round(r.tau_distance, 4),
                "certified bound": round(r.upper_bound, 4),
                "gap": round(r.upper_bound - r.tau_distance, 4),
                "proven": bool(r.optimal),
                "seconds": round(time.perf_counter() - t, 1),
            }
        )
        print(rows[-1], flush=True)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    header = f"$ bench/trajectory.py {' '.join(map(str, nodes))}   ({when})"
    text = header + "\nMMLU 98 x 57, z-scored, eps 0.01, method cliques, each limit a run of its own:\n"
    RESULTS.write_text(text + pd.DataFrame(rows).to_string(index=False) + "\n")
    print(RESULTS.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main([int(a) for a in sys.argv[1:]] or list(NODES)))
