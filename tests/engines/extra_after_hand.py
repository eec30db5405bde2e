"""Writes its answer twice when it ends a hand labelled with the first argument (default: any hand).

The second copy comes after the case's last answer: the harness must blame that case, not the next.
"""
import sys

from _common import send, serve_with

LABEL = sys.argv[1] if len(sys.argv) > 1 else ""
label = ""


def hook(request, server, number):
    global label
    if request.get("type") == "new_hand":
        label = request.get("label", "")
    response = server.handle(request)
    if LABEL in label and (response.get("state") or {}).get("street") == "complete":
        send(response)
    return response


raise SystemExit(serve_with(hook))
