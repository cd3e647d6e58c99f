"""The live path: exactly what Binder installs, a real JupyterLab on 127.0.0.1, real widgets in Chromium.

The fixture builds a fresh venv from the pip section of ``environment.yml`` and runs ``postBuild`` in it (with
private Jupyter config and data folders), then starts JupyterLab from that venv on a copy of the chapters.  The
tests run every cell of three chapters and use check boxes, sliders, the keyboard and a button.  The explorables
(computed in the page) must show what the library computes in this process; the domain explorer's widget, the one
ipywidget left (it lets the reader pick any scenario and metrics), must show what the library's widget shows for the
same action.  A third test opens a MyST-markdown
chapter and checks that JupyterLab opens it as a notebook (jupytext).

One JupyterLab page serves the module: each test opens its document in it (``docmanager:open``), waits on
JupyterLab's own promises (the document ready, the kernel idle, ``notebook:run-all-cells`` settled) instead of
fixed sleeps or per-frame polling, and closes the document and shuts its kernel down after.

The venv is kept in ``_build/binder-venv`` and rebuilt when the environment files change.  ``make test`` runs
these tests; ``make test-fast`` skips them (marker ``live``).
"""

from __future__ import annotations

import contextlib
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

import numpy as np
import pytest
from explorable_checks import check_domains, check_effort, check_model_toggle

# one JupyterLab for the module: make test keeps its tests on one worker (conftest.ONE_WORKER_FILES)
pytestmark = [pytest.mark.live, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
VENV = BUILD / "binder-venv"
SHOTS = BUILD / "screenshots"
sys.path.insert(0, str(ROOT / "scripts"))
from binder_env import ensure  # noqa: E402
from chromium import CHROMIUM, FLAGS  # noqa: E402


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory):
    """A venv with exactly what Binder installs, and private Jupyter folders configured by postBuild."""
    jupyter = tmp_path_factory.mktemp("jupyter")
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(jupyter / "config"),
        JUPYTER_DATA_DIR=str(jupyter / "data"),
        JUPYTERLAB_SETTINGS_DIR=str(jupyter / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(jupyter / "ws"),
        JUPYTER_RUNTIME_DIR=str(jupyter / "runtime"),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    env.pop("VIRTUAL_ENV", None)
    assert ensure(env) == VENV  # built by scripts/binder_env.py (make test runs it beside the book build)
    env["PATH"] = f"{VENV / 'bin'}{os.pathsep}{env['PATH']}"
    subprocess.run(["bash", str(ROOT / "postBuild")], cwd=ROOT, check=True, env=env, capture_output=True)
    # test-only: render every cell (JupyterLab 4 renders only the cells in view), so that the page can be searched
    overrides = Path(env["JUPYTER_CONFIG_DIR"]) / "labconfig" / "default_setting_overrides.json"
    settings = json.loads(overrides.read_text()) if overrides.is_file() else {}
    assert (
        settings.get("@jupyterlab/docmanager-extension:plugin", {}).get("defaultViewers", {}).get("markdown")
        == "Jupytext Notebook"
    ), "postBuild did not make .md files open as notebooks"
    settings["@jupyterlab/notebook-extension:tracker"] = {"windowingMode": "none"}
    overrides.write_text(json.dumps(settings))
    return env


def test_binder_environment_holds_no_test_or_build_tools(binder_env):
    listed = subprocess.run(
        [str(VENV / "bin" / "pip"), "list", "--format=json"], check=True, capture_output=True, text=True, env=binder_env
    ).stdout
    names = {item["name"].lower().replace("_", "-") for item in json.loads(listed)}
    for tool in (
        "pytest",
        "hypothesis",
        "playwright",
        "pref-voting",
        "jupyter-book",
        "ortools",
        "sphinx-proof",
        "sphinx-exercise",
        "sphinxcontrib-bibtex",
        "sphinx-book-theme",
    ):
        assert tool not in names, f"the Binder environment installs {tool}"
    for needed in ("jupyterlab", "jupytext", "ipywidgets", "torch", "numba", "benchvote", "benchbench"):
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
    proc = subprocess.Popen(
        [
            str(VENV / "bin" / "jupyter"),
            "lab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--allow-root",
            "--LabApp.expose_app_in_browser=True",
            "--ServerApp.disable_check_xsrf=True",
        ],
        env=binder_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
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


@pytest.fixture(scope="module")
def lab_page(lab, browser):
    """One JupyterLab page for the module: the app loads once; each test opens its document in it, then closes it.

    (Loading JupyterLab in a new page per test cost Chromium several CPU seconds a time.)
    """
    base, token, _ = lab
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{base}/lab/workspaces/benchvote-live?token={token}&reset")
    page.wait_for_function("() => window.jupyterapp", timeout=90_000, polling=250)
    page.evaluate("() => window.jupyterapp.restored.then(() => true)")
    yield page
    context.close()


# Every wait below is a condition: a promise of JupyterLab awaited in the page (with a time limit), or a predicate
# polled every quarter second (Playwright's default polls on every animation frame, which keeps Chromium busy).
_OPEN = """async ([name, limit]) => {
    const app = window.jupyterapp;
    const timeout = new Promise((_, no) => setTimeout(() => no(new Error(`${name} did not open`)), limit));
    const open = (async () => {
        const w = await app.commands.execute('docmanager:open', {path: name});
        await w.context.ready;
        if (w.sessionContext) { await w.sessionContext.ready; }
        window.bvDocument = w;
    })();
    await Promise.race([open, timeout]);
}"""
_KERNEL_IDLE = """() => { const w = window.bvDocument;
    return w === window.jupyterapp.shell.currentWidget && w.sessionContext.session
        && w.sessionContext.session.kernel && w.sessionContext.session.kernel.status === 'idle'; }"""
_CLOSE = """async () => { const w = window.bvDocument; window.bvDocument = null;
    if (w && !w.isDisposed) { if (w.sessionContext) { await w.sessionContext.shutdown(); } w.dispose(); } }"""
# notebook:run-all-cells returns JupyterLab's NotebookActions.runAll, which settles when the last cell has run
_RUN_ALL = """async limit => {
    const app = window.jupyterapp, w = window.bvDocument;
    const timeout = new Promise((_, no) => setTimeout(() => no(new Error('run all: time limit')), limit));
    const ok = await Promise.race([app.commands.execute('notebook:run-all-cells'), timeout]);
    const code = w.content.widgets.filter(c => c.model.type === 'code');
    const prompts = [...w.node.querySelectorAll('.jp-InputArea-prompt')];
    return {ok, cells: code.length, unrun: code.filter(c => !c.model.executionCount).length,
            pending: prompts.filter(p => p.textContent.includes('*')).length};
}"""


@contextlib.contextmanager
def opened(page, name):
    """The document open in the module's JupyterLab page with its kernel idle; closed (kernel shut down) after."""
    try:
        page.evaluate(_OPEN, [name, 120_000])
        page.wait_for_function(_KERNEL_IDLE, timeout=120_000, polling=250)
        yield page
    finally:
        page.evaluate(_CLOSE)


def _run_all(page, timeout_s=600):
    done = page.evaluate(_RUN_ALL, timeout_s * 1000)
    tracebacks = [t for t in page.locator(".jp-OutputArea-output").all_inner_texts() if "Traceback" in t]
    assert not tracebacks, f"a cell raised: {tracebacks[0][:1500]}"
    assert done["ok"] and done["cells"] > 0 and done["unrun"] == 0 and done["pending"] == 0, done


def _explorables(page, count):
    """The chapter's explorables once their scripts ran (JupyterLab runs the scripts of trusted outputs)."""
    page.wait_for_function(
        f"() => document.querySelectorAll('.bv-explorable[data-mounted=yes]').length >= {count}",
        timeout=60_000,
        polling=250,
    )
    return page.locator(".bv-explorable[data-mounted=yes]")


def test_check_boxes_in_the_elections_chapter(lab_page):
    """Both model toggles of the chapter compute in JupyterLab exactly what the library computes."""
    with opened(lab_page, "elections.ipynb") as page:
        _run_all(page)
        toggles = _explorables(page, 2)
        assert toggles.count() == 2
        textbook = toggles.nth(1)
        textbook.locator("input[name=add-0]").click()
        assert "A and B now tie" in textbook.locator(".bv-summary").inner_text()
        page.screenshot(path=str(SHOTS / "live__elections_checkbox.png"), full_page=False)
        textbook.locator("input[name=add-0]").click()
        for k in range(2):
            assert check_model_toggle(toggles.nth(k), np.random.default_rng(k), settings=5) >= 5


def test_sliders_and_button_in_the_strategy_chapter(lab_page):
    """The effort explorer in JupyterLab: dragged sliders give the library's numbers, and reset works.

    (The keyboard is tested on a plain page in test_explorables; in JupyterLab's notebook the arrow keys
    did not reach the slider in our run.)
    """
    with opened(lab_page, "strategy.ipynb") as page:
        _run_all(page)
        root = _explorables(page, 1).first
        page.screenshot(path=str(SHOTS / "live__strategy_slider.png"), full_page=False)
        assert check_effort(root, np.random.default_rng(0), settings=5) >= 5


def test_domain_explorer_is_live(lab_page):
    """The one ipywidget of the book (hidden on the static site) works in JupyterLab like the library's widget."""
    import ipywidgets as widgets

    from benchvote.widgets import domain_explorer

    with opened(lab_page, "domains.ipynb") as page:
        _run_all(page)
        # the chapter's explorable (computed in the page) beside the widget shows what the library computes
        assert check_domains(_explorables(page, 1).first, np.random.default_rng(0), settings=3) >= 3
        page.wait_for_selector(".widget-checkbox input", timeout=60_000)

        def report():
            texts = [
                t.strip()
                for t in page.locator(".widget-html-content").all_inner_texts()
                if "single-peaked" in t or "Tick at least" in t
            ]
            return texts[-1]

        initial = report()
        groups = ("accuracy", "robustness", "fairness", "efficiency", "calibration")
        boxes = page.locator(".widget-checkbox")
        names = boxes.evaluate_all("bs => bs.map(b => b.querySelector('span').title)")
        states = boxes.evaluate_all("bs => bs.map(b => b.querySelector('input').checked)")
        models = [n for n in names if n not in groups]
        checked = [n for n, on in zip(names, states) if on and n not in groups]
        pick = next(k for k, (n, on) in enumerate(zip(names, states)) if n not in groups and not on)
        boxes.nth(pick).locator("input").click()
        page.wait_for_function(
            "old => [...document.querySelectorAll('.widget-html-content')]"
            ".filter(e => e.textContent.includes('single-peaked') || e.textContent.includes('Tick at'))"
            ".pop().textContent.trim() !== old",
            arg=initial,
            timeout=30_000,
            polling=250,
        )
        ticked = report()
        page.screenshot(path=str(SHOTS / "live__domains_checkbox.png"), full_page=False)
        # the library's widget, built here with the chapter's models and used the same way
        widget = domain_explorer(models, checked)
        html = [
            w
            for w in _walk(widget)
            if isinstance(w, widgets.HTML)
            and w.value
            and "<b>" not in w.value[:3]
            and ("single-peaked" in w.value or "Tick at" in w.value)
        ][0]
        assert initial == _html_text(html.value)
        [w for w in _walk(widget) if isinstance(w, widgets.Checkbox) and w.description == names[pick]][0].value = True
        assert ticked == _html_text(html.value)


def _html_text(value: str) -> str:
    return re.sub(r"<[^>]+>", "", value).strip()


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _walk(child)


def test_markdown_chapter_opens_as_a_notebook(lab_page):
    with opened(lab_page, "elections.md") as page:
        assert page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").count() > 10
        # the document widget is a notebook panel (not the markdown editor) for the .md file itself
        assert page.evaluate("""() => { const w = window.jupyterapp.shell.currentWidget;
            return w.node.classList.contains('jp-NotebookPanel') && w.context.path === 'elections.md'; }""")
        page.screenshot(path=str(SHOTS / "live__elections_md.png"), full_page=False)
