"""Answers every request after hello with seq + 1."""
from _common import serve_with


def hook(request, server, number):
    response = server.handle(request)
    if request.get("type") != "hello":
        response["seq"] = request["seq"] + 1
    return response


raise SystemExit(serve_with(hook))
