"""Compile the library's numba kernels once, into numba's disk cache, before several processes need them.

    python scripts/warm_kernels.py

Every kernel is compiled with ``cache=True``: the first process that calls it compiles it (about 65 CPU seconds
for the whole library) and writes the machine code beside the source; later processes load it in milliseconds.
``make test`` starts the book's kernels and the test workers at the same moment, and on a fresh checkout each of
them would compile the same kernels.  This script runs first, so that they all load instead, in two processes
that compile disjoint kernels: the box search, then an audit of a shipped leaderboard (the ranking, cycle,
interval and Bradley-Terry kernels; its sensitivity sections load the box search just compiled); and the clique
bound.  The book waits for this script: one process took about 65 s, the two take about 47.
"""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor


def boxes_and_an_audit() -> float:
    from benchvote import data
    from benchvote.audit import audit
    from benchvote.sensitivity import _boxes

    start = time.process_time()
    _boxes.ensure_compiled()
    board = data.load("GLUE")
    audit(board.scores, board.higher_is_better, budget="quick")
    return time.process_time() - start


def cliques() -> float:
    from benchvote.sensitivity import _cliques

    start = time.process_time()
    _cliques.ensure_compiled()
    return time.process_time() - start


def main() -> int:
    # "spawn": each process imports the library afresh (numba and forked threads do not mix)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = [pool.submit(boxes_and_an_audit), pool.submit(cliques)]
        seconds = sum(part.result() for part in parts)
    print(f"numba kernels compiled or loaded in {seconds:.1f} CPU s (two processes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
