"""A harness killed outright (SIGKILL, the out-of-memory killer) leaves nothing running.

`run --jobs 2` forks a worker that drives its own engine; neither gets any cleanup from a killed
parent, and the pipes do not close while another forked process holds a copy of them. The worker
watches its parent and ends every engine it knows of (its own, and the one the harness started
before forking), then itself. Both a polite engine and one that ignores SIGTERM and has a child.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness_helpers import CASES, ENGINES

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="run --jobs forks workers on Linux only")

#: generous: the worker looks every 0.2 s and needs at most TERM_GRACE (0.5 s) more; only a worker
#: that does not notice at all takes this long, however busy the machine
GIVE_UP = 60.0


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        for child in _children(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _recorded(folder: Path) -> list[int]:
    """Every pid the engines wrote (pid_file.py): engines, and their children once they hang."""
    return [int(pid) for path in folder.iterdir() if path.suffix != ".tmp" for pid in path.read_text().split()]


def _kill_when_up(command: list[str], folder: Path, up: Callable[[], bool]) -> set[int]:
    """Start `command`, wait until `up()`, SIGKILL it; every pid it started that must now end."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not up():
            assert process.poll() is None, "the command ended before its engines were up"
            time.sleep(0.05)
        left = _descendants(process.pid) | set(_recorded(folder))
        process.send_signal(signal.SIGKILL)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
    return left


def _assert_all_end(left: set[int]) -> None:
    end = time.monotonic() + GIVE_UP
    while any(_alive(pid) for pid in left) and time.monotonic() < end:
        time.sleep(0.1)
    assert [pid for pid in sorted(left) if _alive(pid)] == []


@pytest.mark.parametrize("mode", ["slow", "hang"])
def test_sigkill_of_run_jobs_2_leaves_no_worker_and_no_engine(mode: str, tmp_path: Path) -> None:
    folder = tmp_path / "pids"
    folder.mkdir()
    engine = f"{sys.executable} {ENGINES / 'pid_file.py'} {folder} {mode}"
    wanted = 2 if mode == "slow" else 4  # two engines; in `hang` also their children, once they hang
    left = _kill_when_up([sys.executable, "-m", "studcheck", "run", "--engine", engine, "--cases", str(CASES),
                          "--jobs", "2", "--no-progress", "--timeout", "600"], folder,
                         lambda: len(_recorded(folder)) >= wanted)
    assert len(left) >= 3, left  # the forked worker and both engines at least
    _assert_all_end(left)


@pytest.mark.parametrize("mode", ["slow", "stubborn-child"])
def test_sigkill_of_fuzz_jobs_2_leaves_no_worker_and_no_engine(mode: str, tmp_path: Path) -> None:
    """`fuzz --jobs 2`: the parent's engine, a fork server, two workers with their engines and the
    signature manager; all must go when the parent is killed. Also engines that ignore SIGTERM and
    the end of their input and have a child: the parent's own engine, which no worker started,
    included."""
    folder = tmp_path / "pids"
    folder.mkdir()
    engine = f"{sys.executable} {ENGINES / 'pid_file.py'} {folder} {mode}"
    left = _kill_when_up([sys.executable, "-m", "studcheck", "fuzz", "--engine", engine, "--hands", "5000", "--jobs", "2",
                          "--no-progress", "--timeout", "600", "--out", str(tmp_path / "out")], folder,
                         lambda: len(_recorded(folder)) >= 3)  # the parent's engine and two workers'
    assert len(left) >= (5 if mode == "slow" else 8), left  # three engines (and their children), two workers at least
    _assert_all_end(left)


def test_a_worker_killed_mid_run_is_one_error_and_its_engine_ends(tmp_path: Path) -> None:
    """kill -9 of one `run --jobs 2` worker (the out-of-memory killer, say): its case is an `error`
    (problem crash), the other engine runs the cases left, the reports close, no traceback, and the
    dead worker's engine, which ignores SIGTERM and the end of its input, is ended too."""
    folder = tmp_path / "pids"
    folder.mkdir()
    report = tmp_path / "report.jsonl"
    engine = f"{sys.executable} {ENGINES / 'pid_file.py'} {folder} stubborn"
    process = subprocess.Popen([sys.executable, "-m", "studcheck", "run", "--engine", engine, "--cases", str(CASES), "--jobs", "2",
                                "--no-progress", "--timeout", "600", "--report", str(report)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + GIVE_UP
        while len(_recorded(folder)) < 2 and time.monotonic() < end:
            time.sleep(0.05)
        assert len(_recorded(folder)) >= 2, "the two engines did not start"
        while not any('"kind": "case"' in line or '"kind":"case"' in line for line in _lines(report)) and time.monotonic() < end:
            time.sleep(0.05)  # a case has a verdict: both workers are past their start and running cases
        worker_engines = _kill_the_worker(process, folder)
        out, err = process.communicate(timeout=GIVE_UP)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    parsed = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines() if line]
    assert "Traceback" not in out + err, err
    assert parsed[-1]["kind"] == "footer"
    cases = [line for line in parsed if line["kind"] == "case"]
    assert len(cases) == 5  # every case has a verdict
    lost = [line for line in cases if line["outcome"] != "pass"]
    # the killed worker's case, unless it was killed between its last case and the end of the run
    assert len(lost) <= 1 and all(line["problem"] == "crash" and "worker process" in line["message"] for line in lost)
    assert process.returncode == (1 if lost else 0)
    _assert_all_end(set(worker_engines))


def _kill_the_worker(process: subprocess.Popen[str], folder: Path) -> list[int]:
    """SIGKILL the harness's one forked worker (it runs the harness's own command line); its engine's pids."""
    cmdline = Path(f"/proc/{process.pid}/cmdline").read_bytes()
    workers = [pid for pid in _children(process.pid) if Path(f"/proc/{pid}/cmdline").read_bytes() == cmdline]
    assert len(workers) == 1, workers
    worker_engines = [pid for pid in _recorded(folder) if pid in _children(workers[0])]
    assert len(worker_engines) == 1
    os.kill(workers[0], signal.SIGKILL)
    return worker_engines


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []


def test_a_worker_killed_while_its_engine_starts_leaves_its_cases_to_the_others(tmp_path: Path) -> None:
    """The worker dies before its engine has answered hello: no traceback, the harness's own engine runs
    every case, and the dead worker's engine (announced before its hello) is ended."""
    folder = tmp_path / "pids"
    folder.mkdir()
    engine = f"{sys.executable} {ENGINES / 'pid_file.py'} {folder} stubborn-hello"
    process = subprocess.Popen([sys.executable, "-m", "studcheck", "run", "--engine", engine, "--cases", str(CASES), "--jobs", "2",
                                "--no-progress", "--timeout", "600"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + GIVE_UP
        while len(_recorded(folder)) < 2 and time.monotonic() < end:  # the second engine is in its hello
            time.sleep(0.02)
        worker_engines = _kill_the_worker(process, folder)
        out, err = process.communicate(timeout=GIVE_UP)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "Traceback" not in out + err, err
    assert process.returncode == 0, out + err
    assert "could not start" in err and "5 cases, 5 applicable" in out
    _assert_all_end(set(worker_engines))


def _parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_a_fuzz_worker_killed_mid_run_is_a_crash_and_its_engine_ends(tmp_path: Path) -> None:
    """kill -9 of one `fuzz --jobs 2` worker: the fuzz stops with a verdict that blames studcheck, not
    the engine, no traceback; the dead worker's engine, which ignores SIGTERM and the end of its
    input and has a child, is ended by the parent (the worker announced it), and so is everything else."""
    folder = tmp_path / "pids"
    folder.mkdir()
    engine = f"{sys.executable} {ENGINES / 'pid_file.py'} {folder} stubborn-child"
    process = subprocess.Popen([sys.executable, "-m", "studcheck", "fuzz", "--engine", engine, "--hands", "1000000",
                                "--jobs", "2", "--no-progress", "--timeout", "600", "--out", str(tmp_path / "out")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + GIVE_UP
        while len(list(folder.glob("[0-9]*"))) < 3 and time.monotonic() < end:  # the parent's engine and two workers'
            time.sleep(0.05)
        engines = [int(path.name) for path in folder.glob("[0-9]*")]
        assert len(engines) == 3, "the three engines did not start"
        workers = {engine_pid: _parent_of(engine_pid) for engine_pid in engines if _parent_of(engine_pid) != process.pid}
        assert len(workers) == 2, workers
        victim_engine, victim = sorted(workers.items())[0]
        everything = _descendants(process.pid) | set(_recorded(folder))
        dead_worker_engine = {victim_engine, *(int(pid) for pid in (folder / str(victim_engine)).read_text().split())}
        os.kill(victim, signal.SIGKILL)
        out, err = process.communicate(timeout=GIVE_UP)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "Traceback" not in out + err, err
    assert process.returncode == 1, out + err
    assert "ended without playing the hand" in out and "not the engine's" in out, out
    assert len(dead_worker_engine) == 2  # the engine and its child
    _assert_all_end(dead_worker_engine | everything)
