"""The harness side of the protocol: talk to an engine, never hang, never trust its output.

An engine is any program speaking JSON Lines on stdin/stdout. Everything it can do wrong (not
start, die, stall, print non-JSON, print 20 MB, flood stderr, answer the wrong `seq`, send a
response outside the schema, write a line nobody asked for) becomes an `EngineError` with
evidence, never a hang or a traceback. A signal or the run's deadline cuts any wait short
(`Stopped`); the engine runs in its own process group, which is killed whole when it is closed.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import IO, Any, Protocol

from studcheck import __version__
from studcheck.protocol import answers, stopping
from studcheck.protocol.pipes import (
    STDERR_KEEP_BYTES,
    Item,
    LineSource,
    PolledLines,
    ReadWatch,
    StderrLog,
    TooLong,
    line_source,
)
from studcheck.protocol.pipes import shorten as shorten  # re-exported: the harness's reports use them
from studcheck.protocol.pipes import truncate as truncate
from studcheck.protocol.messages import (
    PROTOCOL,
    EngineInfo,
    Profile,
    RequestType,
    encode,
    encode_acyclic,
    response_kind,
    schema_problem,
)

MAX_LINE_BYTES = 8 * 1024 * 1024
TERM_GRACE = 0.5  # seconds between SIGTERM and SIGKILL to the engine's process group
IDLE_LIMIT = 0.002  # at most this long to wait for an engine to go back to reading its stdin
IDLE_SLICE = 0.0001  # and how often to look
IDLE_LEARNING = 5  # checks in which to find out whether the engine can be seen idle at all
DEFAULT_TIMEOUT = 5.0
DEFAULT_STARTUP_TIMEOUT = 20.0


class Problem(str, Enum):
    """What kind of misbehaviour an `EngineError` reports (appears in reports)."""

    START = "start"
    TIMEOUT = "timeout"
    CRASH = "crash"
    NOT_JSON = "not_json"
    LINE_TOO_LONG = "line_too_long"
    WRONG_SEQ = "wrong_seq"
    BAD_RESPONSE = "bad_response"
    PROTOCOL_VERSION = "protocol_version"
    INTERRUPTED = "interrupted"  # a signal stopped the run (not the engine's fault)
    DEADLINE = "deadline"  # the run's --deadline passed


class EngineError(Exception):
    """The engine broke the protocol (verdict `error`); `line` is the offending output, truncated."""

    def __init__(self, problem: Problem, message: str, *, line: str | None = None, stderr: str = "") -> None:
        super().__init__(message)
        self.problem = problem
        self.message = message
        self.line = line
        self.stderr = stderr

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with every field (the default would call `cls(message)`): the fuzzer's workers send errors."""
        return (type(self), (self.problem, self.message), self.__dict__)


class Unsolicited(EngineError):
    """The engine wrote a line before a request nobody had asked for yet (problem `bad_response`)."""


class Stopped(EngineError):
    """A signal or the run's deadline cut a request short (problem `interrupted` or `deadline`).

    An `EngineError`, so every path that survives a broken engine survives this too; the runner
    tells it apart: no restart, and the cases left are not run.
    """


def _show(raw: bytes) -> str:
    return truncate(raw.decode("utf-8", errors="replace").rstrip("\n"))


class Transport(Protocol):
    """A line pipe to one engine process (or the in-process reference engine)."""

    def start(self) -> None: ...

    def send(self, line: bytes, timeout: float = DEFAULT_TIMEOUT, *, answers_due: int = 0) -> None: ...

    def receive(self, timeout: float) -> bytes: ...

    def unsolicited(self, wait: float, *, patience: float = 0.0) -> bool: ...

    def mark_stderr(self) -> None: ...

    def stderr_excerpt(self) -> str: ...

    def close(self, grace: float = 1.0) -> None: ...


class SubprocessTransport:
    """An engine subprocess in its own process group; no read or write ever blocks us (pipes.py)."""

    def __init__(self, argv: Sequence[str], *, max_line: int = MAX_LINE_BYTES, stderr_keep: int = STDERR_KEEP_BYTES) -> None:
        self.argv = list(argv)
        self._max_line = max_line
        self._stderr_keep = stderr_keep
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: LineSource | None = None
        self._idle: ReadWatch | None = None
        self._stderr = StderrLog(stderr_keep)

    @property
    def pid(self) -> int | None:
        """The engine process's id (also its process group's), while it runs."""
        return None if self._process is None else self._process.pid

    def start(self) -> None:
        self._stderr = StderrLog(self._stderr_keep)
        try:
            self._process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=(os.name == "posix"),
            )
        except OSError as exc:
            raise EngineError(Problem.START, f"cannot start the engine {shlex.join(self.argv)!r}: {exc}") from None
        assert self._process.stdout is not None and self._process.stderr is not None
        stopping.register(id(self), self._terminate_group, self._kill_group, group=self._process.pid)
        self._lines = line_source(self._process.stdout, self._process.stderr, self._stderr, self._max_line)
        self._idle = ReadWatch(self._process.pid) if isinstance(self._lines, PolledLines) else None

    def _get(self, timeout: float) -> Item | None:
        if self._lines is None:
            raise EngineError(Problem.CRASH, "the engine is not running")
        return self._lines.get(timeout)

    def send(self, line: bytes, timeout: float = DEFAULT_TIMEOUT, *, answers_due: int = 0) -> None:
        """Write one request; refuse first if the engine wrote something nobody asked for.

        `answers_due` counts earlier requests not answered yet (pipelining): lines waiting then are
        answers, and an extra one shows up later as an answer with the wrong `seq`.
        """
        process = self._process
        if process is None or process.stdin is None:
            raise EngineError(Problem.CRASH, "the engine is not running")
        if not answers_due:
            self._check_unsolicited()
        try:
            _write_all(process.stdin, line, timeout, self._lines)
        except TimeoutError:
            raise EngineError(Problem.TIMEOUT, f"the engine did not read its input within {timeout:g} s") from None
        except (BrokenPipeError, OSError, ValueError):
            raise EngineError(Problem.CRASH, f"the engine stopped reading its input{self._exit_note(wait=1.0)}") from None

    def _check_unsolicited(self) -> None:
        while (item := self._get(0)) is not None:
            self._refuse(item, "the engine wrote a line nobody asked for before this request (two answers to one request?)", "")

    def _refuse(self, item: Item, message: str, when: str) -> None:
        """Raise for output nobody asked for (a blank line excepted); `when` says since when."""
        if isinstance(item, bytes):
            if item.strip():
                raise Unsolicited(Problem.BAD_RESPONSE, message, line=_show(item))
            return
        self._raise_for(item, when)

    def _raise_for(self, item: TooLong | object, when: str = "") -> None:
        if isinstance(item, TooLong):
            raise EngineError(Problem.LINE_TOO_LONG, f"the engine wrote a line longer than {self._max_line} bytes",
                              line=_show(item.start))
        raise EngineError(Problem.CRASH, f"the engine closed its output{when}{self._exit_note(wait=1.0)}")

    def unsolicited(self, wait: float, *, patience: float = 0.0) -> bool:
        """Raise if the engine writes anything (or exits) within `wait` seconds; no answer is due.
        Returns whether the engine was seen asleep reading its stdin (see below).

        The harness calls this at the end of each case, so output nobody asked for is blamed on
        the case after whose last answer it came, not on the next case's first request.

        Where the engine can be seen asleep reading its stdin (`ReadWatch`), it is listened to
        until it is, for up to `patience` seconds: what it wrote before that is in the pipe by
        then, so nothing is missed and a quiet engine costs no wait.
        """
        watch = self._idle
        idle = watch is not None and watch.waiting()
        seen = idle
        end = time.monotonic() + (0.0 if idle else max(wait, patience if watch is not None else 0.0))
        while True:
            item = self._get(0.0 if idle else min(max(end - time.monotonic(), 0.0), IDLE_SLICE))
            if item is None:
                if idle or time.monotonic() >= end:
                    return seen
                idle = seen = watch is not None and watch.waiting()
                continue
            line = truncate(_show(item), 120) if isinstance(item, bytes) else ""
            self._refuse(item, f"the engine wrote a line nobody asked for after the case's last answer: {line}",
                         " after the case's last answer")

    def receive(self, timeout: float) -> bytes:
        lines = self._lines
        # An answer read already with earlier ones (an engine answers a batch at once) needs no wait,
        # so no look at the clock; with no time left (timeout <= 0) the loop times out, as ever.
        if timeout > 0 and isinstance(lines, PolledLines):
            line = lines.buffered()
            if line is not None and line.strip():
                return line
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EngineError(Problem.TIMEOUT, f"no answer within {timeout:g} s")
            item = self._get(min(remaining, stopping.POLL))
            if item is None:
                signum = stopping.requested()
                if signum is not None:
                    raise Stopped(Problem.INTERRUPTED, f"interrupted by {stopping.signal_name(signum)}")
                continue
            if not isinstance(item, bytes):
                self._raise_for(item)
            elif item.strip():
                return item

    def _exit_note(self, wait: float = 0.2) -> str:
        process = self._process
        if process is None:
            return ""
        try:
            code = process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return " (the process is still running)"
        if self._lines is not None:
            self._lines.finish_stderr(0.5)  # so the evidence includes its last words
        return f" (exit code {code})"

    def mark_stderr(self) -> None:
        """Start a new case's stderr, once all written so far is logged (it belongs to the case before)."""
        if self._lines is not None:
            self._lines.settle_stderr()
        self._stderr.mark()

    def stderr_excerpt(self) -> str:
        """The stderr since the mark (see `StderrLog.text`), with all written so far."""
        if self._lines is not None:
            self._lines.settle_stderr()
        return self._stderr.text()

    def _terminate_group(self) -> None:
        """SIGTERM to the engine's process group (called from the signal handler: signals only)."""
        process = self._process
        if process is not None and os.name == "posix":
            _signal_group(process.pid, signal.SIGTERM)

    def _kill_group(self) -> None:
        """SIGKILL to the engine's process group (signals only, like `_terminate_group`)."""
        process = self._process
        if process is not None and os.name == "posix":
            _signal_group(process.pid, signal.SIGKILL)

    def close(self, grace: float = 1.0) -> None:
        """Close stdin, give the engine `grace` seconds to exit, then end its whole process group.

        Children the engine started (a server, a `sleep`, the program behind `sh -c`) are in its
        group: they get SIGTERM, then SIGKILL after TERM_GRACE seconds, even if the engine itself
        exited cleanly, so nothing the engine started outlives the run.
        """
        process = self._process
        if process is None:
            return
        self._process = None
        try:
            if process.stdin is not None:
                process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        _end_group(process)
        stopping.unregister(id(self))
        if self._idle is not None:
            self._idle.close()
        for stream in (process.stdout, process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


def _signal_group(pgid: int, signum: int) -> bool:
    """Send `signum` to a process group; False if the group has no process left."""
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        return False
    except OSError:
        return False
    return True


def _end_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the engine's process group, TERM_GRACE seconds, then SIGKILL to what is left.

    The group keeps the engine's pid as its id while any member lives, so the id cannot have been
    reused for another group.
    """
    if os.name != "posix":
        if process.poll() is None:
            process.kill()
        _reap(process)
        return
    if not _signal_group(process.pid, signal.SIGTERM) and process.poll() is not None:
        return
    end = time.monotonic() + TERM_GRACE
    while time.monotonic() < end:
        if process.poll() is not None and not _signal_group(process.pid, 0):
            return  # the engine is reaped and nothing is left in its group
        time.sleep(0.01)
    _signal_group(process.pid, signal.SIGKILL)
    _reap(process)


def _reap(process: subprocess.Popen[bytes]) -> None:
    try:
        process.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        pass


def _write_all(stream: IO[bytes], data: bytes, timeout: float, lines: LineSource | None = None) -> None:
    """Write without ever blocking longer than `timeout` (an engine that stops reading cannot hang us).

    A request fits in the pipe's buffer almost always, so one non-blocking write is tried before
    a selector (which costs more than the write) is set up to wait for room. While it waits, the
    engine's answers are read into `lines` (PolledLines): an engine blocked on a full stdout pipe
    reads no more requests, and a long pipelined batch would wait for it forever.
    """
    if os.name != "posix":
        stream.write(data)
        stream.flush()
        return
    fd = stream.fileno()
    if os.get_blocking(fd):
        os.set_blocking(fd, False)
    try:
        written = os.write(fd, data)
    except BlockingIOError:
        written = 0
    if written == len(data):
        return
    deadline = time.monotonic() + timeout
    view = memoryview(data)[written:]
    pump = lines if isinstance(lines, PolledLines) else None
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_WRITE)
        reading = set(pump.read_fds()) if pump is not None else set()
        for read_fd in reading:
            selector.register(read_fd, selectors.EVENT_READ)
        while view:
            remaining = deadline - time.monotonic()
            events = selector.select(remaining) if remaining > 0 else []
            if not events:
                raise TimeoutError
            if pump is not None and any(key.fd in reading for key, _ in events):
                pump.pump()
                for closed in reading - set(pump.read_fds()):  # the engine closed it: never readable again
                    selector.unregister(closed)
                reading &= set(pump.read_fds())
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                continue
            view = view[written:]


class InProcessTransport:
    """The reference engine in this process, through the same JSON lines (so the paths cannot drift)."""

    def __init__(self, server_factory: Callable[[], Any] | None = None) -> None:
        self._factory = server_factory
        self._server: Any = None
        self._pending: list[bytes] = []
        self._log: list[str] = []
        self._mark = 0

    def start(self) -> None:
        if self._factory is None:
            from studcheck.protocol.serve import Server

            self._server = Server()
        else:
            self._server = self._factory()
        self._pending = []

    def send(self, line: bytes, timeout: float = DEFAULT_TIMEOUT, *, answers_due: int = 0) -> None:
        if self._server is None:
            raise EngineError(Problem.CRASH, "the engine is not running")
        try:
            for piece in line.splitlines():  # a pipelined batch is several lines
                if piece.strip():
                    self._pending.append(encode_acyclic(self._server.handle(json.loads(piece))))
        except Exception:  # a reference-engine bug: report it like a crashed engine
            self._log.append(traceback.format_exc())
            self._server = None
            raise EngineError(Problem.CRASH, "the in-process engine raised an exception", stderr=self.stderr_excerpt()) from None

    def receive(self, timeout: float) -> bytes:
        if not self._pending:
            raise EngineError(Problem.TIMEOUT, "no answer (in-process engine)")
        return self._pending.pop(0)

    def unsolicited(self, wait: float, *, patience: float = 0.0) -> bool:
        """The reference answers each request once; nothing can be left over."""
        return True

    def mark_stderr(self) -> None:
        self._mark = len(self._log)

    def stderr_excerpt(self) -> str:
        return shorten("".join(self._log[self._mark:]))

    def close(self, grace: float = 1.0) -> None:
        self._server = None


class Announced:
    """A transport that tells `tell` its engine's process id (its process group) as soon as it runs,
    before its hello: whoever must end the engine if the process driving it dies (a worker's parent,
    a `Guard`) knows of it even while it starts."""

    def __init__(self, inner: Transport, tell: Callable[[int | None], None]) -> None:
        self._inner = inner
        self._tell = tell

    def start(self) -> None:
        self._inner.start()
        pid = getattr(self._inner, "pid", None)
        self._tell(pid if isinstance(pid, int) else None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def engine_argv(command: str, *, shell: bool = False) -> list[str]:
    """The argv for `--engine CMD`: split like a POSIX shell, or run by /bin/sh with `--shell`."""
    if shell:
        return ["/bin/sh", "-c", command] if os.name == "posix" else ["cmd", "/c", command]
    try:
        return shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"cannot split the --engine command {command!r}: {exc} (quote it as a shell would)") from None


def reference_argv() -> list[str]:
    return [sys.executable, "-m", "studcheck", "serve"]


@dataclass(frozen=True, kw_only=True)
class Deadline:
    """When the whole run must end (`--deadline`): waits are cut short there."""

    seconds: float
    at: float  # time.monotonic()

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(seconds=seconds, at=time.monotonic() + seconds)

    def left(self) -> float:
        return self.at - time.monotonic()

    def describe(self) -> str:
        return f"the run's deadline ({self.seconds:g} s) passed"


@dataclass(kw_only=True)
class Pending:
    """A request sent and not yet answered (see `EngineClient.send`)."""

    kind: RequestType
    seq: int
    entry: dict[str, Any]
    transport: Transport
    raw: bytes = b""


class EngineClient:
    """Requests with seq numbers, response checks, a transcript, and restart after a failure."""

    def __init__(
        self,
        transport_factory: Callable[[], Transport],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        validate: bool = True,
        harness: str = f"studcheck {__version__}",
        deadline: Deadline | None = None,
        profile: Profile = Profile.HANDS,
    ) -> None:
        self._factory = transport_factory
        self.timeout = timeout
        self.deadline = deadline
        self.startup_timeout = max(startup_timeout, timeout)
        self.validate = validate
        self.harness = harness
        self.profile = profile  # asked for in hello (spec/evaluation.md); the hands profile leaves hello as v1 sent it
        self._transport: Transport | None = None
        self._seq = 0
        self._due = 0  # requests sent and not yet answered (more than one when pipelining)
        self._outbox: list[bytes] = []  # deferred request lines (see `send`)
        self.info: EngineInfo | None = None
        self.transcript: list[dict[str, Any]] = []
        self.restarts = 0
        self._answered = 0.0  # time.monotonic() of the last answer read
        self._seen_idle = False  # the engine was seen asleep reading its stdin after an answer
        self._quiet_checks = 0

    @property
    def transport_factory(self) -> Callable[[], Transport]:
        """What starts this engine: the fuzzer's workers (`fuzz --jobs`) each start their own with it."""
        return self._factory

    @property
    def running(self) -> bool:
        return self._transport is not None

    @property
    def pid(self) -> int | None:
        """The engine process's id while it runs as a subprocess."""
        pid = getattr(self._transport, "pid", None)
        return pid if isinstance(pid, int) else None

    def stopped(self) -> Stopped | None:
        """Why the run must stop now (a signal came, or the deadline passed), or None."""
        signum = stopping.requested()
        if signum is not None:
            return Stopped(Problem.INTERRUPTED, f"interrupted by {stopping.signal_name(signum)}")
        if self.deadline is not None and self.deadline.left() <= 0:
            return Stopped(Problem.DEADLINE, self.deadline.describe())
        return None

    def _check_stopped(self) -> None:
        reason = self.stopped()
        if reason is not None:
            raise reason

    def start(self) -> EngineInfo:
        """Start the engine and handshake; raises EngineError if either fails."""
        self._check_stopped()
        transport = self._factory()
        self._transport = transport
        self._due = 0
        self._outbox = []
        try:
            transport.start()
            fields: dict[str, Any] = {"protocol": PROTOCOL, "harness": self.harness}
            if self.profile is not Profile.HANDS:
                fields["profile"] = self.profile.value
            response = self.request(RequestType.HELLO, fields, timeout=self.startup_timeout)
        except BaseException:  # an EngineError, or Ctrl-C under pytest: never leave the engine running
            self.stop(polite=False)
            raise
        if response.get("ok") is not True:
            error = response.get("error", {})
            self.stop(polite=False)
            raise EngineError(Problem.START, f"the engine refused hello: {error.get('reason')}: {error.get('message')}")
        self.info = EngineInfo.from_response(response)
        return self.info

    def restart(self) -> EngineInfo:
        self.stop(polite=False)
        self.restarts += 1
        return self.start()

    def stop(self, *, polite: bool = True) -> None:
        """Send `bye` (if polite and running), then close the pipe and end the engine's process group.

        Not polite while answers are due (`bye`'s answer would queue behind them) or once the run
        must stop: the engine may be stuck in the very request that is being abandoned.
        """
        transport = self._transport
        if transport is None:
            return
        if self._due or self.stopped() is not None:
            polite = False
        if polite:
            try:
                self.request(RequestType.BYE, {}, timeout=min(self.timeout, 2.0))
            except EngineError:
                polite = False  # it did not answer bye: no point waiting for it to exit
        self._transport = None
        transport.close(grace=1.0 if polite else 0.05)

    def mark_stderr(self) -> None:
        """From now on, errors quote the engine's stderr written since this call (one case's)."""
        if self._transport is not None:
            self._transport.mark_stderr()

    def stderr_tail(self) -> str:
        """The engine's stderr since the last mark: its first and last lines (see `shorten`)."""
        return self._transport.stderr_excerpt() if self._transport is not None else ""

    def expect_quiet(self, wait: float) -> None:
        """Raise EngineError if the engine writes anything within `wait` seconds of its last answer
        (the time since counts: the harness's own work after an answer is listening time too)."""
        transport = self._transport
        if transport is None or self._due or self._outbox:
            return
        # Patient (wait until the engine sleeps on its stdin, IDLE_LIMIT at most) while learning
        # whether it ever does, and from then on; an engine never seen so gets `wait` alone.
        patience = IDLE_LIMIT if self._seen_idle or self._quiet_checks < IDLE_LEARNING else 0.0
        try:
            seen = transport.unsolicited(max(self._answered + wait - time.monotonic(), 0.0), patience=patience)
            self._seen_idle = self._seen_idle or seen
            self._quiet_checks += 1
        except EngineError as exc:
            exc.stderr = exc.stderr or transport.stderr_excerpt()
            raise self.stopped() or exc from None

    def request(self, kind: RequestType, fields: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        """Send one request and return the checked response (ok true or false)."""
        return self.receive(self.send(kind, fields, timeout=timeout), timeout=timeout)

    def send(self, kind: RequestType, fields: Mapping[str, Any], *, timeout: float | None = None,
             defer: bool = False) -> Pending:
        """Send one request now; `receive` reads its answer, so work can overlap the engine's.

        Several requests may be sent before their answers are read (pipelining); answers are
        then read in the order the requests were sent. With `defer` the request waits for `flush`
        (or the next read or undeferred send), so a batch costs one write.
        """
        transport = self._transport
        if transport is None:
            raise self.stopped() or EngineError(Problem.CRASH, "the engine is not running")
        self._seq += 1
        message = {"type": kind.value, "seq": self._seq, **fields}
        entry: dict[str, Any] = {"request": message}
        self.transcript.append(entry)
        self._outbox.append(encode(message))
        if not defer:
            self.flush(timeout=timeout)
        return Pending(kind=kind, seq=self._seq, entry=entry, transport=transport)

    def flush(self, *, timeout: float | None = None) -> None:
        """Write the deferred requests, in one write."""
        if not self._outbox:
            return
        transport = self._transport
        lines, self._outbox = self._outbox, []
        self._check_stopped()
        if transport is None:
            raise EngineError(Problem.CRASH, "the engine is not running")
        try:
            transport.send(b"".join(lines), self.timeout if timeout is None else timeout, answers_due=self._due)
        except EngineError as exc:
            exc.stderr = exc.stderr or transport.stderr_excerpt()
            raise self.stopped() or exc from None
        self._due += len(lines)

    def flush_discard(self) -> None:
        """Forget the deferred requests (their hand was abandoned before they were written)."""
        self._outbox = []

    def receive(self, pending: Pending, *, timeout: float | None = None, schema: bool = True) -> dict[str, Any]:
        """Read and check the answer to `pending` (the schema check too, unless `schema` is false)."""
        self.receive_line(pending, timeout=timeout)
        return self.check(pending, schema=schema)

    def receive_line(self, pending: Pending, *, timeout: float | None = None) -> bytes:
        """Read the answer line to `pending` unchecked (`check` checks it); also kept as `pending.raw`."""
        transport = pending.transport
        self.flush(timeout=timeout)
        wait = self.timeout if timeout is None else timeout
        capped = self.deadline is not None and self.deadline.left() < wait
        if self.deadline is not None:
            wait = max(min(wait, self.deadline.left()), 0.0)
        try:
            pending.raw = transport.receive(wait)
        except EngineError as exc:
            exc.stderr = exc.stderr or transport.stderr_excerpt()
            if capped and exc.problem is Problem.TIMEOUT and self.deadline is not None:
                raise Stopped(Problem.DEADLINE, self.deadline.describe(), stderr=exc.stderr) from None
            raise self.stopped() or exc from None
        self._due = max(0, self._due - 1)
        self._answered = time.monotonic()
        return pending.raw

    def check(self, pending: Pending, *, schema: bool = True) -> dict[str, Any]:
        """Parse and check the answer line read for `pending`: JSON, seq, `ok`, and (if `schema`) the schema."""
        try:
            return self._check(pending.kind, pending.raw, pending.entry, pending.seq, schema=schema)
        except EngineError as exc:
            exc.stderr = exc.stderr or pending.transport.stderr_excerpt()
            raise

    def _check(self, kind: RequestType, raw: bytes, entry: dict[str, Any], seq: int, *,
               schema: bool = True) -> dict[str, Any]:
        try:
            response = answers.parse(raw)
        except answers.Refused as exc:
            entry["raw"] = _show(raw)
            raise EngineError(Problem.BAD_RESPONSE, str(exc), line=_show(raw)) from None
        except (ValueError, UnicodeDecodeError):
            entry["raw"] = _show(raw)
            raise EngineError(Problem.NOT_JSON, "the engine printed something that is not JSON on stdout", line=_show(raw)) from None
        entry["response"] = response
        if not isinstance(response, dict):
            raise EngineError(Problem.BAD_RESPONSE, "the engine's answer is not a JSON object", line=_show(raw))
        answered = response.get("seq")
        if type(answered) is int and 0 < answered < seq:
            # Answers come in order and every earlier request was answered already: this line
            # answers no request (a second answer to one, say). Named as the line nobody asked for
            # is named when no answer is due, whatever the timing made it arrive as.
            raise Unsolicited(
                Problem.BAD_RESPONSE,
                f"the engine wrote a line nobody asked for before its answer to seq {seq}: an answer to seq "
                f"{answered}, which was answered already (two answers to one request?)",
                line=_show(raw),
            )
        if answered != seq:
            raise EngineError(
                Problem.WRONG_SEQ,
                f"the engine answered seq {truncate(repr(response.get('seq')), 100)} to request seq {seq}",
                line=_show(raw),
            )
        if not isinstance(response.get("ok"), bool):
            raise EngineError(Problem.BAD_RESPONSE, "the engine's answer has no boolean `ok`", line=_show(raw))
        if kind is RequestType.HELLO and response.get("ok") and response.get("protocol") != PROTOCOL:
            raise EngineError(
                Problem.PROTOCOL_VERSION,
                f"the engine speaks protocol {truncate(repr(response.get('protocol')), 100)}; this harness speaks "
                f"protocol {PROTOCOL}",
                line=_show(raw),
            )
        if kind is RequestType.HELLO and (problem := answers.hello_problem(response)) is not None:
            raise EngineError(Problem.BAD_RESPONSE, problem, line=_show(raw))
        if self.validate and schema:
            definition = response_kind(kind, response).value
            problem = schema_problem(definition, response)
            if problem is not None:
                raise EngineError(Problem.BAD_RESPONSE, f"the answer to {kind.value} breaks the protocol schema: "
                                  f"{truncate(problem, answers.MAX_PROBLEM_CHARS)}", line=_show(raw))
        return response
