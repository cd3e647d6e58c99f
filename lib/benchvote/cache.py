"""A small disk cache for the book's long computations.

A result is stored under a key made of its name, the arguments that define
it, the source code of every benchvote module, the data files it may read and
the versions of numpy, scipy, pandas and torch.  Any edit to the library or
the data therefore recomputes it; nothing else does.  Results are
deterministic (every random procedure takes a seed), so a cached value is the
value a fresh computation would give.

The cache lives in the folder named by ``$BENCHVOTE_CACHE`` (the book's
Makefile sets ``.benchvote-cache/`` at the repository root, git-ignored) or,
by default, in ``benchvote`` under the user's cache folder
(``$XDG_CACHE_HOME``, else ``~/.cache``).  Set ``BENCHVOTE_CACHE=off`` to
disable it.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import pickle
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from importlib.metadata import version
from pathlib import Path
from typing import Any, TypeVar

import numpy
import pandas
import scipy

__all__ = ["cached", "cache_dir", "fingerprint", "source_of"]

T = TypeVar("T")


def cache_dir() -> Path | None:
    """Where results are stored, or None when caching is off (see the module docstring).

    Examples
    --------
    >>> import os
    >>> os.environ["BENCHVOTE_CACHE"] = "off"
    >>> cache_dir() is None
    True
    >>> del os.environ["BENCHVOTE_CACHE"]
    """
    setting = os.environ.get("BENCHVOTE_CACHE", "")
    if setting.lower() in ("off", "0", "false", "no"):
        return None
    if setting:
        return Path(setting).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "benchvote"


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """Hash of the library's source, the data tables and the numerical packages' versions."""
    h = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):  # every module, the sensitivity subpackage included
        h.update(path.relative_to(package).as_posix().encode())
        h.update(path.read_bytes())
    tables = resources.files("benchvote.tables")
    for entry in sorted(tables.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".csv"):
            h.update(entry.name.encode())
            h.update(entry.read_bytes())
    versions = [numpy.__version__, scipy.__version__, pandas.__version__]
    try:
        import torch  # a large import, needed only for its version here

        versions.append(torch.__version__)
    except ImportError:  # pragma: no cover - torch is a dependency
        versions.append("no-torch")
    try:
        versions.append(version("benchbench"))
    except Exception:  # pragma: no cover - benchbench data are optional for the cache key
        versions.append("no-benchbench")
    h.update("|".join(versions).encode())
    return h.hexdigest()[:16]


def source_of(*functions: Callable) -> str:
    """The source code of functions (e.g. defined in a notebook), to include in a cache key.

    The fingerprint covers the library; a computation defined in a notebook
    should pass its own source through ``depends`` so that editing it
    recomputes the result.

    Parameters
    ----------
    *functions : callable
        Functions whose source becomes part of a cache key.

    Examples
    --------
    >>> def f():
    ...     return 1
    >>> "return 1" in source_of(f)
    True
    """
    parts = []
    for f in functions:
        try:
            parts.append(inspect.getsource(f))
        except (OSError, TypeError):
            code = getattr(f, "__code__", None)
            parts.append(repr(code.co_code if code is not None else f))
    return "\n".join(parts)


def cached(name: str, compute: Callable[[], T], *, depends: Any = ()) -> T:
    """Return ``compute()``, reusing a stored result with the same name, dependencies, code and fingerprint.

    The key includes the source of ``compute`` itself (for a lambda, the line
    that defines it), so editing the call recomputes; functions it calls
    from outside the library must be listed in ``depends`` (see :func:`source_of`).

    Parameters
    ----------
    name : str
        A readable identifier (used in the file name).
    compute : callable
        Produces the result; it must be deterministic.
    depends : picklable
        Everything else the result depends on (parameters, seeds, inputs).

    Examples
    --------
    >>> import os, tempfile
    >>> os.environ["BENCHVOTE_CACHE"] = tempfile.mkdtemp()
    >>> cached("square", lambda: 3 * 3, depends=(3,))
    9
    >>> del os.environ["BENCHVOTE_CACHE"]
    """
    if not name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"cache names may contain letters, digits, '-' and '_' only, got {name!r}")
    folder = cache_dir()
    if folder is None:
        return compute()
    key = hashlib.sha256(pickle.dumps((name, depends, source_of(compute), fingerprint()), protocol=4)).hexdigest()[:20]
    path = folder / f"{name}-{key}.pkl"
    if path.is_file():
        with path.open("rb") as fh:
            return pickle.load(fh)
    result = compute()
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("wb") as fh:
        pickle.dump(result, fh, protocol=4)
    tmp.replace(path)
    return result
