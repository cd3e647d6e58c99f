"""benchvote._items: long item tables read by pyarrow into compact per-task arrays, checked like the plain reader."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchvote import cli
from benchvote._items import Items, as_items
from benchvote.audit import audit
from benchvote.cli import InputError, main, read_scores
from benchvote.intervals import instance_table

FAST = ["--n-boot", "60", "--time-limit", "60", "--seed", "3"]
MISSING = {"", *(v.lower() for v in cli.NA_VALUES)}


def _long(models=("A", "B", "C", "D"), tasks=("t1", "t2", "t3"), items=12, seed=0, graded=False) -> pd.DataFrame:
    """Right/wrong (or graded, in eighths) item scores, in sorted order of model, task and item names."""
    rng = np.random.default_rng(seed)
    rows = [
        (m, t, f"q{q:02d}", float(rng.integers(0, 9) / 8 if graded else rng.random() < 0.3 + 0.1 * k))
        for k, m in enumerate(models)
        for t in tasks
        for q in range(items)
    ]
    return pd.DataFrame(rows, columns=["model", "task", "instance", "score"])


def _oracle(long: pd.DataFrame) -> tuple[dict, dict]:
    """Task -> model -> list of scores in item-name order, and the task means, by plain loops over the rows."""
    cells: dict = {}
    for m, t, q, s in long.itertuples(index=False):
        cells.setdefault(t, {}).setdefault(m, {})[q] = s
    blocks, means = {}, {}
    for t, by_model in cells.items():
        blocks[t] = {m: [by_item[q] for q in sorted(by_item)] for m, by_item in by_model.items()}
        means[t] = {m: sum(v) / len(v) for m, v in blocks[t].items()}
    return blocks, means


def _write(tmp_path, long: pd.DataFrame, name: str = "items.csv"):
    path = tmp_path / name
    if name.endswith(".parquet"):
        long.to_parquet(path, index=False)
    else:
        long.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_the_reader_gives_the_oracles_table_and_blocks(tmp_path, graded, suffix):
    long = _long(graded=graded).sample(frac=1.0, random_state=1)
    scores, items = read_scores(_write(tmp_path, long, f"items.{suffix}"))
    assert isinstance(items, Items)
    blocks, means = _oracle(long)
    assert list(scores.index) == sorted(long["model"].unique()) and list(scores.columns) == sorted(blocks)
    for t, by_model in blocks.items():
        for r, m in enumerate(scores.index):
            assert items.blocks[t][r].tolist() == by_model[m]
            assert scores.loc[m, t] == means[t][m]
    plain_table, plain_blocks = instance_table(long)  # the pandas path kept for DataFrames
    order = [list(plain_table.index).index(m) for m in scores.index]
    for t in blocks:
        assert np.array_equal(plain_blocks[t][order], items.blocks[t])
    assert plain_table.loc[scores.index, scores.columns].equals(scores)


def test_csv_and_parquet_agree_and_right_wrong_items_are_bytes(tmp_path):
    long = _long()
    a_scores, a = read_scores(_write(tmp_path, long, "items.csv"))
    b_scores, b = read_scores(_write(tmp_path, long, "items.parquet"))
    assert a_scores.equals(b_scores)
    assert isinstance(a, Items) and isinstance(b, Items)
    for t in a.tasks:
        assert a.blocks[t].dtype == np.uint8 and b.blocks[t].dtype == np.uint8
        assert np.array_equal(a.blocks[t], b.blocks[t]) and list(a.labels[t]) == list(b.labels[t])


@pytest.mark.parametrize(
    ("scores", "dtype"), [((0.0, 1.0), np.uint8), ((0.5, 0.25), np.float32), ((0.1, 1.0), np.float64)]
)
def test_the_dtype_is_the_smallest_that_holds_the_scores_exactly(tmp_path, scores, dtype):
    long = _long()
    long["score"] = np.where(long["score"] > 0, scores[0], scores[1])
    table, items = read_scores(_write(tmp_path, long))
    assert isinstance(items, Items) and {b.dtype for b in items.blocks.values()} == {np.dtype(dtype)}
    assert np.allclose(
        table.to_numpy(), instance_table(long)[0].loc[table.index, table.columns].to_numpy(), rtol=0, atol=0
    )


def test_a_model_without_a_task_has_a_row_of_nan(tmp_path):
    long = _long()
    long = long[~((long["model"] == "D") & (long["task"] == "t2"))]
    table, items = read_scores(_write(tmp_path, long))
    assert isinstance(items, Items)
    assert np.isnan(table.loc["D", "t2"]) and np.isnan(items.blocks["t2"][3]).all()
    assert items.blocks["t2"].dtype == np.float32 and items.blocks["t1"].dtype == np.uint8
    kept = as_items(items, ["A", "B", "C"], ["t1", "t2"])
    assert list(kept.models) == ["A", "B", "C"] and list(kept.tasks) == ["t1", "t2"]
    assert not np.isnan(kept.blocks["t2"]).any()


def _bad(long: pd.DataFrame, change: str) -> str:
    text = long.to_csv(index=False)
    lines = text.splitlines()
    if change == "no score":
        lines[5] = lines[5].rsplit(",", 1)[0] + ",NA"
    elif change == "marker":
        lines[7] = lines[7].rsplit(",", 1)[0] + ",missing"
    elif change == "not a number":
        lines[9] = lines[9].rsplit(",", 1)[0] + ",high"
    elif change == "not finite":
        lines[9] = lines[9].rsplit(",", 1)[0] + ",inf"
    elif change == "no model name":
        lines[4] = "," + lines[4].split(",", 1)[1]
        lines[8] = lines[8].rsplit(",", 1)[0] + ",x"  # a later bad score: the first problem in file order wins
    elif change == "no task name":
        first, _, rest = lines[6].split(",", 2)
        lines[6] = f"{first},,{rest}"
    elif change == "repeated":
        lines.insert(20, lines[3].rsplit(",", 1)[0] + ",1.0")
    elif change == "hole":
        del lines[14]
    return "\n".join(lines) + "\n"


CHANGES = ["no score", "marker", "not a number", "not finite", "no model name", "no task name", "repeated", "hole"]


@pytest.mark.parametrize("change", CHANGES)
def test_every_refusal_is_the_plain_readers_line_and_exit_2(tmp_path, capsys, change):
    path = tmp_path / "items.csv"
    path.write_text(_bad(_long(), change), encoding="utf-8")
    extra = ["--na-values", "missing"] if change == "marker" else []
    missing = {"", "missing"} if change == "marker" else MISSING
    with pytest.raises(InputError) as plain:
        cli._plain(path, missing)  # the csv module's reader, the oracle of the messages
    with pytest.raises(InputError) as fast:
        cli._columnar(path, missing)
    assert str(fast.value) == str(plain.value)
    assert main(["audit", str(path), "--json", str(tmp_path / "r.json"), *extra, *FAST]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [f"benchvote audit: error: {plain.value}"]
    assert not (tmp_path / "r.json").exists()


def test_parquet_refusals_name_the_problem(tmp_path, capsys):
    long = _long()
    twice = pd.concat([long, long.iloc[[5]]], ignore_index=True)
    assert main(["audit", str(_write(tmp_path, twice, "twice.parquet")), *FAST]) == 2
    assert "model A, task t1, instance q05 has more than one score" in capsys.readouterr().err
    assert main(["audit", str(_write(tmp_path, long.drop(columns="instance"), "no.parquet")), *FAST]) == 2
    assert "a Parquet file must hold a long table" in capsys.readouterr().err
    (tmp_path / "broken.parquet").write_bytes(b"not parquet")
    assert main(["audit", str(tmp_path / "broken.parquet"), *FAST]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_names_with_line_breaks_take_the_plain_reader(tmp_path):
    long = _long()
    long["model"] = long["model"].replace({"A": "A\u2028x"})
    path = _write(tmp_path, long)
    assert cli._columnar(path, MISSING) is None  # the csv module reads it, as it did


def _json(tmp_path, long: pd.DataFrame, name: str) -> bytes:
    report = tmp_path / f"{name}.json"
    assert main(["audit", str(_write(tmp_path, long, f"{name}.csv")), "--json", str(report), *FAST]) == 0
    return report.read_bytes()


def test_row_order_does_not_change_the_report(tmp_path):
    long = _long()
    first = _json(tmp_path, long, "sorted")
    assert _json(tmp_path, long.sample(frac=1.0, random_state=7), "shuffled") == first
    parquet = tmp_path / "r.json"
    assert main(["audit", str(_write(tmp_path, long, "sorted.parquet")), "--json", str(parquet), *FAST]) == 0
    ours, theirs = json.loads(parquet.read_text()), json.loads(first)
    assert ours["sections"] == theirs["sections"]


def test_the_audit_of_the_items_is_the_audit_of_the_long_dataframe(tmp_path):
    long = _long()
    scores, items = read_scores(_write(tmp_path, long))
    new = audit(scores, instances=items, n_boot=60, seed=3)
    old = audit(instance_table(long)[0], instances=long, n_boot=60, seed=3)
    assert new.to_json() == old.to_json()
