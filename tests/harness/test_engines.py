"""Deliberately broken engines (tests/engines/) each get an honest verdict; the harness never hangs.

Every run here goes through real subprocesses and the `studcheck run` command (a short answer
timeout for the engine that hangs); the report of each run is checked against
spec/schema/report.schema.json. Each broken engine runs once; its verdicts and what they carry
(evidence, stderr, the step) are read from that one report.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from harness_helpers import CASES, engine, run_quietly
from studcheck.resources import schema_path

REPORT_VALIDATOR = Draft202012Validator(json.loads(schema_path("report").read_text()))
ALL_PASS = {"T-BRI-001": "pass", "T-BRI-002": "pass", "T-CRASH-001": "pass", "T-OK-001": "pass", "T-RAZ-001": "pass"}


def read_report(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        errors = sorted(REPORT_VALIDATOR.iter_errors(line), key=str)
        assert not errors, f"report line breaks the schema: {errors[0].message}\n{line}"
    assert lines[0]["kind"] == "header" and lines[-1]["kind"] == "footer"
    return lines


def outcomes(lines: list[dict[str, Any]]) -> dict[str, str]:
    return {line["id"]: line["outcome"] for line in lines if line["kind"] == "case"}


def problems(lines: list[dict[str, Any]]) -> dict[str, str | None]:
    return {line["id"]: line.get("problem") for line in lines if line["kind"] == "case" and line["outcome"] == "error"}


#: (engine, extra arguments, exit code, verdicts, problem); each is run once for the module
VERDICTS = [
    ("crash_mid_hand", [], 1, {**ALL_PASS, "T-CRASH-001": "error"}, "crash"),
    # --timeout 1: a hang costs a second; the "timeout" verdict, not a stopwatch, says that is what ended it
    ("hang_third_request", ["--id", "T-OK-001", "--id", "T-RAZ-001", "--timeout", "1"], 1,
     {"T-OK-001": "error", "T-RAZ-001": "pass"}, "timeout"),
    ("not_json", ["--id", "T-OK-001", "--id", "T-RAZ-001"], 1, {"T-OK-001": "error", "T-RAZ-001": "error"}, "not_json"),
    ("wrong_seq", ["--id", "T-OK-001"], 1, {"T-OK-001": "error"}, "wrong_seq"),
    ("huge_line", ["--id", "T-RAZ-001", "--timeout", "10"], 1, {"T-RAZ-001": "error"}, "line_too_long"),
    ("exit_after_hello", ["--id", "T-OK-001", "--id", "T-RAZ-001"], 1, {"T-OK-001": "error", "T-RAZ-001": "error"}, "crash"),
    ("bad_schema", ["--id", "T-OK-001"], 1, {"T-OK-001": "error"}, "bad_response"),
    # extra keys nested 5,000 deep: refused as bad_response (it used to end the run in a RecursionError)
    ("deep_answer", ["--id", "T-OK-001", "--junit", "{tmp}/junit.xml"], 1, {"T-OK-001": "error"}, "bad_response"),
    # the stray line is seen before the next request (bad_response) or as its answer (wrong_seq)
    ("double_answer", ["--id", "T-OK-001"], 1, {"T-OK-001": "error"}, "bad_response|wrong_seq"),
    ("stderr_flood", [], 0, ALL_PASS, None),
    ("wrong_rules", [], 1, {**ALL_PASS, "T-BRI-001": "fail", "T-BRI-002": "pass"}, None),
    ("sticky_refusal", [], 1, {**ALL_PASS, "T-BRI-001": "fail"}, None),
    ("stud_high_only", [], 0, {**ALL_PASS, "T-BRI-002": "not_applicable", "T-RAZ-001": "not_applicable"}, None),
]


@dataclass(frozen=True, kw_only=True)
class EngineRun:
    code: int
    out: str
    lines: list[dict[str, Any]]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], EngineRun]:
    """`studcheck run` of each broken engine of VERDICTS, once for the module: the verdict test and the
    tests of what a verdict carries read the same report (each engine start costs a Python start-up)."""
    done: dict[str, EngineRun] = {}

    def get(name: str) -> EngineRun:
        if name not in done:
            extra = next(extra for engine_name, extra, *_ in VERDICTS if engine_name == name)
            report = tmp_path_factory.mktemp(name) / "report.jsonl"
            # The answer timeout is the default (5 s) except for the engine that hangs: no other engine
            # here waits for it, so a short one would only fail a correct answer a busy machine delayed.
            extra = [argument.replace("{tmp}", str(report.parent)) for argument in extra]
            code, out, _ = run_quietly("run", "--engine", engine(name), "--cases", str(CASES), "--report", str(report), *extra)
            done[name] = EngineRun(code=code, out=out, lines=read_report(report))
        return done[name]

    return get


@pytest.mark.parametrize(("name", "extra", "code", "expected", "problem"), VERDICTS)
def test_broken_engine_verdicts(runs: Callable[[str], EngineRun], name: str, extra: list[str], code: int,
                                expected: dict[str, str], problem: str | None) -> None:
    run = runs(name)
    assert outcomes(run.lines) == expected
    assert run.code == code == run.lines[-1]["exit_code"]
    assert set(problems(run.lines).values()) <= set((problem or "").split("|"))
    assert "variant" in run.out and "total" in run.out


def test_error_verdict_carries_evidence(runs: Callable[[str], EngineRun]) -> None:
    line = outcomes_line(runs("not_json").lines, "T-OK-001")
    assert "DEBUG dealing cards" in line["evidence"]
    assert line["transcript"][0]["request"]["type"] == "new_hand"
    assert "--id T-OK-001" in line["replay"]


def test_crash_verdict_carries_stderr(runs: Callable[[str], EngineRun]) -> None:
    line = outcomes_line(runs("crash_mid_hand").lines, "T-CRASH-001")
    assert "segmentation fault" in line["stderr"]
    assert line["step"] == 2 and line["line"] == 15  # `act 3 fold`, the second action


def test_wrong_rules_fail_points_at_the_step(runs: Callable[[str], EngineRun]) -> None:
    run = runs("wrong_rules")
    line = outcomes_line(run.lines, "T-BRI-001")
    assert line["mismatches"] == [{"path": "to_act", "expected": 2, "actual": 1}]
    assert line["step"] == 0 and line["file"].endswith("t-bri-001.yaml") and line["line"] == 14
    assert "t-bri-001.yaml:14" in run.out and "to_act: expected 2, got 1" in run.out
    assert "--id T-BRI-001" in run.out


def test_sticky_refusal_is_state_changed(runs: Callable[[str], EngineRun]) -> None:
    line = outcomes_line(runs("sticky_refusal").lines, "T-BRI-001")
    assert line["message"] == "state changed after refused action"
    assert line["mismatches"] == [{"path": "pot_total", "expected": 3, "actual": 4}]


@pytest.mark.parametrize(("name", "words"), [("fails_to_start", "cannot open config file"), ("protocol2", "protocol 2")])
def test_engine_that_cannot_start_exits_3(run_harness, tmp_path: Path, name: str, words: str) -> None:  # type: ignore[no-untyped-def]
    report = tmp_path / "report.jsonl"
    code, _, err = run_harness("run", "--engine", engine(name), "--cases", str(CASES), "--report", str(report))
    assert code == 3
    assert words in err
    lines = read_report(report)
    assert lines[0]["engine"] is None and lines[-1]["exit_code"] == 3


def test_missing_program_exits_3(run_harness) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_harness("run", "--engine", "/nonexistent/engine --flag", "--cases", str(CASES))
    assert code == 3 and "cannot start" in err


def outcomes_line(lines: list[dict[str, Any]], case_id: str) -> dict[str, Any]:
    return next(line for line in lines if line.get("id") == case_id)
