"""Run ``jupyter-book build`` with Sphinx reading the pages in parallel processes.

    python scripts/build_book.py [--jobs N] <jupyter-book build arguments>

Jupyter Book 1.x builds through Sphinx but its command line always reads the pages one at a time, so the
chapters' notebooks (executed while their page is read) run one after the other.  Sphinx can read in several
processes (its ``-j``); Jupyter Book's own entry point, ``jupyter_book.sphinx.build_sphinx``, takes the number
as ``jobs`` and the command line only leaves it at 1.  This script runs the same command with that one argument
set (default: the number of CPUs, at most 4), so that on two cores the long trade-off chapter runs beside the
other chapters instead of after them.  Every extension the book loads declares that it can be read in parallel
(``book/_ext/bookfixes.py`` declares it for ``sphinx_multitoc_numbering``, which only renumbers the tables of
contents after the reading).  Everything else (configuration, table of contents, warnings as errors,
``--keep-going``) is Jupyter Book's own.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys

import jupyter_book.sphinx
from jupyter_book.cli.main import main


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ours, rest = parser.parse_known_args(argv)
    # jupyter_book.cli.main imports build_sphinx from this module when the build starts: the argument reaches it
    jupyter_book.sphinx.build_sphinx = functools.partial(jupyter_book.sphinx.build_sphinx, jobs=ours.jobs)
    return main(["build", *rest], prog_name="jupyter-book")  # click exits with the build's status


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
