"""Cardinal sensitivity by the gradient relaxation of Zhang & Hardt (2024), with a coordinate search."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from .._validation import (
    check_choice,
    check_number,
    measure,
)
from ..ranking import (
    DEFAULT_TIE_TOLERANCE,
)
from ._cliques import ensure_compiled
from ._policy import exact_method
from ._problem import (
    POLISH_STEPS,
    CardinalSensitivity,
    _cardinal_setup,
    _CardinalProblem,
    _coordinate_polish,
    _counted_polish,
    _finish_cardinal,
    _import_torch,
    _one_torch_thread,
)
from ._weightbb import cardinal_cliques
from .cardinal_exact import _solve_exact

#: Starts of the coordinate search times tasks (a work budget): on thousands of tasks, fewer starts.
SEARCH_WORK = 40_000
#: ``method="auto"`` beyond that: nodes of the clique search (1: its root, the certified bound) and LP rounds there.
AUTO_CLIQUE_WORK = 1
AUTO_CLIQUE_ROUNDS = 12


@measure(allow_nan=False)
def cardinal_sensitivity(
    scores: Any,
    higher_is_better: Any = True,
    *,
    eps: float | None = None,
    method: str = "auto",
    work_limit: int | None = None,
    time_limit: float | None = None,
    normalize: str = "none",
    restarts: int = 32,
    steps: int = 150,
    lr: float = 0.05,
    lam: float = 0.0,
    polish: bool = True,
    polish_top: int = 8,
    polish_starts: int | None = None,
    seed: int = 0,
    tol: float = DEFAULT_TIE_TOLERANCE,
) -> CardinalSensitivity:
    r"""Cardinal sensitivity: the largest share of model pairs that label noise on the tasks can reverse.

    **Methods.**  ``method="exact"`` calls :func:`cardinal_sensitivity_exact`
    (a proven maximum, or a certified upper bound at the time limit).
    ``method="relaxation"`` runs the paper's hinge relaxation (Algorithm 1),
    batched, then an exact coordinate search, as described below (a lower
    bound, found fast).  ``method="auto"`` (default) is the policy of the
    book's trade-off chapter, with the thresholds of
    :func:`benchvote.sensitivity.exact_method`: when the table has at most
    ``AUTO_EXACT_MAX_TASKS`` distinct task columns the exact box search runs
    first (it is fastest there) and its result is returned when it is
    proven; otherwise, or when it stops unproven, the relaxation runs too and
    the better of the two is returned, with the exact search's certified
    bound attached.  On more distinct task columns the relaxation runs
    first, then the clique search of
    :func:`cardinal_sensitivity_exact` (``method="cliques"``) with a small
    budget: by default its root alone (``AUTO_CLIQUE_WORK`` node,
    ``AUTO_CLIQUE_ROUNDS`` LP rounds), which attaches a certified bound;
    a ``work_limit`` lets it branch further (nodes of weight space).
    ``method="search"`` is the coordinate search alone, without torch (see
    *Search* below): a lower bound that depends only on the input, the
    options and ``seed``.

    **Relaxation.**  For restart :math:`b`, weights
    :math:`a = \varepsilon + (1-\varepsilon)\,\sigma(\theta_b)` (inside the box for every
    :math:`\theta`; the paper's :math:`\sigma(\theta) + \varepsilon/(1-\varepsilon)` spans the same
    directions) give new scores
    :math:`s'_i = \sum_j a_j x_{ij} / \lVert a \rVert_1` and the loss (eq. 12)

    .. math::

        \ell = \sum_{i, j:\ r_i < r_j} c_{ij} \max(s'_i - s'_j, -\lambda),

    which pushes every originally better model :math:`i` below every worse
    model :math:`j`.  Half of the restarts use :math:`c_{ij} = 1`, half weight
    each pair by its rank distance :math:`r_j - r_i` (benchbench's two
    variants).  All restarts run together with Adam; at every step the exact
    number of reversed pairs of every restart is counted and the best weights
    of each restart are kept.

    Identical task columns (MTEB repeats each task type once per dataset) are
    merged first: k copies act as one weight ranging over :math:`[k\varepsilon, k]`.

    **Polish** (``polish=True``).  The count of reversed pairs is piecewise
    constant along each coordinate, so the best value of one weight with the
    others fixed can be found exactly by sorting the thresholds where a pair
    reverses.  Coordinate ascent with this exact line search starts from the
    best weights of the ``polish_top`` most successful restarts and from
    ``polish_starts`` random weights (log-uniform in the box), and typically
    lifts the relaxation's value substantially.

    **Search** (``method="search"``).  The coordinate search above, started
    from the published weighting, from every one-task corner (one weight at
    its top, the others at their bottom), and from ``polish_starts`` seeded
    random weightings (log-uniform in the box).  It needs neither torch nor
    a solver, and its result is a lower bound that the same input, options
    and seed reproduce exactly; its ``upper_bound`` is the share of pairs
    that some weighting reverses on their own (every reversed pair is one of
    them), loose but certified.

    Parameters
    ----------
    scores : array_like, DataFrame or Leaderboard, shape (m, n)
        Models x tasks, no missing values, no constant task.
    higher_is_better : bool or sequence of bool
        Direction of every task; a lower-is-better task is negated first.
    eps : float in (0, 1), optional
        Smallest weight relative to the largest; default :func:`default_eps`.
    method : {"auto", "exact", "relaxation", "search"}
        See *Methods* above.
    work_limit : int, optional
        Deterministic budget of the exact search (``"auto"`` and ``"exact"``;
        see :func:`cardinal_sensitivity_exact`); for ``"search"``, line
        searches times ordered pairs (none by default: every start runs, up to
        ``SEARCH_WORK`` starts times tasks), and ``stopped`` is
        ``"work_limit"`` when the budget ended the search.
    time_limit : float, optional
        Wall-clock safety cap of the exact search in seconds (none by default).
    normalize : {"none", "zscore"}
        Where the weight box applies (see :class:`CardinalSensitivity`).
    restarts, steps, lr, lam
        Relaxation settings (``lam`` is the paper's :math:`\lambda`, 0 for cardinal benchmarks).
    polish, polish_top, polish_starts
        Coordinate search after the relaxation; by default the number of
        random starts shrinks with the size of the problem (pairs x distinct
        tasks), from 48 on small leaderboards to 16 on the largest
        (each start costs one coordinate search, whatever the number of pairs).
    seed : int
        Seeds every random choice; equal seeds give equal results.
    tol : float
        Tie tolerance of the rankings before and after (see :class:`_CardinalProblem`:
        a pair is reversed only when it is strictly ordered the other way).

    Returns
    -------
    CardinalSensitivity
        The value is always recounted exactly from the returned weights;
        ``optimal`` is True only for a proven maximum (the relaxation alone
        gives a lower bound).

    See Also
    --------
    cardinal_sensitivity_exact
    default_eps

    References
    ----------
    :cite:t:`zhang2024tradeoffs`.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([[4.0, 0.0], [1.0, 2.0], [0.0, 2.5]])  # mean order A > B > C
    >>> r = cardinal_sensitivity(s, eps=0.1, method="relaxation", restarts=4, steps=100)
    >>> r.n_flipped, r.tau_distance, bool(r.weights[0] < 0.5 * r.weights[1])
    (3, 1.0, True)
    >>> cardinal_sensitivity(s, eps=0.1).optimal  # two tasks: the exact search proves it
    True
    """

    check_choice(method, "method", ("auto", "exact", "relaxation", "search"))
    # every option is checked before any solver runs, whichever method ends up used
    restarts = check_number(restarts, "restarts", low=1, integer=True)
    steps = check_number(steps, "steps", low=0, integer=True)
    polish_top = check_number(polish_top, "polish_top", low=0, integer=True)
    polish_starts = check_number(polish_starts, "polish_starts", low=0, integer=True, allow_none=True)
    lr = check_number(lr, "lr", low=0.0, low_open=True)
    lam = check_number(lam, "lam", low=0.0)
    time_limit = check_number(time_limit, "time_limit", low=0.0, low_open=True, allow_none=True)
    work_limit = check_number(work_limit, "work_limit", low=1, integer=True, allow_none=True)
    relaxation: dict[str, Any] = dict(
        restarts=restarts,
        steps=steps,
        lr=lr,
        lam=lam,
        polish=polish,
        polish_top=polish_top,
        polish_starts=polish_starts,
        seed=seed,
    )
    t0 = time.perf_counter()
    prob = _cardinal_setup(scores, higher_is_better, eps, normalize, tol)
    if method == "relaxation":
        return _relaxation(prob, t0=t0, **relaxation)
    if method == "search":
        return _search(prob, seed=seed, polish_starts=polish_starts, t0=t0, work_limit=work_limit)
    if method == "exact":
        return _solve_exact(prob, "auto", time_limit, None, seed, t0, work_limit=work_limit)
    exact = None
    if exact_method(prob.x.shape[1], len(prob.d)) == "boxes":
        exact = _solve_exact(prob, "auto", time_limit, None, seed, t0, work_limit=work_limit)
        if exact.optimal:
            return exact
    found = _relaxation(prob, t0=t0, **relaxation)
    if exact is None and len(prob.d):
        exact = _auto_cliques(prob, time_limit, work_limit, seed, t0)
    seconds = time.perf_counter() - t0
    if exact is None:
        return found  # timed from t0 already
    if exact.n_flipped >= found.n_flipped:
        return replace(exact, seconds=seconds)
    proven = exact.upper_bound is not None and found.tau_distance >= exact.upper_bound
    stopped = "" if proven else exact.stopped
    return replace(found, upper_bound=exact.upper_bound, optimal=proven, seconds=seconds, stopped=stopped)


def _auto_cliques(
    prob: _CardinalProblem, time_limit: float | None, work_limit: int | None, seed: int, t0: float
) -> CardinalSensitivity:
    """The clique search of ``method="auto"`` on many distinct tasks: :data:`AUTO_CLIQUE_WORK` nodes by default."""

    compiling = time.perf_counter()
    ensure_compiled()  # the one-off compilation is not charged to the time limit
    t0 += time.perf_counter() - compiling
    if work_limit is None:
        return cardinal_cliques(
            prob, work_limit=AUTO_CLIQUE_WORK, time_limit=time_limit, seed=seed, t0=t0, root_rounds=AUTO_CLIQUE_ROUNDS
        )
    return cardinal_cliques(prob, work_limit=work_limit, time_limit=time_limit, seed=seed, t0=t0)


def _search(
    prob: _CardinalProblem, *, seed: int, polish_starts: int | None, t0: float, work_limit: int | None = None
) -> CardinalSensitivity:
    """The torch-free coordinate search of ``method="search"`` (see *Search* in :func:`cardinal_sensitivity`).

    ``work_limit`` caps the line searches times the ordered pairs (each line search sorts the pairs' thresholds):
    the starts run in order, each with what the earlier ones left, and ``stopped`` says when it ran out.
    """
    lo, hi = prob.lo, prob.hi
    n = len(lo)
    if len(prob.d) == 0:  # every model ties with every other: nothing to reverse
        return _finish_cardinal(prob, hi.copy(), "search", upper=0, seconds=time.perf_counter() - t0)
    if polish_starts is None:
        polish_starts = int(np.clip(2e6 / max(1, len(prob.d) * n), 16, 48))
    rng = np.random.default_rng(seed)
    corners = np.tile(lo, (n, 1))
    corners[np.arange(n), np.arange(n)] = hi
    starts = [hi.copy(), *corners, *(np.exp(rng.uniform(np.log(lo), np.log(hi))) for _ in range(polish_starts))]
    allowed = max(2, SEARCH_WORK // n)  # a work budget in starts x tasks, so thousands of tasks stay bounded
    stopped = "work_limit" if len(starts) > allowed else ""
    starts = starts[:allowed]
    best, best_count = hi.copy(), prob.robust_count(hi)
    # every reversed pair is reversible on its own: the count of those is a (loose) certified bound
    alone = int(prob.reversible_alone().sum())
    used = 0
    steps_left = None if work_limit is None else max(1, work_limit // len(prob.d))
    for a0 in starts:
        if best_count >= alone:  # proven: no later start can do better
            stopped = ""
            break
        if steps_left is not None and steps_left <= 0:
            stopped = "work_limit"
            break
        used += 1
        if steps_left is None:
            a, _ = _coordinate_polish(prob.d, a0, lo, hi, rng)
        else:
            a, _, steps = _counted_polish(prob.d, a0, lo, hi, rng, max_steps=min(steps_left, POLISH_STEPS))
            steps_left -= steps
        count = prob.robust_count(a)
        if count > best_count:
            best, best_count = a, count
    if steps_left is not None and steps_left <= 0 and best_count < alone:
        stopped = "work_limit"
    seconds = time.perf_counter() - t0
    return _finish_cardinal(prob, best, "search", restarts=used, upper=alone, seconds=seconds, stopped=stopped)


@_one_torch_thread
def _relaxation(
    prob: _CardinalProblem,
    *,
    restarts: int,
    steps: int,
    lr: float,
    lam: float,
    polish: bool,
    polish_top: int,
    polish_starts: int | None,
    seed: int,
    t0: float,
) -> CardinalSensitivity:
    """The relaxation and coordinate search of :func:`cardinal_sensitivity` on a set-up problem.

    The options are validated by the caller; ``t0`` is when the timing started.
    """

    torch = _import_torch()

    x, before, lo_np, hi_np = prob.x, prob.before, prob.lo, prob.hi
    m, n = x.shape
    n_ordered = len(prob.d)
    if polish_starts is None:
        polish_starts = int(np.clip(2e6 / max(1, n_ordered * n), 16, 48))
    if n_ordered == 0:  # every model ties with every other: nothing to reverse
        return _finish_cardinal(prob, hi_np.copy(), "relaxation", seconds=time.perf_counter() - t0)
    xs = torch.tensor(x, dtype=torch.float64)
    lo, span = torch.tensor(lo_np), torch.tensor(hi_np - lo_np)
    i_np, j_np = prob.upper_i, prob.lower_j  # strictly ordered pairs: i above j
    i_idx, j_idx = torch.tensor(i_np), torch.tensor(j_np)
    d_t = torch.tensor(prob.d.T.copy(), dtype=torch.float64)  # (columns, pairs): reversed where a @ d_t < 0
    slack_t = torch.tensor(prob.slack, dtype=torch.float64)
    gen = torch.Generator().manual_seed(int(seed))
    theta = torch.randn(restarts, n, generator=gen, dtype=torch.float64) * 2.0
    theta[0] = 0.0  # one restart starts from the middle of the box
    weighted = torch.zeros(restarts, dtype=torch.bool)
    weighted[restarts // 2 :] = True
    rank_gap = torch.tensor(before[j_np] - before[i_np], dtype=torch.float64)
    pair_weight = torch.where(weighted[:, None], rank_gap[None, :], torch.ones_like(rank_gap)[None, :])
    opt = torch.optim.Adam([theta], lr=lr)
    best_counts = torch.full((restarts,), -1, dtype=torch.long)
    best_a = torch.ones(restarts, n, dtype=torch.float64)
    with torch.no_grad():
        for step in range(steps + 1):
            sig = torch.sigmoid(theta)
            a = lo + span * sig  # every theta gives weights inside the box
            total = a.sum(dim=1, keepdim=True)
            s = (a @ xs.T) / total  # (R, m)
            diff = s[:, i_idx] - s[:, j_idx]  # (R, pairs): s_i - s_j, i originally above j
            counts = (a @ d_t < -slack_t).sum(dim=1)  # j now above i by more than tol (the shared notion)
            better = counts > best_counts
            best_counts[better] = counts[better]
            best_a[better] = a[better]
            if step == steps:
                break
            # analytic gradient of the hinge loss: d loss / d s_k, then the chain rule to theta
            w = pair_weight * (diff > -lam)
            g = torch.zeros(restarts, m, dtype=torch.float64)
            g.index_add_(1, i_idx, w)
            g.index_add_(1, j_idx, -w)
            grad_a = (g @ xs - (g * s).sum(dim=1, keepdim=True)) / total
            theta.grad = grad_a * span * sig * (1.0 - sig)
            opt.step()
    ranked = torch.argsort(best_counts, descending=True, stable=True).numpy()
    starts = [best_a.numpy()[k] for k in ranked[:polish_top]]
    method = "relaxation"
    total_restarts = restarts
    if polish:
        rng = np.random.default_rng(seed)
        starts += [np.exp(rng.uniform(np.log(lo_np), np.log(hi_np))) for _ in range(polish_starts)]
        results = [_coordinate_polish(prob.d, np.clip(a0, lo_np, hi_np), lo_np, hi_np, rng) for a0 in starts]
        best = max((r[0] for r in results), key=prob.robust_count)
        method = "relaxation+polish"
        total_restarts = restarts + polish_starts
    else:
        best = best_a.numpy()[int(torch.argmax(best_counts))]
    return _finish_cardinal(prob, best, method, restarts=total_restarts, seconds=time.perf_counter() - t0)
