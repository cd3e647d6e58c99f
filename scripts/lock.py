"""Pin a requirements.in file: install it into a fresh venv, freeze, keep torch's CPU build and the CPU index.

    python scripts/lock.py requirements.in requirements.txt
    python scripts/lock.py requirements-binder.in requirements-binder.txt

``pip freeze`` prints ``torch==2.13.0+cpu``; the pinned file gets the two platform lines of the .in file instead
(the CPU build on Linux and Windows, PyPI's wheel on macOS) and the ``--extra-index-url`` line that serves the
CPU build, so that no resolution of the pinned file can pull a CUDA build.  Prints the install time and size.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from usable_requirements import usable  # noqa: E402


def main(source: str, target: str) -> int:
    lines = Path(source).read_text(encoding="utf-8").splitlines(keepends=True)
    index_lines = [ln.strip() for ln in lines if ln.startswith(("--extra-index-url", "--index-url"))]
    torch_lines = [ln.split("#")[0].strip() for ln in lines if ln.startswith("torch")]
    venv = Path(tempfile.mkdtemp(prefix="benchvote-lock-")) / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip"]
    subprocess.run(pip + ["install", "--quiet", "--upgrade", "pip"], check=True)
    usable_file = venv.parent / "requirements.in"
    usable_file.write_text("".join(usable(lines, Path(source).resolve().parent)), encoding="utf-8")
    start = time.perf_counter()
    subprocess.run(pip + ["install", "--quiet", "-r", str(usable_file)], check=True)
    seconds = time.perf_counter() - start
    frozen = subprocess.run(
        pip + ["freeze", "--exclude-editable"], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    size = sum(f.stat().st_size for f in venv.rglob("*") if f.is_file()) / 2**20
    body = [ln for ln in frozen if not ln.lower().startswith("torch==")]
    header = [
        f"# Generated from {source} by 'make lock' (pip freeze in a fresh venv, Python 3.11). Do not edit by hand.",
        "# torch: PyTorch's CPU build on Linux and Windows (from the index below), PyPI's wheel (CPU) on macOS.",
        *index_lines,
    ]
    Path(target).write_text("\n".join(header + sorted(body + torch_lines, key=str.lower)) + "\n", encoding="utf-8")
    print(f"{target}: {len(body) + 1} packages, install {seconds:.0f} s, venv {size:.0f} MiB")
    shutil.rmtree(venv.parent)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: lock.py REQUIREMENTS_IN REQUIREMENTS_TXT", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
