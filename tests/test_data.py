"""Tests for benchvote.data: every leaderboard parses like benchbench's own loaders."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchvote import data
from benchvote.data import list_battle_logs, list_item_tables, load_battles, load_items

# Shapes reported in Table 1 of Zhang & Hardt (2024); MMLU ships 98 of the 100 models.
PAPER_SHAPES = {
    "GLUE": (87, 9),
    "SuperGLUE": (28, 8),
    "BigBenchHard": (107, 27),
    "MTEB": (83, 56),
    "OpenLLM": (100, 6),
    "VTAB": (16, 19),
    "ImageNet": (112, 20),
    "BigCode": (41, 3),
    "HELM-accuracy": (67, 16),
    "HELM-fairness": (67, 14),
    "HELM-robustness": (67, 14),
    "HEIM-alignment_auto": (26, 40),
    "HEIM-quality_auto": (26, 12),
    "HEIM-aesthetics_auto": (26, 60),
    "HEIM-alignment_human": (26, 23),
    "HEIM-nudity": (26, 20),
    "HEIM-quality_human": (26, 7),
    "HEIM-aesthetics_human": (26, 18),
}


def benchbench_frame(name: str):
    """Values as benchbench 1.0.1's own loader returns them (file order, oriented)."""
    bb = pytest.importorskip("benchbench.data")
    if name in bb.cardinal_benchmark_list or name == "ImageNet":
        frame, cols = bb.load_cardinal_benchmark(name, do_rerank=False)
    else:
        frame, cols = bb.load_ordinal_benchmark(name, do_rerank=False)
    cols = list(cols)
    if name == "MTEB":
        cols = [c for c in cols if not c.startswith("Average")]
    values = frame[cols].to_numpy(dtype=float)
    if name == "ImageNet":
        values = pd.DataFrame(values, index=frame["Weight"])
    return values


def sorted_rows(values: np.ndarray) -> np.ndarray:
    key = np.nan_to_num(values, nan=-1e300)
    return values[np.lexsort(key.T[::-1])]


@pytest.mark.parametrize("name", data.list_leaderboards())
def test_every_leaderboard_matches_benchbench(name):
    lb = data.load(name)
    ours = lb.oriented()
    theirs = benchbench_frame(name)
    if name == "ImageNet":
        theirs = theirs.loc[ours.index].to_numpy()
        assert np.allclose(ours.to_numpy(), 100 * theirs)
        return
    theirs = theirs[~np.isnan(theirs).all(axis=1)]  # we drop models without any score
    assert ours.shape == theirs.shape
    # benchbench sorts some boards (OpenLLM, MTEB) by their mean even without re-ranking: compare row multisets
    assert np.allclose(sorted_rows(ours.to_numpy()), sorted_rows(theirs), equal_nan=True)


@pytest.mark.parametrize("name", data.list_leaderboards())
def test_leaderboard_is_valid(name):
    lb = data.load(name)
    assert lb.kind == ("cardinal" if name in data.list_leaderboards("cardinal") else "ordinal")
    assert lb.scores.index.is_unique and lb.scores.columns.is_unique
    assert lb.scores.dtypes.map(pd.api.types.is_float_dtype).all()
    assert lb.n_missing == int(lb.scores.isna().sum().sum())
    assert not lb.scores.isna().all(axis=1).any()
    assert lb.version == "benchbench 1.0.1"
    if name in PAPER_SHAPES:
        assert lb.scores.shape == PAPER_SHAPES[name]


def test_directions():
    helm = data.load("HELM-calibration")
    assert not helm.higher_is_better.any()  # every calibration metric is an ECE
    heim = data.load("HEIM-quality_auto")
    assert heim.higher_is_better.sum() == 9 and (~heim.higher_is_better).sum() == 3


def test_missing_counts_and_notes():
    assert data.load("HELM-bias").n_missing == 720
    eff = data.load("HELM-efficiency")
    assert any("without a score" in n for n in eff.notes)


def test_load_returns_independent_copies():
    a = data.load("VTAB")
    a.scores.iloc[0, 0] = -1.0
    assert data.load("VTAB").scores.iloc[0, 0] != -1.0


def test_subset_and_case_insensitive_names():
    lb = data.load("glue")
    sub = lb.subset(models=lb.models[:3], tasks=["CoLA", "RTE"])
    assert sub.scores.shape == (3, 2) and list(sub.higher_is_better.index) == ["CoLA", "RTE"]
    with pytest.raises(KeyError, match="unknown model"):
        lb.subset(models=["no such model"])


def test_unknown_name_lists_known_names():
    with pytest.raises(KeyError, match="known leaderboards: GLUE, SuperGLUE"):
        data.load("GLUE2")
    with pytest.raises(ValueError, match="kind"):
        data.list_leaderboards("both")


class TestBaselines:
    def test_random_is_seeded(self):
        a = data.random_leaderboard(10, 4, seed=3).scores
        b = data.random_leaderboard(10, 4, seed=3).scores
        c = data.random_leaderboard(10, 4, seed=4).scores
        assert a.equals(b) and not a.equals(c)

    def test_constant_repeats_one_task(self):
        s = data.constant_leaderboard(20, 5, seed=1).scores.to_numpy()
        assert (s == s[:, :1]).all()

    @pytest.mark.parametrize("n_models, n_tasks", [(1, 5), (5, 0), (2.5, 3)])
    def test_bad_shapes(self, n_models, n_tasks):
        with pytest.raises(ValueError):
            data.random_leaderboard(n_models, n_tasks)


class TestTables:
    def test_every_table_loads_and_is_documented(self):
        readme = (data._tables_dir() / "README.md").read_text(encoding="utf-8")
        for name in data.list_tables():
            table = data.load_table(name)
            assert len(table) >= 2
            assert f"`{name}.csv`" in readme

    def test_xtreme_has_eighteen_holes(self):
        assert int(data.load_table("xtreme_missing").isna().sum().sum()) == 18

    def test_helm_capabilities_means(self):
        t = data.load_table("helm_capabilities_top4")
        assert np.allclose(t.drop(columns="published_mean").mean(axis=1), t["published_mean"], atol=6e-4)

    def test_unknown_table(self):
        with pytest.raises(KeyError, match="known tables"):
            data.load_table("nope")


def test_gumbel_instances_follow_the_true_order():
    tasks = data.gumbel_instances(6, 4, 400, phi=1.0, seed=0)
    means = np.mean([t.mean(axis=1) for t in tasks], axis=0)
    assert list(np.argsort(means)) == list(range(6))  # system n is centred at phi * (n + 1)
    again = data.gumbel_instances(6, 4, 400, phi=1.0, seed=0)
    assert all(np.array_equal(a, b) for a, b in zip(tasks, again))
    with pytest.raises(ValueError, match="phi"):
        data.gumbel_instances(phi=2.0)


def test_published_win_rate_is_helms_column_aligned_with_the_board():
    import benchbench

    raw = pd.read_csv(Path(benchbench.__file__).parent / "data" / "heim" / "nudity.tsv", sep="\t")
    column = next(c for c in raw.columns if c.startswith("Mean win rate"))
    expected = pd.Series(raw[column].to_numpy(dtype=float), index=raw.iloc[:, 0].astype(str).str.strip())
    published = data.published_win_rate("HEIM-nudity")
    assert list(published.index) == list(data.load("HEIM-nudity").scores.index)
    assert published.to_dict() == expected.loc[published.index].to_dict()
    with pytest.raises(KeyError, match="publishes no mean win rate"):
        data.published_win_rate("GLUE")


def test_irt_items_are_seeded_right_or_wrong_answers_in_the_documented_shape():
    sim = data.irt_items(5, 3, 40, seed=7)
    again = data.irt_items(5, 3, 40, seed=7)
    assert list(sim.blocks) == ["task 1", "task 2", "task 3"] == list(sim.expected.columns)
    assert all(b.shape == (5, 40) and set(np.unique(b)) <= {0.0, 1.0} for b in sim.blocks.values())
    assert all(np.array_equal(sim.blocks[t], again.blocks[t]) for t in sim.blocks)
    assert not np.array_equal(sim.blocks["task 1"], data.irt_items(5, 3, 40, seed=8).blocks["task 1"])
    long = sim.long()
    assert list(long.columns) == ["model", "task", "instance", "score"] and len(long) == 5 * 3 * 40
    row = long[(long.model == "M2") & (long.task == "task 3") & (long.instance == 17)]
    assert row.score.item() == sim.blocks["task 3"][1, 17]
    with pytest.raises(ValueError, match="at least 2 models"):
        data.irt_items(1, 3, 40)
    with pytest.raises(ValueError, match="task_spread"):
        data.irt_items(task_spread=-1.0)
    with pytest.raises(ValueError, match="ability_spread"):
        data.irt_items(ability_spread=0.0)
    close = data.irt_items(200, 1, 1, ability_spread=0.1, seed=7).ability
    assert 0.05 < close.std() < 0.15


def test_irt_items_follow_the_abilities_they_were_drawn_from():
    # an independent oracle: the answers' shares against the 2PL probabilities, and the order of the abilities
    sim = data.irt_items(6, 2, 20_000, task_spread=0.0, seed=3)
    observed = pd.DataFrame({t: b.mean(axis=1) for t, b in sim.blocks.items()}, index=sim.ability.index)
    assert np.abs(observed - sim.expected).to_numpy().max() < 0.02  # 20,000 Bernoulli draws: sd <= 0.0036
    assert (sim.task_ability.sub(sim.ability, axis=0).abs().to_numpy() == 0).all()  # no task effects
    for task in sim.blocks:
        assert list(sim.expected[task].sort_values().index) == list(sim.ability.sort_values().index)
    spread = data.irt_items(6, 50, 10, task_spread=0.3, seed=3)
    effects = spread.task_ability.sub(spread.ability, axis=0).to_numpy()
    assert 0.2 < effects.std() < 0.4


# --------------------------------------------------------------------------- battle logs


def test_the_shipped_battle_log_is_the_published_file_with_its_provenance():
    assert list_battle_logs() == ["mt_bench_human"]
    log = load_battles("mt_bench_human")
    assert list(log.columns) == ["question_id", "model_a", "model_b", "winner", "judge", "turn"]
    assert len(log) == 3355 and set(log.winner) == {"model_a", "model_b", "tie"} and not log.isna().any().any()
    folder = Path(__file__).resolve().parents[1] / "data" / "battles"
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert hashlib.sha256((folder / "mt_bench_human.csv").read_bytes()).hexdigest() in readme
    assert "CC BY 4.0" in readme and "`mt_bench_human.csv`" in readme


def test_an_unknown_battle_log_lists_the_known_ones():
    with pytest.raises(KeyError, match="known logs: mt_bench_human"):
        load_battles("arena")


# --------------------------------------------------------------------------- item-level tables


def test_the_shipped_item_table_is_the_published_file_and_keeps_the_sources_means():
    assert list_item_tables() == ["chembench"]
    items = load_items("chembench")
    assert list(items.columns) == ["model", "task", "instance", "score"] and set(items.score) == {0.0, 1.0}
    assert not items.duplicated(["model", "task", "instance"]).any()
    per_task = items.groupby(["task", "model"]).size().unstack()
    assert (per_task.nunique(axis=1) == 1).all()  # every model has every item of every task
    folder = Path(__file__).resolve().parents[1] / "data" / "items"
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert hashlib.sha256((folder / "chembench.parquet").read_bytes()).hexdigest() in readme
    published = pd.read_csv(folder / "chembench.published.csv").set_index("model")["value"]
    means = items.groupby("model").score.mean()
    assert set(means.index) == set(published.index) and len(means) == 31
    gap = (means - published).abs()
    assert gap.drop("galactica_120b").max() < 1e-12  # the source's fraction_correct, to the last digits
    assert 1e-7 < gap["galactica_120b"] < 1e-5  # its 66 questions outside the current set are left out (README)
    assert all((folder / f).is_file() for f in ("LICENSE-chem-bench.txt", "LICENSE-chembench-paper.txt"))


def test_an_unknown_item_table_lists_the_known_ones():
    with pytest.raises(KeyError, match="known tables: chembench"):
        load_items("mmlu")
