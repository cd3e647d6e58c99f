"""Debian's Chromium for the browser tests: where it is, how it is started (headless, no network of its own), and
axe-core run in one of its pages (``test_accessibility.py`` and ``test_site.py``, which share page loads).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextlib.contextmanager
def offline_page(path: Path) -> Iterator[tuple[Any, list[str], list[str], list[str]]]:
    """A report file opened offline in Chromium, with what went wrong: (page, errors, requests, dialogs).

    ``requests`` lists every request that left the file; ``dialogs`` every alert, confirm or prompt
    (dismissed at once).
    """
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = browser.new_context(offline=True, viewport={"width": 1100, "height": 1000})
        page = context.new_page()
        errors: list[str] = []
        requests: list[str] = []
        dialogs: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(path.as_uri())
        try:
            yield page, errors, requests, dialogs
        finally:
            browser.close()


#: axe-core, from npm with the site's other browser files (``scripts/fetch_web_assets.py``), outside the site.
AXE = ROOT / "_build" / "test_assets" / "axe.min.js"
#: The WCAG 2.1 A/AA rules checked.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: The rules whose result depends on the colour scheme (axe-core's "color" category within :data:`TAGS`).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
#: The settings of an audit report that run every rule; the other two run :data:`COLOUR_RULES` only (why: the
#: docstring of ``test_accessibility.py``).
EVERY_RULE = {(1280, "light"), (390, "dark")}
#: What axe-core checks on every page of the book in each setting (the options of :func:`serious_violations`): every
#: rule, the colour rules, or every rule but the colour rules (why, and where the phone's frame gets its colour
#: rules: the docstring of ``test_accessibility.py``).
BOOK_RULES: dict[tuple[int, str], dict[str, Any]] = {
    (1280, "light"): {},
    (1280, "dark"): {"only": COLOUR_RULES},
    (390, "dark"): {"skip": COLOUR_RULES},
}

#: ``within`` for the theme's frame of a page of the book: everything but the article (header, sidebars and their
#: dialogs, the article's own header and footer, the page's footer), the same on every page.
FRAME = "frame"

_RUN = """async ([tags, only, skip, within, FRAME]) => {
  const scope = only.length ? {type: 'rule', values: only} : {type: 'tag', values: tags};
  const rules = Object.fromEntries(skip.map(r => [r, {enabled: false}]));
  const frame = () => {  // everything but the article: its siblings and those of each ancestor
    const roots = [];
    for (let n = document.querySelector('article.bd-article'); n && n !== document.body; n = n.parentElement)
      roots.push(...Array.from(n.parentElement.children).filter(c => c !== n));
    return roots;
  };
  const context = !within ? document
    : {include: within === FRAME ? frame() : Array.from(document.querySelectorAll(within))};
  const result = await axe.run(context, {runOnly: scope, rules, resultTypes: ['violations']});
  return result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.id} (${v.impact}, ${v.nodes.length} nodes): `
      + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '));
}"""


def axe_script() -> Path:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `python scripts/fetch_web_assets.py` (part of `make book`)")
    return AXE


def serious_violations(
    page, only: list[str] | None = None, *, skip: list[str] | None = None, within: str | None = None
) -> list[str]:
    """axe-core's serious and critical WCAG 2.1 A/AA violations on the page, one line per rule.

    ``only``: these rules; ``skip``: all but these; ``within``: the elements matching this CSS selector, or
    :data:`FRAME`.
    """
    page.add_script_tag(path=str(axe_script()))
    return page.evaluate(_RUN, [TAGS, only or [], skip or [], within, FRAME])


def book_violations(page, width: int, scheme: str) -> list[str]:
    """:func:`serious_violations` of a page of the book in a setting of :data:`BOOK_RULES`.

    The page must be as loaded or just switched to ``scheme`` (nothing clicked yet), with the book's accessibility
    repairs done (``a11y.js``).
    """
    page.wait_for_function("() => document.documentElement.dataset.bvA11y === 'complete'")  # a11y.js
    assert page.evaluate("() => document.documentElement.dataset.theme") == scheme
    found = serious_violations(page, **BOOK_RULES[(width, scheme)])
    page.evaluate("() => window.scrollTo(0, 0)")
    return found
