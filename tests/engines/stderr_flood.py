"""A correct engine that writes megabytes of logs to stderr: the harness must not block on it."""
import sys

from _common import serve_with

CHUNK = ("trace: evaluating " + "y" * 1000 + "\n") * 1024  # about 1 MB


def hook(request, server, number):
    for _ in range(3):
        sys.stderr.write(CHUNK)
    sys.stderr.flush()
    return server.handle(request)


raise SystemExit(serve_with(hook))
