"""The HTML page of :meth:`benchvote.audit.Audit.to_html`, rendered through Jinja2 templates in ``benchvote/_web``.

**Escaping.**  Every template is rendered with autoescaping on, so any string
from the user's table or options (model and task names, the title, messages
that quote them) is escaped wherever it lands: HTML text, attribute values,
SVG.  Names are also wrapped in ``<bdi>`` so a right-to-left mark cannot
reorder a line.  JSON inside ``<script>`` (the explorables' payloads) goes
through :func:`benchvote.explorables.script_json`.

**Numbers.**  A headline number is written by the macro ``ui.v``, which
formats the value read from the JSON report and marks it with
``data-json``, the key it came from, so tests can check that the page states
the JSON's numbers.  A missing or non-finite value shows as a dash.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import jinja2
import markupsafe
import numpy as np

from ..rules import RULES
from ._registry import CHAPTERS, chapter_url, section_registry
from ._run import OK, failure, plain
from ._text import suffix

DASH = "\u2013"


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) and math.isfinite(x)


def fmt(x: Any, spec: str = ".3f") -> str:
    """A number as text; ``yes``/``no`` for a bool; a dash when it is missing or not finite."""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, str):
        return x
    if not is_number(x):
        return DASH
    if isinstance(x, (int, np.integer)) and spec.endswith("f"):
        return str(int(x))
    return format(x, spec)


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("benchvote", "_web"),
        autoescape=True,
        extensions=["jinja2.ext.do"],
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = fmt
    env.filters["s"] = suffix
    env.tests["number"] = is_number
    return env


@functools.cache
def _compiled(source: str) -> jinja2.Template:
    return environment().from_string('{% import "audit_macros.html.j2" as ui %}' + source)


@dataclass(frozen=True)
class View:
    """What a section's ``render`` sees: its fields, every section's fields, the library objects, the settings."""

    name: str
    s: dict
    all: dict
    results: dict
    settings: dict

    def html(self, template: str, **values: Any) -> markupsafe.Markup:
        """Render a section's template (the macros are in ``ui``; ``s`` is the section's fields)."""
        return markupsafe.Markup(_compiled(template).render(s=self.s, all=self.all, key=self.name, **values))


def render_page(report: Any, title: str, book_url: str | None = None) -> str:
    """One self-contained page for an :class:`benchvote.audit.Audit`; chapters linked under ``book_url`` if given.

    A section whose rendering fails is a bug in that section: the page says so
    in its place (and the report's section and :attr:`~benchvote.audit.Audit.errors`
    record it, so that a JSON written afterwards says so too); the rest of the page stands.
    """
    from .. import __version__  # the package's __init__ imports the audit: its version is read when a page is drawn

    data = report.to_dict()
    registry = section_registry()
    bodies: dict[str, str | None] = {}
    for name, fields in data["sections"].items():
        bodies[name] = None
        if fields["status"] != OK:
            continue
        try:
            bodies[name] = registry[name].render(View(name, fields, data["sections"], report.results, data["settings"]))
        except Exception as err:  # noqa: BLE001 - a bug in this section's page: said in its place, the rest stands
            report.errors[name] = err
            report.sections[name].update(failure(name, err, " to render its part of the page"))
            data["sections"][name] = plain(report.sections[name])
    return (
        environment()
        .get_template("audit_report.html.j2")
        .render(
            title=title,
            version=__version__,
            data=data,
            bodies=bodies,
            primary_label=_primary_label(data),
            chapters={c: (CHAPTERS.get(c, c), chapter_url(book_url, c)) for c in CHAPTERS},
        )
    )


def _primary_label(data: dict) -> str | None:
    """The primary rule's label; a battle log has none."""
    primary = data["settings"].get("primary")
    return None if primary is None else RULES[primary].label
