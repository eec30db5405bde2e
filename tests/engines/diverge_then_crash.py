"""The reference engine, except that its first accepted `act` in every hand shows one chip too many
in the pot (a divergence), and it dies on the second `act` after that one. A fuzzer that sends a
hand's requests before reading the answers sends that `act` after the divergence."""
import os
import sys

from _common import serve_with

since = None  # acts since the divergence in this hand, None before it


def hook(request, server, number):
    global since
    if request.get("type") == "new_hand":
        since = None
    response = server.handle(request)
    if request.get("type") == "act":
        if since is not None:
            since += 1
            if since == 2:
                print("segmentation fault (core dumped)", file=sys.stderr, flush=True)
                os._exit(139)
        elif response.get("ok"):
            response["state"]["pot_total"] += 1
            since = 0
    return response


raise SystemExit(serve_with(hook))
