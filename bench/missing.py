"""Compatible-ranking matrices: the closed form against enumeration and against the paper's O(n^3) scheme.

Three ways to build the per-task matrices M (share of compatible complete
rankings putting i above j) and their Borda row sums:

* **ours**: the closed form r/(k+1) (benchvote.missing), vectorised;
* **enumeration**: list every permutation of the n systems and keep the
  compatible ones (only for n <= 9);
* **precomputed O(n^3) scheme**: Himmi et al.'s approach, a table of p(n, k, r)
  for every k and r from their counting formula (with its slips corrected),
  then a lookup per matrix entry.

The large case is 1,000 systems x 100 tasks with 30 percent of the scores
missing.  All methods must agree (checked); the table gives seconds and the
ratios to ours.

Run:  make bench   (or .venv/bin/python bench/missing.py)
"""

from __future__ import annotations

import sys
import time
from itertools import permutations
from math import comb, factorial
from pathlib import Path

import numpy as np
import pandas as pd

from benchvote.missing import compatible_matrix, partial_borda

RESULTS = Path(__file__).resolve().parent / "results"


def scores_with_holes(n: int, tasks: int, share: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(n, tasks))
    holes = rng.random((n, tasks)) < share
    for t in range(tasks):  # keep at least two observed systems per task
        if (~holes[:, t]).sum() < 2:
            holes[:2, t] = False
    s[holes] = np.nan
    return s


def partial_rankings(s: np.ndarray) -> list[list[int]]:
    out = []
    for t in range(s.shape[1]):
        seen = np.flatnonzero(~np.isnan(s[:, t]))
        out.append(list(seen[np.argsort(-s[seen, t], kind="stable")]))
    return out


def ours(s: np.ndarray) -> np.ndarray:
    return np.asarray(partial_borda(s))


def ours_matrices(s: np.ndarray) -> np.ndarray:
    n = s.shape[0]
    return sum(compatible_matrix(p, n) for p in partial_rankings(s)).sum(axis=1)


def enumeration(s: np.ndarray) -> np.ndarray:
    n = s.shape[0]
    perms = np.array(list(permutations(range(n))))
    position = np.empty_like(perms)
    position[np.arange(len(perms))[:, None], perms] = np.arange(n)
    total = np.zeros((n, n))
    for p in partial_rankings(s):
        ok = np.ones(len(perms), dtype=bool)
        for a, b in zip(p, p[1:]):
            ok &= position[:, a] < position[:, b]
        pos = position[ok]
        m = (pos[:, :, None] < pos[:, None, :]).mean(axis=0)
        np.fill_diagonal(m, 0.0)
        total += m
    return total.sum(axis=1)


def paper_table(n: int) -> np.ndarray:
    """p(n, k, r0) for every k < n and 0-based r0 < k, by the corrected counting formula (exact integers)."""
    f = factorial
    table = np.full((n + 1, n + 1), np.nan)
    for k in range(1, n):
        t = f(n - k) * comb(n, k)
        for r0 in range(k):
            total = 0
            for i in range(n - k):
                total += (
                    (f(n - k - 1) // f(n - k - 1 - i))
                    * (i + 1)
                    * comb(r0 + i + 1, r0)
                    * f(n - k - i - 1)
                    * comb(k - r0 - 1 + n - k - i - 1, k - r0 - 1)
                )
            table[k, r0] = total / t
    return table


def paper_scheme(s: np.ndarray, table: np.ndarray | None = None) -> np.ndarray:
    n = s.shape[0]
    table = paper_table(n) if table is None else table
    total = np.zeros((n, n))
    for p in partial_rankings(s):
        k = len(p)
        m = np.full((n, n), 0.5)
        observed = np.zeros(n, dtype=bool)
        observed[p] = True
        for r0, j in enumerate(p):
            for i2 in range(r0 + 1, k):
                m[j, p[i2]], m[p[i2], j] = 1.0, 0.0
            if k < n:
                share = table[k, r0]
                m[~observed, j] = share
                m[j, ~observed] = 1.0 - share
        np.fill_diagonal(m, 0.0)
        total += m
    return total.sum(axis=1)


def timed(f, *args, repeat: int = 3):
    best = np.inf
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f(*args)
        best = min(best, time.perf_counter() - t)
    return out, best


def main() -> int:
    rows = []
    for n in (5, 7, 9):
        s = scores_with_holes(n, 20, 0.3, seed=n)
        ref, t_ours = timed(ours, s)
        enum, t_enum = timed(enumeration, s, repeat=1)
        paper, t_paper = timed(paper_scheme, s)
        assert np.allclose(ref, enum) and np.allclose(ref, paper)
        rows.append(
            {"systems": n, "tasks": 20, "s ours": t_ours, "s enumeration": t_enum, "s paper O(n^3) scheme": t_paper}
        )
    for n, tasks in ((100, 100), (1000, 100)):
        s = scores_with_holes(n, tasks, 0.3, seed=1)
        ref, t_ours = timed(ours, s)
        mats, t_mats = timed(ours_matrices, s, repeat=1)
        assert np.allclose(ref, mats)
        t_build = time.perf_counter()
        table = paper_table(n) if n <= 100 else None
        t_table = time.perf_counter() - t_build
        if table is not None:
            paper, t_paper = timed(paper_scheme, s, table, repeat=1)
            assert np.allclose(ref, paper)
            t_paper += t_table
        else:
            t_paper = np.nan  # the O(n^3) table with exact integers is impractical at n = 1,000
        rows.append(
            {
                "systems": n,
                "tasks": tasks,
                "s ours": t_ours,
                "s ours (full n x n matrices)": t_mats,
                "s enumeration": np.nan,
                "s paper O(n^3) scheme": t_paper,
            }
        )
        print(f"n = {n} done", file=sys.stderr, flush=True)
    table = pd.DataFrame(rows)
    table["enumeration / ours"] = table["s enumeration"] / table["s ours"]
    table["paper scheme / ours"] = table["s paper O(n^3) scheme"] / table["s ours"]
    RESULTS.mkdir(exist_ok=True)
    table.to_csv(RESULTS / "missing.csv", index=False, float_format="%.6f")
    with pd.option_context("display.width", 180):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
