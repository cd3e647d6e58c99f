"""Fail when a function of the library has more than MAX_LINES lines of code (its docstring not counted).

Usage: ``python scripts/lint_length.py [paths...]`` (default ``lib``).  A function's length runs from the first
statement after its docstring to its last line, so a long explanation never counts against it, and a nested
function counts in its own right as well as in its parent's.  ``make lint`` runs it beside ruff's complexity rule
(C901, configured in pyproject.toml).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

MAX_LINES = 80


def code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the first statement after the docstring to the end of the function."""
    body = node.body
    has_doc = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and len(body) > 1
    first = body[1] if has_doc and isinstance(body[0].value.value, str) else body[0]
    return (node.end_lineno or node.lineno) - first.lineno + 1


def too_long(paths: list[Path]) -> list[str]:
    out = []
    for root in paths:
        for path in sorted(root.rglob("*.py") if root.is_dir() else [root]):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and code_lines(node) > MAX_LINES:
                    lines = code_lines(node)
                    out.append(f"{path}:{node.lineno}: {node.name} has {lines} lines of code (> {MAX_LINES})")
    return out


if __name__ == "__main__":
    problems = too_long([Path(p) for p in sys.argv[1:]] or [Path("lib")])
    print("\n".join(problems) or f"every function has at most {MAX_LINES} lines of code")
    sys.exit(1 if problems else 0)
