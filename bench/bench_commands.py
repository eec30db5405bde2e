"""The user-facing commands, timed as a user runs them: the case suite and the fuzzer.

Each command runs as a fresh `python -m studcheck ...` process (no shell), so the times include
interpreter start-up and case loading exactly as in CI. The suite is run twice: with the reference
engine in process (`--in-process`) and through the protocol (a `studcheck serve` subprocess, JSON
lines over pipes). The harness's own duration (from the `--report` footer, start-up excluded) is
kept next to the wall time.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_common import Row, Verdict, at_least
from bench_fuzz_floor import Floor, child_cpu_seconds, replay_fresh, write_recording

SUITE_TARGET = 2.0  # protocol wall time <= this many times the in-process wall time
FUZZ_CEILING_SHARE = 0.85  # fuzzing through the protocol: at least this share of the fuzzer-alone ceiling
RUN_JOBS_TARGET = 1.5  # the whole suite, start-up included, on a 2-core machine
FUZZ_JOBS_TARGET = 1.7
STUDCHECK = [sys.executable, "-m", "studcheck"]


@dataclass(frozen=True, kw_only=True)
class CommandConfig:
    repeat: int
    fuzz_hands: int
    fuzz_repeat: int = 1
    suite_args: tuple[str, ...] = ()  # e.g. ("--variant", "razz") to run part of the suite
    # Row 4's rounds (a protocol run, then a fuzzer-alone replay); None: twice `fuzz_repeat`. Its two
    # sides need different numbers of cores (two, one), so a neighbour's busy spell moves its ratio
    # more than a row whose sides both use one core: more rounds, for a quiet moment on each side.
    fuzz_rounds: int | None = None


@dataclass(frozen=True, kw_only=True)
class Timed:
    wall: float
    harness: float | None  # the harness's own duration_s, when it wrote a report
    exit_code: int
    output: str
    cpu: float | None = None  # CPU seconds of the command and the children it waited for (its engine)


def _timed(argv: list[str], report: Path | None) -> Timed:
    cpu = child_cpu_seconds()
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = child_cpu_seconds()
    harness = None
    if report is not None and report.exists():
        for line in report.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("kind") == "footer":
                harness = float(record["duration_s"])
    return Timed(wall=wall, harness=harness, exit_code=done.returncode, output=done.stdout + done.stderr,
                 cpu=after - cpu if after is not None and cpu is not None else None)


def _best_runs(commands: list[list[str]], repeat: int) -> list[Timed]:
    """Fastest of `repeat` runs of each command, run in turn (a, b, a, b, ...) so background load
    spreads over all of them; each run writes its report to a fresh temporary file."""
    best: list[Timed | None] = [None] * len(commands)
    with tempfile.TemporaryDirectory() as tmp:
        for attempt in range(max(1, repeat)):
            for number, argv in enumerate(commands):
                report = Path(tmp) / f"report{number}-{attempt}.jsonl"
                timed = _timed([*argv, "--report", str(report)], report)
                current = best[number]
                if current is None or timed.wall < current.wall:
                    best[number] = timed
    return [timed for timed in best if timed is not None]


def suite_row(config: CommandConfig) -> Row:
    base = [*STUDCHECK, "run", "--no-progress", *config.suite_args]
    _timed([*STUDCHECK, "--version"], None)  # warm the file cache and bytecode
    local, piped = _best_runs([[*base, "--in-process"], base], config.repeat)
    ratio = piped.wall / local.wall
    failing = [f"{name} exit {t.exit_code}" for name, t in (("in-process", local), ("protocol", piped)) if t.exit_code]
    harness = ""
    if local.harness and piped.harness:
        harness = f"; harness-only {piped.harness:.2f} s vs {local.harness:.2f} s = {piped.harness / local.harness:.2f}x"
    note = f"wall time incl. start-up{harness}" + (f"; SUITE FAILS ({', '.join(failing)})" if failing else "")
    # Smaller is better here, so the row's ratio is the slowdown; the target is a ceiling.
    return Row(
        key="suite", label="case suite: protocol vs in-process", unit="s", studcheck=piped.wall, other=local.wall,
        other_name="in-process", ratio=ratio, target=f"<= {SUITE_TARGET:g}x",
        verdict=Verdict.PASS if ratio <= SUITE_TARGET else Verdict.MISS, note=note,
        extra={"protocol_harness_s": piped.harness, "in_process_harness_s": local.harness,
               "exit_codes": {"in_process": local.exit_code, "protocol": piped.exit_code},
               "args": list(config.suite_args)},
    )


def fuzz_available() -> bool:
    return importlib.util.find_spec("studcheck.fuzz") is not None


def _fuzz_help() -> str:
    done = subprocess.run([*STUDCHECK, "fuzz", "--help"], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else ""


_FUZZ_REPORTED = re.compile(r"in ([0-9.]+) s: ([0-9.]+) hands/s through the protocol")


def _fuzz_rate(timed: Timed, hands: int) -> float:
    """The hands/s the fuzz command printed (hands over its time of play), else hands over its wall time."""
    reported = _FUZZ_REPORTED.search(timed.output)
    return float(reported.group(2)) if reported else hands / timed.wall


def fuzz_row(config: CommandConfig, pokerkit_rate: float | None, seed: int) -> Row:
    """Reference engine against itself through the protocol, as a share of the fuzzer alone (the
    same hands replayed in process against an engine that answers at once, bench_fuzz_floor.py).

    The two run in turn (protocol, fuzzer alone, protocol, ...) for `fuzz_rounds` rounds, so a busy
    spell of the machine lands on both sides; each side's best rate counts."""
    key, label = "fuzz", "fuzz through the protocol vs the fuzzer alone"
    target = f">= {FUZZ_CEILING_SHARE:g}x the fuzzer alone"
    help_text = _fuzz_help() if fuzz_available() else ""
    if not help_text:
        return Row(key=key, label=label, unit="hands/s", studcheck=None, other=pokerkit_rate, target=target,
                   verdict=Verdict.SKIP, note="studcheck fuzz is not available in this checkout")
    engine = shlex.join([*STUDCHECK, "serve"])
    argv = [*STUDCHECK, "fuzz", "--engine", engine, "--hands", str(config.fuzz_hands)]
    for flag, value in (("--seed", str(seed)), ("--no-progress", None)):
        if flag in help_text:
            argv += [flag] if value is None else [flag, value]
    rounds = max(1, config.fuzz_rounds if config.fuzz_rounds is not None else 2 * config.fuzz_repeat)
    best: Timed | None = None
    floor: Floor | None = None
    failed: Timed | None = None  # the first run that failed (a divergence of the reference from itself: a bug)
    each: list[tuple[float, float]] = []  # (protocol, fuzzer alone) hands/s of every round, to show the spread
    with tempfile.TemporaryDirectory() as tmp:
        if "--out" in help_text:  # a divergence writes a case file: never into the working tree
            argv += ["--out", tmp]
        recording = Path(tmp) / "answers.pickle"
        write_recording(recording, config.fuzz_hands, seed)
        for _ in range(rounds):
            timed = _timed(argv, None)
            failed = failed or (timed if timed.exit_code else None)
            if best is None or _fuzz_rate(timed, config.fuzz_hands) > _fuzz_rate(best, config.fuzz_hands):
                best = timed
            replayed = replay_fresh(recording, config.fuzz_hands, seed)
            if floor is None or replayed.rate > floor.rate:
                floor = replayed
            each.append((_fuzz_rate(timed, config.fuzz_hands), replayed.rate))
    assert best is not None and floor is not None
    # The command reports its own rate: hands over the time spent generating and playing them, so
    # interpreter start-up, the engine's start and (if any) shrinking are left out. The wall time
    # of the whole command goes into the note.
    reported = _FUZZ_REPORTED.search(best.output)
    rate = _fuzz_rate(best, config.fuzz_hands)
    requests = re.search(r"\((\d+) requests\)", best.output)
    per_hand = f", {int(requests.group(1)) / config.fuzz_hands:.1f} requests/hand" if requests else ""
    measured = f"{config.fuzz_hands} hands in {reported.group(1)} s of play" if reported else f"{config.fuzz_hands} hands"
    note = f"{measured} ({best.wall:.2f} s wall incl. start-up){per_hand}; best of {rounds} rounds"
    # The protocol needs two cores (the fuzzer and its engine work at once): how many its best run
    # kept busy shows whether the machine gave it both (a neighbour's load takes them from this side).
    cores = best.cpu / best.wall if best.cpu is not None and best.wall > 0 else None
    if cores is not None:
        note += f" ({cores:.2f} cores busy)"
    exit_code = failed.exit_code if failed is not None else 0
    if failed is not None:
        note += f"; FUZZ EXIT {exit_code}: {failed.output.strip().splitlines()[-1:]}"
    if pokerkit_rate:
        note += f"; {rate / pokerkit_rate:.2f}x PokerKit's random hands in process (2a)"
    ratio = rate / floor.rate if floor.rate else None
    extra: dict[str, Any] = {"argv": argv, "exit_code": exit_code, "hands": config.fuzz_hands, "rounds": rounds,
                             "wall_s": best.wall, "output": best.output.strip().splitlines()[-3:],
                             "fuzzer_alone_hands_per_s": floor.rate,
                             # whole processes, start-up included; the protocol's is the fuzz command and its engine
                             "cpu_s": {"protocol": best.cpu, "fuzzer_alone": floor.cpu_seconds},
                             "protocol_cores_busy": cores,
                             "rounds_hands_per_s": [{"protocol": a, "fuzzer_alone": b} for a, b in each]}
    return Row(key=key, label=label, unit="hands/s", studcheck=rate, other=floor.rate, other_name="fuzzer alone",
               ratio=ratio, target=target,
               verdict=at_least(ratio, FUZZ_CEILING_SHARE) if not exit_code else Verdict.WRONG,
               note=note, extra=extra)


def run_jobs_row(config: CommandConfig) -> Row:
    """The whole suite through `studcheck serve`, `--jobs 2` against `--jobs 1`, start-up included."""
    base = [*STUDCHECK, "run", "--no-progress", *config.suite_args]
    one, two = _best_runs([[*base, "--jobs", "1"], [*base, "--jobs", "2"]], config.repeat)
    ratio = one.wall / two.wall
    failing = [f"--jobs {n} exit {t.exit_code}" for n, t in ((1, one), (2, two)) if t.exit_code]
    harness = f"; harness-only {one.harness:.2f} s vs {two.harness:.2f} s" if one.harness and two.harness else ""
    return Row(key="jobs.run", label="case suite: run --jobs 2 vs --jobs 1", unit="s", studcheck=two.wall,
               other=one.wall, other_name="--jobs 1", ratio=ratio, target=f">= {RUN_JOBS_TARGET:g}x",
               verdict=Verdict.WRONG if failing else at_least(ratio, RUN_JOBS_TARGET),
               note=f"wall time incl. start-up{harness}" + (f"; FAILS ({', '.join(failing)})" if failing else ""),
               extra={"jobs1_s": one.wall, "jobs2_s": two.wall})


def fuzz_jobs_row(config: CommandConfig, seed: int) -> Row:
    """`studcheck fuzz` against `studcheck serve` with 2 workers against 1: hands/s as each run reports it."""
    engine = shlex.join([*STUDCHECK, "serve"])
    rates: dict[int, float] = {}
    walls: dict[int, float] = {}
    codes: dict[int, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(max(1, config.fuzz_repeat)):
            for jobs in (1, 2):  # interleaved, so background load spreads over both
                argv = [*STUDCHECK, "fuzz", "--engine", engine, "--hands", str(config.fuzz_hands), "--seed", str(seed),
                        "--no-progress", "--jobs", str(jobs), "--out", tmp]
                timed = _timed(argv, None)
                reported = re.search(r"([0-9.]+) hands/s through the protocol", timed.output)
                rate = float(reported.group(1)) if reported else config.fuzz_hands / timed.wall
                codes[jobs] = codes.get(jobs, 0) or timed.exit_code
                if rate > rates.get(jobs, 0.0):
                    rates[jobs], walls[jobs] = rate, timed.wall
    ratio = rates[2] / rates[1]
    note = (f"{config.fuzz_hands} hands; wall {walls[1]:.2f} s vs {walls[2]:.2f} s incl. start-up "
            f"= {walls[1] / walls[2]:.2f}x")
    wrong = any(codes.values())
    return Row(key="jobs.fuzz", label="fuzz --jobs 2 vs --jobs 1", unit="hands/s", studcheck=rates[2], other=rates[1],
               other_name="--jobs 1", ratio=ratio, target=f">= {FUZZ_JOBS_TARGET:g}x",
               verdict=Verdict.WRONG if wrong else at_least(ratio, FUZZ_JOBS_TARGET),
               note=note + (f"; FUZZ EXIT {codes}" if wrong else ""), extra={"rates": rates, "walls": walls})
