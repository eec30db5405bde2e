"""Answers new_hand with one 20 MB line (a runaway debug dump)."""
import sys

from _common import serve_with


def hook(request, server, number):
    if request.get("type") == "new_hand":
        sys.stdout.write('{"junk": "' + "x" * (20 * 1024 * 1024) + '"}\n')
        sys.stdout.flush()
        return None
    return server.handle(request)


raise SystemExit(serve_with(hook))
