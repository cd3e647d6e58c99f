"""Install requirement files into a venv with uv, under this machine's pip configuration.

    python scripts/uv_install.py VENV_PYTHON ARGUMENTS...

(run by an interpreter that has pip, whose configuration it reads; uv is the one beside it or in the venv).

``ARGUMENTS`` are those of ``pip install`` that uv shares (``-r file``, ``--no-deps``, ``-e .``, names).  uv
downloads and unpacks in parallel: the project's venv took 19-25 s on a clean clone (about 16 CPU seconds)
against 144 s with pip, and the Binder venv 15 s against about 2.5 minutes, in which pip alone used over two CPU
minutes (``make env`` and the Binder venv of the live tests both install this way).  uv reads none of pip's
configuration, so the options pip would take from its configuration
files and ``PIP_*`` variables (``pip config list``: find-links, index URLs, constraints, trusted hosts, the
certificate bundle) are passed on, except local paths that do not exist, which pip only warns about, and
indexes whose host does not resolve (``scripts/usable_requirements.py``).  Like pip,
uv then takes the best match across every index (``--index-strategy unsafe-best-match``), so a pinned local build
such as ``torch==2.13.0+cpu`` is found wherever pip would find it.  If uv is missing or fails, pip installs the
same arguments instead (and says so), so an install never depends on uv alone.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from usable_requirements import reachable  # noqa: E402

#: pip's options that uv takes too: uv's flag, and whether several values add up (else the strongest scope wins).
OPTIONS = {
    "find-links": ("--find-links", True),
    "extra-index-url": ("--extra-index-url", True),
    "constraint": ("--constraint", True),
    "index-url": ("--index-url", False),
    "trusted-host": ("--allow-insecure-host", True),
    "cert": ("", False),  # uv reads the certificate bundle from SSL_CERT_FILE
}
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
    for key, (_, adds) in OPTIONS.items():
        scopes = [values for values in found[key] if values]
        if adds:
            values = list(dict.fromkeys(v for scope in scopes for v in scope))
        else:
            values = scopes[-1][-1:] if scopes else []
        out[key] = values if key == "trusted-host" else [v for v in values if exists(v)]
    return out


def exists(location: str) -> bool:
    """A remote URL whose host resolves (as usable_requirements asks), or a local path or file:// URL that exists."""
    parsed = urlparse(location)
    if parsed.scheme in ("http", "https"):
        return reachable(location)
    return Path(parsed.path if parsed.scheme == "file" else location).exists()


def uv_binary(python: str) -> Path | None:
    """The uv beside this interpreter or in the target venv (``make env`` installs it there first)."""
    found = [uv for uv in (Path(sys.executable).parent / "uv", Path(python).parent / "uv") if uv.is_file()]
    return found[0] if found else None


def install(python: str, arguments: list[str], *, cwd: Path | None = None, env: dict | None = None) -> None:
    """``pip install ARGUMENTS`` into the venv of ``python``, by uv; by this interpreter's pip if uv is missing or
    fails (said on stderr), so an install never depends on uv alone.  Raises ``CalledProcessError`` when both fail.
    """
    env = {k: v for k, v in (os.environ if env is None else env).items() if k != "VIRTUAL_ENV"}
    uv = uv_binary(python)
    if uv is not None:
        config = pip_configuration()
        command = [str(uv), "pip", "install", "--python", python, "--index-strategy", "unsafe-best-match", "--quiet"]
        for key, values in config.items():
            flag = OPTIONS[key][0]
            if flag:
                command += [arg for value in values for arg in (flag, value)]
        if config["cert"] and "SSL_CERT_FILE" not in env:
            env["SSL_CERT_FILE"] = config["cert"][0]
        done = subprocess.run(command + arguments, cwd=cwd, env=env)
        if done.returncode == 0:
            return
        print(f"uv_install: uv stopped with exit status {done.returncode}; installing with pip", file=sys.stderr)
    else:
        print("uv_install: no uv found; installing with pip", file=sys.stderr)
    pip = [sys.executable, "-m", "pip", "--python", python, "install", "--quiet"]
    subprocess.run(pip + arguments, cwd=cwd, env=env, check=True)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        install(argv[0], argv[1:])
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
