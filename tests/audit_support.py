"""Small tables and helpers shared by the audit's test files (tests/test_audit*.py)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

import benchvote as bv

#: Options that keep an audit quick: fewer bootstrap redraws, a generous time limit (the work limits decide).
FAST = dict(n_boot=100, time_limit=60)
QUICK = dict(n_boot=50, time_limit=60)
VERDICT_FAST = dict(n_boot=30, time_limit=60)
#: Names that must be escaped wherever the report shows them.
HOSTILE = "<b>&\"'x</b>"
RTL = "\u202emodel"


def normal_board(seed: int = 0, m: int = 9, n: int = 5, missing: int = 0) -> pd.DataFrame:
    """Normal scores, a slope from the first model down, ``missing`` cells left empty."""
    rng = np.random.default_rng(seed)
    s = pd.DataFrame(
        rng.normal(size=(m, n)) + np.linspace(1, 0, m)[:, None],
        index=[f"model {i}" for i in range(m)],
        columns=[f"task {k}" for k in range(n)],
    )
    for i, k in zip(rng.choice(m, missing, replace=False), rng.integers(0, n, missing)):
        s.iloc[i, k] = np.nan
    return s


def rounded_board(seed: int = 0, m: int = 9, n: int = 5, missing: int = 0) -> pd.DataFrame:
    """:func:`normal_board` rounded to two decimals (ties)."""
    rng = np.random.default_rng(seed)
    s = pd.DataFrame(
        np.round(rng.normal(size=(m, n)) + np.linspace(1, 0, m)[:, None], 2),
        index=[f"model {i}" for i in range(m)],
        columns=[f"task {k}" for k in range(n)],
    )
    for i, k in zip(rng.choice(m, missing, replace=False), rng.integers(0, n, missing)):
        s.iloc[i, k] = np.nan
    return s


def one_factor_board(seed: int = 0, m: int = 10, n: int = 5, digits: int = 2) -> pd.DataFrame:
    """One common factor plus noise per model, rounded to ``digits`` decimals."""
    rng = np.random.default_rng(seed)
    s = pd.DataFrame(
        (rng.normal(size=(m, 1)) + rng.normal(size=(m, n))).round(digits),
        index=[f"model {i}" for i in range(m)],
        columns=[f"task {k}" for k in range(n)],
    )
    return s


def hostile_board(seed: int = 3) -> pd.DataFrame:
    """Names and a group that must be escaped, a missing cell and a constant task."""
    s = one_factor_board(seed, m=12, n=6)
    s.index = ["<b>&\"'x</b>", "\u202eevil", *s.index[2:]]
    s.columns = ["<i>t</i>", *s.columns[1:]]
    s.iloc[3, 2] = np.nan
    s["flat"] = 1.0
    return s


def instance_scores(models: list[str], seed: int = 8) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    rows = [
        (m, f"t{k}", q, float(rng.random() < 0.2 + 0.08 * i + 0.05 * k))
        for i, m in enumerate(models)
        for k in range(3)
        for q in range(30)
    ]
    long = pd.DataFrame(rows, columns=["model", "task", "instance", "score"])
    return bv.intervals.instance_table(long)[0], long


def section_html(page: str, name: str) -> str:
    return re.search(rf"<section[^>]*id=.{name}.*?</section>", page, re.S).group(0)


def order(a) -> list[str]:
    return a.sections["rankings"]["ranking"]


def verdict_board(seed=0, m=7, n=5):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        rng.random((m, n)), index=[f"model {i}" for i in range(m)], columns=[f"task {k}" for k in range(n)]
    )


def first_sentence(report):
    return report.verdict[0]["text"]


def without_timings(x):
    if isinstance(x, dict):
        return {k: without_timings(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list):
        return [without_timings(v) for v in x]
    return x


#: A missing score, in the small hand-written tables of :func:`frame`.
NAN = np.nan


def frame(columns: dict, models: str) -> pd.DataFrame:
    """A float table from ``{task: scores}``, one model per letter of ``models``."""
    return pd.DataFrame(columns, index=list(models), dtype=float)


def mixed_board(seed: int = 11) -> tuple[pd.DataFrame, list[bool]]:
    """Seven models, four tasks on different scales; task 2 is lower-is-better."""
    s = normal_board(seed=seed, m=7, n=4)
    s["task 1"] *= 1000.0
    s["task 2"] = 50.0 - 3.0 * s["task 2"]
    return s, [True, True, False, True]


def normalised_oracle(s: pd.DataFrame, method: str) -> pd.DataFrame:
    """The normalised table, written out here from the definitions (each task keeps its direction)."""
    if method == "zscore":
        return (s - s.mean()) / s.std(ddof=0)
    if method == "minmax":
        return (s - s.min()) / (s.max() - s.min())
    return s.rank(method="average")  # ascending midranks: the largest score gets the largest rank
