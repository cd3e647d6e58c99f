r"""Pairwise battle logs, as arena leaderboards publish them: Bradley-Terry ratings, bootstrap intervals, rank sets.

A battle log is a table with one row per vote and three columns:
``model_a`` and ``model_b`` (the two models shown) and ``winner``, which
reads (after stripping spaces, in any case):

* ``"model_a"`` or ``"a"``: the first model won;
* ``"model_b"`` or ``"b"``: the second model won;
* ``"tie"``, ``"tie (bothbad)"``, ``"tie(bothbad)"``, ``"bothbad"``,
  ``"both_bad"``, ``"both bad"`` or ``"draw"``: a tie, whether both answers
  were good or both bad.

A tie counts as half a win to each side (the convention of the arena
leaderboards' Bradley-Terry fits): :func:`battle_counts` keeps the
decisive wins and the ties apart, and :meth:`BattleCounts.points` adds
them up as the match table that :func:`benchvote.ratings.bradley_terry`
fits.  Ratings are log-strengths centred to mean 0; the arena's Elo-like
scale is :math:`1000 + 400 \beta / \ln 10`.

Uncertainty comes from the votes: :func:`battle_ratings` redraws the
battles with replacement (the bootstrap), as the arena leaderboards do,
and refits every redraw.  A redraw is drawn as multinomial counts of the
distinct (model_a, model_b, outcome) triples, never battle by battle.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.special import ndtr

from ._validation import check_number, numbered
from .comparisons import _CHUNK_CELLS, PairwiseComparisons, RankSets, _surely_better, _tiers, pair_intervals
from .intervals import _exact_level
from .ratings import bradley_terry

__all__ = ["BattleCounts", "BattleRatings", "battle_counts", "battle_ratings"]

#: The columns of a battle log.
COLUMNS = ("model_a", "model_b", "winner")

#: The accepted spellings of the winner column (lower case, stripped), and the outcome each stands for:
#: 0 model_a won, 1 model_b won, 2 tie.
WINNERS = {
    "model_a": 0,
    "a": 0,
    "model_b": 1,
    "b": 1,
    "tie": 2,
    "tie (bothbad)": 2,
    "tie(bothbad)": 2,
    "bothbad": 2,
    "both_bad": 2,
    "both bad": 2,
    "draw": 2,
}

#: Pseudo-ties added between every pair that met in the log, in a redraw whose comparison graph is not strongly
#: connected (a model that wins all its redrawn battles has no maximum-likelihood rating).
SMOOTHING = 1e-3


@dataclass(frozen=True)
class BattleCounts:
    """Result of :func:`battle_counts`.

    Attributes
    ----------
    models : list
        Model names, sorted.
    wins : ndarray of float, shape (m, m)
        ``wins[i, j]``: decisive battles model i won against model j.
    ties : ndarray of float, shape (m, m)
        ``ties[i, j]``: battles of i and j that ended in a tie (symmetric).
    n_battles : int
    """

    models: list
    wins: np.ndarray
    ties: np.ndarray
    n_battles: int

    def points(self) -> np.ndarray:
        """The match table of Bradley-Terry: decisive wins plus half of every tie."""
        return self.wins + 0.5 * self.ties


@dataclass(frozen=True)
class BattleRatings:
    """Result of :func:`battle_ratings`.

    Attributes
    ----------
    models : list
        Model names, sorted.
    ratings : ndarray of float
        Bradley-Terry log-strengths, centred to mean 0.
    low, high : ndarray of float
        Each rating's bootstrap percentile interval at ``level`` (marginal: one model at a time).
    upper_rank : ndarray of int
        The arena's rank: 1 + the number of models whose ``low`` exceeds this model's ``high``.
    lowest, highest : ndarray of int
        Simultaneous rank sets ``[lowest, highest]`` (1 = best), from the max-T intervals of all differences.
    above : ndarray of bool, shape (m, m)
        ``above[i, j]``: model i is surely better than model j (simultaneous interval of the difference above 0).
    order : ndarray of int
        The leaderboard order (indices, best rating first; ties by name).
    tiers : list of list
        Model names in leaderboard order, cut where a model is surely worse than the top of its tier.
    level : float
    n_boot : int
    n_battles : int
    n_smoothed : int
        Redraws whose comparison graph was not strongly connected, fitted with :data:`SMOOTHING` pseudo-ties.
    comparisons : PairwiseComparisons
        Every pair (``a`` before ``b`` by name), ``test`` ``"bradley-terry"``:
        ``diff`` the difference of ratings, ``ci_low``/``ci_high`` its
        percentile interval, ``simultaneous_low``/``simultaneous_high`` the
        max-T intervals behind ``above``, ``p`` the two-sided Wald p-value of
        ``diff`` over its bootstrap standard deviation (a normal approximation:
        ``exact`` is False), ``p_adjusted`` Holm's.
    """

    models: list
    ratings: np.ndarray
    low: np.ndarray
    high: np.ndarray
    upper_rank: np.ndarray
    lowest: np.ndarray
    highest: np.ndarray
    above: np.ndarray
    order: np.ndarray
    tiers: list
    level: float
    n_boot: int
    n_battles: int
    n_smoothed: int
    comparisons: PairwiseComparisons

    def rank_sets(self) -> RankSets:
        """The simultaneous rank sets and tiers as :func:`benchvote.comparisons.rank_sets` gives them (``"max-t"``)."""
        return RankSets(
            models=list(self.models),
            lowest=self.lowest,
            highest=self.highest,
            above=self.above,
            order=self.order,
            tiers=self.tiers,
            level=self.level,
            method="max-t",
            comparisons=self.comparisons,
        )

    def frame(self) -> pd.DataFrame:
        """One row per model in leaderboard order: rating, interval, arena rank, simultaneous rank set."""
        out = pd.DataFrame(
            {
                "rating": self.ratings,
                "low": self.low,
                "high": self.high,
                "upper_rank": self.upper_rank,
                "lowest": self.lowest,
                "highest": self.highest,
            },
            index=pd.Index(self.models, name="model"),
        )
        return out.iloc[self.order]


@dataclass(frozen=True)
class _Triples:
    """The distinct (i, j, outcome) triples of a log (i < j, outcome 0: i won, 1: j won, 2: tie) and their counts."""

    models: list
    i: np.ndarray
    j: np.ndarray
    outcome: np.ndarray
    counts: np.ndarray

    @cached_property
    def _cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where each triple's points go in the flat m x m table (a tie twice, both ways), with its points."""
        m = len(self.models)
        winner = np.where(self.outcome == 1, self.j, self.i)
        loser = np.where(self.outcome == 1, self.i, self.j)
        tie = self.outcome == 2
        index = np.concatenate([winner * m + loser, (loser * m + winner)[tie]])
        source = np.concatenate([np.arange(len(tie)), np.flatnonzero(tie)])
        return index, source, np.where(tie, 0.5, 1.0)[source]

    def flat(self, counts: np.ndarray) -> np.ndarray:
        """The points table (m x m) of the triples drawn ``counts`` times each: one bincount."""
        m = len(self.models)
        index, source, points = self._cells
        return np.bincount(index, weights=points * counts[source], minlength=m * m).reshape(m, m)


def _frame(battles: Any) -> pd.DataFrame:
    """The log as a DataFrame with the three columns, or one error line per missing column."""
    if isinstance(battles, dict):
        battles = pd.DataFrame(battles)
    if not isinstance(battles, pd.DataFrame):
        raise TypeError(f"battles must be a DataFrame with columns {', '.join(COLUMNS)}; got {type(battles).__name__}")
    missing = [c for c in COLUMNS if c not in battles.columns]
    if missing:
        raise ValueError(
            "\n".join(f"battles: no column {c!r} (columns: {', '.join(map(str, battles.columns))})" for c in missing)
        )
    return battles


def _rows(index: pd.Index, mask: np.ndarray, limit: int = 3) -> str:
    """The first rows of ``mask`` by their labels, and how many more."""
    labels = [str(x) for x in index[np.flatnonzero(mask)[:limit]]]
    more = int(mask.sum()) - len(labels)
    return ", ".join(labels) + (f" and {more} more" if more > 0 else "")


def _outcomes(winner: pd.Series, problems: list[str]) -> np.ndarray:
    """The winner column as outcome codes (0, 1, 2; -1 where unknown), one problem line per unknown value."""
    values = pd.Categorical(winner)
    known = np.array([WINNERS.get(str(c).strip().lower(), -1) for c in values.categories] + [-1], dtype=np.int64)
    codes = np.where(values.codes >= 0, known[np.maximum(values.codes, 0)], -1)  # the -1 appended: no winner at all
    missing = winner.isna().to_numpy()
    if missing.any():
        problems.append(
            f"battles: {int(missing.sum())} {numbered(int(missing.sum()), 'row')} without a winner "
            f"(first: {_rows(winner.index, missing)})"
        )
    bad = (codes < 0) & ~missing
    if bad.any():
        seen = pd.Series(winner[bad].astype(str)).value_counts(sort=False).sort_index()
        shown = ", ".join(f"{v!r} ({n} {numbered(int(n), 'row')})" for v, n in seen[:5].items())
        more = f" and {len(seen) - 5} more values" if len(seen) > 5 else ""
        problems.append(
            f"battles: {int(bad.sum())} {numbered(int(bad.sum()), 'row')} (first: {_rows(winner.index, bad)}) "
            f"{numbered(int(bad.sum()), 'has', 'have')} an unknown winner: {shown}{more}; "
            f"the winner is one of {', '.join(WINNERS)}"
        )
    return codes


def _codes(battles: pd.DataFrame, problems: list[str]) -> tuple[list, np.ndarray, np.ndarray]:
    """The sorted model names and each row's two model codes; problems with missing names or self-play."""
    a, b = battles["model_a"], battles["model_b"]
    empty = (a.isna() | b.isna()).to_numpy()
    if empty.any():
        problems.append(
            f"battles: {int(empty.sum())} {numbered(int(empty.sum()), 'row')} without a model name "
            f"(first: {_rows(battles.index, empty)})"
        )
    names = pd.unique(pd.concat([a[~empty], b[~empty]], ignore_index=True))
    try:
        models = sorted(names)
    except TypeError:
        raise TypeError("battles: model names must be sortable (all strings, or all numbers)") from None
    categories = pd.Index(models)
    i = pd.Categorical(a, categories=categories).codes.astype(np.int64)
    j = pd.Categorical(b, categories=categories).codes.astype(np.int64)
    itself = (i == j) & (i >= 0)
    if itself.any():
        players = sorted({models[k] for k in i[itself]})
        problems.append(
            f"battles: {int(itself.sum())} {numbered(int(itself.sum()), 'row')} (first: "
            f"{_rows(battles.index, itself)}) {numbered(int(itself.sum()), 'has', 'have')} a model playing itself: "
            f"{', '.join(map(str, players[:5]))}"
        )
    return models, i, j


def _components(models: list, i: np.ndarray, j: np.ndarray) -> list[list]:
    """The connected components of the graph with an edge between every two models that met, largest first."""
    m = len(models)
    graph = coo_matrix((np.ones(len(i)), (i, j)), shape=(m, m))
    n, labels = connected_components(graph, directed=False)
    groups = [[models[k] for k in np.flatnonzero(labels == c)] for c in range(n)]
    return sorted(groups, key=lambda g: (-len(g), str(g[0])))


def _triples(battles: Any) -> _Triples:
    """The validated log as its distinct triples, or a ValueError with one line per problem."""
    frame = _frame(battles)
    problems: list[str] = []
    models, i, j = _codes(frame, problems)
    outcome = _outcomes(frame["winner"], problems)
    if len(models) < 2 and not problems:
        problems.append(f"battles: {len(models)} {numbered(len(models), 'model')}; a ranking needs at least 2")
    if problems:
        raise ValueError("\n".join(problems))
    swap = i > j  # each pair in one orientation: model_a the first by name, the winner flipped with it
    i, j = np.where(swap, j, i), np.where(swap, i, j)
    outcome = np.where(swap & (outcome < 2), 1 - outcome, outcome)
    m = len(models)
    keys, counts = np.unique((i * m + j) * 3 + outcome, return_counts=True)
    pairs, outcomes = np.divmod(keys, 3)
    ti, tj = np.divmod(pairs, m)
    groups = _components(models, ti, tj)
    if len(groups) > 1:
        listed = "; ".join(
            "{" + ", ".join(map(str, g[:6])) + (f" and {len(g) - 6} more" if len(g) > 6 else "") + "}" for g in groups
        )
        raise ValueError(
            f"battles: the comparison graph falls into {len(groups)} groups that never met, so their ratings "
            f"cannot be compared: {listed}"
        )
    return _Triples(models, ti, tj, outcomes, counts)


def battle_counts(battles: Any) -> BattleCounts:
    """Decisive wins and ties of every pair of models in a battle log, counted without a loop over the battles.

    Parameters
    ----------
    battles : DataFrame
        One row per battle, columns ``model_a``, ``model_b`` and ``winner``
        (spellings in the module's notes; other columns are ignored).

    Returns
    -------
    BattleCounts

    Raises
    ------
    ValueError
        With one line per problem: a missing column, an unknown winner, a
        row without a model, a model playing itself, fewer than 2 models, or
        a comparison graph in several groups that never met (named).

    Examples
    --------
    >>> log = pd.DataFrame({"model_a": ["x", "y", "x"], "model_b": ["y", "x", "y"],
    ...                     "winner": ["model_a", "model_a", "tie"]})
    >>> c = battle_counts(log)
    >>> c.models, c.wins.tolist(), c.points().tolist()
    (['x', 'y'], [[0.0, 1.0], [1.0, 0.0]], [[0.0, 1.5], [1.5, 0.0]])
    """
    t = _triples(battles)
    m = len(t.models)
    decisive = t.outcome < 2
    winner = np.where(t.outcome == 1, t.j, t.i)[decisive]
    loser = np.where(t.outcome == 1, t.i, t.j)[decisive]
    wins = np.bincount(winner * m + loser, weights=t.counts[decisive], minlength=m * m).reshape(m, m)
    tied = ~decisive
    ties = np.bincount(t.i[tied] * m + t.j[tied], weights=t.counts[tied], minlength=m * m).reshape(m, m)
    return BattleCounts(list(t.models), wins.astype(float), ties + ties.T, int(t.counts.sum()))


def _fit(points: np.ndarray, met: np.ndarray) -> tuple[np.ndarray, bool]:
    """Bradley-Terry log-strengths of a points table; smoothed by pseudo-ties when they do not exist."""
    try:
        return np.asarray(bradley_terry(points).ratings), False
    except ValueError:
        return np.asarray(bradley_terry(points + SMOOTHING * met).ratings), True


def _redraws(t: _Triples, n_boot: int, seed: int) -> tuple[np.ndarray, int]:
    """Bootstrap ratings (n_boot x m): multinomial counts of the triples, from ``default_rng([seed, 0])``."""
    rng = np.random.default_rng([seed, 0])
    total = int(t.counts.sum())
    share = t.counts / total
    m = len(t.models)
    met = np.zeros((m, m))
    met[t.i, t.j] = met[t.j, t.i] = 1.0
    out = np.empty((n_boot, m))
    smoothed = 0
    rows = max(1, _CHUNK_CELLS // max(1, len(share)))
    for start in range(0, n_boot, rows):
        draws = rng.multinomial(total, share, size=min(rows, n_boot - start))
        for k, counts in enumerate(draws):  # one fit per redraw
            out[start + k], was = _fit(t.flat(counts), met)
            smoothed += was
    return out, smoothed


def _pairs(models: list, boot: np.ndarray, ratings: np.ndarray, level: float) -> PairwiseComparisons:
    """Every pair's difference of ratings with its bootstrap intervals and Wald p-values (Holm-adjusted)."""
    a, b = np.triu_indices(len(ratings), k=1)
    diff = ratings[a] - ratings[b]
    ci, simultaneous, spread = pair_intervals(boot, a, b, diff, level)
    z = np.divide(np.abs(diff), spread, out=np.where(diff == 0, 0.0, np.inf), where=spread > 0)
    p = 2 * ndtr(-z)
    return PairwiseComparisons.of(
        models,
        (a, b),
        diff,
        (ci, simultaneous),
        p,
        exact=np.zeros(len(a), dtype=bool),
        scores=ratings,
        test="bradley-terry",
        level=level,
        n_boot=len(boot),
        n_resamples=0,
    )


def battle_ratings(battles: Any, *, n_boot: int = 1000, level: float = 0.95, seed: int = 0) -> BattleRatings:
    r"""Bradley-Terry ratings of a battle log, with bootstrap intervals, two kinds of rank, and tiers.

    The ratings are :func:`benchvote.ratings.bradley_terry` on
    :meth:`BattleCounts.points` (a tie is half a win to each side).  The
    bootstrap redraws the battles with replacement ``n_boot`` times (the
    counts of the distinct (model_a, model_b, outcome) triples are one
    multinomial draw) and refits every redraw; a redraw in which some model
    never loses or never wins has no maximum-likelihood ratings and is
    fitted with :data:`SMOOTHING` pseudo-ties between the pairs that met
    (counted in ``n_smoothed``; rare unless a model has few battles).

    Two ranks come out, and they answer different questions:

    * ``upper_rank``, the *arena upper-bound rank*: 1 + the number of
      models whose interval lies wholly above this model's interval.  It
      compares marginal intervals, each of which covers its own rating at
      ``level`` but not all at once, and two overlapping intervals do not
      mean two models are tied; it is the number the arena leaderboards show.
    * ``[lowest, highest]``, the *simultaneous rank set*: model i is surely
      above j when the max-T interval of :math:`\beta_i - \beta_j` lies above
      0 (each pair's difference plus or minus c times its bootstrap standard
      deviation, c the ``level`` quantile of the largest studentised
      deviation over all pairs); if every such claim holds, which happens
      with probability about ``level``, every model's true rank lies in its
      set at once.

    The tiers cut the leaderboard order where a model is surely worse than
    the top of its tier (as :func:`benchvote.comparisons.rank_sets` does).
    The redraws are seeded and drawn over the triples in the order of the
    sorted model names, so the same log in any row order, or with model_a
    and model_b swapped and the winner flipped, gives the same result.

    Parameters
    ----------
    battles : DataFrame
        Columns ``model_a``, ``model_b``, ``winner`` (see :func:`battle_counts`).
    n_boot : int
        Bootstrap redraws of the battles.
    level : float in (0, 1)
        Coverage of the intervals (marginal) and of the rank sets (simultaneous).
    seed : int
        Seed of the redraws.

    Returns
    -------
    BattleRatings

    Raises
    ------
    ValueError
        For the problems of :func:`battle_counts`, and when the ratings do
        not exist (some group of models never loses, or never wins, against the rest).

    Examples
    --------
    >>> log = pd.DataFrame({"model_a": ["x", "y", "z"] * 40, "model_b": ["y", "z", "x"] * 40,
    ...                     "winner": ["model_a"] * 90 + ["model_b"] * 30})
    >>> r = battle_ratings(log, n_boot=200)
    >>> r.models, r.ratings.round(3).tolist()
    (['x', 'y', 'z'], [0.0, 0.0, 0.0])
    """
    n_boot = check_number(n_boot, "n_boot", low=2, integer=True)
    level = check_number(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
    seed = check_number(seed, "seed", low=0, integer=True)
    t = _triples(battles)
    points = t.flat(t.counts)
    ratings = _strengths(points, t.models)
    boot, smoothed = _redraws(t, n_boot, seed)
    k = max(1, int(np.ceil(n_boot * float(1 - _exact_level(level)) / 2)))
    ordered = np.sort(boot, axis=0)
    low, high = ordered[k - 1], ordered[n_boot - k]
    pairs = _pairs(t.models, boot, ratings, level)
    above = _surely_better(pairs, "max-t")
    m = len(ratings)
    order = np.lexsort((np.arange(m), -ratings))
    return BattleRatings(
        models=list(t.models),
        ratings=ratings,
        low=low,
        high=high,
        upper_rank=1 + (low[None, :] > high[:, None]).sum(axis=1),
        lowest=1 + above.sum(axis=0),
        highest=m - above.sum(axis=1),
        above=above,
        order=order,
        tiers=_tiers(above, order, list(t.models)),
        level=level,
        n_boot=n_boot,
        n_battles=int(t.counts.sum()),
        n_smoothed=smoothed,
        comparisons=pairs,
    )


def _strengths(points: np.ndarray, models: list) -> np.ndarray:
    """The point ratings, or a ValueError naming the groups that never lose or never win against the rest."""
    m = len(models)
    n, labels = connected_components(coo_matrix(points > 0), directed=True, connection="strong")
    if n > 1:
        beaten = np.zeros((n, n), dtype=bool)  # beaten[c, d]: some model of group c beat one of group d
        rows, cols = np.nonzero(points > 0)
        beaten[labels[rows], labels[cols]] = True
        np.fill_diagonal(beaten, False)
        top = [c for c in range(n) if not beaten[:, c].any()]
        names = [models[k] for k in range(m) if labels[k] in top]
        raise ValueError(
            f"battles: the ratings do not exist: {numbered(len(names), 'model')} "
            f"{', '.join(map(str, names[:6]))}{' and more' if len(names) > 6 else ''} never lost a battle against "
            "the other models (a group that never loses, or never wins, against the rest has no finite rating; leave "
            "those models out of the log to rate the others)"
        )
    return np.asarray(bradley_terry(points).ratings)
