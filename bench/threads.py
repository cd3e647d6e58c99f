"""Torch's thread count and a busy machine: the cardinal relaxation with 1 and 2 threads, idle and with a busy core.

A reader's laptop is rarely idle.  The relaxation works on small tensors
(restarts x pairs), where splitting each operation across threads costs
synchronisation; when another process holds a core, a thread that waits for
it stalls every step.  For each board and each thread count the relaxation
runs three times idle and three times while a second process spins on one
core (same run, same seed); the table gives the median seconds.

Run:  .venv/bin/python bench/threads.py   (part of make bench)
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

import pandas as pd


def timed(board, threads: int, repeats: int = 3) -> float:
    import torch

    from benchvote.sensitivity import cardinal_sensitivity

    torch.set_num_threads(threads)
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        cardinal_sensitivity(board.scores, board.higher_is_better, eps=0.01, normalize="zscore", method="relaxation")
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def main() -> None:
    import torch

    from benchvote import data

    default = torch.get_num_threads()
    boards = {name: data.load(name) for name in ("GLUE", "OpenLLM", "MMLU", "ImageNet")}
    timed(boards["GLUE"], 1, repeats=1)  # warm-up
    rows = []
    for load in ("idle", "one core busy"):
        burner = None
        if load != "idle":
            burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            time.sleep(0.5)
        try:
            for name, board in boards.items():
                for threads in sorted({1, 2, default}):
                    rows.append({"board": name, "load": load, "threads": threads, "seconds": timed(board, threads)})
                    print(rows[-1], file=sys.stderr, flush=True)
        finally:
            if burner is not None:
                burner.kill()
    torch.set_num_threads(default)
    table = pd.DataFrame(rows).pivot_table(index="board", columns=["load", "threads"], values="seconds")
    print(f"torch default threads: {default}")
    print(table.round(3).to_string())


if __name__ == "__main__":
    main()
