"""Debian's Chromium for the browser tests: where it is and how it is started (headless, no network of its own)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextlib.contextmanager
def offline_page(path: Path) -> Iterator[tuple[Any, list[str], list[str], list[str]]]:
    """A report file opened offline in Chromium, with what went wrong: (page, errors, requests, dialogs).

    ``requests`` lists every request that left the file; ``dialogs`` every alert, confirm or prompt
    (dismissed at once).
    """
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = browser.new_context(offline=True, viewport={"width": 1100, "height": 1000})
        page = context.new_page()
        errors: list[str] = []
        requests: list[str] = []
        dialogs: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(path.as_uri())
        try:
            yield page, errors, requests, dialogs
        finally:
            browser.close()
