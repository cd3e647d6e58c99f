"""One policy for ``method="auto"``: which exact solver certifies the cardinal sensitivity best on a table.

Every entry point that chooses a solver on its own (:func:`benchvote.sensitivity.cardinal_sensitivity`,
:func:`benchvote.sensitivity.cardinal_sensitivity_exact` and the audit's ``cardinal_sensitivity`` section)
asks :func:`exact_method`, so the thresholds live here once.

What decided them (``bench/certified.py``, ``bench/trajectory.py`` and the trade-off chapter's appendix):

- up to :data:`AUTO_EXACT_MAX_TASKS` distinct task columns the box search over the weight simplex proves the
  value on every board of the library within its default work budget (GLUE's 87 models included);
- beyond, on few ordered pairs the mixed-integer program proves the value (VTAB, 16 models and 120 pairs that
  are not tied, within seconds; the HEIM boards, 325 pairs), while on thousands of pairs its bound stalls
  (MMLU, 4,748 pairs: 0.80 after 60 s) where the clique linear program's weight-space search certifies far
  better (0.52 at its root).
"""

from __future__ import annotations

__all__ = ["AUTO_EXACT_MAX_TASKS", "AUTO_MILP_MAX_PAIRS", "exact_method"]

#: Largest number of distinct task columns for which ``method="auto"`` runs the exact box search.
AUTO_EXACT_MAX_TASKS = 10
#: Largest number of ordered pairs (not tied in the published order) for which it runs the mixed-integer program.
AUTO_MILP_MAX_PAIRS = 400


def exact_method(n_tasks: int, n_pairs: int) -> str:
    """The exact solver ``method="auto"`` runs on ``n_tasks`` distinct task columns and ``n_pairs`` ordered pairs.

    Parameters
    ----------
    n_tasks : int
        Distinct task columns of the table (identical columns count once).
    n_pairs : int
        Pairs of models that the published order does not tie.

    Returns
    -------
    str
        ``"boxes"``, ``"milp"`` or ``"cliques"``.

    Examples
    --------
    >>> exact_method(9, 3740), exact_method(19, 120), exact_method(57, 4748)
    ('boxes', 'milp', 'cliques')
    """
    if n_tasks <= AUTO_EXACT_MAX_TASKS:
        return "boxes"
    return "milp" if n_pairs <= AUTO_MILP_MAX_PAIRS else "cliques"
