"""Silence native solver output (HiGHS prints from C++ straight to file descriptors 1 and 2).

Used around every linear and mixed-integer program, so that ``benchvote audit --json -``
writes nothing but JSON to standard output.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import threading
from collections.abc import Iterator

__all__ = ["quiet_solver_output"]

_QUIET_LOCK = threading.Lock()
_QUIET_DEPTH = 0
_QUIET_SAVED: list[tuple[int, int]] = []


def _flush_streams() -> None:
    """Flush Python's streams and C's stdio buffers, so nothing written before (or inside) a quiet block leaks out."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a stream may be None, closed, or a stand-in without flush
            stream.flush()
    with contextlib.suppress(Exception):  # no C library to load (not Linux or macOS): nothing buffered there
        ctypes.CDLL(None).fflush(None)


def _redirect_to_devnull() -> list[tuple[int, int]]:
    """Point file descriptors 1 and 2 at /dev/null; return (fd, saved copy) for each one that was open."""
    saved: list[tuple[int, int]] = []
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return saved
    try:
        for fd in (1, 2):
            try:
                copy = os.dup(fd)
            except OSError:  # this descriptor is not open: nothing to silence
                continue
            os.dup2(devnull, fd)
            saved.append((fd, copy))
    finally:
        os.close(devnull)
    return saved


def _restore(saved: list[tuple[int, int]]) -> None:
    for fd, copy in reversed(saved):
        os.dup2(copy, fd)
        os.close(copy)


@contextlib.contextmanager
def quiet_solver_output() -> Iterator[None]:
    """Discard what native code (HiGHS, from C++) writes to file descriptors 1 and 2 while the block runs.

    Python's streams and C's stdio are flushed first, so earlier output keeps
    its place; the descriptors are restored on the way out, also after an
    exception.  Nested and concurrent blocks share one redirection (the
    outermost restores it).  Descriptors that are not open are left alone.
    """
    global _QUIET_DEPTH, _QUIET_SAVED
    with _QUIET_LOCK:
        if _QUIET_DEPTH == 0:
            _flush_streams()
            _QUIET_SAVED = _redirect_to_devnull()
        _QUIET_DEPTH += 1
    try:
        yield
    finally:
        with _QUIET_LOCK:
            _QUIET_DEPTH -= 1
            if _QUIET_DEPTH == 0:
                _flush_streams()
                _restore(_QUIET_SAVED)
                _QUIET_SAVED = []
