r"""Sensitivity of a benchmark's ranking to changes that should not matter (Zhang & Hardt, 2024).

*Cardinal* sensitivity (their eqs. 6-8): reweight each task by
:math:`\alpha_j \in [\varepsilon, 1]`, the share of its test examples whose
labels are left intact when the rest are replaced by random labels.  Random
labels turn a score :math:`s` into :math:`\alpha_j s + (1-\alpha_j) p_j`, a
strictly increasing map, so no task's ranking changes; the mean score
becomes :math:`\sum_j \alpha_j s_{ij}` up to a constant.  The sensitivity is
the largest Kendall tau distance between the original and the reweighted
mean-score rankings.

*Ordinal* sensitivity (their eqs. 9-11, with the parentheses of eq. 11
restored): rank a protected set of models by strict mean win rate among
themselves, then add any subset of the other models to the field; the
sensitivity is the largest Kendall tau distance between the protected
models' two rankings.

Both maxima are combinatorial.  This module offers

* the gradient relaxations of the paper (hinge surrogate, eqs. 12-13;
  Algorithms 1-2), vectorised over all pairs of models and batched over many
  seeded random restarts (lower bounds);
* exact solvers: for cardinal sensitivity, a branch and bound over boxes of
  weights (few tasks, any number of models), a mixed-integer program
  (``scipy.optimize.milp``; many tasks, few models) and a weight-space
  branch and bound with the clique-LP bound (many tasks and many models;
  HiGHS through ``highspy``); for ordinal sensitivity,
  the mixed-integer program and exhaustive enumeration of the added subsets
  for small pools.  Each reports a certified upper bound when it stops at its
  time limit.

Reported values are always recomputed from the returned weights or subset
with :func:`benchvote.rank` and :func:`benchvote.kendall_tau_distance`, so
they never rest on the relaxation.

Modules:

* :mod:`benchvote.sensitivity.cardinal`: :func:`cardinal_sensitivity`, the
  entry point (``method="auto"`` picks the exact search or the relaxation),
  and the relaxation with its coordinate search;
* :mod:`benchvote.sensitivity.cardinal_exact`: :func:`cardinal_sensitivity_exact`,
  the best-bound box search and the mixed-integer program, and the dispatch to
  the clique search of :mod:`._cliques` (conflicts, clique LP, dual bound) and
  :mod:`._weightbb` (its branch and bound in weight space);
* :mod:`benchvote.sensitivity.ordinal`: :func:`ordinal_sensitivity` (relaxation),
  :func:`ordinal_sensitivity_exact` and :func:`default_protected`;
* :mod:`benchvote.sensitivity.winners`: :func:`possible_winners`, the models
  that some weighting in the same box ranks first (a linear program each);
* :mod:`benchvote.sensitivity.agreement`: :func:`subset_agreement` and
  :func:`no_intercept_fit`, companions of diversity in the trade-off chapter;
* :mod:`benchvote.sensitivity.study`: :func:`trade_off_table`, the study of
  the trade-off chapter (diversity and sensitivity of many boards, a row
  each).
"""

from ._policy import AUTO_EXACT_MAX_TASKS, AUTO_MILP_MAX_PAIRS, exact_method
from ._problem import CardinalSensitivity, default_eps
from .agreement import no_intercept_fit, subset_agreement
from .cardinal import cardinal_sensitivity
from .cardinal_exact import cardinal_sensitivity_exact
from .ordinal import OrdinalSensitivity, default_protected, ordinal_sensitivity, ordinal_sensitivity_exact
from .study import TradeOffJob, trade_off_table
from .winners import PossibleWinners, possible_winners

__all__ = [
    "default_eps",
    "CardinalSensitivity",
    "cardinal_sensitivity",
    "cardinal_sensitivity_exact",
    "AUTO_EXACT_MAX_TASKS",
    "AUTO_MILP_MAX_PAIRS",
    "exact_method",
    "OrdinalSensitivity",
    "ordinal_sensitivity",
    "ordinal_sensitivity_exact",
    "default_protected",
    "subset_agreement",
    "no_intercept_fit",
    "PossibleWinners",
    "possible_winners",
    "TradeOffJob",
    "trade_off_table",
]
