"""Small Sphinx fixes for the benchvote book.

- Jupyter Book 1.x registers some inline scripts twice (sphinx-thebe's
  configuration declares ``const THEBE_JS_URL`` twice, which is a page error in
  every browser).  This extension drops exact duplicates from each page's
  script list.
- Alt texts computed from the data: an image's alt text (``mystnb: image: alt:``
  in a cell's metadata) may hold ``{{key}}`` placeholders, replaced by the plain
  text of the value glued under ``key`` on the same page.  An unknown key is a
  warning, so the ``-W`` build fails.
- Figures on a phone: a figure output whose metadata holds a phone layout
  (``benchvote-narrow``, written by ``benchvote.plotting.phone_twins`` while the
  chapter executes) becomes two images, the wide PNG (class ``bv-wide``) and the
  phone layout as SVG (class ``bv-narrow``); ``book/static/book.css`` shows one
  of them by the screen's width.
- The bibliography's list: docutils marks each reference ``role="doc-biblioentry"``
  inside a ``role="list"``; that role is deprecated in ARIA and no longer counts
  as a list item (axe-core's aria-required-children, critical), so each entry
  becomes a ``role="listitem"``.
"""

from __future__ import annotations

import hashlib
import re

from docutils import nodes
from myst_nb.core.render import NbElementRenderer
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx_proof.domain import ProofDomain

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


def biblioentries_as_list_items(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if body and 'role="doc-biblioentry"' in body:
        context["body"] = body.replace('role="doc-biblioentry"', 'role="listitem"')


NARROW = "benchvote-narrow"
_render_image = NbElementRenderer.render_image


def render_image_with_phone_layout(self, data):
    """myst-nb's image output, followed by the figure's phone layout when it has one."""
    out = _render_image(self, data)
    svg = data.output_metadata.get(data.mime_type, {}).get(NARROW)
    if not svg or len(out) != 1:
        return out
    wide = out[0]
    body = svg.encode("utf-8")
    uri = self.write_file([f"{hashlib.sha256(body).hexdigest()}.svg"], body, overwrite=False, exists_ok=True)
    narrow = nodes.image(uri=uri, alt=wide.get("alt", ""), classes=[*wide.get("classes", []), "bv-narrow"])
    wide["classes"] = [*wide.get("classes", []), "bv-wide"]
    return [wide, narrow]


#: Extensions Jupyter Book loads that do not declare whether Sphinx may read and write pages in parallel
#: (``scripts/build_book.py`` does): ``sphinx_multitoc_numbering`` only changes how the tables of contents are
#: numbered, a step Sphinx runs in the main process after every page is read; ``sphinx_jupyterbook_latex`` adds
#: transforms that look at one document at a time and act only for the LaTeX builder.  Neither keeps state
#: between pages.  Undeclared, Sphinx warns (an error under ``-W``) and reads one page at a time.
UNDECLARED_PARALLEL_SAFE = ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex")


def merge_proof_domaindata(self, docnames, otherdata) -> None:
    """Nothing to merge: sphinx-proof keeps its records on ``env.proof_list``, merged by its own handler.

    It declares parallel reading safe but leaves Sphinx's ``Domain.merge_domaindata``, which raises.
    """


def declare_parallel_safe(app):
    for name in UNDECLARED_PARALLEL_SAFE:
        extension = app.extensions.get(name)
        if extension is not None:
            extension.parallel_read_safe = extension.parallel_write_safe = True


def setup(app):
    NbElementRenderer.render_image = render_image_with_phone_layout
    ProofDomain.merge_domaindata = merge_proof_domaindata
    app.connect("builder-inited", declare_parallel_safe)
    app.connect("html-page-context", dedupe_scripts, priority=900)
    app.connect("html-page-context", biblioentries_as_list_items)
    app.add_post_transform(GluedAltText)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
