"""axe-core in Chromium: no serious or critical WCAG 2.1 A/AA violation on any page of the book or in an audit report.

axe-core comes from npm with the site's other browser files (``scripts/fetch_web_assets.py`` puts it in
``_build/test_assets/``, outside the site) and is injected into each page from disk (``chromium.serious_violations``).
Every page of the built book is checked at 1280 and 390 px, in light and dark mode (the mode the system asks for,
which the site follows), on the page as loaded or right after the system's mode changed, before any control is
used.

Which rules run where.  The rules about colour (:data:`COLOUR_RULES`) read each text's colours and background,
which the theme sets (both themes share one document; only colours change), and which text shows, which the width
can change.  Every other rule reads the document's structure, names, roles and what is visible, which the width
can change and the theme cannot.  So, on every page of the book (:data:`chromium.BOOK_RULES`):

- at 1280 px, every rule in light mode and the colour rules in dark mode;
- at 390 px, every rule but the colour rules, in dark mode;
- the colour rules at 390 px run on the theme's frame (header, sidebars and their dialogs, footer: the part of
  a page a phone lays out and shows otherwise), closed and open, in both modes, on one chapter
  (``test_the_theme_sidebar_button_opens_and_closes_the_chapter_list``, ``test_the_page_contents_button_...``);
  the frame is the same on every page;
- and on every page at 390 px, in both modes, ``test_every_page_on_a_phone`` checks that every element of the
  article (and each of its ancestors) that shows there also shows at 1280 px with the same colours, background,
  opacity and text size class (large or not), the only things the colour rules read from it.  The phone's own
  figures (images: no text) are the exception.  A phone thus shows no text whose colour rules were not run.

Measured on the built book (Chromium, quiet machine): the colour rules cost 58 s over the pages at 1280 px and about
as much at 390 px in each mode, about three quarters of axe-core's time on a page (14 of 20 s on the API reference
at 390 px).  With the width check in their place, the phone tests (every page, the two theme dialogs) went
from 355 to 294 CPU s.

Where: a page load costs about as much as the colour rules, and the theme only swaps colours (``data-theme``)
when the system's scheme changes, so one load per page and width serves both modes, in ``test_site.py``'s tests,
which run axe-core first thing after the load and again right after switching the scheme (``switch_scheme``):
1280 px loaded light, then dark (``test_every_page_at_1280_px``); 390 px loaded dark, then light
(``test_every_page_on_a_phone``).  An audit report (its own stylesheet) is checked here, every rule at 1280 px
light and 390 px dark, the colour rules in the other two settings.
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
