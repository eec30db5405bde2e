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
import shlex
import signal
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from studcheck.cases.model import Case
from studcheck.harness.groups import GROUPED, Blamed, blame_verdict
from studcheck.harness.report import Style, case_path, describe_failure
from studcheck.harness.runner import Outcome, Runner, Verdict
from studcheck.harness.smoke import diagnose
from studcheck.harness.xfail import ConfigError, apply_xfail, load_xfail
from studcheck.protocol import stopping
from studcheck.protocol.client import DEFAULT_TIMEOUT, EngineClient, EngineError, SubprocessTransport, engine_argv

_STATE = pytest.StashKey["_EngineState"]()
_WATCH = pytest.StashKey[stopping.Watch]()
#: the signals the plugin turns into a clean stop (pytest already stops cleanly on SIGINT)
SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("studcheck", "studcheck conformance suite")
    group.addoption("--studcheck-engine", metavar="CMD", help="run the studcheck conformance cases against this engine command")
    group.addoption("--studcheck-shell", action="store_true", help="run the engine command through /bin/sh -c")
    group.addoption("--studcheck-cases", action="append", metavar="PATH", help="case files or directories (default: the bundled suite)")
    group.addoption("--studcheck-xfail", metavar="FILE", help="expected-failure file (YAML list of {id, reason})")
    group.addoption("--studcheck-timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S", help="seconds to wait for each engine answer")
    group.addoption("--studcheck-only", action="store_true", help="collect only the studcheck cases (drop other tests)")
    group.addoption("--studcheck-id", action="append", metavar="ID",
                    help="only this case (repeatable); the items are not files, so `pytest studcheck::ID` cannot select one")


class _EngineState:
    """One engine client per process, started on first use and stopped at the end of the session."""

    def __init__(self, config: pytest.Config, xfail: dict[str, str]) -> None:
        self.config = config
        self.xfail = xfail
        self.runner: Runner | None = None
        self.failed_start: str | None = None

    def get_runner(self) -> Runner:
        if self.failed_start is not None:
            pytest.fail(f"the engine cannot start:\n{self.failed_start}", pytrace=False)
        if self.runner is None:
            try:
                argv = engine_argv(self.config.getoption("studcheck_engine"), shell=self.config.getoption("studcheck_shell"))
            except ValueError as exc:
                raise pytest.UsageError(str(exc)) from None
            client = EngineClient(lambda: SubprocessTransport(argv), timeout=self.config.getoption("studcheck_timeout"))
            try:
                client.start()
            except EngineError as exc:
                self.failed_start = diagnose(exc)
                pytest.fail(f"the engine cannot start:\n{self.failed_start}", pytrace=False)
            self.config.add_cleanup(client.stop)
            self.runner = Runner(client)
        return self.runner


class StudcheckFailure(Exception):
    def __init__(self, verdict: Verdict) -> None:
        super().__init__(verdict.message)
        self.verdict = verdict


class StudcheckSuite(pytest.Collector):
    """Parent node of the case items (node IDs look like `studcheck::SH-BRI-004`)."""

    def collect(self) -> list[pytest.Item]:
        return []


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.last = False  # no studcheck case runs after this one in this process (set just before it runs)
        self.blamed: Blamed | None = None
        self.add_marker(pytest.mark.studcheck)

    def runtest(self) -> None:
        state = self.config.stash[_STATE]
        verdict = apply_xfail(state.get_runner().run(self.case, last=self.last), state.xfail)
        if verdict.outcome in GROUPED or verdict.outcome is Outcome.XFAIL:
            self.blamed = blame_verdict(verdict)
            self.user_properties += _cause_properties(verdict, self.blamed)
        if verdict.outcome is Outcome.NOT_APPLICABLE:
            pytest.skip(f"not applicable: {verdict.message}")
        if verdict.outcome is Outcome.XFAIL:
            pytest.xfail(verdict.xfail_reason or "expected failure")
        if verdict.outcome is not Outcome.PASS:
            raise StudcheckFailure(verdict)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, StudcheckFailure):
            cause = None
            if self.blamed is not None:
                rule = self.blamed.blame[0] if self.blamed.blame else None
                cause = f"cause — {rule}: {self.blamed.root.text}" if rule else f"cause — {self.blamed.root.text}"
            return describe_failure(excinfo.value.verdict, replay=_replay(self.config, self.case.id), cause=cause)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.case.path, max(self.case.line - 1, 0), f"studcheck {self.case.id}: {self.case.title}"


def _replay(config: pytest.Config, case_id: str) -> str:
    parts = ["pytest", "--studcheck-engine", config.getoption("studcheck_engine")]
    for path in config.getoption("studcheck_cases") or []:
        parts += ["--studcheck-cases", path]
    return shlex.join([*parts, "--studcheck-only", "-k", case_id])


def _cause_properties(verdict: Verdict, blamed: Blamed) -> list[tuple[str, object]]:
    """What the end-of-session summary needs, as plain values (an xdist worker sends them over)."""
    return [("studcheck.cause", blamed.root.text), ("studcheck.blame", list(blamed.blame)),
            ("studcheck.case", verdict.case_id), ("studcheck.where", f"{case_path(verdict.file)}:{verdict.line}"),
            ("studcheck.requests", len(verdict.transcript))]


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The causes of failure, largest first, the blamed rule leading (then those of the expected failures)."""
    if not config.getoption("studcheck_engine", None):
        return
    failed = _causes(terminalreporter.stats.get("failed", []))
    expected = _causes(terminalreporter.stats.get("xfailed", []))
    if not failed and not expected:
        return
    style = Style(bool(getattr(terminalreporter, "isatty", False)) and "NO_COLOR" not in os.environ)
    terminalreporter.section("studcheck causes of failure")
    for label, causes in (("cause", failed), ("expected cause", expected)):
        if not causes:
            continue
        total = sum(len(members) for _, members in causes)
        word = "failing case" if label == "cause" else "expected failure"
        terminalreporter.write_line(f"{total} {word}{'' if total == 1 else 's'}, {len(causes)} cause{'' if len(causes) == 1 else 's'}:")
        for rank, ((text, rule), members) in enumerate(causes, start=1):
            title = f"{style.rule(rule)}: {text}" if rule else text
            example = min(members, key=lambda props: int(props.get("studcheck.requests", 0)))  # type: ignore[call-overload]
            terminalreporter.write_line(f"{label} {rank} — {title} — {len(members)} case{'' if len(members) == 1 else 's'}")
            terminalreporter.write_line(f"    e.g. {example['studcheck.case']} at {example['studcheck.where']}")
            if label == "cause":
                terminalreporter.write_line(f"    replay: {_replay(config, str(example['studcheck.case']))}")


def _causes(reports: Sequence[Any]) -> list[tuple[tuple[str, str | None], list[dict[str, object]]]]:
    """(cause text, blamed rule) -> the reports' properties, largest first, then run order."""
    found: dict[tuple[str, str | None], list[dict[str, object]]] = {}
    for report in reports:
        props = dict(getattr(report, "user_properties", ()) or ())
        if "studcheck.cause" not in props or getattr(report, "when", "call") != "call":
            continue
        blame = props.get("studcheck.blame") or []
        rule = str(blame[0]) if isinstance(blame, list) and blame else None
        found.setdefault((str(props["studcheck.cause"]), rule), []).append(props)
    return sorted(found.items(), key=lambda item: -len(item[1]))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "studcheck: a studcheck conformance case")
    if config.getoption("studcheck_engine", None):
        stack = ExitStack()
        config.stash[_WATCH] = stack.enter_context(stopping.watch(SIGNALS, interrupt=True))
        config.add_cleanup(stack.close)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Tell the case item whether another case follows it (the last one listens longer for stray output)."""
    if isinstance(item, CaseItem):
        item.last = not isinstance(nextitem, CaseItem)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    watch = session.config.stash.get(_WATCH, None)
    if watch is not None and watch.exit_code is not None and watch.signum != getattr(signal, "SIGINT", None):
        session.exitstatus = watch.exit_code


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("studcheck_engine"):
        return
    from studcheck.cases.load import CaseError, load_cases

    try:
        cases = load_cases(config.getoption("studcheck_cases"))
        xfail_path = config.getoption("studcheck_xfail")
        xfail = load_xfail(Path(xfail_path), (case.id for case in cases)) if xfail_path else {}
    except (CaseError, ConfigError) as exc:
        raise pytest.UsageError(f"studcheck: {exc}") from None
    wanted = config.getoption("studcheck_id")
    if wanted:
        unknown = sorted(set(wanted) - {case.id for case in cases})
        if unknown:
            raise pytest.UsageError(f"studcheck: no case has the ID {', '.join(unknown)}")
        cases = [case for case in cases if case.id in wanted]
    config.stash[_STATE] = _EngineState(config, xfail)
    suite = StudcheckSuite.from_parent(session, name="studcheck", nodeid="studcheck")
    new = [CaseItem.from_parent(suite, name=case.id, case=case) for case in cases]
    if config.getoption("studcheck_only"):
        items[:] = new
    else:
        items.extend(new)
