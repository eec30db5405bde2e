"""The pytest plugin's items: one per conformance case, judged by the runner `studcheck run` uses.

Imported by pytest_plugin.py only when `--studcheck-engine` is given, so that a pytest session
without it (any project that has studcheck installed) does not pay for the harness's imports.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from studcheck.cases.model import Case
from studcheck.harness.groups import GROUPED, Blamed, blame_verdict
from studcheck.harness.runner import Outcome, Runner, Verdict
from studcheck.harness.report import case_path, describe_failure
from studcheck.harness.smoke import diagnose
from studcheck.harness.xfail import ConfigError, apply_xfail, load_xfail
from studcheck.protocol.client import DEFAULT_TIMEOUT, EngineClient, EngineError, SubprocessTransport, engine_argv

STATE = pytest.StashKey["EngineState"]()


class EngineState:
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
            timeout = self.config.getoption("studcheck_timeout")
            client = EngineClient(lambda: SubprocessTransport(argv), timeout=DEFAULT_TIMEOUT if timeout is None else timeout)
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
        state = self.config.stash[STATE]
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
            return describe_failure(excinfo.value.verdict, replay=replay(self.config, self.case.id), cause=cause)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.case.path, max(self.case.line - 1, 0), f"studcheck {self.case.id}: {self.case.title}"


def replay(config: pytest.Config, case_id: str) -> str:
    parts = ["pytest", "--studcheck-engine", config.getoption("studcheck_engine")]
    for path in config.getoption("studcheck_cases") or []:
        parts += ["--studcheck-cases", path]
    return shlex.join([*parts, "--studcheck-only", "-k", case_id])


def _cause_properties(verdict: Verdict, blamed: Blamed) -> list[tuple[str, object]]:
    """What the end-of-session summary needs, as plain values (an xdist worker sends them over)."""
    return [("studcheck.cause", blamed.root.text), ("studcheck.blame", list(blamed.blame)),
            ("studcheck.case", verdict.case_id), ("studcheck.where", f"{case_path(verdict.file)}:{verdict.line}"),
            ("studcheck.requests", len(verdict.transcript))]


def causes(reports: Sequence[Any]) -> list[tuple[tuple[str, str | None], list[dict[str, object]]]]:
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


def selected(config: pytest.Config) -> tuple[list[Case], dict[str, str]]:
    """The cases and expected failures the options name; pytest.UsageError for a bad file or ID.

    Called in pytest_configure too, before pytest-xdist starts its workers: a usage error raised in a
    worker's collection only says "no tests ran"."""
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
    return cases, xfail


def collect(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """The case items, added to the session's (or in place of them with --studcheck-only)."""
    cases, xfail = selected(config)
    config.stash[STATE] = EngineState(config, xfail)
    suite = StudcheckSuite.from_parent(session, name="studcheck", nodeid="studcheck")
    new = [CaseItem.from_parent(suite, name=case.id, case=case) for case in cases]
    if config.getoption("studcheck_only"):
        items[:] = new
    else:
        items.extend(new)
