"""The tests mirror the modules: every module of lib/benchvote has its test file, named after it.

The rule, one home for every concept:

* ``lib/benchvote/<name>.py`` is tested in ``tests/test_<name>.py`` (a leading underscore dropped:
  ``_kernels.py`` in ``test_kernels.py``);
* ``lib/benchvote/<package>/<name>.py`` in ``tests/test_<package>_<name>.py`` (``sensitivity/_boxes.py`` in
  ``test_sensitivity_boxes.py``, ``audit/_registry.py`` in ``test_audit_registry.py``);
* an audit section, ``lib/benchvote/audit/sections/<name>.py``, in ``tests/test_audit_section_<name>.py``.

A package's ``__init__.py`` only gathers its modules.  The exceptions below say where their tests are instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "lib" / "benchvote"
TESTS = ROOT / "tests"

#: Modules without a test file of their own, each with the reason and the file that tests it.
EXCEPTIONS = {
    # `python -m benchvote` is two lines calling the command line's main(); test_cli.py runs it as a process
    "__main__.py": "test_cli.py",
    # the audit's plumbing is tested through whole audits and their reports
    "audit/_errors.py": "test_audit.py",  # the input errors: test_bad_input, test_the_refusals_name_what_is_wrong
    "audit/_html.py": "test_audit.py",  # the page: the page tests in Chromium, and test_report.py
    "audit/_prepare.py": "test_audit.py",  # the complete part and the work table: test_audit_section_table.py too
    "audit/_rules.py": "test_audit.py",  # the rules and normalisations the audit runs: the normalize tests
}


def expected_test_file(module: Path) -> str:
    """The test file of a module, by the rule of this file's docstring."""
    rel = module.relative_to(PACKAGE)
    name = module.stem.removeprefix("_")
    if rel.parent == Path("audit/sections"):
        return f"test_audit_section_{name}.py"
    prefix = "_".join(rel.parent.parts)
    return f"test_{prefix}_{name}.py" if prefix else f"test_{name}.py"


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" and "__pycache__" not in p.parts)


def test_the_rule_names_the_files_of_a_few_modules():
    def expected(rel):
        return expected_test_file(PACKAGE / rel)

    assert expected("voting.py") == "test_voting.py"
    assert expected("_kernels.py") == "test_kernels.py"
    assert expected("sensitivity/_boxes.py") == "test_sensitivity_boxes.py"
    assert expected("sensitivity/cardinal_exact.py") == "test_sensitivity_cardinal_exact.py"
    assert expected("audit/_registry.py") == "test_audit_registry.py"
    assert expected("audit/sections/possible_winners.py") == "test_audit_section_possible_winners.py"


@pytest.mark.parametrize("module", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_module_has_its_test_file(module):
    rel = module.relative_to(PACKAGE).as_posix()
    if rel in EXCEPTIONS:
        assert (TESTS / EXCEPTIONS[rel]).is_file(), f"{rel}: the file named to test it, {EXCEPTIONS[rel]}, is gone"
        assert not (TESTS / expected_test_file(module)).is_file(), f"{rel} has its own test file now: drop it here"
        return
    want = expected_test_file(module)
    assert (TESTS / want).is_file(), f"{rel} has no test file: its tests belong in tests/{want}"


def test_every_audit_section_has_its_test_file():
    from benchvote.audit import SECTIONS

    for name in SECTIONS:
        assert (TESTS / f"test_audit_section_{name}.py").is_file(), name


def test_every_exception_is_a_module():
    for rel in EXCEPTIONS:
        assert (PACKAGE / rel).is_file(), f"{rel} is no longer a module: drop its exception"


def test_every_test_file_of_a_module_names_a_module():
    """The other way round: a test file named like a module's (test_sensitivity_x.py, test_audit_section_x.py)
    tests a module that exists, so that a renamed or removed module does not leave its tests under an old name."""
    mirrored = {expected_test_file(m) for m in modules()}
    for pattern in ("test_sensitivity_*.py", "test_audit_section_*.py", "test_kernels.py"):
        for path in TESTS.glob(pattern):
            assert path.name in mirrored, f"{path.name} names no module of lib/benchvote"


# --------------------------------------------------------------------------- every function readable at once


def _lint_length():
    import importlib.util

    spec = importlib.util.spec_from_file_location("lint_length", ROOT / "scripts" / "lint_length.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_function_of_the_library_has_more_than_80_lines_of_code():
    lint = _lint_length()
    assert lint.too_long([PACKAGE]) == []


def test_the_length_gate_counts_code_not_docstrings(tmp_path):
    lint = _lint_length()
    doc = '    """' + "\n".join(["A long explanation."] * 200) + '"""\n'
    code = "".join(f"    x{k} = {k}\n" for k in range(lint.MAX_LINES))
    (tmp_path / "fine.py").write_text("def fine():\n" + doc + code, encoding="utf-8")
    (tmp_path / "long.py").write_text("def long():\n" + doc + code + "    return x0\n", encoding="utf-8")
    assert lint.too_long([tmp_path / "fine.py"]) == []
    [problem] = lint.too_long([tmp_path])
    assert "long has 81 lines of code" in problem
