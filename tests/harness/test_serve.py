"""The reference server: pure request -> response, protocol errors as ok:false, never an exception."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

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


@pytest.mark.parametrize("batched", [False, True])
def test_serve_loop_answers_each_line_and_stops_at_bye(batched: bool) -> None:
    lines = [b'{"type": "hello", "seq": 1, "protocol": 1, "harness": "t"}', b"this is not json", b"",
             b'{"type": "bye", "seq": 2}', b'{"type": "state", "seq": 3}']
    out = io.BytesIO()
    assert serve(io.BytesIO(b"\n".join(lines) + b"\n"), out, batched=batched) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["seq"] for a in answers] == [1, None, 2]
    assert answers[1]["ok"] is False and answers[1]["error"]["reason"] == "bad_request"
    assert answers[2] == {"seq": 2, "ok": True}


class _Chunks(io.RawIOBase):
    """Input arriving in pieces of `size` bytes (as a pipe may deliver it); `read1` gives one piece."""

    def __init__(self, data: bytes, size: int) -> None:
        self._data, self._size = data, size

    def readable(self) -> bool:
        return True

    def read1(self, limit: int = -1) -> bytes:
        piece, self._data = self._data[: self._size], self._data[self._size:]
        return piece


class _Writes(io.BytesIO):
    """Output that remembers each write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []

    def write(self, data: Any) -> int:
        self.writes.append(bytes(data))
        return super().write(data)


def _state(seq: int) -> bytes:
    return json.dumps({"type": "state", "seq": seq}).encode()


def test_batched_serve_answers_what_one_read_brought_in_one_write() -> None:
    batch = b"".join(_state(seq) + b"\n" for seq in (1, 2, 3))
    out = _Writes()
    assert serve(_Chunks(batch + _state(4) + b"\n", len(batch)), out, batched=True) == 0
    assert [len(write.splitlines()) for write in out.writes if write] == [3, 1]
    assert [json.loads(line)["seq"] for line in out.getvalue().splitlines()] == [1, 2, 3, 4]


def test_batched_serve_joins_a_line_split_across_reads_and_answers_a_last_line_without_newline() -> None:
    data = json.dumps(new_hand(seq=1)).encode() + b"\n" + _state(2)  # no newline at the end
    out = io.BytesIO()
    assert serve(_Chunks(data, 7), out, batched=True) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(a["seq"], a["ok"]) for a in answers] == [(1, True), (2, True)]


class _Failing(Server):
    """A reference-engine bug on the request with seq 2."""

    def handle(self, request: Any) -> dict[str, Any]:
        if request.get("seq") == 2:
            raise RuntimeError("boom")
        return super().handle(request)


@pytest.mark.parametrize("batched", [False, True])
def test_a_reference_bug_exits_70_after_answering_every_request_before_it(batched: bool, capsys: Any) -> None:
    out = io.BytesIO()
    data = b"".join(_state(seq) + b"\n" for seq in (1, 2, 3))
    assert serve(io.BytesIO(data), out, _Failing(), batched=batched) == 70
    assert [json.loads(line)["seq"] for line in out.getvalue().splitlines()] == [1]
    assert "RuntimeError: boom" in capsys.readouterr().err


def test_unbatched_serve_writes_each_answer_before_reading_the_next_request() -> None:
    """An engine built on the loop that dies or hangs on a request has answered the ones before."""
    out = io.BytesIO()

    class Checking(Server):
        def handle(self, request: Any) -> dict[str, Any]:
            assert len(out.getvalue().splitlines()) == request["seq"] - 1
            return super().handle(request)

    assert serve(io.BytesIO(b"".join(_state(seq) + b"\n" for seq in (1, 2, 3))), out, Checking()) == 0
    assert len(out.getvalue().splitlines()) == 3
