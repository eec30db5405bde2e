"""Answers hello and new_hand, then never answers again (the third request hangs forever)."""
import time

from _common import serve_with


def hook(request, server, number):
    if number >= 3:
        while True:
            time.sleep(60)
    return server.handle(request)


raise SystemExit(serve_with(hook))
