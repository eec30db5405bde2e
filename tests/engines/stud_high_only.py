"""A correct engine that supports only stud_high and only bring_in_tie=suit (for applicability)."""
from _common import serve_with


def hook(request, server, number):
    response = server.handle(request)
    if request.get("type") == "hello":
        response["variants"] = ["stud_high"]
        response["options"]["bring_in_tie"] = ["suit"]
    return response


raise SystemExit(serve_with(hook))
