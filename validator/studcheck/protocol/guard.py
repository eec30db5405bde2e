"""The guard process (stopping.Guard): ends engines whose harness was killed outright.

Run as a script, `python -I -S guard.py PARENT GRACE POLL [GROUP...]`, so it starts in a few
milliseconds: it imports nothing but the standard library (not studcheck, not site-packages). It
reads more process groups from stdin, one number a line, and `done` once no more will come. It
watches PARENT: once that process is gone it sends every group still there SIGTERM and, GRACE
seconds later, SIGKILL. After `done` (or the end of its input while PARENT lives) it also ends by
itself once the groups it knows are all gone. It polls every POLL seconds.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from collections.abc import Sequence


def alive(group: int) -> bool:
    """Whether any process of the group is left (one we may not signal counts)."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def watch(parent: int, groups: set[int], poll: float) -> bool:
    """Read groups from stdin until PARENT is gone (True) or nothing is left to guard (False)."""
    reading, done, pending = True, False, b""
    while os.getppid() == parent:
        if done and not any(map(alive, groups)):
            return False
        if not reading:
            time.sleep(poll)
            continue
        if not select.select([0], [], [], poll)[0]:
            continue
        data = os.read(0, 4096)
        if not data:  # closed: the harness is exiting, or holds no more engines to tell of
            reading, done = False, True
            continue
        *lines, pending = (pending + data).split(b"\n")
        for line in lines:
            if line.strip() == b"done":
                done = True
            elif line.strip().isdigit():
                groups.add(int(line))
    return True


def end(groups: set[int], grace: float) -> None:
    """SIGTERM to every group left, `grace` seconds, then SIGKILL to those still there."""
    for number, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 0.0)):
        left = [group for group in groups if alive(group)]
        for group in left:
            try:
                os.killpg(group, number)
            except OSError:
                pass
        if left and wait:
            time.sleep(wait)


def main(argv: Sequence[str]) -> int:
    parent, grace, poll = int(argv[0]), float(argv[1]), float(argv[2])
    groups = {int(group) for group in argv[3:]}
    if watch(parent, groups, poll):
        end(groups, grace)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
