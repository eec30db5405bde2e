"""The reference server: pure request -> response, protocol errors as ok:false, never an exception."""

from __future__ import annotations

import io
import json
from typing import Any

from studcheck.cards import FULL_DECK
from studcheck.protocol.messages import schema_problem
from studcheck.protocol.serve import Server, serve
from studcheck.rules import LATE_OPTIONS, Options

STAKES = {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10}
# Door cards Kh, 2c, Qd (top of the deck: down, down, up in seat order): seat 2 brings in.
TOP = ["Ah", "Ad", "Ks", "As", "Kc", "Kd", "Kh", "2c", "Qd"]
DECK = TOP + [str(card) for card in FULL_DECK if str(card) not in TOP]


def new_hand(**changes: Any) -> dict[str, Any]:
    request = {"type": "new_hand", "seq": 2, "variant": "stud_high", "options": Options().to_json(), "stakes": STAKES,
               "seats": [{"seat": 1, "stack": 100}, {"seat": 2, "stack": 100}, {"seat": 3, "stack": 100}],
               "deck": DECK, "remade_stub": None, "label": "TEST-1"}
    request.update(changes)
    return request


def test_hello_declares_every_option_and_variant() -> None:
    response = Server().handle({"type": "hello", "seq": 1, "protocol": 1, "harness": "test"})
    assert schema_problem("response_hello", response) is None
    assert response["protocol"] == 1 and response["seq"] == 1
    assert sorted(response["variants"]) == ["five_card_stud", "razz", "stud_high", "stud_hilo8"]
    assert set(response["options"]) == set(Options().to_json()) | set(LATE_OPTIONS)
    assert response["options"]["betting"] == ["fixed_limit", "pot_limit", "no_limit"]
    assert response["options"]["rake_percent"] == "any"
    assert response["options"]["max_raises"] == [3, 4]


def test_hello_with_another_protocol_is_unsupported() -> None:
    response = Server().handle({"type": "hello", "seq": 1, "protocol": 2, "harness": "test"})
    assert response["ok"] is False and response["error"]["reason"] == "unsupported"


def test_new_hand_then_act_then_state() -> None:
    server = Server()
    response = server.handle(new_hand())
    assert response["ok"] is True and schema_problem("response_state", response) is None
    assert response["state"]["to_act"] == 2
    acted = server.handle({"type": "act", "seq": 3, "seat": 2, "action": "bring_in", "amount": 2})
    assert acted["ok"] is True and acted["state"]["to_act"] == 3
    assert server.handle({"type": "state", "seq": 4})["state"] == acted["state"]


def test_refused_action_has_the_engine_reason_and_leaves_state() -> None:
    server = Server()
    before = server.handle(new_hand())["state"]
    refused = server.handle({"type": "act", "seq": 3, "seat": 1, "action": "call"})
    assert refused == {"seq": 3, "ok": False, "error": {"reason": "out_of_turn", "message": refused["error"]["message"]}}
    assert schema_problem("response_error", refused) is None
    assert server.handle({"type": "state", "seq": 4})["state"] == before


def test_setup_error_is_bad_request_naming_the_field() -> None:
    response = Server().handle(new_hand(stakes={**STAKES, "bring_in": 5}))
    assert response["ok"] is False and response["error"]["reason"] == "bad_request"
    assert "stakes.bring_in" in response["error"]["message"]


def test_schema_invalid_request_is_bad_request() -> None:
    response = Server().handle(new_hand(deck=DECK[:51]))
    assert response["error"]["reason"] == "bad_request" and "deck" in response["error"]["message"]
    missing = Server().handle({"type": "act", "seq": 9, "seat": 1})
    assert missing["seq"] == 9 and missing["error"]["reason"] == "bad_request"


def test_unknown_type_and_no_hand() -> None:
    server = Server()
    assert server.handle({"type": "deal", "seq": 1})["error"]["reason"] == "bad_request"
    assert server.handle({"type": "state", "seq": 2})["error"]["reason"] == "no_hand"
    assert server.handle({"type": "act", "seq": 3, "seat": 1, "action": "fold"})["error"]["reason"] == "no_hand"


def test_refused_new_hand_discards_the_previous_hand() -> None:
    server = Server()
    server.handle(new_hand())
    server.handle(new_hand(seats=[{"seat": 1, "stack": 100}]))
    assert server.handle({"type": "state", "seq": 5})["error"]["reason"] == "no_hand"


def test_serve_loop_answers_each_line_and_stops_at_bye() -> None:
    lines = [b'{"type": "hello", "seq": 1, "protocol": 1, "harness": "t"}', b"this is not json", b"",
             b'{"type": "bye", "seq": 2}', b'{"type": "state", "seq": 3}']
    out = io.BytesIO()
    assert serve(io.BytesIO(b"\n".join(lines) + b"\n"), out) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["seq"] for a in answers] == [1, None, 2]
    assert answers[1]["ok"] is False and answers[1]["error"]["reason"] == "bad_request"
    assert answers[2] == {"seq": 2, "ok": True}
