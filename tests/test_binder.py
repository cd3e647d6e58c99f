"""The live path: exactly what Binder installs, a real JupyterLab on 127.0.0.1, real widgets in Chromium.

The fixture builds a fresh venv from the pip section of ``environment.yml`` and runs ``postBuild`` in it (with
private Jupyter config and data folders), then starts JupyterLab from that venv on a copy of the chapters.  The
tests run every cell of two chapters, use a check box, a slider and a button, and compare what the page shows
with what the library's widget shows for the same action in this process.  A third test opens a MyST-markdown
chapter and checks that JupyterLab opens it as a notebook (jupytext).

The venv is kept in ``_build/binder-venv`` and rebuilt when the environment files change.  ``make test`` runs
these tests; ``make test-fast`` skips them (marker ``live``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

pytestmark = [pytest.mark.live, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
VENV = BUILD / "binder-venv"
SHOTS = BUILD / "screenshots"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ENV_FILES = ["environment.yml", "postBuild", "requirements-binder.txt", "requirements-data.txt", "pyproject.toml"]

sys.path.insert(0, str(ROOT / "scripts"))
from usable_requirements import usable  # noqa: E402


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


def _fingerprint() -> str:
    h = hashlib.sha256()
    for name in ENV_FILES:
        h.update((ROOT / name).read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory):
    """A venv with exactly what Binder installs, and private Jupyter folders configured by postBuild."""
    jupyter = tmp_path_factory.mktemp("jupyter")
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(jupyter / "config"), JUPYTER_DATA_DIR=str(jupyter / "data"),
               JUPYTERLAB_SETTINGS_DIR=str(jupyter / "settings"), JUPYTERLAB_WORKSPACES_DIR=str(jupyter / "ws"),
               JUPYTER_RUNTIME_DIR=str(jupyter / "runtime"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("VIRTUAL_ENV", None)
    stamp = VENV / ".fingerprint"
    if not (stamp.is_file() and stamp.read_text() == _fingerprint()):
        shutil.rmtree(VENV, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        requirements = BUILD / "binder-requirements.txt"
        requirements.write_text("".join(usable(binder_pip_lines(), ROOT)))
        subprocess.run([str(VENV / "bin" / "pip"), "install", "--quiet", "-r", str(requirements)], cwd=ROOT,
                       check=True, env=env)
        stamp.write_text(_fingerprint())
    env["PATH"] = f"{VENV / 'bin'}{os.pathsep}{env['PATH']}"
    subprocess.run(["bash", str(ROOT / "postBuild")], cwd=ROOT, check=True, env=env, capture_output=True)
    # test-only: render every cell (JupyterLab 4 renders only the cells in view), so that the page can be searched
    overrides = Path(env["JUPYTER_CONFIG_DIR"]) / "labconfig" / "default_setting_overrides.json"
    settings = json.loads(overrides.read_text()) if overrides.is_file() else {}
    assert settings.get("@jupyterlab/docmanager-extension:plugin", {}).get("defaultViewers", {}).get("markdown") \
        == "Jupytext Notebook", "postBuild did not make .md files open as notebooks"
    settings["@jupyterlab/notebook-extension:tracker"] = {"windowingMode": "none"}
    overrides.write_text(json.dumps(settings))
    return env


def test_binder_environment_holds_no_test_or_build_tools(binder_env):
    listed = subprocess.run([str(VENV / "bin" / "pip"), "list", "--format=json"], check=True, capture_output=True,
                            text=True, env=binder_env).stdout
    names = {item["name"].lower().replace("_", "-") for item in json.loads(listed)}
    for tool in ("pytest", "hypothesis", "playwright", "pref-voting", "jupyter-book", "numba", "ortools",
                 "sphinx-proof", "sphinx-exercise", "sphinxcontrib-bibtex", "sphinx-book-theme"):
        assert tool not in names, f"the Binder environment installs {tool}"
    for needed in ("jupyterlab", "jupytext", "ipywidgets", "torch", "benchvote", "benchbench"):
        assert needed in names, f"the Binder environment lacks {needed}"
    assert not [n for n in names if n.startswith(("nvidia-", "cuda-")) or n == "triton"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(binder_env, tmp_path_factory):
    """JupyterLab from the Binder venv, serving a copy of the chapters (autosave cannot touch the checkout)."""
    root = tmp_path_factory.mktemp("lab")
    for path in list((ROOT / "notebooks").iterdir()) + [ROOT / "jupytext.toml"]:
        if path.is_file():
            shutil.copy(path, root / path.name)
    port, token = _free_port(), "benchvote-live-test"
    proc = subprocess.Popen([str(VENV / "bin" / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1",
                             f"--port={port}", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
                             "--allow-root",
                             "--LabApp.expose_app_in_browser=True", "--ServerApp.disable_check_xsrf=True"],
                            env=binder_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab did not start: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(1)
    else:
        proc.kill()
        pytest.fail("JupyterLab did not answer within two minutes")
    yield base, token, root
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser():
    pw = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install chromium")
    with pw.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def _open(browser, base, token, name):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    workspace = re.sub(r"\W", "-", name)  # a fresh workspace per document: no tab restored from another test
    page.goto(f"{base}/lab/workspaces/{workspace}/tree/{name}?token={token}&reset")
    page.wait_for_function("""name => window.jupyterapp && window.jupyterapp.shell.currentWidget
        && window.jupyterapp.shell.currentWidget.context
        && window.jupyterapp.shell.currentWidget.context.path === name""", arg=name, timeout=90_000)
    page.wait_for_function("""() => { const w = window.jupyterapp.shell.currentWidget;
        return w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel
            && w.sessionContext.session.kernel.status === 'idle'; }""", timeout=120_000)
    return page


def _run_all(page, timeout_s=600):
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_timeout(1000)
    page.wait_for_function("""() => { const w = window.jupyterapp.shell.currentWidget;
        const busy = w.sessionContext.session.kernel.status !== 'idle';
        const pending = [...document.querySelectorAll('.jp-InputArea-prompt')].some(p => p.textContent.includes('*'));
        return !busy && !pending; }""", timeout=timeout_s * 1000, polling=500)
    tracebacks = [t for t in page.locator(".jp-OutputArea-output").all_inner_texts() if "Traceback" in t]
    assert not tracebacks, f"a cell raised: {tracebacks[0][:1500]}"


def _summary_texts(page, marker):
    return [t.strip() for t in page.locator(".widget-html-content").all_inner_texts() if marker in t]


def _html_text(value: str) -> str:
    return re.sub(r"<[^>]+>", "", value).strip()


def test_check_box_in_the_elections_chapter(lab, browser):
    import ipywidgets as widgets

    from benchvote import data
    from benchvote.widgets import model_toggle

    base, token, _ = lab
    page = _open(browser, base, token, "elections.ipynb")
    _run_all(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_selector(".widget-checkbox input", timeout=60_000)
    boxes = page.locator(".widget-checkbox").filter(has=page.locator("span[title='C']"))
    assert boxes.count() == 1, "the three-model example's check box for C is missing"
    before = _summary_texts(page, "weak model(s) added")[-1]
    boxes.locator("input").click()
    page.wait_for_function("() => [...document.querySelectorAll('.widget-html-content')]"
                           ".some(e => e.textContent.includes('1 weak model(s) added'))", timeout=30_000)
    page.screenshot(path=str(SHOTS / "live__elections_checkbox.png"), full_page=False)
    after = _summary_texts(page, "weak model(s) added")[-1]
    # the library's widget, built here and used the same way
    box = model_toggle(data.load_table("abc_ranks"), ["A", "B"], ["C"], higher_is_better=False,
                       convention="quantile", columns=1)
    html = [w for w in _walk(box) if isinstance(w, widgets.HTML) and "weak model(s) added" in w.value][0]
    assert before == _html_text(html.value)
    [w for w in _walk(box) if isinstance(w, widgets.Checkbox)][0].value = True
    assert after == _html_text(html.value)
    assert "A and B now tie" in after
    page.close()


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


def test_slider_and_button_in_the_strategy_chapter(lab, browser):
    import ipywidgets as widgets

    from benchvote.widgets import effort_explorer

    base, token, _ = lab
    page = _open(browser, base, token, "strategy.ipynb")
    _run_all(page)
    page.wait_for_selector(".widget-slider .noUi-handle", timeout=60_000)
    sliders = page.locator(".widget-slider")
    labels = [t.strip() for t in sliders.locator(".widget-label").all_inner_texts()]

    def values():  # the full-precision values the front end holds (the readouts are rounded)
        return [float(v) for v in sliders.locator(".noUi-handle").evaluate_all(
            "hs => hs.map(h => h.getAttribute('aria-valuetext'))")]

    readouts = values()
    assert labels and len(labels) == len(readouts)
    initial = _summary_texts(page, "Water level")[-1]
    # move the first slider one step to the right with the keyboard, as a reader would
    first = sliders.nth(0)
    first.locator(".noUi-handle").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => [...document.querySelectorAll('.widget-html-content')]"
                           f".filter(e => e.textContent.includes('Water level')).pop().textContent.trim() "
                           f"!== {initial!r}", timeout=30_000)
    moved_value = values()[0]
    assert moved_value != readouts[0]
    moved = _summary_texts(page, "Water level")[-1]
    page.screenshot(path=str(SHOTS / "live__strategy_slider.png"), full_page=False)
    # the library's widget with the same curves, the same slider moved to the same value
    tasks = [label.rsplit(":", 1)[0] for label in labels[0::2]]
    a, b = readouts[0::2], readouts[1::2]
    box = effort_explorer([x * y for x, y in zip(a, b)], b, tasks)
    html = [w for w in _walk(box) if isinstance(w, widgets.HTML) and "Water level" in w.value][0]
    assert initial == _html_text(html.value)
    [w for w in _walk(box) if isinstance(w, widgets.FloatSlider)][0].value = moved_value
    assert moved == _html_text(html.value)
    # the reset button restores the chapter's curves
    page.locator(".widget-button", has_text="reset").click()
    page.wait_for_function(f"() => [...document.querySelectorAll('.widget-html-content')]"
                           f".filter(e => e.textContent.includes('Water level')).pop().textContent.trim() "
                           f"=== {initial!r}", timeout=30_000)
    assert values()[0] == pytest.approx(a[0])
    page.close()


def test_markdown_chapter_opens_as_a_notebook(lab, browser):
    base, token, _ = lab
    page = _open(browser, base, token, "elections.md")
    assert page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").count() > 10
    # the document widget is a notebook panel (not the markdown editor) for the .md file itself
    assert page.evaluate("""() => { const w = window.jupyterapp.shell.currentWidget;
        return w.node.classList.contains('jp-NotebookPanel') && w.context.path === 'elections.md'; }""")
    page.screenshot(path=str(SHOTS / "live__elections_md.png"), full_page=False)
    page.close()
