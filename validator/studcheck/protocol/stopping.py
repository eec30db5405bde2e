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


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def requested() -> int | None:
    """The signal that asked the harness to stop, or None."""
    return None if _current is None else _current.signum


def register(key: int, terminate: Callable[[], None], kill: Callable[[], None] | None = None) -> None:
    """Call `terminate` (it must only send signals: it runs inside the handler) when a signal comes;
    `kill` (signals only too) is for `end_all`, when nobody is left to wait for a polite exit."""
    _engines[key] = terminate
    if kill is not None:
        _killers[key] = kill
    if requested() is not None:  # started after the signal: stop it at once too
        terminate()


def unregister(key: int) -> None:
    _engines.pop(key, None)
    _killers.pop(key, None)


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


def die_with_parent(signum: int = signal.SIGTERM) -> None:
    """Linux: have the kernel send `signum` to this process when the process that started it ends.

    For a worker process: a parent killed outright (SIGKILL, the out-of-memory killer) runs no
    cleanup, so its workers would play on with their engines for minutes. SIGTERM takes the path a
    polite stop takes (`watch` ends the engines). Elsewhere this does nothing. If the parent is
    already gone when this runs, the signal is sent at once.
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signum), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # orphaned before the call took effect
        os.kill(os.getpid(), signum)
