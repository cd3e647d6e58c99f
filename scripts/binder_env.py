"""Build, or reuse, the venv with exactly what Binder installs: the pip section of environment.yml.

    python scripts/binder_env.py

The venv lives in ``_build/binder-venv`` and is rebuilt only when an environment file changes (a fingerprint
of them is kept in the venv).  ``tests/test_binder.py`` calls :func:`ensure` before it runs ``postBuild`` and
starts JupyterLab; ``make test`` runs this script beside the book build, so that the two overlap.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
VENV = BUILD / "binder-venv"
ENV_FILES = ["environment.yml", "postBuild", "requirements-binder.txt", "requirements-data.txt", "pyproject.toml"]

sys.path.insert(0, str(ROOT / "scripts"))
from usable_requirements import usable  # noqa: E402
from uv_install import install  # noqa: E402


def binder_pip_lines() -> list[str]:
    """The pip section of environment.yml, one requirements-file line per entry."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    (pip,) = [d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d]
    lines = []
    for entry in pip:
        option, _, value = str(entry).partition(" ")
        if option in ("-r", "-e"):  # paths in environment.yml are relative to the repository
            entry = f"{option} {(ROOT / value).resolve()}"
        lines.append(f"{entry}\n")
    return lines


def fingerprint() -> str:
    h = hashlib.sha256()
    for name in ENV_FILES:
        h.update((ROOT / name).read_bytes())
    return h.hexdigest()


def ensure(env: dict | None = None) -> Path:
    """The venv, built from the pip section of environment.yml unless an up-to-date one exists."""
    env = dict(os.environ if env is None else env, PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("VIRTUAL_ENV", None)
    stamp = VENV / ".fingerprint"
    if not (stamp.is_file() and stamp.read_text() == fingerprint()):
        shutil.rmtree(VENV, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(VENV)], check=True)
        requirements = BUILD / "binder-requirements.txt"
        requirements.write_text("".join(usable(binder_pip_lines(), ROOT)))
        # uv installs what pip would (scripts/uv_install.py), and pip itself, which postBuild runs
        python = str(VENV / "bin" / "python")
        install(python, ["pip", "-r", str(requirements)], cwd=ROOT, env=env)
        stamp.write_text(fingerprint())
    return VENV


if __name__ == "__main__":
    BUILD.mkdir(exist_ok=True)
    print(f"Binder venv ready: {ensure()}")
