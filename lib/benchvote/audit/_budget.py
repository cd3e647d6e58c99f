"""The audit's work budgets: named levels, each a set of work limits for the exact parts.

The exact parts (the cardinal sensitivity's box search, coordinate search and
mixed-integer program, the possible winners' programs, the ordinal
sensitivity's program) stop at counts of work, never at a time, so the same
table, options, seed and level give the same report on every run and machine.
A level trades certificates for seconds: ``quick`` for a first look,
``standard`` (the default) keeps an interactive audit of a leaderboard of a
few hundred models and about a hundred tasks to seconds, ``thorough`` searches
as far as the audit ever did, for the researcher who wants the certificates.
The report names the level (``settings.budget``) and every section that a
budget stopped says so.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Budget:
    """The work limits of one level (every count is deterministic)."""

    #: Boxes the exact box search of the cardinal sensitivity may evaluate (up to ten distinct tasks).
    box_search_boxes: int
    #: Line searches times ordered pairs the cardinal coordinate search may spend (more tasks).
    search_pair_steps: int
    #: Branch-and-bound nodes of each mixed-integer program (cardinal, possible top-k, ordinal).
    milp_nodes: int
    #: The cardinal mixed-integer program runs only up to this many pairs reversible on their own (one binary each).
    milp_pairs: int
    #: The top-k possible-winner programs run among this many of the primary ranking's best models.
    top_k_models: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


#: The levels, cheapest first.
BUDGETS = {
    "quick": Budget(box_search_boxes=20_000, search_pair_steps=2_000_000, milp_nodes=50, milp_pairs=0, top_k_models=10),
    "standard": Budget(
        box_search_boxes=200_000, search_pair_steps=20_000_000, milp_nodes=200, milp_pairs=300, top_k_models=20
    ),
    "thorough": Budget(
        box_search_boxes=2_000_000, search_pair_steps=2_000_000_000, milp_nodes=500, milp_pairs=1500, top_k_models=30
    ),
}
#: The level of the command and of :func:`benchvote.audit.audit` when none is named.
DEFAULT_BUDGET = "standard"


def describe(level: str) -> str:
    """One line per level for ``--help``: its name and its limits."""
    b = BUDGETS[level]
    return (
        f"{level}: {b.box_search_boxes:,} boxes, {b.search_pair_steps:,} pair-steps of the search, "
        f"{b.milp_nodes:,} nodes per program, "
        + (f"the cardinal program up to {b.milp_pairs:,} pairs, " if b.milp_pairs else "no cardinal program, ")
        + f"top-k among {b.top_k_models} models"
    )
