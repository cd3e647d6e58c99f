"""benchvote.sensitivity._boxes: the compiled box kernels against exact rational arithmetic."""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
import pytest
from sensitivity_oracles import brute_cardinal, random_cardinal

from benchvote.sensitivity import cardinal_sensitivity_exact


class TestBoxKernels:
    @pytest.mark.parametrize("seed", range(4))
    def test_halving_updates_are_sound(self, seed):
        # the box kernels against exact rational arithmetic, on pairs whose hyperplanes touch a corner of
        # the box (within float64 rounding): every box on a random path of J_MAX + 4 halvings (so the
        # values are recomputed from the box's ends once on the way) must keep a pair that can satisfy the
        # condition in it reachable, and may call it reversed everywhere only when it is

        from benchvote.sensitivity._boxes import J_MAX, box_margins, evaluate_boxes, halve_boxes

        rng = np.random.default_rng(seed)
        n, k = 3 + seed, 120
        hi = np.full(n, 1.0 + seed)
        lo = 0.01 * hi
        box_lo = rng.uniform(0.01, 0.3, size=n) * hi
        box_hi = box_lo + rng.uniform(0.3, 0.6, size=n) * hi
        d = rng.normal(scale=10.0 ** rng.integers(-3, 3, size=(k, 1)), size=(k, n))
        d[:, 0] = np.abs(d[:, 0]) + 0.1  # a positive first entry to move the hyperplane
        corner = np.where(d > 0, box_lo, box_hi)
        tangent = rng.random(k) < 0.5  # these rows have their smallest value over the box at about zero
        d[tangent, 0] -= (d[tangent] * corner[tangent]).sum(axis=1) / corner[tangent, 0]
        d[tangent, 0] = np.maximum(d[tangent, 0], 1e-3)
        margin = box_margins(d, np.zeros(k), hi)
        assert (box_lo >= lo).all() and (box_hi <= hi).all()

        def exact(p, b_lo, b_hi):
            dv = [Fraction(v) for v in d[p]]
            low = sum(v * Fraction(b_lo[t] if v > 0 else b_hi[t]) for t, v in enumerate(dv))
            high = sum(v * Fraction(b_hi[t] if v > 0 else b_lo[t]) for t, v in enumerate(dv))
            return low, high

        d_cols, d_abs = np.ascontiguousarray(d.T), np.abs(d)
        near = 0
        for p in range(k):  # one pair at a time, so that its box's counts say how it was classified
            one = np.array([p], dtype=np.int32)
            b_lo, b_hi = box_lo[None].copy(), box_hi[None].copy()
            bound, base, _, split, off, pk, low, high = evaluate_boxes(
                d, d_abs, margin, b_lo, b_hi, np.zeros(1, dtype=np.int64), one, 64
            )
            updates = np.zeros(1, dtype=np.int64)
            for _ in range(J_MAX + 4):
                e_low, e_high = exact(p, b_lo[0], b_hi[0])
                near += abs(float(e_low)) < 1e-9
                if e_low < 0:
                    assert bound[0] == 1, (p, float(e_low))  # reachable
                if base[0] == 1:
                    assert e_high < 0  # reversed everywhere in the box
                if len(pk) == 0:  # settled: nothing left to halve on this path
                    break
                split = rng.integers(0, n, size=1)
                out = halve_boxes(
                    d, d_cols, d_abs, margin, b_lo, b_hi, base, bound, split, updates, off, pk, low, high, -1, 64
                )
                c_lo, c_hi, c_base, c_bound, _, _, c_upd, c_off, c_pk, c_low, c_high, stuck = out
                assert stuck == -1 and len(c_lo) == 2  # best = -1 keeps both children
                side = int(rng.integers(0, 2))
                b_lo, b_hi = c_lo[side : side + 1].copy(), c_hi[side : side + 1].copy()
                bound, base, updates = c_bound[side : side + 1], c_base[side : side + 1], c_upd[side : side + 1]
                start, stop = c_off[side], c_off[side + 1]
                pk, low, high = c_pk[start:stop].copy(), c_low[start:stop].copy(), c_high[start:stop].copy()
                off = np.array([0, stop - start], dtype=np.int64)
                for q, pair in enumerate(pk):  # the carried values stay within the margin of the exact ones
                    e_low, e_high = exact(int(pair), b_lo[0], b_hi[0])
                    assert abs(float(e_low) - low[q]) <= margin[pair] and abs(float(e_high) - high[q]) <= margin[pair]
        assert near > 0  # the tangent rows are really close to their hyperplanes on some boxes

    def test_a_box_too_narrow_to_halve_stays_open(self):
        from benchvote.sensitivity._boxes import box_margins, evaluate_boxes, halve_boxes

        d = np.array([[1.0, -1.0], [-1.0, 1.0], [2.0, -1.0]])
        hi = np.ones(2)
        margin = box_margins(d, np.zeros(3), hi)
        b_lo, b_hi = np.array([[0.5, 0.25]]), np.array([[0.5, 1.0]])  # no width along weight 0
        bound, base, _, _, off, pk, low, high = evaluate_boxes(
            d, np.abs(d), margin, b_lo, b_hi, np.zeros(1, dtype=np.int64), np.arange(3, dtype=np.int32), 64
        )
        assert bound[0] == 3 and base[0] == 0  # every pair can satisfy its condition somewhere in the box
        out = halve_boxes(
            d,
            d.T.copy(),
            np.abs(d),
            margin,
            b_lo,
            b_hi,
            base,
            bound,
            np.zeros(1, dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            off,
            pk,
            low,
            high,
            0,
            64,
        )
        assert len(out[0]) == 0 and out[-1] == 3  # no children; its bound is reported as still open

    def test_compiling_the_kernels_is_not_charged_to_the_time_limit(self, monkeypatch):
        # a slow first compilation must neither stop the search nor enter its time; the compilation is simulated
        # on a clock of its own (it moves the clock 1,000 s forward), so no wall-clock margin decides the test
        from benchvote.sensitivity import _boxes

        offset = [0.0]
        real_clock = time.perf_counter

        def slow_compile():
            offset[0] += 1000.0

        _boxes.ensure_compiled()  # the real kernels, loaded before the clock matters
        s = random_cardinal(5, n=3)
        # the other compiled helpers of the search (the recount, the polish) too: alone in a fresh process with
        # numba's cache cold, their first compilation took 30 s on a loaded machine and stopped the search
        cardinal_sensitivity_exact(s, eps=0.05, method="boxes")
        monkeypatch.setattr(_boxes, "ensure_compiled", slow_compile)
        monkeypatch.setattr(time, "perf_counter", lambda: real_clock() + offset[0])
        r = cardinal_sensitivity_exact(s, eps=0.05, method="boxes", time_limit=100.0)
        assert offset[0] == 1000.0  # the compilation ran, inside the timed call
        assert r.optimal and r.n_flipped == brute_cardinal(s, 0.05) and r.stopped == ""
        assert r.seconds < 100.0  # charged, the 1,000 s would have stopped the search and show here
