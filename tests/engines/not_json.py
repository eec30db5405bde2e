"""Prints a debug line on stdout (instead of stderr) before answering new_hand."""

from _common import serve_with


def hook(request, server, number):
    if request.get("type") == "new_hand":
        print("DEBUG dealing cards to 3 players", flush=True)
    return server.handle(request)


raise SystemExit(serve_with(hook))
