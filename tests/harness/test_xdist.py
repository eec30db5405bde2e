"""The pytest plugin under pytest-xdist: the same items and outcomes as without it, one engine per worker.

Each pytest run here is a real subprocess (three processes under `-n 2`), the costly part: the
engine-count check rides on the stud_high_only runs rather than on runs of its own."""

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


@pytest.mark.parametrize("name", ["wrong_rules", "stud_high_only"])
def test_xdist_runs_the_same_items_with_the_same_outcomes(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("xdist")
    log = tmp_path / "starts.log"  # stud_high_only writes a line per start there
    xfail = tmp_path / "xfail.yaml"
    xfail.write_text("- {id: T-OK-001, reason: \"an expected failure that passes (xpass), seen the same way\"}\n")
    argv = ["--studcheck-engine", engine(name), "--studcheck-xfail", str(xfail), "--studcheck-only"]
    for path in SUBSET:
        argv += ["--studcheck-cases", path]
    plain = pytest_run(tmp_path, *argv, "--junitxml", str(tmp_path / "plain.xml"))
    monkeypatch.setenv("STUDCHECK_TEST_LOG", str(log))
    spread = pytest_run(tmp_path, *argv, "-p", "xdist", "-n", "2", "--junitxml", str(tmp_path / "xdist.xml"))
    assert spread.returncode == plain.returncode, spread.stdout + spread.stderr
    alone, together = outcomes(tmp_path / "plain.xml"), outcomes(tmp_path / "xdist.xml")
    assert len(alone) == 24  # 19 bring-in cases + 5 harness cases
    assert together == alone
    assert set(alone.values()) >= ({"passed", "failure"} if name == "wrong_rules" else {"passed", "skipped"})
    if name == "stud_high_only":  # one engine per worker: two workers, two engines started, each once
        assert len(log.read_text().splitlines()) == 2
