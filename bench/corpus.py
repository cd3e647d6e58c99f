"""Time the audit of every table of the corpus of real leaderboards (data/corpus/, issue 37).

Each table is audited by the real command, ``python -m benchvote audit <file> --json <tmp>`` with the
manifest's directions and costs and otherwise the defaults (1,000 redraws), in a child process of its own:
the table gives its shape, the share of missing cells, the wall-clock seconds, the child's peak resident
memory (``os.wait4``'s ``ru_maxrss``) and the exit status (with the last line of stderr when it is not 0).
Writes bench/results/corpus.md.

Run:  make bench   (or .venv/bin/python bench/corpus.py [--n-boot N] [--only ID ...])
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))

import corpus  # noqa: E402  (the loader lives with the tests, which share it)

RESULTS = HERE / "results" / "corpus.md"


def audit_child(
    entry: corpus.Entry, out: Path, n_boot: int | None = None, lib: Path = ROOT / "lib", budget: str | None = None
) -> dict:
    """Run the command once on ``entry``; seconds (wall and CPU), peak memory (MB) and exit status of the child."""
    command = [sys.executable, "-m", "benchvote", "audit", str(entry.path), "--json", str(out), "--quiet"]
    command += entry.cli_options()
    if n_boot is not None:
        command += ["--n-boot", str(n_boot)]
    if budget is not None:
        command += ["--budget", budget]
    env = {**os.environ, "PYTHONPATH": str(lib)}
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    assert child.stderr is not None
    stderr = child.stderr.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    return {
        "seconds": seconds,
        "CPU s": usage.ru_utime + usage.ru_stime,  # all of the child's threads: less sensitive to a loaded machine
        "peak MB": usage.ru_maxrss / 1024,  # kilobytes on Linux
        "exit": child.returncode,
        "error": lines[-1][:160] if child.returncode and lines else "",
    }


def describe(entry: corpus.Entry) -> dict:
    scores = entry.scores()
    tasks = scores[entry.tasks()]
    return {
        "id": entry.id,
        "domain": entry.domain,
        "models": scores.shape[0],
        "tasks": tasks.shape[1],
        "costs": len(entry.costs),
        "missing %": round(100 * float(tasks.isna().to_numpy().mean()), 1),
        "complete models": int(tasks.notna().all(axis=1).sum()),
        "lower is better": "all" if len(entry.lower_is_better) == tasks.shape[1] else len(entry.lower_is_better),
    }


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-boot", type=int, default=None, help="redraws (default: the audit's own default)")
    parser.add_argument("--budget", default=None, help="work-budget level (default: the audit's own, standard)")
    parser.add_argument("--only", nargs="*", default=None, help="ids of the tables to audit (default: all)")
    parser.add_argument("--lib", type=Path, default=ROOT / "lib", help="the benchvote to run (default: lib/ here)")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for entry in corpus.load():
            if args.only and entry.id not in args.only:
                continue
            row = describe(entry) | audit_child(
                entry, Path(tmp) / f"{entry.id}.json", args.n_boot, args.lib, args.budget
            )
            print(
                f"{row['id']:<28} {row['models']:>5} x {row['tasks']:<4} {row['seconds']:7.1f} s "
                f"{row['CPU s']:6.1f} CPU s "
                f"{row['peak MB']:7.0f} MB  exit {row['exit']} {row['error']}",
                flush=True,
            )
            rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    with pd.option_context("display.width", 250, "display.max_colwidth", 90):
        print(table.drop(columns=["domain"]).to_string(index=False, float_format="{:.1f}".format))
    if args.only is None and args.lib == ROOT / "lib":
        n_boot = "the audit's default redraws" if args.n_boot is None else f"--n-boot {args.n_boot}"
        budget = "the default work-budget level (standard)" if args.budget is None else f"--budget {args.budget}"
        head = (
            "# The corpus of real leaderboards: one audit per table\n\n"
            f"`bench/corpus.py`: `python -m benchvote audit` on each table of `data/corpus/` with the manifest's "
            f"directions and costs, {n_boot}, {budget}, one child process per table at a time (peak = the child's "
            "maximum resident memory; CPU s = its user and system time, all threads). "
            f"Total {table['seconds'].sum():.0f} s wall, {table['CPU s'].sum():.0f} s CPU; "
            f"load average {os.getloadavg()[0]:.1f} at the end of the run "
            "(a shared 2-core machine: wall seconds grow with the load, CPU seconds much less).\n\n"
        )
        RESULTS.write_text(head + table.to_markdown(index=False, floatfmt=".1f") + "\n", encoding="utf-8")
    return table


if __name__ == "__main__":
    main()
