"""An engine that never validates a setup: any new_hand it cannot play, it plays with a valid one.

It must get `fail` for every setup-refusal case ("accepted a hand the rules forbid"), never `error`.
"""
from _common import serve_with

from studcheck.cards import FULL_DECK

VALID = {"variant": "stud_high", "stakes": {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10},
         "seats": [{"seat": 1, "stack": 100}, {"seat": 2, "stack": 100}],
         "deck": [str(card) for card in FULL_DECK], "remade_stub": None}


def hook(request, server, number):
    response = server.handle(request)
    if request.get("type") == "new_hand" and not response["ok"]:
        response = server.handle({**request, **VALID})
    return response


raise SystemExit(serve_with(hook))
