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

It also checks every figure without the chapters asking for it: the script writes an IPython startup file into
``_build/ipython`` and points ``IPYTHONDIR`` there, and, while each chapter executes, names the chapter's record
``_build/figure-data/<chapter>.jsonl`` in ``BENCHVOTE_FIGURE_LOG``.  Every kernel the build starts then runs
``tests/figure_lint.py``'s ``record_figures`` (the labels and colours of every figure a cell shows, judged by
``tests/test_figures.py``), which also turns on the figures' phone layouts (``benchvote.plotting.phone_twins``).
A reader who runs a chapter elsewhere gets neither.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path
from typing import Any

import jupyter_book.sphinx
from jupyter_book.cli.main import main
from myst_nb.core.execute.direct import NotebookClientDirect

ROOT = Path(__file__).resolve().parents[1]
#: The environment variable that names, to a chapter's kernel, the file its figures are recorded in.
FIGURE_LOG = "BENCHVOTE_FIGURE_LOG"
#: The IPython startup file of the build's kernels (run before a chapter's first cell).
STARTUP = f"""\
# Written by scripts/build_book.py: every kernel of the book build records its figures (tests/test_figures.py).
# A function, so that the chapter's namespace gains no name (a chapter must import what it uses itself).
def _benchvote_record_figures():
    import importlib.util
    import os

    if not os.environ.get({FIGURE_LOG!r}):
        return
    get_ipython().run_line_magic("matplotlib", "inline")  # registers the figure formatter phone_twins wraps
    spec = importlib.util.spec_from_file_location("figure_lint", {str(ROOT / "tests" / "figure_lint.py")!r})
    lint = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lint)
    lint.record_figures(os.environ[{FIGURE_LOG!r}])


_benchvote_record_figures()
del _benchvote_record_figures
"""


def record_figures_in_every_kernel(build: Path) -> None:
    """Install the figure recorder in every kernel this process starts, and name each chapter's record."""
    startup = build / "ipython" / "profile_default" / "startup" / "00-benchvote-figures.py"
    startup.parent.mkdir(parents=True, exist_ok=True)
    startup.write_text(STARTUP)
    os.environ["IPYTHONDIR"] = str(build / "ipython")  # the kernels inherit the environment
    start = NotebookClientDirect.start_client

    def start_client(self: Any) -> Any:
        # one chapter at a time in each of Sphinx's reading processes, so the variable names this chapter
        os.environ[FIGURE_LOG] = str(build / "figure-data" / f"{Path(self.path).stem}.jsonl")
        try:
            return start(self)
        finally:
            os.environ.pop(FIGURE_LOG, None)

    NotebookClientDirect.start_client = start_client  # type: ignore[method-assign]


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ours, rest = parser.parse_known_args(argv)
    # jupyter_book.cli.main imports build_sphinx from this module when the build starts: the argument reaches it
    jupyter_book.sphinx.build_sphinx = functools.partial(jupyter_book.sphinx.build_sphinx, jobs=ours.jobs)
    record_figures_in_every_kernel(ROOT / "_build")
    return main(["build", *rest], prog_name="jupyter-book")  # click exits with the build's status


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
