"""The audit's parts at the size of real leaderboards, against the fastest peer implementations.

Issue 30's sizes: 5,000 x 6 (the Open LLM Leaderboard has about 4,500 models
on 6 tasks), 1,000 x 60 and 150 x 40, each a seeded table with one common
factor plus noise, rounded to one decimal, with a few missing cells.  For
each size :func:`time_parts` runs one full :func:`benchvote.audit.audit` with its
defaults (1,000 redraws, the work budgets of :mod:`benchvote.audit`) and prints
the audit's own per-section seconds and the total.
The targets for the whole audit on two cores are 2 minutes, 3 minutes and
30 seconds.

In the same run the peers: ``choix`` fits Bradley-Terry on the same pairwise
counts (``ilsr_pairwise`` and ``opt_pairwise``) and ``pref_voting`` runs
Borda, Copeland, Ranked Pairs and the Condorcet winner on the same profile
(the tasks as voters; ``pref_voting``'s profile with ties).  Each line gives
the seconds, ours over the peer's, and whether the results agree.

``--boards`` instead audits every shipped leaderboard with :func:`benchvote.audit.audit`
(total time and the three slowest sections).

Run:  make bench   (or .venv/bin/python bench/audit.py [--quick] [--boards])
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

#: Issue 30's sizes (models, tasks) and the target seconds of a whole audit on two cores.
SIZES = {(5000, 6): 120.0, (1000, 60): 180.0, (150, 40): 30.0}
#: The audit's defaults that decide the work of its parts.
N_BOOT = 1000
TOP_K = 3
TOP_MODELS = 6
TIME_LIMIT = 60.0


def one_factor(m: int, n: int, *, missing: float = 0.002, seed: int = 0) -> pd.DataFrame:
    """Scores 50 + 10 (ability x loading + noise), rounded to one decimal, a share ``missing`` of cells left out.

    Every task keeps at least two scores and no model loses every score.
    """
    rng = np.random.default_rng(seed)
    ability = rng.normal(size=(m, 1))
    loading = rng.uniform(0.5, 1.0, size=(1, n))
    s = np.round(50 + 10 * (ability @ loading + 0.5 * rng.normal(size=(m, n))), 1)
    holes = rng.random((m, n)) < missing
    holes[:2] = False  # two complete models: every task keeps two scores, the complete part two models
    s[holes] = np.nan
    return pd.DataFrame(s, index=[f"model {i:04d}" for i in range(m)], columns=[f"task {k:02d}" for k in range(n)])


def time_parts(
    table: pd.DataFrame, *, n_boot: int = N_BOOT, seed: int = 0, failures: dict | None = None
) -> dict[str, float]:
    """Seconds of every section of one full audit of ``table`` with the defaults (the one place the bench times it).

    The audit times its own sections (``Audit.timings``); ``"total"``
    is the wall-clock time of the whole call, preparation and verdict
    included.  A section that is not defined on the table still has its time;
    its reason goes into ``failures`` when given.
    """
    from benchvote.audit import audit

    start = time.perf_counter()
    report = audit(table, n_boot=n_boot, seed=seed, time_limit=TIME_LIMIT, top_k=TOP_K, top_models=TOP_MODELS)
    total = time.perf_counter() - start
    seconds = {name: float(v) for name, v in report.timings.items()}
    for name, section in report.sections.items():
        if section["status"] != "ok" and failures is not None:
            failures[name] = str(section["reason"])[:100]
        rules = section.get("rules", {}) if name == "rankings" else {}
        for rule, entry in rules.items():
            if "undefined" in entry and failures is not None:
                failures[f"{name}: {rule}"] = str(entry["undefined"])[:100]
    seconds["total"] = total
    return seconds


def _seconds(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = call()
    return time.perf_counter() - start, out


#: ``choix.opt_pairwise`` takes one (winner, loser) tuple per comparison: run it up to this many
#: (it took 226 s on the 813,000 of the 150 x 40 table, where ``ilsr_pairwise_dense`` takes under a second).
OPT_PAIRWISE_MAX = 100_000


def bradley_terry_peers(work: pd.DataFrame) -> list[dict]:
    """Ours against choix on the same match table (wins, a tie half a win to each side)."""
    import choix

    from benchvote.ranking import kendall_tau_distance
    from benchvote.ratings import bradley_terry, comparison_matrix

    wins = comparison_matrix(work).to_numpy()
    ours_s, ours = _seconds(lambda: np.asarray(bradley_terry(wins).ratings))
    rows = []
    peers: dict[str, Callable[[], Any]] = {"choix.ilsr_pairwise_dense": lambda: choix.ilsr_pairwise_dense(wins)}
    doubled = np.rint(2 * wins).astype(np.int64)  # half wins become whole ones: the same maximum
    if doubled.sum() <= OPT_PAIRWISE_MAX:
        i, j = np.nonzero(doubled)
        data = [(a, b) for a, b, c in zip(i.tolist(), j.tolist(), doubled[i, j].tolist()) for _ in range(c)]
        peers["choix.opt_pairwise"] = lambda: choix.opt_pairwise(len(wins), data, alpha=0.0)
    for name, call in peers.items():
        secs, theirs = _seconds(call)
        theirs = np.asarray(theirs) - np.mean(theirs)
        rows.append(
            {
                "part": "Bradley-Terry",
                "peer": name,
                "ours s": ours_s,
                "peer s": secs,
                "agree": f"max |log-strength gap| {np.max(np.abs(ours - theirs)):.1e}, "
                f"Kendall distance {kendall_tau_distance(-ours, -theirs):.1e}",
            }
        )
    if doubled.sum() > OPT_PAIRWISE_MAX:
        rows.append(
            {"part": "Bradley-Terry", "peer": "choix.opt_pairwise", "agree": f"not run: {doubled.sum():,} tuples"}
        )
    return rows


#: Largest profile given to pref_voting: on 4,949 models x 6 tasks its profile and Borda ran over 10 minutes
#: and past 4 GiB without finishing (at 1,000 x 60: 16 s to build the profile, 44 s for Borda).
PREF_VOTING_MAX_MODELS = 1500


def voting_peers(work: pd.DataFrame) -> list[dict]:
    """Ours against pref_voting on the same profile (each task a voter ranking the models, ties allowed)."""
    if len(work) > PREF_VOTING_MAX_MODELS:
        skipped = f"not run above {PREF_VOTING_MAX_MODELS} models"
        return [{"part": "voting rules", "peer": "pref_voting", "agree": skipped}]
    from pref_voting.margin_based_methods import ranked_pairs_tb
    from pref_voting.profiles_with_ties import ProfileWithTies

    from benchvote import rank, voting

    r = rank(work.to_numpy())
    m, n = r.shape
    build_s, prof = _seconds(
        lambda: ProfileWithTies([{i: float(r[i, k]) for i in range(m)} for k in range(n)], candidates=list(range(m)))
    )
    rows = [{"part": "profile", "peer": "pref_voting.ProfileWithTies", "peer s": build_s, "agree": "(built once)"}]

    def borda_agrees(ours: Any, theirs: dict) -> str:  # symmetric Borda (below - above) = 2 Borda - n (m - 1)
        same = np.array_equal(2 * np.asarray(ours) - n * (m - 1), [theirs[i] for i in range(m)])
        return "scores equal" if same else "SCORES DIFFER"

    def copeland_agrees(ours: Any, theirs: dict) -> str:
        return "scores equal" if np.array_equal(np.asarray(ours), [theirs[i] for i in range(m)]) else "SCORES DIFFER"

    def winner_agrees(ours: Any, theirs: Any) -> str:
        return f"both {theirs}" if ours == theirs else f"DIFFER: ours {ours}, theirs {theirs}"

    def ranked_pairs_agrees(ours: Any, theirs: list) -> str:
        first = int(np.argmax(np.asarray(ours)))
        return f"winner {first} both" if theirs == [first] else f"DIFFER: ours {first}, theirs {theirs}"

    pairs = [
        ("Borda", lambda: voting.borda(r, False), prof.borda_scores, borda_agrees),
        ("Copeland", lambda: voting.copeland(r, False), prof.copeland_scores, copeland_agrees),
        ("Condorcet winner", lambda: voting.condorcet_winner(r, False), prof.condorcet_winner, winner_agrees),
        ("Ranked Pairs", lambda: voting.ranked_pairs(r, False), lambda: ranked_pairs_tb(prof), ranked_pairs_agrees),
    ]
    for part, ours_call, peer_call, agree in pairs:
        ours_s, ours = _seconds(ours_call)
        peer_s, theirs = _seconds(peer_call)
        rows.append(
            {"part": part, "peer": "pref_voting", "ours s": ours_s, "peer s": peer_s, "agree": agree(ours, theirs)}
        )
    return rows


def main_sizes(sizes: dict = SIZES, *, n_boot: int = N_BOOT) -> None:
    """Per-part seconds at every size, the sum against the target, and the peers in the same run."""
    time_parts(one_factor(12, 4), n_boot=10)  # compile (or load from numba's cache) the kernels before any clock
    for (m, n), target in sizes.items():
        table = one_factor(m, n)
        work = table.dropna()
        print(f"\n== {m} x {n} ({int(table.isna().sum().sum())} missing cells; complete part {len(work)} models)")
        failures: dict[str, str] = {}
        seconds = time_parts(table, n_boot=n_boot, failures=failures)
        frame = pd.Series(seconds, name="seconds").round(2).to_frame()
        frame["failed"] = [failures.get(name, "") for name in frame.index]
        with pd.option_context("display.width", 200, "display.max_colwidth", 110):
            print(frame.to_string())
        total = seconds["total"]
        verdict = "within" if total <= target else "OVER"
        print(f"whole audit {total:.1f} s, {verdict} the target of {target:.0f} s")
        rows = bradley_terry_peers(work) + voting_peers(work)
        peers = pd.DataFrame(rows)
        peers["ours/peer"] = peers["ours s"] / peers["peer s"]
        with pd.option_context(
            "display.width", 200, "display.max_colwidth", 80, "display.float_format", "{:.3g}".format
        ):
            print(peers.to_string(index=False))


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


def main_boards(quick: bool = False) -> None:
    """A full audit of every shipped leaderboard and of a synthetic 100 x 60 table: total and three slowest sections."""
    from benchvote import data
    from benchvote.audit import audit

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
        secs = a.timings
        slow = sorted(secs.items(), key=lambda kv: -kv[1])[:3]
        undefined = [k for k, v in a.sections.items() if v["status"] != "ok"]
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


#: Small sizes for a quick run (and the bench's own test).
QUICK_SIZES = {(400, 6): 120.0, (120, 20): 180.0, (40, 10): 30.0}

if __name__ == "__main__":
    if "--boards" in sys.argv:
        main_boards(quick="--quick" in sys.argv)
    elif "--quick" in sys.argv:
        main_sizes(QUICK_SIZES, n_boot=200)
    else:
        main_sizes()
