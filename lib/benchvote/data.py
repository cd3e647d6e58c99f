"""Real leaderboards, baseline benchmarks and the small tables of the sources.

:func:`load` reads every leaderboard that the ``benchbench`` package
(Zhang & Hardt, 2024; MIT licence) ships as data files.  Only its ``.tsv``
files are read; none of its code is imported.  The parsing follows
benchbench's own conventions (which columns are tasks, how ``"a/b"`` cells
are split, which HELM/HEIM metrics are lower-is-better) so that numbers are
comparable, with three differences that are recorded in each leaderboard's
:attr:`Leaderboard.notes`:

* scores are kept as published; a lower-is-better task is marked in
  :attr:`Leaderboard.higher_is_better` instead of being negated;
* missing cells stay missing (benchbench imputes them for diversity);
* MTEB's overall average column is not treated as 56 extra tasks.

:func:`load_table` reads the small tables transcribed from the source papers
(in the repository's ``data/`` folder, documented in ``data/README.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._validation import numbered

__all__ = [
    "Leaderboard",
    "list_leaderboards",
    "load",
    "random_leaderboard",
    "constant_leaderboard",
    "gumbel_instances",
    "helm_scenarios",
    "list_tables",
    "load_table",
    "published_win_rate",
    "IrtItems",
    "irt_items",
    "list_battle_logs",
    "load_battles",
    "list_item_tables",
    "load_items",
    "BENCHBENCH_VERSION",
]

BENCHBENCH_VERSION = "1.0.1"


@dataclass(frozen=True)
class Leaderboard:
    """A models x tasks leaderboard with its metadata.

    Attributes
    ----------
    name : str
        Name used by :func:`load`.
    kind : {"cardinal", "ordinal"}
        Whether the source aggregates scores (mean) or rankings (win rate).
    scores : DataFrame
        Models (rows) x tasks (columns), as published; ``nan`` marks a missing cell.
    higher_is_better : Series of bool
        Direction of each task.
    source : str
        Where the numbers come from.
    version : str
        Version of the source.
    notes : tuple of str
        Every change made while loading (renamed duplicates, dropped models
        without any score, split cells).
    """

    name: str
    kind: str
    scores: pd.DataFrame
    higher_is_better: pd.Series
    source: str
    version: str
    notes: tuple = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.kind not in ("cardinal", "ordinal"):
            raise ValueError(f"kind must be 'cardinal' or 'ordinal', got {self.kind!r}")
        if list(self.higher_is_better.index) != list(self.scores.columns):
            raise ValueError("higher_is_better must be indexed by the task columns, in order")
        if not self.scores.index.is_unique or not self.scores.columns.is_unique:
            raise ValueError("model and task labels must be unique")
        if not all(pd.api.types.is_float_dtype(t) for t in self.scores.dtypes):
            raise ValueError("scores must be float columns")

    @property
    def n_models(self) -> int:
        return self.scores.shape[0]

    @property
    def n_tasks(self) -> int:
        return self.scores.shape[1]

    @property
    def n_missing(self) -> int:
        return int(self.scores.isna().to_numpy().sum())

    @property
    def models(self) -> list:
        return list(self.scores.index)

    @property
    def tasks(self) -> list:
        return list(self.scores.columns)

    def oriented(self) -> pd.DataFrame:
        """Scores with every lower-is-better task negated, so that higher is always better."""
        sign = np.where(self.higher_is_better.to_numpy(), 1.0, -1.0)
        return self.scores * sign

    def subset(self, models: list | None = None, tasks: list | None = None) -> Leaderboard:
        """A leaderboard restricted to some models and/or tasks (unknown labels raise KeyError)."""
        scores = self.scores
        if models is not None:
            unknown = [x for x in models if x not in scores.index]
            if unknown:
                raise KeyError(f"unknown {numbered(len(unknown), 'model')} {unknown[:5]} in leaderboard {self.name!r}")
            scores = scores.loc[list(models)]
        if tasks is not None:
            unknown = [t for t in tasks if t not in scores.columns]
            if unknown:
                raise KeyError(f"unknown {numbered(len(unknown), 'task')} {unknown[:5]} in leaderboard {self.name!r}")
            scores = scores.loc[:, list(tasks)]
        return replace(self, scores=scores, higher_is_better=self.higher_is_better.loc[list(scores.columns)])

    def __repr__(self) -> str:
        return (
            f"Leaderboard({self.name!r}, {self.kind}, {self.n_models} models x {self.n_tasks} tasks, "
            f"{self.n_missing} missing)"
        )


# --------------------------------------------------------------------------- helpers


def _benchbench_file(*parts: str) -> Path:
    try:
        root = resources.files("benchbench")
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "the leaderboards are read from the data files of the benchbench package; install it with "
            f"`pip install --no-deps benchbench=={BENCHBENCH_VERSION}` (only its data files are used)"
        ) from None
    path = root.joinpath("data", *parts)
    if not path.is_file():
        raise FileNotFoundError(
            f"benchbench data file {'/'.join(parts)} not found (expected benchbench {BENCHBENCH_VERSION})"
        )
    return Path(str(path))


def _read_tsv(*parts: str, **kwargs) -> pd.DataFrame:
    return pd.read_csv(_benchbench_file(*parts), sep="\t", **kwargs)


def _unique_labels(labels: list[str], notes: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    renamed = []
    for lab in labels:
        lab = str(lab).strip()
        k = seen.get(lab, 0) + 1
        seen[lab] = k
        if k > 1:
            new = f"{lab} #{k}"
            renamed.append(new)
            out.append(new)
        else:
            out.append(lab)
    if renamed:
        notes.append(
            f"{len(renamed)} repeated model {numbered(len(renamed), 'name')} got a suffix '#k' in order of appearance: "
            f"{renamed[:4]}" + (" ..." if len(renamed) > 4 else "")
        )
    return out


def _to_float(col: pd.Series, name: str) -> np.ndarray:
    vals = col.replace("-", np.nan)
    try:
        return pd.to_numeric(vals).to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"non-numeric entry in task {name!r}: {exc}") from None


def _split_pair(col: pd.Series) -> np.ndarray:
    """'94.2/92.3' -> 93.25 (the mean of the two published metrics)."""
    parts = col.astype(str).str.split("/", expand=True).astype(float)
    return parts.mean(axis=1).to_numpy()


def _frame(names: list[str], columns: dict[str, np.ndarray], notes: list[str]) -> pd.DataFrame:
    labels = _unique_labels(names, notes)
    df = pd.DataFrame(columns, index=pd.Index(labels, name="model"))
    df.columns.name = "task"
    return df.astype(float)


def _drop_unscored(df: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    empty = df.isna().all(axis=1)
    if empty.any():
        notes.append(
            f"dropped {int(empty.sum())} {numbered(int(empty.sum()), 'model')} without a score on any task of "
            "this group: "
            f"{list(df.index[empty])[:4]}" + (" ..." if empty.sum() > 4 else "")
        )
        df = df.loc[~empty]
    full_nan_tasks = df.columns[df.isna().all(axis=0)]
    if len(full_nan_tasks):
        notes.append(
            f"dropped {len(full_nan_tasks)} {numbered(len(full_nan_tasks), 'task')} without any score: "
            f"{list(full_nan_tasks)[:4]}"
        )
        df = df.drop(columns=full_nan_tasks)
    return df


# --------------------------------------------------------------------------- cardinal


def _glue_like(
    file: str, first: int, last: int, drop: tuple[str, ...], merge_mnli: bool
) -> tuple[pd.DataFrame, list[str]]:
    raw = _read_tsv(file, "leaderboard.tsv")
    notes: list[str] = []
    cols: dict[str, np.ndarray] = {}
    split = []
    for c in raw.columns[first:last]:
        if c in drop:
            continue
        if merge_mnli and c.startswith("MNLI"):
            continue
        col = raw[c]
        if col.dtype == object or pd.api.types.is_string_dtype(col):
            if col.astype(str).str.contains("/").any():
                cols[c] = _split_pair(col)
                split.append(c)
                continue
        cols[c] = _to_float(col, c)
    if merge_mnli:
        cols["MNLI"] = (raw["MNLI-m"].to_numpy(dtype=float) + raw["MNLI-mm"].to_numpy(dtype=float)) / 2
        notes.append("MNLI is the mean of MNLI-m and MNLI-mm")
    if split:
        notes.append(f"cells 'a/b' (two metrics of one task) are averaged: {split}")
    notes.append("diagnostic columns (AX*) are not tasks")
    return _frame(list(raw["Model"]), cols, notes), notes


def _load_glue():
    return _glue_like("glue", 5, -1, drop=("AX",), merge_mnli=True)


def _load_superglue():
    return _glue_like("superglue", 5, -2, drop=("AX-b", "AX-g"), merge_mnli=False)


def _task_columns(folder: str, first: int, name_col: str, notes: list[str], last: int | None = None):
    """Leaderboards whose task columns are a contiguous block of the file."""
    raw = _read_tsv(folder, "leaderboard.tsv")
    cols = {c: _to_float(raw[c], c) for c in raw.columns[first:last]}
    return _frame(list(raw[name_col]), cols, notes), notes


def _load_openllm():
    return _task_columns("openllm", 3, "Model", [])


def _load_mmlu():
    raw = _read_tsv("mmlu", "leaderboard.tsv")
    notes = [
        "accuracies are multiplied by 100 (percent)",
        "task names drop the 'harness|hendrycksTest-' prefix and '|5' suffix",
    ]
    cols = {}
    for c in raw.columns[4:]:
        short = c.replace("harness|hendrycksTest-", "").replace("|5", "")
        cols[short] = 100.0 * _to_float(raw[c], c)
    names = [str(n).replace("details_", "").replace("__", "/") for n in raw["model_name"]]
    return _frame(names, cols, notes), notes


def _load_bbh():
    return _task_columns("bbh", 6, "Model", [])


def _load_mteb():
    raw = _read_tsv("mteb", "leaderboard.tsv")
    notes = [
        "each task-type average is repeated once per dataset it averages (56 in all), so the plain mean "
        "equals MTEB's dataset-weighted average",
        "the overall 'Average (56 datasets)' column is not a task (benchbench 1.0.1 expands it into 56 "
        "extra copies, doubling the task count to 112)",
    ]
    cols: dict[str, np.ndarray] = {}
    for c in raw.columns[6:]:
        if c.startswith("Average"):
            continue
        kind, count = c.split(" (")
        n = int(count.split(" ")[0])
        values = _to_float(raw[c], c)
        for i in range(n):
            cols[f"{kind.replace(' Average', '')}-{i}"] = values
    return _frame(list(raw["Model"]), cols, notes), notes


def _load_vtab():
    raw = _read_tsv("vtab", "leaderboard.tsv", index_col=0)
    notes = ["the first column of the file is the published mean and is not a task"]
    cols = {c: _to_float(raw[c], c) for c in raw.columns[1:]}
    return _frame(list(raw.index), cols, notes), notes


def _load_helm_capability():
    return _task_columns("helm_capability", 2, "Model", ["the published 'Mean score' column is not a task"])


def _load_imagenet(n_tasks: int = 20, seed: int = 0):
    if n_tasks < 1 or 1000 % n_tasks:
        raise ValueError(f"n_tasks must divide 1000, got {n_tasks}")
    raw = _read_tsv("imagenet", "leaderboard.tsv")
    notes = [
        f"the 1,000 per-class accuracies are split into {n_tasks} tasks of {1000 // n_tasks} classes by the "
        f"permutation numpy.random.RandomState({seed}).permutation(1000) (benchbench's split); each task "
        "score is the mean accuracy over its classes, times 100"
    ]
    perm = np.random.RandomState(seed).permutation(1000)
    per_class = raw[[f"acc_{j}" for j in range(1000)]].to_numpy(dtype=float)
    size = 1000 // n_tasks
    cols = {
        f"classes-{i:02d}": 100.0 * per_class[:, perm[i * size : (i + 1) * size]].mean(axis=1) for i in range(n_tasks)
    }
    return _frame(list(raw["Weight"]), cols, notes), notes


# --------------------------------------------------------------------------- ordinal

_HELM_LOWER = ("ECE", "Representation", "Toxic fraction", "Stereotype", "inference time")


def _load_helm(group: str):
    raw = _read_tsv("helm", f"{group}.tsv")
    notes = ["the published 'Mean win rate' column is not a task"]
    name_col = raw.columns[0]
    cols = {c: _to_float(raw[c], c) for c in raw.columns[2:]}
    df = _drop_unscored(_frame(list(raw[name_col]), cols, notes), notes)
    higher = pd.Series([not any(k in c for k in _HELM_LOWER) for c in df.columns], index=df.columns, dtype=bool)
    if (~higher).any():
        notes.append(
            f"{int((~higher).sum())} lower-is-better {numbered(int((~higher).sum()), 'task')} (as in benchbench: ECE, "
            "representation, stereotypes, toxic fraction, inference time)"
        )
    return df, notes, higher


def _load_helm_lite():
    raw = _read_tsv("helm_lite", "leaderboard.tsv")
    notes = ["the published 'Mean win rate' column is not a task"]
    cols = {c: _to_float(raw[c], c) for c in raw.columns[2:]}
    df = _drop_unscored(_frame(list(raw["Model"]), cols, notes), notes)
    return df, notes, None


def _load_heim(group: str):
    raw = _read_tsv("heim", f"{group}.tsv")
    notes = ["the published 'Mean win rate' column is not a task; '[ sort ]' and arrows are removed from task names"]
    cols, higher = {}, []
    for c in raw.columns[2:]:
        clean = c.replace("[ sort ]", "").replace("↑", "").replace("↓", "").strip()
        cols[clean] = _to_float(raw[c], c)
        higher.append("↓" not in c)
    df = _frame(list(raw[raw.columns[0]]), cols, notes)
    hib = pd.Series(higher, index=df.columns, dtype=bool)
    df = _drop_unscored(df, notes)
    return df, notes, hib.loc[df.columns]


def _load_bigcode():
    notes = ["tasks are the three language pass@1 columns; the published 'Win' rate and throughput are not tasks"]
    return _task_columns("bigcode", 3, "Models", notes, last=6)


# --------------------------------------------------------------------------- registry

_HELM_GROUPS = ("accuracy", "bias", "calibration", "fairness", "efficiency", "robustness", "summarization", "toxicity")
_HEIM_GROUPS = (
    "alignment_auto",
    "nsfw",
    "quality_auto",
    "aesthetics_auto",
    "alignment_human",
    "nudity",
    "quality_human",
    "aesthetics_human",
    "black_out",
    "originality",
)

_CARDINAL: dict[str, tuple[Callable, str]] = {
    "GLUE": (_load_glue, "GLUE leaderboard (gluebenchmark.com) as shipped by benchbench"),
    "SuperGLUE": (_load_superglue, "SuperGLUE leaderboard (super.gluebenchmark.com) as shipped by benchbench"),
    "OpenLLM": (_load_openllm, "Open LLM Leaderboard v1 (Hugging Face), top 100 models, as shipped by benchbench"),
    "MMLU": (_load_mmlu, "per-subject MMLU accuracies from the Open LLM Leaderboard v1, as shipped by benchbench"),
    "BigBenchHard": (_load_bbh, "BIG-Bench Hard leaderboard (OpenCompass), as shipped by benchbench"),
    "MTEB": (_load_mteb, "MTEB leaderboard (task-type averages), as shipped by benchbench"),
    "VTAB": (_load_vtab, "VTAB-1k leaderboard, as shipped by benchbench"),
    "HELM-capability": (_load_helm_capability, "HELM Capabilities leaderboard, as shipped by benchbench"),
    "ImageNet": (
        _load_imagenet,
        "ImageNet validation accuracy of 112 torchvision models split into 20 class groups, as shipped by benchbench",
    ),
}
_ORDINAL: dict[str, tuple[Callable, str]] = {
    "BigCode": (_load_bigcode, "BigCode models leaderboard, as shipped by benchbench"),
    "HELM-lite": (_load_helm_lite, "HELM Lite leaderboard, as shipped by benchbench"),
}
for _g in _HELM_GROUPS:
    _ORDINAL[f"HELM-{_g}"] = (
        (lambda g=_g: _load_helm(g)),
        f"HELM Classic '{_g}' metric group, as shipped by benchbench",
    )
for _g in _HEIM_GROUPS:
    _ORDINAL[f"HEIM-{_g}"] = ((lambda g=_g: _load_heim(g)), f"HEIM '{_g}' metric group, as shipped by benchbench")


def list_leaderboards(kind: str | None = None) -> list[str]:
    """Names accepted by :func:`load`.

    Parameters
    ----------
    kind : {"cardinal", "ordinal"}, optional
        Restrict to one kind.

    Examples
    --------
    >>> list_leaderboards("cardinal")[:3]
    ['GLUE', 'SuperGLUE', 'OpenLLM']
    >>> len(list_leaderboards())
    29
    """
    if kind not in (None, "cardinal", "ordinal"):
        raise ValueError(f"kind must be 'cardinal', 'ordinal' or None, got {kind!r}")
    names: list[str] = []
    if kind in (None, "cardinal"):
        names += list(_CARDINAL)
    if kind in (None, "ordinal"):
        names += list(_ORDINAL)
    return names


@cache
def _load_cached(name: str) -> Leaderboard:
    if name in _CARDINAL:
        loader, source = _CARDINAL[name]
        df, notes = loader()
        kind, higher = "cardinal", None
    else:
        loader, source = _ORDINAL[name]
        out = loader()
        df, notes = out[0], out[1]
        higher = out[2] if len(out) > 2 else None
        kind = "ordinal"
    if higher is None:
        higher = pd.Series(True, index=df.columns, dtype=bool)
    higher.index = df.columns
    higher.name = "higher_is_better"
    return Leaderboard(
        name=name,
        kind=kind,
        scores=df,
        higher_is_better=higher,
        source=source,
        version=f"benchbench {BENCHBENCH_VERSION}",
        notes=tuple(notes),
    )


def load(name: str) -> Leaderboard:
    """Load a leaderboard shipped by benchbench.

    Parameters
    ----------
    name : str
        One of :func:`list_leaderboards` (case-insensitive).

    Returns
    -------
    Leaderboard

    Raises
    ------
    KeyError
        For an unknown name; the message lists the known names.

    Examples
    --------
    >>> lb = load("GLUE")
    >>> lb.kind, lb.n_models, lb.n_tasks, lb.n_missing
    ('cardinal', 87, 9, 0)
    >>> load("HELM-accuracy").scores.shape
    (67, 16)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    lookup = {k.lower(): k for k in list_leaderboards()}
    key = lookup.get(name.strip().lower())
    if key is None:
        raise KeyError(f"unknown leaderboard {name!r}; known leaderboards: {', '.join(list_leaderboards())}")
    lb = _load_cached(key)
    # hand out copies so that callers cannot modify the cached frame
    return replace(lb, scores=lb.scores.copy(), higher_is_better=lb.higher_is_better.copy())


# --------------------------------------------------------------------------- baselines


def _check_shape(n_models: int, n_tasks: int) -> None:
    if int(n_models) != n_models or n_models < 2:
        raise ValueError(f"n_models must be an integer >= 2, got {n_models}")
    if int(n_tasks) != n_tasks or n_tasks < 1:
        raise ValueError(f"n_tasks must be an integer >= 1, got {n_tasks}")


def random_leaderboard(
    n_models: int = 100, n_tasks: int = 100, *, seed: int = 0, kind: str = "cardinal"
) -> Leaderboard:
    """The *Random* baseline of Zhang & Hardt: independent uniform scores in [0, 100).

    Every task ranks the models at random, so diversity is close to its maximum.

    Parameters
    ----------
    n_models, n_tasks : int
        Size of the table (the paper uses 100 x 100).
    seed : int
        Seed of numpy's generator.
    kind : {"cardinal", "ordinal"}
        Which aggregation the baseline stands in for.

    Examples
    --------
    >>> lb = random_leaderboard(5, 3, seed=1)
    >>> lb.scores.shape, bool((lb.scores.to_numpy() < 100).all())
    ((5, 3), True)
    """
    _check_shape(n_models, n_tasks)
    rng = np.random.default_rng(seed)
    values = rng.uniform(0.0, 100.0, size=(n_models, n_tasks))
    df = pd.DataFrame(
        values,
        index=pd.Index([f"model-{i:04d}" for i in range(n_models)], name="model"),
        columns=pd.Index([f"task-{j:03d}" for j in range(n_tasks)], name="task"),
    )
    return Leaderboard(
        name="Random",
        kind=kind,
        scores=df,
        higher_is_better=pd.Series(True, index=df.columns, dtype=bool),
        source=f"benchvote.random_leaderboard(seed={seed})",
        version="generated",
        notes=(f"uniform scores from numpy.random.default_rng({seed})",),
    )


def constant_leaderboard(
    n_models: int = 100, n_tasks: int = 100, *, seed: int = 0, kind: str = "cardinal"
) -> Leaderboard:
    """The *Constant* baseline of Zhang & Hardt: one random task copied ``n_tasks`` times.

    Every task ranks the models identically, so diversity is 0 and no
    reweighting of tasks can change the mean-score ranking.

    Parameters
    ----------
    n_models, n_tasks : int
        Size of the table (the paper uses 100 x 100).
    seed : int
        Seed of numpy's generator.
    kind : {"cardinal", "ordinal"}
        Which aggregation the baseline stands in for.

    Examples
    --------
    >>> lb = constant_leaderboard(4, 3, seed=0)
    >>> bool((lb.scores.nunique(axis=1) == 1).all())
    True
    """
    _check_shape(n_models, n_tasks)
    rng = np.random.default_rng(seed)
    column = rng.uniform(0.0, 100.0, size=(n_models, 1))
    df = pd.DataFrame(
        np.repeat(column, n_tasks, axis=1),
        index=pd.Index([f"model-{i:04d}" for i in range(n_models)], name="model"),
        columns=pd.Index([f"task-{j:03d}" for j in range(n_tasks)], name="task"),
    )
    return Leaderboard(
        name="Constant",
        kind=kind,
        scores=df,
        higher_is_better=pd.Series(True, index=df.columns, dtype=bool),
        source=f"benchvote.constant_leaderboard(seed={seed})",
        version="generated",
        notes=(f"one uniform task from numpy.random.default_rng({seed}), repeated",),
    )


def gumbel_instances(
    n_models: int = 20, n_tasks: int = 20, n_instances: int = 20, *, phi: float = 0.5, seed: int = 0
) -> list[np.ndarray]:
    r"""Synthetic instance-level scores of Himmi et al.: model n scores Gumbel(:math:`\varphi n`, 1) on every instance.

    The true ranking puts model ``n_models - 1`` first; ``phi`` (between 0
    and 1) controls how clearly: at 0 all models are alike, at 1 the ranking
    is clear on almost every instance.

    Parameters
    ----------
    n_models, n_tasks, n_instances : int
        Number of models, of tasks, and of instances per task.
    phi : float
        Separation of the models, between 0 (all alike) and 1 (clearly ordered).
    seed : int
        Seed of numpy's generator.

    Returns
    -------
    list of ndarray
        One ``n_models x n_instances`` array per task.

    Examples
    --------
    >>> tasks = gumbel_instances(4, 3, 5, phi=1.0, seed=0)
    >>> len(tasks), tasks[0].shape
    (3, (4, 5))
    """
    if n_models < 2 or n_tasks < 1 or n_instances < 1:
        raise ValueError("need at least 2 models, 1 task and 1 instance")
    if not 0 <= phi <= 1:
        raise ValueError(f"phi must lie in [0, 1], got {phi}")
    rng = np.random.default_rng(seed)
    centre = phi * np.arange(1, n_models + 1)[:, None]
    return [rng.gumbel(loc=centre, scale=1.0, size=(n_models, n_instances)) for _ in range(n_tasks)]


def helm_scenarios(
    metrics: Sequence[str] = ("accuracy", "robustness", "fairness"),
) -> dict[str, tuple[pd.DataFrame, pd.Series]]:
    """Per-scenario tables of HELM Classic with one column per metric group (metrics as voters).

    benchbench ships HELM's metric groups as separate leaderboards whose
    columns are scenarios (``"MMLU - EM"``, ``"MMLU - EM (Robustness)"``,
    ``"MMLU - Denoised inference time (s)"``, ...).  This regroups them: for
    every scenario present in all requested groups, a models x metrics table
    of the models that have every requested metric on that scenario.

    Parameters
    ----------
    metrics : sequence of str
        HELM group names, e.g. ``("accuracy", "robustness", "fairness")`` or
        ``("accuracy", "robustness", "efficiency")``.

    Returns
    -------
    dict
        Scenario name -> (scores, higher_is_better).

    Examples
    --------
    >>> tables = helm_scenarios(("accuracy", "efficiency"))
    >>> scores, direction = tables["MMLU"]
    >>> list(scores.columns), direction.tolist()
    (['accuracy', 'efficiency'], [True, False])
    """
    metrics = list(metrics)
    unknown = [g for g in metrics if g not in _HELM_GROUPS]
    if unknown:
        raise KeyError(
            f"unknown HELM {numbered(len(unknown), 'group')} {unknown}; known groups: {', '.join(_HELM_GROUPS)}"
        )
    if len(set(metrics)) != len(metrics) or len(metrics) < 2:
        raise ValueError("give at least two distinct metric groups")
    boards = {g: load(f"HELM-{g}") for g in metrics}
    by_scenario: dict[str, dict[str, str]] = {}
    for g, lb in boards.items():
        for col in lb.tasks:
            by_scenario.setdefault(col.split(" - ")[0], {})[g] = col
    out = {}
    for scenario, cols in by_scenario.items():
        if set(cols) != set(metrics):
            continue
        frame = pd.concat([boards[g].scores[cols[g]].rename(g) for g in metrics], axis=1, join="inner")
        frame = frame.dropna(how="any")
        if len(frame) < 2:
            continue
        direction = pd.Series(
            [bool(boards[g].higher_is_better[cols[g]]) for g in metrics], index=metrics, name="higher_is_better"
        )
        frame.columns.name = "metric"
        out[scenario] = (frame, direction)
    return out


# --------------------------------------------------------------------------- source tables


def published_win_rate(name: str) -> pd.Series:
    """The "Mean win rate" column that HELM published beside a HELM or HEIM leaderboard.

    The column is not a task (:func:`load` leaves it out); it is HELM's own
    aggregate, which :func:`benchvote.mean_win_rate` with ``convention="helm"``
    recomputes.  Values are as published (three decimals), aligned with the
    models of ``load(name).scores``.

    Parameters
    ----------
    name : str
        ``"HELM-lite"``, ``"HELM-<group>"`` or ``"HEIM-<group>"``.

    Returns
    -------
    Series
        One value per model, indexed like ``load(name).scores``.

    Raises
    ------
    KeyError
        For a leaderboard that publishes no such column.

    Examples
    --------
    >>> w = published_win_rate("HELM-lite")
    >>> len(w), bool(w.between(0, 1).all())
    (91, True)
    """
    if name == "HELM-lite":
        parts = ("helm_lite", "leaderboard.tsv")
    elif name.startswith("HELM-") and name[5:] in _HELM_GROUPS:
        parts = ("helm", f"{name[5:]}.tsv")
    elif name.startswith("HEIM-") and name[5:] in _HEIM_GROUPS:
        parts = ("heim", f"{name[5:]}.tsv")
    else:
        helm = ["HELM-lite"] + [f"HELM-{g}" for g in _HELM_GROUPS] + [f"HEIM-{g}" for g in _HEIM_GROUPS]
        raise KeyError(f"{name!r} publishes no mean win rate; these do: {', '.join(helm)}")
    raw = _read_tsv(*parts)
    column = next(c for c in raw.columns if str(c).startswith("Mean win rate"))
    labels = _unique_labels([str(x) for x in raw.iloc[:, 0]], [])
    values = pd.Series(_to_float(raw[column], column), index=pd.Index(labels, name="model"), name="published")
    return values.reindex(load(name).scores.index)


def _tables_dir() -> Any:
    """The installed source tables (the repository's ``data/`` folder, shipped as ``benchvote.tables``)."""
    return resources.files("benchvote.tables")


def list_tables() -> list[str]:
    """Names of the small source tables accepted by :func:`load_table`.

    Examples
    --------
    >>> "abc_ranks" in list_tables()
    True
    """
    return _listed("", ".csv")


def _listed(folder: str, suffix: str) -> list[str]:
    """The names of the shipped files ending in ``suffix`` in ``folder`` of the installed tables, sorted."""
    root = _tables_dir() / folder if folder else _tables_dir()
    return sorted(p.name.removesuffix(suffix) for p in root.iterdir() if p.name.endswith(suffix))


def _shipped(folder: str, name: str, suffix: str, known: list[str], kind: str) -> Any:
    """A context giving the path of the shipped file ``name``; a KeyError listing the ``known`` names otherwise."""
    if name not in known:
        raise KeyError(f"unknown {kind} {name!r}; known {kind.split()[-1]}s: {', '.join(known)}")
    root = _tables_dir() / folder if folder else _tables_dir()
    return resources.as_file(root / f"{name}{suffix}")


def load_table(name: str) -> pd.DataFrame:
    """Read a source table shipped with the package (first column as index).

    The tables live in the repository's ``data/`` folder and are installed as
    ``benchvote.tables``; the provenance of every number is given in its
    ``README.md``.

    Parameters
    ----------
    name : str
        One of :func:`list_tables`.

    Raises
    ------
    KeyError
        For an unknown table; the message lists the known tables.

    Examples
    --------
    >>> load_table("score_voting").loc["B"].tolist()
    [0.7, 0.6, 0.8]
    """
    with _shipped("", name, ".csv", list_tables(), "table") as path:
        return pd.read_csv(path, index_col=0)


@dataclass(frozen=True)
class IrtItems:
    """Result of :func:`irt_items`: simulated right/wrong answers and the truth they were drawn from.

    Attributes
    ----------
    blocks : dict
        Task name -> ``n_models x n_items`` array of 0.0 and 1.0 (rows in ``ability``'s order).
    ability : Series
        Each model's overall ability :math:`\\theta_i`.
    task_ability : DataFrame
        Models x tasks, each model's ability on each task, :math:`\\theta_i + \\gamma_{it}`.
    expected : DataFrame
        Models x tasks, each model's expected share of right answers on the task's items
        (the mean over the items of their probabilities): what the task would report with no sampling noise
        in the answers.
    """

    blocks: dict = field(repr=False)
    ability: pd.Series
    task_ability: pd.DataFrame
    expected: pd.DataFrame

    def long(self) -> pd.DataFrame:
        """One row per model, task and item: columns ``model``, ``task``, ``instance``, ``score``."""
        frames = []
        models = np.asarray(self.ability.index, dtype=object)
        for task, block in self.blocks.items():
            m, n = block.shape
            frames.append(
                pd.DataFrame(
                    {
                        "model": np.repeat(models, n),
                        "task": task,
                        "instance": np.tile(np.arange(n), m),
                        "score": block.ravel(),
                    }
                )
            )
        return pd.concat(frames, ignore_index=True)


def irt_items(
    n_models: int = 10,
    n_tasks: int = 6,
    n_items: int = 500,
    *,
    ability_spread: float = 1.0,
    task_spread: float = 0.3,
    seed: int = 0,
) -> IrtItems:
    r"""Simulated right/wrong answers from a two-parameter logistic item-response model (2PL).

    Model :math:`i` has an overall ability :math:`\theta_i \sim N(0, \texttt{ability\_spread}^2)` and, on
    task :math:`t`, the ability :math:`\theta_i + \gamma_{it}` with
    :math:`\gamma_{it} \sim N(0, \texttt{task\_spread}^2)`, so that tasks can
    disagree about the order.  Item :math:`j` of a task has a difficulty
    :math:`b_j \sim N(0, 1)` and a discrimination :math:`a_j \sim \mathrm{LogNormal}(0, 0.3^2)`;
    model :math:`i` answers it right with probability
    :math:`\sigma(a_j(\theta_i + \gamma_{it} - b_j))`, :math:`\sigma` the logistic
    function, independently of every other answer.  With
    ``task_spread=0`` and all :math:`a_j = 1` this is the Rasch model.
    Everything is drawn from ``numpy.random.default_rng(seed)``, in the order
    abilities, task effects, then per task difficulties, discriminations and answers.

    Parameters
    ----------
    n_models, n_tasks, n_items : int
        Number of models (named ``M1``, ``M2``, ...), of tasks (``task 1``, ...), and of items per task.
    ability_spread : float
        Standard deviation of the abilities :math:`\theta_i` (more than 0); a small spread makes close models.
    task_spread : float
        Standard deviation of the model-by-task effects :math:`\gamma_{it}` (0 or more).
    seed : int
        Seed of numpy's generator.

    Returns
    -------
    IrtItems

    Examples
    --------
    >>> sim = irt_items(4, 2, 50, seed=1)
    >>> sorted(sim.blocks), sim.blocks["task 1"].shape, sorted(set(sim.blocks["task 1"].ravel().tolist()))
    (['task 1', 'task 2'], (4, 50), [0.0, 1.0])
    >>> len(sim.long())
    400
    """
    if n_models < 2 or n_tasks < 1 or n_items < 1:
        raise ValueError("need at least 2 models, 1 task and 1 item")
    if not ability_spread > 0:
        raise ValueError(f"ability_spread must be more than 0, got {ability_spread}")
    if not task_spread >= 0:
        raise ValueError(f"task_spread must be 0 or more, got {task_spread}")
    rng = np.random.default_rng(seed)
    models = [f"M{i + 1}" for i in range(n_models)]
    tasks = [f"task {t + 1}" for t in range(n_tasks)]
    theta = rng.normal(0.0, ability_spread, size=n_models)
    gamma = rng.normal(0.0, task_spread, size=(n_models, n_tasks))
    on_task = theta[:, None] + gamma
    blocks, expected = {}, np.empty((n_models, n_tasks))
    for t, task in enumerate(tasks):
        difficulty = rng.normal(0.0, 1.0, size=n_items)
        discrimination = rng.lognormal(0.0, 0.3, size=n_items)
        prob = 1.0 / (1.0 + np.exp(-discrimination * (on_task[:, t : t + 1] - difficulty)))
        blocks[task] = (rng.random((n_models, n_items)) < prob).astype(float)
        expected[:, t] = prob.mean(axis=1)
    return IrtItems(
        blocks=blocks,
        ability=pd.Series(theta, index=pd.Index(models, name="model"), name="ability"),
        task_ability=pd.DataFrame(on_task, index=pd.Index(models, name="model"), columns=tasks),
        expected=pd.DataFrame(expected, index=pd.Index(models, name="model"), columns=tasks),
    )


def list_battle_logs() -> list[str]:
    """Names of the real battle logs accepted by :func:`load_battles`.

    Examples
    --------
    >>> list_battle_logs()
    ['mt_bench_human']
    """
    return _listed("battles", ".csv")


def load_battles(name: str) -> pd.DataFrame:
    """Read a real pairwise battle log shipped with the package, every column as published (text).

    The logs live in the repository's ``data/battles/`` folder, whose
    ``README.md`` gives each one's source, licence and attribution.  Each has
    the columns ``model_a``, ``model_b`` and ``winner`` of
    :func:`benchvote.battles.battle_ratings`, and the other columns its
    source publishes (for ``mt_bench_human``: ``question_id``, ``judge`` and
    ``turn``).

    Parameters
    ----------
    name : str
        One of :func:`list_battle_logs`.

    Raises
    ------
    KeyError
        For an unknown log; the message lists the known logs.

    Examples
    --------
    >>> log = load_battles("mt_bench_human")
    >>> len(log), log.winner.value_counts().to_dict()
    (3355, {'model_a': 1293, 'model_b': 1282, 'tie': 780})
    """
    with _shipped("battles", name, ".csv", list_battle_logs(), "battle log") as path:
        return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])


def list_item_tables() -> list[str]:
    """Names of the real item-level tables accepted by :func:`load_items`.

    Examples
    --------
    >>> list_item_tables()
    ['chembench']
    """
    return _listed("items", ".parquet")


def load_items(name: str) -> pd.DataFrame:
    """Read a real item-level table shipped with the package: one row per model, task and item.

    The tables live in the repository's ``data/items/`` folder, whose
    ``README.md`` gives each one's source, licence and what was kept.  The
    columns are ``model``, ``task``, ``instance`` and ``score``, the long
    layout of :func:`benchvote.intervals.instance_table` and of
    ``benchvote audit``; the file is also a valid input of the command.

    Parameters
    ----------
    name : str
        One of :func:`list_item_tables`.

    Raises
    ------
    KeyError
        For an unknown table; the message lists the known tables.

    Examples
    --------
    >>> items = load_items("chembench")
    >>> items.shape, items.model.nunique(), items.task.nunique(), items.instance.nunique()
    ((86428, 4), 31, 9, 2788)
    """
    with _shipped("items", name, ".parquet", list_item_tables(), "item table") as path:
        frame = pd.read_parquet(path)
    return frame.astype({"model": object, "task": object, "instance": object, "score": float})
