"""axe-core in Chromium: no serious or critical WCAG 2.1 A/AA violation on any page of the book or in an audit report.

axe-core comes from npm with the site's other browser files (``scripts/fetch_web_assets.py`` puts it in
``_build/test_assets/``, outside the site) and is injected into each page from disk.  Every page of the
built book is checked at 1280 and 390 px, in light and dark mode (the mode the system asks for, which
the site follows); one browser, one context per setting, pages in sequence.

Which rules run where: the rules about colour (:data:`COLOUR_RULES`) depend on the width (which elements
show) and on the theme (their colours), so they run in all four settings.  Every other rule reads the
document's structure, names, roles and what is visible, which the width can change and the theme cannot
(both themes share one document; only colours change): each of those runs once per width, at 1280 px in
light mode and at 390 px in dark mode.  That covers every rule in every setting it can differ in, at
about two thirds of the cost of every rule four times.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_site import PAGES, browser, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[1]
AXE = ROOT / "_build" / "test_assets" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

#: The rules whose result depends on the colour scheme (axe-core's "color" category within the tags above).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
#: The settings that run every rule; the other two run :data:`COLOUR_RULES` only (see the module docstring).
EVERY_RULE = {(1280, "light"), (390, "dark")}

RUN = """async ([tags, only]) => {
  const scope = only.length ? {type: 'rule', values: only} : {type: 'tag', values: tags};
  const result = await axe.run(document, {runOnly: scope, resultTypes: ['violations']});
  return result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => `${v.id} (${v.impact}, ${v.nodes.length} nodes): `
      + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '));
}"""


def _axe():
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `python scripts/fetch_web_assets.py` (part of `make book`)")
    return AXE


def serious_violations(page, only: list[str] | None = None) -> list[str]:
    """axe-core's serious and critical WCAG 2.1 A/AA violations on the page, one line per rule (``only``: these)."""
    page.add_script_tag(path=str(_axe()))
    return page.evaluate(RUN, [TAGS, only or []])


def test_the_colour_rules_are_the_colour_dependent_rules_of_the_tags(browser):  # noqa: F811
    """COLOUR_RULES is axe-core's own list: every rule of the checked tags that it files under colour."""
    page = browser.new_page()
    try:
        page.set_content("<!doctype html><html lang='en'><title>t</title><main><p>x</p></main></html>")
        page.add_script_tag(path=str(_axe()))
        colour = page.evaluate(
            """tags => axe.getRules(tags).filter(r => r.tags.includes('cat.color')).map(r => r.ruleId)""", TAGS
        )
    finally:
        page.close()
    assert sorted(colour) == sorted(COLOUR_RULES)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 390])
def test_no_page_has_a_serious_accessibility_violation(server, browser, width, scheme):  # noqa: F811
    _axe()
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    found = {}
    try:
        for path in PAGES:
            page.goto(f"{server}/{path}", wait_until="networkidle")
            page.wait_for_function("() => document.documentElement.dataset.bvA11y === 'complete'")  # a11y.js
            assert page.evaluate("() => document.documentElement.dataset.theme") == scheme
            violations = serious_violations(page, None if (width, scheme) in EVERY_RULE else COLOUR_RULES)
            if violations:
                found[path] = violations
    finally:
        context.close()
    assert not found, "\n".join(f"{path}: {v}" for path, vs in found.items() for v in vs)


def test_an_audit_report_has_no_serious_accessibility_violation(browser, tmp_path):  # noqa: F811
    from benchvote.audit import audit

    rng = np.random.default_rng(3)
    board = pd.DataFrame(
        rng.normal(size=(12, 6)) + np.linspace(1, 0, 12)[:, None],
        index=[f"model {i}" for i in range(12)],
        columns=[f"task {k}" for k in range(6)],
    )
    path = tmp_path / "report.html"
    path.write_text(audit(board, n_boot=100, time_limit=60).to_html("a board"), encoding="utf-8")
    found = []
    for width in (1280, 390):
        for scheme in ("light", "dark"):
            context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
            page = context.new_page()
            try:
                page.goto(path.as_uri(), wait_until="load")
                page.wait_for_timeout(200)
                found += [f"{width} px, {scheme}: {v}" for v in serious_violations(page)]
            finally:
                context.close()
    assert not found, "\n".join(found)
