"""Time a full `benchvote audit` with its defaults on every shipped leaderboard, and on a 100 x 60 table.

Defaults: 1,000 bootstrap redraws, 10 seconds for each exact part, top-3
possible winners.  The issue's target is under 60 seconds for a 100 x 60
table on two cores.  The table lists the total time and the three slowest
sections of each audit; the exact parts are bounded by the time limit, so
their seconds show where a limit was reached.

Run:  make bench   (or .venv/bin/python bench/audit.py [--quick])
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pandas as pd

from benchvote import data
from benchvote.audit import audit


def synthetic(m: int = 100, n: int = 60, seed: int = 0) -> pd.DataFrame:
    """Models with a common ability plus task-specific noise, scores in [0, 1]."""
    rng = np.random.default_rng(seed)
    ability = rng.normal(size=(m, 1))
    skill = rng.normal(size=(m, 3)) @ rng.normal(size=(3, n)) * 0.4
    logits = ability + skill + rng.normal(scale=0.5, size=(m, n))
    return pd.DataFrame(
        1 / (1 + np.exp(-logits)),
        index=[f"model {i:03d}" for i in range(m)],
        columns=[f"task {k:02d}" for k in range(n)],
    )


def main(quick: bool = False) -> None:
    boards = [("synthetic 100x60", synthetic(), True)]
    names = ["GLUE", "SuperGLUE", "HELM-lite"] if quick else data.list_leaderboards()
    for name in names:
        b = data.load(name)
        boards.append((name, b.scores, b.higher_is_better))
    rows = []
    for name, scores, hib in boards:
        start = time.perf_counter()
        try:
            a = audit(scores, hib)
        except ValueError as err:  # e.g. fewer than two complete models
            rows.append(
                {
                    "board": name,
                    "models": scores.shape[0],
                    "tasks": scores.shape[1],
                    "seconds": None,
                    "slowest": f"refused: {err}"[:70],
                }
            )
            continue
        total = time.perf_counter() - start
        secs = a.settings["seconds"]
        slow = sorted(secs.items(), key=lambda kv: -kv[1])[:3]
        undefined = [k for k, v in a.sections.items() if "undefined" in v]
        rows.append(
            {
                "board": name,
                "models": scores.shape[0],
                "tasks": scores.shape[1],
                "missing": int(scores.isna().sum().sum()),
                "seconds": round(total, 1),
                "slowest": ", ".join(f"{k} {v:.1f}" for k, v in slow),
                "undefined": ", ".join(undefined),
            }
        )
        print(f"{name}: {total:.1f} s", file=sys.stderr, flush=True)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_colwidth", 90):
        print(table.to_string(index=False))


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
