"""`studcheck run` options: expected failures (strict), selection, usage errors, JUnit, smoke."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from junitparser import JUnitXml

from harness_helpers import CASES, engine, run_quietly
from studcheck.harness.runner import Outcome, Verdict
from studcheck.harness.xfail import ConfigError, apply_xfail, parse_xfail

HANG_GUARD_S = 600  # seconds before a subprocess counts as hung: a guard, not a measurement (load cannot break it)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "xfail.yaml"
    path.write_text(text)
    return path


def test_listed_failure_is_xfail_and_the_run_passes(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    xfail = write(tmp_path, "- {id: T-BRI-001, reason: ties broken by seat}\n")
    report = tmp_path / "r.jsonl"
    code, out, _ = run_harness("run", "--engine", engine("wrong_rules"), "--cases", str(CASES), "--xfail", str(xfail), "--report", str(report))
    assert code == 0
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert lines[-1]["counts"]["xfail"] == 1 and lines[-1]["counts"]["fail"] == 0


def test_listed_case_that_passes_is_xpass_and_fails_the_run(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    xfail = write(tmp_path, "- {id: T-OK-001, reason: was broken once}\n")
    code, out, _ = run_harness("run", "--in-process", "--cases", str(CASES), "--xfail", str(xfail))
    assert code == 1
    assert "XPASS T-OK-001" in out and "remove it from the expected-failure file" in out


@pytest.mark.parametrize("text", ["- {id: T-NOPE-999, reason: typo}\n", "- {id: T-OK-001}\n", "id: T-OK-001\n", "- [unclosed\n",
                                  "- {id: T-OK-001, reason: a}\n- {id: T-OK-001, reason: b}\n"])
def test_bad_xfail_file_is_a_configuration_error(run_harness, tmp_path: Path, text: str) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_harness("run", "--in-process", "--cases", str(CASES), "--xfail", str(write(tmp_path, text)))
    assert code == 2 and err.startswith("studcheck run:")


def test_xfail_applies_to_fail_and_error_only() -> None:
    base = Verdict(case_id="X-1", outcome=Outcome.PASS, variant="razz", file="f", line=1)
    entries = parse_xfail("- {id: X-1, reason: known}\n")
    assert apply_xfail(base, entries).outcome is Outcome.XPASS
    assert apply_xfail(base.with_changes(outcome=Outcome.FAIL), entries).outcome is Outcome.XFAIL
    assert apply_xfail(base.with_changes(outcome=Outcome.ERROR), entries).outcome is Outcome.XFAIL
    assert apply_xfail(base.with_changes(outcome=Outcome.NOT_APPLICABLE), entries).outcome is Outcome.NOT_APPLICABLE
    assert apply_xfail(base.with_changes(outcome=Outcome.FAIL), {}).outcome is Outcome.FAIL
    with pytest.raises(ConfigError):
        parse_xfail("- {id: X-1, reason: '  '}\n")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--id", "T-NOPE-1"], "no case has the ID T-NOPE-1"),
        (["--variant", "stud_hilo8"], "no case matches"),
        (["--in-process", "--engine", "x"], "--in-process"),
        (["--engine", "'unclosed"], "--engine"),
    ],
)
def test_usage_errors_exit_2(run_harness, argv: list[str], words: str) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_harness("run", "--cases", str(CASES), *argv)
    assert code == 2 and words in err


def test_bad_case_path_exits_2(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_harness("run", "--in-process", "--cases", str(tmp_path / "missing.yaml"))
    assert code == 2


def test_selection_by_variant_tag_rule_and_id(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    def selected(*argv: str) -> set[str]:
        report = tmp_path / "r.jsonl"
        run_harness("run", "--in-process", "--cases", str(CASES), "--report", str(report), *argv)
        return {json.loads(line)["id"] for line in report.read_text().splitlines() if '"kind":"case"' in line}

    assert selected("--variant", "razz") == {"T-RAZ-001"}
    assert selected("--tag", "reject") == {"T-BRI-001"}
    assert selected("--rule", "BRING-IN.TIE") == {"T-BRI-001", "T-BRI-002"}
    assert selected("--rule", "BRING-IN.TIE.SEAT") == {"T-BRI-002"}
    assert selected("--id", "T-OK-001", "--id", "T-RAZ-001") == {"T-OK-001", "T-RAZ-001"}


def test_junit_is_derived_from_the_report(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    junit = tmp_path / "junit.xml"
    code, _, _ = run_harness("run", "--engine", engine("stud_high_only"), "--cases", str(CASES), "--junit", str(junit))
    assert code == 0
    root = ET.parse(junit).getroot()
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert set(cases) == {"T-BRI-001", "T-BRI-002", "T-CRASH-001", "T-OK-001", "T-RAZ-001"}
    assert cases["T-RAZ-001"].find("skipped") is not None
    xml = JUnitXml.fromfile(str(junit))
    assert xml.tests == 5 and xml.failures == 0 and xml.skipped == 2


@pytest.fixture(scope="module")
def wrong_rules_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Path, Path]:
    """One `studcheck run` of wrong_rules (T-BRI-001 fails) writing JUnit and appending Markdown, for the tests that read them."""
    where = tmp_path_factory.mktemp("wrong_rules")
    junit, summary = where / "junit.xml", where / "summary.md"
    summary.write_text("earlier step\n")
    code, _, _ = run_quietly("run", "--engine", engine("wrong_rules"), "--cases", str(CASES), "--junit", str(junit),
                             "--markdown", str(summary))
    return code, junit, summary


def test_junit_failure_has_expected_and_actual(wrong_rules_run: tuple[int, Path, Path]) -> None:
    junit = wrong_rules_run[1]
    failure = next(case for case in ET.parse(junit).getroot().iter("testcase") if case.get("name") == "T-BRI-001").find("failure")
    assert failure is not None and "to_act: expected 2, got 1" in (failure.text or "")


def test_smoke_passes_on_the_reference_engine(run_harness) -> None:  # type: ignore[no-untyped-def]
    import shlex
    import sys

    code, out, _ = run_harness("smoke", "--engine", shlex.join([sys.executable, "-m", "studcheck.protocol.serve"]))
    assert code == 0 and "FAILED" not in out and "smoke test passed" in out


@pytest.mark.parametrize(
    ("name", "code", "words"),
    [
        ("not_json", 1, "the engine printed something that is not JSON on stdout: DEBUG dealing cards"),
        ("fails_to_start", 3, "cannot open config file"),
        ("wrong_rules", 0, "smoke test passed"),
        ("five_card_only", 0, "ok     seat 1 (door card Kc) is to bring in"),
        ("sticky_refusal", 1, "FAILED the state is unchanged after the refused action"),
        ("wrong_seq", 1, "copy the `seq`"),
    ],
)
def test_smoke_explains_in_plain_words(run_harness, name: str, code: int, words: str) -> None:  # type: ignore[no-untyped-def]
    # the default answer timeout: none of these engines hangs, so a short one could only fail a slow machine
    exit_code, out, _ = run_harness("smoke", "--engine", engine(name))
    assert exit_code == code and words in out


def test_real_cli_default_engine_is_studcheck_serve(tmp_path: Path) -> None:
    """`studcheck run` without --engine spawns `python -m studcheck serve`: the real protocol path."""
    import subprocess
    import sys

    report = tmp_path / "r.jsonl"
    done = subprocess.run([sys.executable, "-m", "studcheck", "run", "--cases", str(CASES), "--report", str(report)],
                          capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 0, done.stdout + done.stderr
    header = json.loads(report.read_text().splitlines()[0])
    assert header["engine"]["name"] == "studcheck-reference"
    assert header["command"].endswith("-m studcheck serve")
    smoke = subprocess.run([sys.executable, "-m", "studcheck", "smoke", "--engine", f"{sys.executable} -m studcheck serve"],
                           capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr


def test_markdown_summary_lists_the_table_and_failures(wrong_rules_run: tuple[int, Path, Path]) -> None:
    code, _, summary = wrong_rules_run
    text = summary.read_text()
    assert code == 1 and text.startswith("earlier step\n")  # appended, as $GITHUB_STEP_SUMMARY wants
    assert "| stud_high | 3 | 1 | 0 | 0 | 0 | 0 |" in text
    assert "**FAIL T-BRI-001**" in text and "`to_act: expected 2, got 1`" in text


def test_a_full_disk_under_report_names_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """/dev/full fails every write with ENOSPC, an error that names no file: the message names the report."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    from studcheck.cli import main

    code = main(["run", "--in-process", "--id", "SH-WEX-001", "--no-progress", "--report", "/dev/full"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot write /dev/full: No space left on device" in err and "None" not in err
