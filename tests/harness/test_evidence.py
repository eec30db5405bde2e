"""Evidence goes to the right case: a line nobody asked for is blamed on the case after whose last
answer it came (also after the run's last case), and a verdict quotes the stderr written during its
case, a crash's traceback included however much noise follows it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness_helpers import CASES, ENGINES, engine, harness_main
from studcheck.cases.load import load_cases
from studcheck.harness import runner as runner_module
from studcheck.harness.runner import Outcome, Runner
from studcheck.protocol.client import IDLE_LIMIT, EngineClient, SubprocessTransport
from studcheck.protocol.pipes import StderrLog, omitted_line, shorten
from test_engines import outcomes, outcomes_line, read_report
from test_pytest_plugin import pytest_run

UNSOLICITED = "the engine wrote a line nobody asked for after the case's last answer: "


def test_an_extra_answer_is_blamed_on_its_case_not_the_next(run_harness, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # The window after each case is tuned for speed (0.3 ms); a loaded test machine may need more.
    monkeypatch.setattr(runner_module, "AFTER_CASE_WAIT", 0.05)
    report = tmp_path / "report.jsonl"
    code, out, _ = run_harness("run", "--engine", engine("extra_after_hand") + " T-OK-001", "--cases", str(CASES),
                               "--id", "T-OK-001", "--id", "T-RAZ-001", "--report", str(report))
    lines = read_report(report)
    assert code == 1 and outcomes(lines) == {"T-OK-001": "error", "T-RAZ-001": "pass"}
    line = outcomes_line(lines, "T-OK-001")
    assert line["message"].startswith(UNSOLICITED + '{"seq": 5, "ok": true') and line["problem"] == "bad_response"
    assert line["step"] is None and line["step_text"] == "after the last step" and '"seq": 5' in line["evidence"]
    assert line["transcript"][-1]["request"]["seq"] == 5  # the answer that was written twice


def test_an_extra_answer_after_the_runs_last_case_fails_the_run(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    report = tmp_path / "report.jsonl"
    code, _, _ = run_harness("run", "--engine", engine("extra_after_hand") + " T-OK-001", "--cases", str(CASES),
                             "--id", "T-OK-001", "--report", str(report))
    lines = read_report(report)
    assert code == 1 == lines[-1]["exit_code"] and outcomes(lines) == {"T-OK-001": "error"}
    assert outcomes_line(lines, "T-OK-001")["message"].startswith(UNSOLICITED)


def test_the_pytest_plugin_checks_after_its_last_case_too(tmp_path: Path) -> None:
    done = pytest_run(tmp_path, "--studcheck-engine", engine("extra_after_hand") + " T-OK-001", "--studcheck-cases",
                      str(CASES), "--studcheck-only", "-k", "T-BRI-002 or T-OK-001", "-rf")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 passed" in done.stdout and "studcheck::T-OK-001 - ERROR T-OK-001" in done.stdout
    assert UNSOLICITED in done.stdout


def test_a_failing_case_shows_only_its_own_stderr(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    report = tmp_path / "report.jsonl"
    code, out, _ = run_harness("run", "--engine", engine("stderr_per_case"), "--cases", str(CASES), "--report", str(report))
    lines = read_report(report)
    assert code == 1 and [case for case, outcome in outcomes(lines).items() if outcome != "pass"] == ["T-RAZ-001"]
    stderr = outcomes_line(lines, "T-RAZ-001")["stderr"]
    assert stderr.startswith("log T-RAZ-001: request") and stderr.count("log ") == stderr.count("log T-RAZ-001")
    assert "engine stderr during this case:\n    log T-RAZ-001: request" in out and "log T-OK-001" not in out


def test_a_crash_keeps_its_traceback_and_its_last_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.jsonl"  # (not run_harness: the engine's traceback is expected in the output)
    code = harness_main(["run", "--engine", engine("crash_traceback"), "--cases", str(CASES), "--id", "T-OK-001",
                         "--id", "T-CRASH-001", "--report", str(report)])
    out = capsys.readouterr().out
    line = outcomes_line(read_report(report), "T-CRASH-001")
    assert code == 1 and line["problem"] == "crash"
    shown = line["stderr"].splitlines()
    assert shown[0] == "Traceback (most recent call last):" and "ValueError: hand evaluator: no cards for seat 3" in shown
    assert len(shown) == 41 and shown[20].startswith("… ") and shown[-1] == "shutdown: closing pool worker 199"
    assert "ValueError: hand evaluator: no cards for seat 3" in out and "shutdown: closing pool worker 199" in out


def test_shorten_keeps_head_and_tail_and_counts_what_is_between() -> None:
    assert shorten("a\nb\nc\n", head=1, tail=1) == "a\nb\nc"
    text = "\n".join(f"line {n}" for n in range(100))
    assert shorten(text, head=2, tail=2).splitlines() == ["line 0", "line 1", omitted_line(96), "line 98", "line 99"]
    twice = shorten(shorten(text, head=10, tail=10), head=2, tail=2).splitlines()
    assert twice[2] == omitted_line(96)  # an earlier count is added up, not counted as one line
    assert shorten("x" * 1000, chars=10).startswith("xxxxxxxxxx… (1000 characters")


def test_stderr_log_is_per_mark_and_bounded() -> None:
    log = StderrLog(keep=4096)
    log.add(b"before the case\n")
    log.mark()
    log.add(b"".join(f"line {n}\n".encode() for n in range(5000)))
    shown = log.text().splitlines()
    assert shown[0] == "line 0" and shown[-1] == "line 4999" and len(shown) == 41
    assert shown[20].startswith("… ") and "before the case" not in log.text()
    log.mark()
    assert log.text() == ""


def test_ending_each_case_costs_little(run_harness, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The listening after each case is bounded: 5 cases, well under a second on top of the run.

    Counted, not timed (a busy machine makes any run slow): the longest the harness may listen after
    each case is what it asks the transport for, so the test records those requests."""
    asked: list[float] = []
    listen = SubprocessTransport.unsolicited

    def recording(self: SubprocessTransport, wait: float, *, patience: float = 0.0) -> bool:
        asked.append(max(wait, patience))
        return listen(self, wait, patience=patience)

    monkeypatch.setattr(SubprocessTransport, "unsolicited", recording)
    code, _, _ = run_harness("run", "--engine", engine("stud_high_only"), "--cases", str(CASES), "--jobs", "1")
    assert code == 0
    assert len(asked) == 5  # once after each case (3 run, 2 not applicable to this engine: still listened after)
    assert max(asked[:-1]) <= max(runner_module.AFTER_CASE_WAIT, IDLE_LIMIT)
    assert asked[-1] <= runner_module.AFTER_RUN_WAIT and sum(asked) < 0.1


def test_a_stray_line_found_only_by_the_next_case_names_the_case_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Listening after a case is bounded; a line arriving later is still caught at the next request,
    and that verdict says which case it came after."""
    monkeypatch.setattr(EngineClient, "expect_quiet", lambda self, wait: None)  # as if it came too late
    cases = {case.id: case for case in load_cases([CASES])}
    client = EngineClient(lambda: SubprocessTransport([sys.executable, str(ENGINES / "extra_after_hand.py"), "T-OK-001"]))
    client.start()
    try:
        runner = Runner(client)
        assert runner.run(cases["T-OK-001"]).outcome is Outcome.PASS
        # no wait: extra_after_hand.py writes the copy with the answer, in one write
        verdict = runner.run(cases["T-RAZ-001"])
    finally:
        client.stop()
    assert verdict.outcome is Outcome.ERROR and verdict.problem == "bad_response"
    assert verdict.message.endswith("it was there before this case's first request, so it came after the end of the "
                                    "previous case, T-OK-001")
