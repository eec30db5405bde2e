"""The reference engine, answering every request but hello after a pause (first argument, seconds)."""
import sys
import time

from _common import serve_with

PAUSE = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0


def hook(request, server, number):
    if request.get("type") not in ("hello", "bye"):
        time.sleep(PAUSE)
    return server.handle(request)


raise SystemExit(serve_with(hook))
