"""Shared fixtures and hypothesis strategies."""

from __future__ import annotations

import resource
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from xdist.scheduler import LoadScopeScheduling

settings.register_profile("default", max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("default")


@st.composite
def score_tables(draw, min_models=2, max_models=7, min_tasks=1, max_tasks=6, ties=True, missing=False):
    """Models x tasks tables; integer-valued scores produce ties, floats are (almost surely) tie-free."""
    m = draw(st.integers(min_models, max_models))
    n = draw(st.integers(min_tasks, max_tasks))
    if ties:
        values = draw(arrays(np.float64, (m, n), elements=st.integers(0, 4).map(float)))
    else:
        # distinct values per column: a random permutation scaled plus jitter-free offsets
        cols = [
            np.array(draw(st.permutations(range(m))), dtype=float) * 1.5 + draw(st.floats(-10, 10)) for _ in range(n)
        ]
        values = np.column_stack(cols)
    if missing:
        mask = draw(arrays(np.bool_, (m, n), elements=st.booleans()))
        # keep at least two observed models per task and one task per model
        for j in range(n):
            if (~mask[:, j]).sum() < 2:
                mask[:2, j] = False
        for i in range(m):
            if mask[i].all():
                mask[i, 0] = False
        values = np.where(mask, np.nan, values)
    return values


@st.composite
def permutations_of(draw, size):
    return np.array(draw(st.permutations(range(size))))


def strictly_increasing_transforms():
    """Strictly increasing maps R -> R used for invariance properties."""
    return st.sampled_from(
        [
            lambda x: 3.0 * x + 7.0,
            lambda x: np.exp(x / 5.0),
            lambda x: x**3 + x,
            lambda x: np.arctan(x / 10.0),
        ]
    )


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended (user and system)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    item._cpu_mark = _cpu_seconds()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each phase's report carries the CPU seconds it took (``user_properties``; xdist sends them to the controller).

    A subprocess counts when it ends; a browser when its module's fixture closes it (so per file, not per test).
    """
    outcome = yield
    now = _cpu_seconds()
    outcome.get_result().user_properties.append(("cpu", now - getattr(item, "_cpu_mark", now)))
    item._cpu_mark = now


def pytest_terminal_summary(terminalreporter):
    """After ``--durations``: the seconds of every test file (setup, call and teardown summed), largest first.

    Under xdist the sum is worker time, not wall time.  It shows where the run's time goes file by file,
    which the slowest-tests list alone does not (``make test`` passes ``--durations``).  Beside it, the CPU seconds
    (worker and ended subprocesses): on two busy cores wall time swells with the load, CPU time much less.
    """
    if not terminalreporter.config.getoption("durations", None):
        return
    per_file: defaultdict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for reports in terminalreporter.stats.values():
        for report in reports:
            if hasattr(report, "duration") and hasattr(report, "nodeid") and report.nodeid:
                sums = per_file[report.nodeid.split("::")[0]]
                sums[0] += report.duration
                sums[1] += sum(v for k, v in getattr(report, "user_properties", ()) if k == "cpu")
    if not per_file:
        return
    wall, cpu = (sum(s[i] for s in per_file.values()) for i in (0, 1))
    terminalreporter.write_sep("=", f"seconds per test file (total {wall:.0f}; CPU {cpu:.0f})")
    for name, (seconds, cpu_seconds) in sorted(per_file.items(), key=lambda kv: -kv[1][0])[:25]:
        terminalreporter.write_line(f"{seconds:8.1f}s  CPU {cpu_seconds:7.1f}s  {name}")


#: Test files whose tests share one costly module fixture (the live JupyterLab of test_binder.py): sent whole to one
#: worker.  Every other test is a unit of its own (see :class:`TestByTestScheduling`).
ONE_WORKER_FILES = ("tests/test_binder.py",)


class TestByTestScheduling(LoadScopeScheduling):
    """``--dist loadscope`` as ``make test`` uses it: test by test, except the files of :data:`ONE_WORKER_FILES`.

    pytest-xdist's ``loadgroup`` (``xdist_group`` marks) does not group under pytest 9 (its renamed node ids are not
    seen), and ``loadfile`` puts all of test_site.py, a third of the site phase, on one worker.
    """

    __test__ = False  # not a test class

    def _split_scope(self, nodeid: str) -> str:
        file = nodeid.split("::", 1)[0]
        return file if file in ONE_WORKER_FILES else nodeid


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") == "loadscope":
        return TestByTestScheduling(config, log)
    return None
