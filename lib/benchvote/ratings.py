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
import functools
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from threadpoolctl import ThreadpoolController

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
    every model reaches it: two breadth-first searches
    (:func:`benchvote._bt_kernels.reaches_all`), each reading every row at
    most once per level, O(m^2) on a dense match table, on the counts as they
    are (a boolean copy and its transpose took 0.8 GB and 5 s on 20,000
    models).  The diagonal is ignored.
    """
    from ._bt_kernels import reaches_all

    w = np.asarray(wins)
    w = w.view(np.uint8) if w.dtype == bool else w
    return bool(reaches_all(w, False)) and bool(reaches_all(w, True))


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
    leaderboards of thousands of models.  Up to 250 models the system is
    solved by Cholesky; above, without an m x m float matrix, by conjugate
    gradients on Hessian-vector products (O(m^2) each), the same maximum to
    about 1e-10.  The maximum exists and is
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
        Stop when no log-strength moves by more than this in one step (above
        250 models: when the next step would move none by more than this).

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


#: Above this many models the Newton steps run without an m x m float matrix: strengths, row kernels in threads and
#: conjugate gradients on Hessian-vector products (:func:`_newton_large`); up to it, Cholesky on the dense Laplacian.
#: The crossover of one-factor 6-task tables with one BLAS thread: 150 models 6 ms against 9, 250 models 16 ms
#: against 15, 1,000 models 0.37 s against 0.05 (and Cholesky's two BLAS threads on a loaded machine were ten times
#: slower again).
_DIRECT_MAX = 250

#: Largest absolute log-strength the large path evaluates: ``exp`` of it keeps every ``p_i + p_j`` finite and
#: positive (a trial step beyond it counts as a drop of the likelihood and is halved).
_LARGEST_LOG_STRENGTH = 700.0

#: Largest spread of the log-strengths at which the Hessian products compute their pair weights in float32 (a third
#: less CPU on 20,000 models): the weights are then at least e^-60 / 4, far inside float32's normal range (down to
#: e^-87).  The conjugate gradients only steer the step; the likelihood and its gradient stay float64.
_SINGLE_SPREAD = 60.0


def _solve_laplacian(laplacian: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """The zero-sum solution of ``laplacian @ step = grad`` (grad sums to zero, the graph is connected).

    BLAS runs on one thread here: the systems have at most :data:`_DIRECT_MAX`
    unknowns, where a second thread gains nothing on an idle machine and, on a
    loaded one, made a 150-model factorisation take 1.8 s instead of 6 ms (the
    two threads wait for each other); a battle log's bootstrap solves
    thousands of them.  One thread also keeps the floats independent of the
    number of cores.
    """
    from scipy.linalg import cho_factor, cho_solve

    with _one_blas_thread():  # after scipy.linalg is loaded, so that its BLAS is among the pools found
        return cho_solve(cho_factor(laplacian + 1.0 / len(grad)), grad)


@functools.cache
def _blas() -> ThreadpoolController:
    """The thread pools of the BLAS libraries loaded (numpy's and scipy's), found once."""
    return ThreadpoolController()


def _one_blas_thread() -> Any:
    """A context in which BLAS runs on one thread (about 16 microseconds to enter and leave)."""
    return _blas().limit(limits=1, user_api="blas")


def _newton(w: np.ndarray, scale: float, max_iter: int, convergence_tol: float) -> tuple[np.ndarray, float, int, bool]:
    """Newton's method on the concave log-likelihood, halving a step that would lower it.

    The Hessian is minus the Laplacian of the weights :math:`n_{ij}\\sigma_{ij}(1-\\sigma_{ij})`;
    adding the all-ones matrix / m fixes the common shift (the step then sums
    to zero), and the system is solved by Cholesky with about ten steps, where
    minorisation-maximisation needed thousands of O(m^2) steps on large
    tables.  Above :data:`_DIRECT_MAX` models, :func:`_newton_large`.
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


#: Blocks of rows of the pair loops above :data:`_DIRECT_MAX` models, run in threads (the kernels release the GIL).
#: Each row's sums depend on that row alone, so the floats do not depend on the number of cores or on the blocks.
_BLOCKS = 16


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a @ b`` by numpy's pairwise sum: BLAS's dot splits long vectors over its threads, and rounds differently
    on each thread count."""
    return float(np.sum(a * b))


class _PairBlocks:
    """The row kernels of :func:`_newton_large` in :data:`_BLOCKS` blocks of rows, on as many threads as there are
    cores (both cores of a 2-core machine halve the wall time of a pass over the 2e8 pairs of 20,000 models).

    ``rows``: blocks with about equal numbers of pairs i < j (the likelihood's
    logarithms, each pair once); ``even``: blocks of equal numbers of rows
    (the kernels over whole rows).
    """

    def __init__(self, m: int, pool: ThreadPoolExecutor | None) -> None:
        pairs = np.cumsum(np.arange(m - 1, -1, -1))  # pairs in rows 0 .. i
        cuts = np.searchsorted(pairs, pairs[-1] * np.arange(1, _BLOCKS) / _BLOCKS)
        edges = np.unique(np.concatenate(([0], cuts, [m])))
        self.rows = [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]
        even = np.unique(np.linspace(0, m, _BLOCKS + 1).astype(int))
        self.even = [(int(a), int(b)) for a, b in zip(even[:-1], even[1:])]
        self.m, self.pool = m, pool

    def each(self, kernel: Any, args: Callable[[tuple[int, int]], tuple], blocks: list[tuple[int, int]]) -> None:
        """``kernel(*args(rows))`` for every block of rows, in threads when there is a pool."""
        if self.pool is None:
            for rows in blocks:
                kernel(*args(rows))
            return
        for f in [self.pool.submit(kernel, *args(rows)) for rows in blocks]:
            f.result()

    def gradient(
        self, counts: np.ndarray, won: np.ndarray, scale: float, beta: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The log-likelihood's gradient and the Laplacian's diagonal at ``beta`` for the comparisons
        ``scale * counts`` and the wins ``won``; ``None`` beyond :data:`_LARGEST_LOG_STRENGTH`."""
        from ._bt_kernels import bt_rows

        if np.max(np.abs(beta)) > _LARGEST_LOG_STRENGTH:
            return None
        strengths = np.exp(beta)
        expected, diagonal = np.zeros((2, self.m))
        self.each(bt_rows, lambda rows: (counts, strengths, rows, expected, diagonal), self.even)
        return won - scale * expected, scale * diagonal

    def log_likelihood(self, counts: np.ndarray, won: np.ndarray, scale: float, beta: np.ndarray) -> float:
        """The log-likelihood at ``beta``: ``sum_i W_i beta_i - sum_{i < j} n_ij log(p_i + p_j)``."""
        from ._bt_kernels import bt_log_rows

        strengths, log_terms = np.exp(beta), np.zeros(self.m)
        self.each(bt_log_rows, lambda rows: (counts, strengths, rows, log_terms), self.rows)
        return float(np.sum(won * beta)) - scale * float(np.sum(log_terms))

    def hessian_times(self, counts: np.ndarray, scale: float, beta: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The Laplacian (minus the Hessian) at ``beta`` times ``v``, its pair weights in float32 when the
        log-strengths span at most :data:`_SINGLE_SPREAD`."""
        from ._bt_kernels import bt_hessian_rows

        out = np.empty(self.m)
        if np.ptp(beta) <= _SINGLE_SPREAD:  # strengths within e^+-30 of their middle: the weights are normal floats
            strengths = np.exp(beta - (beta.max() + beta.min()) / 2).astype(np.float32)
        else:
            strengths = np.exp(beta)
        one = strengths.dtype.type(1.0)
        self.each(bt_hessian_rows, lambda rows: (counts, strengths, one, v, rows, out), self.even)
        return scale * out


def _conjugate_gradients(
    times: Callable[[np.ndarray], np.ndarray], b: np.ndarray, inverse_diagonal: np.ndarray, rtol: float, maxiter: int
) -> np.ndarray:
    """Jacobi-preconditioned conjugate gradients from zero for ``times(x) = b``, until the residual is ``rtol`` of
    ``b`` or after ``maxiter`` products.

    scipy's ``cg`` is the same iteration, but its dot products go to BLAS, whose threads would make the ratings
    depend on the number of cores in their last bits; here every dot product is :func:`_dot`.
    """
    x = np.zeros_like(b)
    r = b.copy()
    z = inverse_diagonal * r
    d = z.copy()
    rz = _dot(r, z)
    stop = rtol * np.sqrt(_dot(b, b))
    for _ in range(maxiter):
        if np.sqrt(_dot(r, r)) <= stop:
            break
        q = times(d)
        alpha = rz / _dot(d, q)
        x += alpha * d
        r -= alpha * q
        z = inverse_diagonal * r
        rz, previous = _dot(r, z), rz
        d = z + (rz / previous) * d
    return x


def _newton_large(w: np.ndarray, scale: float, max_iter: int, convergence_tol: float) -> tuple:
    """:func:`_newton` above :data:`_DIRECT_MAX` models, without an m x m float matrix.

    The counts enter as the symmetric comparisons ``w + w.T`` in their own
    (small) type and the row sums of the wins; every pass reads strengths
    :math:`e^{\\beta}` (:mod:`benchvote._bt_kernels`), and the Newton system is
    solved by conjugate gradients on Hessian-vector products that recompute
    the pair weights.  The rows run in blocks on every core (:class:`_PairBlocks`).
    """
    from ._bt_kernels import symmetric_counts

    won = scale * w.sum(axis=1, dtype=float)
    lost = scale * w.sum(axis=0, dtype=float)
    beta = np.log((won + 0.5) / (lost + 0.5))  # a start: each model's log-odds of winning (the maximum does not move)
    beta = np.clip(beta - beta.mean(), -_LARGEST_LOG_STRENGTH / 2, _LARGEST_LOG_STRENGTH / 2)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=cores) if cores > 1 else contextlib.nullcontext() as pool:
        blocks = _PairBlocks(len(w), pool)
        counts = np.empty_like(w)
        blocks.each(symmetric_counts, lambda rows: (w, counts, rows), blocks.rows)
        return _newton_steps(counts, won, scale, beta, max_iter, convergence_tol, blocks)


def _newton_steps(
    counts: np.ndarray, won: np.ndarray, scale: float, beta: np.ndarray, max_iter: int, tol: float, blocks: _PairBlocks
) -> tuple:
    """The steps of :func:`_newton_large` from ``beta``: inexact Newton with the halving line search of :func:`_newton`.

    A pass for the gradient costs about as much as one Hessian-vector
    product and the likelihood's logarithms five more, so: the solves are
    tighter than the usual inexact-Newton rule (fewer passes); a step is
    taken without its likelihood when the gradient at its end still climbs
    along it (the likelihood is concave along the step, so it did not drop),
    the logarithms being computed only to compare two points and once for the
    result; and the fit stops as soon as the solved step would move no
    log-strength by ``tol``, returning the point it was solved at (no pass for
    a step too small to matter).
    """
    m = len(won)
    start = blocks.gradient(counts, won, scale, beta)
    assert start is not None, "the start is clipped to half the range the passes evaluate"
    grad, diagonal = start
    loglik = None  # the likelihood at beta, computed when needed
    first = np.sqrt(_dot(grad, grad))
    for it in range(1, max_iter + 1):
        rtol = max(1e-6, min(1e-2, np.sqrt(_dot(grad, grad)) / first))

        def times(v: np.ndarray, at: np.ndarray = beta) -> np.ndarray:
            return blocks.hessian_times(counts, scale, at, v) + v.mean()  # the shift fixes the common level

        step = _conjugate_gradients(times, grad, 1.0 / diagonal, rtol, 10 * m)
        step -= step.mean()
        if np.max(np.abs(step)) < tol:
            return _finish(beta, loglik, it, True, counts, won, scale, blocks)
        for _ in range(60):  # the full step, or a fraction of it that does not lower the likelihood
            trial, trial_loglik = blocks.gradient(counts, won, scale, beta + step), None
            if trial is not None and _dot(step, trial[0]) >= 0:
                break  # the slope along the step is still >= 0 at its end: by concavity the likelihood rose
            if trial is not None:
                loglik = blocks.log_likelihood(counts, won, scale, beta) if loglik is None else loglik
                trial_loglik = blocks.log_likelihood(counts, won, scale, beta + step)
                if trial_loglik >= loglik - 1e-12 * abs(loglik):
                    break
            step = step / 2
        else:
            return _finish(beta, loglik, it, False, counts, won, scale, blocks)  # no fraction of the step is better
        beta, loglik, (grad, diagonal) = beta + step, trial_loglik, trial
    return _finish(beta, loglik, max_iter, False, counts, won, scale, blocks)


def _finish(beta: np.ndarray, loglik: float | None, it: int, converged: bool, *pass_args: Any) -> tuple:
    """:func:`_newton`'s result: the centred log-strengths, the log-likelihood (computed if unknown), the steps."""
    counts, won, scale, blocks = pass_args
    loglik = blocks.log_likelihood(counts, won, scale, beta) if loglik is None else loglik
    return beta - beta.mean(), loglik, it, converged


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
