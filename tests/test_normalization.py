"""Tests for benchvote.normalization."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import score_tables
from hypothesis import given

from benchvote import dynamic_range, min_max, random_baseline, rank


class TestDynamicRange:
    @given(score_tables(ties=False))
    def test_preserves_every_task_ranking(self, table):
        lo = table.min(axis=0) - 1.0
        hi = table.max(axis=0) + 2.0
        assert np.array_equal(rank(dynamic_range(table, low=lo, high=hi), tol=0), rank(table, tol=0))

    @given(score_tables(ties=False))
    def test_lower_is_better_tasks_come_out_higher_is_better(self, table):
        # negating a task and declaring it lower-is-better gives the same normalised table
        n = table.shape[1]
        flip = np.arange(n) % 2 == 1
        lo, hi = table.min(axis=0) - 1.0, table.max(axis=0) + 2.0
        signed = np.where(flip, -table, table)
        out = dynamic_range(signed, ~flip, low=np.where(flip, -lo, lo), high=np.where(flip, -hi, hi))
        assert np.allclose(out, dynamic_range(table, low=lo, high=hi))
        assert np.allclose(min_max(signed, ~flip), min_max(table))

    def test_formula(self):
        out = dynamic_range([[0.25, 10.0], [1.0, 20.0]], low=[0.25, 0.0], high=[1.0, 40.0])
        assert np.allclose(out, [[0.0, 25.0], [100.0, 50.0]])

    def test_series_parameters_align_by_task(self):
        df = pd.DataFrame({"a": [50.0, 100.0], "b": [0.0, 1.0]})
        out = dynamic_range(df, low=pd.Series({"b": 0.0, "a": 50.0}), high=pd.Series({"a": 100.0, "b": 1.0}))
        assert np.allclose(out.to_numpy(), [[0, 0], [100, 100]])

    def test_bad_input(self):
        with pytest.raises(ValueError, match="better than low"):
            dynamic_range([[1.0], [2.0]], low=1.0, high=1.0)
        with pytest.raises(ValueError, match="better than low"):
            dynamic_range([[1.0], [2.0]], False, low=0.0, high=10.0)
        with pytest.raises(ValueError, match="one entry per task"):
            dynamic_range([[1.0, 2.0], [2.0, 3.0]], low=[0.0], high=[1.0, 1.0])
        with pytest.raises(ValueError, match="no entry"):
            dynamic_range(pd.DataFrame({"a": [1.0, 2.0]}), low=pd.Series({"b": 0.0}), high=10.0)


class TestRandomBaseline:
    def test_chance_maps_to_zero_and_clip(self):
        out = random_baseline([[25.0], [20.0], [100.0]], baseline=25.0)
        assert np.allclose(out[:, 0], [0.0, -20 / 3, 100.0])
        clipped = random_baseline([[25.0], [20.0], [100.0]], baseline=25.0, clip=True)
        assert np.allclose(clipped[:, 0], [0.0, 0.0, 100.0])

    def test_can_change_the_mean_ranking(self):
        # A leads the raw mean; B's lead on the two-way task is worth more once chance is removed
        s = np.array([[60.0, 40.0], [70.0, 28.0]])
        assert s.mean(axis=1).argmax() == 0
        norm = random_baseline(s, baseline=[50.0, 25.0])
        assert np.allclose(norm, [[20.0, 20.0], [40.0, 4.0]])
        assert norm.mean(axis=1).argmax() == 1


class TestMinMax:
    def test_range(self):
        out = min_max([[1.0, 5.0], [3.0, 7.0], [2.0, 6.0]])
        assert np.allclose(out.min(axis=0), 0) and np.allclose(out.max(axis=0), 100)

    def test_constant_task_refused(self):
        with pytest.raises(ValueError, match="constant"):
            min_max([[1.0, 2.0], [1.0, 3.0]])
