"""How fast the fuzzer itself can go: its own work per hand, against an engine that costs nothing.

`studcheck fuzz` plays every hand twice: on the engine under test and on its in-process reference,
which also decides every move and whose state after every request is compared with the engine's.
This measures that side alone. The same hands are first played against the in-process reference
engine while its answer lines are recorded; then the search runs again, in process, against a
transport that hands back the recorded lines instantly (no engine work, no pipe). The second run's
rate is the most `studcheck fuzz` can reach on this machine with any engine, however fast, since
everything it times is the fuzzer's own work: the reference engine, choosing moves, encoding
requests and comparing answers.

The replay runs in a fresh process, as `studcheck fuzz` does: in the process that recorded the
hands (or that ran the other benchmark rows first) the reference's caches and the evaluator's
tables would already hold exactly these hands, a head start no `studcheck fuzz` run has.

    python bench/bench_fuzz_floor.py --hands 2000 --seed 2026   # prints the fuzzer-alone rate
"""

from __future__ import annotations

import argparse
import json
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from studcheck.fuzz.play import Table
from studcheck.fuzz.search import SearchConfig, search
from studcheck.fuzz.strategies import Capabilities
from studcheck.protocol.client import DEFAULT_TIMEOUT, EngineClient, EngineError, InProcessTransport, Problem


class _Recording(InProcessTransport):
    """The in-process reference engine, keeping every answer line it gives."""

    def __init__(self, answers: list[bytes]) -> None:
        super().__init__()
        self._answers = answers

    def receive(self, timeout: float) -> bytes:
        line = super().receive(timeout)
        self._answers.append(line)
        return line


class _Replaying:
    """An engine that answers instantly with recorded lines, in order (it ignores what it is sent)."""

    def __init__(self, answers: list[bytes]) -> None:
        self._answers = answers
        self._next = 0

    def start(self) -> None:
        self._next = 0

    def send(self, line: bytes, timeout: float = DEFAULT_TIMEOUT, *, answers_due: int = 0) -> None:
        return None

    def receive(self, timeout: float) -> bytes:
        if self._next >= len(self._answers):
            raise EngineError(Problem.CRASH, "the recording ran out: the replay did not play the recorded hands")
        line = self._answers[self._next]
        self._next += 1
        return line

    def stderr_tail(self) -> str:
        return ""

    def unsolicited(self, wait: float, *, patience: float = 0.0) -> bool:
        """A recording holds exactly the answers asked for: nothing is ever left over."""
        return True

    def mark_stderr(self) -> None:
        return None

    def stderr_excerpt(self) -> str:
        return ""

    def close(self, grace: float = 1.0) -> None:
        return None


@dataclass(frozen=True, kw_only=True)
class Floor:
    hands: int
    seconds: float
    requests: int
    cpu_seconds: float | None = None  # the whole replay process's CPU time, start-up included (where known)

    @property
    def rate(self) -> float:
        return self.hands / self.seconds


def _search(client: EngineClient, hands: int, seed: int) -> Floor:
    info = client.start()
    try:
        result = search(Table(client), Capabilities.from_hello(info), SearchConfig(hands=hands, seed=seed))
    finally:
        client.stop(polite=False)
    if result.findings:
        raise RuntimeError(f"the reference diverged from itself: {list(result.findings)}")
    return Floor(hands=result.hands, seconds=result.seconds, requests=result.requests)


def record(hands: int, seed: int) -> list[bytes]:
    """The reference engine's answer lines for the fuzz hands of `seed`, in order."""
    answers: list[bytes] = []
    _search(EngineClient(lambda: _Recording(answers)), hands, seed)
    return answers


def replay(answers: list[bytes], hands: int, seed: int) -> Floor:
    return _search(EngineClient(lambda: _Replaying(answers)), hands, seed)


def child_cpu_seconds() -> float | None:
    """CPU seconds of this process's children that have exited so far (and of theirs that were
    waited for: a fuzz command's engine counts in the fuzz command's); None where unknown."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return None
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def write_recording(path: Path, hands: int, seed: int) -> None:
    """Record the reference's answers to the fuzz hands of `seed` into `path`, for `replay_fresh`."""
    path.write_bytes(pickle.dumps(record(hands, seed)))


def replay_fresh(recording: Path, hands: int, seed: int) -> Floor:
    """One replay of a recording (`write_recording`) in a fresh process (see the module's docstring),
    with that process's CPU time."""
    cpu = child_cpu_seconds()
    done = subprocess.run([sys.executable, __file__, "--replay", str(recording), "--hands", str(hands),
                           "--seed", str(seed), "--json"], capture_output=True, text=True, check=True)
    after = child_cpu_seconds()
    used = after - cpu if after is not None and cpu is not None else None
    return Floor(**json.loads(done.stdout), cpu_seconds=used)


def fuzzer_floor(hands: int, seed: int, repeat: int) -> Floor:
    """The fastest of `repeat` replays of `hands` fuzz hands against an engine that costs nothing,
    each in a fresh process (see the module's docstring)."""
    best: Floor | None = None
    with tempfile.TemporaryDirectory() as tmp:
        recording = Path(tmp) / "answers.pickle"
        write_recording(recording, hands, seed)
        for _ in range(max(1, repeat)):
            floor = replay_fresh(recording, hands, seed)
            if best is None or floor.seconds < best.seconds:
                best = floor
    assert best is not None
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/bench_fuzz_floor.py", description="the fuzzer-alone rate")
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=2, help="fresh-process replays; the fastest counts")
    parser.add_argument("--replay", type=Path, help=argparse.SUPPRESS)  # one replay of a recording, here
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.replay is not None:
        floor = replay(pickle.loads(args.replay.read_bytes()), args.hands, args.seed)
    else:
        floor = fuzzer_floor(args.hands, args.seed, args.repeat)
    if args.json:
        print(json.dumps({"hands": floor.hands, "seconds": floor.seconds, "requests": floor.requests}))
    else:
        print(f"the fuzzer alone: {floor.hands} hands in {floor.seconds:.2f} s = {floor.rate:.0f} hands/s "
              f"({floor.requests} requests)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
