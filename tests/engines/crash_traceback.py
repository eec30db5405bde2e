"""Dies on the second action of a hand labelled *CRASH* with a Python traceback, then 200 lines of
shutdown noise on stderr: the verdict must keep the traceback (the head) as well as the last lines."""
import os
import sys
import traceback

from _common import serve_with

label = ""
acts = 0


def evaluate(depth):
    if depth == 0:
        raise ValueError("hand evaluator: no cards for seat 3")
    return evaluate(depth - 1)


def hook(request, server, number):
    global label, acts
    if request.get("type") == "new_hand":
        label, acts = request.get("label", ""), 0
    if request.get("type") == "act":
        acts += 1
        if "CRASH" in label and acts == 2:
            try:
                evaluate(5)
            except ValueError:
                traceback.print_exc()
            for line in range(200):
                print(f"shutdown: closing pool worker {line}", file=sys.stderr)
            sys.stderr.flush()
            os._exit(1)
    return server.handle(request)


raise SystemExit(serve_with(hook))
