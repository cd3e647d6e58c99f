"""The book's launch (Binder) and repository buttons point at the repository the book is built from.

The address is the environment variable ``BENCHVOTE_REPOSITORY`` if it is set
(empty: none), else git's ``origin`` remote of the checkout, read here at build
time and put into that variable, which the chapters' kernels inherit
(:func:`benchvote._repository.repository_url`).  ``_config.yml`` names no repository.  With
an address, the theme's repository button and Binder launch button use it; with
none, both buttons are left out (no link to a repository that may not exist),
and the page still offers its ``.ipynb`` twin for download, which the theme
would otherwise only copy while it builds the launch links.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from sphinx.util import logging

from benchvote._repository import ENV, repository_url, web_address

LOGGER = logging.getLogger(__name__)
CHECKOUT = Path(__file__).resolve().parents[2]


def origin_remote(checkout: Path) -> str | None:
    """The url of git's ``origin`` remote of ``checkout``, or None (no git, no repository, no origin)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(checkout), "remote", "get-url", "origin"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def build_repository(environ: MutableMapping[str, str], checkout: Path) -> str | None:
    """``BENCHVOTE_REPOSITORY`` if set, else ``origin``'s web address (None: no repository); kept in ``environ``."""
    if ENV not in environ:
        remote = origin_remote(checkout)
        environ[ENV] = (web_address(remote) or "") if remote else ""
    return repository_url(environ)


def theme_links(options: dict[str, Any], url: str | None) -> dict[str, Any]:
    """The theme options with the repository and launch buttons set for ``url`` (None: both left out)."""
    options = dict(options)
    if url is None:
        options.pop("repository_url", None)
        options["use_repository_button"] = False
        options["use_issues_button"] = False
        options["use_edit_page_button"] = False
        options["launch_buttons"] = {}
    else:
        options["repository_url"] = url
        options["use_repository_button"] = True
    return options


def set_repository(app, config) -> None:
    url = build_repository(os.environ, CHECKOUT)
    config.html_theme_options = theme_links(config.html_theme_options, url)
    app.env_repository_url = url  # read by the page handler below
    LOGGER.info("repository links: %s (set %s to change)", url or "none", ENV)


def offer_notebook(app, pagename, templatename, context, doctree) -> None:
    """Without launch buttons, copy the executed ``.ipynb`` twin for download as the theme would."""
    if getattr(app, "env_repository_url", None) is not None or not context.get("sourcename", "").endswith(".md"):
        return
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if not executed.is_file():
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(executed, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def setup(app):
    app.connect("config-inited", set_repository, priority=400)
    app.connect("html-page-context", offer_notebook, priority=500)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
