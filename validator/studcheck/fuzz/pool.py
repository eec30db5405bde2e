"""The campaign on worker processes (`studcheck fuzz --jobs N`), with the same results as one process.

Each worker starts its own engine and its own in-process reference and runs the one-process search
(search.py) on its share of the hand numbers: worker w of N plays the w-th, (w+N)-th, ... numbers
of the run (or of its `--shard`). Hand k is made from (seed, k) alone, so it is the same hand in
whichever worker plays it. A worker shrinks the first hand of each signature *it* sees; the parent
folds the workers' hands back in hand order, exactly as the one-process search counts them, so the
first hand of a signature, the shrunk case, the table and the census are those of `--jobs 1`. (A
worker may shrink a signature another worker saw earlier: wasted work, never a different result.)

Processes, not threads: the reference engine is pure Python and CPU-bound. The parent keeps the
engine it asked `hello` and uses it to run each case written on the engine, as `--jobs 1` does.

Workers are forked from a warm process, not started cold: where the platform has it (Linux, macOS),
a multiprocessing fork server imports the fuzzer and plays a few hands against the in-process
reference (studcheck/fuzz/warm.py: the imports, the compiled response schemas, the encoder, the
evaluator's tables), then forks every worker from that state. So `--jobs N` pays those once, not N
times. The parent itself is never forked (it holds its engine's pipes). Elsewhere, spawn (cold).

Nothing outlives a fuzz killed outright (SIGKILL): each worker watches the parent and ends its own
engine; a guard process (stopping.Guard) ends the parent's engine, which no worker started, and
any worker's; and a worker killed while the parent lives has its engine ended by the parent (every
worker announces each engine it starts before its hello, as `run --jobs` workers do).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import queue
import signal
import time
from collections.abc import Callable
from multiprocessing.managers import SyncManager
from dataclasses import dataclass, field, replace
from typing import Any

from studcheck.fuzz.census import Finding, SearchResult
from studcheck.fuzz.config import Shard, hand_numbers
from studcheck.fuzz.compare import Signature
from studcheck.fuzz.play import EngineMisbehaved, Failure, HandRecord, ReferenceFailed, Table
from studcheck.fuzz.search import SearchConfig, search
from studcheck.fuzz.shrink import Progress
from studcheck.fuzz.strategies import Capabilities
from studcheck.protocol import stopping
from studcheck.protocol.client import (TERM_GRACE, Announced, Deadline, EngineClient, EngineError, Problem, Stopped,
                                       Transport)

POLL = 0.1  # how often the parent, waiting for a hand, looks for a signal or the deadline
STOP_GRACE = 5.0  # seconds a worker has to end its engine after being told to stop


@dataclass(frozen=True, kw_only=True)
class Settled:
    """What the parent needs of a hand that is not the first of its signature in its worker."""

    actions: int
    refused: int
    skipped: str | None
    past_failure: Failure | None
    signature: Signature | None

    @classmethod
    def of(cls, record: HandRecord) -> Settled:
        return cls(actions=record.actions, refused=record.refused, skipped=record.skipped,
                   past_failure=record.past_failure, signature=record.signature)


@dataclass(frozen=True, kw_only=True)
class PoolSpec:
    """Everything a worker needs (pickled to it): how to start the engine, what to generate, its hands."""

    transport: Callable[[], Transport]
    timeout: float
    deadline: Deadline | None
    caps: Capabilities
    search: SearchConfig
    shard: Shard
    workers: int
    ends: float | None = None  # time.monotonic() when --duration passes, counted from the parent's start

    def numbers(self, worker: int = 0, workers: int = 1) -> range:
        return hand_numbers(self.search.hands, self.shard, worker=worker, workers=workers)


#: what the fork server imports before it forks any worker; importing it warms the fuzzer up
WARM_MODULE = "studcheck.fuzz.warm"


def worker_context() -> Any:
    """The fork server, warmed by WARM_MODULE (see the module's docstring), or spawn where there is none."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([WARM_MODULE])  # read when the server starts (once per process)
        return context
    return multiprocessing.get_context("spawn")


def warm(hands: int = 12) -> None:
    """Play `hands` fuzz hands against the in-process reference and throw them away: everything a
    worker loads or builds on first use (modules, schema checks, caches, evaluator tables) is then
    in this process, for its forks. Never raises: a failure here only means cold workers."""
    try:
        from studcheck.protocol.client import InProcessTransport

        client = EngineClient(InProcessTransport)
        info = client.start()
        try:
            search(Table(client), Capabilities.from_hello(info), SearchConfig(hands=hands, seed=0), listen_at_end=False)
        finally:
            client.stop(polite=False)
    except Exception:  # noqa: BLE001, S110 - an optimisation: the workers warm up by themselves
        pass


def shareable(transport: Callable[[], Transport]) -> str | None:
    """Why workers cannot start this engine themselves (the factory must pickle), or None."""
    try:
        pickle.dumps(transport)
    except Exception as exc:  # noqa: BLE001 - pickling raises many kinds of error
        return f"the engine's transport cannot be sent to a worker process ({type(exc).__name__}: {exc})"
    return None


class _Halt(BaseException):  # noqa: N818 - a signal, not an error
    """The parent has all it needs: leave the search (a BaseException passes through everything)."""


def _claim(seen: Any, lock: Any) -> Callable[[Signature, int], bool]:
    """Shrink a signature's hand unless a worker has already settled an earlier hand with it.

    The earliest hand always shrinks (nothing earlier can be in `seen`), so the result does not
    depend on timing; a later one is skipped when the earlier is already known, saving the work.
    """
    def claim(signature: Signature, number: int) -> bool:
        try:
            with lock:
                earlier = seen.get(signature.text())
                if earlier is None or number < earlier:
                    seen[signature.text()] = number
        except (OSError, EOFError):  # the manager is gone (a Ctrl-C reaches it too): shrink, as if alone
            return True
        return earlier is None or number < earlier
    return claim


def _worker(spec: PoolSpec, index: int, results: Any, halt: Any, seen: Any, lock: Any, owner: int) -> None:
    """One worker: its own engine and reference, the one-process search on its hand numbers."""
    stopping.end_with_parent(TERM_GRACE, owner)  # a fuzz killed outright leaves no worker or engine running

    def announced() -> Transport:  # each engine's group, before its hello: the parent ends it if this worker dies
        return Announced(spec.transport(), lambda pid: results.put(("engine", index, pid)))

    client = EngineClient(announced, timeout=spec.timeout, deadline=spec.deadline)
    table: Table | None = None
    with stopping.watch():  # the parent's SIGTERM (or the terminal's Ctrl-C) ends the engine too
        try:
            client.start()
            table = Table(client)

            def on_hand(number: int, record: HandRecord, finding: Finding | None) -> None:
                results.put(("hand", number, Settled.of(record), finding))
                if halt.is_set():
                    raise _Halt

            config = replace(spec.search, numbers=spec.numbers(index, spec.workers))
            if spec.ends is not None:  # the run's duration, not this worker's (it started later)
                config = replace(config, duration=max(spec.ends - time.monotonic(), 0.0))
            search(table, spec.caps, config, on_hand=on_hand, listen_at_end=False, claim=_claim(seen, lock))
        except _Halt:
            pass
        except EngineMisbehaved as exc:
            results.put(("misbehaved", exc.hand, exc.error, exc.record, exc.request, exc.shrinking))
        except ReferenceFailed as exc:
            results.put(("reference", exc.hand, exc.error, exc.record))
        except EngineError as exc:  # the engine did not start here (it did in the parent)
            results.put(("misbehaved", None, exc, None, {"type": "hello"}, False))
        finally:
            client.stop(polite=False)
            results.put(("done", index, table.requests if table is not None else 0))


def run_pool(spec: PoolSpec, *, progress: Progress | None = None,
             on_new: Callable[[Finding], None] = lambda finding: None) -> SearchResult:
    """`search` on `spec.workers` processes: the same SearchResult, built in hand order."""
    progress = progress or Progress()
    # The parent's own engine (its hello) and every worker's: ended by the guard if this process is
    # killed outright, whatever they ignore (the workers end theirs too; nobody else ends this one's)
    guard = stopping.Guard(stopping.groups(), TERM_GRACE)
    if spec.search.duration is not None and spec.ends is None:
        spec = replace(spec, ends=time.monotonic() + spec.search.duration)  # CLOCK_MONOTONIC: one clock for all processes
    context = worker_context()
    results: Any = context.Queue()
    halt = context.Event()
    manager = SyncManager(ctx=context)  # the signatures settled so far, by earliest hand (see _claim)
    manager.start(stopping.end_with_parent, (0.0, os.getpid()))  # it ends with this process, however it ends
    seen, lock = manager.dict(), manager.Lock()
    workers = [context.Process(target=_worker, args=(spec, index, results, halt, seen, lock, os.getpid()), daemon=True,
                               name=f"studcheck-fuzz-worker-{index + 1}")
               for index in range(spec.workers)]
    for process in workers:
        process.start()
    fold = _Fold(spec=spec, results=results, workers=workers, progress=progress, on_new=on_new, guard=guard)
    started = time.perf_counter()
    try:
        fold.run()
    finally:
        halt.set()
        fold.drain(workers)
        try:
            manager.shutdown()
        except (OSError, EOFError):  # already ended by the same signal as the run
            pass
        guard.close()
    fold.result.seconds = time.perf_counter() - started - fold.elsewhere
    return fold.result


@dataclass(kw_only=True)
class _Fold:
    """The parent: takes the workers' hands in hand order and counts them as the one-process search does."""

    spec: PoolSpec
    results: Any
    workers: list[Any]  # the worker processes, by index
    progress: Progress
    on_new: Callable[[Finding], None]
    guard: stopping.Guard | None = None
    result: SearchResult = field(default_factory=SearchResult)
    elsewhere: float = 0.0

    def __post_init__(self) -> None:
        self.hands: dict[int, tuple[Settled, Finding | None]] = {}
        self.raised: dict[int | None, tuple[Any, ...]] = {}
        self.done: set[int] = set()
        self.requests = 0
        self.engines: dict[int, list[int]] = {}  # the engine process groups each worker announced

    def run(self) -> None:
        numbers, result, config = self.spec.numbers(), self.result, self.spec.search
        for position, number in enumerate(numbers):
            if not self.wait_for(number, position % self.spec.workers):
                if config.duration is None:  # a worker ends early only at --duration or after a failure it sent
                    self.lost(number, position % self.spec.workers)
                result.out_of_time = True
                return
            settled, opened = self.hands.pop(number)
            result.count(number, settled)
            self.progress.hand_done(settled)  # type: ignore[arg-type]  # the display only counts
            if settled.signature is not None and self.file(number, settled.signature, opened):
                result.stopped = number < numbers[-1]
                return

    def file(self, number: int, signature: Signature, opened: Finding | None) -> bool:
        """File a hand's signature as `search` does; True when the run must stop."""
        result = self.result
        finding = result.findings.get(signature)
        if finding is not None:
            finding.hands += 1
            return False
        assert opened is not None, f"hand {number}: the first of its signature came without its finding"
        opened.hands = 1
        result.findings[signature] = opened
        if opened.known is not None:
            return False
        aside = time.perf_counter()
        self.on_new(opened)
        self.elsewhere += time.perf_counter() - aside
        return len(result.new) >= self.spec.search.max_new

    def wait_for(self, number: int, owner: int) -> bool:
        """Receive until hand `number` is in; False if its worker ended without it (`--duration`)."""
        while number not in self.hands:
            for key in (number, None):
                if key in self.raised:
                    self.rethrow(number, self.raised[key])
            if owner in self.done:
                return False
            self.check_stop(number)
            # looked at on every message, not only when none comes: the other workers may keep the
            # queue busy for ever while this hand's worker lies dead
            dead = not self.workers[owner].is_alive() and owner not in self.done
            try:
                message = self.results.get_nowait() if dead else self.results.get(timeout=POLL)
            except queue.Empty:
                if dead:  # and nothing it sent before it died is left to read
                    self.lost(number, owner)
                continue
            self.take(message)
        return True

    def lost(self, number: int, owner: int) -> None:
        """A worker ended without its hand and without saying why: stop with a verdict, not a hang."""
        process = self.workers[owner]
        self.end_engines(owner)
        error = EngineError(Problem.CRASH, f"fuzz worker {owner + 1} ended without playing the hand (exit code "
                                           f"{process.exitcode}; killed for memory?): a studcheck problem, not the engine's")
        misbehaved = EngineMisbehaved(error, None, {})
        misbehaved.hand = number
        raise misbehaved

    def take(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "hand":
            _, number, settled, finding = message
            self.hands[number] = (settled, finding)
        elif kind == "engine":
            if message[2] is not None:
                self.engines.setdefault(message[1], []).append(message[2])
                if self.guard is not None:
                    self.guard.add(message[2])
        elif kind == "done":
            self.done.add(message[1])
            self.requests += message[2]
            self.result.requests = self.requests
        else:
            self.raised[message[1]] = message

    def rethrow(self, number: int, message: tuple[Any, ...]) -> None:
        if message[0] == "reference":
            failed = ReferenceFailed(message[2], message[3])
            failed.hand = message[1] or number
            raise failed
        _, hand, error, record, request, shrinking = message
        misbehaved = EngineMisbehaved(error, record, request)
        misbehaved.hand, misbehaved.shrinking = hand or number, shrinking
        raise misbehaved

    def check_stop(self, number: int) -> None:
        """A signal or `--deadline` stops the parent as it stops a one-process search."""
        signum = stopping.requested()
        deadline = self.spec.deadline
        error: EngineError | None = None
        if signum is not None:
            error = Stopped(Problem.INTERRUPTED, f"interrupted by {stopping.signal_name(signum)}")
        elif deadline is not None and deadline.left() <= 0:
            error = Stopped(Problem.DEADLINE, deadline.describe())
        if error is not None:
            misbehaved = EngineMisbehaved(error, None, {})
            misbehaved.hand = number
            raise misbehaved

    def drain(self, workers: list[Any]) -> None:
        """Let every worker stop its engine and end; read what they still send so none blocks on a full pipe."""
        ends = time.monotonic() + STOP_GRACE
        while len(self.done) < len(workers) and time.monotonic() < ends:
            try:
                self.take(self.results.get(timeout=POLL))
            except queue.Empty:
                if not any(process.is_alive() for process in workers):
                    break
        for process in workers:
            process.join(timeout=max(0.0, ends - time.monotonic()))
            if process.is_alive():
                process.terminate()
                process.join(timeout=1.0)
        for index, process in enumerate(workers):
            if not process.is_alive():
                self.end_engines(index)

    def end_engines(self, index: int) -> None:
        """The engines of a worker that is gone: a worker ends its own (so this finds none), unless it
        was killed; then its engine, which may ignore the end of its input and SIGTERM, is killed whole."""
        for group in self.engines.pop(index, []) if os.name == "posix" else []:
            try:
                os.killpg(group, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
