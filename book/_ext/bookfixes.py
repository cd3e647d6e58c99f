"""Small Sphinx fixes for the benchvote book.

- Jupyter Book 1.x registers some inline scripts twice (sphinx-thebe's
  configuration declares ``const THEBE_JS_URL`` twice, which is a page error in
  every browser).  This extension drops exact duplicates from each page's
  script list.
- Alt texts computed from the data: an image's alt text (``mystnb: image: alt:``
  in a cell's metadata) may hold ``{{key}}`` placeholders, replaced by the plain
  text of the value glued under ``key`` on the same page.  An unknown key is a
  warning, so the ``-W`` build fails.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

LOGGER = logging.getLogger(__name__)
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_]+)\s*\}\}")


def _glued_text(env, key: str) -> str | None:
    from myst_nb.ext.glue.crossref import read_glue_cache

    data = read_glue_cache(env.mystnb_config.output_folder, env.docname).get(key)
    if data is None or "text/plain" not in data["data"]:
        return None
    text = str(data["data"]["text/plain"])
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return text


class GluedAltText(SphinxPostTransform):
    """Fill ``{{key}}`` placeholders in alt texts from the page's glue data."""

    default_priority = 10

    def apply(self, **kwargs) -> None:
        for image in self.document.findall(nodes.image):
            alt = image.get("alt", "")
            if "{{" not in alt:
                continue

            image["alt"] = PLACEHOLDER.sub(lambda match, at=image: self._value(match, at), alt)

    def _value(self, match: re.Match, image: nodes.image) -> str:
        text = _glued_text(self.env, match.group(1))
        if text is None:
            LOGGER.warning(
                "alt text placeholder {{%s}} has no glued value on this page", match.group(1), location=image
            )
            return match.group(0)
        return text


def _key(js):
    attrs = getattr(js, "attributes", {}) or {}
    return (getattr(js, "filename", None) or "", tuple(sorted((k, str(v)) for k, v in attrs.items())))


def dedupe_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen = set()
    unique = []
    for js in scripts:
        key = _key(js)
        if key in seen:
            continue
        seen.add(key)
        unique.append(js)
    scripts[:] = unique


def setup(app):
    app.connect("html-page-context", dedupe_scripts, priority=900)
    app.add_post_transform(GluedAltText)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
