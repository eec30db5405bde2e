"""Stopping early: a signal or --deadline ends the engine's whole process group, closes the reports,
and exits with the documented code (128 + the signal number; 1 for the deadline).

The signal tests start `studcheck` as a real subprocess with an engine (tests/engines/hangs_with_child.py)
that starts a `sleep 1000`, ignores SIGTERM and hangs on the first hand; both must be gone by pid.

No test here compares wall-clock time with a fixed limit (a busy machine once took 9.8 s to stop a
run that a quiet one stops in a fraction of a second). "It stopped promptly" is shown by what the
code controls instead: every command gets an answer timeout (--timeout NO_TIMEOUT) far beyond the
test's hang guard, so the only way the run can end before the guard is the signal or the deadline,
and the report must say so (problem "interrupted" or "deadline", never "timeout", the cases left
"not run"). The hang guards (HANG_GUARD) only turn a hang into a failure instead of a stuck CI job.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness_helpers import CASES, engine
from studcheck.protocol.client import EngineClient, SubprocessTransport
from studcheck.protocol.stopping import duration
from test_engines import outcomes, read_report
from test_pytest_plugin import NOT_NEEDED, plugin_args

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups and signals are POSIX")

#: run studcheck with Python's usual SIGINT handler and the default SIGHUP and SIGTERM even if this
#: test process ignores them (a background job ignores SIGINT; under `nohup` SIGHUP is ignored, and
#: studcheck rightly keeps an ignored signal ignored, so the SIGHUP test would hang), and with
#: faulthandler on SIGUSR1, so that a command that hangs can be asked where (see `interrupt`)
STUDCHECK = [sys.executable, "-c", "import faulthandler, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
             "signal.signal(signal.SIGHUP, signal.SIG_DFL); signal.signal(signal.SIGTERM, signal.SIG_DFL); "
             "faulthandler.register(signal.SIGUSR1, all_threads=True); "
             "from studcheck.cli import main; sys.exit(main(sys.argv[1:]))"]
#: seconds a stopped command may take before the test calls it hung: a guard, not a measurement
HANG_GUARD = 120
#: the engines' answer timeout in these tests: longer than HANG_GUARD, so no run ends by a timeout
NO_TIMEOUT = "600"


def gone(pid: int) -> bool:
    """No such process, or a zombie (an orphan waits for an init that may never reap it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def hanging_engine(tmp_path: Path) -> tuple[str, Path]:
    pids = tmp_path / "pids"
    return engine("hangs_with_child") + f" {pids}", pids


def interrupt(command: list[str], pids: Path, signum: int, *, cwd: Path) -> tuple[subprocess.CompletedProcess[str], list[int]]:
    """Start `command`, wait until the engine hangs (it wrote its pid and its child's), send `signum`."""
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + HANG_GUARD
        while not pids.exists():
            assert process.poll() is None and time.monotonic() < end, process.communicate()
            time.sleep(0.05)
        process.send_signal(signum)
        # The engine ignores SIGTERM and never answers, and the command's answer timeout (NO_TIMEOUT)
        # is longer than this guard: it ends here only if the signal ended it and killed the group.
        try:
            out, err = process.communicate(timeout=HANG_GUARD)
        except subprocess.TimeoutExpired:
            # Hung: fail with where each of its threads was, from faulthandler, and end its
            # engine too (its own process group).
            process.send_signal(signal.SIGUSR1)
            time.sleep(2)
            process.kill()
            out, err = process.communicate()
            for pid in ([int(p) for p in pids.read_text().split()] if pids.exists() else []):
                _kill_group(pid)
            pytest.fail(f"studcheck did not end within {HANG_GUARD} s of signal {signum}; its threads:\n{err[-6000:]}\n"
                        f"stdout: {out[-2000:]}")
    finally:
        if process.poll() is None:
            process.kill()
    found = [int(pid) for pid in pids.read_text().split()]
    return subprocess.CompletedProcess(command, process.returncode, out, err), found


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def assert_gone(pids: list[int]) -> None:
    end = time.monotonic() + 30  # SIGKILL reaches them within TERM_GRACE; the rest is the kernel reaping them
    while not all(gone(pid) for pid in pids) and time.monotonic() < end:
        time.sleep(0.05)
    assert [pid for pid in pids if not gone(pid)] == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_run_on_a_signal_ends_the_engine_group_and_closes_the_reports(tmp_path: Path, signum: int) -> None:
    command, pids = hanging_engine(tmp_path)
    report, junit = tmp_path / "report.jsonl", tmp_path / "junit.xml"
    done, found = interrupt([*STUDCHECK, "run", "--engine", command, "--cases", str(CASES), "--no-progress", "--jobs", "1",
                             "--timeout", NO_TIMEOUT, "--report", str(report), "--junit", str(junit)], pids, signum, cwd=tmp_path)
    assert done.returncode == 128 + signum, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert_gone(found)
    lines = read_report(report)
    name = signal.Signals(signum).name
    assert lines[-1]["interrupted"] == name and lines[-1]["exit_code"] == 128 + signum
    cases = [line for line in lines if line["kind"] == "case"]
    assert [line["problem"] for line in cases] == ["interrupted"] * 5  # the case in progress, then the 4 left
    assert cases[0]["message"] == f"not finished: interrupted by {name} during this case"
    assert cases[1]["message"] == f"not run: interrupted by {name}"
    assert junit.read_text().count(f"interrupted by {name}") == 5
    assert f"interrupted by {name}: 1 case not finished, 4 not run; exit code {128 + signum}" in done.stderr


def processes_mentioning(text: str) -> list[int]:
    """The processes whose command line contains `text` (here: a test's own temporary directory)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text in entry.joinpath("cmdline").read_bytes().decode(errors="replace") and not gone(int(entry.name)):
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="finds the processes left through /proc")
def test_run_with_jobs_on_sigterm_ends_every_worker_and_engine(tmp_path: Path) -> None:
    """SIGTERM to the harness alone: its worker processes and all three engines end, the reports close.

    The engines answer hello at once and every other request after PAUSE seconds, and each case
    needs several answers, so a case can only pass if a worker went on for more than PAUSE seconds
    after the signal: every case must be reported interrupted (none passed), which says the workers
    stopped at once without timing them."""
    report = tmp_path / "report.jsonl"
    pause = 30  # longer than any start-up on a loaded machine; the test never waits for it
    command = [*STUDCHECK, "run", "--engine", engine("slow") + f" {pause} {tmp_path}", "--cases", str(CASES), "--jobs", "3",
               "--timeout", NO_TIMEOUT, "--no-progress", "--report", str(report)]
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + HANG_GUARD
        while not (report.exists() and report.read_text()):  # the header: the first engine answered hello
            assert process.poll() is None and time.monotonic() < end, process.communicate()
            time.sleep(0.05)
        time.sleep(1.0)  # the other two engines start and begin their cases (they need not have: see below)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=HANG_GUARD)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 143, out + err
    assert "Traceback" not in err
    end = time.monotonic() + 30
    while processes_mentioning(str(tmp_path)) and time.monotonic() < end:
        time.sleep(0.05)
    assert processes_mentioning(str(tmp_path)) == []
    lines = read_report(report)
    assert lines[-1]["interrupted"] == "SIGTERM"
    cases = [line for line in lines if line["kind"] == "case"]
    assert len(cases) == 5 and {line["problem"] for line in cases} == {"interrupted"}, cases  # no case went on to pass


def test_smoke_on_ctrl_c_ends_the_engine_group(tmp_path: Path) -> None:
    command, pids = hanging_engine(tmp_path)
    done, found = interrupt([*STUDCHECK, "smoke", "--engine", command, "--timeout", NO_TIMEOUT], pids, signal.SIGINT, cwd=tmp_path)
    assert done.returncode == 130, done.stdout + done.stderr
    assert "stopped: interrupted by SIGINT" in done.stdout and "Traceback" not in done.stderr
    assert_gone(found)


def test_fuzz_on_a_signal_ends_the_engine_group(tmp_path: Path) -> None:
    command, pids = hanging_engine(tmp_path)
    done, found = interrupt([*STUDCHECK, "fuzz", "--engine", command, "--hands", "5", "--out", str(tmp_path / "out"),
                             "--timeout", NO_TIMEOUT, "--no-progress"], pids, signal.SIGTERM, cwd=tmp_path)
    assert done.returncode == 143, done.stdout + done.stderr
    assert "interrupted by SIGTERM; stopped after" in done.stdout and "Traceback" not in done.stderr
    assert_gone(found)


def test_pytest_plugin_on_a_signal_ends_the_engine_group(tmp_path: Path) -> None:
    command, pids = hanging_engine(tmp_path)
    (tmp_path / "test_nothing.py").write_text("def test_other():\n    pass\n")
    pytest_command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *NOT_NEEDED, *plugin_args(),
                      "--studcheck-engine", command, "--studcheck-timeout", NO_TIMEOUT, "--studcheck-cases", str(CASES), "--studcheck-only",
                      str(tmp_path)]
    done, found = interrupt(pytest_command, pids, signal.SIGTERM, cwd=tmp_path)
    assert done.returncode == 143, done.stdout + done.stderr
    assert "interrupted by SIGTERM" in done.stdout
    assert_gone(found)


def test_closing_ends_what_the_engine_started_even_after_a_clean_bye(tmp_path: Path) -> None:
    child = tmp_path / "child"
    script = f"sleep 1000 & echo $! > {child}; exec {sys.executable} -m studcheck serve"
    client = EngineClient(lambda: SubprocessTransport(["/bin/sh", "-c", script]))
    client.start()
    client.stop()  # bye is answered and the engine exits; the `sleep` it left behind must not outlive it
    assert_gone([int(child.read_text())])


def calibrated_deadline(command: str, *, least: float) -> float:
    """A --deadline that the engine's start cannot eat: 4 times what starting `command` and getting its
    hello took just now, on this machine under its current load, plus a second, and at least `least`.

    A deadline that passes before hello ends the run with exit 3 (the engine did not start), not with
    the verdicts these tests check; a fixed 1.5 s did that on a busy machine. Nothing is timed
    against this number: it only has to be longer than the start, and it is 4 times longer.
    """
    client = EngineClient(lambda: SubprocessTransport(shlex.split(command)))
    started = time.monotonic()
    client.start()
    took = time.monotonic() - started
    client.stop(polite=False)
    return round(max(least, 4 * took + 1.0), 1)


def test_deadline_stops_the_case_in_progress_and_the_cases_left(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The engine answers hello at once and everything else after 600 s (with --timeout longer still):
    the run can only end by its deadline, so its verdicts show the deadline stopped it, untimed."""
    report = tmp_path / "report.jsonl"
    command = engine("slow") + " 600"
    deadline = calibrated_deadline(command, least=1.5)
    said = f"the run's deadline ({deadline:g} s) passed"
    code, out, err = run_harness("run", "--engine", command, "--cases", str(CASES), "--deadline", f"{deadline:g}s",
                                 "--timeout", NO_TIMEOUT, "--report", str(report), "--jobs", "1")  # one engine: one case in progress
    assert code == 1, out + err
    lines = read_report(report)
    assert set(outcomes(lines).values()) == {"error"} and lines[-1]["exit_code"] == 1 and lines[-1]["interrupted"] is None
    cases = [line for line in lines if line["kind"] == "case"]
    assert {line["problem"] for line in cases} == {"deadline"}
    assert cases[0]["message"] == f"not finished: {said} during this case"
    assert cases[0]["transcript"]  # the request the slow engine was answering
    assert all(line["message"] == f"not run: {said}" for line in cases[1:])
    assert f"4 cases not run: {said}" in out
    assert "1 case not finished, 4 not run; exit code 1" in err


def test_deadline_with_jobs_stops_each_engine_in_its_case(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Two engines: up to two cases in progress when the deadline passes (the second engine may have
    started late); every other case is not run, and none can pass (every answer but hello takes 600 s)."""
    report = tmp_path / "report.jsonl"
    command = engine("slow") + " 600"
    deadline = calibrated_deadline(command, least=1.5)
    said = f"the run's deadline ({deadline:g} s) passed"
    code, out, err = run_harness("run", "--engine", command, "--cases", str(CASES), "--deadline", f"{deadline:g}s",
                                 "--timeout", NO_TIMEOUT, "--report", str(report), "--jobs", "2")
    assert code == 1, out + err
    cases = [line for line in read_report(report) if line["kind"] == "case"]
    assert cases[0]["message"] == f"not finished: {said} during this case"
    unfinished = [line for line in cases if line.get("message", "").startswith("not finished")]
    not_run = [line for line in cases if line.get("message") == f"not run: {said}"]
    assert 1 <= len(unfinished) <= 2 and all(line["transcript"] for line in unfinished)
    assert len(unfinished) + len(not_run) == 5
    assert f"{len(unfinished)} case{'s' if len(unfinished) > 1 else ''} not finished, {len(not_run)} not run; exit code 1" in err


def test_fuzz_deadline(tmp_path: Path) -> None:
    """100 hands of 0.2 s answers (minutes of play): only the deadline can end it within the hang guard."""
    command = engine("slow") + " 0.2"
    deadline = calibrated_deadline(command, least=3.0)
    done = subprocess.run([*STUDCHECK, "fuzz", "--engine", command, "--hands", "100", "--deadline", f"{deadline:g}",
                           "--timeout", NO_TIMEOUT, "--out", str(tmp_path / "out"), "--no-progress"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"the run's deadline ({deadline:g} s) passed; stopped after" in done.stdout


@pytest.mark.parametrize(("text", "seconds"), [("90", 90), ("90s", 90), ("10m", 600), ("1h30m", 5400), ("1.5m", 90), ("0.5", 0.5)])
def test_deadline_durations(text: str, seconds: float) -> None:
    assert duration(text) == seconds


@pytest.mark.parametrize("text", ["", "m", "0", "-1", "10x", "1m1h", "ten"])
def test_bad_deadline_durations(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        duration(text)
