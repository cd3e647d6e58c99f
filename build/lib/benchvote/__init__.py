"""benchvote: social-choice measures for multi-task benchmarks.

Models are candidates, tasks are voters.  The package is a set of small
modules of pure functions on numpy arrays and pandas frames:

* :mod:`benchvote.ranking`: ranks with ties, Kendall tau distance, max rank change;
* :mod:`benchvote.concordance`: Kendall's W and benchmark diversity;
* :mod:`benchvote.aggregation`: mean score, pairwise wins, mean win rate, Borda;
* :mod:`benchvote.normalization`: dynamic-range and random-baseline normalisation;
* :mod:`benchvote.data`: the leaderboards shipped by benchbench and the sources' tables.
"""

from .aggregation import PairwiseCounts, borda, mean_score, mean_win_rate, pairwise_wins, protected_ranking, task_ranks
from .concordance import Diversity, diversity, kendall_w, tie_correction
from .normalization import dynamic_range, min_max, random_baseline
from .ranking import DEFAULT_TIE_TOLERANCE, kendall_tau_distance, max_rank_change, rank

__version__ = "0.1.0"

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
    "mean_win_rate",
    "borda",
    "task_ranks",
    "protected_ranking",
    "dynamic_range",
    "random_baseline",
    "min_max",
]
