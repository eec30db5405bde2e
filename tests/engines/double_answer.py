"""Answers new_hand twice (a stray second line): the harness must notice before the next request."""
from _common import send, serve_with


def hook(request, server, number):
    response = server.handle(request)
    if request.get("type") == "new_hand":
        send(response)
    return response


raise SystemExit(serve_with(hook))
