"""Lint the chapters through their jupytext form: each MyST notebook becomes a py:percent script on stdin.

    python scripts/lint_notebooks.py notebooks/*.md

ruff sees the script under the name notebooks/<chapter>.py, so the per-file settings for notebooks in
pyproject.toml apply (prose as long comment lines, imports in later cells, bare expressions that display).
Nothing is written to disk.  Exits with ruff's status: 0 when every chapter is clean.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import jupytext


def main(paths: list[str]) -> int:
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    status = 0
    for name in paths:
        path = Path(name)
        script = jupytext.writes(jupytext.read(path), fmt="py:percent")
        done = subprocess.run(
            [ruff, "check", "--output-format", "concise", "--stdin-filename", f"notebooks/{path.stem}.py", "-"],
            input=script,
            text=True,
            capture_output=True,
        )
        if done.returncode:
            print(f"{path}: (lines refer to `jupytext --to py:percent {path}`)")
            print(done.stdout.strip())
            status = done.returncode
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
