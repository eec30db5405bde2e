"""Answers new_hand with a state whose legal actions lack the amount field."""
from _common import serve_with


def hook(request, server, number):
    response = server.handle(request)
    if request.get("type") == "new_hand" and response.get("ok"):
        for entry in response["state"]["legal"]:
            entry.pop("amount", None)
    return response


raise SystemExit(serve_with(hook))
