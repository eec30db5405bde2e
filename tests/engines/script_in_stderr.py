"""Calls itself `<script>alert(1)</script>` and writes that to stderr on every hand, and plays razz by
Stud High's bring-in (the lowest door card): the razz bring-in cases fail.

The HTML report must show its name and stderr as text and never run them (tests/browser).
"""
import sys

from _common import serve_with

PAYLOAD = "<script>alert(1)</script>"


def hook(request, server, number):
    if request.get("type") == "hello":
        answer = server.handle(request)
        return {**answer, "engine": {**answer["engine"], "name": f"broken {PAYLOAD}"}} if answer.get("ok") else answer
    if request.get("type") == "new_hand":
        print(f"hand {request.get('label', '-')}: {PAYLOAD} & <b>bold</b>", file=sys.stderr, flush=True)
        if request.get("variant") == "razz":
            request = {**request, "variant": "stud_high"}
    return server.handle(request)


raise SystemExit(serve_with(hook))
