"""The reference engine, logging each start to the file in $STUDCHECK_TEST_LOG and answering hello
with `"parallel": false` unless $STUDCHECK_TEST_PARALLEL is set: `run --jobs` must start only one
copy of it (the log then has one line)."""
import os

from _common import serve_with

with open(os.environ["STUDCHECK_TEST_LOG"], "a", encoding="utf-8") as log:
    log.write(f"{os.getpid()}\n")


def hook(request, server, number):
    response = server.handle(request)
    if request.get("type") == "hello" and not os.environ.get("STUDCHECK_TEST_PARALLEL"):
        response["parallel"] = False
    return response


raise SystemExit(serve_with(hook))
