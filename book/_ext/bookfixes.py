"""Small Sphinx fixes for the benchvote book.

Jupyter Book 1.x registers some inline scripts twice (sphinx-thebe's
configuration declares ``const THEBE_JS_URL`` twice, which is a page error in
every browser).  This extension drops exact duplicates from each page's
script list.
"""

from __future__ import annotations


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
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
