"""A Runner in a forked child process, for `run --jobs` on Linux.

Measured on the bundled suite, the harness's own work per case (parsing answers, schema checks,
comparing) takes about twice the reference engine's, and threads share one interpreter lock: with
threads alone two engines gain little. Each extra worker is therefore a child process forked from
the harness (the cases and the options are already in its memory; nothing is pickled but case IDs
one way and verdicts the other). The parent's worker thread drives it through `ForkedRunner`, which
looks like a `Runner` to `parallel.Workers`.

Signals: a terminal's Ctrl-C reaches the children too (same process group) and their inherited
handlers end their engines; a signal sent to the harness alone is passed on by `interrupt`.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from studcheck.cases.model import Case
from studcheck.harness.runner import Runner, Verdict
from studcheck.protocol import stopping
from studcheck.protocol.client import TERM_GRACE, Announced, EngineError, Problem

#: fork is cheap and shares the loaded cases; elsewhere (macOS, Windows) the workers are threads
AVAILABLE = sys.platform.startswith("linux")


class WorkerDied(Exception):
    """The worker process is gone: its case has no verdict from an engine, and it takes no more cases."""


class ForkedRunner:
    """The parent's side: `run`, `finish` and `client.start/stop/running` forwarded to the child."""

    def __init__(self, make: Callable[[], Runner], cases: Sequence[Case]) -> None:
        context = multiprocessing.get_context("fork")
        sys.stdout.flush()
        sys.stderr.flush()  # nothing buffered may be written twice, once by the child
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, make, cases, os.getpid()), daemon=True,
                                        name="studcheck-engine-worker")
        self._process.start()
        child.close()
        self.client = _Client(self)
        self._engine_group: int | None = None  # the engine's process group, once the child has started it

    def call(self, *message: Any) -> Any:
        try:
            self._conn.send(message)
            kind, value = self._conn.recv()
            while kind == "engine":  # the child started an engine (at start, or restarting one): its group
                self._engine_group = value
                kind, value = self._conn.recv()
        except (EOFError, OSError) as exc:  # killed (kill -9, the OOM killer) or crashed
            self._end_engine()
            raise WorkerDied(f"the studcheck worker process running this case died ({type(exc).__name__}): "
                             "killed, or out of memory? Its engine was ended; the other workers ran the cases left") from None
        if kind == "engine_error":
            problem, text, stderr = value
            raise EngineError(Problem(problem), text, stderr=stderr)
        return value

    def run(self, case: Case, *, last: bool = False) -> Verdict:
        verdict: Verdict = self.call("run", case.id, last)
        return verdict

    def finish(self, case: Case, verdict: Verdict) -> Verdict:
        finished: Verdict = self.call("finish", case.id, verdict)
        return finished

    def _end_engine(self) -> None:
        """The dead worker's engine, which may ignore the end of its stdin: its whole process group."""
        group, self._engine_group = self._engine_group, None
        if group is not None:
            try:
                os.killpg(group, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def interrupt(self, signum: int) -> None:
        """Pass a signal on to the child (it ends its engine, and its cases stop as the parent's do)."""
        if self._process.pid is not None and self._process.is_alive():
            os.kill(self._process.pid, signum)

    def close(self, polite: bool) -> None:
        if self._process.is_alive():
            try:
                self.call("stop", polite)
            except (EOFError, OSError):
                pass
        self._conn.close()
        self._process.join(5)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()


class _Client:
    """What `Workers` asks of a runner's client, answered by the child's."""

    def __init__(self, owner: ForkedRunner) -> None:
        self._owner = owner
        self.running = False

    def start(self) -> None:
        self._owner.call("start")
        self.running = True

    def stop(self, *, polite: bool = True) -> None:
        self.running = False
        self._owner.close(polite)


def _serve(conn: Connection, make: Callable[[], Runner], cases: Sequence[Case], parent: int) -> None:
    """The child: one engine, run the cases the parent names, until it says stop or goes away."""
    by_id = {case.id: case for case in cases}
    runner = make()
    factory = runner.client.transport_factory
    # every engine this worker starts is announced before its hello, so that a parent whose worker
    # dies even while an engine is starting can end that engine's group
    runner.client._factory = lambda: Announced(factory(), lambda pid: conn.send(("engine", pid)))
    if os.getppid() != parent:  # the harness died before this worker got going
        os._exit(1)
    stopping.end_with_parent(TERM_GRACE, parent)  # a harness killed outright: see stopping.end_with_parent
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return
            kind = message[0]
            if kind == "stop":
                runner.client.stop(polite=message[1])
                conn.send(("ok", None))
                return
            conn.send(_answer(runner, by_id, message))
    finally:
        runner.client.stop(polite=False)


def _answer(runner: Runner, by_id: dict[str, Case], message: tuple[Any, ...]) -> tuple[str, Any]:
    kind = message[0]
    if kind == "start":
        try:
            runner.client.start()
        except EngineError as exc:
            return "engine_error", (exc.problem.value, exc.message, exc.stderr)
        return "ok", None
    if kind == "run":
        return "ok", runner.run(by_id[message[1]], last=message[2])
    if kind == "finish":
        return "ok", runner.finish(by_id[message[1]], message[2])
    raise ValueError(f"unknown request to an engine worker: {kind!r}")
