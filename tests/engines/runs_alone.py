"""The reference engine, logging each start to the file in $STUDCHECK_TEST_LOG and answering hello
with `"parallel": false` unless $STUDCHECK_TEST_PARALLEL is set: `run --jobs` must start only one
copy of it (the log then has one line). With $STUDCHECK_TEST_EXCLUSIVE set, a copy started while
another runs exits at once, as an engine holding a single licence would."""
import fcntl
import os
import sys

from _common import serve_with

with open(os.environ["STUDCHECK_TEST_LOG"], "a", encoding="utf-8") as log:
    log.write(f"{os.getpid()}\n")
if os.environ.get("STUDCHECK_TEST_EXCLUSIVE"):
    lock = open(os.environ["STUDCHECK_TEST_LOG"] + ".lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print("runs_alone: the licence is in use by another copy", file=sys.stderr)
        raise SystemExit(1)


def hook(request, server, number):
    response = server.handle(request)
    if request.get("type") == "hello" and not os.environ.get("STUDCHECK_TEST_PARALLEL"):
        response["parallel"] = False
    return response


raise SystemExit(serve_with(hook))
