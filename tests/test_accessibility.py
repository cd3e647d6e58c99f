"""axe-core in Chromium: no serious or critical WCAG 2.1 A/AA violation on any page of the book or in an audit report.

axe-core comes from npm with the site's other browser files (``scripts/fetch_web_assets.py`` puts it in
``_build/test_assets/``, outside the site) and is injected into each page from disk (``chromium.serious_violations``).
Every page of the built book is checked at 1280 and 390 px, in light and dark mode (the mode the system asks for,
which the site follows), on the page as loaded or right after the system's mode changed, before any control is
used.

Which rules run where: the rules about colour (:data:`COLOUR_RULES`) depend on the width (which elements
show) and on the theme (their colours), so they run in all four settings.  Every other rule reads the
document's structure, names, roles and what is visible, which the width can change and the theme cannot
(both themes share one document; only colours change): each of those runs once per width, at 1280 px in
light mode and at 390 px in dark mode.  That covers every rule in every setting it can differ in, at
about two thirds of the cost of every rule four times.

Where: a page load costs about as much as the colour rules, and the theme only swaps colours (``data-theme``)
when the system's scheme changes, so the four settings take two loads per page, in ``test_site.py``'s tests,
which run axe-core first thing after the load and again right after switching the scheme (``switch_scheme``):
1280 px loaded light, then dark (``test_every_page_at_1280_px``); 390 px loaded dark, then light
(``test_every_page_on_a_phone``).  Each scheme is thus checked as first loaded at one width and as switched to at
the other.  An audit report is checked here, in its four settings.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from chromium import COLOUR_RULES, EVERY_RULE, TAGS, axe_script, serious_violations
from test_site import browser  # noqa: F401  (fixture)

pytestmark = pytest.mark.site

#: A report is ready for axe-core when every explorable of it is mounted and its fonts are loaded.
READY = """() => Array.from(document.querySelectorAll('.bv-explorable')).every(e => e.dataset.mounted === 'yes')
  && document.fonts.ready.then(() => true)"""


def test_the_colour_rules_are_the_colour_dependent_rules_of_the_tags(browser):  # noqa: F811
    """COLOUR_RULES is axe-core's own list: every rule of the checked tags that it files under colour."""
    page = browser.new_page()
    try:
        page.set_content("<!doctype html><html lang='en'><title>t</title><main><p>x</p></main></html>")
        page.add_script_tag(path=str(axe_script()))
        colour = page.evaluate(
            """tags => axe.getRules(tags).filter(r => r.tags.includes('cat.color')).map(r => r.ruleId)""", TAGS
        )
    finally:
        page.close()
    assert sorted(colour) == sorted(COLOUR_RULES)


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
                page.wait_for_function(READY, polling=100)  # the report's explorables, and its fonts
                only = None if (width, scheme) in EVERY_RULE else COLOUR_RULES  # as for the book (docstring)
                found += [f"{width} px, {scheme}: {v}" for v in serious_violations(page, only)]
            finally:
                context.close()
    assert not found, "\n".join(found)
