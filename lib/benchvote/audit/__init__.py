r"""Audit one leaderboard: every measure of the book on a table you bring.

:func:`audit` runs the book's measures on one models x tasks table and
returns an :class:`Audit`, whose sections hold plain numbers (ready for
JSON) and say in two sentences what they mean, and whose verdict opens the
report with a few plain sentences.  :meth:`Audit.to_json` and
:meth:`Audit.to_html` write the report; the command line ``benchvote audit``
(:mod:`benchvote.cli`) reads a CSV or TSV and calls these.  :func:`audit_battles`
audits a pairwise battle log (``model_a``, ``model_b``, ``winner``), which has
no tasks: only the sections that read one run (each section's ``reads``).

**Sections.**  Each section is one module of :mod:`benchvote.audit.sections`
that registers a :class:`Section` (name, title, when it runs, what it
computes as a typed result, how it renders, what it says in the verdict);
:func:`section_registry` lists them in report order.  Adding a section is adding one
module and its test.

**Which table each section sees.**  The ``standings`` section ranks every
model under a rule that handles missing scores, with its coverage (tasks
scored / tasks); the measures that need every cell work on the largest
complete part of the table (see :mod:`benchvote.audit._prepare`), and each
says which models and tasks it uses.

**Units.**  When the task spreads differ by more than a factor of
:data:`UNIT_RATIO`, or a column is named like a cost (:data:`COST_WORDS`), a
``units`` notice opens the report.

**Normalisation.**  ``normalize`` (:data:`NORMALIZATIONS`) transforms each
measured task before the cardinal parts only: the mean-score ranking, the
possible winners, the cardinal sensitivity and the default eps.  Every
transform is increasing, so the ordinal parts are the same under every
normalisation.

**Costs.**  Columns declared in ``costs`` are left out of every aggregation;
the ``pareto`` section gives the front of the primary rule's score against
the costs (always lower-is-better).

**Budgets and scale.**  Exact parts stop at work budgets, a named level of
:data:`BUDGETS` (``budget``; :data:`BOX_WORK` boxes and :data:`MILP_NODES`
nodes at the default level), so the same table, options and seed give
the same report on every run and machine; ``time_limit`` is only a
wall-clock safety cap, and a part it stops says so (``stopped``).  Parts
whose cost grows faster than the square of the number of models run on the
top models only, and say so (``scope``).
"""

from __future__ import annotations

from ..voting import KEMENY_MAX_MODELS
from ._budget import BUDGETS, DEFAULT_BUDGET, Budget
from ._errors import AuditInputError, NotDefined
from ._registry import Output, Section, Sentence, section_registry
from ._rules import NORMALIZATIONS, Rule
from ._run import BOX_WORK, MILP_NODES, VERDICT_SENTENCES, Audit, Step, audit, audit_battles, progress_bar, summary
from .sections.units import COST_WORDS, UNIT_RATIO

#: Every section, in report order (name -> :class:`Section`).
SECTIONS = section_registry()

__all__ = [
    "Audit",
    "audit",
    "audit_battles",
    "SECTIONS",
    "NORMALIZATIONS",
    "AuditInputError",
    "NotDefined",
    "Section",
    "Output",
    "Sentence",
    "Step",
    "summary",
    "progress_bar",
    "KEMENY_MAX_MODELS",
    "VERDICT_SENTENCES",
    "Rule",
    "section_registry",
    "BOX_WORK",
    "BUDGETS",
    "DEFAULT_BUDGET",
    "Budget",
    "MILP_NODES",
    "UNIT_RATIO",
    "COST_WORDS",
]
