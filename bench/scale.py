"""Issue 30: the audit's kernels on leaderboards of thousands of models (1,000 x 6 and 5,000 x 6).

Tables: one common factor plus noise, rounded to 1 decimal (seeded).  For
each kernel the seconds of ours, and at 1,000 models of the kernel before
issue 30 (the m x m x m tensor for cycles, minorisation-maximisation for
Bradley-Terry) with the ratio; the old kernels are not run at 5,000 models
(85 GiB for the tensor, minutes for the iteration).

Run:  .venv/bin/python bench/scale.py
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np
import pandas as pd

from benchvote import rank
from benchvote.ratings import bradley_terry, comparison_matrix
from benchvote.voting import CondorcetCycle, _table, condorcet_cycles, count_condorcet_cycles


def one_factor(m: int, n: int = 6, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = 50 + 10 * (rng.normal(size=(m, 1)) @ rng.uniform(0.5, 1.0, size=(1, n)) + 0.5 * rng.normal(size=(m, n)))
    return pd.DataFrame(np.round(s, 1), index=[f"model {i:04d}" for i in range(m)])


def old_cycles(scores: pd.DataFrame) -> list:
    mat, direction, tol = _table(scores, True, 1e-9)
    r = rank(mat.values, direction, tol=tol)
    votes = r[:, None, :] < r[None, :, :]  # the m x m x n tensor of the kernel before issue 30
    counts = votes.sum(axis=2)
    margins = counts - counts.T
    beats = margins > 0
    a, b, c = np.nonzero(beats[:, :, None] & beats[None, :, :] & beats.T[:, None, :])
    keep = (a < b) & (a < c)
    s = mat.values
    out = []
    for i, j, k in zip(a[keep], b[keep], c[keep]):
        gaps = [float((s[x] - s[y])[votes[x, y]].min()) for x, y in ((i, j), (j, k), (k, i))]
        out.append(CondorcetCycle((i, j, k), (margins[i, j], margins[j, k], margins[k, i]), min(gaps)))
    out.sort(key=lambda cyc: -cyc.buffer)
    return out


def old_bradley_terry(wins: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    w = np.asarray(wins, dtype=float).copy()
    np.fill_diagonal(w, 0.0)
    n, total, p = w + w.T, w.sum(axis=1), np.ones(len(w))
    for _ in range(10_000):
        new = total / (n / (p[:, None] + p[None, :])).sum(axis=1)
        new = new / np.exp(np.mean(np.log(new)))
        done = np.max(np.abs(np.log(new) - np.log(p))) < tol
        p = new
        if done:
            break
    return np.log(p) - np.log(p).mean()


def seconds(f) -> float:
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def main() -> None:
    rows = []
    for m in (1000, 5000):
        s = one_factor(m)
        wins = comparison_matrix(s)
        kernels = {
            "condorcet_cycles (all)": (partial(condorcet_cycles, s), partial(old_cycles, s)),
            "condorcet_cycles (limit 20)": (partial(condorcet_cycles, s, limit=20), None),
            "count_condorcet_cycles": (partial(count_condorcet_cycles, s), None),
            "bradley_terry": (partial(bradley_terry, wins), partial(old_bradley_terry, wins.to_numpy())),
        }
        for name, (ours, before) in kernels.items():
            if m > 1000 and name == "condorcet_cycles (all)":
                continue  # ten million cycle objects: use limit= and the count
            row = {"models": m, "kernel": name, "ours s": round(seconds(ours), 2)}
            if before is not None and m <= 1000:
                row["before s"] = round(seconds(before), 2)
                row["ratio"] = round(row["before s"] / row["ours s"], 1)
            rows.append(row)
            print(row, flush=True)
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
