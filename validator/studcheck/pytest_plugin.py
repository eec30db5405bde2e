"""pytest plugin: `pytest --studcheck-engine CMD` runs every conformance case as a test item.

Hook glue only: cases are loaded and judged by the same runner as `studcheck run`. The engine
starts lazily, once per process (so once per pytest-xdist worker), on the first case that runs.
Without `--studcheck-engine` the plugin does nothing.

At the end of the session the failing cases are summed up by cause, as `studcheck run` does: each
case's first divergence and blamed rule (harness/groups.py, harness/blame.py) travel with its test
report as user properties (so pytest-xdist workers send them to the controller), and
pytest_terminal_summary prints the causes, largest first, the blamed rule leading.

SIGTERM and SIGHUP (a CI job cancelled) end the engine's process group and stop the session like
Ctrl-C does; pytest then exits with 128 + the signal number (143, 129). Ctrl-C keeps pytest's own
exit code 2; the engine is ended all the same.
"""

from __future__ import annotations

import os
import signal
from contextlib import ExitStack
from typing import Any

import pytest

from studcheck.protocol import stopping

_WATCH = pytest.StashKey[stopping.Watch]()
#: the signals the plugin turns into a clean stop (pytest already stops cleanly on SIGINT)
SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("studcheck", "studcheck conformance suite")
    group.addoption("--studcheck-engine", metavar="CMD", help="run the studcheck conformance cases against this engine command")
    group.addoption("--studcheck-shell", action="store_true", help="run the engine command through /bin/sh -c")
    group.addoption("--studcheck-cases", action="append", metavar="PATH", help="case files or directories (default: the bundled suite)")
    group.addoption("--studcheck-xfail", metavar="FILE", help="expected-failure file (YAML list of {id, reason})")
    group.addoption("--studcheck-timeout", type=float, default=None, metavar="S",
                    help="seconds to wait for each engine answer (default: the same as studcheck run's --timeout)")
    group.addoption("--studcheck-only", action="store_true", help="collect only the studcheck cases (drop other tests)")
    group.addoption("--studcheck-id", action="append", metavar="ID",
                    help="only this case (repeatable); the items are not files, so `pytest studcheck::ID` cannot select one")


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The causes of failure, largest first, the blamed rule leading (then those of the expected failures)."""
    if not config.getoption("studcheck_engine", None):
        return
    from studcheck.harness.report import Style
    from studcheck.pytest_items import causes, replay

    failed = causes(terminalreporter.stats.get("failed", []))
    expected = causes(terminalreporter.stats.get("xfailed", []))
    if not failed and not expected:
        return
    style = Style(bool(getattr(terminalreporter, "isatty", False)) and "NO_COLOR" not in os.environ)
    terminalreporter.section("studcheck causes of failure")
    for label, found in (("cause", failed), ("expected cause", expected)):
        if not found:
            continue
        total = sum(len(members) for _, members in found)
        word = "failing case" if label == "cause" else "expected failure"
        terminalreporter.write_line(f"{total} {word}{'' if total == 1 else 's'}, {len(found)} cause{'' if len(found) == 1 else 's'}:")
        for rank, ((text, rule), members) in enumerate(found, start=1):
            title = f"{style.rule(rule)}: {text}" if rule else text
            example = min(members, key=lambda props: int(props.get("studcheck.requests", 0)))  # type: ignore[call-overload]
            terminalreporter.write_line(f"{label} {rank} — {title} — {len(members)} case{'' if len(members) == 1 else 's'}")
            terminalreporter.write_line(f"    e.g. {example['studcheck.case']} at {example['studcheck.where']}")
            if label == "cause":
                terminalreporter.write_line(f"    replay: {replay(config, str(example['studcheck.case']))}")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "studcheck: a studcheck conformance case")
    timeout = config.getoption("studcheck_timeout", None)
    if timeout is not None and not 0 < timeout < float("inf"):  # as `studcheck run --timeout`: never met, so refused
        raise pytest.UsageError(f"--studcheck-timeout {timeout:g}: give a number of seconds above 0")
    if config.getoption("studcheck_engine", None) and hasattr(config.option, "numprocesses") \
            and getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        from studcheck.pytest_items import selected  # the controller of an xdist run collects nothing itself

        selected(config)  # so a broken --studcheck-cases or xfail file is a usage error, not "no tests ran"
    if config.getoption("studcheck_engine", None):
        stack = ExitStack()
        config.stash[_WATCH] = stack.enter_context(stopping.watch(SIGNALS, interrupt=True))
        config.add_cleanup(stack.close)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Tell the case item whether another case follows it (the last one listens longer for stray output)."""
    if item.config.getoption("studcheck_engine", None):
        from studcheck.pytest_items import CaseItem

        if isinstance(item, CaseItem):
            item.last = not isinstance(nextitem, CaseItem)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    watch = session.config.stash.get(_WATCH, None)
    if watch is not None and watch.exit_code is not None and watch.signum != getattr(signal, "SIGINT", None):
        session.exitstatus = watch.exit_code


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("studcheck_engine"):
        from studcheck.pytest_items import collect  # the harness's imports, only when they are needed

        collect(session, config, items)
