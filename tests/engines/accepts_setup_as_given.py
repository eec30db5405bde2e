"""An engine that never validates a setup and plays it as given: a forbidden setup it cannot play
is played with a valid one, but the state shows the seats and stacks it was sent (nine seats, a
negative stack), so the answer often breaks the schema too.

A setup-refusal case must still be a `fail` (the engine accepted what the rules forbid), not an
`error`, and the engine needs no restart.
"""
from _common import serve_with

from studcheck.cards import FULL_DECK

VALID = {"variant": "stud_high", "stakes": {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10},
         "seats": [{"seat": 1, "stack": 100}, {"seat": 2, "stack": 100}],
         "deck": [str(card) for card in FULL_DECK], "remade_stub": None}


def as_given(state, seats):
    template = state["seats"][0]
    rows = [{**template, "seat": seat.get("seat"), "stack": seat.get("stack")} for seat in seats if isinstance(seat, dict)]
    return {**state, "seats": rows}


def hook(request, server, number):
    response = server.handle(request)
    if request.get("type") == "new_hand" and not response["ok"]:
        response = server.handle({**request, **VALID})
        response["state"] = as_given(response["state"], request.get("seats") or [])
    return response


raise SystemExit(serve_with(hook))
