"""How the tasks correlate: Kendall's tau-b between every pair of tasks on the complete part.

Each task is read as its ranking of the models (ties within the tie
tolerance shared, the best first), so a positive tau-b means two tasks
order the models of the complete part alike.  Tau-b is the
number of concordant minus discordant pairs of models over the geometric
mean of the pairs each task does not tie, the same number as
:func:`scipy.stats.kendalltau`.  It is computed for every pair of tasks at
once: with ``S`` the pairs-of-models by tasks matrix of the signs of the
rank differences, tau-b is ``S.T @ S`` over the square roots of the
diagonal.  ``S.T @ S`` is counted in exact integers by a compiled
merge of the task orders, O(m log m) per pair of tasks
(:func:`benchvote._kernels.sign_products`), so ``S`` itself
(m (m - 1) / 2 rows: 9.6 GB in float64 on 20,000 models and 6 tasks) is
never built; the tau-b matrix is then read in blocks of tasks.

Up to :data:`MATRIX_TASKS` tasks the whole matrix is reported; beyond, it is
summarised (its distribution, mean, and the most and least alike pairs),
since a 10,000-task matrix has fifty million entries.  The work, pairs of
models times pairs of tasks, is limited to :data:`WORK_BUDGET`; a wider
table is measured on the first tasks by name, and the section says so.
"""

from __future__ import annotations

from typing import Any, TypedDict

import numpy as np
import pandas as pd

from ...ranking import rank
from .. import _charts
from .._prepare import Context, names
from .._registry import Output, Section, register

#: Most tasks whose whole matrix is reported (and drawn as a heatmap); beyond, it is summarised.
MATRIX_TASKS = 60
MAX_CHART_TASKS = MATRIX_TASKS
#: Pairs named as the most and the least correlated in the text.
EXTREMES = 3
#: Pairs listed at each end (most and least alike) when the matrix is summarised.
LISTED_PAIRS = 20
#: Most pairs of models times pairs of tasks compared; beyond, the tasks are scoped (a work budget, not a clock).
WORK_BUDGET = 2_000_000_000
#: Tasks per block of the product (memory: a block is BLOCK_TASKS x tasks floats).
BLOCK_TASKS = 256
#: Edges of the distribution's bins (width 0.1 from -1 to 1; the last bin holds 1; tau-b is rounded to 12 places).
BINS = np.round(np.linspace(-1.0, 1.0, 21), 10)


class Result(TypedDict):
    method: str
    tasks: list[str]
    matrix: list[list[float | None]] | None
    summarised: bool
    scope: str
    mean_tau: float | None
    n_pairs: int
    n_undefined: int
    distribution: list[dict]
    most_correlated: list[dict]
    least_correlated: list[dict]
    pairs_listed: list[dict]
    pairs_left_out: int
    n_models: int
    n_tasks: int
    n_tasks_measured: int


def sign_products(work: pd.DataFrame, hib: Any, tol: float) -> np.ndarray:
    """``S.T @ S`` (tasks x tasks, exact integers) for ``S`` the pairs of models by tasks signs of the rank differences.

    Off the diagonal, the pairs of models two tasks order alike minus those
    they order oppositely; on it, the pairs a task does not tie
    (:func:`benchvote._kernels.sign_products`, without ``S``).
    """
    from ..._kernels import sign_products as kernel

    r = np.asarray(rank(work, hib, tol=tol), dtype=float)  # midranks: 1 is the best
    codes = np.empty(r.shape, dtype=np.int64)
    for k in range(r.shape[1]):
        codes[:, k] = np.unique(r[:, k], return_inverse=True)[1]  # equal midranks, equal codes; order kept
    return kernel(codes)


def _best(values: np.ndarray, k: int) -> np.ndarray:
    """Flat indices of the k largest finite values, ties to the lowest index; in no particular order."""
    ok = np.flatnonzero(np.isfinite(values))
    if ok.size <= k:
        return ok
    v = values[ok]
    kth = np.partition(v, v.size - k)[v.size - k]
    above = ok[v > kth]
    return np.concatenate([above, ok[v == kth][: k - above.size]])


def _blocks(products: np.ndarray):
    """Each block of rows of the tau-b matrix (rows a..b, all columns) from ``S.T @ S`` (:func:`sign_products`)."""
    norm = np.sqrt(np.diagonal(products).astype(float))  # sqrt of the pairs each task does not tie, as scipy divides
    with np.errstate(invalid="ignore", divide="ignore"):
        for a in range(0, products.shape[1], BLOCK_TASKS):
            b = min(a + BLOCK_TASKS, products.shape[1])
            yield a, products[a:b].astype(float) / norm[a:b, None] / norm[None, :]


def tau_summary(products: np.ndarray, k: int) -> dict:
    """Mean, bin counts, undefined count and the k most and least alike pairs (i < j) of the tau-b matrix."""
    n = products.shape[1]
    total, count, undefined = 0.0, 0, 0
    hist = np.zeros(len(BINS) - 1, dtype=np.int64)
    top: list[tuple[float, int, int]] = []
    low: list[tuple[float, int, int]] = []
    for a, block in _blocks(products):
        rows = np.arange(a, a + block.shape[0])[:, None]
        upper = np.where(np.arange(n)[None, :] > rows, block, np.nan)
        keep = np.arange(n)[None, :] > rows
        vals = upper.ravel()
        finite = np.isfinite(vals)
        undefined += int(keep.sum()) - int(finite.sum())
        total += float(vals[finite].sum())
        count += int(finite.sum())
        hist += np.histogram(np.clip(np.round(vals[finite], 12), -1.0, 1.0), bins=BINS)[0]  # float noise off the edges
        for pick, out in ((_best(vals, k), top), (_best(-vals, k), low)):
            out.extend((float(vals[f]), a + int(f) // n, int(f) % n) for f in pick)
        top = sorted(top, key=lambda p: (-p[0], p[1], p[2]))[:k]
        low = sorted(low, key=lambda p: (p[0], p[1], p[2]))[:k]
    return {"mean": total / count if count else None, "hist": hist, "undefined": undefined, "top": top, "low": low}


def scoped(work: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The tasks measured within the work budget: all of them, or the first ones by name."""
    m, n = work.shape
    model_pairs = max(m * (m - 1) // 2, 1)
    if model_pairs * n * (n - 1) // 2 <= WORK_BUDGET:
        return work, "every task"
    keep = int((1 + np.sqrt(1 + 8 * WORK_BUDGET / model_pairs)) // 2)
    chosen = sorted(range(n), key=lambda j: str(work.columns[j]))[:keep]
    scope = (
        f"the first {keep} of the {n} tasks by name: comparing every pair of tasks on {m} models would exceed "
        f"the work budget of {WORK_BUDGET:,} comparisons"
    )
    return work.iloc[:, sorted(chosen)], scope


def _pair(label: list[str], p: tuple[float, int, int]) -> dict:
    return {"tasks": [label[p[1]], label[p[2]]], "tau": p[0]}


def compute(ctx: Context, done: dict) -> Output:
    work, scope = scoped(ctx.work)
    products = sign_products(work, ctx.hib[work.columns], ctx.options.tol)
    n = work.shape[1]
    label = names(work.columns)
    summary = tau_summary(products, LISTED_PAIRS)
    n_pairs = n * (n - 1) // 2
    count = n_pairs - summary["undefined"]
    few = min(EXTREMES, count // 2)  # the most and the least alike never share a pair
    summarised = n > MATRIX_TASKS
    matrix, objects = None, {}
    if not summarised:
        tau = next(_blocks(products))[1] if n <= BLOCK_TASKS and n else np.empty((0, 0))
        matrix = [[float(v) if np.isfinite(v) else None for v in row] for row in tau]
        objects = {"task_correlation": pd.DataFrame(tau, index=work.columns, columns=work.columns)}
    listed = {(p[1], p[2]): p for p in summary["top"] + summary["low"]} if summarised else {}
    fields: Result = {
        "method": "kendall_tau_b",
        "tasks": [] if summarised else label,
        "matrix": matrix,
        "summarised": summarised,
        "scope": scope,
        "mean_tau": summary["mean"],
        "n_pairs": n_pairs,
        "n_undefined": summary["undefined"],
        "distribution": [
            {"from": float(BINS[k]), "to": float(BINS[k + 1]), "pairs": int(c)} for k, c in enumerate(summary["hist"])
        ],
        "most_correlated": [_pair(label, p) for p in summary["top"][: max(few, 1)]] if count else [],
        "least_correlated": [_pair(label, p) for p in summary["low"][:few]],
        "pairs_listed": [_pair(label, p) for p in sorted(listed.values(), key=lambda p: (-p[0], p[1], p[2]))],
        "pairs_left_out": n_pairs - len(listed) if summarised else 0,
        "n_models": int(ctx.work.shape[0]),
        "n_tasks": int(ctx.work.shape[1]),
        "n_tasks_measured": n,
    }
    return Output(dict(fields), objects)


TEMPLATE = """
<p>{{ ui.on_part(all) }}: {{ ui.v(s.n_models, "correlation.n_models", "d") }} models scored on every task and
{{ ui.v(s.n_tasks, "correlation.n_tasks", "d") }} tasks, each turned so that higher is better. Kendall's tau-b of two
tasks is the number of pairs of models they order alike minus the number they order oppositely, over the geometric
mean of the pairs each task does not tie: 1 when they order the models alike, &minus;1 when oppositely, near 0 when
unrelated. The mean over the pairs of tasks is {{ ui.v(s.mean_tau, "correlation.mean_tau", ".2f") }}.</p>
{% if s.scope != "every task" %}<p>Scope: {{ s.scope }}.</p>{% endif %}
{% if s.most_correlated %}<p>Most alike: {% for p in s.most_correlated %}{{ ui.name(p.tasks[0]) }} and {{ ui.name(p.tasks[1]) }}
({{ ui.v(p.tau, "correlation.most_correlated." ~ loop.index0 ~ ".tau", ".2f") }}){% if not loop.last %}; {% endif %}{% endfor %}.
{% if s.least_correlated %}Least alike: {% for p in s.least_correlated %}{{ ui.name(p.tasks[0]) }} and {{ ui.name(p.tasks[1]) }}
({{ ui.v(p.tau, "correlation.least_correlated." ~ loop.index0 ~ ".tau", ".2f") }}){% if not loop.last %}; {% endif %}{% endfor %}.{% endif %}</p>{% endif %}
{% if chart %}{% call ui.figure(caption) %}{{ ui.heatmap("correlation-fig", chart) }}{% endcall %}
{{ ui.table(["task", "task", "Kendall tau-b"], rows, numeric=[2], specs={2: ".3f"},
  caption="Every pair of tasks, most alike first.") }}
{% elif s.summarised %}<p>With more than {{ cap }} tasks the matrix of the {{ s.n_pairs }} pairs is summarised,
not listed: its distribution, and the {{ s.pairs_listed|length }} most and least alike pairs
({{ s.pairs_left_out }} pairs left out; {{ s.n_undefined }} pairs undefined, a task that ties every model).</p>
{{ ui.table(["Kendall tau-b from", "to", "pairs of tasks"], bins, numeric=[0, 1, 2], specs={0: ".1f", 1: ".1f"},
  caption="The distribution of tau-b over the pairs of tasks.") }}
{{ ui.table(["task", "task", "Kendall tau-b"], rows, numeric=[2], specs={2: ".3f"},
  caption="The most and the least alike pairs of tasks, most alike first.") }}
{% else %}{{ ui.table(["task", "task", "Kendall tau-b"], rows, numeric=[2], specs={2: ".3f"},
  caption="Every pair of tasks, most alike first.") }}{% endif %}
"""


def render(view: Any) -> str:
    s = view.s
    bins = [[b["from"], b["to"], b["pairs"]] for b in s["distribution"]]
    if s["summarised"]:
        rows = [[p["tasks"][0], p["tasks"][1], p["tau"]] for p in s["pairs_listed"]]
        return view.html(TEMPLATE, chart=None, caption="", rows=rows, bins=bins, cap=MATRIX_TASKS)
    tasks, matrix = s["tasks"], s["matrix"]
    n = len(tasks)
    rows = [[tasks[i], tasks[j], matrix[i][j]] for i in range(n) for j in range(i + 1, n)]
    rows.sort(key=lambda r: -r[2] if r[2] is not None else np.inf)
    grid = np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)
    chart = _charts.heatmap(
        grid, tasks, "Kendall tau-b between the tasks",
        f"A {n} by {n} grid: the cell in row i and column j is coloured by the Kendall tau-b of tasks i and j "
        "on the complete part, blue for 1 (alike), white for 0, orange for -1 (opposite).",
    ) if n else None  # fmt: skip
    caption = (
        "Figure: Kendall tau-b between every pair of tasks (rows numbered and named, columns numbered in the "
        "same order); blue: the tasks order the models alike, orange: oppositely. Hover a cell for its value."
    )
    return view.html(TEMPLATE, chart=chart, caption=caption, rows=rows, bins=bins, cap=MATRIX_TASKS)


SECTION = register(
    Section(
        name="correlation",
        title="How the tasks correlate",
        chapter="tradeoff",
        about="Kendall's tau-b between every pair of tasks, each turned so that higher is better: 1 when two tasks "
        "order the models alike, -1 when oppositely. Tasks that all correlate strongly measure much the same thing; "
        "pairs near 0 or below pull the aggregate ranking in different directions.",
        order=55,
        cost=(
            "O(n^2 m log m) time, O(n^2 + m) memory: each two tasks' orders merged by a compiled Fenwick tree; "
            "scoped to a work budget of 2e9 pairs of models times pairs of tasks"
        ),
        result=Result,
        compute=compute,
        render=render,
    )
)
