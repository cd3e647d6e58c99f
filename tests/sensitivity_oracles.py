"""Exact oracles, small random tables and hypothesis strategies shared by the sensitivity tests.

Every oracle here is written from the definitions in :mod:`benchvote.sensitivity`, not from its code, and runs
in exact rational arithmetic or by exhaustive enumeration:

* :func:`exact_max_min` (a small simplex method in Fractions, checked against :func:`vertex_max_min` in
  ``test_sensitivity_winners.py``): the largest smallest value of linear forms over a box of weights;
* :func:`arrangement_oracle` (every cell of the hyperplane arrangement, at most three tasks) and
  :func:`lp_cardinal_oracle` (depth-first over the pairs, any number of tasks): the most pairs some weights
  reverse at once;
* :func:`brute_cardinal` (LP feasibility of sets of pairs), :func:`brute_ordinal` and
  :func:`brute_ordinal_exact` (every subset of the pool);
* :func:`check_cardinal_verdicts`: the three promises of a cardinal result against the oracles.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, product
from math import comb

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume
from hypothesis import strategies as st
from scipy.optimize import linprog

import benchvote as bv
from benchvote.aggregation import protected_ranking

TOL = bv.DEFAULT_TIE_TOLERANCE
ZERO, ONE = Fraction(0), Fraction(1)


def exact_dot(row, a):
    return sum((c * x for c, x in zip(row, a)), ZERO)


def exact_max_min(rows, lo, hi):
    """Exact ``max_{lo <= a <= hi} min_j rows[j] . a`` and a maximiser, by the simplex method in Fractions.

    With u = a - lo and tau' = tau - t0, t0 = min_j rows[j] . lo (a lower bound of the optimum), the program
    max tau' s.t. tau' - rows[j] . u <= rows[j] . lo - t0, u_t <= hi_t - lo_t, u, tau' >= 0 has a
    non-negative right-hand side, so the slack basis is feasible and no first phase is needed.  Dictionary
    form (one column per non-basic variable), Bland's rule (no cycling), exact pivots.
    """
    n = len(lo)
    t0 = min(exact_dot(row, lo) for row in rows)
    coef = [[-c for c in row] + [ONE] for row in rows]  # basic = rhs - coef . nonbasic
    rhs = [exact_dot(row, lo) - t0 for row in rows]
    for t in range(n):
        coef.append([ONE if q == t else ZERO for q in range(n)] + [ZERO])
        rhs.append(hi[t] - lo[t])
    obj, value = [ZERO] * n + [ONE], ZERO  # tau' = value + obj . nonbasic
    nonbasic, basic = list(range(n + 1)), list(range(n + 1, n + 1 + len(rhs)))
    while True:
        entering = [q for q in range(n + 1) if obj[q] > 0]
        if not entering:
            break
        k = min(entering, key=lambda q: nonbasic[q])
        r = min((rhs[i] / coef[i][k], basic[i], i) for i in range(len(rhs)) if coef[i][k] > 0)[2]
        p = coef[r][k]
        pivot_row = [v / p for v in coef[r]]
        pivot_row[k] = 1 / p
        coef[r], rhs[r] = pivot_row, rhs[r] / p
        for i in range(len(rhs)):
            f = coef[i][k]
            if i != r and f:
                coef[i] = [-f / p if q == k else coef[i][q] - f * pivot_row[q] for q in range(n + 1)]
                rhs[i] -= f * rhs[r]
        f = obj[k]
        value += f * rhs[r]
        obj = [-f / p if q == k else obj[q] - f * pivot_row[q] for q in range(n + 1)]
        nonbasic[k], basic[r] = basic[r], nonbasic[k]
    x = [ZERO] * (n + 1)
    for i, var in enumerate(basic):
        if var <= n:
            x[var] = rhs[i]
    return t0 + value, [lo[t] + x[t] for t in range(n)]


def _solve_exact(matrix, vector):
    """Gauss-Jordan elimination in Fractions; None when the matrix is singular."""
    k = len(vector)
    aug = [list(matrix[i]) + [vector[i]] for i in range(k)]
    for c in range(k):
        piv = next((r for r in range(c, k) if aug[r][c] != 0), None)
        if piv is None:
            return None
        aug[c], aug[piv] = aug[piv], aug[c]
        for r in range(k):
            if r != c and aug[r][c] != 0:
                f = aug[r][c] / aug[c][c]
                aug[r] = [x - f * y for x, y in zip(aug[r], aug[c])]
    return [aug[i][k] / aug[i][i] for i in range(k)]


def vertex_max_min(rows, lo, hi):
    """The same optimum by enumerating the vertices of {(a, tau): tau <= rows[j] . a, lo <= a <= hi}.

    A vertex has n + 1 active constraints, at least one of them a row (tau is bounded only by the rows):
    choose p rows with rows[j] . a = tau and n + 1 - p coordinates at a bound, solve, keep feasible points.
    """
    n = len(lo)
    best = None
    for p in range(1, min(len(rows), n + 1) + 1):
        for chosen in combinations(range(len(rows)), p):
            for fixed in combinations(range(n), n + 1 - p):
                free = [t for t in range(n) if t not in fixed]
                for values in product(*[(lo[t], hi[t]) for t in fixed]):
                    at = dict(zip(fixed, values))
                    matrix = [[rows[j][t] for t in free] + [-ONE] for j in chosen]
                    vector = [-sum((rows[j][t] * at[t] for t in fixed), ZERO) for j in chosen]
                    sol = _solve_exact(matrix, vector)
                    if sol is None:
                        continue
                    a = [at.get(t, ZERO) for t in range(n)]
                    for t, v in zip(free, sol):
                        a[t] = v
                    tau = sol[-1]
                    if all(lo[t] <= a[t] <= hi[t] for t in range(n)) and all(exact_dot(row, a) >= tau for row in rows):
                        best = tau if best is None or tau > best else best
    return best


def oriented(scores, higher_is_better=True):
    """The float table with every lower-is-better column negated (exact in floating point)."""
    s = np.array(scores, dtype=float)
    hib = np.broadcast_to(np.asarray(higher_is_better, dtype=bool), (s.shape[1],))
    return np.where(hib, s, -s)


FACTORS = st.one_of(
    st.floats(-6, 10).map(lambda e: 10.0**e),
    st.sampled_from([1e-6, 1e-3, 3.7, 1e3, 1e9, 1e10]),
)


@st.composite
def mixed_scale_tables(draw, min_models=3, max_models=7, min_tasks=2, max_tasks=4):
    """Accuracies in [0, 1] with 2-3 decimals beside rescaled tasks (factors log-uniform in 1e-6..1e10),
    latencies in milliseconds and parameter counts near 1e9, some of them lower-is-better."""
    m = draw(st.integers(min_models, max_models))
    n = draw(st.integers(min_tasks, max_tasks))
    cols, hib = [], []
    for _ in range(n):
        kind = draw(st.sampled_from(["accuracy", "rescaled", "latency", "params"]))
        if kind in ("accuracy", "rescaled"):
            unit = 10 ** draw(st.sampled_from([2, 3]))
            col = np.array(draw(st.lists(st.integers(0, unit), min_size=m, max_size=m)), dtype=float) / unit
            if kind == "rescaled":
                col = col * draw(FACTORS)
            hib.append(draw(st.booleans()))
            if not hib[-1]:
                col = 1.0 - col if kind == "accuracy" else col  # an error rate, lower is better
        elif kind == "latency":
            col = np.array(draw(st.lists(st.integers(500, 60000), min_size=m, max_size=m)), dtype=float) / 10
            hib.append(False)
        else:
            col = np.array(draw(st.lists(st.integers(1, 700), min_size=m, max_size=m)), dtype=float) * 1e8
            hib.append(draw(st.sampled_from([False, False, True])))
        cols.append(col)
    s = np.column_stack(cols)
    assume(bool((np.ptp(s, axis=0) > 10 * TOL).all()))  # a constant task is refused by design
    return s, hib


def brute_cardinal(s, eps):
    """Largest number of simultaneously reversible pairs: LP feasibility of subsets of pairs (tiny m).

    A set of pairs is reversible when some weights in [eps, 1] reverse every pair of it strictly (an LP).  Every
    subset of a reversible set is reversible (fewer constraints), so the reversible sets are found level by level:
    a set of k + 1 pairs is tried only when each of its k-pair subsets was found reversible, and every other set of
    that size has an irreversible subset.  Exhaustive, with the same LP per set; a few dozen LPs where trying
    every subset from the largest down took about a thousand.
    """
    before = bv.rank(s.mean(axis=1))
    pairs = [(i, j) for i in range(len(s)) for j in range(len(s)) if before[i] < before[j]]
    n = s.shape[1]

    def reversible(subset):
        d = np.array([s[i] - s[j] for i, j in (pairs[k] for k in subset)])
        # maximise t with d a + t <= 0, a in [eps, 1]: feasible with t > 0 iff all reversals are strict
        res = linprog(
            np.r_[np.zeros(n), -1.0],
            A_ub=np.hstack([d, np.ones((len(subset), 1))]),
            b_ub=np.zeros(len(subset)),
            bounds=[(eps, 1)] * n + [(None, 1)],
            method="highs",
        )
        return res.status == 0 and -res.fun > 1e-9

    level, best = {()}, 0  # the reversible sets of `best` pairs, each as increasing pair indices
    while level:
        grown = {
            (*subset, k)
            for subset in level
            for k in range(subset[-1] + 1 if subset else 0, len(pairs))
            if all((*subset, k)[:drop] + (*subset, k)[drop + 1 :] in level for drop in range(len(subset)))
        }
        level = {subset for subset in sorted(grown) if reversible(subset)}
        best += bool(level)
    return best


def brute_ordinal(scores, protected, pool):
    """Try every subset of the pool and recompute the protected ranking directly."""
    alone = protected_ranking(scores, protected=protected).to_numpy()
    best = 0
    for size in range(len(pool) + 1):
        for added in combinations(pool, size):
            after = protected_ranking(scores, protected=protected, added=list(added)).to_numpy()
            best = max(best, round(bv.kendall_tau_distance(alone, after) * len(alone) * (len(alone) - 1) / 2))
    return best


def random_cardinal(seed, m=5, n=3):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(m, 1))
    return base + rng.normal(scale=1.0, size=(m, n))


def random_ordinal(seed, m=8, n=4, p=3):
    rng = np.random.default_rng(seed)
    s = pd.DataFrame(
        rng.integers(0, 6, size=(m, n)).astype(float),
        index=[f"m{i}" for i in range(m)],
        columns=[f"t{k}" for k in range(n)],
    )
    order = list(bv.mean_win_rate(s).sort_values(ascending=False).index)
    return s, order[:p], order[p:]


def exact_chain_ranks(means, tol):
    """Midranks of exact numbers, highest first; a gap of at most tol joins a tie group (like benchvote.rank)."""
    order = sorted(range(len(means)), key=lambda i: means[i], reverse=True)
    ranks, start = [0.0] * len(means), 0
    for pos in range(1, len(order) + 1):
        if pos == len(order) or means[order[pos - 1]] - means[order[pos]] > tol:
            for k in order[start:pos]:
                ranks[k] = (start + 1 + pos) / 2
            start = pos
    return ranks


def arrangement_oracle(s, eps, normalize="none", tol=bv.DEFAULT_TIE_TOLERANCE):
    """Largest number of simultaneously reversed pairs, over every cell of the hyperplane arrangement (n <= 3).

    Independent of the library's solvers and in exact rational arithmetic.  Pair (i, j), i strictly above
    j in the mean ranking, is reversed by weights alpha when S_j - S_i > tol (S the weighted means): with
    alpha_t = a_t c_t (c_t = 1, or 1 / std_t for the z-score box) and a in [eps, 1]^n this is
    g(a) = sum_t a_t c_t (s_jt - s_it - tol) > 0, a hyperplane through the origin.  Only the direction of a
    matters, so the search runs over the n faces a_t = 1.  On a 2-D face, every open cell of the line
    arrangement meets some vertical line half-way between two consecutive vertex abscissae, and along that
    line the count is a step function of v that a sorted sweep of the crossings evaluates exactly.
    """
    s = np.asarray(s, dtype=float)
    m, n = s.shape
    q = [[Fraction(float(v)) for v in row] for row in s]
    tol_q = Fraction(float(tol))
    std = s.std(axis=0)
    c = [Fraction(1) / Fraction(float(sd)) if normalize == "zscore" else Fraction(1) for sd in std]
    before = exact_chain_ranks([sum(row, Fraction(0)) / n for row in q], tol_q)
    pairs = [(i, j) for i in range(m) for j in range(m) if before[i] < before[j]]
    if not pairs:
        return 0
    coef = [[c[t] * (q[j][t] - q[i][t] - tol_q) for t in range(n)] for i, j in pairs]  # g_k(a) = coef_k . a
    lo, one = Fraction(float(eps)), Fraction(1)
    if n == 1:
        return sum(1 for g in coef if g[0] > 0)
    best = 0
    for fixed in range(n):
        free = [t for t in range(n) if t != fixed]
        if n == 2:  # g = A + B u on [eps, 1]
            lines = [(g[fixed], g[free[0]]) for g in coef]
            cuts = {lo, one} | {-A / B for A, B in lines if B != 0 and lo < -A / B < one}
            cuts = sorted(cuts)
            points = cuts + [(x + y) / 2 for x, y in zip(cuts, cuts[1:])]
            best = max(best, max(sum(1 for A, B in lines if A + B * u > 0) for u in points))
            continue
        lines = [(g[fixed], g[free[0]], g[free[1]]) for g in coef]  # g = A + B u + C v on [eps, 1]^2
        xs = {lo, one}
        for A, B, C in lines:
            if B != 0:
                for v in (lo, one):
                    u = -(A + C * v) / B
                    if lo < u < one:
                        xs.add(u)
        for (A1, B1, C1), (A2, B2, C2) in combinations(lines, 2):
            det = B1 * C2 - B2 * C1
            if det != 0:
                u = (-A1 * C2 + A2 * C1) / det
                if lo < u < one:
                    xs.add(u)
        xs = sorted(xs)
        for u in [(x + y) / 2 for x, y in zip(xs, xs[1:])]:
            count, events = 0, {}
            for A, B, C in lines:
                a0 = A + B * u
                if C == 0:
                    count += a0 > 0
                    continue
                cross = -a0 / C
                if cross <= lo:
                    count += C > 0  # positive on the whole segment iff increasing
                elif cross >= one:
                    count += C < 0
                else:
                    count += C < 0  # positive below the crossing iff decreasing
                    events[cross] = events.get(cross, 0) + (1 if C > 0 else -1)
            best = max(best, count)
            for cross in sorted(events):
                count += events[cross]
                best = max(best, count)
    return best


@st.composite
def small_boards(draw):
    """Integer, rounded, duplicated and rescaled score tables, n <= 3 tasks and m <= 7 models (6 with 3 tasks)."""
    n = draw(st.integers(1, 3))
    m = draw(st.integers(2, 7 if n < 3 else 6))
    kind = draw(st.sampled_from(["integer", "rounded", "duplicated", "rescaled"]))
    if kind == "integer":
        cols = [draw(st.lists(st.integers(0, 5), min_size=m, max_size=m)) for _ in range(n)]
        s = np.array(cols, dtype=float).T
    else:
        cols = [draw(st.lists(st.floats(-3, 3, allow_nan=False), min_size=m, max_size=m)) for _ in range(n)]
        s = np.round(np.array(cols, dtype=float).T, draw(st.integers(1, 2)))
        if kind in ("duplicated", "rescaled") and n >= 2:
            factor = 1.0 if kind == "duplicated" else draw(st.sampled_from([2.5, 100.0, 0.01]))
            s[:, -1] = s[:, 0] * factor
    eps = draw(st.sampled_from([0.05, 0.1, 0.3, 0.5, 0.9]))
    normalize = draw(st.sampled_from(["none", "zscore"]))
    return s, eps, normalize


def has_constant_task(s):
    return bool((np.ptp(s, axis=0) <= bv.DEFAULT_TIE_TOLERANCE).any())


def brute_ordinal_exact(scores, protected, pool):
    """Every subset of the pool, protected win rates in exact fractions from the raw scores (no library code)."""
    s = scores.to_numpy(dtype=float)
    idx = {x: k for k, x in enumerate(scores.index)}

    def rate(a, field):
        total = Fraction(0)
        for j in field:
            if j == a:
                continue
            both = ~np.isnan(s[idx[a]]) & ~np.isnan(s[idx[j]])
            total += Fraction(int((s[idx[a]][both] > s[idx[j]][both]).sum()), int(both.sum()))
        return total

    def ranks(field):
        return exact_chain_ranks([rate(a, field) for a in protected], 0)

    alone = ranks(protected)
    best, best_set = 0, ()
    for size in range(len(pool) + 1):
        for added in combinations(pool, size):
            after = ranks(protected + list(added))
            flips = sum(
                1 for a in range(len(alone)) for b in range(len(alone)) if alone[a] < alone[b] and after[a] > after[b]
            )
            if flips > best:
                best, best_set = flips, added
    return best, best_set


def lp_cardinal_oracle(s, eps, normalize="none", tol=bv.DEFAULT_TIE_TOLERANCE):
    """Largest set of pairs that some weights in the box reverse at once, for any number of tasks.

    Same definitions as :func:`arrangement_oracle` (pair (i, j), i strictly above j in the exact mean ranking,
    is reversed when g . a > 0 with g_t = c_t (s_jt - s_it - tol)); a set of pairs is reversible at once iff the
    exact max over the box of the smallest g . a is positive (``exact_max_min``, rational simplex).  Depth-first
    over the pairs: take a pair only if the set stays reversible; the count at each maximiser is a lower bound
    used to prune.
    """
    s = np.asarray(s, dtype=float)
    m, n = s.shape
    q = [[Fraction(float(v)) for v in row] for row in s]
    tol_q = Fraction(float(tol))
    c = [Fraction(1) / Fraction(float(sd)) if normalize == "zscore" else Fraction(1) for sd in s.std(axis=0)]
    before = exact_chain_ranks([sum(row, Fraction(0)) / n for row in q], tol_q)
    pairs = [(i, j) for i in range(m) for j in range(m) if before[i] < before[j]]
    g = [[c[t] * (q[j][t] - q[i][t] - tol_q) for t in range(n)] for i, j in pairs]
    lo, hi = [Fraction(float(eps))] * n, [Fraction(1)] * n
    best = 0

    def dfs(k, chosen):
        nonlocal best
        if len(chosen) + len(g) - k <= best:
            return
        if k == len(g):
            best = len(chosen)
            return
        tau, a = exact_max_min([g[x] for x in chosen + [k]], lo, hi)
        if tau > 0:
            best = max(best, sum(1 for row in g if sum((u * v for u, v in zip(row, a)), Fraction(0)) > 0))
            dfs(k + 1, chosen + [k])
        dfs(k + 1, chosen)

    dfs(0, [])
    return best


def exact_reversals(s, weights, tol=bv.DEFAULT_TIE_TOLERANCE):
    """Pairs that the two exact chain rankings (plain mean, weighted mean) order strictly opposite ways."""
    q = [[Fraction(float(v)) for v in row] for row in np.asarray(s, dtype=float)]
    w = [Fraction(float(v)) for v in weights]
    tol_q = Fraction(float(tol))
    before = exact_chain_ranks([sum(row, Fraction(0)) / len(w) for row in q], tol_q)
    after = exact_chain_ranks([sum((a * x for a, x in zip(w, row)), Fraction(0)) / sum(w) for row in q], tol_q)
    m = len(q)
    return sum(1 for i in range(m) for j in range(m) if before[i] < before[j] and after[i] > after[j])


def check_cardinal_verdicts(scores, higher_is_better, r, normalize, eps_asked):
    """n_flipped <= truth, optimal => n_flipped == truth, upper_bound >= truth / pairs; the returned weights
    lie in the box and reverse exactly n_flipped pairs."""
    s = oriented(scores, higher_is_better)
    m, n = s.shape
    label = f"table={np.asarray(scores, dtype=float).tolist()!r} hib={higher_is_better!r} eps={eps_asked!r} "
    label += f"normalize={normalize!r} method={r.method!r}"
    if eps_asked is None:
        std = s.std(axis=0)
        assert r.eps == pytest.approx(min(0.01, std.min() / std.max()), rel=1e-12), label
    truth = arrangement_oracle(s, r.eps, normalize) if n <= 3 else lp_cardinal_oracle(s, r.eps, normalize)
    pairs = comb(m, 2)
    got = f"{label}: n_flipped={r.n_flipped} optimal={r.optimal} upper_bound*pairs="
    got += f"{None if r.upper_bound is None else r.upper_bound * pairs} truth={truth}"
    assert r.n_flipped <= truth, f"more reversals than any weights in the box give; {got}"
    if r.optimal:
        assert r.n_flipped == truth, f"claims optimal below the true maximum; {got}"
    if r.upper_bound is not None:
        assert r.upper_bound * pairs >= truth - 1e-9, f"the certified bound is below the true maximum; {got}"
    w = np.asarray(r.weights, dtype=float)
    a = w * (s.std(axis=0) if normalize == "zscore" else 1.0)
    assert a.min() >= r.eps * a.max() * (1 - 1e-9), f"weights {w.tolist()} outside the box; {got}"
    assert exact_reversals(s, w) == r.n_flipped, f"the weights do not reverse n_flipped pairs; {got}"
    return truth


@st.composite
def integer_tables_and_a_rescaled_task(draw, min_models=4, max_models=7, max_tasks=4):
    """Integer scores 0..9 (ties included) and one task multiplied by a factor in 1e-6..1e10."""
    m = draw(st.integers(min_models, max_models))
    n = draw(st.integers(2, max_tasks))
    s = np.array(draw(st.lists(st.lists(st.integers(0, 9), min_size=n, max_size=n), min_size=m, max_size=m)))
    s = s.astype(float)
    task = draw(st.integers(0, n - 1))
    factor = draw(FACTORS)
    scaled = s.copy()
    scaled[:, task] *= factor
    hib = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return s, scaled, hib, task, factor


def same_tie_pattern(a, b):
    """Same strict order and the same exact ties within every task, every gap far above the tie tolerance."""
    for x, y in zip(np.asarray(a).T, np.asarray(b).T):
        dx, dy = x[:, None] - x[None, :], y[:, None] - y[None, :]
        if (
            not np.array_equal(np.sign(dx), np.sign(dy))
            or (np.abs(dy)[dy != 0] <= 100 * bv.DEFAULT_TIE_TOLERANCE).any()
        ):
            return False
    return True
