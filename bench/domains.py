"""Recognising single-peaked and group-separable profiles: benchvote against brute force.

Brute force is what a direct reading of the definitions gives (and what
Gordienko et al. do for single-peakedness): try every axis (m!/2 of them) or
every subset of models.  For m = 6..10 models and 20 voters, both run on the
same profiles (half constructed to satisfy the restriction, half random);
beyond that, benchvote alone up to m = 67 (HELM Classic's model count).
Each cell is the median over repetitions; the ratio is brute force / ours.

Run:  make bench   (or .venv/bin/python bench/domains.py)
"""

from __future__ import annotations

import sys
import time
from itertools import combinations, islice, permutations
from pathlib import Path

import numpy as np
import pandas as pd

from benchvote.domains import group_separable_tree, single_peaked_axis

RESULTS = Path(__file__).resolve().parent / "results"


def single_peaked_profile(m: int, n: int, rng) -> list[tuple]:
    axis = [f"m{k:02d}" for k in rng.permutation(m)]
    out = []
    for _ in range(n):
        lo = hi = int(rng.integers(m))
        ranking = [axis[lo]]
        while len(ranking) < m:
            if lo > 0 and (hi == m - 1 or rng.random() < 0.5):
                lo -= 1
                ranking.append(axis[lo])
            else:
                hi += 1
                ranking.append(axis[hi])
        out.append(tuple(ranking))
    return out


def group_separable_profile(m: int, n: int, rng) -> list[tuple]:
    leaves = [f"m{k:02d}" for k in rng.permutation(m)]

    def tree(items):
        if len(items) == 1:
            return items[0]
        cut = int(rng.integers(1, len(items)))
        return (tree(items[:cut]), tree(items[cut:]))

    t = tree(leaves)

    def order(node):
        if isinstance(node, str):
            return [node]
        a, b = order(node[0]), order(node[1])
        return a + b if rng.random() < 0.5 else b + a

    return [tuple(order(t)) for _ in range(n)]


def random_profile(m: int, n: int, rng) -> list[tuple]:
    return [tuple(f"m{k:02d}" for k in rng.permutation(m)) for _ in range(n)]


def brute_single_peaked(profile, batch: int = 200_000) -> bool:
    """Try every axis (vectorised over batches of axes): an axis works if every voter's top-k is contiguous."""
    models = list(profile[0])
    m = len(models)
    index = {c: k for k, c in enumerate(models)}
    votes = np.array([[index[c] for c in r] for r in profile])  # voters x positions (model indices)
    ks = np.arange(1, m + 1)
    axes = permutations(range(m))
    while True:
        chunk = np.array(list(islice(axes, batch)))
        if not len(chunk):
            return False
        chunk = chunk[chunk[:, 0] < chunk[:, -1]]  # an axis and its mirror image are equivalent
        position = np.empty_like(chunk)
        position[np.arange(len(chunk))[:, None], chunk] = np.arange(m)
        ok = np.ones(len(chunk), dtype=bool)
        for v in votes:
            p = position[:, v]  # position on each axis of the voter's k-th favourite
            span = np.maximum.accumulate(p, axis=1) - np.minimum.accumulate(p, axis=1) + 1
            ok &= (span == ks).all(axis=1)
        if ok.any():
            return True


def brute_group_separable(profile) -> bool:
    models = list(profile[0])
    for size in range(3, len(models) + 1):
        for subset in combinations(models, size):
            s = set(subset)
            restricted = [[c for c in r if c in s] for r in profile]
            if not any(
                all(set(r[:k]) == set(part) or set(r[-k:]) == set(part) for r in restricted)
                for k in range(1, size)
                for part in combinations(subset, k)
            ):
                return False
    return True


def timed(f, *args):
    t = time.perf_counter()
    out = f(*args)
    return out, time.perf_counter() - t


def against_brute_force(test: str, kind: str, make, ours_fn, brute_fn, m: int, repeats: int, rng) -> dict:
    """Median times of our recogniser and the brute force on `repeats` random profiles (20 voters)."""
    ours_t, brute_t = [], []
    for _ in range(repeats):
        profile = make(m, 20, rng)
        ours, t1 = timed(lambda p: ours_fn(p) is not None, profile)
        brute, t2 = timed(brute_fn, profile)
        assert ours == brute, f"{test}: disagreement with brute force"
        ours_t.append(t1)
        brute_t.append(t2)
    return {
        "test": test,
        "profiles": kind,
        "models": m,
        "voters": 20,
        "s ours": np.median(ours_t),
        "s brute force": np.median(brute_t),
    }


def main() -> int:
    rng = np.random.default_rng(0)
    rows = []
    for m in range(6, 11):
        for kind, make in [("single-peaked", single_peaked_profile), ("random", random_profile)]:
            rows.append(
                against_brute_force(
                    "single-peaked", kind, make, single_peaked_axis, brute_single_peaked, m, 3 if m >= 9 else 5, rng
                )
            )
        if m <= 9:
            for kind, make in [("group-separable", group_separable_profile), ("random", random_profile)]:
                rows.append(
                    against_brute_force(
                        "group-separable", kind, make, group_separable_tree, brute_group_separable, m, 3, rng
                    )
                )
        print(f"m = {m} done", file=sys.stderr, flush=True)
    for m in (20, 40, 67):
        for test, make, f in [
            ("single-peaked", single_peaked_profile, single_peaked_axis),
            ("group-separable", group_separable_profile, group_separable_tree),
        ]:
            times = []
            for _ in range(5):
                profile = make(m, 20, rng)
                ok, t = timed(f, profile)
                assert ok is not None
                times.append(t)
            rows.append(
                {
                    "test": test,
                    "profiles": test,
                    "models": m,
                    "voters": 20,
                    "s ours": np.median(times),
                    "s brute force": np.nan,
                }
            )
    table = pd.DataFrame(rows)
    table["ratio"] = table["s brute force"] / table["s ours"]
    RESULTS.mkdir(exist_ok=True)
    table.to_csv(RESULTS / "domains.csv", index=False, float_format="%.6f")
    with pd.option_context("display.width", 160):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
