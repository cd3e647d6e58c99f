"""benchvote.cli: the `benchvote audit` command, its two layouts, its bad-input table and its outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import benchvote as bv
from benchvote.cli import InputError, main, read_battle_log, read_scores
from benchvote.data import load

FAST = ["--n-boot", "100", "--time-limit", "3"]

WIDE = "model,t1,t2,t3\nA,0.9,0.3,5\nB,0.5,0.7,4\nC,0.4,0.2,\nD,0.1,0.9,3\n"


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- the bad-input table

BAD = {
    "no model column": ("board.csv", "t1,t2\n0.1,0.2\n0.3,0.4\n", [], "must hold the model names"),
    "non-numeric cell": ("board.csv", "model,t1,t2\nA,0.1,high\nB,0.3,0.4\n", [], "'high' is not a number"),
    "infinite cell": ("board.csv", "model,t1,t2\nA,0.1,inf\nB,0.3,0.4\n", [], "not a finite number"),
    "duplicate model": (
        "board.csv",
        "model,t1,t2\nA,0.1,0.2\nA,0.3,0.4\n",
        [],
        "model name appears more than once: A",
    ),
    "duplicate task": (
        "board.csv",
        "model,t1,t1\nA,0.1,0.2\nB,0.3,0.4\n",
        [],
        "task name appears more than once: t1",
    ),
    "one model": ("board.csv", "model,t1,t2\nA,0.1,0.2\n", [], "1 model; a ranking needs at least 2"),
    "one task": ("board.csv", "model,t1\nA,0.1\nB,0.3\n", [], "1 task; the audit needs at least 2"),
    "unknown lower-is-better task": (
        "board.csv",
        WIDE,
        ["--lower-is-better", "t3,t9"],
        "--lower-is-better: the table has no task named 't9' (read 't3,t9' as the list 't3', 't9')",
    ),
    "unknown higher-is-better task": ("board.csv", WIDE, ["--higher-is-better", "t0"], "no task named 't0'"),
    "lower and higher at once": (
        "board.csv",
        WIDE,
        ["--lower-is-better", "t1", "--higher-is-better", "t1"],
        "task 't1' is given to both --lower-is-better and --higher-is-better",
    ),
    "higher-is-better cost": (
        "board.csv",
        WIDE,
        ["--cost", "t3", "--higher-is-better", "t3"],
        "'t3' is a cost column (--cost), and costs are lower-is-better",
    ),
    "non-integer n-boot": ("board.csv", WIDE, ["--n-boot", "abc"], "argument --n-boot: invalid int value: 'abc'"),
    "non-number level": ("board.csv", WIDE, ["--level", "high"], "argument --level: invalid float value: 'high'"),
    "level zero": ("board.csv", WIDE, ["--level", "0"], "level must be > 0"),
    "negative n-boot": ("board.csv", WIDE, ["--n-boot", "-5"], "n_boot must be >= 1"),
    "unknown rule": ("board.csv", WIDE, ["--primary", "plurality"], "argument --primary: invalid choice: 'plurality'"),
    "unknown budget": ("board.csv", WIDE, ["--budget", "fast"], "argument --budget: invalid choice: 'fast'"),
    "unknown option": ("board.csv", WIDE, ["--colour", "red"], "unrecognized arguments: --colour red"),
    "marker not in --na-values": (
        "board.csv",
        "model,t1,t2\nA,0.1,N/A\nB,0.3,0.4\nC,0.2,0.5\n",
        ["--na-values", "NA,n.a."],
        "'N/A' is not a number",
    ),
    "html is a folder": ("board.csv", WIDE, ["--html", "."], "is a folder"),
    "script book url": ("board.csv", WIDE, ["--book-url", "javascript:alert(1)"], "--book-url must be an http(s)"),
    "ragged line": ("board.csv", "model,t1,t2\nA,0.1\nB,0.3,0.4\n", [], "line 2 has 2 cells"),
    "empty file": ("board.csv", "", [], "is empty"),
    "missing model name": ("board.csv", "model,t1,t2\n,0.1,0.2\nB,0.3,0.4\nC,0.5,0.1\n", [], "no model name"),
    "long without model": ("board.csv", "task,score\nt1,0.1\nt2,0.2\n", [], "needs a 'model' column"),
    "long repeated pair": (
        "board.csv",
        "model,task,score\nA,t1,0.1\nA,t1,0.2\nB,t1,0.3\nA,t2,0.1\nB,t2,0.4\n",
        [],
        "more than one score on task 't1'",
    ),
    "long unknown column": ("board.csv", "model,task,score,date\nA,t1,0.1,x\n", [], "unknown column date"),
    "instance hole": (
        "board.csv",
        "model,task,instance,score\nA,t1,1,1\nA,t1,2,0\nB,t1,1,1\nA,t2,1,1\nB,t2,1,0\n",
        [],
        "has no score on instance 2 of task t1",
    ),
    "every task constant": ("board.csv", "model,t1,t2\nA,1,2\nB,1,2\nC,1,2\n", [], "same score on t1, t2"),
    "bad option": ("board.csv", WIDE, ["--level", "1.5"], "level must be < 1"),
    "report folder missing": ("board.csv", WIDE, ["--html", "no/such/folder/r.html"], "does not exist"),
    "unknown cost column": (
        "board.csv",
        WIDE,
        ["--cost", "t3,params_M"],
        "--cost: the table has no column named 'params_M'",
    ),
    "costs leave one task": ("board.csv", WIDE, ["--cost", "t2", "--cost", "t3"], "two tasks besides the cost"),
    "unknown normalisation": (
        "board.csv",
        WIDE,
        ["--normalize", "log"],
        "--normalize must be one of none, zscore, minmax, rank or baseline:MODEL; got 'log'",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_exits_2_with_one_clear_line_and_no_report(case, tmp_path, capsys):
    name, text, extra, message = BAD[case]
    path = write(tmp_path, name, text)
    outputs = ["--json", str(tmp_path / "r.json")] + ([] if "--html" in extra else ["--html", str(tmp_path / "r.html")])
    fast = [] if "--n-boot" in extra else FAST
    status = main(["audit", str(path), *extra, *outputs, *fast])
    err = capsys.readouterr().err
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("benchvote audit: error: "), err
    assert message in lines[0]
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "r.html").exists()


def test_unreadable_files(tmp_path, capsys):
    assert main(["audit", str(tmp_path / "absent.csv")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["audit", str(tmp_path)]) == 2  # a folder
    assert "cannot read" in capsys.readouterr().err
    binary = tmp_path / "board.csv"
    binary.write_bytes(b"\xff\xfe\x00\x81garbage")
    assert main(["audit", str(binary)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_unknown_primary_rule_is_an_argparse_error(tmp_path, capsys):
    assert main(["audit", str(write(tmp_path, "b.csv", WIDE)), "--primary", "plurality"]) == 2
    assert "invalid choice: 'plurality'" in capsys.readouterr().err


def test_a_bad_option_value_prints_one_line_not_the_usage(tmp_path, capsys):
    """`--n-boot abc` printed argparse's usage (nine lines); the command prints one line and exits 2."""
    path = write(tmp_path, "b.csv", WIDE)
    for extra in (["--n-boot", "abc"], ["--top-k", "2.5"], ["--seed", "x"], ["--normalize"], []):
        assert main(["audit", *([str(path)] if extra else []), *extra]) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1 and err.startswith("benchvote audit: error: "), err
    assert main(["audit", "--help"]) == 0 and "usage:" in capsys.readouterr().out
    # the same in a process of its own, through `python -m benchvote`
    argv = [sys.executable, "-m", "benchvote", "audit", str(path), "--n-boot", "abc"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("benchvote audit: error: "), done.stderr


# --------------------------------------------------------------------------- report files: all or nothing


def test_html_and_json_given_one_path_exit_2_and_write_nothing(tmp_path, capsys):
    """The same path for both reports left only the JSON; now it is refused before anything runs."""
    path = write(tmp_path, "b.csv", WIDE)
    for same in ("r.out", "./r.out"):
        status = main(["audit", str(path), "--html", str(tmp_path / "r.out"), "--json", str(tmp_path / same), *FAST])
        err = capsys.readouterr().err
        assert status == 2 and "--html and --json name the same file" in err and len(err.splitlines()) == 1
        assert not (tmp_path / "r.out").exists()


def test_a_report_over_the_score_table_is_refused(tmp_path, capsys):
    path = write(tmp_path, "b.csv", WIDE)
    assert main(["audit", str(path), "--json", str(path), *FAST]) == 2
    assert "is the score table itself" in capsys.readouterr().err
    assert path.read_text() == WIDE


def test_when_the_json_cannot_be_written_the_html_is_not_written_either(tmp_path, capsys):
    """Exit 2 promises nothing written, but the HTML was written before the JSON failed."""
    path = write(tmp_path, "b.csv", WIDE)
    (tmp_path / "taken").mkdir()
    status = main(["audit", str(path), "--html", str(tmp_path / "r.html"), "--json", str(tmp_path / "taken"), *FAST])
    assert status == 2 and "is a folder" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_a_write_that_fails_midway_leaves_no_report_and_no_temporary_file(tmp_path, capsys, monkeypatch):
    import benchvote.cli as cli

    path = write(tmp_path, "b.csv", WIDE)
    (tmp_path / "r.html").write_text("the old report")
    real = cli._temporary

    def full_disk(target, text):
        if target.suffix == ".json":
            raise OSError(28, "No space left on device")
        return real(target, text)

    monkeypatch.setattr(cli, "_temporary", full_disk)
    status = main(["audit", str(path), "--html", str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json"), *FAST])
    assert status == 2 and "No space left on device" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.csv", "r.html"]
    assert (tmp_path / "r.html").read_text() == "the old report"
    monkeypatch.setattr(cli, "_temporary", real)
    assert (
        main(["audit", str(path), "--html", str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json"), *FAST]) == 0
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.csv", "r.html", "r.json"]
    assert json.loads((tmp_path / "r.json").read_text())["sections"]["table"]["n_models"] == 4
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


# --------------------------------------------------------------------------- missing markers, long names, commas


@pytest.mark.parametrize("marker", ["NA", "N/A", "n/a", "null", "NULL", "None", "-", "NaN", ""])
def test_common_missing_markers_are_missing_scores(marker, tmp_path):
    """`N/A`, `null`, `None` and `-` were refused while `NA` was read as missing."""
    wide, _ = read_scores(write(tmp_path, "w.csv", f"model,t1,t2\nA,0.9,{marker}\nB,0.5,0.7\n"))
    long, _ = read_scores(write(tmp_path, "l.csv", f"model,task,score\nA,t1,0.9\nA,t2,{marker}\nB,t1,1\nB,t2,2\n"))
    for scores in (wide, long):
        assert np.isnan(scores.loc["A", "t2"]) and int(scores.isna().sum().sum()) == 1


def test_na_values_replaces_the_markers(tmp_path, capsys):
    path = write(tmp_path, "w.csv", "model,t1,t2\nA,0.9,n.a.\nB,0.5,?\nC,0.3,0.2\nD,0.1,0.4\nE,0.2,0.7\n")
    scores, _ = read_scores(path, na_values=["n.a.", "?"])
    assert scores["t2"].isna().tolist() == [True, True, False, False, False]
    with pytest.raises(InputError, match="'n.a.' is not a number"):
        read_scores(path)
    with pytest.raises(InputError, match="'-' is not a number"):
        read_scores(write(tmp_path, "d.csv", "model,t1,t2\nA,0.9,-\nB,0.5,1\n"), na_values=[])
    assert main(["audit", str(path), "--na-values", "n.a.,?", "--json", str(tmp_path / "r.json"), *FAST]) == 0
    assert json.loads((tmp_path / "r.json").read_text())["sections"]["table"]["missing_cells"] == 2


def test_a_model_name_over_131072_characters_is_read(tmp_path):
    """The csv module's field limit (131,072 characters) crashed the reader (exit 1)."""
    long_name = "m" * 200_000
    text = f"model,t1,t2\n{long_name},0.9,0.1\nB,0.5,0.7\nC,0.1,0.3\nD,0.4,0.6\n"
    scores, _ = read_scores(write(tmp_path, "w.csv", text))
    assert list(scores.index) == [long_name, "B", "C", "D"]
    long, _ = read_scores(
        write(tmp_path, "l.csv", f"model,task,score\n{long_name},t1,1\n{long_name},t2,2\nB,t1,2\nB,t2,1\n")
    )
    assert long_name in long.index
    assert main(["audit", str(tmp_path / "w.csv"), "--json", str(tmp_path / "r.json"), *FAST]) == 0
    assert long_name in json.loads((tmp_path / "r.json").read_text())["sections"]["standings"]["ranking"]
    import csv

    assert csv.field_size_limit() == 131_072  # the reader leaves the module's limit as it found it


COMMAS = 'model,"latency, ms","cost, $",acc,f1\nA,10,1,0.9,0.8\nB,20,2,0.7,0.9\nC,15,3,0.8,0.6\nD,30,4,0.6,0.7\n'


def _directions(tmp_path, *options):
    path = tmp_path / "commas.csv"
    path.write_text(COMMAS)
    out = tmp_path / "r.json"
    assert main(["audit", str(path), *options, "--json", str(out), *FAST]) == 0
    report = json.loads(out.read_text())
    return report["sections"]["table"]["higher_is_better"], report["settings"]["costs"]


def test_names_with_commas_reach_lower_is_better_and_cost(tmp_path):
    """A task named with a comma could not be passed, and the error read as a contradiction."""
    hib, costs = _directions(tmp_path, "--lower-is-better", "latency, ms", "--cost", "cost, $")
    assert hib["latency, ms"] is False and hib["acc"] is True and costs == ["cost, $"]
    quoted = _directions(tmp_path, "--lower-is-better", '"latency, ms",f1', "--cost", '"cost, $"')
    assert quoted[0]["latency, ms"] is False and quoted[0]["f1"] is False and quoted[1] == ["cost, $"]


def test_lower_is_better_and_cost_are_repeatable_and_the_comma_list_still_works(tmp_path):
    repeated = _directions(tmp_path, "--lower-is-better", "acc", "--lower-is-better", "f1")
    listed = _directions(tmp_path, "--lower-is-better", "acc,f1")
    assert repeated == listed
    assert listed[0]["acc"] is False and listed[0]["f1"] is False and listed[0]["latency, ms"] is True


def test_an_unknown_name_is_named_with_how_the_value_was_read(tmp_path, capsys):
    path = tmp_path / "commas.csv"
    path.write_text(COMMAS)
    assert main(["audit", str(path), "--lower-is-better", "latency,ms", *FAST]) == 2
    err = capsys.readouterr().err
    assert "no task named 'latency'" in err and "read 'latency,ms' as the list 'latency', 'ms'" in err
    assert "'latency, ms'" in err  # the columns it could have meant


def test_lower_is_better_all_with_higher_is_better_exceptions(tmp_path):
    every = _directions(tmp_path, "--lower-is-better", "all")[0]
    assert not any(every.values())
    some = _directions(tmp_path, "--lower-is-better", "all", "--higher-is-better", "acc", "--higher-is-better", "f1")
    assert some == _directions(tmp_path, "--lower-is-better", "latency, ms", "--lower-is-better", "cost, $")
    assert some[0] == {"latency, ms": False, "cost, $": False, "acc": True, "f1": True}


# --------------------------------------------------------------------------- the two layouts


def test_wide_csv_tsv_and_long_read_the_same_table(tmp_path):
    board = load("SuperGLUE").scores
    board.to_csv(tmp_path / "w.csv")
    board.to_csv(tmp_path / "w.tsv", sep="\t")
    long = board.stack().rename("score").reset_index()
    long.columns = ["model", "task", "score"]
    long.sample(frac=1.0, random_state=0).to_csv(tmp_path / "l.csv", index=False)
    a, _ = read_scores(tmp_path / "w.csv")
    b, _ = read_scores(tmp_path / "w.tsv")
    c, _ = read_scores(tmp_path / "l.csv")
    assert np.array_equal(a.to_numpy(), board.to_numpy())
    assert a.equals(b)
    assert c.loc[a.index, a.columns].equals(a)


def test_empty_cells_are_missing_scores_not_zeros(tmp_path):
    scores, instances = read_scores(write(tmp_path, "b.csv", WIDE))
    assert instances is None and np.isnan(scores.loc["C", "t3"]) and int(scores.isna().sum().sum()) == 1
    long = write(tmp_path, "l.csv", "model,task,score\nA,t1,1\nA,t2,\nB,t1,2\nB,t2,3\n")
    scores, _ = read_scores(long)
    assert np.isnan(scores.loc["A", "t2"])


def test_instance_file_gives_task_means_and_an_instance_bootstrap(tmp_path):
    rng = np.random.default_rng(0)
    rows = [
        (m, t, q, float(rng.random() < p + 0.1 * k))
        for k, m in enumerate("ABCD")
        for t, p in (("t1", 0.3), ("t2", 0.5), ("t3", 0.2))
        for q in range(40)
    ]
    long = pd.DataFrame(rows, columns=["model", "task", "instance", "score"])
    long.to_csv(tmp_path / "inst.csv", index=False)
    scores, instances = read_scores(tmp_path / "inst.csv")
    assert scores.shape == (4, 3) and instances is not None
    assert np.allclose(scores.loc["B", "t2"], long.query("model == 'B' and task == 't2'")["score"].mean())
    assert (
        main(
            [
                "audit",
                str(tmp_path / "inst.csv"),
                "--json",
                str(tmp_path / "r.json"),
                "--primary",
                "mean_win_rate",
                *FAST,
            ]
        )
        == 0
    )
    report = json.loads((tmp_path / "r.json").read_text())
    section = report["sections"]["instance_intervals"]
    direct = bv.intervals.instance_rank_intervals(instances, n_boot=100)
    assert section["lower"] == {str(k): float(v) for k, v in direct.lower.items()}


# --------------------------------------------------------------------------- outputs


def test_json_to_stdout_is_the_only_output(tmp_path):
    path = write(tmp_path, "b.csv", WIDE)
    done = subprocess.run(
        [sys.executable, "-m", "benchvote", "audit", str(path), "--json", "-", *FAST],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0 and done.stderr == ""
    report = json.loads(done.stdout)
    assert report["sections"]["table"]["left_out_models"] == ["C"]
    assert report["sections"]["missing"]["ranking"]


def test_the_report_holds_the_library_numbers(tmp_path, capsys):
    board = load("SuperGLUE")
    board.scores.to_csv(tmp_path / "b.csv")
    args = ["--seed", "3", "--primary", "mean_win_rate"]
    assert main(["audit", str(tmp_path / "b.csv"), "--json", str(tmp_path / "r.json"), *args, *FAST]) == 0
    s = json.loads((tmp_path / "r.json").read_text())["sections"]
    scores = board.scores
    mwr = bv.mean_win_rate(scores)
    assert s["rankings"]["rules"]["mean_win_rate"]["scores"] == pytest.approx({str(k): v for k, v in mwr.items()})
    helm = bv.mean_win_rate(scores, convention="helm")
    assert s["rankings"]["rules"]["helm_win_rate"]["scores"] == pytest.approx({str(k): v for k, v in helm.items()})
    by_name = scores[sorted(scores.columns, key=str)]  # the audit reads the tasks in the order of their names
    iv = bv.intervals.rank_intervals(by_name, n_boot=100, seed=3)
    assert s["intervals"]["upper"] == {str(k): float(v) for k, v in iv.upper.items()}
    assert sorted(map(sorted, s["intervals"]["inseparable"])) == sorted(sorted(map(str, p)) for p in iv.inseparable)
    pw = bv.sensitivity.possible_winners(scores)
    assert sorted(s["possible_winners"]["possible"]) == sorted(str(m) for m in scores.index[pw.possible.to_numpy()])
    assert s["diversity"]["kendall_w"] == pytest.approx(bv.kendall_w(bv.rank(scores)))
    pca = bv.spectrum.benchmark_pca(scores, scale=True)  # the report standardises every task
    assert s["spectrum"]["explained"] == pytest.approx(list(np.asarray(pca.explained)))


def test_lower_is_better_is_the_same_as_negating(tmp_path):
    board = load("SuperGLUE").scores
    flipped = board.copy()
    task = board.columns[1]
    flipped[task] = -flipped[task]
    board.to_csv(tmp_path / "a.csv")
    flipped.to_csv(tmp_path / "b.csv")
    assert main(["audit", str(tmp_path / "a.csv"), "--json", str(tmp_path / "a.json"), *FAST]) == 0
    assert (
        main(["audit", str(tmp_path / "b.csv"), "--lower-is-better", task, "--json", str(tmp_path / "b.json"), *FAST])
        == 0
    )
    a = json.loads((tmp_path / "a.json").read_text())["sections"]
    b = json.loads((tmp_path / "b.json").read_text())["sections"]
    for side in (a, b):  # a negated task leaves the geometric mean's domain (positive scores)
        side["rankings"]["rules"].pop("geometric_mean")
        side["rankings"]["leaders"].pop("geometric_mean", None)
        side["rankings"]["kendall_distance"] = {}
    for name in ("rankings", "intervals", "possible_winners", "diversity", "domains"):
        assert a[name] == pytest.approx(b[name]) if name == "diversity" else a[name] == b[name], name
    assert b["table"]["higher_is_better"][task] is False


# --------------------------------------------------------------------------- reproducible files

SPARSE = (
    "model,t1,t2,t3,t4,params\n"
    "A,0.9,0.3,5,0.2,10\nB,0.5,0.7,4,0.1,20\nC,0.4,0.2,,0.6,5\nD,0.1,0.9,3,0.5,40\nE,0.8,0.4,2,,7\n"
    "F,0.3,0.6,1,0.4,12\n"
)


def test_two_processes_with_different_hash_seeds_write_byte_identical_files(tmp_path):
    """The JSON and the HTML hold no clock: same input, options and seed give the same bytes in two processes."""
    path = write(tmp_path, "b.csv", SPARSE)
    files = []
    for hash_seed in ("0", "12345"):
        out = tmp_path / hash_seed
        out.mkdir()
        done = subprocess.run(
            [sys.executable, "-m", "benchvote", "audit", str(path), "--cost", "params", "--quiet", *FAST]
            + ["--json", str(out / "r.json"), "--html", str(out / "r.html")],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
        assert done.returncode == 0, done.stderr
        files.append(((out / "r.json").read_bytes(), (out / "r.html").read_bytes()))
    assert files[0][0] == files[1][0]
    assert files[0][1] == files[1][1]
    assert b"seconds" not in files[0][0]


def test_timings_go_to_stderr_one_line_per_section_and_never_into_the_report(tmp_path, capsys):
    path = write(tmp_path, "b.csv", SPARSE)
    json_path = tmp_path / "r.json"
    assert main(["audit", str(path), "--json", str(json_path), "--timings", *FAST]) == 0
    captured = capsys.readouterr()
    report = json.loads(json_path.read_text())
    lines = captured.err.strip().splitlines()
    assert [line.split()[3] for line in lines] == list(report["sections"])
    for line in lines:
        assert line.startswith("benchvote audit: timing: ") and line.endswith(" s")
        assert float(line.split()[4]) >= 0
    assert captured.out == ""
    assert "seconds" not in json_path.read_text()
    assert main(["audit", str(path), "--json", str(json_path), *FAST]) == 0
    assert "timing" not in capsys.readouterr().err


def test_summary_and_html_when_asked(tmp_path, capsys):
    path = write(tmp_path, "b.csv", WIDE)
    assert main(["audit", str(path), "--html", str(tmp_path / "r.html"), *FAST]) == 0
    out = capsys.readouterr().out
    assert "4 models x 3 tasks" in out and "under the primary rule" in out and "can be ranked first" in out
    page = (tmp_path / "r.html").read_text()
    assert "<title>Audit of b.csv</title>" in page
    with pytest.raises(InputError):
        read_scores(write(tmp_path, "c.csv", "model,t1\nA,1\n"))


# --------------------------------------------------------------------------- stdout holds only the JSON

CHATTER = "HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();\n"
NOISY_SOLVER = f"""
import os, sys
import scipy.optimize as opt

def noisy(real):
    def solve(*args, **kwargs):
        os.write(1, {CHATTER!r}.encode())  # as HiGHS does from C++, past Python's sys.stdout
        os.write(2, {CHATTER!r}.encode())
        return real(*args, **kwargs)
    return solve

opt.milp, opt.linprog = noisy(opt.milp), noisy(opt.linprog)
from benchvote.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _integer_board(tmp_path, seed: int = 0):
    rng = np.random.default_rng(seed)
    board = pd.DataFrame(
        rng.integers(0, 10, size=(40, 15)),
        index=pd.Index([f"m{i}" for i in range(40)], name="model"),
        columns=[f"t{k}" for k in range(15)],
    )
    board.to_csv(tmp_path / "int.csv")
    return tmp_path / "int.csv"


def test_json_to_stdout_stays_json_when_the_solver_prints_from_native_code(tmp_path):
    path = _integer_board(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", NOISY_SOLVER, "audit", str(path), "--json", "-", "--n-boot", "50", "--time-limit", "1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["sections"]["possible_winners"]["k"] == 3
    assert "Highs" not in done.stderr


def test_json_to_stdout_on_a_table_that_makes_the_milp_work(tmp_path):
    path = _integer_board(tmp_path, seed=1)
    done = subprocess.run(
        [sys.executable, "-m", "benchvote", "audit", str(path), "--json", "-", "--n-boot", "50", "--time-limit", "0.5"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["sections"]["table"]["n_models"] == 40
    assert "Highs" not in done.stderr and "Highs" not in done.stdout


def test_with_json_to_stdout_and_html_the_summary_goes_to_stderr(tmp_path):
    path = write(tmp_path, "b.csv", WIDE)
    args = ["audit", str(path), "--json", "-", "--html", str(tmp_path / "r.html"), *FAST]
    done = subprocess.run([sys.executable, "-m", "benchvote", *args], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)
    assert "can be ranked first" in done.stderr


def _boom(*args, **kwargs):
    raise ValueError("boom")


def test_an_internal_error_in_a_section_writes_both_reports_exits_1_and_asks_for_a_bug_report(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr("benchvote.audit.sections.diversity.diversity", _boom)  # the diversity section calls it
    monkeypatch.delenv("BENCHVOTE_DEBUG", raising=False)
    path = write(tmp_path, "b.csv", WIDE)
    outputs = ["--json", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html")]
    assert main(["audit", str(path), *outputs, *FAST]) == 1
    err = capsys.readouterr().err
    assert "internal error in the diversity section" in err and "boom" in err and "bug" in err and "report it" in err
    assert "Traceback" not in err and "error: boom" not in err
    sections = json.loads((tmp_path / "r.json").read_text())["sections"]
    assert sections["diversity"]["status"] == "error" and "boom" in sections["diversity"]["error"]
    assert all(s["status"] == "ok" for name, s in sections.items() if name != "diversity")
    assert "This section failed" in (tmp_path / "r.html").read_text()
    monkeypatch.setenv("BENCHVOTE_DEBUG", "1")
    assert main(["audit", str(path), *outputs, *FAST]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_an_internal_error_is_not_reported_as_an_undefined_section(monkeypatch):
    monkeypatch.setattr("benchvote.audit.sections.diversity.diversity", _boom)
    board = load("SuperGLUE").scores
    a = bv.audit.audit(board, n_boot=20, time_limit=60)
    assert a.sections["diversity"]["status"] == "error" and a.failed == ["diversity"]
    assert isinstance(a.errors["diversity"], ValueError) and "boom" in a.sections["diversity"]["reason"]


def test_an_undefined_measure_is_still_reported_in_its_section(tmp_path, capsys):
    # model A wins everything: Bradley-Terry is undefined, reported as such, and the audit succeeds
    path = write(tmp_path, "b.csv", "model,t1,t2,t3\nA,9,9,9\nB,0.5,0.7,4\nC,0.4,0.2,3\nD,0.1,0.9,3\n")
    assert main(["audit", str(path), "--json", str(tmp_path / "r.json"), *FAST]) == 0
    rules = json.loads((tmp_path / "r.json").read_text())["sections"]["rankings"]["rules"]
    assert "not strongly connected" in rules["bradley_terry"]["undefined"]
    status = main(["audit", str(path), "--primary", "bradley_terry", "--json", str(tmp_path / "s.json"), *FAST])
    assert status == 2 and "primary rule bradley_terry is undefined" in capsys.readouterr().err
    assert not (tmp_path / "s.json").exists()


# --------------------------------------------------------------------------- --normalize and --cost

SIZES = (
    "model,acc,f1,mmlu,params_M\n"
    "tiny,0.30,0.25,0.28,1.5\nsmall,0.50,0.45,0.48,7\nmedium,0.65,0.60,0.62,13\n"
    "large,0.80,0.78,0.79,70\nbloated,0.60,0.55,0.58,70\nalso-ran,0.45,0.40,0.47,13\n"
)


def test_cost_and_normalize_reach_the_audit_and_the_summary(tmp_path, capsys):
    path = write(tmp_path, "sizes.csv", SIZES)
    out = tmp_path / "r.json"
    args = ["audit", str(path), "--lower-is-better", "params_M", "--json", str(out), "--html", str(tmp_path / "r.html")]
    assert main([*args, "--quiet", *FAST]) == 0
    s = json.loads(out.read_text())["sections"]
    assert s["rankings"]["rules"]["mean_score"]["ranks"]["tiny"] == 1.0  # params_M decides the mean score
    assert "--cost NAME" in s["units"]["suggestion"]
    assert main([*args, "--cost", "params_M", "--normalize", "zscore", *FAST]) == 0
    summary = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["settings"]["normalize"] == "zscore" and report["settings"]["costs"] == ["params_M"]
    s = report["sections"]
    assert s["rankings"]["rules"]["mean_score"]["ranks"]["large"] == 1.0
    assert s["rankings"]["rules"]["mean_score"]["label"] == "Mean score (zscore)"
    assert [e["model"] for e in s["pareto"]["front"]] == ["large", "medium", "small", "tiny"]
    assert "quality-cost front (params_M): large, medium, small and tiny" in summary
    page = (tmp_path / "r.html").read_text()
    assert '<section id="pareto"' in page


@pytest.mark.parametrize("instances", [False, True])
@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("costs", [[], ["params_M"]])
def test_the_progress_bar_counts_the_sections_the_audit_runs(instances, missing, costs):
    rng = np.random.default_rng(3)
    rows = [
        (f"m{i}", f"t{k}", q, float(rng.random() < 0.3 + 0.1 * i))
        for i in range(5)
        for k in range(3)
        for q in range(20)
    ]
    long = pd.DataFrame(rows, columns=["model", "task", "instance", "score"])
    scores, _ = bv.intervals.instance_table(long)
    scores["params_M"] = [1.0, 2.0, np.nan, 8.0, 16.0]  # a missing cost is not a missing score
    if missing:
        scores.loc["m1", "t0"] = np.nan
    if not costs:
        scores = scores.drop(columns="params_M")
    calls: list = []
    a = bv.audit.audit(
        scores, instances=long if instances else None, costs=costs, progress=calls.append, n_boot=20, time_limit=2
    )
    conditional = {"instance_intervals": instances, "missing": missing, "pareto": bool(costs), "groups": False}
    tables = [n for n, sec in bv.audit.SECTIONS.items() if "table" in sec.reads]
    expected = [n for n in tables if conditional.get(n, True) and n != "units"]
    assert [c.name for c in calls if c.name != "units"] == expected
    assert [c.name for c in calls] == list(a.sections)
    assert all(c.total == len(calls) for c in calls) and [c.index for c in calls] == list(range(len(calls)))


# --------------------------------------------------------------------------- --groups


def test_groups_file_reaches_the_audit(tmp_path):
    path = write(tmp_path, "b.csv", WIDE)
    groups = write(tmp_path, "g.csv", "task,group\nt1,easy\nt2,easy\nt3,hard\n")
    assert main(["audit", str(path), "--json", str(tmp_path / "r.json"), "--groups", str(groups), *FAST]) == 0
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["settings"]["groups"] == {"t1": "easy", "t2": "easy", "t3": "hard"}
    assert "groups" in report["sections"]


@pytest.mark.parametrize(
    "text, message",
    [
        (None, "--groups: no such file"),
        ("task,kind\nt1,a\n", "needs the columns task and group"),
        ("task,group\nt9,a\n", "--groups: the table has no task named 't9'"),
        ("task,group\nt1,a\nt1,b\n", "task 't1' is listed more than once"),
    ],
)
def test_a_bad_groups_file_exits_2_and_writes_nothing(tmp_path, capsys, text, message):
    path = write(tmp_path, "b.csv", WIDE)
    groups = tmp_path / "g.csv" if text is None else write(tmp_path, "g.csv", text)
    out = tmp_path / "r.json"
    assert main(["audit", str(path), "--json", str(out), "--groups", str(groups), *FAST]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and not out.exists()


def test_the_library_refuses_a_group_of_an_unknown_task():
    with pytest.raises(bv.audit.AuditInputError, match="groups name unknown task"):
        bv.audit.audit(load("SuperGLUE").scores, groups={"no such task": "g"}, n_boot=20, time_limit=2)


def test_book_url_links_each_section_to_its_chapter(tmp_path):
    path = write(tmp_path, "b.csv", SPARSE)
    out = tmp_path / "r.html"
    assert main(["audit", str(path), "--html", str(out), "--quiet", *FAST]) == 0
    assert "github.com" not in out.read_text() and "The book's chapter: <cite>" in out.read_text()
    assert main(["audit", str(path), "--html", str(out), "--book-url", "https://b.example/book", "--quiet", *FAST]) == 0
    assert '<a href="https://b.example/book/notebooks/missing.html">' in out.read_text()


# --------------------------------------------------------------------------- nothing can crash the audit


def test_a_board_where_two_models_share_no_task_is_audited(tmp_path, capsys):
    # before, the standings section raised and the command stopped with an internal error and no report
    path = write(tmp_path, "b.csv", "model,t1,t2,t3,t4\nA,1,3,,\nB,2,1,,\nC,,,1,5\nD,,,2,3\nE,5,2,4,1\n")
    out = tmp_path / "r.json"
    assert main(["audit", str(path), "--json", str(out), "--html", str(tmp_path / "r.html"), *FAST]) == 0
    st = json.loads(out.read_text())["sections"]["standings"]
    assert st["status"] == "ok" and st["incomparable_pairs"] == 4
    assert "internal error" not in capsys.readouterr().err


def test_scores_too_large_to_add_are_refused_in_one_line_naming_the_task(tmp_path, capsys):
    path = write(tmp_path, "b.csv", "model,small,huge\nA,1,1.7e308\nB,2,1.6e308\nC,3,-1.5e308\n")
    assert main(["audit", str(path), "--json", str(tmp_path / "r.json"), *FAST]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "huge" in err and "small" not in err
    assert not (tmp_path / "r.json").exists()


# --------------------------------------------------------------------------- battle logs

LOG = (
    "Model_A,model_b,Winner,conversation\n"
    + 'x,y,model_a,"one\nline"\ny,z,model_a,two\nz,x,model_a,three\nx,y,tie,four\ny,x,model_b,five\n' * 30
)


def test_a_battle_log_is_audited_by_its_sections_from_csv_and_parquet_alike(tmp_path, capsys):
    path = write(tmp_path, "log.csv", LOG)
    assert main(["audit", str(path), "--json", str(tmp_path / "a.json"), "--html", os.devnull, "--n-boot", "50"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("150 battles among 3 models, 30 ties\n- On 150 battles among 3 models, x has the highest")
    assert "not computed" not in out
    report = json.loads((tmp_path / "a.json").read_text())
    assert list(report["sections"]) == ["battles", "comparisons"] and report["settings"]["input"] == "battles"
    frame = pd.read_csv(path)
    frame.to_parquet(tmp_path / "log.parquet")
    frame.sample(frac=1, random_state=0).to_csv(tmp_path / "shuffled.tsv", sep="\t", index=False)
    for other in ("log.parquet", "shuffled.tsv"):
        assert main(["audit", str(tmp_path / other), "--json", str(tmp_path / "b.json"), "--n-boot", "50"]) == 0
        assert (tmp_path / "b.json").read_text() == (tmp_path / "a.json").read_text()


def test_a_battle_log_writes_its_ratings_table(tmp_path):
    path = write(tmp_path, "log.csv", LOG)
    assert main(["audit", str(path), "--table", str(tmp_path / "r.md"), "--n-boot", "50", "--quiet"]) == 0
    lines = (tmp_path / "r.md").read_text().splitlines()
    assert lines[0].startswith("| model | rating |") and lines[2].startswith("| x |") and len(lines) == 5


BAD_LOGS = {
    "unknown winner": (
        "model_a,model_b,winner\nx,y,model_a\ny,x,maybe\n",
        [],
        "1 row (first: 2) has an unknown winner",
    ),
    "playing itself and no winner": (
        "model_a,model_b,winner\nx,y,model_a\nx,x,b\ny,x,\n",
        [],
        "1 row (first: 2) has a model playing itself: x; battles: 1 row without a winner (first: 3)",
    ),
    "groups that never met": ("model_a,model_b,winner\nx,y,a\nu,v,b\n", [], "2 groups that never met"),
    "a table option": (
        LOG,
        ["--top-k", "2", "--cost", "x"],
        "battle log (model_a, model_b, winner), which has no tasks",
    ),
    "column twice": ("model_a,model_b,winner,MODEL_A\nx,y,a,z\n", [], "names the column model_a more than once"),
    "bad level": (LOG, ["--level", "0"], "level must be > 0"),
    "no winner at all": ("model_a,model_b,winner\nx,y,\ny,x,\n", [], "battles: 2 rows without a winner (first: 1, 2)"),
    "no rows": ("model_a,model_b,winner\n", [], "the battle log has no rows"),
}


@pytest.mark.parametrize("case", sorted(BAD_LOGS))
def test_a_bad_battle_log_exits_2_with_one_line_and_no_report(case, tmp_path, capsys):
    text, extra, message = BAD_LOGS[case]
    path = write(tmp_path, "log.csv", text)
    status = main(["audit", str(path), *extra, "--json", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("benchvote audit: error: "), err
    assert message in lines[0], lines[0]
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "r.html").exists()


def test_a_battle_log_reads_names_as_the_score_tables_do_and_parquet_columns_as_text(tmp_path):
    spaced = LOG.replace("\nx,y,", "\n x ,y,").replace("\ny,z,", "\ny, z,")
    outputs = []
    for name, text in (("plain.csv", LOG), ("spaced.csv", spaced)):
        path = write(tmp_path, name, text)
        assert main(["audit", str(path), "--json", str(tmp_path / f"{name}.json"), "--n-boot", "50"]) == 0
        outputs.append((tmp_path / f"{name}.json").read_text())
    assert outputs[0] == outputs[1]  # " x " is the model x
    codes = pd.DataFrame({"model_a": [1, 2, 3] * 20, "model_b": [2, 3, 1] * 20, "winner": ["a", "b", "tie"] * 20})
    codes["winner"] = codes["winner"].astype("category")
    codes.to_parquet(tmp_path / "codes.parquet")
    log = read_battle_log(tmp_path / "codes.parquet")
    assert log.model_a.tolist()[:3] == ["1", "2", "3"] and log.winner.tolist()[:3] == ["a", "b", "tie"]
    nested = pd.DataFrame({"model_a": [["x"]], "model_b": ["y"], "winner": ["a"]})
    nested.to_parquet(tmp_path / "nested.parquet")
    with pytest.raises(InputError, match="column model_a holds list<element: string>, not names or winners"):
        read_battle_log(tmp_path / "nested.parquet")
