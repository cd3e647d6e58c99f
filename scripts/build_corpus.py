"""Rebuild data/corpus/ (the audit's corpus of real leaderboards) from the public sources.

Every table is read from a git snapshot of its public repository (one folder per repository under
``$CORPUS_SOURCES``, default ``/work/.mirror``, each holding ``owner+name/repo``, a bare clone) at the
commit recorded in the manifest, or from a file shipped in a PyPI package.  Each builder below only
selects columns, reshapes long tables to wide, strips a percent sign, writes "N/A" and similar markers as
empty cells and, where a board lists one name twice, appends what tells the rows apart; the manifest's
``changes`` says which of these it did.  Numbers are never changed (written back in Python's shortest
round-trip form, so ``0.0000`` becomes ``0.0``).

Run:  .venv/bin/python scripts/build_corpus.py  (rewrites data/corpus/*.csv and manifest.toml)
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "data" / "corpus"
SOURCES = Path(os.environ.get("CORPUS_SOURCES", "/work/.mirror"))
MISSING = ("N/A", "NA", "-", "", "null", "None")


@dataclass
class Table:
    id: str
    domain: str
    source_repo: str
    source_path: str
    changes: str
    build: Callable[[str], tuple[pd.DataFrame, pd.Series | None]]
    license: str = ""
    lower_is_better: list[str] | str = field(default_factory=list)
    costs: list[str] = field(default_factory=list)
    weights: Callable[[str], dict[str, float]] | None = None
    published: str = ""
    commit: str = ""


TABLES: list[Table] = []


def table(**meta: Any) -> Callable:
    def register(build: Callable) -> Callable:
        TABLES.append(Table(build=build, **meta))
        return build

    return register


def git_dir(repo: str) -> Path:
    return SOURCES / repo.replace("/", "+") / "repo"


def head(repo: str, ref: str = "HEAD") -> str:
    return subprocess.check_output(["git", "-C", str(git_dir(repo)), "rev-parse", ref], text=True).strip()


def show(repo: str, path: str, commit: str) -> str:
    return subprocess.check_output(["git", "-C", str(git_dir(repo)), "show", f"{commit}:{path}"]).decode("utf-8")


def ls(repo: str, path: str, commit: str) -> list[str]:
    out = subprocess.check_output(["git", "-C", str(git_dir(repo)), "ls-tree", "--name-only", f"{commit}:{path}"])
    return out.decode("utf-8").split("\n")[:-1]


def csv(repo: str, path: str, commit: str, **kw: Any) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(show(repo, path, commit)), keep_default_na=False, na_values=MISSING, **kw)


def percent(col: pd.Series) -> pd.Series:
    """'62.19%' -> 62.19, '1,014.45' -> 1014.45 (the number as printed, sign and separator dropped); markers -> NaN."""
    text = col.astype(str).str.strip().str.removesuffix("%").str.replace(",", "", regex=False)
    return pd.to_numeric(text.where(~text.isin(MISSING)), errors="raise")


# ---------------------------------------------------------------- vision


TIMM_SETS = {
    "imagenet": "results-imagenet.csv",
    "imagenet-real": "results-imagenet-real.csv",
    "imagenetv2-matched-frequency": "results-imagenetv2-matched-frequency.csv",
    "sketch": "results-sketch.csv",
    "imagenet-r": "results-imagenet-r.csv",
    "imagenet-a": "results-imagenet-a.csv",
}


@table(
    id="timm_imagenet",
    domain="vision",
    source_repo="huggingface/pytorch-image-models",
    source_path="results/results-imagenet*.csv, results-sketch.csv",
    license="Apache-2.0",
    changes=(
        "Joined the six results files on (`model`, `img_size`): the `top1` column of each became one task named "
        "after the test "
        "set; `param_count` (millions) and `img_size` (pixels) kept from results-imagenet.csv as costs (thousands "
        "separators of param_count dropped: 1,014.45 -> 1014.45); top1_err, "
        "top5, top5_err, crop_pct, interpolation and the diff columns dropped. A model evaluated at two input sizes "
        "is listed twice by timm; both rows get ' (img_size N)' appended."
    ),
    costs=["param_count", "img_size"],
)
def timm(commit: str) -> tuple[pd.DataFrame, None]:
    repo = "huggingface/pytorch-image-models"
    key = ["model", "img_size"]
    base = csv(repo, "results/results-imagenet.csv", commit).set_index(key)
    assert base.index.is_unique
    wide = pd.DataFrame(index=base.index)
    for name, path in TIMM_SETS.items():
        frame = csv(repo, f"results/{path}", commit).set_index(key)
        assert frame.index.is_unique
        wide[name] = frame["top1"].reindex(wide.index)
    wide["param_count"] = percent(base["param_count"])
    wide["img_size"] = base.index.get_level_values("img_size")
    models = base.index.get_level_values("model")
    twice = models.duplicated(keep=False)
    wide.index = [f"{m} (img_size {size})" if t else m for (m, size), t in zip(base.index, twice)]
    return wide, None


# ---------------------------------------------------------------- agents


BFCL_DROP = [
    "Rank",
    "Overall Acc",
    "Model Link",
    "Organization",
    "License",
    "Latency Standard Deviation (s)",
    "Latency 95th Percentile (s)",
]


@table(
    id="bfcl_v4",
    domain="agents / function calling",
    source_repo="ShishirPatil/gorilla",
    source_path="data_overall.csv (branch gh-pages, the leaderboard site)",
    license="Apache-2.0",
    changes=(
        "Kept the leaf categories (19 accuracy columns) and two costs (`Total Cost ($)`, `Latency Mean (s)`); "
        "dropped Rank, the category summaries (Overall/Non-Live/Live/Multi Turn/Web Search/Memory Acc), Model Link, "
        "Organization, License, the latency spread columns and the two Format Sensitivity columns (N/A for most "
        "models); percent signs and thousands separators stripped; N/A written as an empty cell. Overall Acc is the "
        "published file."
    ),
    costs=["Total Cost ($)", "Latency Mean (s)"],
    published=(
        "other:BFCL v4 Overall Acc, category accuracies weighted by test counts and fixed shares "
        "(bfcl_eval/eval_checker/eval_runner_helper.py); not re-derivable from this table"
    ),
)
def bfcl(commit: str) -> tuple[pd.DataFrame, pd.Series]:
    raw = csv("ShishirPatil/gorilla", "data_overall.csv", commit).set_index("Model")
    published = percent(raw["Overall Acc"])
    summaries = [c for c in raw.columns if c.endswith(" Acc")] + [c for c in raw.columns if "Format Sens" in c]
    wide = raw.drop(columns=[c for c in BFCL_DROP if c in raw.columns] + summaries)
    wide = wide.apply(percent)
    return wide, published


# ---------------------------------------------------------------- code


AIDER_REPO = "Aider-AI/aider"


def aider_rows(commit: str, path: str) -> list[dict]:
    return yaml.safe_load(show(AIDER_REPO, f"aider/website/_data/{path}", commit))


def unique_names(rows: list[dict]) -> list[str]:
    """The board's model names; a name listed twice gets its edit format appended, as the site's table shows it."""
    names = [r["model"] for r in rows]
    counts = pd.Series(names).value_counts()
    return [f"{r['model']} ({r['edit_format']})" if counts[r["model"]] > 1 else r["model"] for r in rows]


@table(
    id="aider_polyglot",
    domain="code (coding assistant)",
    source_repo=AIDER_REPO,
    source_path="aider/website/_data/polyglot_leaderboard.yml",
    license="Apache-2.0",
    changes=(
        "YAML records to rows: model, pass_rate_1, pass_rate_2, percent_cases_well_formed as tasks, total_cost and "
        "seconds_per_case as costs; the other fields dropped. 'Qwen2.5-Coder-32B-Instruct' is listed twice (two edit "
        "formats): both rows get ' (<edit_format>)' appended. The board ranks by pass_rate_2 (published file)."
    ),
    costs=["total_cost", "seconds_per_case"],
    published="column:pass_rate_2",
)
def aider_polyglot(commit: str) -> tuple[pd.DataFrame, pd.Series]:
    rows = aider_rows(commit, "polyglot_leaderboard.yml")
    cols = ["pass_rate_1", "pass_rate_2", "percent_cases_well_formed", "total_cost", "seconds_per_case"]
    wide = pd.DataFrame([{c: r.get(c, np.nan) for c in cols} for r in rows], index=unique_names(rows), dtype=float)
    return wide, wide["pass_rate_2"].copy()


@table(
    id="aider_edit",
    domain="code (coding assistant)",
    source_repo=AIDER_REPO,
    source_path="aider/website/_data/edit_leaderboard.yml",
    license="Apache-2.0",
    changes=(
        "YAML records to rows: model, pass_rate_1, pass_rate_2, percent_cases_well_formed as tasks, "
        "seconds_per_case and total_cost as costs (absent for most older entries: empty cells); other fields dropped."
    ),
    costs=["seconds_per_case", "total_cost"],
)
def aider_edit(commit: str) -> tuple[pd.DataFrame, None]:
    rows = aider_rows(commit, "edit_leaderboard.yml")
    cols = ["pass_rate_1", "pass_rate_2", "percent_cases_well_formed", "seconds_per_case", "total_cost"]
    wide = pd.DataFrame([{c: r.get(c, np.nan) for c in cols} for r in rows], index=unique_names(rows), dtype=float)
    return wide, None


@table(
    id="aider_quant",
    domain="code (coding assistant; one model served by 14 providers and quantisations)",
    source_repo=AIDER_REPO,
    source_path="aider/website/_data/quant.yml",
    license="Apache-2.0",
    changes=(
        "YAML records to rows: model (the serving provider and quantisation of Qwen2.5-Coder-32B-Instruct, as "
        "published, commas included), pass_rate_1, pass_rate_2, percent_cases_well_formed as tasks, "
        "seconds_per_case and total_cost as costs; other fields dropped. Near-duplicate entries by design."
    ),
    costs=["seconds_per_case", "total_cost"],
    published="column:pass_rate_2",
)
def aider_quant(commit: str) -> tuple[pd.DataFrame, pd.Series]:
    rows = aider_rows(commit, "quant.yml")
    cols = ["pass_rate_1", "pass_rate_2", "percent_cases_well_formed", "seconds_per_case", "total_cost"]
    wide = pd.DataFrame([{c: r.get(c, np.nan) for c in cols} for r in rows], index=unique_names(rows), dtype=float)
    return wide, wide["pass_rate_2"].copy()


@table(
    id="evalplus",
    domain="code generation",
    source_repo="evalplus/evalplus.github.io",
    source_path="results.json",
    license="Apache-2.0 (EvalPlus)",
    changes=(
        "JSON to rows: the four pass@1 values (humaneval, humaneval+, mbpp, mbpp+) as tasks, null as empty; "
        "`size` (billions of parameters, empty for closed models) kept as a cost; link, open-data, prompted dropped."
    ),
    costs=["size"],
)
def evalplus(commit: str) -> tuple[pd.DataFrame, None]:
    data = json.loads(show("evalplus/evalplus.github.io", "results.json", commit))
    rows = {name: {**entry["pass@1"], "size": entry.get("size")} for name, entry in data.items()}
    return pd.DataFrame.from_dict(rows, orient="index").astype(float), None


# ---------------------------------------------------------------- forecasting


@table(
    id="gift_eval_mase",
    domain="forecasting",
    source_repo="SalesforceAIResearch/gift-eval",
    source_path="results/<model>/all_results.csv",
    license="Apache-2.0",
    changes=(
        "Long to wide: one row per results folder (its name as the model, as the leaderboard lists it), one column per "
        "`dataset` configuration, value `eval_metrics/MASE[0.5]`; every other metric and the domain/num_variates "
        "columns dropped. A folder without a configuration leaves that cell empty."
    ),
    lower_is_better="all",
    published="geometric_mean_relative:seasonal_naive",
)
def gift_eval(commit: str) -> tuple[pd.DataFrame, None]:
    repo = "SalesforceAIResearch/gift-eval"
    cells = {}
    for model in ls(repo, "results", commit):
        if "all_results.csv" not in ls(repo, f"results/{model}", commit):
            continue
        frame = csv(repo, f"results/{model}/all_results.csv", commit)
        assert frame["dataset"].is_unique, model
        cells[model] = frame.set_index("dataset")["eval_metrics/MASE[0.5]"].astype(float)
    wide = pd.DataFrame(cells).T
    return wide[sorted(wide.columns)], None


# ---------------------------------------------------------------- LLM


LIVEBENCH = "LiveBench/livebench.github.io"


def livebench_weights(commit: str, categories: str) -> dict[str, float]:
    cats = json.loads(show(LIVEBENCH, categories, commit))
    return {task: 1.0 / len(tasks) for tasks in cats.values() for task in tasks}


@table(
    id="livebench_2026_01_08",
    domain="LLM",
    source_repo=LIVEBENCH,
    source_path="public/table_2026_01_08.csv, public/categories_2026_01_08.json",
    license="Apache-2.0 (LiveBench)",
    changes=(
        "None to the table. Weights: the site averages the tasks of each category and then the categories "
        "(src/Table/Averaging.js), so each task weighs 1 / (number of tasks in its category, "
        "public/categories_2026_01_08.json)."
    ),
    published="weighted_mean",
    weights=lambda commit: livebench_weights(commit, "public/categories_2026_01_08.json"),
)
def livebench_2026(commit: str) -> tuple[pd.DataFrame, None]:
    return csv(LIVEBENCH, "public/table_2026_01_08.csv", commit).set_index("model").astype(float), None


@table(
    id="livebench_2024_06_24",
    domain="LLM",
    source_repo=LIVEBENCH,
    source_path="public/table_2024_06_24.csv",
    license="Apache-2.0 (LiveBench)",
    changes="None.",
    published="mean",
)
def livebench_2024(commit: str) -> tuple[pd.DataFrame, None]:
    return csv(LIVEBENCH, "public/table_2024_06_24.csv", commit).set_index("model").astype(float), None


ALPACA = "tatsu-lab/alpaca_eval"
ALPACA_1 = {
    "gpt4": "alpaca_eval_gpt4_leaderboard.csv",
    "claude": "claude_leaderboard.csv",
    "chatgpt_fn": "chatgpt_fn_leaderboard.csv",
    "text_davinci_003": "text_davinci_003_leaderboard.csv",
}


@table(
    id="alpaca_eval_1_judges",
    domain="LLM (instruction following, LLM judges)",
    source_repo=ALPACA,
    source_path="src/alpaca_eval/leaderboards/data_AlpacaEval/*_leaderboard.csv",
    license="Apache-2.0",
    changes=(
        "Joined the four AlpacaEval 1 leaderboards (one per judge) on the model name: the `win_rate` of each "
        "became one task named after the judge; the other columns dropped. A model a judge did not rate is empty."
    ),
)
def alpaca_1(commit: str) -> tuple[pd.DataFrame, None]:
    cols = {}
    for judge, path in ALPACA_1.items():
        frame = csv(ALPACA, f"src/alpaca_eval/leaderboards/data_AlpacaEval/{path}", commit, index_col=0)
        assert frame.index.is_unique
        cols[judge] = frame["win_rate"].astype(float)
    return pd.DataFrame(cols), None


@table(
    id="alpaca_eval_2",
    domain="LLM (instruction following)",
    source_repo=ALPACA,
    source_path="src/alpaca_eval/leaderboards/data_AlpacaEval_2/weighted_alpaca_eval_gpt4_turbo_leaderboard.csv",
    license="Apache-2.0",
    changes=(
        "Kept win_rate, discrete_win_rate and length_controlled_winrate as tasks and avg_length (characters of "
        "output) as a cost; standard errors, counts and mode dropped. The board ranks by length_controlled_winrate."
    ),
    costs=["avg_length"],
    published="column:length_controlled_winrate",
)
def alpaca_2(commit: str) -> tuple[pd.DataFrame, pd.Series]:
    path = "src/alpaca_eval/leaderboards/data_AlpacaEval_2/weighted_alpaca_eval_gpt4_turbo_leaderboard.csv"
    frame = csv(ALPACA, path, commit, index_col=0)
    wide = frame[["win_rate", "discrete_win_rate", "length_controlled_winrate", "avg_length"]].astype(float)
    return wide, wide["length_controlled_winrate"].dropna()


# ---------------------------------------------------------------- retrieval (pyserini's two-click reproductions)


PYSERINI = "castorini/pyserini"


def pyserini_datasets(commit: str, name: str, metric: str) -> pd.DataFrame:
    """Conditions x datasets of one 2CR file whose conditions list ``datasets`` (BEIR, BRIGHT)."""
    doc = yaml.safe_load(show(PYSERINI, f"pyserini/2cr/{name}.yaml", commit))
    rows = {}
    for cond in doc["conditions"]:
        assert cond["name"] not in rows
        rows[cond["name"]] = {d["dataset"]: d["scores"][0][metric] for d in cond["datasets"]}
    return pd.DataFrame.from_dict(rows, orient="index").astype(float)


def pyserini_languages(commit: str, name: str, split: str, metric: str) -> pd.DataFrame:
    """Conditions named '<method>.<language>' to a methods x languages table (MIRACL, Mr. TyDi)."""
    doc = yaml.safe_load(show(PYSERINI, f"pyserini/2cr/{name}.yaml", commit))
    cells: dict[str, dict[str, float]] = {}
    for cond in doc["conditions"]:
        method, language = cond["name"].rsplit(".", 1)
        scores = [s["scores"][0][metric] for s in cond["splits"] if s["split"] == split]
        if scores:
            assert language not in cells.setdefault(method, {})
            cells[method][language] = scores[0]
    return pd.DataFrame.from_dict(cells, orient="index").astype(float)


@table(
    id="beir_pyserini",
    domain="retrieval",
    source_repo=PYSERINI,
    source_path="pyserini/2cr/beir.yaml",
    license="Apache-2.0",
    changes=(
        "YAML to rows: one row per condition (its `name`), one column per dataset, value nDCG@10; R@100 and R@1000 "
        "and the commands dropped. The two bge-base-en-v1.5 conditions (faiss and Lucene flat index) are "
        "near-duplicates."
    ),
    published="mean",
)
def beir(commit: str) -> tuple[pd.DataFrame, None]:
    return pyserini_datasets(commit, "beir", "nDCG@10"), None


@table(
    id="bright_pyserini",
    domain="retrieval (reasoning-intensive)",
    source_repo=PYSERINI,
    source_path="pyserini/2cr/bright.yaml",
    license="Apache-2.0",
    changes="YAML to rows: one row per condition, one column per dataset, value nDCG@10; recall and commands dropped.",
    published="mean",
)
def bright(commit: str) -> tuple[pd.DataFrame, None]:
    return pyserini_datasets(commit, "bright", "nDCG@10"), None


@table(
    id="miracl_pyserini",
    domain="multilingual retrieval",
    source_repo=PYSERINI,
    source_path="pyserini/2cr/miracl.yaml",
    license="Apache-2.0",
    changes=(
        "Conditions are named '<method>.<language>': split at the last dot into a row (method) and a column "
        "(language); value nDCG@10 of the dev split; train split, R@100 and commands dropped. A method not run on a "
        "language leaves that cell empty."
    ),
)
def miracl(commit: str) -> tuple[pd.DataFrame, None]:
    return pyserini_languages(commit, "miracl", "dev", "nDCG@10"), None


@table(
    id="mrtydi_pyserini",
    domain="multilingual retrieval",
    source_repo=PYSERINI,
    source_path="pyserini/2cr/mrtydi.yaml",
    license="Apache-2.0",
    changes=(
        "Conditions '<method>.<language>' split at the last dot into row (method) and column (language); value "
        "MRR@100 of the test split; train/dev splits, R@100 and commands dropped."
    ),
)
def mrtydi(commit: str) -> tuple[pd.DataFrame, None]:
    return pyserini_languages(commit, "mrtydi", "test", "MRR@100"), None


# ---------------------------------------------------------------- text embeddings


MTEB = "embeddings-benchmark/leaderboard"
MTEB_COSTS = ["Model Size (Million Parameters)", "Memory Usage (GB, fp32)"]
ANCHOR = re.compile(r'<a [^>]*href="([^"]*)"[^>]*>(.*?)</a>')


def mteb_names(cells: list[str]) -> list[str]:
    """The link text of each Model cell; a text shared by several rows becomes the link's path (org/name)."""
    parsed = []
    for cell in cells:
        match = ANCHOR.fullmatch(cell)
        parsed.append((match.group(2), match.group(1)) if match else (cell, cell))
    counts = pd.Series([text for text, _ in parsed]).value_counts()
    names = []
    for text, href in parsed:
        names.append(text if counts[text] == 1 else href.split("huggingface.co/")[-1].rstrip("/"))
    return names


def mteb_board(commit: str, board: str) -> tuple[pd.DataFrame, pd.Series]:
    base = f"boards_data/{board}"
    overall = pd.read_json(io.StringIO(show(MTEB, f"{base}/data_overall/default.jsonl", commit)), lines=True)
    overall = overall.set_index("index")
    wide = pd.DataFrame(index=overall.index)
    for category in ls(MTEB, f"{base}/data_tasks", commit):
        frame = pd.read_json(io.StringIO(show(MTEB, f"{base}/data_tasks/{category}/default.jsonl", commit)), lines=True)
        frame = frame.set_index("index")
        skip = {"Rank", "Model", "Average", *MTEB_COSTS, "Embedding Dimensions", "Max Tokens"}
        for col in frame.columns:
            if col not in skip:
                assert col not in wide.columns, col
                wide[col] = pd.to_numeric(frame[col].replace("", np.nan)).reindex(wide.index)
    for col in MTEB_COSTS:
        wide[col] = pd.to_numeric(overall[col].replace("", np.nan))
    names = mteb_names(overall["Model"].tolist())
    average = next(c for c in overall.columns if c.startswith("Average"))
    published = pd.Series(pd.to_numeric(overall[average].replace("", np.nan)).to_numpy(), index=names)
    wide.index = names
    return wide, published


@table(
    id="mteb_en",
    domain="text embeddings",
    source_repo=MTEB,
    source_path="boards_data/en/data_overall/default.jsonl, boards_data/en/data_tasks/*/default.jsonl",
    license="",
    changes=(
        "Joined the seven category files on their `index` field: every dataset column became a task (category "
        "averages, Rank, Embedding Dimensions and Max Tokens dropped); Model Size and Memory Usage kept as costs; "
        "empty strings written as empty cells. Model names: the text of the HTML link in the Model cell; a text that "
        "several rows share is replaced by the link's Hugging Face path (org/name). `Average (56 datasets)` is the "
        "published file."
    ),
    costs=MTEB_COSTS,
    published="mean",
)
def mteb_en(commit: str) -> tuple[pd.DataFrame, pd.Series]:
    return mteb_board(commit, "en")


@table(
    id="mteb_zh",
    domain="text embeddings (Chinese)",
    source_repo=MTEB,
    source_path="boards_data/zh/data_overall/default.jsonl, boards_data/zh/data_tasks/*/default.jsonl",
    changes="As mteb_en, for the Chinese board (C-MTEB).",
    costs=MTEB_COSTS,
    published="mean",
)
def mteb_zh(commit: str) -> tuple[pd.DataFrame, pd.Series]:
    return mteb_board(commit, "zh")


def mteb_single(commit: str, board: str, category: str) -> tuple[pd.DataFrame, pd.Series]:
    """A board with one category file: its datasets as tasks, its Average as the published file."""
    path = f"boards_data/{board}/data_tasks/{category}/default.jsonl"
    frame = pd.read_json(io.StringIO(show(MTEB, path, commit)), lines=True)
    names = mteb_names(frame["Model"].tolist())
    skip = {"index", "Rank", "Model", "Average", "Embedding Dimensions", "Max Tokens"}
    wide = frame[[c for c in frame.columns if c not in skip]].replace("", np.nan).apply(pd.to_numeric)
    wide = wide[[c for c in wide.columns if c not in MTEB_COSTS] + MTEB_COSTS]
    wide.index = names
    published = pd.Series(pd.to_numeric(frame["Average"].replace("", np.nan)).to_numpy(), index=names)
    return wide, published


@table(
    id="mteb_bitext_en_x",
    domain="multilingual (bitext mining, text embeddings)",
    source_repo=MTEB,
    source_path="boards_data/en-x/data_tasks/BitextMining/default.jsonl",
    changes=(
        "One row per record: every dataset column (BUCC and Tatoeba language pairs) a task; Model Size and Memory "
        "Usage kept as costs; Rank, Embedding Dimensions, Max Tokens dropped; `Average` is the published file. "
        "Model names as in mteb_en (link text, or the link's org/name where the text repeats)."
    ),
    costs=MTEB_COSTS,
    published="mean",
)
def mteb_bitext(commit: str) -> tuple[pd.DataFrame, pd.Series]:
    return mteb_single(commit, "en-x", "BitextMining")


@table(
    id="mteb_law",
    domain="retrieval (legal, text embeddings)",
    source_repo=MTEB,
    source_path="boards_data/law/data_tasks/Retrieval/default.jsonl",
    changes="As mteb_bitext_en_x, for the law retrieval board.",
    costs=MTEB_COSTS,
    published="mean",
)
def mteb_law(commit: str) -> tuple[pd.DataFrame, pd.Series]:
    return mteb_single(commit, "law", "Retrieval")


# ---------------------------------------------------------------- files shipped in the benchbench package (PyPI)


BENCHBENCH = "PyPI: benchbench==1.0.1"


def benchbench_file(path: str) -> Path:
    import benchbench

    return Path(benchbench.__file__).parent / "data" / path


def benchbench_sha1(path: str) -> str:
    """SHA-1 of the file as shipped (the `commit` of a table read from a package: there is no repository commit)."""
    return hashlib.sha1(benchbench_file(path).read_bytes()).hexdigest()


@table(
    id="helm_classic_toxicity",
    domain="LLM toxicity",
    source_repo=BENCHBENCH,
    source_path="benchbench/data/helm/toxicity.tsv",
    license="MIT (benchbench); HELM results Apache-2.0",
    changes=(
        "Tab-separated to CSV; 'Mean win rate' moved to the published file; '-' written as an empty cell. Every "
        "column is a toxic fraction (lower is better). `commit` is the SHA-1 of the file as shipped in the wheel."
    ),
    lower_is_better="all",
    published="other:HELM mean win rate (share of other models beaten, averaged over scenarios)",
)
def helm_toxicity(commit: str) -> tuple[pd.DataFrame, pd.Series]:
    frame = pd.read_csv(benchbench_file("helm/toxicity.tsv"), sep="\t", keep_default_na=False, na_values=MISSING)
    frame = frame.set_index("Model")
    published = frame.pop("Mean win rate").astype(float)
    return frame.astype(float), published


@table(
    id="openllm_v1_benchbench",
    domain="LLM",
    source_repo=BENCHBENCH,
    source_path="benchbench/data/openllm/leaderboard.tsv",
    license="MIT (benchbench)",
    changes=(
        "Tab-separated to CSV; the model-type column `T` (an emoji) dropped; `Average` moved to the published file. "
        "13 names appear twice (two submissions, e.g. two precisions, with different scores): the second row gets ' "
        "(2)'. "
        "`commit` is the SHA-1 of the file as shipped in the wheel."
    ),
    published="mean",
)
def openllm(commit: str) -> tuple[pd.DataFrame, pd.Series]:
    frame = pd.read_csv(benchbench_file("openllm/leaderboard.tsv"), sep="\t", keep_default_na=False, na_values=MISSING)
    frame = frame.drop(columns=["T"])
    seen = frame.groupby("Model").cumcount()
    frame["Model"] = [name if k == 0 else f"{name} ({k + 1})" for name, k in zip(frame["Model"], seen)]
    frame = frame.set_index("Model")
    published = frame.pop("Average").astype(float)
    return frame.astype(float), published


@table(
    id="helm_lite_benchbench",
    domain="LLM",
    source_repo=BENCHBENCH,
    source_path="benchbench/data/helm_lite/leaderboard.tsv",
    license="MIT (benchbench); HELM results Apache-2.0",
    changes=(
        "Tab-separated to CSV; 'Mean win rate' moved to the published file; '-' written as an empty cell. "
        "`commit` is the SHA-1 of the file as shipped in the wheel."
    ),
    published="other:HELM mean win rate (share of other models beaten, averaged over scenarios)",
)
def helm_lite(commit: str) -> tuple[pd.DataFrame, pd.Series]:
    path = benchbench_file("helm_lite/leaderboard.tsv")
    frame = pd.read_csv(path, sep="\t", keep_default_na=False, na_values=MISSING).set_index("Model")
    published = frame.pop("Mean win rate").astype(float)
    return frame.astype(float), published


# ---------------------------------------------------------------- speech


REVERB = "revdotcom/reverb"


def markdown_rows(text: str) -> list[list[str]]:
    """Cells of the body rows of the markdown tables in ``text`` (header and rule rows left out)."""
    rows = []
    for line in text.splitlines():
        if not line.strip().startswith("|") or set(line.replace("|", "").strip()) <= set("-: "):
            continue
        cells = [c.strip().replace("\\_", "_") for c in line.strip().strip("|").split("|")]
        rows.append(cells)
    return rows


@table(
    id="reverb_asr",
    domain="speech recognition",
    source_repo=REVERB,
    source_path="asr/wer_evaluation/RESULTS.md",
    license="see the repository (Rev's model licence)",
    changes=(
        "Four markdown tables to one: rows are the decoding modes, columns the test sets, value WER with the percent "
        "sign dropped; Rev16 gives two columns, the verbatim reference WER at verbatimicity 1.0 and the nonverbatim "
        "reference WER at verbatimicity 0.0 (the two settings the repository pairs with each reference); 'n/a' "
        "written as empty. joint_decoding is scored on one test set only. Every column is a WER (lower is better)."
    ),
    lower_is_better="all",
)
def reverb(commit: str) -> tuple[pd.DataFrame, None]:
    text = show(REVERB, "asr/wer_evaluation/RESULTS.md", commit)
    cells: dict[str, dict[str, float]] = {}
    blocks = re.split(r"\*\*(.+?)\*\*", text)[1:]
    for title, body in zip(blocks[::2], blocks[1::2]):
        for row in markdown_rows(body):
            if row[0] in ("Model", "Verbatimicity"):
                continue
            if title == "Rev16":
                column = (
                    "Rev16 verbatim (verbatimicity 1.0)" if row[0] == "1.0" else "Rev16 nonverbatim (verbatimicity 0.0)"
                )
                value = row[2] if row[0] == "1.0" else row[3]
                model = row[1]
            else:
                column, model, value = title, row[0], row[1]
            value = value.removesuffix("%").strip()
            cells.setdefault(model, {})[column] = np.nan if value == "n/a" else float(value)
    return pd.DataFrame.from_dict(cells, orient="index"), None


SPEECHIO = "SpeechColab/Leaderboard"


@table(
    id="speechio_zh",
    domain="speech recognition (Chinese)",
    source_repo=SPEECHIO,
    source_path="README.md (section 5, Latest Results)",
    license="see the repository",
    changes=(
        "The six markdown tables of section 5 (public and private models; unlocked, locked and all SpeechIO test "
        "sets) to one: one row per model (names as printed, '(*)' kept), one column per test-set group, value CER "
        "with the percent sign dropped; rank and date dropped. Every column is a CER (lower is better)."
    ),
    lower_is_better="all",
)
def speechio(commit: str) -> tuple[pd.DataFrame, None]:
    text = show(SPEECHIO, "README.md", commit)
    section = text.split("## 5. Latest Results")[1].split("<details>")[0]
    cells: dict[str, dict[str, float]] = {}
    for heading, body in zip(*[iter(re.split(r"^#### (.+)$", section, flags=re.M)[1:])] * 2):
        column = heading.replace("**", "").strip()
        for row in markdown_rows(body):
            if row[0].startswith("Rank") or row[0].startswith("Model"):
                continue
            model, value = (row[1], row[2]) if row[0].isdigit() else (row[0], row[1])
            cells.setdefault(model, {})[column] = float(value.removesuffix("%"))
    return pd.DataFrame.from_dict(cells, orient="index"), None


# ---------------------------------------------------------------- more retrieval and LLM judges


@table(
    id="msmarco_v1_passage_pyserini",
    domain="retrieval (passage ranking)",
    source_repo=PYSERINI,
    source_path="pyserini/2cr/msmarco-v1-passage.yaml",
    license="Apache-2.0",
    changes=(
        "YAML to rows: one row per condition (`name`), three tasks: MRR@10 on the MS MARCO dev queries and nDCG@10 "
        "on the TREC DL19 and DL20 passage queries (the metrics the 2CR page leads with); MAP and recall dropped. A "
        "condition without a topic set leaves that cell empty."
    ),
)
def msmarco(commit: str) -> tuple[pd.DataFrame, None]:
    doc = yaml.safe_load(show(PYSERINI, "pyserini/2cr/msmarco-v1-passage.yaml", commit))
    metric = {"msmarco-v1-passage.dev": "MRR@10", "dl19-passage": "nDCG@10", "dl20-passage": "nDCG@10"}
    rows = {}
    for cond in doc["conditions"]:
        assert cond["name"] not in rows
        row = {}
        for topic in cond.get("topics", []):
            key = topic["topic_key"]
            if key in metric:
                row[f"{key} {metric[key]}"] = topic["scores"][0][metric[key]]
        rows[cond["name"]] = row
    return pd.DataFrame.from_dict(rows, orient="index").astype(float), None


ALPACA_2 = {
    "weighted_alpaca_eval_gpt4_turbo": "weighted_alpaca_eval_gpt4_turbo_leaderboard.csv",
    "alpaca_eval_gpt4_turbo_fn": "alpaca_eval_gpt4_turbo_fn_leaderboard.csv",
    "alpaca_eval_cot_gpt4_turbo_fn": "alpaca_eval_cot_gpt4_turbo_fn_leaderboard.csv",
    "claude_3_opus_ranking": "claude_3_opus_ranking_leaderboard.csv",
    "mistral-large-2402_ranking": "mistral-large-2402_ranking_leaderboard.csv",
}


@table(
    id="alpaca_eval_all_judges",
    domain="LLM (instruction following, LLM judges)",
    source_repo=ALPACA,
    source_path="src/alpaca_eval/leaderboards/data_AlpacaEval/*.csv and data_AlpacaEval_2/*.csv",
    license="Apache-2.0",
    changes=(
        "Joined the nine judge leaderboards of AlpacaEval 1 and 2 on the model name: the `win_rate` of each became "
        "one task named 'AlpacaEval 1: <judge>' or 'AlpacaEval 2: <judge>'; everything else dropped. The two "
        "versions use different reference models, so the two blocks barely overlap: no model is rated by all nine."
    ),
)
def alpaca_all(commit: str) -> tuple[pd.DataFrame, None]:
    cols = {}
    for version, folder, files in (("1", "data_AlpacaEval", ALPACA_1), ("2", "data_AlpacaEval_2", ALPACA_2)):
        for judge, path in files.items():
            frame = csv(ALPACA, f"src/alpaca_eval/leaderboards/{folder}/{path}", commit, index_col=0)
            assert frame.index.is_unique
            cols[f"AlpacaEval {version}: {judge}"] = frame["win_rate"].astype(float)
    return pd.DataFrame(cols), None


SUPERCLUE = "CLUEbenchmark/SuperCLUE"


@table(
    id="superclue_open_2311",
    domain="LLM (Chinese)",
    source_repo=SUPERCLUE,
    source_path="README_2311.md (the OPEN multi-turn table)",
    license="see the repository",
    changes=(
        "The markdown table whose header has 'OPEN<br/>总分': rows the models (names as printed, Chinese included), "
        "the four ability columns as tasks with '<br/>' removed from their names; the rank (medal emoji or number), "
        "organisation and access columns dropped; the OPEN total moved to the published file."
    ),
    published="other:SuperCLUE OPEN total as published (not the mean of the four columns)",
)
def superclue(commit: str) -> tuple[pd.DataFrame, pd.Series]:
    text = show(SUPERCLUE, "README_2311.md", commit)
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if "OPEN<br/>总分" in line)
    header = [c.strip().replace("<br/>", "") for c in lines[start].strip().strip("|").split("|")]
    rows = []
    for line in lines[start + 2 :]:
        if not line.strip().startswith("|"):
            break
        rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    frame = pd.DataFrame([r[: len(header)] for r in rows], columns=header)
    frame = frame.drop(columns=["排名", "机构", "使用"]).set_index("模型")
    published = frame.pop("OPEN总分").astype(float)
    return frame.astype(float), published


# ---------------------------------------------------------------- recommendation


BARS = "reczoo/BARS"
BARS_TEST = re.compile(r"\[test\] (?:gAUC: [\d.]+ - )?AUC: ([\d.]+) - logloss: ([\d.]+)")
BARS_FOLDER = re.compile(r"(.+?)_([A-Za-z0-9.]+_x\d+(?:_\d+)?)")


def bars_files(commit: str) -> list[str]:
    out = subprocess.check_output(
        ["git", "-C", str(git_dir(BARS)), "ls-tree", "-r", "--name-only", commit, "ranking/ctr"]
    )
    return [p for p in out.decode("utf-8").split("\n") if p.endswith("/results.csv")]


@table(
    id="bars_ctr",
    domain="recommendation (click-through rate prediction)",
    source_repo=BARS,
    source_path="ranking/ctr/<family>/<model>_<dataset>/results.csv",
    license="Apache-2.0",
    changes=(
        "One results.csv per model and dataset: the folder '<model>_<dataset>' gives both (the dataset id, e.g. "
        "avazu_x4_001, in lower case, as one folder writes KKBox_x1 for kkbox_x1); the `[test]` AUC and logloss "
        "become the columns '<dataset> AUC' (higher is better) and '<dataset> logloss' (lower is better). Files "
        "holding more than one run (repeated seeds or a tuning log: the board reports their mean, which the file "
        "does not hold) are left out, so those cells are empty; gAUC and validation scores dropped."
    ),
    lower_is_better=["logloss"],
)
def bars(commit: str) -> tuple[pd.DataFrame, None]:
    cells: dict[str, dict[str, float]] = {}
    for path in bars_files(commit):
        text = show(BARS, path, commit)
        tests = BARS_TEST.findall(text)
        if len(tests) != 1:
            continue
        model, dataset = BARS_FOLDER.fullmatch(path.split("/")[-2]).groups()
        dataset = dataset.lower()
        row = cells.setdefault(model, {})
        assert f"{dataset} AUC" not in row, path
        row[f"{dataset} AUC"], row[f"{dataset} logloss"] = float(tests[0][0]), float(tests[0][1])
    wide = pd.DataFrame.from_dict(cells, orient="index")
    return wide[sorted(wide.columns)], None


# ---------------------------------------------------------------- writing


def toml_value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k, ensure_ascii=False)} = {v!r}" for k, v in value.items()) + " }"
    return repr(value)


def build_one(t: Table) -> str:
    if t.source_repo == BENCHBENCH:
        t.commit = benchbench_sha1(t.source_path.removeprefix("benchbench/data/"))
    else:
        t.commit = t.commit or head(t.source_repo, "gh-pages" if "gh-pages" in t.source_path else "HEAD")
    wide, published = t.build(t.commit)
    empty = [str(c) for c in wide.columns if wide[c].isna().all()]
    wide = wide.drop(columns=empty)
    if empty:
        t.changes += " Columns without any score dropped: " + ", ".join(empty) + "."
    wide.index = wide.index.map(lambda s: str(s).strip())
    assert wide.index.is_unique, t.id
    wide.index.name = "model"
    if t.lower_is_better == ["logloss"]:
        t.lower_is_better = [str(c) for c in wide.columns if str(c).endswith(" logloss")]
    wide.to_csv(OUT / f"{t.id}.csv", lineterminator="\n")
    fields = {
        "id": t.id,
        "file": f"{t.id}.csv",
        "domain": t.domain,
        "source_repo": t.source_repo,
        "source_path": t.source_path,
        "commit": t.commit,
        "license": t.license,
        "changes": t.changes,
        "lower_is_better": t.lower_is_better,
        "costs": t.costs,
    }
    if t.weights is not None:
        fields["weights"] = t.weights(t.commit)
    if t.published:
        fields["published"] = t.published
    if published is not None:
        published = published.dropna()
        published.index = published.index.map(lambda s: str(s).strip())
        published.rename("value").rename_axis("model").to_csv(
            OUT / f"{t.id}.published.csv", header=True, lineterminator="\n"
        )
        fields["published_file"] = f"{t.id}.published.csv"
    lines = ["[[table]]"] + [f"{k} = {toml_value(v)}" for k, v in fields.items() if v != ""]
    return "\n".join(lines) + "\n"


README_HEAD = """# A corpus of real leaderboards

Public leaderboard tables, as their maintainers publish them, that the audit (`benchvote audit`) is tested on
(`tests/test_corpus.py`, issue 37) and timed on (`bench/corpus.py`).
They are not part of the installed package.

- `<id>.csv`: wide, the model column first (names as published), one column per task or cost; an empty cell is
  a missing score.
- `<id>.published.csv` (some tables): the board's own aggregate per model (columns `model,value`).
- `manifest.toml`: one `[[table]]` per table: `id`, `file`, `domain`, `source_repo`, `source_path`, `commit`
  (40 hex digits: the repository's commit the file was read at; for a file shipped in a PyPI package, the SHA-1 of
  the file), `license` where the source states one, `changes` (every change made to the published table),
  `lower_is_better` (a list of columns, or "all"), `costs`, `weights` (where the board publishes them),
  `published` (how the board aggregates: `mean`, `weighted_mean`, `geometric_mean_relative:<baseline model>`,
  `column:<name>` when it ranks by one column, `other:<description>` when it cannot be re-derived from the table)
  and `published_file`.
  Read it with `tests/corpus.py`.

No number is changed: tables are only selected, joined, reshaped from long to wide, and stripped of percent signs
and thousands separators; names are kept except where a board lists one name twice (the manifest says how the
rows were told apart).
`scripts/build_corpus.py` rebuilds every file from snapshots of the sources at the recorded commits.

| id | domain | models x tasks | missing | costs | lower is better | source (repository, path, commit) | licence |
| --- | --- | --- | --- | --- | --- | --- | --- |
"""


def readme_row(t: Table) -> str:
    frame = pd.read_csv(OUT / f"{t.id}.csv", index_col=0)
    tasks = frame.drop(columns=t.costs)
    lower = t.lower_is_better if isinstance(t.lower_is_better, str) else len(t.lower_is_better) or "none"
    cells = [
        f"`{t.id}`",
        t.domain,
        f"{tasks.shape[0]} x {tasks.shape[1]}",
        f"{100 * float(tasks.isna().to_numpy().mean()):.1f} %",
        ", ".join(t.costs) or "none",
        str(lower),
        f"{t.source_repo}, `{t.source_path}`, `{t.commit[:10]}`",
        t.license or "not stated",
    ]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    blocks = [build_one(t) for t in TABLES]
    head_text = (
        "# The audit's corpus of real leaderboards: written by scripts/build_corpus.py, read by tests/corpus.py.\n"
    )
    (OUT / "manifest.toml").write_text(head_text + "\n" + "\n".join(blocks), encoding="utf-8")
    rows = "\n".join(readme_row(t) for t in TABLES)
    (OUT / "README.md").write_text(README_HEAD + rows + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
