"""Where the project lives: the one place that decides the repository address of links.

The book's launch (Binder) and repository buttons, the audit report's links to
the chapters and the command's bug-report address all point at the repository
the code comes from.  That address is, in this order:

1. the environment variable ``BENCHVOTE_REPOSITORY`` (an empty value means
   "none", so a build can leave every such link out on purpose);
2. git's ``origin`` remote of the checkout that holds this package (a clone, an
   editable install, or the book build of a clone);
3. none: the links are left out rather than pointing at a repository that may
   not exist.

A remote is accepted as an ``https://host/owner/name`` address, or in the
``git@host:owner/name`` and ``ssh://git@host/owner/name`` forms, which are
rewritten to https; a local path or any other form counts as none.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

#: The environment variable that overrides the repository address (empty: no repository).
ENV = "BENCHVOTE_REPOSITORY"

#: The checkout that holds the package when it is run from a clone (``<root>/lib/benchvote``).
CHECKOUT = Path(__file__).resolve().parents[2]

_HOST = r"[A-Za-z0-9.-]+\.[A-Za-z]{2,}"
_PATH = r"[\w.-]+/[\w.-]+?"
_FORMS = [
    re.compile(rf"^https?://(?:[^@/]+@)?(?P<host>{_HOST})/(?P<path>{_PATH})(?:\.git)?/?$"),
    re.compile(rf"^ssh://git@(?P<host>{_HOST})(?::\d+)?/(?P<path>{_PATH})(?:\.git)?/?$"),
    re.compile(rf"^git@(?P<host>{_HOST}):(?P<path>{_PATH})(?:\.git)?/?$"),
]


def web_address(remote: str) -> str | None:
    """The https address of a git remote, or None when it has no web address.

    >>> web_address("git@github.com:someone/benchvote.git")
    'https://github.com/someone/benchvote'
    >>> web_address("https://token@gitlab.com/group/project.git/")
    'https://gitlab.com/group/project'
    >>> web_address("/srv/git/benchvote.git") is None
    True
    """
    remote = remote.strip()
    for form in _FORMS:
        match = form.match(remote)
        if match:
            return f"https://{match['host']}/{match['path']}"
    return None


def origin_remote(checkout: Path) -> str | None:
    """The url of git's ``origin`` remote of ``checkout``, or None (no git, no repository, no origin)."""
    if not (checkout / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(checkout), "remote", "get-url", "origin"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def repository_url(environ: Mapping[str, str] | None = None, checkout: Path | None = None) -> str | None:
    """The web address of the project's repository, or None when there is none to link to.

    Parameters
    ----------
    environ : mapping, optional
        The environment to read ``BENCHVOTE_REPOSITORY`` from (default: ``os.environ``).
    checkout : Path, optional
        The checkout whose ``origin`` remote is read (default: the one holding this package).
    """
    env = os.environ if environ is None else environ
    if ENV in env:
        return web_address(env[ENV]) if env[ENV].strip() else None
    return _origin_address(CHECKOUT if checkout is None else checkout)


@functools.lru_cache(maxsize=8)
def _origin_address(checkout: Path) -> str | None:
    remote = origin_remote(checkout)
    return None if remote is None else web_address(remote)
