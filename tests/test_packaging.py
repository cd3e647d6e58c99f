"""The library as a user gets it: a wheel installed into a clean venv, used from a folder outside the checkout.

The venv has no torch, matplotlib, ipywidgets or benchbench (they are extras): the core must work without them,
the tables must come from the wheel, and the README's example must run as printed.
"""

from __future__ import annotations

import ast
import email.parser
import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import benchvote as bv
from benchvote import data

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory):
    """A fresh venv with the wheel built from this checkout and nothing else but its declared dependencies.

    The wheel is installed by pip (``--no-deps``); its dependencies are the distributions that the wheel's
    ``Requires-Dist`` names, and theirs in turn (markers evaluated, no extras), taken at the test venv's exact
    versions and linked into the clean venv's site-packages, so that no download and no unpacking is needed
    (resolving and installing them from the index took about a minute).  ``pip check`` then proves that the
    clean venv satisfies every requirement of the wheel and of each dependency.  How the pinned files resolve
    from the index is tested by test_requirements.py.
    """
    work = tmp_path_factory.mktemp("wheel")
    wheels = work / "wheels"
    subprocess.run(  # the test venv has the build backend: no isolated build environment to install first
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(wheels),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("benchvote-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]  # this pip, run by the clean venv's interpreter
    subprocess.run(
        pip + ["install", "--quiet", "--no-deps", str(wheel)], check=True, capture_output=True, env=_outside()
    )
    site = Path(_run(python, "import sysconfig; print(sysconfig.get_paths()['purelib'])", work).strip())
    for dist in _closure(_wheel_requirements(wheel)):
        for top in {f.parts[0] for f in dist.files or () if f.parts[0] != ".."}:
            source = Path(dist.locate_file(top))
            if source.exists() and not (site / top).exists():
                (site / top).symlink_to(source)
    done = subprocess.run(pip + ["check"], capture_output=True, text=True, env=_outside())
    assert done.returncode == 0, done.stdout + done.stderr
    _reuse_compiled_kernels(site / "benchvote")
    return python, wheel, work


def _reuse_compiled_kernels(installed: Path) -> None:
    """Numba's cached kernels of the checkout, given to the installed copy of the same source files.

    Compiling the kernels again in the clean venv took about 40 CPU s per test that audits (twice what the audit
    itself takes), and the same source is compiled by the same numba and llvmlite (linked from this venv) in every
    other test.  Numba keys a cached kernel on its source file's modification time and size and on the function's
    bytecode, so a source file's caches are copied only where the installed file's bytes equal the checkout's, and
    the installed file gets the checkout's modification time; a kernel the checkout has not compiled yet is compiled
    in the clean venv as a user's first run would.
    """
    lib = ROOT / "lib" / "benchvote"
    for cache in lib.rglob("__pycache__/*.nb[ic]"):
        source = cache.parent.parent / (cache.name.split(".")[0] + ".py")
        copy = installed / source.relative_to(lib)
        if source.is_file() and copy.is_file() and copy.read_bytes() == source.read_bytes():
            (copy.parent / "__pycache__").mkdir(exist_ok=True)
            (copy.parent / "__pycache__" / cache.name).write_bytes(cache.read_bytes())
            os.utime(copy, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns))


def _wheel_requirements(wheel: Path) -> list[Requirement]:
    """The Requires-Dist lines of the wheel's METADATA."""
    with zipfile.ZipFile(wheel) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = email.parser.Parser().parsestr(z.read(name).decode("utf-8"))
    return [Requirement(line) for line in metadata.get_all("Requires-Dist") or ()]


def _closure(requirements: list[Requirement]) -> list[importlib.metadata.Distribution]:
    """The distributions of this venv that the requirements need, transitively: markers evaluated, extras left out."""
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = list(requirements)
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        key = canonicalize_name(req.name)
        if key in found:
            continue
        dist = importlib.metadata.distribution(req.name)
        assert req.specifier.contains(dist.version, prereleases=True), f"{req} but the test venv has {dist.version}"
        found[key] = dist
        todo += [Requirement(line) for line in dist.requires or ()]
    assert "torch" not in found
    return list(found.values())


def _outside() -> dict[str, str]:
    """The environment of the clean venv's processes: nothing that would put the checkout on their path."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def _run(python: Path, code: str, cwd: Path) -> str:
    done = subprocess.run([str(python), "-c", code], cwd=cwd, capture_output=True, text=True, env=_outside())
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_wheel_holds_the_tables_the_type_marker_and_the_licence(clean_venv):
    _, wheel, _ = clean_venv
    names = set(zipfile.ZipFile(wheel).namelist())
    for table in data.list_tables():
        assert f"benchvote/tables/{table}.csv" in names
    for log in data.list_battle_logs():
        assert {f"benchvote/tables/battles/{log}.csv", "benchvote/tables/battles/README.md"} <= names
    for items in data.list_item_tables():
        assert {f"benchvote/tables/items/{items}.parquet", "benchvote/tables/items/README.md"} <= names
        assert {
            "benchvote/tables/items/LICENSE-chem-bench.txt",
            "benchvote/tables/items/LICENSE-chembench-paper.txt",
        } <= names
    assert {"benchvote/tables/README.md", "benchvote/py.typed", "benchvote/_web/explorables.js"} <= names
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert not any(n.startswith("benchvote/sensitivity.py") for n in names)


def test_declared_dependencies_are_what_the_library_imports():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {re.split(r"[<>=\[ ;]", d)[0].lower() for d in project["dependencies"]}
    core = {"numpy", "pandas", "scipy", "tqdm", "numba", "highspy", "jinja2", "markupsafe", "pyarrow", "threadpoolctl"}
    assert declared == core | {"scikit-learn"}
    extras = project["optional-dependencies"]
    assert any(d.startswith("torch") for d in extras["relaxation"])
    assert project["scripts"] == {"benchvote": "benchvote.cli:main"}
    assert "version" in project["dynamic"]  # one place: benchvote.__version__
    imported = set()
    for path in (ROOT / "lib" / "benchvote").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"benchvote", "__future__"}
    optional = {"torch", "matplotlib", "ipywidgets", "IPython"}  # IPython: plotting.phone_twins, in Jupyter only
    assert third_party == core | {"sklearn"} | optional


def test_every_table_loads_outside_the_checkout(clean_venv, tmp_path):
    python, _, _ = clean_venv
    out = _run(
        python,
        "import benchvote as bv\nfrom benchvote import data\n"
        "names = data.list_tables()\n"
        "print(len(names), sum(data.load_table(n).size for n in names), bv.__version__)\n"
        "print(bv.__file__)",
        tmp_path,
    )
    count, cells, version, location = out.split()
    assert int(count) == len(data.list_tables())
    assert int(cells) == sum(data.load_table(n).size for n in data.list_tables())
    assert version == bv.__version__
    assert str(ROOT) not in location  # the installed copy, not the checkout


def test_the_readme_example_runs_as_printed(clean_venv, tmp_path):
    python, _, _ = clean_venv
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Using benchvote on your own leaderboard") :]
    example = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    data.load("GLUE").scores.to_csv(tmp_path / "my_leaderboard.csv")
    out = _run(python, example, tmp_path)
    r = bv.sensitivity.cardinal_sensitivity(data.load("GLUE").scores, method="exact", time_limit=60)
    assert f"{r.tau_distance} {r.optimal} {r.upper_bound}" in out


def test_without_torch_the_relaxation_says_how_to_install_it(clean_venv, tmp_path):
    python, _, _ = clean_venv
    code = (
        "import numpy as np, benchvote as bv, sys\n"
        "s = np.random.default_rng(0).random((6, 3))\n"
        "print(bv.sensitivity.cardinal_sensitivity(s, eps=0.1).optimal)\n"  # few tasks: proven without torch
        "try:\n    bv.sensitivity.cardinal_sensitivity(s, eps=0.1, method='relaxation')\n"
        "except ImportError as e:\n    print('refused:', e)\n"
        "print('torch' in sys.modules)"
    )
    out = _run(python, code, tmp_path)
    assert out.splitlines()[0] == "True"
    assert "benchvote[relaxation]" in out and "download.pytorch.org/whl/cpu" in out
    assert out.splitlines()[-1] == "False"


def test_the_installed_command_audits_a_shipped_leaderboard(clean_venv, tmp_path):
    """`pip install` then `benchvote audit` on a CSV of SuperGLUE: both reports, exit 0, no torch needed."""
    import json

    python, _, _ = clean_venv
    board = data.load("SuperGLUE")
    board.scores.to_csv(tmp_path / "superglue.csv")
    command = python.parent / "benchvote"
    done = subprocess.run(
        [str(command), "audit", "superglue.csv", "--html", "report.html", "--json", "report.json", "--n-boot", "200"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=_outside(),
    )
    assert done.returncode == 0, done.stderr
    assert "can be ranked first" in done.stdout  # the verdict's possible-winners sentence
    report = json.loads((tmp_path / "report.json").read_text())
    sections = report["sections"]
    assert sections["table"]["n_models"] == board.n_models
    cardinal = sections["cardinal_sensitivity"]
    assert cardinal["method"] in ("boxes", "milp", "search")  # the audit never needs torch
    assert report["settings"]["optional"] == {"torch_installed": False, "torch_used": False}
    rankings = sections["rankings"]  # led by the primary rule, the mean score unless told otherwise
    assert rankings["primary"] == "mean_score"
    assert rankings["ranking"][0] == str(bv.mean_score(board).idxmax())
    page = (tmp_path / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    bad = subprocess.run(
        [str(command), "audit", "missing.csv"], cwd=tmp_path, capture_output=True, text=True, env=_outside()
    )
    assert bad.returncode == 2 and bad.stderr.startswith("benchvote audit: error: cannot read")
