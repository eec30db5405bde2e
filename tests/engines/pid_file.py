"""The reference engine that writes "<pid> [<child pid>]" to DIR/<pid> (first argument) and then,
second argument `slow`, answers every hand request after 0.3 s and exits when its input closes (a
well-behaved engine), or, `hang`, on its first hand starts a `sleep 1000` child, ignores SIGTERM
and hangs (the worst engine), or, `stubborn`, answers like `slow` but ignores SIGTERM and stays
when its input closes; `stubborn-hello` is `stubborn` that takes 3 s to answer hello; `stubborn-child`
is `stubborn` that answers at once and starts a `sleep 1000` child at hello (in its process group),
recorded too.
For the tests of what a killed harness (or worker) leaves behind.
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from _common import serve_with

FOLDER, MODE = Path(sys.argv[1]), sys.argv[2]


def record(*pids):
    (FOLDER / f"{os.getpid()}.tmp").write_text(" ".join(map(str, pids)) + "\n")
    os.replace(FOLDER / f"{os.getpid()}.tmp", FOLDER / str(os.getpid()))


def hook(request, server, number):
    if request.get("type") in ("hello", "bye"):
        if request.get("type") == "hello":
            if MODE == "stubborn-child":
                record(os.getpid(), subprocess.Popen(["sleep", "1000"]).pid)
            else:
                record(os.getpid())
            if MODE == "stubborn-hello":
                time.sleep(3)
        return server.handle(request)
    if MODE in ("slow", "stubborn", "stubborn-hello", "stubborn-child"):
        time.sleep(0 if MODE == "stubborn-child" else 0.3)
        return server.handle(request)
    child = subprocess.Popen(["sleep", "1000"])
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    record(os.getpid(), child.pid)
    while True:
        time.sleep(60)


if MODE.startswith("stubborn"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
code = serve_with(hook)
while MODE.startswith("stubborn"):  # input closed: stay anyway
    time.sleep(60)
raise SystemExit(code)
