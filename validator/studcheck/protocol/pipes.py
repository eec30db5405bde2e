"""Reading an engine's pipes without ever blocking longer than asked, and keeping its stderr short.

stdout is read in the calling thread on POSIX (non-blocking reads, `poll` to wait): then "has the
engine written anything more?" has an exact answer at no cost, which is how output nobody asked for
is blamed on the case it came after instead of the next one. stderr is read the same way, into a
`StderrLog` a case at a time: what an engine wrote during a case is all logged before the next
case's mark. Elsewhere threads read both pipes.
"""

from __future__ import annotations

import os
import queue
import re
import select
import threading
import time
from dataclasses import dataclass
from typing import IO, Protocol

READ_BYTES = 65536
_SELECT_LIMIT = 1024  # select() takes descriptors below FD_SETSIZE only
STDERR_KEEP_BYTES = 64 * 1024  # of each case's stderr: its first quarter and its last three quarters
STDERR_HEAD_LINES = 20  # a long stderr is shown as its first and last lines, with the count between
STDERR_TAIL_LINES = 20
STDERR_LINE_CHARS = 300
EVIDENCE_CHARS = 300


class _Eof:
    def __repr__(self) -> str:
        return "EOF"


EOF = _Eof()  # the engine closed its stdout


@dataclass(frozen=True, kw_only=True)
class TooLong:
    """A line longer than allowed; `start` is its beginning, as evidence."""

    start: bytes


Item = bytes | _Eof | TooLong


def truncate(text: str, limit: int = EVIDENCE_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters in all)"


_OMITTED = re.compile(r"… (\d+) lines? …")


def omitted_line(count: int) -> str:
    return f"… {count} line{'' if count == 1 else 's'} …"


def shorten(text: str, *, head: int = STDERR_HEAD_LINES, tail: int = STDERR_TAIL_LINES,
            chars: int = STDERR_LINE_CHARS) -> str:
    """The first `head` and last `tail` lines with the count of those between: a crash's traceback
    comes first and its shutdown noise last, and both matter. Lines are cut at `chars`."""
    lines = [truncate(line, chars) for line in text.strip("\n").splitlines()]
    if len(lines) <= head + tail + 1:
        return "\n".join(lines)
    middle = lines[head: len(lines) - tail]
    count = sum(int(found.group(1)) if (found := _OMITTED.fullmatch(line)) else 1 for line in middle)
    return "\n".join([*lines[:head], omitted_line(count), *lines[len(lines) - tail:]])


class StderrLog:
    """What the engine wrote on stderr since the last `mark`: its head and its tail, bounded.

    The harness marks at the start of each case, so a failure shows that case's stderr; on a
    crash the head keeps the traceback however much noise follows it.
    """

    def __init__(self, keep: int = STDERR_KEEP_BYTES) -> None:
        self._head_keep = keep // 4
        self._tail_keep = keep - self._head_keep
        self._lock = threading.Lock()
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = 0  # bytes dropped between head and tail
        self._lines = 0  # newlines since the mark

    def mark(self) -> None:
        with self._lock:
            self._head, self._tail, self._dropped, self._lines = bytearray(), bytearray(), 0, 0

    def add(self, chunk: bytes) -> None:
        with self._lock:
            self._lines += chunk.count(b"\n")
            room = self._head_keep - len(self._head)
            if room > 0:
                self._head += chunk[:room]
                chunk = chunk[room:]
            self._tail += chunk
            if len(self._tail) > 2 * self._tail_keep:
                cut = len(self._tail) - self._tail_keep
                self._dropped += cut
                del self._tail[:cut]

    def text(self) -> str:
        """The stderr since the mark, shortened to its first and last lines (see `shorten`)."""
        with self._lock:
            head, tail, dropped, lines = bytes(self._head), bytes(self._tail), self._dropped, self._lines
        if not dropped:
            return shorten((head + tail).decode("utf-8", errors="replace"))
        first = head.decode("utf-8", errors="replace").splitlines()[:STDERR_HEAD_LINES]
        last = tail.decode("utf-8", errors="replace").splitlines()[1:][-STDERR_TAIL_LINES:]  # [0]: a cut line
        between = max(lines - len(first) - len(last), 1)
        return shorten("\n".join([*first, omitted_line(between), *last]))


class LineSource(Protocol):
    """The engine's stdout as lines; its stderr goes into a StderrLog."""

    def get(self, timeout: float) -> Item | None:
        """The next line (with its newline), EOF or TooLong; None if nothing came within `timeout` (0: now)."""

    def settle_stderr(self) -> None:
        """Log the stderr written so far (before a case's mark, before evidence is taken)."""

    def finish_stderr(self, timeout: float) -> None:
        """The engine exited: log its last words, until its stderr closes (at most `timeout` seconds)."""


def line_source(stdout: IO[bytes], stderr: IO[bytes], log: StderrLog, max_line: int) -> LineSource:
    if os.name == "posix" and hasattr(select, "poll"):
        return PolledLines(stdout, stderr, log, max_line)
    return ThreadedLines(stdout, stderr, log, max_line)


class PolledLines:
    """Both pipes read in the caller's thread: what the engine wrote so far, on stdout and on
    stderr, is known exactly and at once; any wait for stdout also takes in stderr (an engine
    blocked on a full stderr pipe would answer nothing)."""

    def __init__(self, stdout: IO[bytes], stderr: IO[bytes], log: StderrLog, max_line: int) -> None:
        self._fd = stdout.fileno()
        self._err: int | None = stderr.fileno()
        self._log = log
        self._poll = select.poll()
        for fd in (self._fd, self._err):
            os.set_blocking(fd, False)
            self._poll.register(fd, select.POLLIN)
        self._max = max_line
        self._buffer = bytearray()
        self._eof = False
        self._too_long: TooLong | None = None

    def get(self, timeout: float) -> Item | None:
        end = time.monotonic() + timeout
        while True:
            item = self._take()
            if item is not None:
                return item
            if self._read():
                continue
            self.settle_stderr()
            remaining = end - time.monotonic()  # nothing written yet: wait for it, at most until `end`
            if remaining <= 0:
                return None
            self._wait(self.read_fds(), remaining)

    def buffered(self) -> bytes | None:
        """The next line if it was read already (no system call, no clock), else None: `get` then
        waits for it, or returns what ended the output (EOF, a line too long). An engine answers a
        batch of requests at once, so most answers are in the buffer when they are asked for."""
        if self._too_long is not None:
            return None
        end = self._buffer.find(b"\n")
        if end < 0 or end > self._max:
            return None
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        return line

    def read_fds(self) -> list[int]:
        """The pipes still open (to wait on)."""
        return [fd for fd in (None if self._eof else self._fd, self._err) if fd is not None]

    def pump(self) -> None:
        """Take in what both pipes hold now (while a write to the engine waits for room)."""
        self._read()
        self.settle_stderr()

    def settle_stderr(self) -> None:
        while self._err is not None:
            try:
                data = os.read(self._err, READ_BYTES)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self._poll.unregister(self._err)
                self._err = None
                return
            self._log.add(data)

    def finish_stderr(self, timeout: float) -> None:
        end = time.monotonic() + timeout
        while True:
            self.settle_stderr()
            remaining = end - time.monotonic()
            if self._err is None or remaining <= 0:
                return
            self._wait([self._err], remaining)

    def _wait(self, fds: list[int], seconds: float) -> None:
        """Until a pipe has something (or closes), at most `seconds`; select's microseconds where it
        can take the descriptors, else poll's milliseconds."""
        if not fds:
            time.sleep(seconds)
        elif max(fds) < _SELECT_LIMIT:
            select.select(fds, [], [], seconds)
        else:
            self._poll.poll(max(1, int(seconds * 1000 + 0.999)))

    def _read(self) -> bool:
        """Take what stdout holds now; False if it holds nothing (and is not closed)."""
        if self._eof:
            return False
        try:
            data = os.read(self._fd, READ_BYTES)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            self._eof = True
            self._poll.unregister(self._fd)
        self._buffer += data
        return True

    def _take(self) -> Item | None:
        if self._too_long is not None:
            return self._too_long
        end = self._buffer.find(b"\n")
        if end > self._max or (end < 0 and len(self._buffer) > self._max):
            self._too_long = TooLong(start=bytes(self._buffer[:EVIDENCE_CHARS]))
            self._buffer.clear()
            return self._too_long
        if end >= 0:
            line = bytes(self._buffer[: end + 1])
            del self._buffer[: end + 1]
            return line
        if self._eof:
            if self._buffer:  # a last line without its newline
                line = bytes(self._buffer)
                self._buffer.clear()
                return line
            return EOF
        return None


class ThreadedLines:
    """Both pipes read by daemon threads (where `poll` cannot wait on a pipe); stderr settles by
    yielding to its thread, which is good enough, not exact."""

    def __init__(self, stdout: IO[bytes], stderr: IO[bytes], log: StderrLog, max_line: int) -> None:
        self._max = max_line
        self._queue: queue.Queue[Item] = queue.Queue()
        threading.Thread(target=self._read, args=(stdout,), daemon=True).start()
        self._stderr = threading.Thread(target=self._read_stderr, args=(stderr, log), daemon=True)
        self._stderr.start()

    def get(self, timeout: float) -> Item | None:
        try:
            return self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait()
        except queue.Empty:
            return None

    def settle_stderr(self) -> None:
        time.sleep(0)

    def finish_stderr(self, timeout: float) -> None:
        self._stderr.join(timeout=timeout)

    def _read(self, stream: IO[bytes]) -> None:
        try:
            while True:
                line = stream.readline(self._max + 1)
                if not line:
                    break
                if len(line) > self._max and not line.endswith(b"\n"):
                    self._queue.put(TooLong(start=line[:EVIDENCE_CHARS]))
                    return
                self._queue.put(line)
        except (OSError, ValueError):
            pass
        self._queue.put(EOF)

    @staticmethod
    def _read_stderr(stream: IO[bytes], log: StderrLog) -> None:
        reader = getattr(stream, "read1", stream.read)
        try:
            while True:
                chunk = reader(READ_BYTES)
                if not chunk:
                    return
                log.add(chunk)
        except (OSError, ValueError):
            return


class ReadWatch:
    """Linux only: is the engine's main thread asleep reading a pipe (its stdin: waiting for a request)?

    Then everything it wrote before is in our pipe already, and "anything more?" needs no waiting.
    One `pread` of /proc/PID/wchan, a few microseconds; anywhere else (or for a wrapper such as
    `sh -c`, whose main thread waits for a child) the answer is no and the harness listens instead.
    """

    def __init__(self, pid: int) -> None:
        try:
            self._fd: int | None = os.open(f"/proc/{pid}/wchan", os.O_RDONLY)
        except OSError:
            self._fd = None

    def waiting(self) -> bool:
        if self._fd is None:
            return False
        try:
            return b"pipe" in os.pread(self._fd, 64, 0)  # pipe_read, anon_pipe_read, pipe_wait (older kernels)
        except OSError:
            return False

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

