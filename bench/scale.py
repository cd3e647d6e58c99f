"""Issue 41: the whole audit on leaderboards of 1,000 to 20,000 models, time and peak memory, with the growth exponent.

Tables: one common factor plus noise, rounded to 1 decimal (seeded), 6 tasks
(and 1,000 x 60).  Each audit runs in a child process with the audit's
defaults; the child reports the audit's seconds and its per-section seconds,
and the parent reads the child's peak memory from ``os.wait4`` (``ru_maxrss``),
as ``bench/corpus.py`` does.  The growth exponent is the slope of log seconds
(log peak MB) against log models over the 6-task sizes.

Beside each 6-task size (``--no-peers`` leaves them out), in a child process
capped at :data:`PEER_SECONDS`: our Bradley-Terry (``table_ratings``) and
choix's ``ilsr_pairwise_dense`` on the same comparison matrix (up to
:data:`CHOIX_MAX_MODELS` models; the largest gap of the centred
log-strengths), and our Copeland against pref_voting's (its profile with
ties built, then ``copeland_scores``; up to :data:`PREF_VOTING_MAX_MODELS`
models; whether the scores are equal).  A second table gives every section's
seconds at every size.

``--before REV`` also audits the 1,000 and 5,000-model tables with the
library as it was at git revision REV (``git archive``), in the same run, and
prints the ratio: the machine is shared, so the ratio says more than the
seconds.  The table goes to ``bench/results/scale.txt``.

Targets (2 cores): 5,000 x 6 <= 10 s and <= 1 GB; 20,000 x 6 <= 2 minutes
and <= 8 GB; 1,000 x 60 <= 10 s.

Run:  .venv/bin/python bench/scale.py [--before 097141c] [--sizes 1000,2000,5000,10000,20000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "scale.txt"
SIZES = (1000, 2000, 5000, 10_000, 20_000)
#: The sizes audited with the old library too (``--before``).
COMPARED = (1000, 5000)

#: The peers, each timed in a child process with its own time cap (seconds): choix's Bradley-Terry
#: (``ilsr_pairwise_dense`` on the m x m float64 comparison matrix) against ours (``table_ratings``), and
#: pref_voting's Copeland (its profile with ties built first) against ours.
PEER_SECONDS = 300
#: Largest tables given to each peer: choix's dense solver holds several m x m float64 matrices; pref_voting
#: builds a dict per task and its profile and Borda ran over 10 minutes on 4,949 models (bench/audit.py);
#: choix took 29 s on 2,500 models, O(m^2) an iteration.
CHOIX_MAX_MODELS = 5000
PREF_VOTING_MAX_MODELS = 2000
#: Largest size the peers run at (our own Bradley-Terry and Copeland are timed inside the audit beyond it).
PEERS_MAX_MODELS = 10_000

PEERS = """
import json, sys, time
import numpy as np
sys.path.insert(0, {bench!r})
from scale import one_factor
from benchvote import rank, voting
from benchvote.ratings import comparison_matrix, table_ratings
small = one_factor(50, {n})
table_ratings(small), voting.copeland(rank(small.to_numpy()), False)  # numba's cache loaded before any clock
table = one_factor({m}, {n})
out = {{}}
def timed(name, call):
    start = time.perf_counter()
    value = call()
    out[name] = time.perf_counter() - start
    return value
ours = timed("ours BT s", lambda: np.asarray(table_ratings(table)))
if {m} <= {choix_max}:
    import choix
    wins = comparison_matrix(table).to_numpy()
    theirs = timed("choix BT s", lambda: np.asarray(choix.ilsr_pairwise_dense(wins)))
    out["BT max gap"] = float(np.max(np.abs(ours - (theirs - theirs.mean()))))
r = rank(table.to_numpy())
copeland = timed("ours Copeland s", lambda: np.asarray(voting.copeland(r, False)))
if {m} <= {pref_max}:
    from pref_voting.profiles_with_ties import ProfileWithTies
    start = time.perf_counter()
    prof = ProfileWithTies([{{i: float(r[i, k]) for i in range(r.shape[0])}} for k in range(r.shape[1])],
                           candidates=list(range(r.shape[0])))
    theirs = prof.copeland_scores()
    out["pref_voting Copeland s"] = time.perf_counter() - start
    out["Copeland equal"] = bool(np.array_equal(copeland, [theirs[i] for i in range(r.shape[0])]))
print(json.dumps(out))
"""

CHILD = """
import json, sys, time
sys.path.insert(0, {bench!r})
from scale import one_factor
from benchvote.audit import audit
table = one_factor({m}, {n})
start = time.perf_counter()
report = audit(table)
print(json.dumps({{"total": time.perf_counter() - start, "sections": dict(report.timings)}}))
"""


def one_factor(m: int, n: int = 6, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = 50 + 10 * (rng.normal(size=(m, 1)) @ rng.uniform(0.5, 1.0, size=(1, n)) + 0.5 * rng.normal(size=(m, n)))
    return pd.DataFrame(np.round(s, 1), index=[f"model {i:04d}" for i in range(m)])


def run_audit(m: int, n: int, lib: Path) -> dict:
    """One audit of ``one_factor(m, n)`` in a child process: seconds, per-section seconds, peak MB."""
    env = {**os.environ, "PYTHONPATH": str(lib)}
    code = CHILD.format(bench=str(ROOT / "bench"), m=m, n=n)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen([sys.executable, "-c", code], stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        out.seek(0)
        err.seek(0)
        if status != 0:
            why = f"killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else err.read().decode()[-300:]
            raise RuntimeError(f"audit of {m} x {n} failed: {why}")
        result = json.loads(out.read().decode().strip().splitlines()[-1])
    result["peak MB"] = usage.ru_maxrss / 1024  # kilobytes on Linux
    return result


def run_peers(m: int, n: int) -> dict:
    """Our Bradley-Terry and Copeland beside choix's and pref_voting's, in a child process (capped in time)."""
    code = PEERS.format(
        bench=str(ROOT / "bench"), m=m, n=n, choix_max=CHOIX_MAX_MODELS, pref_max=PREF_VOTING_MAX_MODELS
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "lib")}
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=PEER_SECONDS
        )
    except subprocess.TimeoutExpired:
        return {"peers": f"over {PEER_SECONDS} s"}
    if done.returncode != 0:
        return {"peers": f"failed: {done.stderr.strip()[-80:]}"}
    got = json.loads(done.stdout.strip().splitlines()[-1])
    return {k: round(v, 2) if isinstance(v, float) and not k.endswith("gap") else v for k, v in got.items()}


def old_library(rev: str, into: str) -> Path:
    """The ``lib`` directory at git revision ``rev``, extracted into ``into``."""
    archive = subprocess.run(["git", "archive", rev, "lib"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return Path(into) / "lib"


def exponent(models: list[int], values: list[float]) -> float:
    """Slope of log ``values`` against log ``models`` (least squares)."""
    return float(np.polyfit(np.log(models), np.log(values), 1)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="also audit 1,000 and 5,000 models with the library at this git revision")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="numbers of models (6 tasks)")
    parser.add_argument("--append", action="store_true", help="add this run's table to the results file")
    parser.add_argument("--no-peers", action="store_true", help="leave out choix and pref_voting")
    args = parser.parse_args()
    header = f"$ bench/scale.py {' '.join(sys.argv[1:])}   ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})"
    previous = RESULTS.read_text() + "\n" if args.append and RESULTS.exists() else ""
    sizes = [int(x) for x in args.sizes.split(",")]
    rows: list[dict] = []
    sections: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        old = old_library(args.before, tmp) if args.before else None
        for lib in [ROOT / "lib"] + ([old] if old is not None else []):
            run_audit(200, 6, lib)  # compiles the kernels into numba's cache (or loads them): untimed
        for m, n in [(m, 6) for m in sizes] + [(1000, 60)]:
            start = time.perf_counter()
            try:
                ours = run_audit(m, n, ROOT / "lib")
            except RuntimeError as err:  # killed (out of memory) or failed: say so and go on
                rows.append({"models": m, "tasks": n, "note": str(err)[:120]})
                write(rows, header, previous, sections)
                continue
            sections[f"{m} x {n}"] = {k: round(v, 2) for k, v in ours["sections"].items()}
            row = {
                "models": m,
                "tasks": n,
                "audit s": round(ours["total"], 2),
                "peak MB": round(ours["peak MB"]),
                "rankings s": round(ours["sections"]["rankings"], 2),
                "rankings share": f"{ours['sections']['rankings'] / ours['total']:.0%}",
                "slowest other": max((v, k) for k, v in ours["sections"].items() if k != "rankings")[1],
            }
            row["its s"] = round(ours["sections"][row["slowest other"]], 2)
            if not args.no_peers and n == 6 and m <= PEERS_MAX_MODELS:
                row.update(run_peers(m, n))
            if old is not None and n == 6 and m in COMPARED:
                before = run_audit(m, n, old)
                row["before s"] = round(before["total"], 2)
                row["before MB"] = round(before["peak MB"])
                row["before rankings s"] = round(before["sections"]["rankings"], 2)
                row["ratio"] = round(before["total"] / ours["total"], 1)
            print(row, f"({time.perf_counter() - start:.0f} s wall)", flush=True)
            rows.append(row)
            write(rows, header, previous, sections)


def write(rows: list[dict], header: str, previous: str = "", sections: dict | None = None) -> None:
    """The table so far, the growth exponents and the per-section seconds, printed and written to :data:`RESULTS`."""
    table = pd.DataFrame(rows)
    six = table[(table["tasks"] == 6) & table.get("audit s", pd.Series(dtype=float)).notna()]
    lines = [
        header,
        "Whole audit (defaults), one-factor tables rounded to 0.1, child process per audit, peak = ru_maxrss.",
        table.to_string(index=False),
    ]
    if len(six) > 1:
        models = list(six["models"])
        slope = {key: exponent(models, list(six[key])) for key in ("audit s", "peak MB", "rankings s")}
        lines.append(
            f"growth exponent over {len(six)} sizes x 6 tasks: time m^{slope['audit s']:.2f}, "
            f"peak memory m^{slope['peak MB']:.2f}, rankings m^{slope['rankings s']:.2f}"
        )
    if sections:
        lines += ["Seconds per section:", pd.DataFrame(sections).fillna("-").to_string()]
    text = "\n".join(lines) + "\n"
    print(text, flush=True)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(previous + text)


if __name__ == "__main__":
    main()
