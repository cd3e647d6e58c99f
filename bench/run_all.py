"""Run every benchmark in bench/ in one go and print their tables (`make bench`)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    for script in ("missing.py", "domains.py", "sensitivity.py", "threads.py", "scale.py", "audit.py", "corpus.py"):
        print(f"\n===== bench/{script} =====", flush=True)
        sys.argv = [str(HERE / script)]
        try:
            runpy.run_path(str(HERE / script), run_name="__main__")
        except SystemExit as done:
            if done.code not in (0, None):
                raise
