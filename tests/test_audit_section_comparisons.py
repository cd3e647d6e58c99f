"""benchvote.audit.sections.comparisons: paired tests, simultaneous rank sets and tiers, on items or on tasks."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from audit_support import FAST, instance_scores, normal_board, section_html
from corpus import load
from scipy.stats import binomtest

import benchvote as bv
from benchvote.audit import SECTIONS, audit
from benchvote.audit._prepare import check_options, prepare
from benchvote.audit.sections import comparisons as section


def dominated_board(n_tasks: int, m: int = 2) -> pd.DataFrame:
    """Model 0 beats model 1 on every task, model 1 beats model 2, ...: the clearest order n tasks can show."""
    rng = np.random.default_rng(4)
    base = rng.random(n_tasks)
    return pd.DataFrame(
        [base + (m - i) for i in range(m)],
        index=[f"model {i}" for i in range(m)],
        columns=[f"t{k}" for k in range(n_tasks)],
    )


def graded_instances(m: int = 4, n_items: int = 40, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [
        (f"m{i}", f"t{k}", q, float(np.round(rng.random() * 0.5 + 0.15 * i, 3)))
        for i in range(m)
        for k in range(2)
        for q in range(n_items)
    ]
    return pd.DataFrame(rows, columns=["model", "task", "instance", "score"])


# --------------------------------------------------------------------------- the JSON


def check_types(c: dict) -> None:
    assert c["status"] == "ok"
    assert c["unit"] in ("items", "tasks") and isinstance(c["method"], str) and isinstance(c["level"], float)
    models = c["order"]
    assert set(c["rank_sets"]) == set(models) == {m for tier in c["tiers"] for m in tier}
    assert [m for tier in c["tiers"] for m in tier] == models  # tiers cut the comparison's order
    for lo, hi in c["rank_sets"].values():
        assert isinstance(lo, int) and isinstance(hi, int) and 1 <= lo <= hi <= len(models)
    assert len(c["pairs"]) == len(models) * (len(models) - 1) // 2
    for p in c["pairs"]:
        assert set(p) == {"a", "b", "diff", "ci", "simultaneous", "p", "p_adjusted", "test"}
        assert p["simultaneous"][0] <= p["diff"] <= p["simultaneous"][1]
        assert isinstance(p["a"], str) and isinstance(p["b"], str) and p["test"] == c["test"]
        assert len(p["ci"]) == 2 and p["ci"][0] <= p["ci"][1] and -1 <= p["diff"] <= 1 or c["test"] == "permutation"
        assert 0 <= p["p"] <= p["p_adjusted"] <= 1
    json.dumps(c, allow_nan=False)


def test_task_level_fields_are_the_library_rank_sets_of_the_sign_test():
    s = normal_board(m=7, n=12)
    a = audit(s, seed=3, **FAST)
    c = a.sections["comparisons"]
    check_types(c)
    assert c["unit"] == "tasks" and c["test"] == "sign" and c["method"] == "holm" and c["tasks"] == {}
    order = a.results["order"]
    r = bv.comparisons.rank_sets(
        s.loc[list(order)], test="sign", method="holm", level=0.95, n_boot=100,
        n_resamples=section.N_RESAMPLES, seed=3,
    )  # fmt: skip
    assert c["rank_sets"] == {str(m): [int(lo), int(hi)] for m, lo, hi in zip(r.models, r.lowest, r.highest)}
    assert c["tiers"] == r.tiers
    frame = r.comparisons.frame()
    assert [p["p_adjusted"] for p in c["pairs"]] == frame["p_adjusted"].tolist()
    assert [[p["a"], p["b"]] for p in c["pairs"]] == frame[["a", "b"]].to_numpy().tolist()


def test_item_level_pools_the_tasks_and_compares_each_task_on_its_items():
    scores, long = instance_scores([f"m{i}" for i in range(6)])
    a = audit(scores, instances=long, seed=5, **FAST)
    c = a.sections["comparisons"]
    check_types(c)
    assert c["unit"] == "items" and c["test"] == "mcnemar" and c["method"] == "holm" and c["n_columns"] == 90
    _, blocks = bv.intervals.instance_table(long)
    order = a.sections["rankings"]["ranking"]
    rows = [list(scores.index).index(m) for m in order]
    options = dict(level=0.95, n_boot=100, n_resamples=section.N_RESAMPLES, seed=5)
    for t in ("t0", "t1", "t2"):
        r = bv.comparisons.rank_sets(pd.DataFrame(blocks[t][rows], index=order), **options)
        assert c["tasks"][t]["rank_sets"] == {m: [int(lo), int(hi)] for m, lo, hi in zip(order, r.lowest, r.highest)}
        assert c["tasks"][t]["tiers"] == r.tiers and c["tasks"][t]["n_items"] == 30
    pooled = np.hstack([blocks[t][rows] for t in ("t0", "t1", "t2")])  # equal sizes, no weights: the items as they are
    r = bv.comparisons.rank_sets(pd.DataFrame(pooled, index=order), **options)
    assert c["tiers"] == r.tiers and [p["p"] for p in c["pairs"]] == r.comparisons.p.tolist()
    # an independent oracle: McNemar's exact test is the binomial test on the discordant items
    first = c["pairs"][0]
    x, y = pooled[order.index(first["a"])], pooled[order.index(first["b"])]
    wins, losses = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
    assert first["p"] == pytest.approx(binomtest(wins, wins + losses, 0.5).pvalue, rel=1e-12)
    assert first["diff"] == pytest.approx((wins - losses) / pooled.shape[1])


def test_pooled_items_weigh_each_task_so_the_row_mean_is_the_mean_of_task_means():
    rng = np.random.default_rng(0)
    blocks = {"a": rng.random((3, 5)), "b": rng.random((3, 20))}
    values, owner = section.pooled(blocks, None)
    assert owner == ["a"] * 5 + ["b"] * 20
    np.testing.assert_allclose(values.mean(axis=1), (blocks["a"].mean(axis=1) + blocks["b"].mean(axis=1)) / 2)
    values, _ = section.pooled(blocks, {"a": 3.0, "b": 1.0})
    np.testing.assert_allclose(values.mean(axis=1), (3 * blocks["a"].mean(axis=1) + blocks["b"].mean(axis=1)) / 4)


def test_graded_items_use_the_permutation_test_and_max_t_rank_sets():
    long = graded_instances()
    scores, _ = bv.intervals.instance_table(long)
    c = audit(scores, instances=long, seed=1, **FAST).sections["comparisons"]
    check_types(c)
    assert c["test"] == "permutation" and c["method"] == "max-t"
    assert {x["test"] for x in c["tasks"].values()} == {"permutation"}
    assert c["cuts"] and c["rank_sets"]["m3"] == [1, 1]  # model 3 is 0.45 above model 0 on every item's mean


def test_a_large_comparison_redraws_fewer_times_and_says_how_many(monkeypatch):
    for n_boot, columns, models in [(1000, 10, 5), (1000, 10**5, 50), (5000, 10**6, 50), (50, 10**9, 50)]:
        b = section.redraws(n_boot, columns, models)
        assert b <= n_boot and (b * columns * models <= section.REDRAW_CELLS or b == min(n_boot, section.MIN_REDRAWS))
    monkeypatch.setattr(section, "REDRAW_CELLS", 300 * 180 * 6)  # 90 items, twice (each task, then pooled): 300
    scores, long = instance_scores([f"m{i}" for i in range(6)])
    a = audit(scores, instances=long, n_boot=1000, time_limit=60, seed=2)
    c = a.sections["comparisons"]
    assert c["n_boot"] == 300 and {x["n_boot"] for x in c["tasks"].values()} == {300}
    order = a.results["order"]
    _, blocks = bv.intervals.instance_table(long)
    rows = [list(scores.index).index(m) for m in order]
    pooled = np.hstack([blocks[t][rows] for t in ("t0", "t1", "t2")])
    r = bv.comparisons.rank_sets(pd.DataFrame(pooled, index=order), n_boot=300, n_resamples=section.N_RESAMPLES, seed=2)
    assert [p["ci"] for p in c["pairs"]] == np.column_stack([r.comparisons.ci_low, r.comparisons.ci_high]).tolist()


# --------------------------------------------------------------------------- few tasks


def test_min_tasks_is_the_first_n_whose_smallest_sign_test_p_passes_holms_first_step():
    for pairs in (1, 3, 10, 45, 1225):
        for level in (0.9, 0.95, 0.99):
            n = section.min_tasks(pairs, level)
            smallest = [binomtest(k, k, 0.5).pvalue for k in (n - 1, n)]  # one model wins every task
            assert smallest[1] <= (1 - level) / pairs < smallest[0]
    assert section.min_tasks(1, 0.95) == 6  # below 6 tasks no single pair can be separated at 0.05


@pytest.mark.parametrize("n_tasks", [4, 5, 6, 8])
def test_few_tasks_warn_and_separate_nothing_even_when_one_model_wins_every_task(n_tasks):
    a = audit(dominated_board(n_tasks), **FAST)
    c = a.sections["comparisons"]
    assert c["min_tasks"] == 6
    if n_tasks < 6:
        assert c["warning"] and f"2^(1-{n_tasks})" in c["warning"] and "at least 6 tasks" in c["warning"]
        assert c["separated"] == 0 and c["rank_sets"] == {"model 0": [1, 2], "model 1": [1, 2]}
        assert "Too few tasks to separate any pair." in section_html(a.to_html(), "comparisons")
    else:
        assert c["warning"] is None and c["separated"] == 1 and c["cuts"] == [1]
        assert c["rank_sets"] == {"model 0": [1, 1], "model 1": [2, 2]}


# --------------------------------------------------------------------------- the verdict


def test_the_verdict_names_the_separable_places_from_the_tiers():
    s = dominated_board(12, m=3)
    s.loc["model 2"] = s.loc["model 1"] - np.where(np.arange(12) % 2 == 0, 1.0, -1.0) * 0.01  # 1 and 2 split tasks
    c = audit(s, **FAST).sections["comparisons"]
    assert c["tiers"] == [["model 0"], ["model 1", "model 2"]] and c["cuts"] == [1]
    (sentence,) = section.verdict(c, {})
    assert sentence.text == (
        "Over the 12 tasks (sign tests, 95% simultaneous), the first place is statistically separable from the rest; "
        "the tiers are places 1 and 2\u20133."
    )
    assert sentence.secondary  # on task tables the task bootstrap's sentence speaks first


def test_on_items_the_verdict_sentence_is_in_the_verdict():
    scores, long = instance_scores([f"m{i}" for i in range(6)])
    a = audit(scores, instances=long, **FAST)
    texts = [v["text"] for v in a.verdict if v["section"] == "comparisons"]
    assert texts and texts[0].startswith("On the test items (3 tasks pooled; McNemar tests, 95% simultaneous)")
    assert a.verdict[0]["section"] == "rankings"  # it does not open the verdict


# --------------------------------------------------------------------------- the page, scope, failure, determinism


def test_hostile_model_names_are_escaped_on_the_page():
    s = normal_board(m=5, n=8)
    s.index = ["<script>alert(1)</script>", *s.index[1:]]
    a = audit(s, **FAST)
    assert "<script>alert(1)</script>" in a.sections["comparisons"]["rank_sets"]
    html = section_html(a.to_html(), "comparisons")
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_big_boards_compare_the_top_models_and_show_a_capped_table():
    s = normal_board(m=section.MAX_MODELS + 5, n=6)
    a = audit(s, top_models=2, **FAST)
    c = a.sections["comparisons"]
    assert c["n_models"] == section.MAX_MODELS and "top 50 of the 55 models" in c["scope"]
    assert c["order"] and set(c["order"]) == set(a.sections["rankings"]["ranking"][: section.MAX_MODELS])
    html = section_html(a.to_html(), "comparisons")
    assert html.count("<tr>") == section.SHOWN + 1 and f"first {section.SHOWN} of 50 models" in html


def test_bad_instances_make_the_section_not_applicable(monkeypatch):
    scores, long = instance_scores([f"m{i}" for i in range(4)])
    a = audit(scores, instances=long[long["model"] != "m2"], **FAST)
    assert a.sections["comparisons"]["status"] == "not_applicable"
    assert "no instance scores" in a.sections["comparisons"]["reason"]


def test_a_failure_stays_in_the_section(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(section, "rank_sets", broken)
    a = audit(normal_board(), **FAST)
    assert a.sections["comparisons"]["status"] == "error" and "boom" in a.sections["comparisons"]["error"]
    assert a.failed == ["comparisons"] and a.sections["intervals"]["status"] == "ok"
    assert all(v["section"] != "comparisons" for v in a.verdict)


def test_two_runs_give_the_same_json():
    scores, long = instance_scores([f"m{i}" for i in range(5)])
    first = audit(scores, instances=long, seed=7, **FAST).to_dict()["sections"]["comparisons"]
    again = audit(scores, instances=long, seed=7, **FAST).to_dict()["sections"]["comparisons"]
    assert json.dumps(first) == json.dumps(again)


# --------------------------------------------------------------------------- real boards


CORPUS_IDS = ("helm_lite_benchbench", "mteb_en", "livebench_2026_01_08", "aider_polyglot", "timm_imagenet")


def section_alone(scores: pd.DataFrame, hib: list[bool], costs: list[str]) -> tuple[dict, float, object]:
    """The section's fields on a table, with the one section it builds on (rankings), and its seconds."""
    options = check_options("mean_score", "none", 100, 0.95, None, 3, 6, 60.0, bv.ranking.DEFAULT_TIE_TOLERANCE, 0)
    ctx = prepare(scores, hib, options, costs, None, None)
    done = {"rankings": SECTIONS["rankings"].compute(ctx, {})}
    start = time.perf_counter()
    out = section.compute(ctx, done)
    return dict(out.fields), time.perf_counter() - start, ctx


@pytest.mark.parametrize("name", CORPUS_IDS)
def test_real_boards_get_consistent_rank_sets(name):
    entry = {e.id: e for e in load()}[name]
    s = entry.scores()
    hib = [c not in entry.lower_is_better for c in s.columns]
    c, _, ctx = section_alone(s, hib, list(entry.costs))
    check_types({"status": "ok", **c})
    assert c["unit"] == "tasks" and c["n_columns"] == ctx.work.shape[1]
    assert c["n_models"] == min(section.MAX_MODELS, ctx.work.shape[0])
    pairs = c["n_models"] * (c["n_models"] - 1) // 2
    assert (c["warning"] is None) == (c["n_columns"] >= section.min_tasks(pairs, 0.95))
    if c["warning"]:
        assert c["separated"] == 0


# --------------------------------------------------------------------------- a real item-level table: ChemBench


@pytest.fixture(scope="module")
def chembench(tmp_path_factory):
    """The audit of ChemBench's per-question results through the command, from the shipped Parquet file."""
    from benchvote.cli import main

    folder = tmp_path_factory.mktemp("chembench")
    source = Path(__file__).resolve().parents[1] / "data" / "items" / "chembench.parquet"
    assert main(["audit", str(source), "--json", str(folder / "r.json"), "--n-boot", "200", "--quiet"]) == 0
    return json.loads((folder / "r.json").read_text()), bv.data.load_items("chembench")


def test_real_items_are_compared_task_by_task_and_pooled(chembench):
    report, items = chembench
    c = report["sections"]["comparisons"]
    check_types(c)
    assert c["unit"] == "items" and c["n_models"] == 31 and c["n_columns"] == items.instance.nunique() == 2788
    sizes = items.groupby("task").instance.nunique()
    assert {t: x["n_items"] for t, x in c["tasks"].items()} == sizes.to_dict()
    assert all(x["test"] == "mcnemar" and x["method"] == "holm" for x in c["tasks"].values())  # 0/1 items
    assert c["test"] == "permutation" and c["method"] == "max-t"  # tasks of unequal size: pooled items are graded
    assert report["sections"]["instance_intervals"]["status"] == "ok"


def test_real_items_per_task_p_values_are_mcnemars_binomial_test(chembench):
    report, items = chembench
    order = report["sections"]["rankings"]["ranking"]
    table, blocks = bv.intervals.instance_table(items)
    rows = [list(table.index).index(m) for m in order[: section.MAX_MODELS]]
    task = "Toxicity/Safety"
    r = bv.comparisons.rank_sets(pd.DataFrame(blocks[task][rows], index=order), n_boot=200, n_resamples=1000)
    x, y = blocks[task][rows[0]], blocks[task][rows[1]]  # the two leaders on the pooled ranking
    wins, losses = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
    assert r.comparisons.p[0] == pytest.approx(binomtest(wins, wins + losses, 0.5).pvalue, rel=1e-12)
    got = report["sections"]["comparisons"]["tasks"][task]
    assert got["rank_sets"] == {m: [int(lo), int(hi)] for m, lo, hi in zip(order, r.lowest, r.highest)}
    assert got["separated"] == int(r.above.sum())
