"""The live path: exactly what Binder installs, a real JupyterLab on 127.0.0.1, real widgets in Chromium.

The fixture builds a fresh venv from the pip section of ``environment.yml`` and runs ``postBuild`` in it (with
private Jupyter config and data folders), then starts JupyterLab from that venv on a copy of the chapters.  The
tests run every cell of three chapters and use check boxes, sliders, the keyboard and a button.  The explorables
(computed in the page) must show what the library computes in this process; the domain explorer's widget, the one
ipywidget left (it lets the reader pick any scenario and metrics), must show what the library's widget shows for the
same action.  A third test opens a MyST-markdown
chapter and checks that JupyterLab opens it as a notebook (jupytext).

Each test runs, in JupyterLab, the cells that show its explorable or widget and the cells these depend on
(:func:`needed_cells`: the chapter's names traced back to the cells that bind or change them), not every cell: the
book build executes every cell of every chapter, and the chapters' figures and studies cost most of a chapter's
time (the domain chapter took 54 s to run in full here, against a few seconds for its explorers).
:func:`test_every_chapter_imports_in_the_binder_environment` checks every chapter's imports in the Binder venv.

One JupyterLab page serves the module: each test opens its document in it (``docmanager:open``), waits on
JupyterLab's own promises (the document ready, the kernel idle, ``notebook:run-all-cells`` settled) instead of
fixed sleeps or per-frame polling, and closes the document and shuts its kernel down after.

The venv is kept in ``_build/binder-venv`` and rebuilt when the environment files change.  ``make test`` runs
these tests; ``make test-fast`` skips them (marker ``live``).
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import symtable
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


def test_every_chapter_imports_in_the_binder_environment(binder_env, tmp_path):
    """Every import statement of every chapter runs in the Binder venv (the live tests run only the cells their
    explorables need; a chapter's other cells run in the book build, whose environment has more packages)."""
    imports = sorted(
        {
            ast.unparse(node)
            for chapter in sorted((ROOT / "notebooks").glob("*.ipynb"))
            for source in _code_sources(chapter.name)
            for node in ast.walk(ast.parse(_without_magics(source)))
            if isinstance(node, (ast.Import, ast.ImportFrom))
        }
    )
    assert len(imports) > 10, imports
    script = tmp_path / "imports.py"
    script.write_text("\n".join(imports) + "\n")
    run = subprocess.run(
        [str(VENV / "bin" / "python"), str(script)], cwd=tmp_path, env=binder_env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-2000:]


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
# notebook:run-cell runs the active cell (NotebookActions.run): it settles when the cell has run
_RUN_CELLS = """async ([picked, limit]) => {
    const app = window.jupyterapp, w = window.bvDocument, notebook = w.content;
    const code = notebook.widgets.filter(c => c.model.type === 'code');
    const timeout = new Promise((_, no) => setTimeout(() => no(new Error('run: time limit')), limit));
    const run = (async () => {
        let ok = true;
        for (const k of picked) {
            notebook.activeCellIndex = notebook.widgets.indexOf(code[k]);
            notebook.deselectAll();
            ok = (await app.commands.execute('notebook:run-cell')) && ok;
        }
        return ok;
    })();
    const ok = await Promise.race([run, timeout]);
    const prompts = [...w.node.querySelectorAll('.jp-InputArea-prompt')];
    return {ok, cells: code.length, unrun: picked.filter(k => !code[k].model.executionCount).length,
            pending: prompts.filter(p => p.textContent.includes('*')).length};
}"""


_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _here(node: ast.AST):
    """The nodes of ``node`` in the cell's own scope: not inside a function, lambda, class body or comprehension
    (of those, only what runs in the cell's scope: decorators, defaults, bases, a comprehension's first iterable)."""
    yield node
    if isinstance(node, _SCOPES):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            outer = [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]
            outer += getattr(node, "decorator_list", [])
        elif isinstance(node, ast.ClassDef):
            outer = [*node.decorator_list, *node.bases, *node.keywords]
        else:
            outer = [node.generators[0].iter]
    else:
        outer = list(ast.iter_child_nodes(node))
    for child in outer:
        yield from _here(child)


def _stored(nodes) -> set[str]:
    return {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}


def _loaded(nodes) -> set[str]:
    return {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _free_reads(body: list[ast.stmt], bound: set[str]) -> set[str]:
    """Names the statements read before binding them, in order (``bound``: bound so far; updated)."""
    free: set[str] = set()
    for stmt in body:
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            free |= _loaded(_here(stmt.iter)) - bound
            inner = bound | _stored(_here(stmt.target))
            free |= _free_reads(stmt.body + stmt.orelse, inner)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                free |= _loaded(_here(item.context_expr)) - bound
                if item.optional_vars is not None:
                    bound |= _stored(_here(item.optional_vars))
            free |= _free_reads(stmt.body, bound)
        elif isinstance(stmt, (ast.If, ast.While)):
            free |= _loaded(_here(stmt.test)) - bound
            free |= _free_reads(stmt.body, set(bound)) | _free_reads(stmt.orelse, set(bound))
        elif isinstance(stmt, ast.Try):
            for part in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                free |= _free_reads(part, set(bound))
        else:  # the value is read before the targets are bound (``x = x + 1`` reads an earlier x)
            nodes = list(_here(stmt))
            free |= _loaded(nodes) - bound
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):  # x += 1 reads x
                free |= {stmt.target.id} - bound
        bound |= _stored(_here(stmt))
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(stmt.name)
    return free


def _names(source: str) -> tuple[set[str], set[str], set[str], set[str]]:
    """What a cell binds, may change in place, reads that an earlier cell must have bound, and the modules it imports.

    Reads: the names the cell's own scope reads before it binds them, and the names its functions, lambdas, classes
    and comprehensions read from the cell's scope (:mod:`symtable`) that the cell does not bind.  "Changes": a name
    that is the root of an assigned or deleted attribute or item (``x.a = ...``, ``x[k] = ...``) or of a method call
    (``rng.permutation(...)``, ``names.append(...)``) anywhere in the cell.
    """
    source = _without_magics(source)
    cell = ast.parse(source)
    bound: set[str] = set()
    free = _free_reads(cell.body, bound)
    inner: set[str] = set()
    tables = list(symtable.symtable(source, "cell", "exec").get_children())
    while tables:
        table = tables.pop()
        tables += table.get_children()
        inner |= {s.get_name() for s in table.get_symbols() if s.is_referenced() and s.is_global()}
    changed: set[str] = set()
    for node in ast.walk(cell):
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            target = node
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func
        else:
            continue
        while isinstance(target, (ast.Attribute, ast.Subscript, ast.Call)):
            target = target.func if isinstance(target, ast.Call) else target.value
        if isinstance(target, ast.Name):
            changed.add(target.id)
    imported = {
        (a.asname or a.name).split(".")[0]
        for node in ast.walk(cell)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for a in node.names
    }
    return bound, changed, free | (inner - bound), imported


def needed_cells(sources: list[str], targets: list[int]) -> list[int]:
    """The code cells (indices into ``sources``) that ``targets`` need, in order: the targets, and for every name a
    needed cell reads, the last earlier cell that binds it and every cell between that may change it, recursively.

    Conservative: a name read inside a function counts as read by its cell, and a method call counts as a change.
    """
    parsed = [_names(source) for source in sources]
    modules = set().union(*(imported for *_, imported in parsed))
    need, todo = set(), list(targets)
    while todo:
        k = todo.pop()
        if k in need:
            continue
        need.add(k)
        for name in parsed[k][2] - set(dir(builtins)):
            for j in range(k - 1, -1, -1):
                bound, changed, _, _ = parsed[j]
                if name in changed and name not in modules:
                    todo.append(j)
                if name in bound:
                    todo.append(j)
                    break
    return sorted(need)


def _without_magics(source: str) -> str:
    """A cell's source as Python: line magics and shell escapes (``%matplotlib``, ``!pip``) become ``pass``."""
    return "\n".join("pass" if line.startswith(("%", "!")) else line for line in source.split("\n"))


def _code_sources(name: str) -> list[str]:
    cells = json.loads((ROOT / "notebooks" / name).read_text())["cells"]
    return [
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in cells
        if c["cell_type"] == "code"
    ]


@contextlib.contextmanager
def opened(page, name):
    """The document open in the module's JupyterLab page with its kernel idle; closed (kernel shut down) after."""
    try:
        page.evaluate(_OPEN, [name, 120_000])
        page.wait_for_function(_KERNEL_IDLE, timeout=120_000, polling=250)
        yield page
    finally:
        page.evaluate(_CLOSE)


def _run_needed(page, name: str, shows: tuple[str, ...], timeout_s=600) -> None:
    """Run the code cells whose source holds one of ``shows``, with every cell they need (:func:`needed_cells`)."""
    sources = _code_sources(name)
    targets = [k for k, source in enumerate(sources) if any(s in source for s in shows)]
    assert len(targets) == len(shows), f"{name}: cells {targets} for {shows}"
    picked = needed_cells(sources, targets)
    done = page.evaluate(_RUN_CELLS, [picked, timeout_s * 1000])
    tracebacks = [t for t in page.locator(".jp-OutputArea-output").all_inner_texts() if "Traceback" in t]
    assert not tracebacks, f"a cell raised: {tracebacks[0][:1500]}"
    assert done["ok"] and done["cells"] == len(sources) and done["unrun"] == 0 and done["pending"] == 0, done


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
        _run_needed(
            page, "elections.ipynb", ("toggle = explorables.model_toggle(", "textbook = explorables.model_toggle(")
        )
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
        _run_needed(page, "strategy.ipynb", ("explorables.effort(",))
        root = _explorables(page, 1).first
        page.screenshot(path=str(SHOTS / "live__strategy_slider.png"), full_page=False)
        assert check_effort(root, np.random.default_rng(0), settings=5) >= 5


def test_domain_explorer_is_live(lab_page):
    """The one ipywidget of the book (hidden on the static site) works in JupyterLab like the library's widget."""
    import ipywidgets as widgets

    from benchvote.widgets import domain_explorer

    with opened(lab_page, "domains.ipynb") as page:
        _run_needed(
            page, "domains.ipynb", ("explorables.domain_explorer(", "from benchvote.widgets import domain_explorer")
        )
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


def test_needed_cells_follow_every_name_back_to_the_cells_that_bind_or_change_it():
    sources = [
        "%matplotlib inline\nimport numpy as np",
        "rng = np.random.default_rng(0)",
        "unused = 1",
        "rng.permutation(3)",  # changes rng: the cells that read rng after it need it
        "x = [i for i in range(3)]",
        "def f():\n    return rng.random() + len(x)",
        "for i in range(2):\n    unused += i",
        "y = f()",
        "x = 2",
    ]
    assert needed_cells(sources, [7]) == [0, 1, 3, 4, 5, 7]
    assert needed_cells(sources, [6]) == [2, 6]  # += reads
    assert needed_cells(sources, [8]) == [8]
