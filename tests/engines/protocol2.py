"""Claims to speak protocol 2 in its hello answer."""
from _common import serve_with


def hook(request, server, number):
    response = server.handle({**request, "protocol": 1}) if request.get("type") == "hello" else server.handle(request)
    if request.get("type") == "hello":
        response["protocol"] = 2
    return response


raise SystemExit(serve_with(hook))
