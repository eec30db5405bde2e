"""`studcheck fuzz` against engines that break the protocol: every error names the hand (and seed)
and the request; a failure becomes a reproducer case (and, with --keep-going, the run goes on); a
line nobody asked for is `bad_response` whatever the timing.

The engines are the deliberately broken ones of tests/engines, run as real subprocesses. One test
runs the whole command (`python -m studcheck fuzz`, then `studcheck run` on the reproducer); the
others drive the command's `fuzz()` in this process (the same code, without starting Python for
the CLI each time).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from studcheck.cases.lint import lint_files
from studcheck.cli import main
from studcheck.commands.fuzz import FuzzConfig
from studcheck.commands.fuzz import fuzz as fuzz_command
from studcheck.fuzz.known import load_known
from studcheck.fuzz.play import Table
from studcheck.fuzz.strategies import Capabilities, RandomChooser, draw_setup, hand_seed
from studcheck.protocol.client import EngineClient, SubprocessTransport

HANG_GUARD_S = 600  # seconds before a subprocess counts as hung: a guard, not a measurement (load cannot break it)

ENGINES = Path(__file__).resolve().parents[1] / "engines"
CRASH = f"{sys.executable} {ENGINES / 'crash_on_fifth_raise.py'}"
ERROR_LINE = re.compile(r"^ENGINE ERROR \((\w+)\) in hand (\d+) of (\d+) \(seed (\d+)\) at (.+?): (.+)$", re.M)
REQUEST_LINE = re.compile(r"^  request(?: \(the first one left unanswered\))?: seq (\d+) \((\w+)\): \{", re.M)


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "studcheck", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=HANG_GUARD_S)


def fuzz(engine: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return cli("fuzz", "--engine", engine, "--out", "cases", *args, cwd=cwd)


def fuzz_here(script: str, out: Path, *, hands: int, seed: int = 0, timeout: float = 10.0, replays: int = 1000,
              **options: object) -> tuple[int, str]:
    """`studcheck fuzz --engine 'python tests/engines/SCRIPT'` as the command runs it (its defaults:
    seed 0, 1000 shrink replays), by its `fuzz()` in this process: the exit code and stdout. (An
    exception would fail the test: no traceback can reach the user unseen.)"""
    client = EngineClient(lambda: SubprocessTransport([sys.executable, str(ENGINES / script)]), timeout=timeout)
    config = FuzzConfig(hands=hands, seed=seed, variants=(), out=out, replay_engine="--engine ENGINE",
                        shrink_replays=replays, **options)  # type: ignore[arg-type]
    lines: list[str] = []
    code = fuzz_command(client, config, out=lines.append)
    return code, "\n".join(lines) + "\n"


def written(stdout: str, cwd: Path) -> list[Path]:
    return [cwd / line.removeprefix("wrote ") for line in stdout.splitlines() if line.startswith("wrote ")]


@pytest.mark.parametrize(("engine", "problem"), [
    ("crash_on_fifth_raise.py", "crash"),
    ("wrong_seq.py", "wrong_seq"),
    ("not_json.py", "not_json"),
    ("bad_schema.py", "bad_response"),
    ("double_answer.py", "bad_response"),
    ("hang_third_request.py", "timeout"),
])
def test_every_engine_error_names_the_hand_the_seed_and_the_request(engine: str, problem: str, tmp_path: Path) -> None:
    # The short timeout only for the engine that hangs (it costs a second); the others keep a limit no
    # busy machine reaches, so a slow answer can never pass for their failure.
    code, stdout = fuzz_here(engine, tmp_path / "cases", hands=40, seed=3, timeout=1 if problem == "timeout" else 30)
    assert code == 1, stdout
    error = ERROR_LINE.search(stdout)
    assert error is not None, stdout
    assert error.group(1) == problem and error.group(3) == "40" and error.group(4) == "3", error.group(0)
    request = REQUEST_LINE.search(stdout, error.end())
    assert request is not None, stdout
    assert "  engine process: " in stdout and "  signature: error " in stdout


def test_crash_writes_a_reproducer_that_run_replays_and_stops_the_run(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """End to end: `python -m studcheck fuzz`, then `studcheck run` (through its `main`, in this
    process) replays the reproducer on the engine (a crash again) and on the reference (a pass)."""
    done = fuzz(CRASH, "--hands", "30", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    error = ERROR_LINE.search(done.stdout)
    assert error is not None and error.group(1) == "crash" and "raise" in error.group(5), done.stdout
    assert "  engine process: exit code 134" in done.stdout
    assert "    NotImplementedError: raise on fifth street" in done.stdout  # the stderr, head and tail
    assert len(ERROR_LINE.findall(done.stdout)) == 1  # without --keep-going the run stops there
    [path] = written(done.stdout, tmp_path)
    assert path.name.endswith("-crash.yaml")
    assert "  lint: clean" in done.stdout and "  on the reference: pass" in done.stdout
    assert "  on the engine: error (crash: " in done.stdout
    assert lint_files([path])[1] == []
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert case["generated"] is True and re.fullmatch(r"(SH|RZ|HL|FS)-GEN-[0-9A-F]{8}", case["id"])
    last_act = [step for step in case["steps"] if "act" in step][-1]["act"]
    assert last_act.split()[1] == "raise", case["steps"]  # the request the engine died on is the last action
    assert "expect" in case["steps"][-1]

    capsys.readouterr()
    assert main(["run", "--engine", CRASH, "--cases", str(path)]) == 1
    again = capsys.readouterr().out
    assert "crash" in again and "raise on fifth street" in again, again
    assert main(["run", "--cases", str(path)]) == 0, capsys.readouterr()


def test_crash_under_keep_going_writes_one_reproducer_per_signature_and_goes_on(tmp_path: Path,
                                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 1, 20 hands: crashes in three variants (first in hands 2, 3 and 11), in more hands than that."""
    code, stdout = fuzz_here("crash_on_fifth_raise.py", tmp_path / "cases", hands=20, seed=1, keep_going=True)
    assert code == 1, stdout
    errors = ERROR_LINE.findall(stdout)
    paths = written(stdout, Path("/"))
    assert len(errors) == len(paths) >= 2, stdout  # two variants at least
    assert all(path.name.endswith("-crash.yaml") for path in paths)
    table = re.search(r"^signatures: (\d+) \((\d+) new, 0 known\) in (\d+) of 20 hands$", stdout, re.M)
    assert table is not None and int(table.group(3)) > len(paths), stdout  # more hands crashed: counted
    assert re.search(rf"^ +\d+ +\d+ +error crash \w+ +new: {re.escape(str(tmp_path / 'cases'))}/", stdout, re.M)
    assert "20 hands (" in capsys.readouterr().err  # every hand was played

    known = tmp_path / "known.yaml"
    known.write_text("- signature: error crash *\n  reason: raising on fifth street is not implemented\n", encoding="utf-8")
    code, listed = fuzz_here("crash_on_fifth_raise.py", tmp_path / "more", hands=5, seed=1, keep_going=True,
                             known=load_known(known), known_file=known)
    assert code == 0, listed
    assert "ENGINE ERROR" not in listed and not (tmp_path / "more").exists()
    assert "known: raising on fifth street is not implemented" in listed


@pytest.mark.parametrize("seed", [0, 1, 2, 5])
def test_a_second_answer_is_a_line_nobody_asked_for_whatever_the_timing(seed: int, tmp_path: Path) -> None:
    """double_answer.py answers every new_hand twice. Pipelined, the copy is read where the next
    answer was due, with the seq of the request before: still a line nobody asked for."""
    code, stdout = fuzz_here("double_answer.py", tmp_path / "cases", hands=5, seed=seed)
    assert code == 1, stdout
    error = ERROR_LINE.search(stdout)
    assert error is not None and error.group(1) == "bad_response", stdout
    assert "a line nobody asked for" in error.group(6) and "wrong_seq" not in stdout.split("\nreproducer")[0]


def test_a_line_nobody_asked_for_while_no_answer_is_due_is_named_the_same(tmp_path: Path) -> None:
    """extra_after_hand.py writes the answer that ends a hand twice. Played one hand at a time (no
    answer due when the copy comes), the copy is found before the next hand's first request; when an
    action tried after the end of the hand follows, the copy is read where its answer was due. Both
    are the same problem."""
    client = EngineClient(lambda: SubprocessTransport([sys.executable, str(ENGINES / "extra_after_hand.py")]))
    caps = Capabilities.from_hello(client.start(), only=("razz",))
    table = Table(client)
    found: set[str] = set()
    try:
        for number in range(1, 40):
            choose = RandomChooser(hand_seed(0, number))
            record = table.play(draw_setup(choose, caps), choose)
            time.sleep(0.02)  # a copy comes before the next hand's requests are written
            if record.failure is None:
                continue
            assert record.failure.error.problem.value == "bad_response", record.failure.error.message
            assert "nobody asked for" in record.failure.error.message
            found.add(str(record.failure.request["type"]))
            if found == {"new_hand", "act"}:
                break
        assert found == {"new_hand", "act"}, found
    finally:
        client.stop(polite=False)


def test_a_line_nobody_asked_for_after_the_last_answer_of_the_run(tmp_path: Path) -> None:
    """After the run's last hand the fuzzer listens for a stray line, as `studcheck run` does after
    its last case."""
    for seed in range(10):
        code, stdout = fuzz_here("extra_after_hand.py", tmp_path / f"cases{seed}", hands=1, seed=seed)
        if code == 0:
            continue  # the hand did not end with an answer (an action tried after the end)
        error = ERROR_LINE.search(stdout)
        assert error is not None and error.group(1) == "bad_response", stdout
        assert "nobody asked for" in error.group(6), error.group(6)
        assert error.group(2) == "1"
        return
    pytest.fail("no seed ended its hand with an answer")


def test_failures_while_shrinking_are_counted_under_the_divergence(tmp_path: Path) -> None:
    """diverge_then_crash.py dies two actions after its divergence: most candidate hands replayed
    while shrinking crash it too. The engine is restarted each time and the report says how often
    (5 replays a pass: each restart starts a Python process)."""
    replays = 5
    code, stdout = fuzz_here("diverge_then_crash.py", tmp_path / "cases", hands=1, replays=replays)
    assert code == 1, stdout
    assert "  then, past the divergence, the engine failed (crash on seq " in stdout
    failed = re.search(r"^  note: the engine failed on (\d+) of the hands replayed while shrinking", stdout, re.M)
    assert failed is not None and 1 <= int(failed.group(1)) <= 2 * replays + 1, stdout
    assert "  on the engine: fail (pot_total: " in stdout  # restarted before the case ran on it
