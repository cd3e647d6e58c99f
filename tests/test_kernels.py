"""benchvote._kernels: each compiled kernel called directly against a plain numpy or brute-force oracle.

The public functions built on the kernels are tested against independent oracles in their own files; here each
kernel's docstring contract is checked on its own, on small seeded random inputs with ties and, where the kernel
accepts them, ``nan`` (a missing rank).  Sizes above 64 models cross the kernels' blocks of 64 rows and their
words of 64 bits.
"""

from __future__ import annotations

import heapq
from itertools import combinations

import numpy as np
import pytest

from benchvote import _kernels as k

SEEDS = range(6)


def random_ranks(seed: int, m: int, n: int, missing: float = 0.2) -> np.ndarray:
    """Models x tasks ranks with many ties (a few distinct values per task) and some ``nan``."""
    rng = np.random.default_rng(seed)
    ranks = rng.integers(1, 5, size=(m, n)).astype(float)
    ranks[rng.random((m, n)) < missing] = np.nan
    return ranks


def compare(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``below[i, j, k]``, ``tied[i, j, k]`` and ``both[i, j, k]`` over every ordered pair and task (numpy)."""
    a, b = ranks[:, None, :], ranks[None, :, :]
    both = ~np.isnan(a) & ~np.isnan(b)
    with np.errstate(invalid="ignore"):
        return (a < b) & both, (a == b) & both, both


def off_diagonal(m: int) -> np.ndarray:
    return ~np.eye(m, dtype=bool)


def log_sigma(x: np.ndarray) -> np.ndarray:
    """log(1 / (1 + exp(-x))) without overflow."""
    return -np.logaddexp(0.0, -x)


@pytest.mark.parametrize("seed", SEEDS)
def test_pair_counts_are_the_wins_ties_and_shared_tasks_of_every_pair(seed):
    ranks = random_ranks(seed, m=9 + seed, n=1 + seed)
    wins, ties, compared = k.pair_counts(ranks)
    below, tied, both = compare(ranks)
    mask = off_diagonal(len(ranks))
    np.testing.assert_array_equal(wins, below.sum(axis=2) * mask)
    np.testing.assert_array_equal(ties, tied.sum(axis=2) * mask)
    np.testing.assert_array_equal(compared, both.sum(axis=2) * mask)


@pytest.mark.parametrize("seed", SEEDS)
def test_margins_and_gaps_are_the_votes_and_the_smallest_gap_of_each_ordered_pair(seed):
    rng = np.random.default_rng(seed)
    m, n = 8, 1 + seed
    signed = np.round(rng.normal(size=(m, n)), 1)  # higher is better, ties included
    ranks = np.empty((m, n))
    for t in range(n):  # tied scores share a rank
        ranks[:, t] = np.searchsorted(np.sort(-signed[:, t]), -signed[:, t])
    ranks[rng.random((m, n)) < 0.2] = np.nan
    margins, gaps = k.margins_and_gaps(ranks, signed)
    below, _, _ = compare(ranks)
    np.testing.assert_array_equal(margins, below.sum(axis=2) - below.sum(axis=2).T)
    for i in range(m):
        for j in range(m):
            votes = [signed[i, t] - signed[j, t] for t in range(n) if below[i, j, t]]
            assert gaps[i, j] == (min(votes) if votes and i != j else np.inf)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [np.int16, np.int32])
def test_strict_above_counts_weigh_each_redraw_where_i_ranks_strictly_above_j(seed, dtype):
    rng = np.random.default_rng(seed)
    m, cols = 7 + seed, 5 + 3 * seed
    ranks = rng.integers(2, 2 * m + 1, size=(m, cols)).astype(dtype)  # twice the midranks: ties included
    ranks[0] = 1  # a model always first: its pairs are settled by the ranges of ranks alone
    weight = rng.integers(1, 6, size=cols).astype(dtype)
    out = k.strict_above_counts(ranks, weight)
    expected = ((ranks[:, None, :] < ranks[None, :, :]) * weight.astype(np.int64)).sum(axis=2)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_strict_inversions_count_the_strictly_decreasing_pairs(seed):
    rng = np.random.default_rng(seed)
    for m in (0, 1, 2, 3, 17, 64 + seed):
        keys = rng.integers(0, 5, size=m).astype(np.int64)  # many equal keys: no inversion
        brute = sum(1 for p, q in combinations(range(m), 2) if keys[p] > keys[q])
        assert k.strict_inversions(keys) == brute


@pytest.mark.parametrize("seed", SEEDS)
def test_discordant_pairs_count_the_pairs_ordered_oppositely(seed):
    rng = np.random.default_rng(seed)
    m = 30 + seed
    a = rng.integers(0, 6, size=m).astype(float)  # ties in a, in b and in both
    b = np.round(rng.normal(size=m), 0)
    brute = sum(1 for i, j in combinations(range(m), 2) if (a[i] - a[j]) * (b[i] - b[j]) < 0)
    assert k.discordant_pairs(a, b) == brute


@pytest.mark.parametrize("d", [-800.0, -30.0, -1.5, -1e-9, 0.0, 1e-9, 0.7, 30.0, 800.0])
def test_bt_pair_terms_are_sigma_its_complement_and_the_negative_log_likelihood_without_overflow(d):
    up, down = 3.0, 2.0
    s, t, minus = k.bt_pair_terms(up, down, d)
    assert s == pytest.approx(np.exp(log_sigma(np.float64(d))), rel=1e-12, abs=1e-300)
    assert t == pytest.approx(np.exp(log_sigma(np.float64(-d))), rel=1e-12, abs=1e-300)
    assert s + t == pytest.approx(1.0, rel=1e-15)
    assert np.isfinite(minus)
    assert minus == pytest.approx(-(up * log_sigma(d) + down * log_sigma(-d)), rel=1e-12)


def bradley_terry_oracle(wins: np.ndarray, beta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, gradient and minus the Hessian from the closed forms over every ordered pair (numpy)."""
    d = beta[:, None] - beta[None, :]
    p = np.exp(log_sigma(d))  # p[i, j]: the chance that i beats j
    n = wins + wins.T
    loglik = float((wins * log_sigma(d))[off_diagonal(len(beta))].sum())
    grad = (wins - n * p).sum(axis=1)
    w = n * p * p.T
    np.fill_diagonal(w, 0.0)
    return loglik, grad, np.diag(w.sum(axis=1)) - w


def random_wins(seed: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    wins = rng.integers(0, 4, size=(m, m)).astype(float)
    wins[rng.random((m, m)) < 0.3] = 0.0  # pairs that never met
    np.fill_diagonal(wins, 0.0)
    return wins, rng.normal(scale=3.0, size=m)


@pytest.mark.parametrize("seed", SEEDS)
def test_bt_newton_system_is_the_likelihood_its_gradient_and_its_laplacian(seed):
    wins, beta = random_wins(seed, m=6 + seed)
    loglik, grad, laplacian = k.bt_newton_system(wins, np.ascontiguousarray(wins.T), beta)
    want_loglik, want_grad, want_laplacian = bradley_terry_oracle(wins, beta)
    assert loglik == pytest.approx(want_loglik, rel=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(laplacian, want_laplacian, rtol=1e-10, atol=1e-12)
    # the gradient is the derivative of the likelihood (central differences)
    h = 1e-6
    for i in range(len(beta)):
        step = np.zeros_like(beta)
        step[i] = h
        up = k.bt_newton_system(wins, np.ascontiguousarray(wins.T), beta + step)[0]
        down = k.bt_newton_system(wins, np.ascontiguousarray(wins.T), beta - step)[0]
        assert (up - down) / (2 * h) == pytest.approx(grad[i], rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_fill_margins_is_the_majority_margin_of_every_pair_across_blocks_of_rows(seed):
    ranks = random_ranks(seed, m=70 + 7 * seed, n=1 + seed)
    out = np.empty((len(ranks),) * 2, dtype=np.int8)
    k.fill_margins(ranks, out)
    below, _, _ = compare(ranks)
    np.testing.assert_array_equal(out, below.sum(axis=2) - below.sum(axis=2).T)


def sign_matrix(codes: np.ndarray) -> np.ndarray:
    """Pairs of models (i < j) by tasks: ``sign(c_jk - c_ik)``."""
    i, j = np.triu_indices(len(codes), 1)
    return np.sign(codes[j] - codes[i]).astype(np.int64)


@pytest.mark.parametrize("seed", SEEDS)
def test_sign_products_are_s_transposed_times_s(seed):
    rng = np.random.default_rng(seed)
    m, n = 6 + 5 * seed, 1 + seed
    raw = rng.integers(0, 3 + seed, size=(m, n))  # ties within each task
    codes = np.column_stack([np.unique(raw[:, t], return_inverse=True)[1] for t in range(n)]).astype(np.int64)
    signs = sign_matrix(codes)
    np.testing.assert_array_equal(k.sign_products(codes), signs.T @ signs)


def random_margins(seed: int, m: int, tie_share: float) -> np.ndarray:
    """An antisymmetric integer matrix of margins with zeros (ties) off the diagonal."""
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.integers(1, 4, size=(m, m)) * rng.choice([-1, 1], size=(m, m)), 1)
    upper[rng.random((m, m)) < tie_share] = 0
    upper = np.triu(upper, 1)
    return (upper - upper.T).astype(np.int64)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("tie_share", [0.0, 0.3, 0.9])
def test_cyclic_triads_count_the_three_cycles_of_the_strict_relation(seed, tie_share):
    margins = random_margins(seed, m=(5, 20, 70)[seed % 3] + seed, tie_share=tie_share)
    beats = (margins > 0).astype(np.int64)
    assert k.cyclic_triads(margins) == np.trace(beats @ beats @ beats) // 3  # every 3-cycle counted 3 times


@pytest.mark.parametrize("seed", SEEDS)
def test_fill_doubled_wins_counts_a_win_two_and_a_tie_one_across_blocks_of_rows(seed):
    ranks = random_ranks(seed, m=66 + 5 * seed, n=1 + seed)
    out = np.empty((len(ranks),) * 2, dtype=np.int16)
    k.fill_doubled_wins(ranks, out)
    below, tied, _ = compare(ranks)
    np.testing.assert_array_equal(out, (2 * below.sum(axis=2) + tied.sum(axis=2)) * off_diagonal(len(ranks)))


@pytest.mark.parametrize("seed", SEEDS)
def test_win_fraction_rows_are_the_share_of_shared_tasks_won_nan_where_none_is_shared(seed):
    ranks = random_ranks(seed, m=8 + seed, n=1 + seed, missing=0.4)
    below, _, both = compare(ranks)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = below.sum(axis=2) / both.sum(axis=2)
    np.fill_diagonal(expected, 0.0)
    lo = 2
    out = np.empty((len(ranks) - lo - 1, len(ranks)))
    k.win_fraction_rows(ranks, lo, out)
    np.testing.assert_array_equal(out, expected[lo : lo + len(out)])  # equal nan where two models share no task


def ranked_pairs_oracle(margins: np.ndarray) -> list[int]:
    """Ranked Pairs by the book: defeats by margin, largest first, then row-major; lock unless the loser reaches the
    winner (a search over the locked defeats); then the topological order taking the smallest available node."""
    m = len(margins)
    defeats = sorted((-margins[p, q], p, q) for p in range(m) for q in range(m) if margins[p, q] > 0)
    locked: list[set[int]] = [set() for _ in range(m)]

    def reaches(a: int, b: int) -> bool:
        seen, stack = {a}, [a]
        while stack:
            x = stack.pop()
            if x == b:
                return True
            for y in locked[x] - seen:
                seen.add(y)
                stack.append(y)
        return False

    for _, p, q in defeats:
        if not reaches(q, p):
            locked[p].add(q)
    order, placed = [], set()
    while len(order) < m:
        free = [v for v in range(m) if v not in placed and not any(v in locked[u] for u in range(m) if u not in placed)]
        order.append(min(free))
        placed.add(order[-1])
    return order


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("tie_share", [0.0, 0.5])
def test_ranked_pairs_order_locks_and_places_as_ranked_pairs_by_the_book_from_any_start(seed, tie_share):
    m = (6, 12, 70)[seed % 3]
    margins = random_margins(seed, m=m, tie_share=tie_share).astype(np.int8)
    expected = ranked_pairs_oracle(margins)
    rng = np.random.default_rng(seed)
    for start in (np.arange(m), np.arange(m)[::-1].copy(), rng.permutation(m)):
        assert k.ranked_pairs_order(margins, start.astype(np.int64)).tolist() == expected


def ranked_pairs_by_bfs(margins: np.ndarray) -> list[int]:
    """Ranked Pairs with a breadth-first search per defeat: the plain reference for tables of hundreds of models.

    Defeats by margin, largest first, then row-major; each is locked unless a breadth-first search of the locked
    defeats (rows of bits as Python integers) leads from its loser back to its winner; then the topological order
    that always places the smallest available node (a heap).
    """
    m = len(margins)
    p, q = np.nonzero(margins > 0)
    by_margin = np.lexsort((q, p, -margins[p, q]))
    succ = [0] * m
    for a, b in zip(p[by_margin].tolist(), q[by_margin].tolist()):
        seen = frontier = 1 << b
        while frontier and not frontier >> a & 1:
            reached = 0
            while frontier:
                low = frontier & -frontier
                reached |= succ[low.bit_length() - 1]
                frontier ^= low
            frontier = reached & ~seen
            seen |= frontier
        if not frontier:
            succ[a] |= 1 << b
    waiting = [sum(succ[u] >> v & 1 for u in range(m)) for v in range(m)]
    free = [v for v in range(m) if waiting[v] == 0]
    heapq.heapify(free)
    order = []
    while free:
        order.append(heapq.heappop(free))
        for v in range(m):
            if succ[order[-1]] >> v & 1:
                waiting[v] -= 1
                if waiting[v] == 0:
                    heapq.heappush(free, v)
    return order


def tied_margins(seed: int, m: int, n: int) -> np.ndarray:
    """Margins of m models on n tasks, in int8: half the seeds draw scores from five values (many tied pairs and
    margins), the other half one common factor rounded to whole points (long searches against Copeland's order)."""
    rng = np.random.default_rng(seed)
    if seed % 2:
        scores = rng.integers(0, 5, size=(m, n)).astype(float)
    else:
        scores = np.round(3 * rng.normal(size=(m, 1)) + 2 * rng.normal(size=(m, n)))
    signs = np.sign(scores[:, None, :] - scores[None, :, :]).astype(np.int64)
    return signs.sum(axis=2).astype(np.int8)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("shape", [(200, 3), (300, 6)])
def test_ranked_pairs_order_locks_what_a_breadth_first_search_locks_on_many_tied_margins(seed, shape):
    """From Copeland's order and from a random one; renaming the nodes before every search or never."""
    margins = tied_margins(seed, *shape)
    expected = ranked_pairs_by_bfs(margins)
    score = (margins > 0).sum(axis=1) - (margins < 0).sum(axis=1)
    copeland = np.lexsort((np.arange(shape[0]), -score))
    shuffled = np.random.default_rng(seed).permutation(shape[0])
    for start in (copeland, shuffled):
        for relabel_waste in (0.0, 4.0, np.inf):
            assert k.ranked_pairs_order(margins, start, relabel_waste).tolist() == expected


@pytest.mark.parametrize("seed", SEEDS)
def test_popcount_and_lowest_bit_against_python_integers(seed):
    rng = np.random.default_rng(seed)
    words = [1, 2**63, 2**64 - 1, *rng.integers(1, 2**63, size=50, dtype=np.int64).tolist()]
    for x in words:
        assert k._popcount(np.uint64(x)) == bin(x).count("1")
        assert k._lowest_bit(np.uint64(x)) == (x & -x).bit_length() - 1


@pytest.mark.parametrize("seed", range(3))
def test_count_weighted_sums_are_each_rows_sum_of_counts_times_scores(seed):
    rng = np.random.default_rng(seed)
    right = (rng.random((7, 300)) < 0.4).astype(np.uint8)
    graded = rng.integers(0, 9, size=(7, 300)) / 8
    counts = np.bincount(rng.integers(0, 300, size=300), minlength=300)
    oracle = [sum(int(right[i, j]) * int(counts[j]) for j in range(300)) for i in range(7)]
    assert k.count_weighted_whole_sums(right, counts).tolist() == oracle
    assert k.count_weighted_whole_sums(right, counts.astype(np.int32)).tolist() == oracle
    loop = [float(np.add.reduce(graded[i] * counts)) for i in range(7)]  # exact: eighths times small whole numbers
    assert k.count_weighted_sums(graded, counts).tolist() == loop
    assert k.count_weighted_sums(graded.astype(np.float32), counts).tolist() == loop
