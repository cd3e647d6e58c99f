"""Ordinal sensitivity: the relaxation of Zhang & Hardt (2024), a mixed-integer program and enumeration."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_matrix

from .._quiet import quiet_solver_output
from .._validation import (
    as_label_list,
    check_choice,
    check_number,
    measure,
)
from ..aggregation import mean_win_rate
from ..axioms import field_margins
from ..ranking import (
    exact_midranks,
    max_rank_change,
    reversed_pairs,
)
from ._problem import _import_torch, _one_torch_thread, _stop_reason


@measure(allow_nan=True)
def default_protected(scores: Any, higher_is_better: Any = True, *, share: float = 0.2) -> list:
    """The top ``share`` of the models by strict mean win rate (at least 2): Zhang & Hardt's protected set.

    Parameters
    ----------
    share : float in (0, 1)
        Share of the models protected.

    Raises
    ------
    ValueError
        When two models share no task (the strict win rates, and so the
        default protected set, are undefined: pass ``protected`` explicitly).

    Examples
    --------
    >>> default_protected([[5.0], [4.0], [3.0], [2.0], [1.0]], share=0.4)
    [0, 1]
    """
    share = check_number(share, "share", low=0.0, high=1.0, low_open=True, high_open=True)
    mat, direction = scores, scores.direction
    try:
        rates = np.asarray(mean_win_rate(mat.values, direction))
    except ValueError as exc:
        raise ValueError(
            f"the default protected set (top {share:.0%} by strict mean win rate) is undefined: {exc}. "
            "Pass the protected models explicitly"
        ) from None
    order = np.argsort(-rates, kind="stable")
    p = max(2, int(mat.shape[0] * share))
    return [mat.models[i] for i in order[:p]]


@dataclass(frozen=True)
class OrdinalSensitivity:
    """Result of :func:`ordinal_sensitivity` or :func:`ordinal_sensitivity_exact`.

    Attributes
    ----------
    tau_distance, mrc : float
        Kendall tau distance and maximum rank change between the protected
        models' ranking among themselves and after ``added`` join the field.
    n_flipped : int
        Number of protected pairs reversed.
    added : tuple
        The models added to the field.
    protected : list
    ranking_before, ranking_after : Series
        Ranks of the protected models (1 = best).
    method : str
        ``"relaxation"``, ``"milp"`` or ``"enumeration"``.
    restarts : int
    upper_bound : float or None
        Certified upper bound on ``tau_distance`` (exact methods).
    optimal : bool
    seconds : float
    stopped : str
        What ended the mixed-integer program before its end: ``"work_limit"``,
        ``"time_limit"`` or ``"solver"`` (see :class:`CardinalSensitivity`);
        ``""`` when it finished.  A result can be ``optimal`` and stopped.
    """

    tau_distance: float
    mrc: float
    n_flipped: int
    added: tuple
    protected: list
    ranking_before: Any
    ranking_after: Any
    method: str
    restarts: int = 0
    upper_bound: float | None = None
    optimal: bool = False
    seconds: float = 0.0
    pool: list = field(default_factory=list, repr=False)
    stopped: str = ""


@measure(allow_nan=True)
def _ordinal_setup(scores, higher_is_better, protected):
    mat = scores
    if protected is None:
        protected = default_protected(mat, higher_is_better)
    protected = as_label_list(protected, "protected", mat.models)
    if len(protected) < 2:
        raise ValueError(f"the protected set needs at least 2 models, got {len(protected)}")
    chosen = set(protected)
    pool = [x for x in mat.models if x not in chosen]
    if not pool:
        raise ValueError("every model is protected: there is nothing to add")
    row = {x: i for i, x in enumerate(mat.models)}
    block = mat.values[[row[x] for x in protected]]
    if np.array_equal(block, np.broadcast_to(block[0], block.shape), equal_nan=True):
        # identical protected rows (same scores, same missing cells) tie with each other in every field:
        # no added set can order them, so the answer is 0 without computing any margin (nor a frame)
        return None, protected, pool, None
    scores = mat.frame()
    fm = field_margins(scores, higher_is_better, protected=protected, pool=pool)
    return scores, protected, pool, fm


def _all_tied(protected, pool, method, t0):
    """The result when the protected models are identical: nothing is ordered, so nothing can be reversed (proven)."""
    p = len(protected)
    ties, models = np.full(p, (p + 1) / 2.0), pd.Index(protected)
    return OrdinalSensitivity(
        tau_distance=0.0,
        mrc=max_rank_change(ties, ties),
        n_flipped=0,
        added=(),
        protected=protected,
        ranking_before=pd.Series(ties, index=models, name="before"),
        ranking_after=pd.Series(ties.copy(), index=models, name="after"),
        method=method,
        upper_bound=0.0,
        optimal=True,
        seconds=time.perf_counter() - t0,
        pool=pool,
    )


def _finish_ordinal(
    scores,
    protected,
    pool,
    fm,
    chosen,
    higher_is_better,
    method,
    restarts=0,
    upper=None,
    optimal=False,
    seconds=0.0,
    stopped="",
):
    """Recount an added set exactly from the field margins (integers; only protected models' comparisons enter).

    A protected pair is reversed when its integer margin changes sign strictly;
    a pair tied before or after never counts (the notion every ordinal solver uses).
    """
    chosen = sorted(int(k) for k in chosen)
    added = tuple(pool[k] for k in chosen)
    masks = np.zeros((2, len(pool)), dtype=bool)
    masks[1, chosen] = True
    totals = fm.totals(masks)  # exact, chained ties of the field included
    before = pd.Series(exact_midranks([int(v) for v in totals[0]]), index=pd.Index(protected), name="before")
    after = pd.Series(exact_midranks([int(v) for v in totals[1]]), index=pd.Index(protected), name="after")
    b, f = before.to_numpy(), after.to_numpy()
    n_flipped = int(reversed_pairs(b, f).sum())
    n_pairs = comb(len(protected), 2)
    if upper is not None:  # a certified bound: a recount that meets it is a proof, however the search ended
        upper = max(int(upper), n_flipped)
        optimal = optimal and n_flipped == upper
        upper = upper / n_pairs
    return OrdinalSensitivity(
        tau_distance=n_flipped / n_pairs,
        mrc=max_rank_change(b, f),
        n_flipped=n_flipped,
        added=added,
        protected=protected,
        ranking_before=before,
        ranking_after=after,
        method=method,
        restarts=restarts,
        upper_bound=upper,
        optimal=optimal,
        seconds=seconds,
        pool=pool,
        stopped=stopped,
    )


def _ordered_pairs(fm):
    base = np.asarray(fm.base, dtype=float)  # the totals of the protected field: no chain term applies yet
    a_idx, b_idx = np.nonzero(base > 0)  # a strictly above b among the protected models
    return a_idx, b_idx


#: The most rows of transitivity cuts given to the mixed-integer program (two per ordered triple of protected models:
#: up to 57 protected models in a strict order); beyond it the program runs without them (as valid, slower).
MAX_TRANSITIVITY_ROWS = 60_000


def _transitivity_cuts(a_idx: np.ndarray, b_idx: np.ndarray, q: int):
    r"""Rows that make the reversals of the mixed-integer program a transitive order, or None (too many triples).

    The variable of pair :math:`(a, b)` (``a`` above ``b`` among the protected) is :math:`y_{ab}`, at column
    ``q + k`` for the k-th pair.  The totals are linear, so for ``a`` above ``b`` above ``c`` in the protected
    field (every such pair is ordered: ``base`` is a difference of totals) the true reversals satisfy
    :math:`y_{ac} \le y_{ab} + y_{bc}` (``a`` keeps ``b`` and ``b`` keeps ``c`` behind, so ``a`` keeps ``c``) and
    :math:`y_{ab} + y_{bc} - 1 \le y_{ac}` (``b`` passes ``a`` and ``c`` passes ``b``, so ``c`` passes ``a``).
    They cut no true answer away, so the optimum and the bound stay valid; they only tighten the relaxation
    (HELM-bias, 13 protected models: 10,698 branch-and-bound nodes instead of about 78,000).
    """
    column = {(int(a), int(b)): q + k for k, (a, b) in enumerate(zip(a_idx, b_idx))}
    below: dict[int, list[int]] = {}
    for a, b in column:
        below.setdefault(a, []).append(b)
    triples = [(a, b, c) for a, b in column for c in below.get(b, ()) if (a, c) in column]
    if not triples or 2 * len(triples) > MAX_TRANSITIVITY_ROWS:
        return None
    rows, cols, vals = [], [], []
    for r, (a, b, c) in enumerate(triples):
        ab, bc, ac = column[(a, b)], column[(b, c)], column[(a, c)]
        rows += [2 * r] * 3 + [2 * r + 1] * 3
        cols += [ac, ab, bc, ab, bc, ac]
        vals += [1.0, -1.0, -1.0, 1.0, 1.0, -1.0]
    matrix = coo_matrix((vals, (rows, cols)), shape=(2 * len(triples), q + len(column))).tocsr()
    upper = np.tile([0.0, 1.0], len(triples))
    return LinearConstraint(matrix, -np.inf, upper)


def _toggle_search(
    base: np.ndarray, inc: np.ndarray, beta: np.ndarray, max_moves: int = 10_000
) -> tuple[np.ndarray, int]:
    """Steepest-ascent local search over added sets: toggle the model that reverses most extra pairs.

    ``base + inc @ beta`` are the exact integer margins of the ordered protected
    pairs (negative = reversed); adding model x adds column x of ``inc``,
    removing it subtracts it, so every toggle is scored at once.
    """
    beta = beta.astype(bool).copy()
    margins = base + inc @ beta.astype(np.float64)
    best = int((margins < 0).sum())
    for _ in range(max_moves):
        step = np.where(beta, -1.0, 1.0)[None, :] * inc  # (pairs, q)
        counts = ((margins[:, None] + step) < 0).sum(axis=0)
        k = int(np.argmax(counts))
        if counts[k] <= best:
            break
        margins = margins + step[:, k]
        beta[k] = ~beta[k]
        best = int(counts[k])
    return beta, best


@_one_torch_thread
@measure(allow_nan=True)
def ordinal_sensitivity(
    scores: Any,
    higher_is_better: Any = True,
    *,
    protected: Sequence | None = None,
    restarts: int = 32,
    steps: int = 100,
    lr: float = 0.1,
    lam: float = 0.01,
    polish: bool = True,
    kicks: int = 10,
    seed: int = 0,
) -> OrdinalSensitivity:
    r"""Ordinal sensitivity by the straight-through relaxation of Zhang & Hardt (Algorithm 2), batched.

    Each restart keeps logits :math:`\theta` over the pool; at every step it
    samples :math:`\beta \sim \mathrm{Bernoulli}(\sigma(\theta))`, passes
    gradients straight through the sample (:math:`\beta + q - \mathrm{sg}(q)`),
    computes the protected models' win rates in the field

    .. math::

        \bar w'_i = \frac{\sum_{j \in P} w_{ij} + \sum_{x} \beta_x w_{ix}}{|P| + \sum_x \beta_x}

    (eq. 11 with its parentheses restored) and the hinge loss of eq. 13.
    Every sampled subset is scored exactly (integer arithmetic, see
    :func:`benchvote.axioms.field_margins`) and the best one of each restart
    is kept.  With ``polish=True`` a local search then toggles one model at a
    time, always the one that reverses the most additional pairs, from each
    restart's best subset, and retries from ``kicks`` random perturbations.

    Parameters
    ----------
    scores : DataFrame
        Models x tasks (missing cells allowed: pairs are compared on shared tasks).
    protected : sequence, optional
        Default :func:`default_protected` (top 20 percent).
    higher_is_better : bool or sequence of bool
    restarts, steps, lr, lam, seed
        Optimiser settings (``lam`` = the paper's :math:`\lambda = 0.01`).
    polish : bool
        Local search after the relaxation.
    kicks : int
        Random perturbations (one to three models toggled) tried after each
        local search; a perturbation is kept when the search from it is no worse.

    See Also
    --------
    ordinal_sensitivity_exact
    default_protected

    References
    ----------
    :cite:t:`zhang2024tradeoffs`.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({f"t{k}": ([2.0, 3.0, 1.0] if k <= 3 else [3.0, 1.0, 2.0]) for k in range(1, 6)},
    ...                  index=["A", "B", "C"])
    >>> r = ordinal_sensitivity(s, protected=["A", "B"], restarts=4, steps=20)
    >>> r.added, r.tau_distance
    (('C',), 1.0)
    """
    torch = _import_torch()

    t0 = time.perf_counter()
    restarts = check_number(restarts, "restarts", low=1, integer=True)
    steps = check_number(steps, "steps", low=0, integer=True)
    kicks = check_number(kicks, "kicks", low=0, integer=True)
    lr = check_number(lr, "lr", low=0.0, low_open=True)
    lam = check_number(lam, "lam", low=0.0)
    scores, protected, pool, fm = _ordinal_setup(scores, higher_is_better, protected)
    if fm is None:
        return _all_tied(protected, pool, "relaxation", t0)
    p, q = len(protected), len(pool)
    if not (np.asarray(fm.base, dtype=float) > 0).any():  # every protected pair ties: nothing can be reversed
        return _finish_ordinal(
            scores,
            protected,
            pool,
            fm,
            [],
            higher_is_better,
            "relaxation",
            restarts=0,
            upper=0,
            optimal=True,
            seconds=time.perf_counter() - t0,
        )
    own = torch.tensor(np.array([float(v) for v in np.ravel(fm.own)]), dtype=torch.float64) / fm.scale
    contrib = torch.tensor(np.array(fm.contrib, dtype=float), dtype=torch.float64) / fm.scale  # (p, q)
    a_idx, b_idx = _ordered_pairs(fm)
    base_np, inc_np = _pair_arrays(fm, a_idx, b_idx, q)
    base_i, inc_i = torch.from_numpy(base_np), torch.from_numpy(inc_np)
    gen = torch.Generator().manual_seed(int(seed))
    theta = torch.randn(restarts, q, generator=gen, dtype=torch.float64)
    theta[0] = 0.0
    theta.requires_grad_(True)
    opt = torch.optim.Adam([theta], lr=lr)
    best_counts = torch.full((restarts,), -1, dtype=torch.long)
    best_betas = torch.zeros(restarts, q, dtype=torch.float64)
    a_t, b_t = torch.tensor(a_idx), torch.tensor(b_idx)

    def score(beta: Any) -> None:
        with torch.no_grad():
            margins = base_i[None, :] + beta @ inc_i.T  # (R, pairs), exact integers in float64
            counts = (margins < 0).sum(dim=1)
            better = counts > best_counts
            best_counts[better] = counts[better]
            best_betas[better] = beta[better]

    for _ in range(steps):
        probs = torch.sigmoid(theta)
        sample = torch.bernoulli(probs.detach(), generator=gen)
        beta = sample + probs - probs.detach()
        rates = (own[None, :] + beta @ contrib.T) / (p + beta.sum(dim=1, keepdim=True))  # (R, p)
        hinge = torch.clamp(rates[:, a_t] - rates[:, b_t], min=-lam)
        opt.zero_grad()
        hinge.sum().backward()
        opt.step()
        score(sample)
    score((torch.sigmoid(theta) > 0.5).to(torch.float64).detach())
    candidates = [b.astype(bool) for b in best_betas.numpy()]
    method = "relaxation"
    if polish:
        candidates = _polished(candidates, base_np, inc_np, kicks, seed)
        method = "relaxation+polish"
    flips = [int(((base_np + inc_np @ b.astype(np.float64)) < 0).sum()) for b in candidates]
    best_beta = candidates[int(np.argmax(flips))]
    return _finish_ordinal(
        scores,
        protected,
        pool,
        fm,
        np.flatnonzero(best_beta),
        higher_is_better,
        method,
        restarts=restarts,
        seconds=time.perf_counter() - t0,
    )


def _pair_arrays(fm: Any, a_idx: np.ndarray, b_idx: np.ndarray, q: int) -> tuple[np.ndarray, np.ndarray]:
    """Each ordered pair's margin with nobody added and its change per added model, as float64 (exact integers)."""
    base = np.array([int(fm.base[a, b]) for a, b in zip(a_idx, b_idx)], dtype=np.float64)
    inc = np.array([[int(v) for v in fm.increments[a, b]] for a, b in zip(a_idx, b_idx)], dtype=np.float64)
    return base, inc.reshape(len(a_idx), q)


def _polished(candidates: list, base: np.ndarray, inc: np.ndarray, kicks: int, seed: int) -> list:
    """Each candidate set after the toggle search and ``kicks`` rounds of iterated local search (seeded)."""
    q = inc.shape[1]
    rng = np.random.default_rng(seed)
    polished = []
    for b in candidates:
        b, count = _toggle_search(base, inc, b)
        for _ in range(kicks):  # perturb a few models, search again, keep if not worse
            trial = b.copy()
            flip = rng.choice(q, size=min(q, int(rng.integers(1, 4))), replace=False)
            trial[flip] = ~trial[flip]
            trial, trial_count = _toggle_search(base, inc, trial)
            if trial_count >= count:
                b, count = trial, trial_count
        polished.append(b)
    return polished


@measure(allow_nan=True)
def ordinal_sensitivity_exact(
    scores: Any,
    higher_is_better: Any = True,
    *,
    protected: Sequence | None = None,
    method: str = "auto",
    work_limit: int = 100_000,
    time_limit: float | None = None,
    max_enumeration: int = 20,
) -> OrdinalSensitivity:
    r"""The true ordinal sensitivity, by enumerating every subset or by a mixed-integer program.

    Protected pair :math:`(a, b)`, :math:`a` above :math:`b`, is reversed by
    the added set :math:`\beta` exactly when
    :math:`D_{ab} + \sum_x \beta_x \delta_{ab}(x) < 0` in the exact integer
    units of :func:`benchvote.axioms.field_margins`.  ``method="enumerate"``
    checks all :math:`2^q` subsets of a pool of :math:`q \le` ``max_enumeration``
    models (vectorised); ``method="milp"`` maximises the number of reversed
    pairs with binaries for the added models and the reversals, and
    ``"auto"`` picks enumeration for small pools.

    The ranking is :func:`benchvote.protected_ranking`'s: every task is ranked
    within the field, so under chained ties (scores closer than the tie
    tolerance to the next, e.g. 0, 0.6e-9 and 1.2e-9) an added model can make
    two others tie.  Enumeration counts these exactly
    (:meth:`benchvote.axioms.FieldMargins.totals`); the mixed-integer program
    models only the linear part, so on such a table its added set is recounted
    exactly but its bound is the number of ordered protected pairs.

    Parameters
    ----------
    protected : sequence, optional
        The protected models (default :func:`default_protected`); every other model is in the pool.
    method : {"auto", "enumerate", "milp"}
        Enumerate every subset of the pool (pools up to ``max_enumeration``
        models), or solve the mixed-integer program; ``"auto"`` picks.
    work_limit : int
        Branch-and-bound nodes of the mixed-integer program: the
        deterministic budget (the same input gives the same result on every
        run).  When it ends the search, the result carries the certified bound
        and ``stopped`` says ``"work_limit"``.
    time_limit : float, optional
        A wall-clock safety cap in seconds (none by default); when it ends the
        search first, ``stopped`` says ``"time_limit"``.
    max_enumeration : int
        Largest pool that ``"auto"`` enumerates.

    See Also
    --------
    ordinal_sensitivity

    References
    ----------
    :cite:t:`zhang2024tradeoffs`.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({f"t{k}": ([2.0, 3.0, 1.0] if k <= 3 else [3.0, 1.0, 2.0]) for k in range(1, 6)},
    ...                  index=["A", "B", "C"])
    >>> r = ordinal_sensitivity_exact(s, protected=["A", "B"])
    >>> r.added, r.tau_distance, r.optimal
    (('C',), 1.0, True)
    """
    t0 = time.perf_counter()
    check_choice(method, "method", ("auto", "enumerate", "milp"))
    time_limit = check_number(time_limit, "time_limit", low=0.0, low_open=True, allow_none=True)
    work_limit = check_number(work_limit, "work_limit", low=1, integer=True)
    max_enumeration = check_number(max_enumeration, "max_enumeration", low=0, high=26, integer=True)
    scores, protected, pool, fm = _ordinal_setup(scores, higher_is_better, protected)
    q = len(pool)
    if method == "auto":
        method = "enumerate" if q <= max_enumeration else "milp"
    if fm is None:
        return _all_tied(protected, pool, method, t0)
    a_idx, b_idx = _ordered_pairs(fm)

    def finish(chosen: Any, how: str, upper: int, stopped: str = "") -> OrdinalSensitivity:
        """The added set recounted exactly; proven optimal when the recount meets ``upper``."""
        seconds = time.perf_counter() - t0
        return _finish_ordinal(
            scores, protected, pool, fm, chosen, higher_is_better, how, upper=upper, optimal=True, seconds=seconds,
            stopped=stopped,
        )  # fmt: skip

    if len(a_idx) == 0:
        return finish([], method, 0)
    if method == "enumerate":
        best_count, chosen = _enumerate(fm, a_idx, b_idx, q)
        return finish(chosen, "enumeration", best_count)
    # the program relaxes "margin < 0" only within the solver's tolerance, so its dual bound is valid
    chosen, upper, stopped = _ordinal_milp(fm, a_idx, b_idx, q, time_limit, work_limit, t0)
    return finish(chosen, "milp", upper, stopped)


def _enumerate(fm: Any, a_idx: np.ndarray, b_idx: np.ndarray, q: int) -> tuple[int, list[int]]:
    """Every subset of the ``q`` pool models, in chunks: the most pairs reversed and the first subset reaching it."""
    if q > 26:
        raise ValueError(f"enumeration over 2^{q} subsets is too large; use method='milp'")
    if np.asarray(fm.own).dtype == object:
        raise ValueError("win counts too large for exact enumeration in 64-bit integers; use method='milp'")
    best_count, best_mask = -1, 0
    chunk = 1 << 14
    bits = 1 << np.arange(q, dtype=np.int64)
    for start in range(0, 1 << q, chunk):
        masks = np.arange(start, min(start + chunk, 1 << q), dtype=np.int64)
        totals = fm.totals((masks[:, None] & bits[None, :]) > 0)  # exact, chained ties included
        counts = (totals[:, a_idx] < totals[:, b_idx]).sum(axis=1)
        k = int(np.argmax(counts))
        if counts[k] > best_count:
            best_count, best_mask = int(counts[k]), int(masks[k])
    return best_count, [k for k in range(q) if best_mask >> k & 1]


def _ordinal_milp(
    fm: Any, a_idx: np.ndarray, b_idx: np.ndarray, q: int, time_limit: float | None, work_limit: int, t0: float
) -> tuple[list[int], int, str]:
    """The integer program of :func:`ordinal_sensitivity_exact`: the added set, a bound on the pairs, why it stopped."""
    base = np.array([int(fm.base[a, b]) for a, b in zip(a_idx, b_idx)], dtype=object)
    inc = np.array([[int(v) for v in fm.increments[a, b]] for a, b in zip(a_idx, b_idx)], dtype=object)
    k_count = len(a_idx)
    unit = float(max(1, max(abs(int(v)) for v in np.ravel(inc).tolist() + list(base))))
    inc_f = inc.astype(np.float64) / unit
    base_f = base.astype(np.float64) / unit
    margin = 0.5 / unit  # integers: < 0 means <= -1
    big_m = base_f + np.clip(inc_f, 0, None).sum(axis=1) + margin
    # y_k = 1  =>  base_k + inc_k . beta <= -margin
    a_mat = np.hstack([inc_f, np.diag(big_m)])
    constraints = [LinearConstraint(a_mat, -np.inf, big_m - margin - base_f)]
    cuts = _transitivity_cuts(a_idx, b_idx, q)
    if cuts is not None:
        constraints.append(cuts)
    cost = np.concatenate([np.zeros(q), -np.ones(k_count)])
    options: dict[str, Any] = {"mip_rel_gap": 0.0, "disp": False, "node_limit": int(work_limit)}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    with quiet_solver_output():
        res = milp(
            cost,
            constraints=constraints,
            integrality=np.ones(q + k_count),
            bounds=Bounds(np.zeros(q + k_count), np.ones(q + k_count)),
            options=options,
        )
    # no solution at all (a tiny budget): adding nobody is a feasible answer, recounted like any other
    chosen = [] if res.x is None else list(np.flatnonzero(res.x[:q] > 0.5))
    dual = getattr(res, "mip_dual_bound", None)
    upper_pairs = int(np.floor(-dual + 1e-6)) if dual is not None and np.isfinite(dual) else k_count
    if fm.chains:  # chained ties: the program's linear margins are a heuristic, its bound proves nothing
        upper_pairs = k_count
    return chosen, min(upper_pairs, k_count), _stop_reason(res, time_limit, work_limit, t0)
