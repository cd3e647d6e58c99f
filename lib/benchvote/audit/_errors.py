"""Two ways an audit refuses: bad input (:class:`AuditInputError`) or a measure's limit (:class:`NotDefined`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..rules import RuleUndefined


class AuditInputError(ValueError):
    """The table or an option cannot be audited (the user's input, not a bug); the message says what to change."""


class NotDefined(RuleUndefined):
    """A measure is not defined on this table; its section reports the reason instead of stopping the audit.

    Only this exception (or a rule's :class:`benchvote.rules.RuleUndefined`, its base) turns a section into
    ``{"undefined": reason}``; any other error is a bug and propagates.
    """


@contextlib.contextmanager
def as_input_error() -> Iterator[None]:
    """Report the library's validation of the table and the options as :class:`AuditInputError`."""
    try:
        yield
    except AuditInputError:
        raise
    except ValueError as err:
        raise AuditInputError(str(err)) from err
