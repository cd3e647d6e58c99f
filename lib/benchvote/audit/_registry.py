"""The registry of audit sections: one :class:`Section` per module of :mod:`benchvote.audit.sections`.

A section is a module-level entry: its name, title, the book's chapter that
explains it, two sentences on what it means, when it runs, the function that
computes it (a typed result: a ``TypedDict`` of plain numbers, strings and
lists), the function that renders it, and the verdict sentences it
contributes.  :func:`section_registry` imports every module of the ``sections``
package once and returns the entries in report order, so adding a section is
adding one module (and its test); nothing else lists them.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: The book's chapters that explain the sections: file name (``notebooks/<name>.md``) -> title.  The report links
#: them only when given the book's address (``benchvote audit --book-url``); otherwise it names them.
CHAPTERS = {
    "elections": "Benchmarks as elections",
    "arrow": "Condorcet, Borda and Arrow",
    "tradeoff": "Diversity against stability",
    "missing": "Rankings when scores are missing",
    "uncertainty": "How sure is a ranking?",
    "domains": "When majority rule works again",
}


def chapter_url(book_url: str | None, chapter: str) -> str | None:
    """The chapter's page on the built book at ``book_url`` (its root), or None without one.

    Examples
    --------
    >>> chapter_url("https://example.org/benchvote/", "missing"), chapter_url(None, "missing")
    ('https://example.org/benchvote/notebooks/missing.html', None)
    """
    return f"{book_url.rstrip('/')}/notebooks/{chapter}.html" if book_url else None


@dataclass(frozen=True)
class Output:
    """What a section's ``compute`` returns: its JSON fields, and the library objects behind them."""

    fields: Mapping[str, Any]
    objects: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Sentence:
    """One sentence of the verdict: plain text (escaped when shown), the section it summarises, and its weight.

    ``secondary`` sentences (a diagnostic rather than an answer to the verdict's
    questions) are the first left out when the verdict would exceed
    :data:`benchvote.audit.VERDICT_SENTENCES`.  A ``lead`` sentence (the primary
    rule's leader) opens the verdict, whatever the section's place in the report.
    """

    section: str
    text: str
    secondary: bool = False
    lead: bool = False


def _always(ctx: Any) -> bool:
    return True


def _no_verdict(fields: Mapping[str, Any], done: Mapping[str, Any]) -> list[Sentence]:
    return []


@dataclass(frozen=True)
class Section:
    """One section of the audit.

    Attributes
    ----------
    name, title, chapter, about : str
        Key in the report, heading, the book's chapter that explains it (a key of :data:`CHAPTERS`), what it
        means (two sentences).
    order : float
        Place in the report (ascending).
    result : type
        The ``TypedDict`` of its fields (checked by the tests).
    compute : callable
        ``compute(ctx, done) -> Output``; ``done`` maps the names of the sections
        computed before it to their :class:`Output`.  Raises
        :class:`~benchvote.audit.NotDefined` when the measure is undefined on
        the table.
    render : callable
        ``render(view) -> str``: the section's HTML body (see :mod:`benchvote.audit._html`).
    when : callable
        ``when(ctx) -> bool``: whether the section runs on this table and these options.
    verdict : callable
        ``verdict(fields, done_fields) -> list[Sentence]``: its sentences of the verdict.
    needs : tuple of str
        The sections whose :class:`Output` ``compute`` reads from ``done``; when one of
        them is not computed, this section is not applicable either, and says which.
    complete_part : bool
        Whether it measures the table's complete part; on a table without one
        (no two models scored on the same two tasks), it is not applicable and says why.
    reads : tuple of str
        The inputs it runs on: ``"table"`` (a models x tasks table, with or
        without item scores) and ``"battles"`` (a pairwise battle log, which
        has no tasks).  Of its ``needs``, only the sections that read the
        same input are required.
    cost : str
        Its cost class, stated once here: time (and memory where it matters) in
        m models and n tasks of the table it reads, and the work budgets that
        bound it (a test checks that every section states one).  The JSON
        (each section's ``cost``) and the report show it.
    """

    name: str
    title: str
    chapter: str
    about: str
    order: float
    result: type
    compute: Callable[..., Output]
    render: Callable[..., str]
    when: Callable[[Any], bool] = _always
    verdict: Callable[..., list[Sentence]] = _no_verdict
    needs: tuple[str, ...] = ()
    complete_part: bool = True
    reads: tuple[str, ...] = ("table",)
    cost: str = ""

    @property
    def chapter_title(self) -> str:
        return CHAPTERS[self.chapter]


_REGISTRY: dict[str, Section] = {}


def register(section: Section) -> Section:
    """Add a section (called once by its module at import)."""
    if section.name in _REGISTRY and _REGISTRY[section.name] is not section:
        raise RuntimeError(f"two audit sections are named {section.name!r}")
    _REGISTRY[section.name] = section
    return section


def section_registry() -> dict[str, Section]:
    """Every section, in report order (imports the modules of :mod:`benchvote.audit.sections` once).

    Examples
    --------
    >>> list(section_registry())[:3]
    ['units', 'battles', 'table']
    """
    from . import sections as package  # a cycle: every section imports this registry

    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{info.name}")
    return dict(sorted(_REGISTRY.items(), key=lambda kv: (kv[1].order, kv[0])))
