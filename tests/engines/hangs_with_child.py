"""Answers hello, then on the first hand starts a child (`sleep 1000`, sharing its pipes), writes
"<own pid> <child pid>" to the file named by its first argument, ignores SIGTERM and hangs.

A signal to the harness must still end both: the whole process group, SIGKILL after SIGTERM.
"""
import os
import signal
import subprocess
import sys
import time

from _common import serve_with


def hook(request, server, number):
    if request.get("type") == "hello":
        return server.handle(request)
    child = subprocess.Popen(["sleep", "1000"])
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # after the child started: it keeps the default
    with open(sys.argv[1] + ".tmp", "w") as handle:
        handle.write(f"{os.getpid()} {child.pid}\n")
    os.replace(sys.argv[1] + ".tmp", sys.argv[1])
    while True:
        time.sleep(60)


raise SystemExit(serve_with(hook))
