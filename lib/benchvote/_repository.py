"""Where the project lives: the one place that decides the repository address of links.

The command's bug-report address points at the repository named by the
environment variable ``BENCHVOTE_REPOSITORY``; without it (or with an empty
value) the message names no address rather than one that may not exist.  The
book build sets the variable from git's ``origin`` remote of the checkout
(``book/_ext/repolinks.py``, which also sets the book's launch and repository
buttons from it).  The audit report links the book's chapters only through
``--book-url``.

A remote is accepted as an ``https://host/owner/name`` address, or in the
``git@host:owner/name`` and ``ssh://git@host/owner/name`` forms, which are
rewritten to https; a local path or any other form counts as none.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

#: The environment variable that names the repository (empty or unset: no repository, no links).
ENV = "BENCHVOTE_REPOSITORY"

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


def repository_url(environ: Mapping[str, str] | None = None) -> str | None:
    """The web address of the project's repository, or None when there is none to link to.

    Parameters
    ----------
    environ : mapping, optional
        The environment to read ``BENCHVOTE_REPOSITORY`` from (default: ``os.environ``).

    >>> repository_url({"BENCHVOTE_REPOSITORY": "git@github.com:someone/fork.git"})
    'https://github.com/someone/fork'
    >>> repository_url({}) is None and repository_url({"BENCHVOTE_REPOSITORY": ""}) is None
    True
    """
    env = os.environ if environ is None else environ
    return web_address(env.get(ENV, ""))
