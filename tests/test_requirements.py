"""Installs that work on any machine: torch's CPU build everywhere, no CUDA package in any resolution.

The static tests read the requirement files; the resolution tests read what pip resolved and installed from
them: the project's venv (``make env``) and Binder's (``scripts/binder_env.py``), both built by ``make test``.
"""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

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


#: The venv pip built from each pinned file: ``make env`` (the project's) and ``scripts/binder_env.py`` (Binder's).
VENVS = {"requirements.txt": ROOT / ".venv", "requirements-binder.txt": ROOT / "_build" / "binder-venv"}
#: Installed beside the pins: the project itself, the data package installed without dependencies, the installers
#: (pip, and uv, which ``make env`` installs first and which installs the rest: ``scripts/uv_install.py``).
UNPINNED = {"benchvote", "benchbench", "pip", "setuptools", "wheel", "uv"}


def _installed(venv: Path) -> dict[str, str]:
    """Name -> version of every distribution installed in the venv, read from its site-packages."""
    (site,) = venv.glob("lib/python3*/site-packages")
    return {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions(path=[str(site)])}


def _pins(name: str) -> dict[str, str]:
    """Name -> pinned version of every line of the file that applies to this machine (its marker holds)."""
    pins = {}
    for line in _requirement_lines(name):
        if line.startswith("-"):
            continue
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate():
            pins[canonicalize_name(req.name)] = str(req.specifier).removeprefix("==")
    return pins


@pytest.mark.live
@pytest.mark.slow
@pytest.mark.parametrize("name", PINNED)
def test_resolution_contains_no_cuda_package(name):
    """What pip resolved and installed from the pinned file (``make test`` builds both venvs before the live
    tests): exactly the pins, torch's CPU build, nothing from CUDA."""
    venv = VENVS[name]
    if not (venv / "bin" / "python").is_file():
        pytest.fail(f"{venv} is missing: `make env` builds .venv, `python scripts/binder_env.py` the Binder venv")
    installed = _installed(venv)
    assert installed.get("torch", "").endswith("+cpu"), installed.get("torch")
    assert not [n for n in installed if CUDA.match(n)], sorted(n for n in installed if CUDA.match(n))
    pins = _pins(name)
    unpinned = sorted(set(installed) - set(pins) - UNPINNED)
    assert not unpinned, f"{name} does not pin what pip installed beside it: {unpinned}"
    wrong = sorted(f"{n} {installed[n]} (pinned {v})" for n, v in pins.items() if installed.get(n, v) != v)
    assert not wrong, f"pip installed other versions than {name} pins: {wrong}"
