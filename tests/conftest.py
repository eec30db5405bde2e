"""Settings for the whole test run (every directory, every xdist worker).

STUDCHECK_EXPECT_COMPILED=1 (.ci/run's compiled build) refuses to run on an engine that is not compiled.

The cache of loaded cases (studcheck/cases/cache.py) goes to a temporary directory of this run,
not to the user's ~/.cache: set here, at import, so that the xdist workers and every `studcheck`
subprocess the tests start inherit it and share one cache. Removed at exit by the process that made it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import Any

import pytest

from studcheck.cases.cache import CACHE_DIR_ENV

if os.environ.get("STUDCHECK_EXPECT_COMPILED"):  # .ci/run's compiled build: never test the pure engine by mistake
    import importlib.machinery

    import studcheck.engine.state as _state

    if not isinstance(_state.__spec__.loader, importlib.machinery.ExtensionFileLoader):
        raise pytest.UsageError(f"STUDCHECK_EXPECT_COMPILED is set but the engine is not compiled: {_state.__file__}")



def _pin_xdist_worker() -> None:
    """Under pytest-xdist (`-n auto`: one worker per core), worker gwN runs on core N, and so does
    everything it starts. `studcheck run` then defaults to one engine in these tests (its default
    --jobs is the cores it may use) instead of one per core in every worker at once: fewer engines
    started, and no more runnable processes than cores. Tests that want several engines say --jobs N.
    STUDCHECK_TEST_NO_PIN=1 turns this off."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not name.startswith("gw") or os.environ.get("STUDCHECK_TEST_NO_PIN") or not hasattr(os, "sched_setaffinity"):
        return
    try:
        cores = sorted(os.sched_getaffinity(0))
        if len(cores) > 1:
            os.sched_setaffinity(0, {cores[int(name[2:]) % len(cores)]})
    except (OSError, ValueError):
        pass


_pin_xdist_worker()

if not os.environ.get(CACHE_DIR_ENV):
    _made = tempfile.mkdtemp(prefix="studcheck-test-cache-")
    os.environ[CACHE_DIR_ENV] = _made
    atexit.register(shutil.rmtree, _made, True)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Under `-n`, worksteal unless --dist says otherwise: a worker starts on one contiguous half of the
    tests (so a module's costly fixtures are mostly built once) and an idle worker takes tests queued on
    a busy one (a few tests take far longer than the rest). Runs before pytest-xdist's own hook, which
    would make it `load`; set here rather than in addopts so that `-p no:xdist` still runs."""
    option = config.option
    if getattr(option, "numprocesses", None) and getattr(option, "dist", None) == "no" and not option.distload:
        option.dist = "worksteal"


# --cpu-durations=N: the N tests that cost the most CPU (this process's and the subprocesses' it waited
# for), a measure that a busy machine does not inflate the way it inflates --durations' wall times.

def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-durations", type=int, default=None, metavar="N",
                     help="show the N tests that used the most CPU time (own + subprocesses'; 0 for all)")


_CPU: dict[str, float] = {}


def _cpu_now() -> float:
    import resource  # POSIX; only with --cpu-durations

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


_STARTED: dict[str, float] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.config.getoption("cpu_durations") is not None:
        _STARTED[item.nodeid] = _cpu_now()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    if call.when == "teardown" and item.nodeid in _STARTED:
        outcome.get_result().user_properties.append(("cpu_s", _cpu_now() - _STARTED.pop(item.nodeid)))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Under xdist the controller sees the workers' numbers through the reports' user_properties."""
    if report.when == "teardown":
        for name, value in report.user_properties:
            if name == "cpu_s":
                _CPU[report.nodeid] = float(value)
                log = os.environ.get("STUDCHECK_CPU_LOG")  # as the tests end, for runs that may not finish
                if log:
                    with open(log, "a", encoding="utf-8") as stream:
                        stream.write(f"{float(value):.3f}\t{report.duration:.3f}\t{report.nodeid}\n")


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    count = config.getoption("cpu_durations")
    if count is None or not _CPU:
        return
    ranked = sorted(_CPU.items(), key=lambda item: item[1], reverse=True)
    terminalreporter.write_sep("=", f"{'all' if not count else count} tests by CPU seconds (own + subprocesses), "
                                    f"total {sum(_CPU.values()):.1f} s over {len(_CPU)} tests")
    for nodeid, seconds in ranked[: count or None]:
        terminalreporter.write_line(f"{seconds:8.2f}s cpu  {nodeid}")


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist, the controller fills the run's cache of loaded cases before the workers
    start: otherwise each worker analyses all the case files (about 3 s) at the same moment."""
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        from studcheck.cases.load import load_cases

        load_cases()
