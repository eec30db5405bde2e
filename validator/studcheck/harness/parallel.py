"""`run --jobs N` and `run --shard K/N`: cases spread over engines, verdicts back in case order.

`--jobs`: N worker threads, each driving its own engine process through its own `Runner`, take
the next case from one shared list (no scheduler beyond that). On Linux the Runner of every worker
but the first lives in a forked child process (forked.py): the harness's own work per case is
about twice the reference engine's, and threads would share one interpreter lock for it. The
first engine is started before the others: its hello says whether it may run beside itself. A
signal the harness alone receives is passed on to the children. The verdicts come back in case order
whichever worker finished first, so every report is the one `--jobs 1` writes (timings aside).
`--maxfail` stops handing out cases once the in-order prefix holds that many failing cases: the
verdicts are that prefix, as with one engine; cases other workers finished past it are dropped.

`--shard K/N`: the cases at positions K-1, K-1+N, K-1+2N... of the selection, in order. Round
robin rather than a hash of the IDs: the shards differ by at most one case, each gets a share of
every variant and file (the suite is ordered by file), and `studcheck merge` puts the case order
back together from the shard numbers alone. The partition moves when cases are added, which
does not matter: `merge` takes only shards of one suite and one selection (`selection` digest).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from studcheck.protocol import stopping

from studcheck.cases.model import Case
from studcheck.harness.forked import WorkerDied
from studcheck.harness.runner import Verdict, lost_verdict

#: how often the waiting main thread wakes up (signal handlers run in the main thread)
POLL = 0.1


class EngineRunner(Protocol):
    """A `Runner`, or a `forked.ForkedRunner` driving one in a child process."""

    @property
    def client(self) -> Any: ...

    def run(self, case: Case, *, last: bool = False) -> Verdict: ...

    def finish(self, case: Case, verdict: Verdict) -> Verdict: ...


def default_jobs() -> int:
    """The cores this process may use (its CPU affinity where the system tells it), at least 1."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):  # not Linux
        return max(os.cpu_count() or 1, 1)


def positive_jobs(text: str) -> int:
    """An argparse type: `--jobs N` with N >= 1, or `auto` (the default: the number of cores)."""
    import argparse

    if text == "auto":
        return default_jobs()
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of engines (give 1, 2, ... or auto)") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give at least 1 engine")
    return value


@dataclass(frozen=True, kw_only=True)
class Shard:
    """Shard `index` of `count` (1-based): every count-th case of the selection, from the index-th."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """An argparse type for `K/N`."""
        import argparse

        first, slash, second = text.partition("/")
        if not slash or not first.strip().isdigit() or not second.strip().isdigit():
            raise argparse.ArgumentTypeError(f"{text!r}: give the shard as K/N, e.g. 2/4 (the second of four)")
        index, count = int(first), int(second)
        if count < 1 or not 1 <= index <= count:
            raise argparse.ArgumentTypeError(f"{text!r}: K must be between 1 and N, and N at least 1")
        return cls(index=index, count=count)

    def pick(self, cases: Sequence[Case]) -> list[Case]:
        return list(cases[self.index - 1::self.count])

    def to_json(self, selected: Sequence[Case]) -> dict[str, Any]:
        """The header's `shard`: which one, of how many selected cases, and a digest of their IDs in order."""
        return {"index": self.index, "count": self.count, "of": len(selected), "selection": selection_digest(case.id for case in selected)}


def selection_digest(case_ids: Iterable[str]) -> str:
    """Short SHA-256 of the case IDs in run order: shards of one selection share it."""
    return hashlib.sha256("\n".join(case_ids).encode("utf-8")).hexdigest()[:16]


class Workers:
    """Runners (one engine each) taking cases from one list; `verdicts` yields them in case order.

    A runner whose engine is not running when its thread starts is started there (so N engines
    start at once); one that cannot start takes no cases, and `unstarted` says why.
    """

    def __init__(self, runners: Sequence[EngineRunner]) -> None:
        self.runners = list(runners)
        self.unstarted: list[str] = []
        self._lock = threading.Condition()
        self._cases: list[Case] = []
        self._next = 0
        self._stop = False
        self._done: dict[int, Verdict] = {}
        self._crash: BaseException | None = None
        self._passed_on = False  # a signal the harness got has been passed on to its child processes

    def verdicts(self, cases: Sequence[Case]) -> Generator[Verdict, None, None]:
        """The verdict of each case in order; closing the iterator early stops handing out cases."""
        if len(self.runners) == 1:
            for number, case in enumerate(cases, start=1):
                yield self.runners[0].run(case, last=number == len(cases))
            return
        self._cases = list(cases)
        threads = [threading.Thread(target=self._work, args=(runner,), name=f"studcheck-engine-{number}", daemon=True)
                   for number, runner in enumerate(self.runners, start=1)]
        for thread in threads:
            thread.start()
        try:
            for index in range(len(self._cases)):
                yield self._wait(index, threads)
        finally:
            with self._lock:
                self._stop = True
            for thread in threads:
                while thread.is_alive():
                    thread.join(POLL)

    def _wait(self, index: int, threads: Sequence[threading.Thread]) -> Verdict:
        with self._lock:
            while index not in self._done:
                if self._crash is not None:
                    raise self._crash
                if not any(thread.is_alive() for thread in threads):  # every worker died: no engine is left
                    return lost_verdict(self._cases[index], "not run: every studcheck worker process died before this case")
                self._pass_on_signal()
                self._lock.wait(POLL)
            return self._done.pop(index)

    def _pass_on_signal(self) -> None:
        signum = stopping.requested()
        if signum is None or self._passed_on:
            return
        self._passed_on = True
        for runner in self.runners:
            interrupt = getattr(runner, "interrupt", None)
            if interrupt is not None:
                interrupt(signum)

    def _take(self) -> tuple[int, Case] | None:
        with self._lock:
            if self._stop or self._next >= len(self._cases):
                return None
            index = self._next
            self._next += 1
            return index, self._cases[index]

    def _work(self, runner: EngineRunner) -> None:
        try:
            if not self._started(runner):
                return
            held: tuple[int, Case, Verdict] | None = None  # delivered once the worker knows whether it was its last
            while (taken := self._take()) is not None:
                if held is not None:
                    self._deliver(held[0], held[2])
                index, case = taken
                try:
                    held = (index, case, runner.run(case))
                except WorkerDied as exc:  # this case is an error; the live workers take the rest
                    held = None
                    self._deliver(index, lost_verdict(case, str(exc)))
                    return
            if held is not None:
                try:
                    self._deliver(held[0], runner.finish(held[1], held[2]))
                except WorkerDied:
                    self._deliver(held[0], held[2])
        except BaseException as exc:  # a harness bug: hand it to the main thread rather than hang it
            with self._lock:
                self._crash = exc
                self._lock.notify_all()

    def _started(self, runner: EngineRunner) -> bool:
        from studcheck.protocol.client import EngineError

        if runner.client.running:
            return True
        try:
            runner.client.start()
        except WorkerDied as exc:
            with self._lock:
                self.unstarted.append(str(exc))
            return False
        except EngineError as exc:
            last_words = exc.stderr.strip().splitlines()[-1:] if exc.stderr else []
            with self._lock:
                self.unstarted.append("; its stderr ended: ".join([exc.message, *last_words]))
            return False
        return True

    def _deliver(self, index: int, verdict: Verdict) -> None:
        with self._lock:
            self._done[index] = verdict
            self._lock.notify_all()

    def stop(self, *, polite: bool = True) -> None:
        for runner in self.runners:
            runner.client.stop(polite=polite)


def engines_for(jobs: int, cases: int, *, parallel: bool, in_process: bool) -> int:
    """How many engines a run uses: --jobs, but never more than the cases, and one for an engine that
    said `"parallel": false` in hello or for the in-process reference engine (one interpreter)."""
    if not parallel or in_process:
        return 1
    return max(min(jobs, cases), 1)

