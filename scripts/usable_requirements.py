"""Print a requirements file without the index options that this machine cannot reach.

The requirement files name PyTorch's CPU wheel index (``--extra-index-url https://download.pytorch.org/whl/cpu``)
so that pip takes the CPU build of torch on Linux and Windows.  pip asks every index for every package and
retries an unreachable one five times per package, so on a machine that cannot resolve the index's host (an
offline build machine with a local torch wheel) the option turns a two-minute install into a long one.  This
script leaves such options out and says so on stderr; everything else, pins included, is copied unchanged.

    python scripts/usable_requirements.py requirements.txt > _build/requirements.txt
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from urllib.parse import urlparse

INDEX_OPTIONS = ("--extra-index-url", "--index-url", "-i", "--find-links", "-f")


def reachable(url: str) -> bool:
    host = urlparse(url).hostname
    if not host:  # a local path or file:// URL
        return True
    try:
        socket.getaddrinfo(host, 443)
    except OSError:
        return False
    return True


def usable(lines: list[str], base: Path | None = None) -> list[str]:
    """The lines without unreachable index options; nested ``-r`` files are inlined (paths relative to ``base``)."""
    base = base or Path.cwd()
    out = []
    for line in lines:
        parts = line.split()
        if parts and parts[0] in ("-r", "--requirement") and len(parts) > 1:
            nested = (base / parts[1]).resolve()
            out.extend(usable(nested.read_text(encoding="utf-8").splitlines(keepends=True), nested.parent))
            continue
        if parts and parts[0] in INDEX_OPTIONS and len(parts) > 1 and not reachable(parts[1]):
            print(
                f"usable_requirements: {parts[1]} cannot be reached from this machine; leaving out '{line.strip()}'",
                file=sys.stderr,
            )
            continue
        out.append(line if line.endswith("\n") else line + "\n")
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: usable_requirements.py REQUIREMENTS_FILE", file=sys.stderr)
        return 2
    path = Path(argv[1]).resolve()
    sys.stdout.write("".join(usable(path.read_text(encoding="utf-8").splitlines(keepends=True), path.parent)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
