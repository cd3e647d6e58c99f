"""Small text helpers of the report's prose: counts with their noun, short lists of names.

One home for the wording rules the sections share, so no sentence says
"1 pairs", "pair(s)" or ends a cut list with "....".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._validation import numbered


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and its noun in the right number.

    Examples
    --------
    >>> plural(1, "pair"), plural(3, "pair"), plural(0, "model"), plural(2, "is", "are")
    ('1 pair', '3 pairs', '0 models', '2 are')
    """
    return f"{n} {numbered(n, word, many)}"


def suffix(n: int) -> str:
    """``"s"`` unless ``n`` is 1 (the Jinja filter ``s``: ``model{{ n|s }}``)."""
    return numbered(n, "", "s")


def some(names: Sequence[Any], shown: int, noun: str = "") -> str:
    """The first ``shown`` names, then how many more, in words (never an ellipsis; one more is named).

    Examples
    --------
    >>> some(["A", "B", "C", "D"], 2), some(["A", "B"], 2), some(["A"], 3), some(list("ABCDE"), 3, "model")
    ('A, B and 2 more', 'A and B', 'A', 'A, B, C and 2 more models')
    >>> some(["A", "B", "C"], 2)
    'A, B and C'
    """
    items = [str(x) for x in names]
    if len(items) <= shown + 1:
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""
    rest = len(items) - shown
    return ", ".join(items[:shown]) + f" and {rest} more" + (f" {noun if rest == 1 else noun + 's'}" if noun else "")
