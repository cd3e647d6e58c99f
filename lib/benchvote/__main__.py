"""``python -m benchvote audit SCORES``: the same as the ``benchvote`` command."""

import sys

from .cli import main

sys.exit(main())
