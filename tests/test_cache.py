"""Tests for benchvote.cache."""

from __future__ import annotations

import pytest

from benchvote import cache


def test_reuses_results_and_respects_dependencies(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHVOTE_CACHE", str(tmp_path))
    calls = []

    def compute():
        calls.append(1)
        return {"value": len(calls)}

    assert cache.cached("thing", compute, depends=(1,)) == {"value": 1}
    assert cache.cached("thing", compute, depends=(1,)) == {"value": 1}
    assert len(calls) == 1
    assert cache.cached("thing", compute, depends=(2,)) == {"value": 2}
    assert len(list(tmp_path.glob("thing-*.pkl"))) == 2


def test_library_changes_invalidate(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHVOTE_CACHE", str(tmp_path))
    cache.cached("x", lambda: 1)
    monkeypatch.setattr(cache, "fingerprint", lambda: "something-else")
    assert cache.cached("x", lambda: 2) == 2


def test_off_always_computes(monkeypatch):
    monkeypatch.setenv("BENCHVOTE_CACHE", "off")
    assert cache.cache_dir() is None
    values = iter([1, 2])
    assert cache.cached("y", lambda: next(values)) == 1
    assert cache.cached("y", lambda: next(values)) == 2


def test_fingerprint_is_stable():
    assert cache.fingerprint() == cache.fingerprint()
    assert len(cache.fingerprint()) == 16


def test_bad_name():
    with pytest.raises(ValueError, match="cache names"):
        cache.cached("../escape", lambda: 1)
