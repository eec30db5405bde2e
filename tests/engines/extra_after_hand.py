"""Writes its answer twice when it ends a hand labelled with the first argument (default: any hand).

The second copy comes after the case's last answer: the harness must blame that case, not the next.
Both copies go out in one write, so the copy is in the pipe when the answer is read, however busy
the machine (two writes could be a scheduler's time slice apart).
"""
import json
import sys

from _common import serve_with

LABEL = sys.argv[1] if len(sys.argv) > 1 else ""
label = ""


def hook(request, server, number):
    global label
    if request.get("type") == "new_hand":
        label = request.get("label", "")
    response = server.handle(request)
    if LABEL in label and (response.get("state") or {}).get("street") == "complete":
        sys.stdout.write((json.dumps(response) + "\n") * 2)
        sys.stdout.flush()
        return None
    return response


raise SystemExit(serve_with(hook))
