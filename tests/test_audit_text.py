"""benchvote.audit._text: counts with their noun in the right number, short lists of names in words."""

from __future__ import annotations

import pytest

from benchvote.audit._text import plural, some, suffix


@pytest.mark.parametrize("n", [0, 1, 2, 3, 11, 101])
def test_a_count_takes_the_singular_for_one_only(n):
    assert plural(n, "pair") == (f"{n} pair" if n == 1 else f"{n} pairs")
    assert plural(n, "is", "are") == (f"{n} is" if n == 1 else f"{n} are")
    assert suffix(n) == ("" if n == 1 else "s")


@pytest.mark.parametrize("size", range(0, 7))
@pytest.mark.parametrize("shown", [1, 2, 3])
def test_a_short_list_names_the_first_and_counts_the_rest_without_an_ellipsis(size, shown):
    names = [f"m{i}" for i in range(size)]
    text = some(names, shown, "model")
    assert "..." not in text and "\u2026" not in text
    if size <= shown + 1:  # every name (one more is named, not counted), the last two joined by "and"
        assert text == ("" if size == 0 else names[0] if size == 1 else ", ".join(names[:-1]) + " and " + names[-1])
    else:
        rest = size - shown
        assert rest >= 2 and text == ", ".join(names[:shown]) + f" and {rest} more models"
        assert some(names, shown) == ", ".join(names[:shown]) + f" and {rest} more"
