"""The sections of the audit, one module each (see :mod:`benchvote.audit._registry`)."""
