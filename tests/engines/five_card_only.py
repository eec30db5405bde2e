"""A correct engine that declares only five_card_stud: the smoke test must pick that variant (and
its own bring-in seat), and seven-card cases are not applicable to it."""
from _common import serve_with


def hook(request, server, number):
    response = server.handle(request)
    if request.get("type") == "hello":
        response["variants"] = ["five_card_stud"]
    return response


raise SystemExit(serve_with(hook))
