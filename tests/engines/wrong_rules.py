"""A protocol-perfect engine with wrong rules: ignores bring_in_tie (always `seat`) and max_raises (always 4).

It must get `fail` verdicts (the harness judged the rules), never `error`.
"""
from _common import serve_with


def hook(request, server, number):
    if request.get("type") == "new_hand":
        request = {**request, "options": {**request["options"], "bring_in_tie": "seat", "max_raises": 4}}
    return server.handle(request)


raise SystemExit(serve_with(hook))
