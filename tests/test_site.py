"""The built site in a real browser: every page loads offline, renders, and keeps its requests local.

Needs the output of ``make book`` in ``_build/html`` and Debian's Chromium at
``/usr/bin/chromium``.  Screenshots of every page are kept in
``_build/screenshots/``.

Page loads are the cost of these tests (Chromium is CPU-bound): every page is opened once per width, in one
colour scheme, and the system's scheme is then switched under the loaded page (the site follows it, as it does
on a first visit: ``switch_scheme``), so both schemes are checked on one load.  At 1280 px the page is loaded
light and switched to dark, on a phone loaded dark and switched to light, so each scheme is also checked as
first loaded.  Every check of a setting runs on that load, the accessibility checks of
``test_accessibility.py`` first (on the page as loaded), then the read-only checks, then the ones that use the
controls.  Each check's failures are collected under its name and the test fails at its end with all of them.
The tests are parametrized by page, so that the workers of ``pytest -n`` share them.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import importlib.util
import os
import threading
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlparse

import numpy as np
import pytest
import yaml
from chromium import CHROMIUM, COLOUR_RULES, FLAGS, FRAME, book_violations, serious_violations
from explorable_checks import CHECKS, check_steps, controls_change_charts
from playwright.sync_api import TimeoutError as PlaywrightTimeout

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"


def toc_pages() -> list[str]:
    """Every page listed in _toc.yml, as a path relative to the site root."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                pages.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    return [f"{p}.html" for p in pages]


PAGES = toc_pages() + ["index.html", "genindex.html", "search.html"]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    if not (HTML / "index.html").is_file():
        pytest.fail("the built site is missing: run `make book` (or `make test`, which builds it) first")
    handler = functools.partial(_Quiet, directory=str(HTML))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


SETTLED = """() => {
  // MathJax's first typesetting, the web fonts, and every Jupyter widget view rendered by the widget manager
  const mathjax = !window.MathJax || !MathJax.startup || !MathJax.startup.promise ? Promise.resolve()
    : MathJax.startup.promise;
  const widgets = Array.from(document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]'))
    .every(s => s.parentElement.querySelector('.jupyter-widgets'));
  return widgets && mathjax.then(() => document.fonts.ready).then(() => true);
}"""


def settle(page) -> None:
    """Wait until MathJax, the fonts and the widget manager are done (in place of a fixed sleep)."""
    page.wait_for_function(SETTLED, polling=100)


def open_page(browser, server: str, path: str, width: int, scheme: str):
    """One page in a fresh context, ``width`` x 900 px, in the colour scheme the system asks for (the site follows it).

    Returns the context, the page and its log: ``errors`` (console and page errors, each tagged with ``log.phase``,
    the check under way when it came), ``network`` (failed requests, HTTP errors) and ``outside`` (requests that
    left 127.0.0.1).
    """
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    log = SimpleNamespace(phase="load", errors=[], network=[], outside=[])
    page.on(
        "console",
        lambda msg: log.errors.append(f"[{log.phase}] console {msg.type}: {msg.text}") if msg.type == "error" else None,
    )
    page.on("pageerror", lambda exc: log.errors.append(f"[{log.phase}] page error: {exc}"))
    page.on("requestfailed", lambda req: log.network.append(f"request failed: {req.url} ({req.failure})"))

    def on_request(req):
        if req.url.startswith(("data:", "blob:", "about:")):
            return
        if urlparse(req.url).hostname != "127.0.0.1":
            log.outside.append(req.url)

    def on_response(resp):
        if resp.status >= 400:
            log.network.append(f"HTTP {resp.status}: {resp.url}")

    page.on("request", on_request)
    page.on("response", on_response)
    page.goto(f"{server}/{path}", wait_until="networkidle")
    settle(page)
    return context, page, log


class Findings:
    """The failures of the checks run on one page load, each under the check's name; :meth:`done` asserts none."""

    def __init__(self, where: str, log):
        self.where, self.log, self.failed = where, log, []

    @contextlib.contextmanager
    def check(self, name: str):
        self.log.phase = name
        try:
            yield
        except AssertionError as exc:
            self.failed.append(f"{name} ({self.where}): {exc}")

    def done(self) -> None:
        assert not self.failed, "\n".join(self.failed)


def switch_scheme(page, scheme: str) -> None:
    """The system's colour scheme turns to ``scheme`` under the loaded page; the theme follows it (its "auto" mode).

    One load then serves both schemes: the theme only swaps ``data-theme``, and every colour of the book and of
    its explorables hangs on that attribute (CSS), so nothing needs the page to be loaded again.
    """
    page.emulate_media(color_scheme=scheme)
    page.wait_for_function(f"() => document.documentElement.dataset.theme === '{scheme}'")
    page.evaluate(TRANSITIONS_DONE)  # the theme's buttons fade to their new colours (150-300 ms): checks read the end


#: Waits for the page's colour transitions (a scheme switch, a resize) to run to their end, at most 2 s.
TRANSITIONS_DONE = """async () => {
  const running = document.getAnimations().filter(a => a.playState === 'running'
    && a.effect.getComputedTiming().endTime !== Infinity);
  await Promise.race([Promise.all(running.map(a => a.finished.catch(() => null))),
    new Promise(r => setTimeout(r, 2000))]);
}"""


def screenshot(page, shot: Path) -> None:
    """The page's first screen, as a reader opening it sees it (a screenshot is for people; the checks read the DOM).

    A full-page shot makes Chromium lay out and paint the whole page again at its full height: eight screens of a
    chapter cost more than most checks of it, and one screen a tenth of that.
    """
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot))


def test_chapters_offer_binder_only_with_a_repository_and_always_the_ipynb(server, browser):
    """The launch and repository buttons name the build's own repository (git's origin), or are left out."""
    spec = importlib.util.spec_from_file_location("repolinks", ROOT / "book" / "_ext" / "repolinks.py")
    repolinks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(repolinks)
    repo = repolinks.build_repository(dict(os.environ), ROOT)  # what the build read
    for path in toc_pages():
        if not path.startswith("notebooks/"):
            continue
        html = (HTML / path).read_text()
        assert "github.com/benchvote/benchvote" not in html or repo == "https://github.com/benchvote/benchvote"
        if repo is None:
            assert "mybinder.org" not in html and "Source repository" not in html, f"{path}: a link to no repository"
        else:
            binder = "mybinder.org/v2/gh/" + repo.removeprefix("https://github.com/")
            assert binder in html and repo in html, f"{path}: no Binder or repository link to {repo}"
            assert f"/main?urlpath=lab/tree/notebooks/{Path(path).stem}.ipynb" in html, f"{path}: Binder opens the twin"
        assert f"_sources/notebooks/{Path(path).stem}.ipynb" in html, f"{path}: no .ipynb download"
        assert (HTML / "_sources" / "notebooks" / f"{Path(path).stem}.ipynb").is_file()


EXPECTED_EXPLORABLES = {
    "notebooks/elections.html": ["model-toggle", "model-toggle"],
    "notebooks/arrow.html": ["model-toggle"],
    "notebooks/positional.html": ["positional"],
    "notebooks/tradeoff.html": ["label-noise"],
    "notebooks/missing.html": ["missing-share", "cell-knockout"],
    "notebooks/uncertainty.html": ["rank-sets"],
    "notebooks/strategy.html": ["effort"],
    "notebooks/domains.html": ["domains"],
    "notebooks/design.html": ["label-noise"],
}
CONTROLS = "input:not([type=hidden]), select, textarea, button, [role=slider], [contenteditable=true]"


#: The explorable checks on the built chapters run each control kind at two settings (and their fixed ones: both ends,
#: every button, every position of a positional rule).  ``test_explorables.py`` drives every kind at twelve settings
#: on tables made for it; here what is checked is the chapter's wiring: that its explorables show the library's
#: numbers for the chapter's own data, which one move of each control already shows.
SITE_SETTINGS = 2

FIGURES = """() => Array.from(document.querySelectorAll('figure')).map(f => ({
  alts: Array.from(f.querySelectorAll('img')).map(i => (i.getAttribute('alt') || '').trim()),
  captions: f.querySelectorAll('figcaption').length,
}))"""


def _renders_offline(page, log, html: str) -> None:
    """``html``: the document as loaded (before axe-core's script, whose source holds the markers of formulas)."""
    assert "benchvote" in page.title(), f"unexpected title {page.title()!r}"
    assert not log.outside, f"requests left 127.0.0.1: {log.outside[:5]}"
    assert not log.network and not log.errors, "\n".join((log.network + log.errors)[:10])
    broken = page.evaluate(
        "() => Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)"
    )
    assert not broken, f"images that did not load: {broken}"
    if 'class="math' in html or "\\(" in html:
        assert page.locator("mjx-container").count() > 0, "MathJax did not typeset the formulas"


def _figures_have_alt_text_and_a_caption(page, path: str) -> None:
    figures = page.evaluate(FIGURES)
    assert figures, f"{path} has no captioned figure"
    for k, fig in enumerate(figures):
        assert all(fig["alts"]), f"{path}: figure {k} image without alt text"
        assert fig["captions"] == 1, f"{path}: figure {k} without caption"


def _no_loose_controls(page) -> None:
    """No enabled control in a chapter's outputs outside an explorable (the theme's copy buttons need no kernel)."""
    loose = (
        page.locator(".cell_output")
        .locator(CONTROLS)
        .evaluate_all(
            "cs => cs.filter(c => !c.closest('.bv-explorable') && !c.classList.contains('copybtn')"
            " && !c.disabled && c.offsetParent !== null)"
            ".map(c => c.outerHTML.slice(0, 120))"
        )
    )
    assert not loose, f"controls that cannot work without a kernel: {loose[:3]}"
    assert page.locator(".jupyter-widgets .widget-checkbox, .jupyter-widgets .widget-slider").count() == 0


def _explorables_mount(page, path: str) -> list[str]:
    roots = page.locator(".bv-explorable")
    kinds = [roots.nth(k).get_attribute("data-kind") for k in range(roots.count())]
    assert kinds == EXPECTED_EXPLORABLES[path]
    assert page.locator(".bv-explorable[data-mounted=yes]").count() == len(kinds)
    return kinds


def _labels_never_overlap(page, width: int) -> None:
    """No two labels of a control (check boxes, sliders) overlap on screen."""
    overlaps = page.locator(".bv-explorable").evaluate_all(OVERLAPS)
    assert not overlaps, f"overlapping labels at {width} px: {overlaps[:5]}"


def _guided_steps(page) -> None:
    """Perform every "Try this" step of every explorable of the chapter, in order (on the page as loaded)."""
    done = [check_steps(root) for root in page.locator(".bv-explorable").all()]
    assert done and all(n >= 1 for n in done), done


def _no_dead_controls(page) -> None:
    """Every enabled control of the explorables changes its chart when used (on the page as loaded)."""
    used = 0
    for root in page.locator(".bv-explorable").all():
        used += controls_change_charts(root)
    assert used == page.locator(".bv-explorable").locator(CONTROLS).count()


def _library_numbers(page, kinds: list[str], stem: str) -> None:
    """Drive every explorable of the chapter (:data:`SITE_SETTINGS` per control kind) against benchvote."""
    roots = page.locator(".bv-explorable")
    for k, kind in enumerate(kinds):
        root = roots.nth(k)
        root.scroll_into_view_if_needed()
        assert CHECKS[kind](root, np.random.default_rng(k), settings=SITE_SETTINGS) >= SITE_SETTINGS
        root.screenshot(path=str(SHOTS / f"explorable__{stem}_{k}_after.png"))


@pytest.mark.parametrize("path", PAGES)
def test_every_page_at_1280_px(server, browser, path):
    """Every page on a desktop (1280 px), loaded in light mode, one load for every check at this width.

    - axe-core finds no serious violation (every rule; ``test_accessibility.py``), on the page as loaded, nor
      (the colour rules) with the system switched to dark mode and back;
    - the page renders offline: its title, no request leaves 127.0.0.1, no console or page error and no failed
      request (at any time during the test), every image loads, MathJax typesets the formulas (screenshot kept);
    - a chapter: every figure has alt text and one caption, and no control in its outputs needs a kernel;
    - a chapter with explorables: they mount, no two labels overlap, every guided step shows what it promises
      (on the page as loaded); reloaded, every control changes its chart (no dead controls); then the
      explorables show the library's numbers.
    """
    context, page, log = open_page(browser, server, path, 1280, "light")
    found = Findings(f"{path}, 1280 px", log)
    try:
        html = page.content()
        with found.check("accessibility"):
            violations = book_violations(page, 1280, "light")
            assert not violations, "\n".join(violations)
        with found.check("accessibility in dark mode"):
            try:
                switch_scheme(page, "dark")
                violations = book_violations(page, 1280, "dark")
            finally:
                switch_scheme(page, "light")
            assert not violations, "\n".join(violations)
        with found.check("renders offline"):
            screenshot(page, SHOTS / (path.replace("/", "__").removesuffix(".html") + ".png"))
            _renders_offline(page, log, html)
        if path.startswith("notebooks/"):
            with found.check("figures have alt text and a caption"):
                _figures_have_alt_text_and_a_caption(page, path)
            with found.check("no controls that need a kernel"):
                _no_loose_controls(page)
        if path in EXPECTED_EXPLORABLES:
            stem = Path(path).stem
            kinds: list[str] = []
            with found.check("explorables mount"):
                kinds = _explorables_mount(page, path)
            for k, root in enumerate(page.locator(".bv-explorable").all()):
                root.scroll_into_view_if_needed()
                root.screenshot(path=str(SHOTS / f"explorable__{stem}_{k}_before.png"))
            with found.check("labels never overlap"):
                _labels_never_overlap(page, 1280)
            with found.check("guided steps"):
                _guided_steps(page)
            log.phase = "reload"
            page.reload(wait_until="load")  # every file is in the browser's cache now; settle waits for the rest
            settle(page)
            with found.check("no dead controls"):
                _no_dead_controls(page)
            with found.check("explorables show the library numbers"):
                _library_numbers(page, kinds, stem)
        with found.check("no console or page error"):
            assert not log.errors, "\n".join(log.errors[:10])
    finally:
        context.close()
    found.done()


def test_every_chapter_has_an_explorable():
    chapters = [p for p in toc_pages() if p.startswith("notebooks/") and not p.endswith("audit.html")]
    assert set(chapters) <= set(EXPECTED_EXPLORABLES), set(chapters) - set(EXPECTED_EXPLORABLES)


def test_api_reference_documents_every_public_function():
    import importlib
    import inspect

    import benchvote

    html = (HTML / "book" / "api.html").read_text(encoding="utf-8")
    missing = []
    for module in benchvote.SUBMODULES:
        mod = importlib.import_module(f"benchvote.{module}")
        for name in mod.__all__:
            obj = getattr(mod, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if (module, name) == ("voting", "borda"):  # re-exported; documented once, under aggregation
                continue
            if f'id="benchvote.{module}.{name}"' not in html:
                missing.append(f"{module}.{name}")
    assert not missing, f"the API page lacks {missing}"
    assert "Parameters" in html and "References" in html and "See also" in html


def test_api_reference_is_searchable(server, browser):
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{server}/search.html?q=ranked_pairs", wait_until="networkidle")
        page.wait_for_selector("#search-results li", timeout=15000)
        links = page.eval_on_selector_all("#search-results li a", "els => els.map(e => e.getAttribute('href'))")
        assert any("api.html" in link for link in links), links
    finally:
        context.close()


# --------------------------------------------------------------------------- phones, dark mode, navigation

WIDTHS = (390, 1280)
CHAPTER = "notebooks/elections.html"


#: The theme has turned the page's ``data-theme="auto"`` (as served) into the scheme it shows.  Once, on a loaded
#: machine, "auto" was still there when the network had been idle (make test, 2026-11-29).
RESOLVED = "() => document.documentElement.dataset.theme !== 'auto'"


def _open(browser, server, path, width, scheme="light"):
    """A page at a given width, switched to the colour scheme with the theme's own button."""
    context = browser.new_context(viewport={"width": width, "height": 860})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/{path}", wait_until="networkidle")
    page.wait_for_function(RESOLVED)
    for _ in range(3):
        if page.evaluate("() => document.documentElement.dataset.theme") == scheme:
            break
        page.locator(".theme-switch-button:visible").first.click()
    assert page.evaluate("() => document.documentElement.dataset.theme") == scheme
    return context, page, errors


SIDEBAR_SHOWN = """() => Array.from(document.querySelectorAll('.bd-docs-nav a')).some(a => {
  const r = a.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.right > 0 && r.left < innerWidth
    && getComputedStyle(a).visibility !== 'hidden';
})"""


def _sidebar_shown(page) -> bool:
    """A link of the chapter list is on screen (in the sidebar or in the theme's sidebar dialog)."""
    return page.evaluate(SIDEBAR_SHOWN)


def _turns(page, probe: str, want: bool) -> bool:
    """Whether ``probe`` (a JavaScript function of no argument) returns ``want`` within 5 s (the theme animates)."""
    try:
        page.wait_for_function(f"() => ({probe})() === {str(want).lower()}", timeout=5000)
    except PlaywrightTimeout:
        return False
    return True


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_the_theme_sidebar_button_opens_and_closes_the_chapter_list(server, browser, width, scheme):
    context, page, errors = _open(browser, server, CHAPTER, width, scheme)
    try:
        toggle = page.locator(".primary-toggle:visible")
        assert toggle.count() == 1, "the theme shows one sidebar button"
        shown = _sidebar_shown(page)
        assert shown == (width >= 960), "the chapter list starts open on a desktop and closed on a phone"
        if width < 960:  # the phone's frame, closed: the colour rules (test_accessibility.py)
            page.wait_for_function("() => document.documentElement.dataset.bvA11y === 'complete'")  # a11y.js
            assert not serious_violations(page, COLOUR_RULES, within=FRAME)
        toggle.click()
        assert _turns(page, SIDEBAR_SHOWN, not shown), "the sidebar button did nothing"
        if width < 960:  # and the chapter list open in its dialog
            assert not serious_violations(page, COLOUR_RULES, within="#pst-primary-sidebar-modal")
        page.screenshot(path=str(SHOTS / f"sidebar__{width}_{scheme}.png"))
        if width < 960:
            assert page.evaluate("() => document.getElementById('pst-primary-sidebar-modal').open")
            page.keyboard.press("Escape")
        else:
            toggle.click()
        assert _turns(page, SIDEBAR_SHOWN, shown), "the sidebar did not come back to where it started"
        if width < 960:  # and the chapter list can be used: a link in the dialog leads to another page
            toggle.click()
            assert _turns(page, SIDEBAR_SHOWN, True), "the sidebar button did nothing the second time"
            page.locator("#pst-primary-sidebar-modal .bd-docs-nav a:visible").last.click()
            page.wait_for_load_state("networkidle")
            assert not page.url.endswith(CHAPTER)
        assert not errors, errors
    finally:
        context.close()


def _contrast(fg: list[float], bg: list[float]) -> float:
    def lum(c):
        lin = [x / 255 / 12.92 if x / 255 <= 0.04045 else ((x / 255 + 0.055) / 1.055) ** 2.4 for x in c[:3]]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


COLOURS = """els => els.map(e => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  let b = e, bg = 'rgba(0, 0, 0, 0)';
  while (b && (bg === 'rgba(0, 0, 0, 0)' || bg === 'transparent')) {
    bg = getComputedStyle(b).backgroundColor;
    b = b.parentElement;
  }
  return [e.textContent.trim().slice(0, 30), rgb(getComputedStyle(e).color), rgb(bg)];
})"""


OVERLAPS = """roots => roots.flatMap(root => {
  const boxes = Array.from(root.querySelectorAll('label')).filter(l => l.offsetParent)
    .map(l => { const r = document.createRange(); r.selectNodeContents(l);  // the text's own extent, not its box
                return [l.textContent.trim().slice(0, 30), r.getBoundingClientRect()]; });
  const out = [];
  boxes.forEach(([a, r], i) => boxes.slice(i + 1).forEach(([b, q]) => {
    if (r.left < q.right - 1 && q.left < r.right - 1 && r.top < q.bottom - 1 && q.top < r.bottom - 1) out.push([a, b]);
  }));
  return out;
})"""


CONTENTS_SHOWN = """() => Array.from(document.querySelectorAll('.bd-toc-nav a, #pst-page-toc-nav a')).some(a => {
  const r = a.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.right > 0 && r.left < innerWidth && r.top < innerHeight
    && r.bottom > 0 && getComputedStyle(a).visibility !== 'hidden';
})"""


def _page_contents_shown(page) -> bool:
    """A link of the page's contents ("On this page") is on screen."""
    return page.evaluate(CONTENTS_SHOWN)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_contents_button_opens_and_closes_the_contents_on_a_phone(server, browser, scheme):
    context, page, errors = _open(browser, server, CHAPTER, 390, scheme)
    try:
        toggle = page.locator(".secondary-toggle:visible")
        assert toggle.count() == 1, "the theme shows one page-contents button on a phone"
        assert not _page_contents_shown(page), "the page's contents start closed on a phone"
        toggle.click()
        assert _turns(page, CONTENTS_SHOWN, True), "the page-contents button did nothing"
        assert toggle.get_attribute("aria-expanded") == "true"
        assert not serious_violations(page, COLOUR_RULES, within="#pst-secondary-sidebar-modal")
        page.screenshot(path=str(SHOTS / f"page_contents__390_{scheme}.png"))
        page.keyboard.press("Escape")
        assert _turns(page, CONTENTS_SHOWN, False), "Escape did not close the page's contents"
        toggle.click()
        assert _turns(page, CONTENTS_SHOWN, True), "the page-contents button did nothing the second time"
        link = page.locator("#pst-secondary-sidebar-modal nav a:visible").nth(1)
        target = link.get_attribute("href")
        link.click()
        assert _turns(page, CONTENTS_SHOWN, False), "following a link of the contents left them open"
        assert page.url.endswith(target) and toggle.get_attribute("aria-expanded") == "false"
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_first_visit_follows_the_system_colour_scheme(server, browser, scheme):
    """A reader whose system prefers dark gets dark at once; the theme's switch still changes it."""
    context = browser.new_context(viewport={"width": 390, "height": 860}, color_scheme=scheme)
    page = context.new_page()
    try:
        page.goto(f"{server}/{CHAPTER}", wait_until="networkidle")
        page.wait_for_function(RESOLVED)  # the page is served as "auto"; the theme's script resolves it
        assert page.evaluate("() => document.documentElement.dataset.theme") == scheme
        other = "light" if scheme == "dark" else "dark"
        page.locator(".theme-switch-button:visible").first.click()
        assert page.evaluate("() => document.documentElement.dataset.theme") == other
        page.reload(wait_until="networkidle")
        page.wait_for_function(RESOLVED)
        assert page.evaluate("() => document.documentElement.dataset.theme") == other, "the choice is kept"
    finally:
        context.close()


#: The colour-mode button, as a reader's screen reader names it (``a11y.js``), and what is left of its icons' titles.
MODE_BUTTON = """() => {
  const b = document.querySelector('.theme-switch-button');
  return {label: b.getAttribute('aria-label'), titles: b.querySelectorAll('title, [title]').length,
          icons: b.querySelectorAll('svg').length, waiting: b.querySelectorAll('i').length};
}"""
ICONS_DRAWN = "n => { const b = document.querySelector('.theme-switch-button');"
ICONS_DRAWN += " return b.querySelectorAll('svg').length === n && !b.querySelector('i'); }"


def test_the_colour_mode_button_keeps_its_name_whenever_font_awesome_draws_its_icons(server, browser):
    """Font Awesome turns each titled icon into an ``<svg>`` with a ``<title>`` at an animation frame of its own.

    Before ``a11y.js`` ran, its titles made the button's text "Light Dark System Settings" and the repair dropped the
    name "Color mode"; after the page's load event (seen once in CI, on the search page) they stayed beside the name,
    which axe-core reports as a name that leaves out the visible text (label-content-name-mismatch, WCAG 2.5.3).
    Both orders are made here: the button keeps its name and no title is left, and axe-core finds nothing.
    """
    context = browser.new_context(viewport={"width": 390, "height": 860})
    page = context.new_page()
    a11y = (HTML / "_static" / "a11y.js").read_text()
    try:  # Font Awesome first: a11y.js held back until the icons are drawn
        page.route("**/a11y.js*", lambda route: route.fulfill(body="", content_type="text/javascript"))
        page.goto(f"{server}/search.html", wait_until="networkidle")
        page.wait_for_function(ICONS_DRAWN, arg=3)
        assert page.evaluate(MODE_BUTTON)["titles"] == 3, "Font Awesome keeps the titles as <title>"
        page.add_script_tag(content=a11y)
        assert page.evaluate(MODE_BUTTON) == {"label": "Color mode", "titles": 0, "icons": 3, "waiting": 0}
        # and after the load event: a titled icon added, drawn by Font Awesome when it likes
        page.evaluate("""() => document.querySelector('.theme-switch-button')
          .insertAdjacentHTML('beforeend', '<i class="fa-solid fa-sun" title="Light"></i>')""")
        page.wait_for_function(ICONS_DRAWN, arg=4)
        assert page.evaluate(MODE_BUTTON) == {"label": "Color mode", "titles": 0, "icons": 4, "waiting": 0}
        assert not serious_violations(page, ["label-content-name-mismatch"])
    finally:
        context.close()


FIGURE_TEXT = """async () => {
  const out = [];
  for (const img of document.querySelectorAll('.bd-article figure img, .bd-article .cell_output img')) {
    if (!img.offsetParent) continue;  // not shown at this width (the other layout of the figure)
    const r = img.getBoundingClientRect();
    const box = img.closest('figure, .output') || img.parentElement;
    const item = {src: img.src.split('/').pop(), left: r.left, right: r.right,
                  scrolls: box.scrollWidth > box.clientWidth + 1, smallest: null};
    if (img.src.endsWith('.svg')) {
      const svg = new DOMParser().parseFromString(await (await fetch(img.src)).text(), 'image/svg+xml');
      const width = svg.documentElement.viewBox.baseVal.width;
      // every run of text: a <tspan> (mathtext: a superscript is a smaller tspan) or a <text> without one
      const sizes = Array.from(svg.querySelectorAll('tspan, text'))
        .filter(t => t.textContent.trim() && !t.querySelector('tspan'))
        .map(t => parseFloat(((t.getAttribute('style') || '').match(/font-size:\\s*([\\d.]+)px/) || [0, 0])[1]));
      item.smallest = Math.min(...sizes) * r.width / width;
    }
    out.push(item);
  }
  return out;
}"""


#: Every element of the page's article that holds text, and its ancestors, with what axe-core's colour rules read
#: from each: its colours, background, opacity, and whether its text counts as large (24 px, or 18.66 px and bold).
#: Null for an element that does not show (or shows on hover only).  Images hold no text (a phone shows its own,
#: narrower figures) and are not listed.
_COLOUR_FACTS = """() => {
  const article = document.querySelector('article.bd-article');
  if (!article) return [];  // a page of the theme's own (search): frame only
  const els = window.__bvEls || (window.__bvEls = (() => {
    const seen = new Set();
    const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      if (!t.data.trim()) continue;
      for (let n = t.parentElement; n && !seen.has(n); n = n.parentElement) seen.add(n);
    }
    return Array.from(seen);
  })());
  return els.map(e => {
    if (!e.checkVisibility({visibilityProperty: true})) return null;
    const s = getComputedStyle(e), px = parseFloat(s.fontSize);
    if (s.opacity === '0') return null;  // shown on hover only (a code cell's copy button), as axe-core skips it
    const large = px >= 24 || (px >= 18.66 && Number(s.fontWeight) >= 700);
    return [s.color, s.backgroundColor, s.backgroundImage, s.opacity, s.filter, s.mixBlendMode, large].join(' ; ');
  });
}"""


def _colours_do_not_depend_on_the_width(page) -> None:
    """What shows on a phone shows on a desktop, with the colours, background and text size axe-core reads there.

    In both schemes: this is why the colour rules run on every page at 1280 px only (the docstring of
    ``test_accessibility.py``).  The page, at 390 px in dark mode, is widened to 1280 px, switched to light mode
    and narrowed back: it ends at 390 px in light mode.  Nothing is reloaded (the explorables keep the charts they
    drew for the phone).
    """
    size = page.viewport_size
    facts = {(390, "dark"): page.evaluate(_COLOUR_FACTS)}
    page.set_viewport_size({"width": 1280, "height": size["height"]})
    page.evaluate(TRANSITIONS_DONE)
    facts[1280, "dark"] = page.evaluate(_COLOUR_FACTS)
    switch_scheme(page, "light")
    facts[1280, "light"] = page.evaluate(_COLOUR_FACTS)
    page.set_viewport_size(size)
    page.evaluate(TRANSITIONS_DONE)
    facts[390, "light"] = page.evaluate(_COLOUR_FACTS)
    for scheme in ("dark", "light"):
        phone, desktop = facts[390, scheme], facts[1280, scheme]
        differ = [k for k, (p, d) in enumerate(zip(phone, desktop)) if p is not None and p != d]
        names = page.evaluate(
            "ks => ks.map(k => { const e = window.__bvEls[k]; return e.tagName.toLowerCase() + '.' + e.className; })",
            differ[:5],
        )
        assert not differ, f"{len(differ)} elements look otherwise at 1280 px ({scheme}): " + "; ".join(
            f"{n}: {phone[k]!r} -> {desktop[k]!r}" for n, k in zip(names, differ)
        )


def test_the_width_check_sees_a_colour_that_only_a_phone_shows(server, browser):
    """``_colours_do_not_depend_on_the_width`` fails on a page whose text takes another colour on a narrow screen."""
    context, page, _ = open_page(browser, server, "book/intro.html", 390, "dark")
    try:
        _colours_do_not_depend_on_the_width(page)  # the page as built passes; it ends in light mode
        switch_scheme(page, "dark")
        page.add_style_tag(content="@media (max-width: 640px) { .bd-article p { color: #777 !important; } }")
        with pytest.raises(AssertionError, match=r"elements look otherwise at 1280 px \(dark\): p\."):
            _colours_do_not_depend_on_the_width(page)
    finally:
        context.close()


def _not_wider_than_a_phone(page, path: str) -> None:
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    culprits = page.evaluate(
        """() => Array.from(document.querySelectorAll('.bd-article *')).filter(e => {
             const r = e.getBoundingClientRect(); return r.right > innerWidth + 1 && r.width > 0 &&
             !e.closest('.cell_output .output, .pst-scrollable-table-container, .bv-explorable, figure, pre,'
                        + ' mjx-container, .math');
           }).slice(0, 3).map(e => e.tagName + '.' + e.className)"""
    )
    assert wide <= 390, f"{path} is {wide} px wide at 390 px: {culprits}"


def _figures_fit_a_phone(page, path: str, scheme: str) -> None:
    """Every figure shows its phone layout: inside the screen, no sideways scrolling, text >= 9 px.

    The text size is measured in the SVG the page shows: each word's font size times the ratio of the
    image's width on screen to the SVG's own width.  Explorable charts fit the screen too.
    """
    figures = page.evaluate(FIGURE_TEXT)
    assert figures, f"{path}: no figure shown at 390 px"
    for fig in figures:
        assert fig["smallest"] is not None, f"{path}: {fig['src']} has no phone layout"
        assert fig["smallest"] >= 9, f"{path}: text of {fig['smallest']:.1f} px in {fig['src']} at 390 px"
        assert fig["left"] >= 0 and fig["right"] <= 390, f"{path}: {fig['src']} leaves the screen: {fig}"
        assert not fig["scrolls"], f"{path}: {fig['src']} scrolls sideways"
    charts = page.locator(".bv-explorable svg").evaluate_all(
        "svgs => svgs.filter(s => s.getBoundingClientRect().width > 0)"
        ".map(s => [s.getBoundingClientRect().left, s.getBoundingClientRect().right])"
    )
    assert all(left >= 0 and right <= 390 for left, right in charts), f"{path}: a chart leaves the screen {charts}"
    for k, fig in enumerate(page.locator(".bd-article figure").all()):
        fig.scroll_into_view_if_needed()
        fig.screenshot(path=str(SHOTS / f"phone_figure__{Path(path).stem}_{k}_{scheme}.png"))


def _explorables_legible(page, path: str, scheme: str) -> None:
    """Chart text at least 11 px on screen, button and label text readable against its background."""
    sizes = page.evaluate(
        """() => Array.from(document.querySelectorAll('.bv-explorable svg.bv-chart')).flatMap(svg => {
             const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
             return Array.from(svg.querySelectorAll('text'))
               .map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
           })"""
    )
    assert sizes and min(sizes) >= 11, f"chart text of {min(sizes):.1f} px on a phone"
    for what in ("button", ".bv-heading", "label", "td"):
        for text, fg, bg in page.locator(f".bv-explorable {what}").evaluate_all(COLOURS):
            if text:
                assert _contrast(fg, bg) >= 4.5, f"{what} '{text}' is hard to read in {scheme} mode ({fg} on {bg})"
    for root in page.locator(".bv-explorable").all():
        root.scroll_into_view_if_needed()
        root.screenshot(path=str(SHOTS / f"phone__{Path(path).stem}_{scheme}.png"))
        break


@pytest.mark.parametrize("path", PAGES)
def test_every_page_on_a_phone(server, browser, path):
    """Every page at 390 px, loaded in dark mode and then switched to light, one load for every check at this width.

    In each scheme:

    - what shows here shows at 1280 px with the same colours, background and text size (the colour rules run
      there: ``test_accessibility.py``); no page error;
    - a chapter: every figure fits the phone and its text stays legible (screenshots kept);
    - a chapter with explorables: they are legible (chart text, contrast of their words).

    Once (dark mode, as loaded): axe-core finds no serious violation of every rule but the colour rules
    (``test_accessibility.py``), a page of the book is not wider than the phone, and no two labels of an explorable
    overlap.
    """
    context, page, log = open_page(browser, server, path, 390, "dark")
    found = Findings(f"{path}, 390 px", log)
    try:
        for scheme in ("dark", "light"):
            if scheme == "light":
                page.evaluate("() => window.scrollTo(0, 0)")  # the checks below scrolled: back to the top
                with found.check("colours do not depend on the width"):  # and the page turns light
                    _colours_do_not_depend_on_the_width(page)
                if page.evaluate("() => document.documentElement.dataset.theme") != "light":
                    switch_scheme(page, "light")  # the check above stopped before it did
            if scheme == "dark":
                with found.check("accessibility"):
                    violations = book_violations(page, 390, scheme)
                    assert not violations, "\n".join(violations)
            if scheme == "dark" and path in toc_pages():
                with found.check("not wider than a phone"):
                    _not_wider_than_a_phone(page, path)
            if path.startswith("notebooks/"):
                with found.check(f"figures fit a phone and their text stays legible ({scheme})"):
                    _figures_fit_a_phone(page, path, scheme)
            if path in EXPECTED_EXPLORABLES:
                if scheme == "dark":
                    with found.check("labels never overlap"):
                        _labels_never_overlap(page, 390)
                with found.check(f"explorables are legible on a phone ({scheme})"):
                    _explorables_legible(page, path, scheme)
        with found.check("no page error"):
            assert not log.errors, "\n".join(log.errors[:10])
    finally:
        context.close()
    found.done()
