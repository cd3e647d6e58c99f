"""Compile the library's numba kernels once, into numba's disk cache, before several processes need them.

    python scripts/warm_kernels.py

Every kernel is compiled with ``cache=True``: the first process that calls it compiles it (about 40 CPU seconds
for the whole library) and writes the machine code beside the source; later processes load it in milliseconds.
``make test`` starts the book's kernels and the test workers at the same moment, and on a fresh checkout each of
them would compile the same kernels.  This script runs first, so that they all load instead: an audit of a
shipped leaderboard (the ranking, cycle, interval and Bradley-Terry kernels) and the sensitivity solvers' own
warm-up (the box search and the clique bound).
"""

from __future__ import annotations

import time

import numpy as np

from benchvote import data, ratings
from benchvote.audit import audit
from benchvote.sensitivity import _boxes, _cliques


def main() -> int:
    start = time.process_time()
    _boxes.ensure_compiled()
    _cliques.ensure_compiled()
    board = data.load("GLUE")
    audit(board.scores, board.higher_is_better, budget="quick")
    table = np.random.default_rng(0).normal(size=(ratings._DIRECT_MAX + 50, 6))  # Bradley-Terry's large path,
    ratings.table_ratings(table)  # on small integer counts
    ratings.bradley_terry(ratings.comparison_matrix(table))  # and on float counts
    print(f"numba kernels compiled or loaded in {time.process_time() - start:.1f} CPU s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
