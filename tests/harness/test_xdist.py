"""The pytest plugin under pytest-xdist: the same items and outcomes as without it, one engine per worker.

Each pytest run here is a real subprocess (three processes under `-n 2`), the costly part, so one
pair of runs shows it all: the engine (tests/engines/stud_high_only_wrong_rules.py) fails some cases
and is not applicable to others, an expected failure passes (xpass), and it logs its starts.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness_helpers import CASES, engine
from test_pytest_plugin import pytest_run


ROOT = Path(__file__).resolve().parents[2]
SUBSET = [str(ROOT / "cases" / "stud_high" / "bring-in"), str(CASES)]  # real cases, and the harness's five


def outcomes(junit: Path) -> dict[str, str]:
    """Each item's outcome from pytest's JUnit XML: passed, failure, error or skipped (xfail and not applicable are skipped)."""
    found = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        found[f"{case.get('classname')}::{case.get('name')}"] = kinds[0] if kinds else "passed"
    return found


def test_xdist_runs_the_same_items_with_the_same_outcomes_one_engine_per_worker(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("xdist")
    xfail = tmp_path / "xfail.yaml"
    xfail.write_text("- {id: T-OK-001, reason: \"an expected failure that passes (xpass), seen the same way\"}\n")
    argv = ["--studcheck-engine", engine("stud_high_only_wrong_rules"), "--studcheck-xfail", str(xfail), "--studcheck-only"]
    for path in SUBSET:
        argv += ["--studcheck-cases", path]
    plain = pytest_run(tmp_path, *argv, "--junitxml", str(tmp_path / "plain.xml"))
    log = tmp_path / "starts.log"  # the engine writes a line per start there
    monkeypatch.setenv("STUDCHECK_TEST_LOG", str(log))
    spread = pytest_run(tmp_path, *argv, "-p", "xdist", "-n", "2", "--junitxml", str(tmp_path / "xdist.xml"))
    assert spread.returncode == plain.returncode == 1, spread.stdout + spread.stderr
    alone, together = outcomes(tmp_path / "plain.xml"), outcomes(tmp_path / "xdist.xml")
    assert len(alone) == 24  # 19 bring-in cases + 5 harness cases
    assert together == alone
    assert set(alone.values()) == {"passed", "failure", "skipped"}
    assert len(log.read_text().splitlines()) == 2  # one engine per worker: two workers, two engines, each started once
