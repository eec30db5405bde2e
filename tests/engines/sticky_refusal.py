"""Refuses illegal actions correctly but then reports a changed state (pot_total + 1)."""
from _common import serve_with

refused = False


def hook(request, server, number):
    global refused
    response = server.handle(request)
    if request.get("type") == "act":
        refused = not response["ok"]
    elif request.get("type") == "state" and refused and response.get("ok"):
        response["state"]["pot_total"] += 1
    return response


raise SystemExit(serve_with(hook))
