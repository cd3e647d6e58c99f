"""Issue 39: auditing item-level leaderboards of 10 and 100 million rows, our columnar reader beside pandas'.

Data (seeded, :func:`generate`): a Rasch item-response model.  Model ``m``
has an ability ``theta_m ~ N(0, 1)``, item ``j`` of task ``t`` a difficulty
``b_tj ~ N(0, 1.5^2)`` plus a task shift ``N(0, 0.5^2)``, and the model gets
the item right (score 1, else 0) with probability
``1 / (1 + exp(b_tj - theta_m))``, independently.  The long table
(``model, task, instance, score``, one row per model, task and item) is
written as CSV and as Parquet in a temporary directory, task by task.

Each audit runs ``benchvote audit FILE --json ... --timings`` (the command
line, the audit's defaults) in a child process; the parent reads the child's
peak memory from ``os.wait4`` (``ru_maxrss``) and its per-section seconds
from ``--timings``.  Beside it, in the same run, the reference path: a child
that reads the same file with pandas' default reader (``pandas.read_csv`` /
``read_parquet``), pivots it per task as the library did before the columnar
reader (:meth:`benchvote._items.Items.from_frame`, the plain path kept), and
runs the same audit with the long DataFrame as ``instances`` (so the section
filters and pivots again, as before).  The machine is shared: the load
average is printed beside every timing.

Targets (2 cores): 100 x 10 x 10,000 = 10 million rows <= 45 s and <= 2 GB;
1,000 x 10 x 10,000 = 100 million rows of Parquet <= 5 minutes and <= 8 GB.

Run:  .venv/bin/python bench/items.py [--sizes 100x10x10000,1000x10x10000] [--no-pandas]
(run ``scripts/warm_kernels.py`` first).  The table goes to ``bench/results/items.txt``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "items.txt"
SEED = 39
#: The sizes (models, tasks, items per task); the largest is audited from Parquet only.
SIZES = ((100, 10, 10_000), (1000, 10, 10_000))
#: Above this many rows: Parquet only, and no pandas reference (its object columns would not fit the target).
CSV_MAX_ROWS = 20_000_000

REFERENCE = """
import json, sys, time
import pandas as pd
from benchvote._items import Items
from benchvote.audit import audit
path = sys.argv[1]
start = time.perf_counter()
long = pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
long["instance"] = long["instance"].astype(str)
table = Items.from_frame(long).table()  # the pivot per task, as instance_table did before the columnar reader
read = time.perf_counter() - start
report = audit(table, instances=long)
print(json.dumps({"read": read, "timings": report.timings}))
"""


def generate(folder: Path, models: int, tasks: int, items: int, seed: int = SEED) -> tuple[Path, Path | None]:
    """Write the Rasch table as Parquet (and as CSV up to :data:`CSV_MAX_ROWS` rows), task by task."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, models)
    model_names = pa.array([f"m{k:04d}" for k in range(models)])
    item_names = pa.array([f"q{k:05d}" for k in range(items)])
    schema = pa.schema(
        [("model", pa.dictionary(pa.int32(), pa.string())), ("task", pa.string()),
         ("instance", pa.dictionary(pa.int32(), pa.string())), ("score", pa.uint8())]
    )  # fmt: skip
    parquet = folder / f"items_{models}x{tasks}x{items}.parquet"
    csv = folder / f"items_{models}x{tasks}x{items}.csv" if models * tasks * items <= CSV_MAX_ROWS else None
    with pq.ParquetWriter(parquet, schema) as pw:
        csv_writer = pacsv.CSVWriter(csv, schema) if csv else None
        for t in range(tasks):
            b = rng.normal(0.0, 1.5, items) + rng.normal(0.0, 0.5)
            right = rng.random((models, items)) < 1.0 / (1.0 + np.exp(b[None, :] - theta[:, None]))
            rows, cols = np.arange(models, dtype=np.int32), np.arange(items, dtype=np.int32)
            chunk = pa.table(
                {
                    "model": pa.DictionaryArray.from_arrays(np.repeat(rows, items), model_names),
                    "task": pa.array([f"t{t:02d}"] * (models * items)),
                    "instance": pa.DictionaryArray.from_arrays(np.tile(cols, models), item_names),
                    "score": pa.array(right.ravel().astype(np.uint8)),
                },
                schema=schema,
            )
            pw.write_table(chunk)
            if csv_writer:
                csv_writer.write_table(chunk.cast(pa.schema([(n, pa.string()) for n in schema.names])))
        if csv_writer:
            csv_writer.close()
    return parquet, csv


def _child(command: list[str]) -> tuple[float, float, float, int, str, str]:
    """Run a child; its wall seconds, peak MB (ru_maxrss), CPU seconds, exit status, stdout and stderr."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "lib")}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=ROOT)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime
        return seconds, usage.ru_maxrss / 1024, cpu, code, out.read().decode(), err.read().decode()


def ours(path: Path, folder: Path) -> dict:
    """``benchvote audit`` on the file: wall seconds, peak MB, per-section seconds."""
    report = folder / "report.json"
    command = [sys.executable, "-m", "benchvote", "audit", str(path), "--json", str(report), "--timings", "--quiet"]
    load = os.getloadavg()[0]
    seconds, peak, cpu, code, _, err = _child(command)
    if code != 0:
        raise RuntimeError(f"benchvote audit exited {code}: {err[-2000:]}")
    timings = {}
    for line in err.splitlines():
        if line.startswith("benchvote audit: timing: "):
            name, value, _ = line.removeprefix("benchvote audit: timing: ").rsplit(" ", 2)
            timings[name] = float(value)
    return {"seconds": seconds, "peak": peak, "cpu": cpu, "load": load, "timings": timings}


def reference(path: Path) -> dict:
    """Pandas' default reader and the old per-task pivot, then the same audit, in a child process."""
    load = os.getloadavg()[0]
    seconds, peak, cpu, code, out, err = _child([sys.executable, "-c", REFERENCE, str(path)])
    if code != 0:
        return {"seconds": seconds, "peak": peak, "load": load, "failed": err.strip().splitlines()[-1:]}
    result = json.loads(out.strip().splitlines()[-1])
    return {"seconds": seconds, "peak": peak, "cpu": cpu, "load": load, "timings": result["timings"]}


def _line(size: str, fmt: str, reader: str, r: dict) -> str:
    audit = sum(r.get("timings", {}).values())
    if "failed" in r:
        return f"{size:>16}  {fmt:<8} {reader:<18} failed after {r['seconds']:.0f} s: {r['failed']}"
    return (
        f"{size:>16}  {fmt:<8} {reader:<18} {r['seconds']:8.1f} {r['cpu']:8.1f} {r['peak'] / 1024:8.2f} "
        f"{audit:9.1f} {r['seconds'] - audit:9.1f} {r['load']:6.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join("x".join(map(str, s)) for s in SIZES))
    parser.add_argument("--no-pandas", action="store_true", help="leave out the pandas reference")
    args = parser.parse_args()
    sizes = [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",")]
    head = f"{'models x tasks x items':>16}  {'format':<8} {'reader':<18} {'wall s':>8} {'cpu s':>8} {'peak GB':>8} "
    head += f"{'audit s':>9} {'rest s':>9} {'load1':>6}"
    lines = [head, "-" * len(head)]
    slowest: list[str] = []
    for models, tasks, items in sizes:
        folder = Path(tempfile.mkdtemp(prefix="bench-items-"))
        try:
            start = time.perf_counter()
            parquet, csv = generate(folder, models, tasks, items)
            size = f"{models}x{tasks}x{items}"
            print(f"{size}: generated in {time.perf_counter() - start:.0f} s", file=sys.stderr)
            for fmt, path in (("csv", csv), ("parquet", parquet)):
                if path is None:
                    continue
                r = ours(path, folder)
                lines.append(_line(size, fmt, "benchvote (arrow)", r))
                print(lines[-1], file=sys.stderr)
                top = sorted(r["timings"].items(), key=lambda kv: -kv[1])[:4]
                slowest.append(f"{size} {fmt}: " + ", ".join(f"{n} {s:.1f} s" for n, s in top))
                if not args.no_pandas and models * tasks * items <= CSV_MAX_ROWS:
                    lines.append(_line(size, fmt, "pandas + pivot", reference(path)))
                    print(lines[-1], file=sys.stderr)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    text = "\n".join(
        [
            "Item-level audits (bench/items.py): wall seconds, CPU seconds (user + system, ru_utime + ru_stime)",
            "and peak memory (ru_maxrss) of the child process; on a shared machine CPU s is the steadier measure;",
            "audit s = the sections' seconds (--timings), rest s = start-up, reading and pivoting;",
            "load1 = the load average when the child started.",
            f"{os.cpu_count()} cores, shared with other sessions.",
            "",
            *lines,
            "",
            "Slowest sections (ours):",
            *slowest,
        ]
    )
    RESULTS.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
