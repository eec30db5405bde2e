"""The pytest plugin: every case an item, failures show the diverging step, works under xdist."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from harness_helpers import CASES, engine
from studcheck import pytest_plugin

HANG_GUARD_S = 600  # seconds before a subprocess counts as hung: a guard, not a measurement (load cannot break it)


def plugin_args() -> list[str]:
    """`-p studcheck.pytest_plugin` unless the installed entry point already loads it."""
    loaded = any(ep.value == "studcheck.pytest_plugin" for ep in entry_points(group="pytest11"))
    return [] if loaded else ["-p", "studcheck.pytest_plugin"]


#: Hypothesis's pytest plugin has nothing to do with these runs and its import is most of a pytest
#: process's start-up (about 1 CPU-s of 2); every other installed plugin loads as a user's would
NOT_NEEDED = ["-p", "no:hypothesispytest"]


def pytest_run(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_nothing.py").write_text("def test_other():\n    pass\n")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *NOT_NEEDED, *plugin_args(), *argv, str(tmp_path)]
    return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD_S)


def test_cases_become_items_and_failures_show_the_step(tmp_path: Path) -> None:
    done = pytest_run(tmp_path, "--studcheck-engine", engine("wrong_rules"), "--studcheck-cases", str(CASES), "-rA")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 5 passed" in done.stdout  # 5 cases (one fails) + the ordinary test
    assert "studcheck::T-BRI-001 - FAIL T-BRI-001" in done.stdout
    assert "to_act: expected 2, got 1" in done.stdout and "t-bri-001.yaml:14" in done.stdout
    # the session ends with the causes, the rule the engine breaks first (it ties bring-ins by seat)
    summary = done.stdout[done.stdout.index("studcheck causes of failure"):]
    assert "1 failing case, 1 cause:\ncause 1 — BRING-IN.TIE.SUIT: to_act expected N, got M — 1 case\n" in summary
    assert "e.g. T-BRI-001 at " in summary and "-k T-BRI-001" in summary
    assert "  cause — BRING-IN.TIE.SUIT: to_act expected N, got M" in done.stdout  # in the failure itself


def test_only_xfail_and_not_applicable(tmp_path: Path) -> None:
    xfail = tmp_path / "xfail.yaml"
    xfail.write_text("- {id: T-BRI-001, reason: seat ties}\n")
    done = pytest_run(tmp_path, "--studcheck-engine", engine("wrong_rules"), "--studcheck-cases", str(CASES),
                      "--studcheck-xfail", str(xfail), "--studcheck-only")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4 passed, 1 xfailed" in done.stdout
    assert "1 expected failure, 1 cause:\nexpected cause 1 — BRING-IN.TIE.SUIT: " in done.stdout


def test_without_the_option_the_plugin_does_nothing(tmp_path: Path) -> None:
    done = pytest_run(tmp_path)
    assert done.returncode == 0 and "1 passed" in done.stdout


# Under pytest-xdist: tests/harness/test_xdist.py runs an engine that passes some of these cases, fails
# some and is not applicable to others (stud_high_only_wrong_rules.py) with and without `-n 2` and
# finds the same items with the same outcomes.


def test_engine_that_cannot_start_fails_every_item_without_hanging(tmp_path: Path) -> None:
    done = pytest_run(tmp_path, "--studcheck-engine", engine("fails_to_start"), "--studcheck-cases", str(CASES), "--studcheck-only")
    assert done.returncode == 1
    assert "5 failed" in done.stdout and "cannot open config file" in done.stdout


def test_a_timeout_that_can_never_be_met_is_a_usage_error(tmp_path: Path) -> None:
    """As `studcheck run --timeout` refuses it: pytest stops with a usage error, no engine started."""
    done = pytest_run(tmp_path, "--studcheck-engine", engine("wrong_rules"), "--studcheck-cases", str(CASES),
                      "--studcheck-timeout", "-1")
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's exit code for a usage error
    assert "--studcheck-timeout -1: give a number of seconds above 0" in done.stderr
    assert "passed" not in done.stdout and "failed" not in done.stdout


class _Options:
    """What pytest_configure reads of a config, for the values not worth a pytest process each."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout

    def getoption(self, name: str, default: object = None) -> object:
        return self.timeout if name == "studcheck_timeout" else default

    def addinivalue_line(self, name: str, line: str) -> None:
        pass


@pytest.mark.parametrize("given", [0.0, float("nan"), float("inf")])
def test_zero_nan_and_infinity_are_refused_too(given: float) -> None:
    with pytest.raises(pytest.UsageError, match="give a number of seconds above 0"):
        pytest_plugin.pytest_configure(_Options(given))  # type: ignore[arg-type]


def test_select_cases_by_id(tmp_path: Path) -> None:
    """Items are not files: `--studcheck-id` selects exact case IDs, `-k` by name; an unknown ID is a usage error."""
    # --studcheck-id collects exactly the two cases named (nothing else is collected, so nothing else is
    # deselected); -k then deselects one of them by its case ID
    done = pytest_run(tmp_path, "--studcheck-engine", engine("wrong_rules"), "--studcheck-cases", str(CASES),
                      "--studcheck-only", "--studcheck-id", "T-BRI-001", "--studcheck-id", "T-OK-001", "-k", "not T-OK-001", "-rA")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("1 failed, 1 deselected in "), done.stdout
    assert "studcheck::T-BRI-001 - FAIL T-BRI-001" in done.stdout
    done = pytest_run(tmp_path, "--studcheck-engine", engine("wrong_rules"), "--studcheck-cases", str(CASES),
                      "--studcheck-id", "T-NOPE-999")
    assert done.returncode == 4 and "no case has the ID T-NOPE-999" in done.stdout + done.stderr, done.stdout + done.stderr


@pytest.mark.parametrize("broken", ["xfail", "cases"])
def test_a_broken_file_is_a_usage_error_under_xdist_too(tmp_path: Path, broken: str) -> None:
    """Under pytest-xdist the workers collect, and a usage error there said only "no tests ran"."""
    pytest.importorskip("xdist")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- id: NOPE-1\n  reason: x\n" if broken == "xfail" else "id: [not a case\n")
    extra = ["--studcheck-xfail", str(bad)] if broken == "xfail" else ["--studcheck-cases", str(bad)]
    done = pytest_run(tmp_path, "-n", "2", "--studcheck-engine", engine("wrong_rules"), "--studcheck-cases", str(CASES), *extra)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "studcheck:" in done.stderr and str(bad) in done.stderr
