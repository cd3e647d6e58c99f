"""Fetch the browser-side JavaScript the static book needs, from the npm registry.

The built site must work offline, so nothing is loaded from a CDN:

* require.js and @jupyter-widgets/html-manager (with its font files) render the
  embedded ipywidgets state;
* MathJax 3 renders the formulas;
* axe-core is the accessibility checker of the site tests (tests/test_accessibility.py).  It is
  not part of the site: it goes to ``_build/test_assets/`` and the tests inject it into each page.

The packages are fetched with `npm pack` (the npm registry only), unpacked
into ``web_assets/`` (git-ignored; Sphinx copies it into ``_static/``) and
recorded in ``web_assets/VERSIONS``.  Nothing is fetched when that file
already lists the pinned versions.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGES = {
    "requirejs": "2.3.7",
    "@jupyter-widgets/html-manager": "1.0.6",
    "mathjax": "3.2.2",
    "axe-core": "4.14.1",
}

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "web_assets"
AXE = ROOT / "_build" / "test_assets" / "axe.min.js"


def stamp() -> str:
    return "\n".join(f"{name}@{version}" for name, version in PACKAGES.items()) + "\n"


def main() -> int:
    versions = TARGET / "VERSIONS"
    if versions.is_file() and versions.read_text() == stamp() and AXE.is_file():
        print(f"web assets up to date in {TARGET}")
        return 0
    if shutil.which("npm") is None:
        print("npm is required to fetch the widget and MathJax files (apt-get install nodejs npm)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        specs = [f"{name}@{version}" for name, version in PACKAGES.items()]
        out = subprocess.run(["npm", "pack", "--json", *specs], cwd=tmp, check=True, capture_output=True, text=True)
        packed = {entry["name"]: Path(tmp) / entry["filename"] for entry in json.loads(out.stdout)}
        if TARGET.exists():
            shutil.rmtree(TARGET)
        (TARGET / "widgets").mkdir(parents=True)
        unpacked = {}
        for name, tgz in packed.items():
            dest = Path(tmp) / name.replace("/", "_")
            with tarfile.open(tgz) as tar:
                tar.extractall(dest, filter="data")
            unpacked[name] = dest / "package"
        shutil.copy(unpacked["requirejs"] / "require.js", TARGET / "widgets" / "require.js")
        dist = unpacked["@jupyter-widgets/html-manager"] / "dist"
        for f in dist.iterdir():
            if f.suffix in {".js", ".woff", ".woff2", ".ttf", ".eot", ".svg"} and not f.name.endswith(".map"):
                shutil.copy(f, TARGET / "widgets" / f.name)
        shutil.copytree(unpacked["mathjax"] / "es5", TARGET / "mathjax")
        AXE.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(unpacked["axe-core"] / "axe.min.js", AXE)
        shutil.copy(unpacked["axe-core"] / "LICENSE", AXE.parent / "LICENSE-axe-core")
        for name, pkg in unpacked.items():
            lic = pkg / "LICENSE"
            if lic.is_file() and name != "axe-core":
                shutil.copy(lic, TARGET / f"LICENSE-{name.replace('/', '_').lstrip('@')}")
    versions.write_text(stamp())
    print(f"fetched {', '.join(PACKAGES)} into {TARGET} (axe-core into {AXE.parent})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
