"""benchvote.sensitivity._problem: the exact recount, the published result, the coordinate polish, torch's threads."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import benchvote as bv


class TestExactRecount:
    """The integer recount of a weighted ranking against rational arithmetic."""

    @staticmethod
    def fraction_ranks(values, weights, tol):

        w = [Fraction(float(v)) for v in weights]
        total = sum(w, Fraction(0))
        means = [sum((a * Fraction(float(x)) for a, x in zip(w, row)), Fraction(0)) / total for row in values]
        return bv.ranking.exact_midranks(means, Fraction(float(tol)))

    def test_integer_recount_matches_fractions(self):
        from hypothesis import given, settings
        from hypothesis import strategies as st

        from benchvote.sensitivity._problem import _exact_ranks

        awkward = st.sampled_from([0.0, -0.0, 0.1, 0.2, 0.3, 1 / 3, 55.55555555555556, 1e-300, 1e300, -7.25, 5e-324])
        cell = st.one_of(awkward, st.floats(-1e6, 1e6, allow_nan=False), st.integers(-3, 3).map(float))
        weight = st.one_of(st.sampled_from([1.0, 0.01, 1 / 3, 1e-9]), st.floats(1e-6, 1.0))

        @settings(max_examples=300, deadline=None)
        @given(st.integers(2, 6), st.integers(1, 5), st.data(), st.sampled_from([0.0, 1e-9, 0.1]))
        def check(m, n, data, tol):
            values = np.array(data.draw(st.lists(st.lists(cell, min_size=n, max_size=n), min_size=m, max_size=m)))
            weights = np.array(data.draw(st.lists(weight, min_size=n, max_size=n)))
            assert np.array_equal(_exact_ranks(values, weights, tol), self.fraction_ranks(values, weights, tol))

        check()


class TestFinishCardinal:
    def test_a_recount_that_meets_the_bound_is_optimal_however_the_search_ended(self):
        # before the fix: optimal required the search to have finished as well
        from benchvote.sensitivity._problem import _cardinal_setup, _finish_cardinal

        s = np.array([[3.0, 0.0], [2.0, 2.0], [0.0, 3.0]])
        prob = _cardinal_setup(s, True, 0.1, "none", bv.DEFAULT_TIE_TOLERANCE)
        count = _finish_cardinal(prob, prob.hi.copy(), "boxes").n_flipped
        stopped = _finish_cardinal(prob, prob.hi.copy(), "boxes", upper=count, stopped="work_limit")
        assert stopped.optimal and stopped.stopped == "work_limit"  # proven, and it says the budget ended it
        above = _finish_cardinal(prob, prob.hi.copy(), "boxes", upper=count + 1, stopped="work_limit")
        assert not above.optimal and above.stopped == "work_limit"


def test_relaxations_run_on_one_torch_thread_and_restore_the_callers_setting():
    torch = pytest.importorskip("torch")
    from benchvote.sensitivity._problem import RELAXATION_THREADS, _one_torch_thread

    seen = []
    probe = _one_torch_thread(lambda: seen.append(torch.get_num_threads()))
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        probe()
        bv.sensitivity.cardinal_sensitivity(np.random.default_rng(0).normal(size=(8, 3)), eps=0.1, method="relaxation")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert seen == [RELAXATION_THREADS]


@pytest.mark.parametrize("seed", range(6))
def test_coordinate_search_stops_where_no_single_weight_helps(seed):
    """The coordinate search's line search against a plain scan of every interval between thresholds.

    At the point it returns, no change of one weight inside its bounds reverses more pairs
    (each coordinate's count is checked directly at both ends, every threshold's neighbours
    and every midpoint between thresholds), and the count it reports is the direct count there.
    Rounded tables give repeated thresholds.
    """
    from benchvote.sensitivity._problem import _coordinate_polish

    rng = np.random.default_rng(seed)
    m, n = 14, 3 + seed % 3
    d = rng.normal(size=(m * (m - 1) // 2, n))
    if seed % 2 == 0:
        d = np.round(d, 1)  # ties among thresholds, zero entries
    lo, hi = np.full(n, 0.2), np.full(n, 5.0)
    a, best = _coordinate_polish(d, np.exp(rng.uniform(np.log(lo), np.log(hi))), lo, hi, rng)
    assert np.all((a >= lo) & (a <= hi))
    assert best == int((d @ a < 0).sum())
    for t in range(n):
        c = d @ a - d[:, t] * a[t]
        with np.errstate(divide="ignore", invalid="ignore"):
            cuts = -c / d[:, t]
        cuts = np.unique(np.r_[lo[t], hi[t], cuts[np.isfinite(cuts) & (cuts > lo[t]) & (cuts < hi[t])]])
        scan = np.r_[cuts, (cuts[:-1] + cuts[1:]) / 2]
        counts = ((c[:, None] + d[:, t, None] * scan[None, :]) < 0).sum(axis=0)
        assert counts.max() <= best, (t, counts.max(), best)


class TestCoordinatePolish:
    """The compiled line search of ``_coordinate_polish`` against a brute-force line search written here."""

    @staticmethod
    def brute_line_best(d, a, t, lo, hi):
        """Best count along coordinate t: every threshold, the ends and a point between every two cuts."""
        c = d @ a - d[:, t] * a[t]
        with np.errstate(divide="ignore", invalid="ignore"):
            cuts = np.unique(np.r_[lo[t], hi[t], -c[d[:, t] != 0] / d[d[:, t] != 0, t]])
        cuts = cuts[(cuts >= lo[t]) & (cuts <= hi[t])]
        points = np.r_[cuts, (cuts[:-1] + cuts[1:]) / 2]
        return max(int(((c + d[:, t] * x) < 0).sum()) for x in points)

    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(seed=st.integers(0, 10_000), m=st.integers(1, 60), n=st.integers(1, 6), zeros=st.booleans())
    def test_the_result_is_a_recount_and_no_coordinate_improves_it(self, seed, m, n, zeros):
        from benchvote.sensitivity._problem import _coordinate_polish

        rng = np.random.default_rng(seed)
        d = np.round(rng.normal(size=(m, n)) * 10.0 ** rng.integers(-3, 4, size=n), 2)
        if zeros:
            d[rng.random(d.shape) < 0.3] = 0.0
        lo = rng.uniform(0.01, 0.5, size=n)
        hi = lo + rng.uniform(0.01, 1.0, size=n)
        a0 = lo + (hi - lo) * rng.random(n)
        a, best = _coordinate_polish(d, a0, lo, hi, np.random.default_rng(seed))
        assert np.all((a >= lo) & (a <= hi))
        assert best == int(((d @ a) < 0).sum()) >= int(((d @ a0) < 0).sum())
        # a finished polish is a local maximum along every coordinate (the brute search may tie it, never beat it)
        for t in range(n):
            assert self.brute_line_best(d, a, t, lo, hi) <= best

    @settings(max_examples=200, deadline=None, derandomize=True)
    @given(seed=st.integers(0, 10_000), n_up=st.integers(0, 30), n_down=st.integers(0, 30), ties=st.booleans())
    def test_one_line_search_takes_the_first_best_of_the_documented_candidates(self, seed, n_up, n_down, ties):
        """The merged scan of ``_best_cut`` against counting every candidate directly, in the documented order.

        Candidates: both ends, then the middle of every gap between distinct cuts, increasing; ties and
        neighbouring floats (whose middle rounds onto one of them) are drawn on purpose.
        """
        from benchvote.sensitivity._problem import _best_cut

        rng = np.random.default_rng(seed)
        low, high = 0.25, 4.0
        draw = rng.choice(np.round(rng.uniform(low, high, 6), 1) if ties else rng.uniform(low, high, 60), 60)
        near = np.nextafter(draw, np.inf)  # neighbours of drawn values
        pool = np.r_[draw, near][(np.r_[draw, near] > low) & (np.r_[draw, near] < high)]
        up = np.sort(rng.choice(pool, n_up)) if len(pool) else np.empty(0)
        down = np.sort(rng.choice(pool, n_down)) if len(pool) else np.empty(0)
        fixed = int(rng.integers(0, 5))
        cuts = np.unique(np.r_[low, high, up, down])
        candidates = [low, high] + [(x + y) / 2 for x, y in zip(cuts[:-1], cuts[1:])]
        counts = [fixed + int((up > x).sum()) + int((down < x).sum()) for x in candidates]
        first = int(np.argmax(counts))
        assert _best_cut(up, down, low, high, fixed) == (counts[first], candidates[first])

    def test_the_work_budget_stops_it_and_the_seed_decides_the_order(self):
        from benchvote.sensitivity._problem import _coordinate_polish

        rng = np.random.default_rng(0)
        d = rng.normal(size=(300, 8))
        lo, hi = np.full(8, 0.05), np.ones(8)
        runs = [_coordinate_polish(d, hi.copy(), lo, hi, np.random.default_rng(4), max_steps=3) for _ in "ab"]
        assert np.array_equal(runs[0][0], runs[1][0]) and runs[0][1] == runs[1][1]
        assert int((runs[0][0] != hi).sum()) <= 3  # at most three line searches ran, so at most three weights moved
