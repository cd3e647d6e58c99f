r"""Ratings from pairwise comparisons: Bradley-Terry and Elo.

Chatbot Arena turns many head-to-head votes into one rating per model; the
same machinery turns a multi-task benchmark into ratings if every task-level
comparison of two models counts as a match.  Under the Bradley-Terry model

.. math::

    \Pr(i \text{ beats } j) = \frac{e^{\beta_i}}{e^{\beta_i} + e^{\beta_j}} = \sigma(\beta_i - \beta_j),

and Elo's online update is a stochastic-gradient step on its log-likelihood.
The ratings are identifiable only up to a common shift; here they are
centred to mean zero (Bradley-Terry) or around the initial rating (Elo).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._validation import check_number, measure, numbered
from .aggregation import pairwise_wins
from .ranking import DEFAULT_TIE_TOLERANCE, _rank

__all__ = ["BradleyTerry", "bradley_terry", "comparison_matrix", "elo", "matches_from_scores"]


#: Why Bradley-Terry ratings cannot be fitted on a comparison graph that is not strongly connected.
NOT_CONNECTED = (
    "the comparison graph is not strongly connected (some model never loses or never wins "
    "against a group): the maximum-likelihood ratings do not exist"
)


def _strongly_connected(wins: Any) -> bool:
    """Whether the graph with an edge i -> j when i beat j at least once is strongly connected.

    It is when the first model reaches every model along the edges and
    every model reaches it (breadth-first searches forwards and backwards):
    each model's row is read once, O(m^2) on a dense match table, where
    repeated squaring of the reachability matrix cost O(m^3 log m).  The
    diagonal is ignored.
    """
    beats = np.asarray(wins) > 0
    np.fill_diagonal(beats, False)
    return _reaches_all(beats) and _reaches_all(np.ascontiguousarray(beats.T))


def _reaches_all(edges: np.ndarray) -> bool:
    """Whether a breadth-first search from the first node along ``edges[u, v]`` (u -> v) reaches every node."""
    seen = np.zeros(len(edges), dtype=bool)
    seen[0] = True
    frontier = np.zeros(1, dtype=np.int64)
    while len(frontier):
        new = edges[frontier].any(axis=0) & ~seen
        seen |= new
        frontier = np.flatnonzero(new)
    return bool(seen.all())


@measure(allow_nan=True, allow_empty_rows=True)
def comparison_matrix(
    scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE
) -> np.ndarray | pd.DataFrame:
    """Task-level wins as a match table: entry (i, j) counts the tasks i wins against j, a tie counting 1/2.

    Examples
    --------
    >>> comparison_matrix([[2.0, 1.0], [1.0, 1.0]])
    array([[0. , 1.5],
           [0.5, 0. ]])
    """

    counts = pairwise_wins(scores, higher_is_better, tol=tol)
    w = counts.wins + 0.5 * counts.ties
    if scores.labelled:
        index = pd.Index(counts.models)
        return pd.DataFrame(w, index=index, columns=index)
    return w.astype(float)


@dataclass(frozen=True)
class BradleyTerry:
    """Result of :func:`bradley_terry`.

    Attributes
    ----------
    ratings : ndarray or Series
        Log-strengths :math:`\\beta_i`, centred to mean 0.
    iterations : int
    converged : bool
    log_likelihood : float
    """

    ratings: Any
    iterations: int
    converged: bool
    log_likelihood: float


def bradley_terry(wins: Any, *, max_iter: int = 10_000, convergence_tol: float = 1e-10) -> BradleyTerry:
    r"""Maximum-likelihood Bradley-Terry ratings by Newton's method.

    With :math:`w_{ij}` the number of times i beat j and :math:`n_{ij} = w_{ij} + w_{ji}`,
    the log-likelihood :math:`\sum_{ij} w_{ij} \log \sigma(\beta_i - \beta_j)` is
    concave; each Newton step solves the m x m system of its Hessian (a
    weighted graph Laplacian) and is halved until the likelihood does not
    drop, so it converges in a few steps where Hunter's
    minorisation-maximisation iteration (the same maximum) needed thousands on
    leaderboards of thousands of models.  The maximum exists and is
    unique (up to the common shift) exactly when the graph with an edge
    :math:`i \to j` whenever i beat j at least once is strongly connected;
    otherwise some rating would diverge, and this function refuses.

    Parameters
    ----------
    wins : array_like or DataFrame, shape (m, m)
        Non-negative win counts (ties may be entered as half wins to both sides).
    max_iter : int
        Largest number of Newton steps.
    convergence_tol : float
        Stop when no log-strength moves by more than this in one step.

    Raises
    ------
    ValueError
        For a non-square or negative matrix, a model without comparisons, or
        a comparison graph that is not strongly connected.

    Examples
    --------
    >>> r = bradley_terry([[0, 2], [1, 0]])
    >>> round(float(r.ratings[0] - r.ratings[1]), 6)  # log(2 / 1)
    0.693147
    """
    labelled = isinstance(wins, pd.DataFrame)
    w = np.asarray(wins, dtype=float)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"wins must be a square matrix, got shape {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("wins must be finite and non-negative")
    m = len(w)
    if m < 2:
        raise ValueError("need at least 2 models")
    w = w.copy()
    np.fill_diagonal(w, 0.0)
    return _fit(w, 1.0, list(wins.index) if labelled else None, max_iter, convergence_tol)


def _fit(
    w: np.ndarray, scale: float, models: list | None, max_iter: int, convergence_tol: float, connected: bool = False
) -> BradleyTerry:
    """Kernel of :func:`bradley_terry` on the counts ``scale * w`` (zero diagonal), checked for comparisons, connection.

    ``w`` may be a small integer type: the doubled counts of
    :func:`_doubled_wins` with ``scale`` 1/2 (no m x m float64 copy of them).
    ``connected``: the caller has already found the graph strongly connected
    (so every model has comparisons): neither check is repeated.
    """
    if not connected:
        lonely = np.flatnonzero((w.sum(axis=1, dtype=float) + w.sum(axis=0, dtype=float)) == 0)
        if len(lonely):
            names = [models[i] for i in lonely] if models is not None else list(lonely)
            raise ValueError(
                f"{numbered(len(names), 'model')} {names[:5]} {numbered(len(names), 'has', 'have')} no comparisons"
            )
        if not _strongly_connected(w):
            raise ValueError(NOT_CONNECTED)
    beta, loglik, it, converged = _newton(w, scale, max_iter, convergence_tol)
    ratings = pd.Series(beta, index=pd.Index(models), name="bradley_terry") if models is not None else beta
    return BradleyTerry(ratings=ratings, iterations=it, converged=converged, log_likelihood=loglik)


def _doubled_wins(mat: Any, tol: float) -> tuple[np.ndarray, list | None]:
    """Twice :func:`comparison_matrix` in the smallest integer type (a compiled pass), and the model labels."""
    from ._kernels import fill_doubled_wins

    r = _rank(mat.values, mat.direction, tol)
    n = 2 * r.shape[1]
    out = np.empty((r.shape[0],) * 2, dtype=np.int8 if n <= 127 else np.int16 if n <= 32767 else np.int32)
    fill_doubled_wins(np.ascontiguousarray(r), out)
    return out, list(mat.models) if mat.labelled else None


@measure(allow_nan=True)
def table_ratings(scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE) -> Any:
    """``bradley_terry(comparison_matrix(scores, higher_is_better, tol=tol)).ratings`` from compact counts.

    The task-level wins are counted in a small integer type (doubled, so that
    a tie's half is whole); the fit is the same.  ``ValueError`` as in
    :func:`bradley_terry` when the ratings do not exist.
    """
    doubled, models = _doubled_wins(scores, tol)
    if len(doubled) < 2:
        raise ValueError("need at least 2 models")
    if not _strongly_connected(doubled):  # checked first, as the rule always has: a lonely model is not connected
        raise ValueError(NOT_CONNECTED)
    return _fit(doubled, 0.5, models, 10_000, 1e-10, connected=True).ratings


#: Above this many models a Newton step is solved by conjugate gradients (O(m^2) a product) instead of Cholesky.
_DIRECT_MAX = 1500


def _solve_laplacian(laplacian: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """The zero-sum solution of ``laplacian @ step = grad`` (grad sums to zero, the graph is connected)."""
    m = len(grad)
    if m <= _DIRECT_MAX:
        from scipy.linalg import cho_factor, cho_solve

        return cho_solve(cho_factor(laplacian + 1.0 / m), grad)
    from scipy.sparse.linalg import LinearOperator, cg

    inverse_diagonal = 1.0 / np.diag(laplacian)
    shifted = LinearOperator((m, m), matvec=lambda v: laplacian @ v + v.mean(), dtype=float)
    jacobi = LinearOperator((m, m), matvec=lambda v: inverse_diagonal * v, dtype=float)
    step, _ = cg(shifted, grad, rtol=1e-12, atol=0.0, maxiter=10 * m, M=jacobi)
    return step


def _newton(w: np.ndarray, scale: float, max_iter: int, convergence_tol: float) -> tuple[np.ndarray, float, int, bool]:
    """Newton's method on the concave log-likelihood, halving a step that would lower it.

    The Hessian is minus the Laplacian of the weights :math:`n_{ij}\\sigma_{ij}(1-\\sigma_{ij})`;
    adding the all-ones matrix / m fixes the common shift (the step then sums
    to zero), and the system is solved by Cholesky (conjugate gradients on large tables) with
    about ten steps, where minorisation-maximisation needed thousands of
    O(m^2) steps on large tables.
    """
    from ._kernels import bt_newton_system

    if len(w) > _DIRECT_MAX:
        return _newton_large(w, scale, max_iter, convergence_tol)
    w = w * scale if scale != 1.0 else w
    beta = np.zeros(len(w))
    losses = np.ascontiguousarray(w.T)
    loglik, grad, laplacian = bt_newton_system(w, losses, beta)  # one compiled pass over the pairs gives all three
    for it in range(1, max_iter + 1):
        step = _solve_laplacian(laplacian, grad)
        step -= step.mean()
        for _ in range(60):  # the full step, or a fraction of it that does not lower the likelihood
            trial, trial_grad, trial_laplacian = bt_newton_system(w, losses, beta + step)
            if trial >= loglik - 1e-12 * abs(loglik):
                break
            step = step / 2
        beta, loglik, grad, laplacian = beta + step, trial, trial_grad, trial_laplacian
        if np.max(np.abs(step)) < convergence_tol:
            return beta - beta.mean(), loglik, it, True
    return beta - beta.mean(), loglik, max_iter, False


#: Blocks of rows of the pair loops above :data:`_DIRECT_MAX` models (equal numbers of pairs): each block sums into
#: arrays of its own, run in threads (the kernels release the GIL), and the blocks are added in this fixed order, so
#: the floats do not depend on the number of cores.
_BLOCKS = 16


class _PairBlocks:
    """The pair loops of :func:`_newton_large` in :data:`_BLOCKS` blocks of rows, on as many threads as there are cores.

    Both cores of a 2-core machine halve the wall time of a step (20,000 models: about 5e8 pair terms a step); the
    result is the same on one core or many.
    """

    def __init__(self, m: int, pool: ThreadPoolExecutor | None) -> None:
        pairs = np.cumsum(np.arange(m - 1, -1, -1))  # pairs in rows 0 .. i
        cuts = np.searchsorted(pairs, pairs[-1] * np.arange(1, _BLOCKS) / _BLOCKS)
        edges = np.unique(np.concatenate(([0], cuts, [m])))
        self.rows = [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]
        self.m, self.pool = m, pool

    def _each(self, kernel: Any, args: Callable[[int, tuple[int, int]], tuple]) -> list:
        """``kernel(*args(k, rows))`` for every block ``k`` of rows, in threads when there is a pool."""
        if self.pool is None:
            return [kernel(*args(k, rows)) for k, rows in enumerate(self.rows)]
        return [f.result() for f in [self.pool.submit(kernel, *args(k, rows)) for k, rows in enumerate(self.rows)]]

    def gradient(self, w, losses, scale, beta, weights) -> tuple[float, np.ndarray, np.ndarray]:
        from ._kernels import bt_gradient

        grad, diagonal = np.zeros((2, len(self.rows), self.m))
        parts = self._each(bt_gradient, lambda k, rows: (w, losses, scale, beta, weights, rows, grad[k], diagonal[k]))
        return float(sum(parts)), grad.sum(axis=0), diagonal.sum(axis=0)

    def laplacian_times(self, weights: np.ndarray, v: np.ndarray) -> np.ndarray:
        from ._kernels import laplacian_times

        out = np.zeros((len(self.rows), self.m))
        self._each(laplacian_times, lambda k, rows: (weights, v, rows, out[k]))
        return out.sum(axis=0)


def _newton_large(w: np.ndarray, scale: float, max_iter: int, convergence_tol: float) -> tuple:
    """:func:`_newton` above :data:`_DIRECT_MAX` models, without an m x m float64 matrix.

    The counts stay in their own (small) type; the Hessian is kept as its
    pair weights in float32 (the upper triangle, 0.8 GB on 20,000 models
    where the float64 Laplacian took 3.2 GB) and multiplied by a compiled
    loop inside conjugate gradients.  The gradient and the likelihood stay in
    float64, so a step solved with the rounded weights, and solved loosely
    while the gradient is large (inexact Newton), still heads for the same
    maximum: the stopping rule is the same, and so is the halving line search.
    The pair loops run in blocks of rows on every core (:class:`_PairBlocks`).
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=cores) if cores > 1 else contextlib.nullcontext() as pool:
        return _newton_blocks(w, scale, max_iter, convergence_tol, _PairBlocks(len(w), pool))


def _newton_blocks(w: np.ndarray, scale: float, max_iter: int, convergence_tol: float, blocks: _PairBlocks) -> tuple:
    """The steps of :func:`_newton_large`, the pair loops done by ``blocks``."""
    from scipy.sparse.linalg import LinearOperator, cg

    m = len(w)
    losses = np.ascontiguousarray(w.T)
    weights = np.zeros((m, m), dtype=np.float32)
    won = w.sum(axis=1, dtype=float)
    lost = w.sum(axis=0, dtype=float)
    beta = np.log(
        (won + 0.5) / (lost + 0.5)
    )  # a start: each model's log-odds of winning (the result does not depend on it)
    beta -= beta.mean()
    loglik, grad, diagonal = blocks.gradient(w, losses, scale, beta, weights)
    first = np.linalg.norm(grad)
    for it in range(1, max_iter + 1):
        shifted = LinearOperator((m, m), matvec=lambda v: blocks.laplacian_times(weights, v) + v.mean(), dtype=float)
        jacobi = LinearOperator((m, m), matvec=lambda v, d=1.0 / diagonal: d * v, dtype=float)
        # inexact Newton: a loose solve far from the maximum, a tighter one as the gradient vanishes
        rtol = max(1e-12, min(0.1, np.sqrt(np.linalg.norm(grad) / first)))
        step, _ = cg(shifted, grad, rtol=rtol, atol=0.0, maxiter=10 * m, M=jacobi)
        step -= step.mean()
        for _ in range(60):  # the full step, or a fraction of it that does not lower the likelihood
            trial, trial_grad, trial_diagonal = blocks.gradient(w, losses, scale, beta + step, weights)
            if trial >= loglik - 1e-12 * abs(loglik):
                break
            step = step / 2
        beta, loglik, grad, diagonal = beta + step, trial, trial_grad, trial_diagonal
        if np.max(np.abs(step)) < convergence_tol:
            return beta - beta.mean(), loglik, it, True
    return beta - beta.mean(), loglik, max_iter, False


@measure(allow_nan=True)
def matches_from_scores(
    scores: Any, higher_is_better: Any = True, *, tol: float = DEFAULT_TIE_TOLERANCE, seed: int = 0
) -> list[tuple[int, int, float]]:
    """Every task-level comparison as a match ``(i, j, score_of_i)`` (1 win, 0.5 tie, 0 loss), in a seeded random order.

    Parameters
    ----------
    seed : int
        Seed of the random order of the matches.

    Examples
    --------
    >>> matches_from_scores([[2.0], [1.0]], seed=0)
    [(0, 1, 1.0)]
    """
    r = _rank(scores.values, scores.direction, tol)
    out = []
    for k in range(r.shape[1]):
        seen = np.flatnonzero(~np.isnan(r[:, k]))
        for a_pos, i in enumerate(seen):
            for j in seen[a_pos + 1 :]:
                s = 1.0 if r[i, k] < r[j, k] else (0.0 if r[i, k] > r[j, k] else 0.5)
                out.append((int(i), int(j), s))
    order = np.random.default_rng(seed).permutation(len(out))
    return [out[t] for t in order]


def elo(
    matches: Sequence[tuple[int, int, float]],
    n_models: int,
    *,
    k: float = 4.0,
    initial: float = 1500.0,
    scale: float = 400.0,
) -> np.ndarray:
    r"""Online Elo ratings from a sequence of matches.

    After a match in which model i scores :math:`S \in \{0, \tfrac12, 1\}` against j,

    .. math::

        R_i \leftarrow R_i + K (S - E), \quad R_j \leftarrow R_j - K (S - E), \qquad
        E = \frac{1}{1 + 10^{(R_j - R_i)/\text{scale}}}.

    The result depends on the order of the matches (unlike Bradley-Terry);
    :func:`matches_from_scores` fixes it with a seed.

    Parameters
    ----------
    matches : sequence of (i, j, score_of_i)
        Matches in the order they are played; the score is 1, 0.5 or 0.
    n_models : int
        Number of models (indices 0 to n_models - 1).
    k : float
        Step size :math:`K`.
    initial : float
        Starting rating of every model.
    scale : float
        Rating difference at which the expected score is 10 : 1.

    Examples
    --------
    >>> elo([(0, 1, 1.0)], 2, k=32).tolist()
    [1516.0, 1484.0]
    """

    n_models = check_number(n_models, "n_models", low=2, integer=True)
    k = check_number(k, "k", low=0.0, low_open=True)
    scale = check_number(scale, "scale", low=0.0, low_open=True)
    initial = check_number(initial, "initial")
    if matches is None or isinstance(matches, (str, bytes)):
        raise TypeError("matches must be a sequence of (i, j, result) triples")
    checked = []
    for t, match in enumerate(matches):
        try:
            i, j, s = match
        except (TypeError, ValueError):
            raise ValueError(f"matches[{t}] must be a triple (i, j, result), got {match!r}") from None
        i = check_number(i, f"matches[{t}] model index i", low=0, high=n_models - 1, integer=True)
        j = check_number(j, f"matches[{t}] model index j", low=0, high=n_models - 1, integer=True)
        if i == j:
            raise ValueError(f"matches[{t}]: a model cannot play itself ({i}, {j})")
        s = check_number(s, f"matches[{t}] result")
        if s not in (0.0, 0.5, 1.0):
            raise ValueError(f"matches[{t}]: a match result must be 0, 0.5 or 1, got {s}")
        checked.append((i, j, s))
    ratings = np.full(n_models, float(initial))
    for i, j, s in checked:
        expected = 1.0 / (1.0 + 10 ** ((ratings[j] - ratings[i]) / scale))
        ratings[i] += k * (s - expected)
        ratings[j] -= k * (s - expected)
    return ratings
