"""Every table of the corpus of real leaderboards (data/corpus/, issue 37) through the real command.

For each table of the manifest, the command ``benchvote audit <file> --json ... --html ...`` runs once (its entry
point, :func:`benchvote.cli.main`, called with the command's arguments by two worker processes that share out the
tables), and again as ``python -m benchvote audit`` in a fresh process with another ``PYTHONHASHSEED`` where a work
budget ran out and on the largest table, with the
manifest's directions and costs, the default work-budget level (``--budget standard``, which keeps each audit to
seconds) and a small number of redraws (:data:`N_BOOT`).  The tests then check that it exits 0, that two runs
write byte-identical files, that no text slip reaches the JSON or the page, and re-derive core numbers
independently of benchvote: the mean score of every model of the complete part (pandas), the strict mean win
rate of the standings for a sample of models (each pair compared on the tasks both are scored on, counted
directly), and the board's own published aggregate where the manifest has one.

The audits run once per module (all of them up front, two child processes at a time), so the tests themselves
only read files.  Starting an interpreter and loading the library and its compiled kernels took about two CPU
seconds per audit, as much as most audits of the corpus; the two workers start once.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import corpus
import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
N_BOOT = 100
#: ``CORPUS_ONLY=id,id`` restricts the run to some tables (when working on one); unset in ``make test``.
ENTRIES = {e.id: e for e in corpus.load() if e.id in os.environ.get("CORPUS_ONLY", e.id).split(",")}
#: The wall-clock cap of the exact parts, far above their work budgets: the budgets, not the load of the machine,
#: decide every number (the default cap of 60 s is reached on a loaded machine, and then two runs differ).
TIME_LIMIT = 3600
#: Models whose standings score is re-derived per table (the first, the last and a spread in between).
SAMPLE = 12
#: Scores closer than this are a tie (the audit's default tolerance; real scores differ by far more).
TOL = 1e-9


def ids() -> list:
    return [pytest.param(name, id=name) for name in ENTRIES]


def command(entry: corpus.Entry, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "benchvote",
        "audit",
        str(entry.path),
        "--json",
        str(out / "report.json"),
        "--html",
        str(out / "report.html"),
        "--n-boot",
        str(N_BOOT),
        "--time-limit",
        str(TIME_LIMIT),
        "--quiet",
        *entry.cli_options(),
    ]


def run_once(entry: corpus.Entry, out: Path, hash_seed: str) -> subprocess.CompletedProcess:
    out.mkdir(parents=True)
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT / "lib")}
    return subprocess.run(command(entry, out), capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)


#: A worker: runs the command's entry point on one table after another (the JSON list of ``[name, arguments]`` in
#: ``argv[1]``), taking a table only if the other worker has not (an atomic ``mkdir`` in ``argv[2]``), and writes
#: the exit status, stdout and stderr of each in ``argv[3]``.
WORKER = """
import contextlib, io, json, os, sys, traceback
from benchvote.cli import main
done = {}
for name, arguments in json.loads(open(sys.argv[1], encoding="utf-8").read()):
    try:
        os.mkdir(os.path.join(sys.argv[2], name))
    except FileExistsError:
        continue
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(arguments)
        except BaseException:
            status = 1
            traceback.print_exc()
    done[name] = [status, out.getvalue(), err.getvalue()]
open(sys.argv[3], "w", encoding="utf-8").write(json.dumps(done))
"""


def run_all(names: list[str], base: Path, hash_seed: str) -> dict[str, subprocess.CompletedProcess]:
    """Each table once, in two worker processes that run the command's entry point (see :data:`WORKER`)."""
    base.mkdir(parents=True)
    (base / "claimed").mkdir()
    order = sorted(names, key=lambda name: -len(ENTRIES[name].scores()))  # most models first: the two end together
    jobs = []
    for name in order:
        (base / name).mkdir()
        jobs.append([name, command(ENTRIES[name], base / name)[3:]])  # the arguments after `python -m benchvote`
    (base / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT / "lib")}

    def worker(k: int) -> subprocess.CompletedProcess:
        argv = [sys.executable, "-c", WORKER, str(base / "jobs.json"), str(base / "claimed"), str(base / f"{k}.json")]
        return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=1800)

    with ThreadPoolExecutor(max_workers=2) as pool:
        workers = list(pool.map(worker, range(2)))
    failed = "".join(w.stderr for w in workers)  # what a worker that died printed, for its tables
    done = {name: subprocess.CompletedProcess(arguments, 1, "", failed) for name, arguments in jobs}
    for k in range(2):
        path = base / f"{k}.json"
        for name, (status, out, err) in json.loads(path.read_text("utf-8") if path.is_file() else "{}").items():
            done[name] = subprocess.CompletedProcess(done[name].args, status, out, err)
    return done


def stopped_by_a_budget(out: Path) -> bool:
    """Whether some section of the report in ``out`` ran out of its work budget (a search order could show there)."""
    path = out / "report.json"
    if not path.is_file():
        return True
    sections = json.loads(path.read_text(encoding="utf-8"))["sections"]
    return any(isinstance(v, dict) and v.get("stopped") for v in sections.values())


def largest(names) -> str:
    return max(names, key=lambda name: ENTRIES[name].scores().size)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple]:
    """Every table once; a second process for some: id -> (first, second or None, first folder, second folder).

    The second process, with another hash seed, runs on the tables where the first one ran out of a work budget
    (where a search order would show if it leaked into a result) and on the largest table; row-order and
    hash-seed independence on every kind of input is also tested on synthetic tables (tests/test_cli.py,
    tests/test_audit.py).  The whole corpus twice took five minutes of the two cores.
    """
    base = tmp_path_factory.mktemp("corpus")
    first = run_all(list(ENTRIES), base / "0", hash_seed="1")
    again = sorted({n for n in ENTRIES if stopped_by_a_budget(base / "0" / n)} | {largest(ENTRIES)})
    with ThreadPoolExecutor(max_workers=2) as pool:
        second = dict(zip(again, pool.map(lambda n: run_once(ENTRIES[n], base / "1" / n, hash_seed="5"), again)))
    return {name: (first[name], second.get(name), base / "0" / name, base / "1" / name) for name in ENTRIES}


def report(runs: dict, name: str) -> dict:
    first = runs[name][0]
    assert first.returncode == 0, f"{name}: exit {first.returncode}: {first.stderr.strip()[-400:]}"
    return json.loads((runs[name][2] / "report.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------- the manifest


def test_manifest_describes_every_table_completely():
    raw = corpus.manifest()
    assert len(raw) >= 25
    assert len({r["id"] for r in raw}) == len(raw)
    readme = (corpus.CORPUS / "README.md").read_text(encoding="utf-8")
    listed = {p.name for p in corpus.CORPUS.glob("*.csv")}
    named = set()
    for r in raw:
        assert {"id", "file", "domain", "source_repo", "source_path", "commit", "changes"} <= set(r), r["id"]
        assert re.fullmatch(r"[0-9a-f]{40}", r["commit"]), r["id"]
        assert r["changes"].strip(), r["id"]
        assert f"`{r['id']}`" in readme
        named |= {r["file"], r.get("published_file", r["file"])}
        if "published" in r:
            assert re.fullmatch(r"mean|weighted_mean|geometric_mean_relative:.+|column:.+|other:.+", r["published"])
    assert listed == named, "every CSV of data/corpus/ is a table or a published file of the manifest"
    assert sum(p.stat().st_size for p in corpus.CORPUS.iterdir()) < 5_000_000


@pytest.mark.parametrize("name", ENTRIES)
def test_manifest_options_name_columns_of_the_table(name):
    entry = ENTRIES[name]
    scores = entry.scores()
    assert scores.index.is_unique and scores.columns.is_unique
    assert set(entry.costs) <= set(scores.columns)
    assert set(entry.lower_is_better) <= set(scores.columns)
    tasks = entry.tasks()
    assert len(tasks) >= 3
    if entry.weights:
        assert set(entry.weights) == set(tasks) and all(w > 0 for w in entry.weights.values())
    published = entry.published_values()
    if published is not None:
        assert published.index.is_unique and set(published.index) <= set(scores.index)


# ---------------------------------------------------------------- the command on every table


@pytest.mark.slow  # the audits of the whole corpus: in make test, not in make test-fast
@pytest.mark.parametrize("name", ids())
def test_audit_exits_0_and_a_rerun_in_another_process_writes_identical_files(runs, name):
    first, second, a, b = runs[name]
    assert first.returncode == 0, f"exit {first.returncode}: {first.stderr.strip()[-400:]}"
    if second is None:
        return  # one process: see the fixture
    assert second.returncode == 0, f"exit {second.returncode}: {second.stderr.strip()[-400:]}"
    assert (a / "report.json").read_bytes() == (b / "report.json").read_bytes()
    assert (a / "report.html").read_bytes() == (b / "report.html").read_bytes()


#: Slips that must never reach a reader: (pattern, what it is).
SLIPS = [
    (re.compile(r"\bNone\b"), "Python None"),
    (re.compile(r"\b(nan|NaN|inf)\b"), "nan or inf in prose"),
    (re.compile(r"\(\s*\)"), "empty parentheses"),
    (re.compile(r"\.\.\.\."), "four dots"),
    (re.compile(r"\w\(s\)"), "'(s)' plural"),
    (re.compile(r"\b\w+=\["), "Python syntax (name=[...])"),
    (re.compile(r"(?<![\d.,])\b1 (pairs|models|tasks|cycles|comparisons|rules|redraws|places)\b"), "1 with a plural"),
]


#: Tags that start a new cell or block of the page: text on either side is not one phrase.
CELLS = ("td", "th", "tr", "li", "p", "div", "caption", "h1", "h2", "h3", "h4")


class _Text(HTMLParser):
    """The text a reader sees: everything outside <script> and <style>."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("script", "style")
        if tag in CELLS:  # a new cell or block is not the same sentence ("... missing scores | 1 | tasks ...")
            self.parts.append("\u00a6")

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def prose_of_json(value, out: list[str]) -> list[str]:
    if isinstance(value, dict):
        for v in value.values():
            prose_of_json(v, out)
    elif isinstance(value, list):
        for v in value:
            prose_of_json(v, out)
    elif isinstance(value, str) and " " in value.strip():
        out.append(value)
    return out


def without_names(text: str, names: list[str]) -> str:
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, "\u2022")
    return text


def slips_in(text: str, slips: list) -> list[str]:
    found = []
    for pattern, what in slips:
        for match in pattern.finditer(text):
            found.append(f"{what}: ...{text[max(0, match.start() - 50) : match.end() + 50]!r}...")
    return found


def texts(runs: dict, name: str) -> tuple[str, str]:
    """The prose of the JSON report and the text of the page, with every model and task name blanked out."""
    data = report(runs, name)
    scores = ENTRIES[name].scores()
    names = [str(n) for n in [*scores.index, *scores.columns]]
    prose = without_names("\n".join(prose_of_json({k: v for k, v in data.items() if k != "settings"}, [])), names)
    parser = _Text()
    parser.feed((runs[name][2] / "report.html").read_text(encoding="utf-8"))
    return prose, without_names(" ".join(parser.parts), names)


@pytest.mark.slow  # the audits of the whole corpus: in make test, not in make test-fast
@pytest.mark.parametrize("name", ids())
def test_report_has_no_text_slip(runs, name):
    prose, page = texts(runs, name)
    found = [f"JSON {s}" for s in slips_in(prose, SLIPS)] + [f"page {s}" for s in slips_in(page, SLIPS)]
    assert not found, "\n".join(found[:10])


# ---------------------------------------------------------------- core numbers, re-derived with pandas


def oriented(entry: corpus.Entry) -> pd.DataFrame:
    """The score columns with every lower-is-better column negated (larger is better everywhere)."""
    scores = entry.scores()[entry.tasks()]
    sign = pd.Series([-1.0 if t in entry.lower_is_better else 1.0 for t in scores.columns], index=scores.columns)
    return scores * sign


@pytest.mark.slow  # the audits of the whole corpus: in make test, not in make test-fast
@pytest.mark.parametrize("name", ids())
def test_mean_score_of_the_complete_part_matches_pandas(runs, name):
    data = report(runs, name)
    rankings = data["sections"]["rankings"]
    part = oriented(ENTRIES[name]).loc[rankings["models"], rankings["tasks"]]
    assert part.notna().all().all(), "the complete part has no missing cell"
    ours = pd.Series(rankings["rules"]["mean_score"]["scores"]).loc[part.index]
    assert np.allclose(ours.to_numpy(), part.mean(axis=1).to_numpy(), rtol=1e-12, atol=1e-12)


def strict_mean_win_rate(table: pd.DataFrame, model: str) -> float:
    """Share of (opponent, task) comparisons ``model`` wins, ties no win, each pair on the tasks both are scored on,
    averaged over the models it shares a task with and itself (a comparison it cannot win); on a table where every
    pair shares a task, that is every model (Zhang and Hardt's strict mean win rate)."""
    values = table.to_numpy(dtype=float)
    at = table.index.get_loc(model)
    mine, others = values[at], np.delete(values, at, axis=0)
    shared = ~np.isnan(mine) & ~np.isnan(others)  # the tasks each opponent shares with the model
    counts = shared.sum(axis=1)
    wins = (((mine - others) > TOL) & shared).sum(axis=1)
    comparable = counts > 0
    return float((wins[comparable] / counts[comparable]).sum()) / (int(comparable.sum()) + 1)


@pytest.mark.slow  # the audits of the whole corpus: in make test, not in make test-fast
@pytest.mark.parametrize("name", ids())
def test_standings_strict_mean_win_rate_matches_a_direct_count(runs, name):
    data = report(runs, name)
    standings = data["sections"]["standings"]
    assert standings["rule"] == "mean_win_rate", "the mean needs every cell: the standings use the win rate"
    table = oriented(ENTRIES[name]).loc[list(standings["scores"])]
    # a task on which every scored model has one score orders no pair: the audit sets it apart and says so
    constant = [t for t in table.columns if table[t].nunique() < 2]
    assert set(constant) <= set(data["sections"]["table"]["constant_tasks"])
    table = table.drop(columns=constant)
    ranking = standings["ranking"]
    picks = sorted({ranking[int(round(k))] for k in np.linspace(0, len(ranking) - 1, min(SAMPLE, len(ranking)))})
    for model in picks:
        assert standings["scores"][model] == pytest.approx(strict_mean_win_rate(table, model), abs=1e-12), model


def aggregate(entry: corpus.Entry) -> pd.Series | None:
    """The board's aggregate re-derived from the table, where the manifest's rule allows it."""
    scores = entry.scores()[entry.tasks()]
    if entry.published == "mean":
        return scores.mean(axis=1, skipna=False)
    if entry.published.startswith("column:"):
        return scores[entry.published.removeprefix("column:")]
    return None


@pytest.mark.parametrize(
    "name", [n for n, e in ENTRIES.items() if e.published_path is not None and aggregate(e) is not None]
)
def test_published_aggregate_is_re_derived_and_in_the_same_order(name):
    entry = ENTRIES[name]
    published = entry.published_values()
    ours = aggregate(entry).reindex(published.index).dropna()
    assert len(ours) >= 3
    printed = published.loc[ours.index]
    cells = entry.scores().loc[ours.index, entry.tasks()]
    # each printed number is within half a unit of its last digit; so is each task score the board averaged
    tolerance = 0.5 * 10.0 ** -decimals(printed) + 0.5 * 10.0 ** -decimals(cells.stack())
    assert (ours - printed).abs().max() <= tolerance + 1e-9
    # the board's order is ours wherever the rounding cannot have swapped two models
    ordered = printed.sort_values()
    for (a, x), (b, y) in zip(ordered.items(), list(ordered.items())[1:]):
        if y - x > 2 * tolerance:
            assert ours[a] < ours[b], (a, b)


def decimals(values: pd.Series) -> int:
    """The most decimals any of ``values`` is printed with (shortest round-trip form)."""
    return max(len(repr(float(v)).partition(".")[2].rstrip("0")) for v in values)
