"""The built site in a real browser: every page loads offline, renders, and keeps its requests local.

Needs the output of ``make book`` in ``_build/html`` and Debian's Chromium at
``/usr/bin/chromium``.  Screenshots of every page are kept in
``_build/screenshots/``.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import threading
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import pytest
import yaml
from chromium import CHROMIUM, FLAGS
from explorable_checks import CHECKS, check_steps, controls_change_charts

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


def visit(browser, url: str, shot: Path):
    """Open one page; return the page object and what went wrong on the way."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    outside: list[str] = []
    page.on("console", lambda msg: problems.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None)
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on("requestfailed", lambda req: problems.append(f"request failed: {req.url} ({req.failure})"))

    def on_request(req):
        host = urlparse(req.url).hostname
        if req.url.startswith(("data:", "blob:", "about:")):
            return
        if host != "127.0.0.1":
            outside.append(req.url)

    def on_response(resp):
        if resp.status >= 400:
            problems.append(f"HTTP {resp.status}: {resp.url}")

    page.on("request", on_request)
    page.on("response", on_response)
    page.goto(url, wait_until="networkidle")
    page.wait_for_timeout(800)  # let MathJax and the widget manager finish
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot), full_page=True, timeout=120_000)  # the API page is very tall
    return context, page, problems, outside


@pytest.mark.parametrize("path", PAGES)
def test_page_renders_offline(server, browser, path):
    shot = SHOTS / (path.replace("/", "__").removesuffix(".html") + ".png")
    context, page, problems, outside = visit(browser, f"{server}/{path}", shot)
    try:
        assert "benchvote" in page.title(), f"unexpected title {page.title()!r}"
        assert not outside, f"requests left 127.0.0.1: {outside[:5]}"
        assert not problems, "\n".join(problems[:10])
        broken = page.evaluate(
            "() => Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)"
        )
        assert not broken, f"images that did not load: {broken}"
        html = page.content()
        if 'class="math' in html or "\\(" in html:
            assert page.locator("mjx-container").count() > 0, "MathJax did not typeset the formulas"
    finally:
        context.close()


def test_every_chapter_has_a_figure_with_alt_text_and_caption(server, browser):
    for path in toc_pages():
        if not path.startswith("notebooks/"):
            continue
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{server}/{path}", wait_until="load")
        figures = page.locator("figure")
        assert figures.count() > 0, f"{path} has no captioned figure"
        for k in range(figures.count()):
            fig = figures.nth(k)
            for img in fig.locator("img").all():
                assert (img.get_attribute("alt") or "").strip(), f"{path}: figure {k} image without alt text"
            assert fig.locator("figcaption").count() == 1, f"{path}: figure {k} without caption"
        context.close()


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
    "notebooks/strategy.html": ["effort"],
    "notebooks/domains.html": ["domains"],
    "notebooks/design.html": ["label-noise"],
}
CONTROLS = "input:not([type=hidden]), select, textarea, button, [role=slider], [contenteditable=true]"


def _chapter(browser, server, path):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/{path}", wait_until="networkidle")
    page.wait_for_timeout(500)
    return context, page, errors


@pytest.mark.parametrize("path", sorted(EXPECTED_EXPLORABLES))
def test_explorables_show_the_library_numbers(server, browser, path):
    """Drive every explorable of the chapter (at least five settings per control kind) against benchvote."""
    context, page, errors = _chapter(browser, server, path)
    try:
        roots = page.locator(".bv-explorable")
        kinds = [roots.nth(k).get_attribute("data-kind") for k in range(roots.count())]
        assert kinds == EXPECTED_EXPLORABLES[path]
        assert page.locator(".bv-explorable[data-mounted=yes]").count() == len(kinds)
        stem = Path(path).stem
        for k, kind in enumerate(kinds):
            root = roots.nth(k)
            root.scroll_into_view_if_needed()
            root.screenshot(path=str(SHOTS / f"explorable__{stem}_{k}_before.png"))
            assert CHECKS[kind](root, np.random.default_rng(k), settings=5) >= 5
            root.screenshot(path=str(SHOTS / f"explorable__{stem}_{k}_after.png"))
        assert not errors, errors
    finally:
        context.close()


def test_every_chapter_has_an_explorable():
    chapters = [p for p in toc_pages() if p.startswith("notebooks/") and not p.endswith("audit.html")]
    assert set(chapters) <= set(EXPECTED_EXPLORABLES), set(chapters) - set(EXPECTED_EXPLORABLES)


@pytest.mark.parametrize("path", sorted(EXPECTED_EXPLORABLES))
def test_guided_steps_show_what_they_promise(server, browser, path):
    """On a fresh page, perform every "Try this" step of every explorable of the chapter, in order."""
    context, page, errors = _chapter(browser, server, path)
    try:
        done = [check_steps(root) for root in page.locator(".bv-explorable").all()]
        assert done and all(n >= 1 for n in done), done
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize("path", [p for p in toc_pages() if p.startswith("notebooks/")])
def test_no_dead_controls(server, browser, path):
    """Every enabled control in a chapter's outputs belongs to an explorable and changes its chart when used.

    The theme's copy buttons on code outputs work without a kernel and are not rank controls.
    """
    context, page, errors = _chapter(browser, server, path)
    try:
        outputs = page.locator(".cell_output")
        loose = outputs.locator(CONTROLS).evaluate_all(
            "cs => cs.filter(c => !c.closest('.bv-explorable') && !c.classList.contains('copybtn')"
            " && !c.disabled && c.offsetParent !== null)"
            ".map(c => c.outerHTML.slice(0, 120))"
        )
        assert not loose, f"controls that cannot work without a kernel: {loose[:3]}"
        assert page.locator(".jupyter-widgets .widget-checkbox, .jupyter-widgets .widget-slider").count() == 0
        used = 0
        for root in page.locator(".bv-explorable").all():
            used += controls_change_charts(root)
        assert used == page.locator(".bv-explorable").locator(CONTROLS).count()
        assert not errors, errors
    finally:
        context.close()


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


def _open(browser, server, path, width, scheme="light"):
    """A page at a given width, switched to the colour scheme with the theme's own button."""
    context = browser.new_context(viewport={"width": width, "height": 860})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/{path}", wait_until="networkidle")
    for _ in range(3):
        if page.evaluate("() => document.documentElement.dataset.theme") == scheme:
            break
        page.locator(".theme-switch-button:visible").first.click()
    assert page.evaluate("() => document.documentElement.dataset.theme") == scheme
    return context, page, errors


def _sidebar_shown(page) -> bool:
    """A link of the chapter list is on screen (in the sidebar or in the theme's sidebar dialog)."""
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('.bd-docs-nav a')).some(a => {
             const r = a.getBoundingClientRect();
             return r.width > 0 && r.height > 0 && r.right > 0 && r.left < innerWidth
               && getComputedStyle(a).visibility !== 'hidden';
           })"""
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_the_theme_sidebar_button_opens_and_closes_the_chapter_list(server, browser, width, scheme):
    context, page, errors = _open(browser, server, CHAPTER, width, scheme)
    try:
        toggle = page.locator(".primary-toggle:visible")
        assert toggle.count() == 1, "the theme shows one sidebar button"
        shown = _sidebar_shown(page)
        assert shown == (width >= 960), "the chapter list starts open on a desktop and closed on a phone"
        toggle.click()
        page.wait_for_timeout(400)
        assert _sidebar_shown(page) != shown, "the sidebar button did nothing"
        page.screenshot(path=str(SHOTS / f"sidebar__{width}_{scheme}.png"))
        if width < 960:
            assert page.evaluate("() => document.getElementById('pst-primary-sidebar-modal').open")
            page.keyboard.press("Escape")
        else:
            toggle.click()
        page.wait_for_timeout(400)
        assert _sidebar_shown(page) == shown, "the sidebar did not come back to where it started"
        if width < 960:  # and the chapter list can be used: a link in the dialog leads to another page
            toggle.click()
            page.wait_for_timeout(300)
            page.locator("#pst-primary-sidebar-modal .bd-docs-nav a:visible").last.click()
            page.wait_for_load_state("networkidle")
            assert not page.url.endswith(CHAPTER)
        assert not errors, errors
    finally:
        context.close()


@pytest.mark.parametrize("path", toc_pages())
def test_no_page_is_wider_than_a_phone(server, browser, path):
    context, page, _ = _open(browser, server, path, 390)
    try:
        page.wait_for_timeout(300)
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        culprits = page.evaluate(
            """() => Array.from(document.querySelectorAll('.bd-article *')).filter(e => {
                 const r = e.getBoundingClientRect(); return r.right > innerWidth + 1 && r.width > 0 &&
                 !e.closest('.cell_output .output, .pst-scrollable-table-container, .bv-explorable, figure, pre,'
                            + ' mjx-container, .math');
               }).slice(0, 3).map(e => e.tagName + '.' + e.className)"""
        )
        assert wide <= 390, f"{path} is {wide} px wide at 390 px: {culprits}"
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


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", sorted(EXPECTED_EXPLORABLES))
def test_explorables_are_legible_on_a_phone(server, browser, path, scheme):
    """At 390 px: chart text at least 11 px on screen, button and label text readable against its background."""
    context, page, errors = _open(browser, server, path, 390, scheme)
    try:
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
        assert not errors, errors
    finally:
        context.close()


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


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("path", sorted(EXPECTED_EXPLORABLES))
def test_explorable_labels_never_overlap(server, browser, path, width):
    """No two labels of a control (check boxes, sliders) overlap on screen, on a desktop or a phone."""
    context, page, errors = _open(browser, server, path, width, "light")
    try:
        overlaps = page.locator(".bv-explorable").evaluate_all(OVERLAPS)
        assert not overlaps, f"overlapping labels at {width} px: {overlaps[:5]}"
        assert not errors, errors
    finally:
        context.close()


def _page_contents_shown(page) -> bool:
    """A link of the page's contents ("On this page") is on screen."""
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('.bd-toc-nav a, #pst-page-toc-nav a')).some(a => {
             const r = a.getBoundingClientRect();
             return r.width > 0 && r.height > 0 && r.right > 0 && r.left < innerWidth && r.top < innerHeight
               && r.bottom > 0 && getComputedStyle(a).visibility !== 'hidden';
           })"""
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_contents_button_opens_and_closes_the_contents_on_a_phone(server, browser, scheme):
    context, page, errors = _open(browser, server, CHAPTER, 390, scheme)
    try:
        toggle = page.locator(".secondary-toggle:visible")
        assert toggle.count() == 1, "the theme shows one page-contents button on a phone"
        assert not _page_contents_shown(page), "the page's contents start closed on a phone"
        toggle.click()
        page.wait_for_timeout(400)
        assert _page_contents_shown(page), "the page-contents button did nothing"
        assert toggle.get_attribute("aria-expanded") == "true"
        page.screenshot(path=str(SHOTS / f"page_contents__390_{scheme}.png"))
        page.keyboard.press("Escape")
        page.wait_for_timeout(400)
        assert not _page_contents_shown(page), "Escape did not close the page's contents"
        toggle.click()
        page.wait_for_timeout(300)
        link = page.locator("#pst-secondary-sidebar-modal nav a:visible").nth(1)
        target = link.get_attribute("href")
        link.click()
        page.wait_for_timeout(500)
        assert not _page_contents_shown(page), "following a link of the contents left them open"
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
        assert page.evaluate("() => document.documentElement.dataset.theme") == scheme
        other = "light" if scheme == "dark" else "dark"
        page.locator(".theme-switch-button:visible").first.click()
        assert page.evaluate("() => document.documentElement.dataset.theme") == other
        page.reload(wait_until="networkidle")
        assert page.evaluate("() => document.documentElement.dataset.theme") == other, "the choice is kept"
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


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", [p for p in toc_pages() if p.startswith("notebooks/")])
def test_figures_fit_a_phone_and_their_text_stays_legible(server, browser, path, scheme):
    """At 390 px every figure shows its phone layout: inside the screen, no sideways scrolling, text >= 9 px.

    The text size is measured in the SVG the page shows: each word's font size times the ratio of the
    image's width on screen to the SVG's own width.  Explorable charts fit the screen too.
    """
    context, page, errors = _open(browser, server, path, 390, scheme)
    try:
        page.wait_for_timeout(300)
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
        assert not errors, errors
    finally:
        context.close()
