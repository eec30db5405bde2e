"""The reference engine, except that it dies on the second action of any hand labelled *CRASH*."""
import os
import sys

from _common import serve_with

label = ""
acts = 0


def hook(request, server, number):
    global label, acts
    if request.get("type") == "new_hand":
        label, acts = request.get("label", ""), 0
    if request.get("type") == "act":
        acts += 1
        if "CRASH" in label and acts == 2:
            print("segmentation fault (core dumped)", file=sys.stderr, flush=True)
            os._exit(139)
    return server.handle(request)


raise SystemExit(serve_with(hook))
