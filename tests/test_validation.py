"""The bad-input table: every public function x every bad input that applies.

Each case must raise a ``ValueError`` or ``TypeError`` raised by benchvote itself (no frame of numpy,
pandas, scipy, scikit-learn or torch on the way: the input is refused before third-party code sees it),
with a message that names the argument and the problem.  Plus unit tests of the validation helpers.
"""

from __future__ import annotations

import inspect
import math
import traceback
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import benchvote as bv
from benchvote import (
    axioms,
    concordance,
    domains,
    missing,
    normalization,
    ratings,
    sensitivity,
    spectrum,
    strategy,
    voting,
)
from benchvote._validation import UnknownLabelError, as_label_list, check_number, constant_tasks
from benchvote.ranking import exact_midranks

PACKAGE = Path(bv.__file__).resolve().parent

GOOD = pd.DataFrame(
    [[5.0, 1.0, 3.0], [4.0, 2.5, 1.0], [3.0, 5.0, 2.0], [2.0, 4.0, 5.0], [1.0, 3.0, 4.5]],
    index=[f"m{i}" for i in range(5)],
    columns=["t0", "t1", "t2"],
)


def _with(frame: pd.DataFrame, row: int, col: int, value) -> pd.DataFrame:
    out = frame.astype(object) if isinstance(value, str) else frame.copy()
    out.iloc[row, col] = value
    return out


#: every kind of bad table, with the words its message must contain (one of each tuple)
BAD_TABLES = {
    "nan": (lambda: _with(GOOD, 1, 1, np.nan), ("missing", "nan")),
    "inf": (lambda: _with(GOOD, 1, 1, np.inf), ("infinite",)),
    "empty": (lambda: GOOD.iloc[:0], ("at least",)),
    "one_model": (lambda: GOOD.iloc[:1], ("at least 2",)),
    "dup_model": (lambda: GOOD.rename(index={"m1": "m0"}), ("duplicated",)),
    "dup_task": (lambda: GOOD.rename(columns={"t1": "t0"}), ("duplicated",)),
    "strings": (lambda: _with(GOOD, 1, 1, "high"), ("numeric",)),
    "none": (lambda: None, ("none",)),
    "3d": (lambda: np.zeros((3, 3, 2)), ("2-d", "dimension")),
    "ragged": (lambda: [[1.0, 2.0, 3.0], [1.0, 2.0], [3.0, 2.0, 1.0]], ("rectangular",)),
}

P, POOL = ["m0", "m1"], ["m2", "m3", "m4"]
RULE = bv.mean_win_rate

# name -> (call taking the table, the argument name its messages use, kinds that do not apply)
TABLE_FUNCTIONS = {
    "rank": (lambda s: bv.rank(s), "scores", {"empty", "one_model"}),
    "kendall_w": (lambda s: bv.kendall_w(s), "ranks", set()),
    "tie_correction": (lambda s: concordance.tie_correction(s), "ranks", {"empty", "one_model", "nan"}),
    "diversity": (lambda s: bv.diversity(s), "scores", set()),
    "pairwise_wins": (lambda s: bv.pairwise_wins(s), "scores", {"nan"}),
    "mean_score": (lambda s: bv.mean_score(s), "scores", {"one_model"}),
    "geometric_mean": (lambda s: bv.aggregation.geometric_mean(s), "scores", {"one_model"}),
    "relative_to_baseline": (
        lambda s: normalization.relative_to_baseline(s, baseline=0),
        "scores",
        {"one_model", "nan"},
    ),
    "mean_win_rate": (lambda s: bv.mean_win_rate(s), "scores", {"nan"}),
    "borda": (lambda s: bv.borda(s), "scores", set()),
    "task_ranks": (lambda s: bv.task_ranks(s), "scores", set()),  # nan_policy="raise" by default
    "protected_ranking": (
        lambda s: bv.protected_ranking(s, protected=[0, 1] if not isinstance(s, pd.DataFrame) else P),
        "scores",
        {"nan"},
    ),
    # normalisation maps each task on its own: missing cells pass through, one model is enough
    "dynamic_range": (lambda s: normalization.dynamic_range(s, low=0.0, high=10.0), "scores", {"nan", "one_model"}),
    "random_baseline": (lambda s: normalization.random_baseline(s, baseline=0.0), "scores", {"nan", "one_model"}),
    "min_max": (lambda s: normalization.min_max(s), "scores", {"nan"}),
    "majority_counts": (lambda s: voting.majority_counts(s), "scores", {"nan"}),
    "margin_matrix": (lambda s: voting.margin_matrix(s), "scores", {"nan"}),
    "majority_relation": (lambda s: voting.majority_relation(s), "scores", {"nan"}),
    "condorcet_winner": (lambda s: voting.condorcet_winner(s), "scores", {"nan"}),
    "condorcet_cycles": (lambda s: voting.condorcet_cycles(s), "scores", {"nan"}),
    "count_condorcet_cycles": (lambda s: voting.count_condorcet_cycles(s), "scores", {"nan"}),
    "copeland": (lambda s: voting.copeland(s), "scores", {"nan"}),
    "ranked_pairs": (lambda s: voting.ranked_pairs(s), "scores", {"nan"}),
    "kemeny": (lambda s: voting.kemeny(s), "scores", {"nan"}),
    "pareto_violations": (lambda s: axioms.pareto_violations(s, rule=RULE), "scores", {"nan"}),
    "field_margins": (lambda s: axioms.field_margins(s, **_named_sets(s)), "scores", {"nan"}),
    "iia_flip": (lambda s: axioms.iia_flip(s, pair=tuple(_sets(s)[0]), **_named_sets(s)), "scores", {"nan"}),
    "iia_report": (lambda s: axioms.iia_report(s, **_named_sets(s)), "scores", {"nan"}),
    "default_eps": (lambda s: sensitivity.default_eps(s), "scores", set()),
    "cardinal_sensitivity": (
        lambda s: sensitivity.cardinal_sensitivity(s, eps=0.1, method="relaxation", restarts=2, steps=2, polish=False),
        "scores",
        set(),
    ),
    "cardinal_sensitivity_exact": (
        lambda s: sensitivity.cardinal_sensitivity_exact(s, eps=0.1, time_limit=5),
        "scores",
        set(),
    ),
    "ordinal_sensitivity": (
        lambda s: sensitivity.ordinal_sensitivity(s, protected=_sets(s)[0], restarts=2, steps=2),
        "scores",
        {"nan"},
    ),
    "ordinal_sensitivity_exact": (
        lambda s: sensitivity.ordinal_sensitivity_exact(s, protected=_sets(s)[0]),
        "scores",
        {"nan"},
    ),
    "default_protected": (lambda s: sensitivity.default_protected(s), "scores", {"nan"}),
    "subset_agreement": (lambda s: sensitivity.subset_agreement(s, sizes=[1]), "scores", set()),
    "possible_winners": (lambda s: sensitivity.possible_winners(s, eps=0.1), "scores", set()),
    "rank_intervals": (lambda s: bv.intervals.rank_intervals(s, n_boot=5), "scores", set()),
    "knock_out": (lambda s: missing.knock_out(s, 0.2), "scores", {"nan"}),
    "knn_impute": (lambda s: missing.knn_impute(s), "scores", {"nan"}),
    "robustness_study": (lambda s: missing.robustness_study(s, shares=[0.1], repetitions=1), "scores", {"nan"}),
    "expected_ranks": (lambda s: missing.expected_ranks(s), "scores", {"nan"}),
    "partial_borda": (lambda s: missing.partial_borda(s), "scores", {"nan"}),
    "two_level_borda": (lambda s: missing.two_level_borda([s, s]), "instance_scores", {"nan"}),
    "pairwise_confidence": (lambda s: missing.pairwise_confidence(s), "scores", {"nan"}),
    "rankings_from_scores": (lambda s: domains.rankings_from_scores(s), "scores", {"one_model"}),
    "average_rank_flips": (
        lambda s: domains.average_rank_flips(s, True, **dict(zip(("models", "candidates"), _sets(s)))),
        "scores",
        set(),
    ),
    "comparison_matrix": (lambda s: ratings.comparison_matrix(s), "scores", {"nan"}),
    "matches_from_scores": (lambda s: ratings.matches_from_scores(s), "scores", {"nan"}),
    "benchmark_pca": (lambda s: spectrum.benchmark_pca(s), "scores", set()),
}

#: functions of one score vector
VECTOR_FUNCTIONS = {"task_matrix": lambda v: missing.task_matrix(v)}
BAD_VECTORS = {
    "none": (None, ("none", "numeric")),
    "strings": (["a", "b", "c"], ("numeric",)),
    "2d": ([[1.0, 2.0], [3.0, 4.0]], ("1-d",)),
    "inf": ([1.0, np.inf, 2.0], ("infinite",)),
    "short": ([1.0], ("at least",)),
}


def _sets(s):
    """Protected set and pool: labels for a frame, row numbers for an array."""
    if isinstance(s, pd.DataFrame):
        return P, POOL
    return [0, 1], [2]


def _named_sets(s):
    protected, pool = _sets(s)
    return {"protected": protected, "pool": pool}


def _assert_refused_by_benchvote(call, words, argument):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    message = str(info.value).lower()
    assert argument.lower() in message, f"message does not name {argument!r}: {info.value}"
    assert any(w in message for w in words), f"message does not name the problem ({words}): {info.value}"
    # every frame from the public call to the raise lies in benchvote: no third-party code saw the input
    frames = [Path(f.f_code.co_filename).resolve() for f, _ in traceback.walk_tb(info.tb)]
    outside = [str(f) for f in frames if PACKAGE not in f.parents and f != Path(__file__).resolve()]
    assert not outside, f"refused by third-party code: {outside[-1]}"


CASES = [(name, kind) for name, (_, _, skip) in TABLE_FUNCTIONS.items() for kind in BAD_TABLES if kind not in skip]


@pytest.mark.parametrize("kind", list(BAD_VECTORS))
@pytest.mark.parametrize("name", list(VECTOR_FUNCTIONS))
def test_bad_vector(name, kind):
    value, words = BAD_VECTORS[kind]
    _assert_refused_by_benchvote(lambda: VECTOR_FUNCTIONS[name](value), words, "scores")


@pytest.mark.parametrize("name, kind", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_bad_table(name, kind):
    call, argument, _ = TABLE_FUNCTIONS[name]
    make, words = BAD_TABLES[kind]
    table = make()
    _assert_refused_by_benchvote(lambda: call(table), words, argument)


DIRECTED = [
    "rank",
    "diversity",
    "pairwise_wins",
    "mean_win_rate",
    "borda",
    "task_ranks",
    "majority_counts",
    "condorcet_cycles",
    "count_condorcet_cycles",
    "copeland",
    "ranked_pairs",
    "kemeny",
    "expected_ranks",
    "partial_borda",
    "pairwise_confidence",
    "rankings_from_scores",
    "comparison_matrix",
    "default_protected",
    "ordinal_sensitivity_exact",
    "field_margins",
    "subset_agreement",
]


def _directed_call(name):
    d = [True, False]  # two directions for three tasks
    return {
        "rank": lambda: bv.rank(GOOD, d),
        "diversity": lambda: bv.diversity(GOOD, d),
        "pairwise_wins": lambda: bv.pairwise_wins(GOOD, d),
        "mean_win_rate": lambda: bv.mean_win_rate(GOOD, d),
        "borda": lambda: bv.borda(GOOD, d),
        "task_ranks": lambda: bv.task_ranks(GOOD, d),
        "majority_counts": lambda: voting.majority_counts(GOOD, d),
        "condorcet_cycles": lambda: voting.condorcet_cycles(GOOD, d),
        "count_condorcet_cycles": lambda: voting.count_condorcet_cycles(GOOD, d),
        "copeland": lambda: voting.copeland(GOOD, d),
        "ranked_pairs": lambda: voting.ranked_pairs(GOOD, d),
        "kemeny": lambda: voting.kemeny(GOOD, d),
        "expected_ranks": lambda: missing.expected_ranks(GOOD, d),
        "partial_borda": lambda: missing.partial_borda(GOOD, d),
        "pairwise_confidence": lambda: missing.pairwise_confidence(GOOD, d, 0.05),
        "rankings_from_scores": lambda: domains.rankings_from_scores(GOOD, d),
        "comparison_matrix": lambda: ratings.comparison_matrix(GOOD, d),
        "default_protected": lambda: sensitivity.default_protected(GOOD, d),
        "ordinal_sensitivity_exact": lambda: sensitivity.ordinal_sensitivity_exact(GOOD, d, protected=P),
        "field_margins": lambda: axioms.field_margins(GOOD, d, protected=P, pool=POOL),
        "subset_agreement": lambda: sensitivity.subset_agreement(GOOD, d, sizes=[1]),
    }[name]


@pytest.mark.parametrize("name", DIRECTED)
def test_wrong_length_direction(name):
    _assert_refused_by_benchvote(_directed_call(name), ("one entry per task", "shape"), "higher_is_better")


NAN = float("nan")
#: (call, argument named in the message, words naming the problem)
BAD_PARAMETERS = {
    "rank tol=None": (lambda: bv.rank(GOOD, tol=None), "tol", ("number",)),
    "rank tol=-1": (lambda: bv.rank(GOOD, tol=-1), "tol", (">=",)),
    "rank tol=nan": (lambda: bv.rank(GOOD, tol=NAN), "tol", ("finite",)),
    "rank nan_policy": (lambda: bv.rank(GOOD, nan_policy="drop"), "nan_policy", ("one of",)),
    "mean_win_rate tol='0'": (lambda: bv.mean_win_rate(GOOD, tol="0"), "tol", ("number",)),
    "mean_win_rate convention": (
        lambda: bv.mean_win_rate(GOOD, convention="helm2"),
        "convention",
        ("one of", "must be"),
    ),
    "borda tol=-1": (lambda: bv.borda(GOOD, tol=-1.0), "tol", (">=",)),
    "default_eps tol=None": (lambda: sensitivity.default_eps(GOOD, tol=None), "tol", ("number",)),
    "cardinal eps='0.1'": (lambda: sensitivity.cardinal_sensitivity_exact(GOOD, eps="0.1"), "eps", ("number",)),
    "cardinal eps=1.5": (lambda: sensitivity.cardinal_sensitivity_exact(GOOD, eps=1.5), "eps", ("<",)),
    "cardinal eps=0": (lambda: sensitivity.cardinal_sensitivity(GOOD, eps=0.0), "eps", (">",)),
    "cardinal eps=nan": (lambda: sensitivity.cardinal_sensitivity(GOOD, eps=NAN), "eps", ("finite",)),
    "cardinal tol=None": (lambda: sensitivity.cardinal_sensitivity_exact(GOOD, eps=0.1, tol=None), "tol", ("number",)),
    "cardinal time_limit=-1": (
        lambda: sensitivity.cardinal_sensitivity_exact(GOOD, eps=0.1, time_limit=-1),
        "time_limit",
        (">",),
    ),
    "cardinal method": (
        lambda: sensitivity.cardinal_sensitivity_exact(GOOD, eps=0.1, method="simplex"),
        "method",
        ("one of",),
    ),
    "cardinal normalize": (
        lambda: sensitivity.cardinal_sensitivity(GOOD, eps=0.1, normalize="l2"),
        "normalize",
        ("one of",),
    ),
    "cardinal restarts=0": (lambda: sensitivity.cardinal_sensitivity(GOOD, eps=0.1, restarts=0), "restarts", (">=",)),
    "cardinal steps=1.5": (lambda: sensitivity.cardinal_sensitivity(GOOD, eps=0.1, steps=1.5), "steps", ("integer",)),
    "cardinal seed='a'": (lambda: sensitivity.cardinal_sensitivity(GOOD, eps=0.1, seed="a"), "seed", ("integer",)),
    "ordinal kicks=-1": (lambda: sensitivity.ordinal_sensitivity(GOOD, protected=P, kicks=-1), "kicks", (">=",)),
    "ordinal restarts=0": (lambda: sensitivity.ordinal_sensitivity(GOOD, protected=P, restarts=0), "restarts", (">=",)),
    "ordinal_exact time_limit=-1": (
        lambda: sensitivity.ordinal_sensitivity_exact(GOOD, protected=P, time_limit=-1),
        "time_limit",
        (">",),
    ),
    "ordinal_exact method": (
        lambda: sensitivity.ordinal_sensitivity_exact(GOOD, protected=P, method="brute"),
        "method",
        ("one of",),
    ),
    "ordinal protected string": (
        lambda: sensitivity.ordinal_sensitivity_exact(GOOD, protected="m0"),
        "protected",
        ("string",),
    ),
    "ordinal protected unknown": (
        lambda: sensitivity.ordinal_sensitivity_exact(GOOD, protected=["m0", "zz"]),
        "protected",
        ("unknown",),
    ),
    "default_protected share=1": (lambda: sensitivity.default_protected(GOOD, share=1.0), "share", ("<",)),
    "subset_agreement samples=0": (lambda: sensitivity.subset_agreement(GOOD, samples=0), "samples", (">=",)),
    "subset_agreement kind": (lambda: sensitivity.subset_agreement(GOOD, kind="both"), "kind", ("one of",)),
    "no_intercept_fit constant": (
        lambda: sensitivity.no_intercept_fit([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]),
        "x",
        ("constant",),
    ),
    "no_intercept_fit nan": (
        lambda: sensitivity.no_intercept_fit([1.0, NAN, 3.0], [1.0, 2.0, 3.0]),
        "x",
        ("missing", "nan"),
    ),
    "no_intercept_fit lengths": (lambda: sensitivity.no_intercept_fit([1.0, 2.0, 3.0], [1.0, 2.0]), "y", ("length",)),
    "knock_out share=1.5": (lambda: missing.knock_out(GOOD, 1.5), "share", ("<",)),
    "knock_out min_per_task=-5": (lambda: missing.knock_out(GOOD, 0.2, min_per_task=-5), "min_per_task", (">=",)),
    "knn_impute n_neighbors=0": (lambda: missing.knn_impute(GOOD, n_neighbors=0), "n_neighbors", (">=",)),
    "robustness_study method": (
        lambda: missing.robustness_study(GOOD, shares=[0.1], methods=["x"]),
        "methods",
        ("unknown",),
    ),
    "robustness_study shares": (lambda: missing.robustness_study(GOOD, shares=[1.2]), "shares", ("<",)),
    "instance_robustness []": (lambda: missing.instance_robustness([], [0.1]), "tasks", ("empty",)),
    "instance_robustness method": (
        lambda: missing.instance_robustness([GOOD.to_numpy()], [0.1], methods=["x"]),
        "methods",
        ("unknown",),
    ),
    "instance_robustness ragged": (
        lambda: missing.instance_robustness([GOOD.to_numpy(), GOOD.to_numpy()[:3]], [0.1]),
        "task matrix",
        ("same models",),
    ),
    "pairwise_confidence delta=2": (lambda: missing.pairwise_confidence(GOOD, delta=2.0), "delta", ("(0, 1)", "<")),
    "elo k=nan": (lambda: ratings.elo([(0, 1, 1.0)], 2, k=NAN), "k", ("finite",)),
    "elo float index": (lambda: ratings.elo([(0.5, 1, 1.0)], 2), "index", ("integer",)),
    "elo index out of range": (lambda: ratings.elo([(0, 5, 1.0)], 2), "index", ("<=",)),
    "elo n_models=1": (lambda: ratings.elo([], 1), "n_models", (">=",)),
    "tukey_depth []": (lambda: domains.tukey_depth([], ("a", "b")), "rankings", ("at least one",)),
    "is_transitive strings": (lambda: voting.is_transitive([["a", "b"], ["c", "d"]]), "relation", ("boolean",)),
    "is_transitive shape": (lambda: voting.is_transitive([[1, 0, 0]]), "relation", ("square",)),
    "majority_counts tolerance=-1": (lambda: voting.majority_counts(GOOD, tol=-1), "tol", (">=",)),
    "water_filling budget=0": (lambda: strategy.water_filling([lambda x: 1 - x], 0.0), "budget", (">",)),
    "water_filling not callable": (lambda: strategy.water_filling([1.0]), "marginal_returns", ("callable",)),
    "water_filling empty": (lambda: strategy.water_filling([]), "marginal_returns", ("at least one",)),
    "average_rank_flips array models": (
        lambda: domains.average_rank_flips(GOOD, True, models=["m0", "m9"], candidates=["m2"]),
        "models",
        ("unknown",),
    ),
    "protected_ranking overlap": (
        lambda: bv.protected_ranking(GOOD, protected=P, added=["m0"]),
        "protected",
        ("both",),
    ),
    "rankings_from_scores tie_break": (
        lambda: domains.rankings_from_scores(GOOD, tie_break="random"),
        "tie_break",
        ("one of",),
    ),
}


@pytest.mark.parametrize("case", list(BAD_PARAMETERS))
def test_bad_parameter(case):
    call, argument, words = BAD_PARAMETERS[case]
    _assert_refused_by_benchvote(call, words, argument)


def test_the_table_is_large_and_covers_every_table_function():
    assert len(CASES) >= 350
    modules = (
        bv.ranking,
        bv.aggregation,
        concordance,
        normalization,
        voting,
        axioms,
        sensitivity,
        missing,
        domains,
        ratings,
        spectrum,
        bv.intervals,
    )
    functions = {
        name: getattr(mod, name)
        for mod in modules
        for name in mod.__all__
        if callable(getattr(mod, name)) and not isinstance(getattr(mod, name), type)
    }
    takes_a_table = {name for name, f in functions.items() if "scores" in inspect.signature(f).parameters}
    # long tables of instance scores have their own bad-input table (test_intervals.py::test_bad_instance_tables)
    long_tables = {"instance_rank_intervals", "instance_table"}
    covered = set(TABLE_FUNCTIONS) | set(VECTOR_FUNCTIONS) | long_tables
    assert takes_a_table <= covered, sorted(takes_a_table - covered)


class TestHelpers:
    def test_check_number(self):
        assert check_number(3, "k", low=0, integer=True) == 3
        assert check_number(2.0, "k", integer=True) == 2
        for bad, exc in [
            (None, TypeError),
            ("1", TypeError),
            (True, TypeError),
            ([1.0], TypeError),
            (math.inf, ValueError),
            (NAN, ValueError),
        ]:
            with pytest.raises(exc, match="x must be"):
                check_number(bad, "x")
        with pytest.raises(ValueError, match="x must be > 0"):
            check_number(0.0, "x", low=0.0, low_open=True)

    def test_constant_tasks_use_the_exact_spread(self):
        # three copies of a value from MMLU formal_logic: std is 7e-15, the spread is exactly 0
        v = np.array([[55.55555555555556, 1.0], [55.55555555555556, 2.0], [55.55555555555556, 3.0]])
        assert v[:, 0].std() > 0
        assert constant_tasks(v, 0.0).tolist() == [True, False]
        near = np.array([[1.0, np.nan], [1.0 + 1e-12, 2.0], [1.0, 3.0]])
        assert constant_tasks(near, 1e-9).tolist() == [True, False]
        assert constant_tasks(near, 0.0).tolist() == [False, False]

    def test_a_task_with_no_score_is_empty_not_constant(self):
        v = np.array([[NAN, 1.0, 4.0, 2.0], [NAN, 1.0, NAN, 3.0], [NAN, 1.0, NAN, 5.0]])
        assert constant_tasks(v, 1e-9).tolist() == [False, True, True, False]  # one score orders nobody: constant

    def test_label_lists(self):
        assert as_label_list(("a", "b"), "models", ["a", "b", "c"]) == ["a", "b"]
        with pytest.raises(UnknownLabelError, match="unknown model"):
            as_label_list(["z"], "models", ["a"])
        with pytest.raises(ValueError, match="repeats"):
            as_label_list(["a", "a"], "models", ["a"])
        with pytest.raises(TypeError, match="string"):
            as_label_list("ab", "models", ["a", "b"])

    def test_exact_midranks(self):
        assert exact_midranks([3, 1, 3, 2]).tolist() == [1.5, 4.0, 1.5, 3.0]
        big = 10**30
        assert exact_midranks([big, big + 1]).tolist() == [2.0, 1.0]  # no float rounding

    def test_duplicate_task_labels_reach_the_validator_message(self):
        s = pd.DataFrame([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], columns=["t", "t"])
        with pytest.raises(ValueError, match=r"duplicated task labels: \['t'\]"):
            bv.mean_score(s)
        with pytest.raises(ValueError, match="duplicated column labels"):
            bv.rank(s)


def test_score_frame_and_matrix_is_one_validation_of_both():
    from benchvote._validation import as_score_frame, score_frame_and_matrix

    frame, mat = score_frame_and_matrix([[1.0, np.nan], [2.0, 3.0]], allow_nan=True)
    assert frame.equals(as_score_frame([[1.0, np.nan], [2.0, 3.0]], allow_nan=True))
    assert np.array_equal(frame.to_numpy(), mat.values, equal_nan=True) and not mat.labelled
    labelled = pd.DataFrame({"t": [1.0, 2.0]}, index=["A", "B"])
    frame, mat = score_frame_and_matrix(labelled)
    assert frame is labelled and mat.labelled and list(mat.models) == ["A", "B"]
    with pytest.raises(ValueError, match="NaN|missing"):
        score_frame_and_matrix([[1.0, np.nan], [2.0, 3.0]])


# --------------------------------------------------------------------------- the measure contract, carried once


def _probe():
    """A measure that reports what its body receives."""
    from benchvote._validation import measure

    @measure(allow_empty_rows=lambda nan_policy: nan_policy == "middle", nan_choices=("raise", "omit", "middle"))
    def probe(scores, higher_is_better=True, *, tol=1e-9, nan_policy="raise", seed=0):
        """A probe.

        Parameters
        ----------
        tol : float
            Its own words on the tolerance.

        Examples
        --------
        >>> 1
        1
        """
        return scores, higher_is_better, tol, nan_policy, seed

    return probe


def test_the_contract_hands_the_body_a_validated_table_with_its_directions():
    from benchvote._validation import Table

    frame = pd.DataFrame({"acc": [0.9, 0.5], "err": [3.0, 1.0]}, index=["a", "b"])
    table, direction, tol, policy, seed = _probe()(frame, pd.Series({"err": False, "acc": True}), seed=np.int64(3))
    assert isinstance(table, Table) and table.models == ["a", "b"] and table.tasks == ["acc", "err"]
    assert direction.tolist() == [True, False] and table.sign.tolist() == [1.0, -1.0]
    np.testing.assert_array_equal(table.oriented, [[0.9, -3.0], [0.5, -1.0]])
    assert (tol, policy, seed) == (1e-9, "raise", 3) and type(seed) is int


def test_the_contract_unpacks_a_leaderboard_and_refuses_a_second_direction():
    from benchvote.data import Leaderboard

    board = Leaderboard(
        name="t",
        scores=pd.DataFrame({"x": [1.0, 2.0]}, index=["a", "b"]),
        higher_is_better=pd.Series({"x": False}),
        kind="cardinal",
        source="a test",
        version="1",
    )
    assert _probe()(board)[1].tolist() == [False]
    with pytest.raises(ValueError, match="carries its own higher_is_better"):
        _probe()(board, [True])


def test_the_contract_decides_missing_cells_and_empty_rows_from_the_checked_policy():
    probe = _probe()
    holes = [[1.0, np.nan], [np.nan, np.nan], [2.0, 1.0]]
    with pytest.raises(ValueError, match="missing"):
        probe(holes)
    with pytest.raises(ValueError, match="no observed score"):
        probe(holes, nan_policy="omit")
    assert probe(holes, nan_policy="middle")[3] == "middle"
    with pytest.raises(ValueError, match="nan_policy must be one of"):
        probe(holes, nan_policy="ignore")


@pytest.mark.parametrize("bad, name", [({"tol": -1.0}, "tol"), ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed")])
def test_the_contract_checks_tol_and_seed_before_the_body_runs(bad, name):
    with pytest.raises((TypeError, ValueError), match=name):
        _probe()([[1.0], [2.0]], **bad)


def test_the_contract_keeps_the_body_signature_and_documents_what_the_body_leaves_out():
    probe = _probe()
    assert list(inspect.signature(probe).parameters) == ["scores", "higher_is_better", "tol", "nan_policy", "seed"]
    doc = probe.__doc__
    assert doc.index("scores : array_like") < doc.index("higher_is_better : bool") < doc.index("tol : float")
    assert "Its own words on the tolerance." in doc and doc.count("tol : float") == 1
    assert doc.index("tol : float") < doc.index('nan_policy : {"raise", "omit", "middle"}') < doc.index("seed : int")
    assert doc.index("seed : int") < doc.index("Examples") and "missing cells (``nan``) as ``nan_policy`` says" in doc


def test_one_measure_may_hand_its_validated_table_to_another():
    from benchvote import mean_score

    probe = _probe()
    table = probe(pd.DataFrame({"x": [1.0, 3.0]}, index=["a", "b"]), [False])[0]
    assert mean_score(table, [True]).tolist() == [1.0, 3.0]


def test_a_handed_table_keeps_its_checked_labels_and_meets_the_next_contract_again():
    # the labels were checked once (no frame is rebuilt); the next measure's own limits still apply
    from benchvote import mean_score

    probe = _probe()
    table = probe(pd.DataFrame({"x": [1.0, np.nan], "y": [2.0, 4.0]}, index=["a", "b"]), nan_policy="omit")[0]
    again = probe(table, nan_policy="omit")[0]
    assert again.values is table.values and again.models == ["a", "b"] and again.labelled
    with pytest.raises(ValueError, match=r"1 missing value \(NaN\) at \(b, x\)"):
        probe(table)  # "raise": the same message as for the frame itself
    with pytest.raises(ValueError, match="at least 3 models"):
        bv._validation.as_score_matrix(table, allow_nan=True, min_models=3)
    assert mean_score(table, nan_policy="omit").tolist() == [1.5, 4.0]
