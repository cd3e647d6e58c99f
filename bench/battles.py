"""Issue 39: Bradley-Terry on an arena battle log of 1,000,000 battles among 200 models, benchvote against choix.

A synthetic log (seeded): 200 models with normal log-strengths, random
pairs, 10% ties, the rest decided by Bradley-Terry.  In one process, in one
run, each step is timed on its own and then run again under ``tracemalloc``
for its peak of traced memory (numpy's buffers and Python objects; the
tracing slows Python loops, so the seconds come from the untraced run):

* benchvote: ``battle_counts`` (validation and counting), the point fit of
  ``battle_ratings`` (``n_boot=2``, the smallest), ``battle_ratings``
  with 100 bootstrap redraws, and the whole command ``benchvote audit`` on
  the log written as a CSV file (1,000 redraws, in a child process: its
  seconds and its peak resident memory);
* choix: the log as choix's list of (winner, loser) pairs (a decisive
  battle twice, a tie once each way: half a win to each side, as
  benchvote counts it), ``ilsr_pairwise`` on that list (its loop visits
  every pair at every iteration), and ``ilsr_pairwise_dense`` on the
  counts benchvote found (choix's vectorised path).

The last column is the largest difference of the centred ratings from
benchvote's.  The table goes to ``bench/results/battles.txt``.

BLAS runs on one thread (``threadpoolctl``), for both libraries: on a
loaded 2-core machine OpenBLAS's two threads wait for each other, and one
Cholesky factorisation of a 200 x 200 Newton system (``ratings.bradley_terry``)
took 0.3 s instead of 1.4 ms, which made 100 redraws take 36 s instead of a few.

Run:  .venv/bin/python scripts/warm_kernels.py; .venv/bin/python bench/battles.py [BATTLES [MODELS]]
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import choix
import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from benchvote.battles import battle_counts, battle_ratings

RESULTS = Path(__file__).resolve().parent / "results" / "battles.txt"


def synthetic_log(n: int, m: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    strengths = rng.normal(size=m)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    p = 1 / (1 + np.exp(strengths[b] - strengths[a]))
    u = rng.random(n)
    winner = np.where(u < 0.1, "tie", np.where(u < 0.1 + 0.9 * p, "model_a", "model_b"))
    names = np.array([f"model-{k:03d}" for k in range(m)])
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner}), strengths


def choix_pairs(battles: pd.DataFrame, models: list) -> list[tuple[int, int]]:
    """choix's input: (winner, loser) pairs, a decisive battle twice and a tie once each way."""
    codes = pd.Index(models)
    a = codes.get_indexer(battles["model_a"])
    b = codes.get_indexer(battles["model_b"])
    w = battles["winner"].to_numpy()
    first = np.where(w == "model_b", b, a)
    second = np.where(w == "model_b", a, b)
    again = np.where(w == "tie", second, first), np.where(w == "tie", first, second)
    return list(zip(first.tolist(), second.tolist())) + list(zip(again[0].tolist(), again[1].tolist()))


def measured(step: Callable[[], Any]) -> tuple[Any, float, float]:
    """The step's result, its seconds (untraced run) and its peak traced MB (a second, traced run)."""
    t = time.perf_counter()
    out = step()
    seconds = time.perf_counter() - t
    tracemalloc.start()
    step()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, seconds, peak


def audited(battles: pd.DataFrame) -> tuple[None, float, float]:
    """``benchvote audit`` on the log as a CSV file, in a child process: its seconds and its peak resident MB.

    The command reads the file, counts and fits the battles, redraws them
    1,000 times (its default) and writes the JSON report; it limits BLAS to
    one thread for its small solves by itself.
    """
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.csv"
        battles.to_csv(path, index=False)
        command = [sys.executable, "-m", "benchvote", "audit", str(path), "--json", str(Path(folder) / "r.json")]
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        seconds = time.perf_counter() - start
    return None, seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main(n: int, m: int) -> int:
    battles, _ = synthetic_log(n, m)
    battle_ratings(synthetic_log(1000, 5)[0], n_boot=2)  # loads the compiled kernels before any clock starts
    counts, *cost = measured(lambda: battle_counts(battles))
    rows = [("benchvote", "battle_counts (validate, count)", *cost, None)]
    ours, *cost = measured(lambda: battle_ratings(battles, n_boot=2))
    rows.append(("benchvote", "battle_ratings, point fit (n_boot=2)", *cost, None))
    boot, *cost = measured(lambda: battle_ratings(battles, n_boot=100))
    rows.append(("benchvote", "battle_ratings, n_boot=100", *cost, None))
    _, *cost = audited(battles)
    rows.append(("benchvote", "benchvote audit LOG.csv, 1,000 redraws (child process; peak = its RSS)", *cost, None))
    pairs, *cost = measured(lambda: choix_pairs(battles, counts.models))
    rows.append(("choix", f"log to {len(pairs):,} (winner, loser) pairs", *cost, None))
    fit, *cost = measured(lambda: choix.ilsr_pairwise(m, pairs, alpha=0.0, tol=1e-10, max_iter=500))
    rows.append(("choix", "ilsr_pairwise on the pairs", *cost, fit))
    dense, *cost = measured(lambda: choix.ilsr_pairwise_dense(counts.points(), alpha=0.0, tol=1e-10, max_iter=500))
    rows.append(("choix", "ilsr_pairwise_dense on benchvote's counts", *cost, dense))
    table = pd.DataFrame(
        [
            {
                "library": lib,
                "step": step,
                "seconds": round(seconds, 2),
                "peak MB": round(peak, 1),
                "max |diff| vs benchvote": "" if r is None else f"{np.abs((r - r.mean()) - ours.ratings).max():.1e}",
            }
            for lib, step, seconds, peak, r in rows
        ]
    )
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    header = f"$ bench/battles.py {n} {m}   ({when}; load average {load} on {os.cpu_count()} cores)"
    text = (
        f"{header}\n{n:,} battles among {m} models (10% ties), seeded; seconds untraced, peak = tracemalloc's "
        f"peak of a second run; BLAS on 1 thread; {boot.n_smoothed} of 100 redraws smoothed\n"
    )
    RESULTS.write_text(text + table.to_string(index=False) + "\n")
    print(RESULTS.read_text())
    return 0


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    with threadpool_limits(1, user_api="blas"):
        sys.exit(main(args[0] if args else 1_000_000, args[1] if len(args) > 1 else 200))
