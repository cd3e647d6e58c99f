"""Install requirement files into a venv with uv, under this machine's pip configuration.

    python scripts/uv_install.py VENV_PYTHON ARGUMENTS...

(run by an interpreter that has pip, whose configuration it reads; uv is the one beside it or in the venv).

``ARGUMENTS`` are those of ``pip install`` that uv shares (``-r file``, ``--no-deps``, ``-e .``, names).  uv
downloads and unpacks in parallel: the project's venv took about 25 s on a fresh machine against about
2.5 minutes with pip, and a tenth of pip's CPU time (``make env`` and the Binder venv of the live tests both
install this way).  uv reads none of pip's configuration, so the options pip would take from its configuration
files and ``PIP_*`` variables (``pip config list``: find-links, index URLs, constraints) are passed on, except
local paths that do not exist, which pip only warns about.  Like pip, uv then takes the best match across every
index (``--index-strategy unsafe-best-match``), so a pinned local build such as ``torch==2.13.0+cpu`` is found
wherever pip would find it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

#: pip's options that uv takes too, and whether several values add up (the others: the last scope wins).
OPTIONS = {"find-links": True, "extra-index-url": True, "constraint": True, "index-url": False}
#: pip's scopes, weakest first (``pip config list`` prints ``scope.key='value'``; ``:env:`` is PIP_* variables).
SCOPES = ("global", "user", "site", ":env:")


def pip_configuration() -> dict[str, list[str]]:
    """The values of :data:`OPTIONS` in pip's configuration (``pip config list`` of this interpreter's pip)."""
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    found: dict[str, list[list[str]]] = {key: [[] for _ in SCOPES] for key in OPTIONS}
    for line in listed:
        name, _, value = line.partition("=")
        scope, _, key = name.rpartition(".")
        if key in OPTIONS and scope in SCOPES:
            found[key][SCOPES.index(scope)] += shlex.split(value.strip().strip("'\""))
    out = {}
    for key, adds in OPTIONS.items():
        scopes = [values for values in found[key] if values]
        if adds:
            values = list(dict.fromkeys(v for scope in scopes for v in scope))
        else:
            values = scopes[-1][-1:] if scopes else []
        out[key] = [v for v in values if exists(v)]
    return out


def exists(location: str) -> bool:
    """A remote URL, or a local path (or file:// URL) that exists."""
    parsed = urlparse(location)
    if parsed.scheme in ("http", "https"):
        return True
    return Path(parsed.path if parsed.scheme == "file" else location).exists()


def command(python: str, arguments: list[str]) -> list[str]:
    """uv's command line: the uv beside this interpreter or in the target venv (``make env`` puts it there)."""
    found = [uv for uv in (Path(sys.executable).parent / "uv", Path(python).parent / "uv") if uv.is_file()]
    out = [str(found[0]) if found else "uv", "pip", "install", "--python", python]
    out += ["--index-strategy", "unsafe-best-match", "--quiet"]
    for key, values in pip_configuration().items():
        for value in values:
            out += [f"--{key}", value]
    return out + arguments


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    python, arguments = argv[0], argv[1:]
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    return subprocess.run(command(python, arguments), env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
