"""Installs that work on any machine: torch's CPU build everywhere, no CUDA package in any resolution.

The static tests read the requirement files; the resolution tests ask pip what it would install
(``pip install --dry-run --report`` in a fresh venv, read as JSON) for the book's requirements and for Binder's.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CPU_INDEX = "--extra-index-url https://download.pytorch.org/whl/cpu"
PINNED = ["requirements.txt", "requirements-binder.txt"]
CUDA = re.compile(r"^(nvidia-|cuda-|cupy|triton$|torch-cuda)", re.IGNORECASE)

sys.path.insert(0, str(ROOT / "scripts"))
from usable_requirements import usable  # noqa: E402


def _requirement_lines(name: str) -> list[str]:
    return [ln.split("#")[0].strip() for ln in (ROOT / name).read_text().splitlines() if ln.split("#")[0].strip()]


@pytest.mark.parametrize("name", PINNED + ["requirements.in", "requirements-binder.in"])
def test_torch_is_the_cpu_build_on_linux_and_windows(name):
    lines = _requirement_lines(name)
    assert CPU_INDEX in lines, f"{name} does not name PyTorch's CPU index"
    torch = sorted(ln for ln in lines if re.match(r"torch\b", ln))
    assert torch == ['torch==2.13.0 ; sys_platform == "darwin"', 'torch==2.13.0+cpu ; sys_platform != "darwin"']
    assert not [ln for ln in lines if CUDA.match(ln)]


@pytest.mark.parametrize("name", PINNED)
def test_pinned_files_pin_every_package(name):
    for line in _requirement_lines(name):
        if line.startswith("-"):
            continue
        assert re.match(r"^[A-Za-z0-9_.\-\[\]]+==[^=]+", line), f"{name}: not an exact pin: {line}"


def test_binder_installs_the_binder_pins_and_the_cpu_index():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    (pip,) = [d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d]
    assert pip == [CPU_INDEX, "-r requirements-binder.txt", "-e ."]
    binder = {ln.split("==")[0].lower() for ln in _requirement_lines("requirements-binder.txt")}
    for tool in ("pytest", "hypothesis", "playwright", "pref-voting", "jupyter-book", "sphinx-book-theme"):
        assert tool not in binder


def test_usable_requirements_drops_only_unreachable_index_options():
    lines = ["--extra-index-url https://unreachable.invalid/simple\n", "--find-links /opt/wheels\n", "numpy==2.0\n"]
    assert usable(lines) == lines[1:]
    inlined = usable(["-r requirements-binder.txt\n", "-e .\n"], ROOT)
    assert "-e .\n" in inlined and any(ln.startswith("jupyterlab==") for ln in inlined)
    assert not [ln for ln in inlined if "unreachable" in ln or ln.startswith("-r")]


@pytest.mark.live
@pytest.mark.slow
@pytest.mark.parametrize("name", PINNED)
def test_resolution_contains_no_cuda_package(name, tmp_path):
    """What pip would install from the pinned file in a fresh venv: torch's CPU build and nothing from CUDA."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("".join(usable((ROOT / name).read_text().splitlines(keepends=True), ROOT)))
    report = tmp_path / "report.json"
    # the venv's interpreter drives this interpreter's pip: a fresh environment, nothing installed
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "--dry-run",
            "--ignore-installed",
            "--quiet",
            "--report",
            str(report),
            "-r",
            str(requirements),
        ],
        check=True,
        cwd=ROOT,
    )
    installs = json.loads(report.read_text())["install"]
    names = {item["metadata"]["name"].lower(): item["metadata"]["version"] for item in installs}
    assert names.get("torch", "").endswith("+cpu"), names.get("torch")
    assert not [n for n in names if CUDA.match(n)], sorted(n for n in names if CUDA.match(n))
    assert len(names) >= (120 if name == "requirements-binder.txt" else 140)


def test_no_file_names_a_repository_address():
    """The launch and repository buttons read the address at build time (book/_ext/repolinks.py); no file names one."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert not config["repository"]["url"], "_config.yml names a repository: the build reads git's origin"
    assert config["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    sources = [ROOT / "README.md", ROOT / "CITATION.cff", ROOT / "environment.yml"]
    sources += sorted((ROOT / "book").glob("*.md"))
    code = [p for p in sorted((ROOT / "lib" / "benchvote").rglob("*.py")) if p.name != "_repository.py"]  # examples
    for path in sources + code:
        found = re.findall(r"https://git(?:hub|lab)\.com/[\w.\-]+/[\w.\-]+", path.read_text())
        assert not found, f"{path.name} names {found}: links to the repository come from benchvote._repository"
    assert "BENCHVOTE_REPOSITORY" in (ROOT / "README.md").read_text()
