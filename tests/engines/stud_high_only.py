"""A correct engine that supports only stud_high and only bring_in_tie=suit (for applicability).

With $STUDCHECK_TEST_LOG set, each start appends the engine's pid to that file (to count engines)."""
import os

from _common import serve_with

if os.environ.get("STUDCHECK_TEST_LOG"):
    with open(os.environ["STUDCHECK_TEST_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()}\n")


def hook(request, server, number):
    response = server.handle(request)
    if request.get("type") == "hello":
        response["variants"] = ["stud_high"]
        response["options"]["bring_in_tie"] = ["suit"]
    return response


raise SystemExit(serve_with(hook))
