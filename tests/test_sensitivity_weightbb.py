"""benchvote.sensitivity._weightbb: the weight-space branch and bound with the clique-LP bound (``method="cliques"``).

Every certificate against the exhaustive oracles of sensitivity_oracles.py (the arrangement sweep for n <= 3,
the depth-first exact-LP oracle for any n), on small tables, mixed scales included.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sensitivity_oracles import (
    arrangement_oracle,
    check_cardinal_verdicts,
    has_constant_task,
    lp_cardinal_oracle,
    mixed_scale_tables,
    random_cardinal,
    small_boards,
)

from benchvote.sensitivity import cardinal_sensitivity, cardinal_sensitivity_exact
from benchvote.sensitivity._cliques import ensure_compiled

ensure_compiled()


class TestAgainstTheArrangement:
    """Hundreds of small tables: never a bound below the true maximum, never optimal when it is not."""

    @settings(max_examples=250, deadline=None, derandomize=True)
    @given(small_boards(), st.sampled_from([1, 2, 3000]))
    def test_bounds_and_proofs(self, board, work):
        s, eps, normalize = board
        if has_constant_task(s):
            return
        truth = arrangement_oracle(s, eps, normalize)
        r = cardinal_sensitivity_exact(s, eps=eps, normalize=normalize, method="cliques", work_limit=work)
        pairs = comb(len(s), 2)
        assert r.n_flipped <= truth <= round(r.upper_bound * pairs)
        assert r.optimal == (r.n_flipped == round(r.upper_bound * pairs))
        if r.optimal:
            assert r.n_flipped == truth
        if work == 3000:  # the full search finishes on these tables
            assert r.optimal and r.stopped == ""


class TestMixedScales:
    """Columns of units from 1e-6 to 1e10 (latencies, parameter counts, rescaled accuracies), up to 4 tasks."""

    @pytest.mark.parametrize("normalize", ["none", "zscore"])
    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(board=mixed_scale_tables(max_models=5), eps=st.sampled_from([None, None, 0.01, 1e-4, 0.1, 0.5]))
    def test_against_the_exhaustive_oracle(self, normalize, board, eps):
        s, hib = board
        for work in (1, 3000):
            r = cardinal_sensitivity_exact(s, hib, eps=eps, normalize=normalize, method="cliques", work_limit=work)
            check_cardinal_verdicts(s, hib, r, normalize, eps)

    @pytest.mark.parametrize("seed", range(6))
    def test_root_bound_on_six_tasks_against_the_lp_oracle(self, seed):
        """More tasks than the arrangement handles: the root's bound and the full search against the LP oracle."""
        s = random_cardinal(100 + seed, m=6, n=6)
        truth = lp_cardinal_oracle(s, 0.05)
        for work in (1, 3000):
            r = cardinal_sensitivity_exact(s, eps=0.05, method="cliques", work_limit=work)
            assert r.n_flipped <= truth <= round(r.upper_bound * comb(6, 2))
            assert not r.optimal or r.n_flipped == truth


class TestSearch:
    def test_same_numbers_on_every_run(self):
        s = random_cardinal(7, m=14, n=12)
        runs = [cardinal_sensitivity_exact(s, eps=0.05, method="cliques", work_limit=40) for _ in range(2)]
        assert [(r.n_flipped, r.upper_bound, r.work, r.stopped) for r in runs] == [
            (runs[0].n_flipped, runs[0].upper_bound, runs[0].work, runs[0].stopped)
        ] * 2
        assert np.array_equal(runs[0].weights, runs[1].weights)

    def test_a_work_limit_stops_it_with_a_bound(self):
        s = random_cardinal(8, m=14, n=12)
        r = cardinal_sensitivity_exact(s, eps=0.05, method="cliques", work_limit=1)
        assert r.work == 1 and r.upper_bound >= r.tau_distance
        assert r.optimal or r.stopped == "work_limit"

    def test_auto_attaches_the_root_bound_beyond_ten_tasks(self):
        s = random_cardinal(13, m=8, n=12)
        auto = cardinal_sensitivity(s, eps=0.05, restarts=4, steps=30, polish_starts=4)
        root = cardinal_sensitivity_exact(s, eps=0.05, method="cliques", work_limit=1)
        assert auto.upper_bound is not None and auto.tau_distance <= auto.upper_bound
        assert auto.optimal == (auto.tau_distance >= auto.upper_bound)
        assert auto.n_flipped >= root.n_flipped
