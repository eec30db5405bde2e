"""Stopping early on a signal without leaving an engine behind.

Engines run in their own process group (so a terminal's Ctrl-C does not hit them mid-answer), so
nothing but the harness can stop them: SIGINT, SIGTERM and SIGHUP (Ctrl-C, a CI job cancelled or
timed out, a closed terminal) must end them here. The handler does as little as a handler should:
it records the signal and sends SIGTERM to every live engine's process group. The harness notices
at its next request, or within `POLL` seconds of waiting for an answer (client.py raises
`Stopped`), kills what is left of the group, writes the verdicts so far, and exits with
128 + the signal number (`Watch.exit_code`).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

#: how often a wait for an engine's answer looks for a signal (seconds)
POLL = 0.1
SIGNALS: tuple[int, ...] = tuple(
    number for number in (getattr(signal, name, None) for name in ("SIGINT", "SIGTERM", "SIGHUP")) if number is not None
)


_DURATION = re.compile(r"(?:(\d+(?:\.\d*)?)h)?(?:(\d+(?:\.\d*)?)m)?(?:(\d+(?:\.\d*)?)s?)?")


def duration(text: str) -> float:
    """An argparse type: seconds above 0, given as `90`, `90s`, `10m`, `1h` or `1h30m`."""
    found = _DURATION.fullmatch(text.strip().lower())
    if not text.strip() or found is None or not any(found.groups()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration (say 600, 600s, 10m, 1h or 1h30m)")
    hours, minutes, seconds = (float(part) if part else 0.0 for part in found.groups())
    value = hours * 3600 + minutes * 60 + seconds
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a duration above 0")
    return value


class SignalInterrupt(KeyboardInterrupt):
    """Raised by the handler when asked to (`watch(interrupt=True)`): pytest stops a session cleanly on it."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by {signal_name(signum)}")
        self.signum = signum


@dataclass(kw_only=True)
class Watch:
    """The first signal received while watching, if any."""

    signum: int | None = None

    @property
    def exit_code(self) -> int | None:
        return None if self.signum is None else 128 + self.signum

    @property
    def name(self) -> str | None:
        return None if self.signum is None else signal_name(self.signum)


_current: Watch | None = None
_engines: dict[int, Callable[[], None]] = {}
_killers: dict[int, Callable[[], None]] = {}
_groups: dict[int, int] = {}


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def requested() -> int | None:
    """The signal that asked the harness to stop, or None."""
    return None if _current is None else _current.signum


def register(key: int, terminate: Callable[[], None], kill: Callable[[], None] | None = None, *,
             group: int | None = None) -> None:
    """Call `terminate` (it must only send signals: it runs inside the handler) when a signal comes;
    `kill` (signals only too) is for `end_all`, when nobody is left to wait for a polite exit.
    `group`: the engine's process group, for a `Guard` (see `groups`)."""
    _engines[key] = terminate
    if kill is not None:
        _killers[key] = kill
    if group is not None:
        _groups[key] = group
    if requested() is not None:  # started after the signal: stop it at once too
        terminate()


def unregister(key: int) -> None:
    _engines.pop(key, None)
    _killers.pop(key, None)
    _groups.pop(key, None)


def groups() -> tuple[int, ...]:
    """The process groups of the engines this process runs now."""
    return tuple(_groups.values())


def end_all(grace: float) -> None:
    """SIGTERM to every engine this process knows of, `grace` seconds, then SIGKILL: for a worker
    whose parent died (its own engine, and the parent's engines known when it was forked)."""
    for terminate in list(_engines.values()):
        terminate()
    time.sleep(grace)
    for kill in list(_killers.values()):
        kill()


def _handle(watch: Watch, interrupt: bool) -> Callable[[int, FrameType | None], None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        if watch.signum is not None:
            return  # a second signal while the first is being handled: the cleanup is already under way
        watch.signum = signum
        for terminate in list(_engines.values()):
            terminate()
        if interrupt:
            raise SignalInterrupt(signum)
    return handler


@contextmanager
def watch(signals: tuple[int, ...] = SIGNALS, *, interrupt: bool = False) -> Iterator[Watch]:
    """Catch `signals` for the duration (main thread only; elsewhere this watches nothing).

    A signal ignored when we start stays ignored (`nohup studcheck run ...` keeps running after a
    hangup). With `interrupt`, the handler also raises `SignalInterrupt` (for pytest, which stops
    a session cleanly on a KeyboardInterrupt).
    """
    global _current
    found = Watch()
    if threading.current_thread() is not threading.main_thread() or _current is not None:
        yield found if _current is None else _current
        return
    handler = _handle(found, interrupt)
    previous: dict[int, Any] = {}
    for number in signals:
        if signal.getsignal(number) is signal.SIG_IGN:
            continue
        previous[number] = signal.signal(number, handler)
    _current = found
    try:
        yield found
    finally:
        for number, old in previous.items():
            signal.signal(number, old)
        _current = None


#: how often a worker (or a Guard) looks whether the process that started it is still there (seconds)
PARENT_POLL = 0.2


def end_with_parent(grace: float, owner: int | None = None) -> None:
    """Start a daemon thread that ends this worker once `owner` (default: the process that started
    it) is gone.

    A harness killed outright (SIGKILL, the out-of-memory killer) runs no cleanup, and pipes do not
    close while another process forked from it holds a copy of their ends: so a worker watches the
    harness instead. Once it is gone the worker ends every engine this process knows of (its own,
    and any the harness had started before forking it: they would never see their input close) with
    SIGTERM and, `grace` seconds later, SIGKILL to each process group, then exits at once (no queue
    or pipe to a dead reader can hold it). `owner` matters where the worker's parent is not the
    harness (a multiprocessing fork server, which itself waits for its children).
    """
    owner = os.getppid() if owner is None else owner

    def watch() -> None:
        _wait_for_exit(owner)
        end_all(grace)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="studcheck-parent-watch").start()


def _wait_for_exit(pid: int) -> None:
    """Return once process `pid` has ended (a zombie has ended too)."""
    if hasattr(os, "pidfd_open"):
        import select

        try:
            handle = os.pidfd_open(pid)
        except ProcessLookupError:
            return
        except OSError:
            pass  # an old kernel: poll instead
        else:
            select.select([handle], [], [])  # readable once the process has terminated
            return
    while _running(pid):
        time.sleep(PARENT_POLL)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


_guards: list[subprocess.Popen[bytes]] = []


class Guard:
    """A small process that ends engines whose harness was killed outright (SIGKILL, the OOM killer).

    A killed process runs no cleanup, and an engine that ignores SIGTERM and the end of its input
    (or a child it started) would run on forever. The guard (protocol/guard.py, a script that
    imports nothing of studcheck) is told the engines' process groups (`add`) and watches the
    process that started it: once that is gone, it sends each group still there SIGTERM and,
    `grace` seconds later, SIGKILL. After `close` (no more engines to come) it also ends by itself
    once those groups are gone. It runs in a session of its own, so a signal to the harness's
    process group does not take it along. POSIX only; elsewhere it does nothing.
    """

    def __init__(self, groups: tuple[int, ...], grace: float, *, poll: float = PARENT_POLL) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        if os.name != "posix":
            return
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guard.py")
        argv = [sys.executable, "-I", "-S", script, str(os.getpid()), str(grace), str(poll), *map(str, groups)]
        if not os.path.isfile(script):  # not installed as files (a zip): no guard
            return
        try:
            self._process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError:
            self._process = None
            return
        # kept until it exits (it outlives the caller's reference: it waits for the groups to go)
        _guards[:] = [process for process in _guards if process.poll() is None] + [self._process]

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def _say(self, line: str) -> None:
        process = self._process
        if process is None or process.stdin is None:
            return
        try:
            process.stdin.write(f"{line}\n".encode("ascii"))
            process.stdin.flush()
        except (OSError, ValueError):  # it ended: nothing to tell
            pass

    def add(self, group: int) -> None:
        """Guard this engine process group too."""
        self._say(str(group))

    def close(self) -> None:
        """No more engines to guard: the guard ends once the groups it knows are gone."""
        self._say("done")
