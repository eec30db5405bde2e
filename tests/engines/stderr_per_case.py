"""Logs every request to stderr with its hand's label, and gets razz's bring-in wrong (the lowest
door card, as in Stud High): only T-RAZ-001, the last harness case, fails.

Its verdict must show only the stderr written during that case, not the lines of the cases before.
"""
import sys

from _common import serve_with

label = "-"


def hook(request, server, number):
    global label
    if request.get("type") == "new_hand":
        label = request.get("label", "-")
        if request.get("variant") == "razz":
            request = {**request, "variant": "stud_high"}
    print(f"log {label}: request {number} ({request.get('type')})", file=sys.stderr, flush=True)
    return server.handle(request)


raise SystemExit(serve_with(hook))
