"""Talking to the engine under test during the search, as cheaply as correctness allows.

What `EngineClient.request` does not do on its own:

- **Pipelining**: the search writes a whole hand's requests, as the reference decided them, in one
  write (`EngineClient.send(defer=True)` / `flush`) and reads the engine's answers later, in order
  (`receive_line`), so the two processes work at the same time instead of waiting for each other.
- **Skip re-validating an answer that is the reference's.** Every answer of the engine is
  checked against the protocol schema. Checking a whole state costs more than the reference's own
  move, yet most answers are exactly the reference's state. An answer line that is byte for byte
  the reference's answer (as `studcheck serve` would encode it, with the engine's `seq`), or that
  parses to `{"seq": <int>, "ok": true, "state": S}`, type for type and key for key, with S
  identical to the reference's state, is valid exactly when the reference's state is, so the
  schema is run on the reference's state instead, every `REFERENCE_CHECK_EVERY`-th time (the
  reference's schema conformance is tested on its own; the sample keeps this assumption checked
  during the run). The shortcut is used only while the schema's `response_state` and `seq` are
  exactly the shapes this reasoning relies on; any other answer is validated in full, as the
  client would.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from studcheck.protocol.client import EngineClient, EngineError, Pending, Problem, Unsolicited, truncate
from studcheck.protocol.messages import RequestType, encode, protocol_schema, response_kind, schema_problem

REFERENCE_CHECK_EVERY = 64  # about once every two hands
_RESPONSE_STATE = {"type": "object", "required": ["seq", "ok", "state"],
                   "properties": {"seq": {"$ref": "#/$defs/seq"}, "ok": {"const": True},
                                  "state": {"$ref": "#/$defs/state"}}}
_SEQ = {"type": "integer", "minimum": 0}
_ENVELOPE = frozenset({"seq", "ok", "state"})
_ANSWER = frozenset({"ok", "state"})


@lru_cache(maxsize=1)
def shortcut_is_sound() -> bool:
    """The schema still says what the shortcut relies on: the state answer is seq + ok + state, nothing across them."""
    defs = protocol_schema()["$defs"]
    state_def = {key: value for key, value in defs.get("response_state", {}).items() if key != "description"}
    seq_def = {key: value for key, value in defs.get("seq", {}).items() if key != "description"}
    return state_def == _RESPONSE_STATE and seq_def == _SEQ


def identical(a: Any, b: Any) -> bool:
    """The same JSON value, type for type (`true` is not `1`, `1.0` is not `1`) and key for key.

    Leaves are compared in the loop, not by a call each: this runs on every answer.
    """
    kind = type(a)
    if kind is not type(b):
        return False
    pairs: Any
    if kind is dict:
        if a.keys() != b.keys():
            return False
        pairs = zip(a.values(), map(b.__getitem__, a))
    elif kind is list:
        if len(a) != len(b):
            return False
        pairs = zip(a, b)
    else:
        return bool(a == b)
    for x, y in pairs:
        inner = type(x)
        if inner is not type(y):
            return False
        if inner is dict or inner is list:
            if not identical(x, y):
                return False
        elif x != y:
            return False
    return True


def _is_reference_state(response: Mapping[str, Any], reference_state: Mapping[str, Any] | None) -> bool:
    return (reference_state is not None and response.keys() == _ENVELOPE and response["ok"] is True
            and type(response["seq"]) is int and response["seq"] >= 0 and shortcut_is_sound()
            and identical(response["state"], reference_state))


class Checker:
    """Schema checks of the engine's answers, with the identical-to-the-reference shortcut."""

    def __init__(self) -> None:
        self.shortcuts = 0
        self.reference_problem: str | None = None  # a sampled reference state breaks the schema: a studcheck bug

    def same_as_reference(self, reference_state: Mapping[str, Any]) -> None:
        """An answer was found to be the reference's state: sample the reference's own conformance."""
        self.shortcuts += 1
        if self.shortcuts % REFERENCE_CHECK_EVERY == 1 and self.reference_problem is None:
            self.reference_problem = schema_problem("response_state", {"seq": 0, "ok": True, "state": reference_state})

    def check(self, kind: RequestType, response: dict[str, Any], raw: bytes,
              reference_state: Mapping[str, Any] | None) -> None:
        if _is_reference_state(response, reference_state):
            assert reference_state is not None
            self.same_as_reference(reference_state)
            return
        problem = schema_problem(response_kind(kind, response).value, response)
        if problem is not None:
            line = truncate(raw.decode("utf-8", errors="replace").rstrip("\n"))
            raise EngineError(Problem.BAD_RESPONSE, f"the answer to {kind.value} breaks the protocol schema: {problem}",
                              line=line)


def read_answer(client: EngineClient, pending: Pending, reference: Mapping[str, Any], checker: Checker) -> dict[str, Any]:
    """The engine's checked answer to `pending`; `reference` is the reference's answer (no `seq`).

    The client's envelope checks (JSON, seq, `ok`) apply; the schema check is the checker's.
    """
    raw = client.receive_line(pending)
    reference_state = reference.get("state") if reference.get("ok") is True else None
    if reference_state is not None and reference.keys() == _ANSWER and shortcut_is_sound():
        expected = {"seq": pending.seq, **reference}
        if raw == encode(expected):  # what `studcheck serve` writes: nothing to parse or compare
            pending.entry["response"] = expected
            if client.validate:
                checker.same_as_reference(reference_state)
            return expected
    try:
        response = client.check(pending, schema=False)
    except EngineError as exc:
        raise extra_line(pending, exc) or exc from None
    if client.validate:
        try:
            checker.check(pending.kind, response, raw, reference_state)
        except EngineError as exc:
            exc.stderr = exc.stderr or client.stderr_tail()
            raise
    return response


def extra_line(pending: Pending, error: EngineError) -> Unsolicited | None:
    """The answer read for `pending` carries the `seq` of an earlier request: a line nobody asked for.

    Every earlier request was answered already (answers are read in order), so the line answers
    no request: a second answer to one request, say. `studcheck run` reports such a line as
    `bad_response` ("a line nobody asked for", `Unsolicited`); the fuzzer too, whether the line
    comes while answers are due (it is then read in place of the next answer and looks like a
    wrong `seq`) or while none is (the client finds it before the next write).
    """
    if error.problem is not Problem.WRONG_SEQ:
        return None
    seq = (pending.entry.get("response") or {}).get("seq")
    if type(seq) is not int or seq >= pending.seq:
        return None
    return Unsolicited(Problem.BAD_RESPONSE,
                       f"the engine wrote a line nobody asked for before its answer to seq {pending.seq}: an answer "
                       f"to seq {seq}, which was answered already (two answers to one request?)",
                       line=error.line, stderr=error.stderr)
