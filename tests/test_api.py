"""The public API is one thing: one signature shape, one vocabulary, one output contract, clean layering.

Walks ``__all__`` of every module, so a new function is checked as soon as it is exported.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import benchvote as bv
from benchvote.data import Leaderboard
from benchvote.ranking import DEFAULT_TIE_TOLERANCE

PACKAGE = Path(bv.__file__).resolve().parent

#: Public functions whose first argument is a score table but that have no notion of direction:
#: they transform the table cell by cell or model by model and return a table of the same kind.
DIRECTION_FREE = {
    "missing.knock_out": "removes cells at random; which cells does not depend on what a good score is",
    "missing.knn_impute": "fills cells from similar models; distances do not depend on the direction",
    "intervals.instance_table": "averages each model's instance scores per task; no ordering is involved",
}

#: Names the API no longer uses, and what replaced them.
RETIRED = {
    "tolerance": "tol",
    "missing": "nan_policy",
    "allow_nan": "nan_policy",
    "allow_unscored": "nan_policy",
    "systems": "models",
    "n_systems": "n_models",
}


def public_functions():
    out = []
    for name in bv.SUBMODULES:
        module = importlib.import_module(f"benchvote.{name}")
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if inspect.isfunction(obj) and obj.__module__.startswith("benchvote"):
                out.append((f"{name}.{attr}", obj))
    return out


FUNCTIONS = public_functions()


def test_every_module_lists_its_public_names_and_the_package_docstring_lists_every_module():
    for name in bv.SUBMODULES:
        module = importlib.import_module(f"benchvote.{name}")
        assert hasattr(module, "__all__"), f"benchvote.{name} has no __all__"
        assert f":mod:`benchvote.{name}`" in bv.__doc__, f"benchvote's docstring does not list {name}"
    on_disk = {p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")}
    on_disk |= {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file() and not p.name.startswith("_")}
    on_disk -= {"tables"}  # the source tables (data files), not a module of functions
    assert on_disk == set(bv.SUBMODULES)


@pytest.mark.parametrize("qualname, func", FUNCTIONS, ids=[q for q, _ in FUNCTIONS])
def test_signature_follows_the_convention(qualname, func):
    params = list(inspect.signature(func).parameters.values())
    names = [p.name for p in params]
    for old, new in RETIRED.items():
        assert old not in names, f"{qualname} takes {old!r}; the API says {new!r}"
    takes_table = bool(names) and names[0] == "scores"
    if "higher_is_better" in names or (takes_table and qualname not in DIRECTION_FREE):
        assert names[0] in ("scores", "instance_scores") and names[1] == "higher_is_better", (
            f"{qualname}: (scores, higher_is_better, ...) expected"
        )
        hib = params[1]
        assert hib.default is True and hib.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, qualname
        for p in params[2:]:
            # extra positional arguments come after higher_is_better and have defaults; options are keyword-only
            assert p.kind is inspect.Parameter.KEYWORD_ONLY or p.default is not inspect.Parameter.empty, (
                f"{qualname}: {p.name} after higher_is_better must have a default or be keyword-only"
            )
    for p in params:
        if p.name in ("tol", "nan_policy", "seed", "convention", "method", "time_limit", "work_limit", "eps", "rule"):
            assert p.kind is inspect.Parameter.KEYWORD_ONLY, f"{qualname}: option {p.name} must be keyword-only"
        if p.name == "tol":
            assert p.default == DEFAULT_TIE_TOLERANCE, f"{qualname}: the score tie threshold defaults to 1e-9"
        if p.name == "nan_policy":
            assert isinstance(p.default, str), qualname
        if p.name == "seed":
            assert isinstance(p.default, int), qualname
        if p.name == "rule":
            assert "Callable" in str(p.annotation), f"{qualname}: rule is always a callable"


#: Functions that take (scores, higher_is_better) but validate their input their own way, and why.
OWN_VALIDATION = {
    "ranking.rank": "ranks a vector or a table along either axis; the contract's input is a models x tasks table",
    "missing.task_matrix": "takes one task's scores (a vector), not a table",
    "missing.two_level_borda": "takes a dict or list of instance tables, one per task",
    "intervals.instance_rank_intervals": "takes a long table of instance scores (model, task, instance, score)",
    "audit.audit": "reads long or wide tables, directions by task name and per-task units (benchvote.audit._prepare)",
}


def test_every_measure_carries_the_contract_through_one_decorator():
    """A measure validates its table through ``benchvote._validation.measure``, not by hand in its body."""
    measures = [(q, f) for q, f in FUNCTIONS if list(inspect.signature(f).parameters)[1:2] == ["higher_is_better"]]
    assert len(measures) > 40
    by_hand = sorted(q for q, f in measures if not hasattr(f, "__measure__") and q not in OWN_VALIDATION)
    assert not by_hand, f"these measures validate by hand: {by_hand}"
    stale = sorted(q for q in OWN_VALIDATION if hasattr(dict(FUNCTIONS).get(q), "__measure__"))
    assert not stale, f"these exceptions now use the decorator: {stale}"
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        calls = text.count("split_table(scores, higher_is_better)")
        assert calls <= (1 if path.name == "_validation.py" else 0) + text.count("# own validation:"), (
            f"{path.relative_to(PACKAGE)} unpacks a Leaderboard by hand {calls} times"
        )


def test_every_measure_documents_every_contract_parameter():
    """The decorator adds the shared entry for each contract parameter a docstring leaves out."""
    for qualname, func in FUNCTIONS:
        if not hasattr(func, "__measure__"):
            continue
        params = [
            p
            for p in inspect.signature(func).parameters
            if p in ("scores", "higher_is_better", "tol", "nan_policy", "seed")
        ]
        for name in params:
            assert re.search(rf"^\s+{name}\b[^\n]*:", func.__doc__, re.M) or f", {name}" in func.__doc__, (
                f"{qualname} does not document {name}"
            )


def test_no_tau_distance_is_called_tau_alone():
    from benchvote.sensitivity import CardinalSensitivity, OrdinalSensitivity

    for cls in (CardinalSensitivity, OrdinalSensitivity):
        fields = {f.name for f in dataclasses.fields(cls)}
        assert "tau_distance" in fields and "tau" not in fields


# --------------------------------------------------------------------------- a Leaderboard for the pair

SCORES = pd.DataFrame(
    [
        [0.9, 3.0, 0.7, 12.0],
        [0.8, 2.0, 0.9, 10.0],
        [0.6, 4.5, 0.8, 11.0],
        [0.5, 1.0, 0.4, 14.0],
        [0.3, 5.0, 0.5, 9.0],
        [0.2, 2.5, 0.1, 13.0],
    ],
    index=[f"m{i}" for i in range(6)],
    columns=["acc", "latency", "f1", "errors"],
)
DIRECTION = pd.Series([True, False, True, False], index=SCORES.columns)
BOARD = Leaderboard("toy", "cardinal", SCORES, DIRECTION, "the test suite", "1")
PROTECTED, POOL = ["m0", "m1", "m2"], ["m3", "m4", "m5"]

#: keyword arguments each measure needs besides (scores, higher_is_better); options that make it quick
CALLS = {
    "aggregation.pairwise_wins": {},
    "aggregation.mean_score": {},
    "aggregation.geometric_mean": {},
    "aggregation.mean_win_rate": {},
    "aggregation.borda": {},
    "aggregation.task_ranks": {},
    "aggregation.protected_ranking": dict(protected=PROTECTED, added=["m3"]),
    "concordance.diversity": {},
    "normalization.dynamic_range": dict(low=[0.0, 10.0, 0.0, 20.0], high=[1.0, 0.0, 1.0, 0.0]),
    "normalization.random_baseline": dict(baseline=[0.25, 10.0, 0.0, 20.0], maximum=[1.0, 0.0, 1.0, 0.0]),
    "normalization.min_max": {},
    "normalization.relative_to_baseline": dict(baseline="m0"),
    "rules.mean_ranks": {},
    "ranking.rank": {},
    "voting.majority_counts": {},
    "voting.margin_matrix": {},
    "voting.majority_relation": {},
    "voting.condorcet_winner": {},
    "voting.condorcet_cycles": {},
    "voting.count_condorcet_cycles": {},
    "voting.copeland": {},
    "voting.ranked_pairs": {},
    "voting.kemeny": {},
    "voting.borda": {},
    "positional.positional_scores": dict(weights=[5.0, 3.0, 2.0, 1.0, 0.0, 0.0]),
    "positional.positional_winners": {},
    "classics.manipulations": dict(rule=bv.borda),
    "axioms.pareto_violations": dict(rule=bv.mean_win_rate),
    "axioms.field_margins": dict(protected=PROTECTED, pool=POOL),
    "axioms.iia_flip": dict(pair=("m0", "m1"), protected=PROTECTED, pool=POOL),
    "axioms.iia_report": dict(protected=PROTECTED, pool=POOL),
    "sensitivity.default_eps": {},
    "sensitivity.cardinal_sensitivity": dict(eps=0.1, time_limit=60),
    "sensitivity.cardinal_sensitivity_exact": dict(eps=0.1, time_limit=60),
    "sensitivity.ordinal_sensitivity": dict(protected=PROTECTED, restarts=2, steps=5),
    "sensitivity.ordinal_sensitivity_exact": dict(protected=PROTECTED),
    "sensitivity.default_protected": dict(share=0.5),
    "sensitivity.subset_agreement": dict(sizes=[1, 2], samples=5),
    "sensitivity.possible_winners": dict(eps=0.1),
    "intervals.rank_intervals": dict(n_boot=20),
    "comparisons.paired_test": dict(pair=("m0", "m1"), n_boot=20),
    "comparisons.pairwise_comparisons": dict(n_boot=20),
    "comparisons.rank_sets": dict(n_boot=20),
    "audit.audit": dict(n_boot=20, time_limit=60, budget="quick"),  # the pair and the board agree; the budget is moot
    "missing.expected_ranks": {},
    "missing.partial_borda": {},
    "missing.pairwise_confidence": {},
    "missing.robustness_study": dict(shares=[0.1], repetitions=2, methods=["mean", "partial_borda"]),
    "domains.rankings_from_scores": {},
    "domains.average_rank_flips": dict(models=PROTECTED, candidates=POOL),
    "ratings.comparison_matrix": {},
    "ratings.matches_from_scores": {},
    "spectrum.benchmark_pca": {},
    "explorables.model_toggle": dict(protected=PROTECTED, pool=POOL),
    "explorables.label_noise": dict(top=4, eps=0.1, worst=[1.0, 0.1, 1.0, 0.1]),
    "explorables.missing_share": dict(top=4, shares=[0.0, 0.2]),
    "explorables.cell_knockout": {},
    "explorables.domain_explorer": dict(models=["m0", "m1", "m2", "m3"], max_models=3),
    "explorables.positional_rule": {},
}
#: measures whose input is not a whole models x tasks table
NOT_A_TABLE = {
    "missing.task_matrix": "one task's score vector",
    "missing.two_level_borda": "instance-level tables",
    "intervals.instance_rank_intervals": "a long table of instance scores (tested in test_intervals)",
}


def test_every_measure_on_a_table_is_exercised_here():
    takes_pair = {
        q for q, f in FUNCTIONS if list(inspect.signature(f).parameters)[:2] == ["scores", "higher_is_better"]
    }
    assert takes_pair - set(NOT_A_TABLE) == set(CALLS)


def _same(a, b) -> bool:
    if dataclasses.is_dataclass(a):
        return all(
            _same(getattr(a, f.name), getattr(b, f.name))
            for f in dataclasses.fields(a)
            if f.name not in ("seconds", "timings")
        )
    if isinstance(a, pd.DataFrame):
        return a.equals(b)
    if isinstance(a, pd.Series):
        return a.equals(b)
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a if k != "seconds")
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if hasattr(a, "to_html"):
        return a.to_html() == b.to_html()
    if isinstance(a, float) and np.isnan(a):
        return bool(np.isnan(b))
    return a == b


@pytest.mark.parametrize("qualname", sorted(CALLS))
def test_a_leaderboard_stands_for_the_pair(qualname):
    module, name = qualname.split(".")
    func = getattr(importlib.import_module(f"benchvote.{module}"), name)
    kwargs = CALLS[qualname]
    assert _same(func(BOARD, **kwargs), func(SCORES, DIRECTION, **kwargs)), qualname
    with pytest.raises(ValueError, match="Leaderboard"):
        func(BOARD, DIRECTION, **kwargs)


# --------------------------------------------------------------------------- every rule: higher is better

# every rule of the registry but Bradley-Terry, which has no maximum-likelihood ratings when a model wins everything,
# and the geometric mean, defined for positive scores only (tested on them in test_rules)
RULES = {name: rule.fn for name, rule in bv.rules.RULES.items() if name not in ("bradley_terry", "geometric_mean")} | {
    "partial_borda": bv.missing.partial_borda
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_every_rule_scores_the_unanimous_winner_highest(rule):
    rng = np.random.default_rng(0)
    table = rng.random((7, 5))
    table[3] = table.max(axis=0) + 1.0  # model 3 is best on every task
    table[5] = table.min(axis=0) - 1.0  # model 5 is worst on every task
    values = np.asarray(RULES[rule](table, True))
    assert values.argmax() == 3 and values.argmin() == 5
    assert bv.axioms.pareto_violations(table, rule=RULES[rule]) == []
    # the same table with every task declared lower-is-better and negated: the same scores
    assert np.allclose(RULES[rule](-table, False), values) or rule == "mean_score"


# --------------------------------------------------------------------------- layering

CORE = {
    "aggregation",
    "arrow",
    "axioms",
    "concordance",
    "domains",
    "intervals",
    "missing",
    "normalization",
    "ranking",
    "ratings",
    "rules",
    "sensitivity",
    "spectrum",
    "strategy",
    "voting",
    "_validation",
}
PRESENTATION = {"plotting", "widgets", "cache", "explorables"}


def _benchvote_imports(path: Path) -> set[str]:
    """Every benchvote module a source file imports, at any depth (lazy imports inside functions included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = path.relative_to(PACKAGE.parent).with_suffix("").parts  # ("benchvote", "sensitivity", "ordinal")
    package = here[:-1] if path.name != "__init__.py" else here[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - node.level + 1])
                target = base + (node.module.split(".") if node.module else [])
            else:
                target = (node.module or "").split(".")
            if target[0] == "benchvote":
                if len(target) > 1:
                    out.add(target[1])
                else:
                    out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "benchvote" and len(parts) > 1:
                    out.add(parts[1])
    return out


def _module_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE).parts
    return rel[0].removesuffix(".py")


def test_core_modules_never_import_presentation_or_data():
    for path in PACKAGE.rglob("*.py"):
        module = _module_of(path)
        if module in CORE:
            bad = _benchvote_imports(path) & (PRESENTATION | {"data"})
            assert not bad, f"{path.relative_to(PACKAGE)} imports {sorted(bad)}"


def test_the_library_reads_nothing_outside_the_package():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"parents\[[1-9]\]|\.parent\.parent|\"\.\./|'\.\./", text), (
            f"{path.relative_to(PACKAGE)} looks outside the installed package"
        )


#: A noun of the library's messages with its plural in brackets ("task(s)"); a call such as ``f(s)`` is not one.
PLURAL_IN_BRACKETS = (
    r"\b(task|model|pair|column|value|cycle|rule|leader|section|row|cell|item|place|redraw|comparison|metric|weight"
    r"|name|label|entry|group|file|score|board|winner|tie|step|point|node|case|option)\(s\)|\}\(s\)"
)


def test_no_message_or_page_of_the_library_puts_a_plural_in_brackets():
    """Messages, reports and explorables say "1 task" and "3 tasks", never "task(s)" (``_validation.numbered``)."""
    found = []
    for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.js"), *PACKAGE.rglob("*.j2")]):
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            code = line.split("#")[0] if path.suffix == ".py" else line
            if re.search(PLURAL_IN_BRACKETS, code) and not re.search(r"never say|\"pair\(s\)\"", code):
                found.append(f"{path.relative_to(PACKAGE)}:{k}: {line.strip()}")
    assert not found, "\n".join(found)


def test_torch_matplotlib_and_ipywidgets_are_imported_only_when_needed():
    import subprocess
    import sys

    code = (
        "import sys, benchvote as bv; bv.voting.copeland([[1, 2], [2, 1]]);"
        "bv.sensitivity.default_eps([[1, 2], [2, 1]]);"
        "bv.data.load_table('score_voting'); bv.explorables.cell_knockout([[1.0, 2.0], [2.0, 1.0]]);"
        "print(sorted(m for m in ('torch', 'matplotlib', 'ipywidgets', 'sklearn') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --------------------------------------------------------------------------- docstrings

SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}$", flags=re.M)


def _sections(doc: str) -> dict[str, str]:
    heads = list(SECTION.finditer(doc))
    ends = [h.start() for h in heads[1:]] + [len(doc)]
    return {m.group(1): doc[m.end() : end] for m, end in zip(heads, ends)}


@pytest.mark.parametrize("qualname, func", FUNCTIONS, ids=[q for q, _ in FUNCTIONS])
def test_docstring_documents_every_parameter_and_has_an_example(qualname, func):
    doc = inspect.getdoc(func) or ""
    sections = _sections(doc)
    params = [p.name for p in inspect.signature(func).parameters.values()]
    if params:
        assert "Parameters" in sections, f"{qualname} has no Parameters section"
        documented = set()
        for line in sections["Parameters"].splitlines():
            if line and not line.startswith(" "):
                names = line.split(" : ")[0]
                documented |= {n.strip().lstrip("*") for n in names.split(",")}
        assert not set(params) - documented, f"{qualname} does not document {sorted(set(params) - documented)}"
    presentation = qualname.split(".")[0] in ("widgets", "plotting")  # they draw; the book shows them
    assert presentation or ">>>" in doc, f"{qualname} has no example"


# --------------------------------------------------------------------------- imports at the head

#: Modules a function may import where it needs them, and why (measured with ``python -X importtime``).
LAZY_IMPORTS = {
    "_kernels": "numba compiles or loads the kernels with their module: about 1-2 s, paid by the first caller",
    "_boxes": "numba kernels of the box search (as _kernels)",
    "_cliques": "numba kernels of the clique search (as _kernels)",
    "_weightbb": "imports the clique search's numba kernels (as _kernels)",
    "torch": "the relaxations' optional solver: 2-4 s to import",
    "sklearn": "k-nearest-neighbour imputation only",
    "highspy": "the clique search's LP solver, loaded with it",
    "scipy.stats": "3.4 s to import, for one correlation",
    "scipy.linalg": "Bradley-Terry's Newton steps only",
    "scipy.sparse.linalg": "Bradley-Terry on many models only",
    "matplotlib": "figures only: the audit and the command line never draw with matplotlib",
    "IPython": "present only in a notebook kernel",
    "ipywidgets": "live notebook controls only",
}


def _function_imports():
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").split("\n")
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)):
                        name = inner.module if isinstance(inner, ast.ImportFrom) else inner.names[0].name
                        # the reason may stand on the import's line or on a comment line right above it
                        yield path, inner.lineno, name or "", lines[inner.lineno - 2] + lines[inner.lineno - 1]


def test_a_function_imports_only_what_is_costly_or_circular_and_says_why():
    """Imports sit at the head of each module; inside a function only a costly module, or with a reason beside it."""
    unexplained = sorted(
        {
            f"{path.relative_to(PACKAGE)}:{lineno}: {line.strip()}"
            for path, lineno, name, line in _function_imports()
            if not any(name == lazy or name.startswith(lazy + ".") or name.endswith(lazy) for lazy in LAZY_IMPORTS)
            and "#" not in line
        }
    )
    assert not unexplained, "imports inside functions without a reason:\n" + "\n".join(unexplained)
