"""benchvote: social-choice measures for multi-task benchmarks.

Models are candidates, tasks are voters.  The package is a set of small
modules of pure functions on a models x tasks table (a numpy array, a pandas
DataFrame, or a :class:`benchvote.data.Leaderboard`, which carries each
task's direction).  Every measure on a table takes
``(scores, higher_is_better=True, *, tol=..., nan_policy=..., seed=...)``;
every rule returns one number per model, higher = better.

Measures and rules:

* :mod:`benchvote.ranking`: ranks with ties, Kendall tau distance, maximum rank change, reversed pairs, the
  quality-cost Pareto front;
* :mod:`benchvote.aggregation`: mean score, pairwise wins, mean win rate, Borda, rankings of a protected set;
* :mod:`benchvote.concordance`: Kendall's W and benchmark diversity;
* :mod:`benchvote.normalization`: dynamic-range, random-baseline and min-max normalisation;
* :mod:`benchvote.positional`: positional scoring rules (plurality, veto, k-approval, Borda) and their winners;
* :mod:`benchvote.classics`: May's theorem by enumeration; Gibbard-Satterthwaite manipulations by one task;
* :mod:`benchvote.voting`: majority margins, Condorcet winner and cycles, Copeland, Ranked Pairs, Kemeny;
* :mod:`benchvote.axioms`: Pareto and exact independence-of-irrelevant-alternatives certificates;
* :mod:`benchvote.arrow`: every ranking rule for three models and two voters, enumerated (Arrow's theorem);
* :mod:`benchvote.sensitivity`: cardinal and ordinal sensitivity, exact or relaxed, with certificates; possible winners;
* :mod:`benchvote.intervals`: bootstrap intervals of the ranks over the tasks (or test instances), and the pairs they
  cannot separate;
* :mod:`benchvote.comparisons`: paired tests between models (McNemar, permutation, sign, Wilcoxon), Holm-adjusted
  comparisons of all pairs, simultaneous rank sets and tiers;
* :mod:`benchvote.missing`: partial rankings, Borda with missing scores, pairwise confidence;
* :mod:`benchvote.domains`: single-peaked, group-separable and distance-restricted profiles, Tukey depth;
* :mod:`benchvote.strategy`: effort allocation across tasks by water filling;
* :mod:`benchvote.ratings`: Bradley-Terry and Elo ratings from task-level matches;
* :mod:`benchvote.battles`: pairwise battle logs (arena leaderboards): Bradley-Terry ratings with bootstrap intervals,
  rank sets and tiers;
* :mod:`benchvote.rules`: the registry of the aggregation rules (label, function, missing scores, definition);
* :mod:`benchvote.spectrum`: principal components of a score table.

Data and presentation (never imported by the modules above):

* :mod:`benchvote.data`: the leaderboards shipped by benchbench and the small source tables;
* :mod:`benchvote.plotting`: the book's figures (matplotlib);
* :mod:`benchvote.explorables`: controls that compute in the page, without a kernel;
* :mod:`benchvote.widgets`: ipywidgets controls for live Jupyter sessions;
* :mod:`benchvote.cache`: a disk cache for long computations;
* :mod:`benchvote.audit`: every measure above on one leaderboard, as an HTML and a JSON report;
* :mod:`benchvote.cli`: the command line ``benchvote audit SCORES`` (also ``python -m benchvote``).

Every submodule is reachable as an attribute (``benchvote.voting.copeland``)
and imported on first use; torch, scipy's solvers, matplotlib and ipywidgets
are imported only by the functions that need them.
"""

from __future__ import annotations

import importlib
from typing import Any

from .aggregation import (
    PairwiseCounts,
    borda,
    geometric_mean,
    mean_score,
    mean_win_rate,
    pairwise_wins,
    protected_ranking,
    task_ranks,
)
from .concordance import Diversity, diversity, kendall_w, tie_correction
from .normalization import dynamic_range, min_max, random_baseline, relative_to_baseline
from .ranking import DEFAULT_TIE_TOLERANCE, kendall_tau_distance, max_rank_change, rank

__version__ = "0.3.0"

#: The submodules, imported on first attribute access.
SUBMODULES = (
    "aggregation",
    "arrow",
    "audit",
    "axioms",
    "battles",
    "cache",
    "classics",
    "cli",
    "comparisons",
    "concordance",
    "data",
    "domains",
    "explorables",
    "intervals",
    "missing",
    "normalization",
    "plotting",
    "positional",
    "ranking",
    "ratings",
    "rules",
    "sensitivity",
    "spectrum",
    "strategy",
    "voting",
    "widgets",
)

__all__ = [
    "rank",
    "kendall_tau_distance",
    "max_rank_change",
    "DEFAULT_TIE_TOLERANCE",
    "kendall_w",
    "tie_correction",
    "diversity",
    "Diversity",
    "pairwise_wins",
    "PairwiseCounts",
    "mean_score",
    "geometric_mean",
    "mean_win_rate",
    "borda",
    "task_ranks",
    "protected_ranking",
    "dynamic_range",
    "random_baseline",
    "relative_to_baseline",
    "min_max",
]


def __getattr__(name: str) -> Any:
    if name in SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'benchvote' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(SUBMODULES))
