"""The reference engine behind the protocol: `studcheck serve` and the in-process transport.

`Server.handle` is pure (one request dict in, one response dict out, no I/O) so the subprocess
path (`serve`) and the in-process path run exactly the same code.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import IO, Any

from studcheck import __version__
from studcheck.cards import CardError, parse_cards
from studcheck.protocol.messages import (OPEN_INT_OPTIONS, PROTOCOL, ErrorReason, Profile, RequestType, encode_acyclic,
                                         schema_problem)
from studcheck.rules import ActionType, Options, SeatSetup, SetupError, Stakes, Variant, option_values

ENGINE_NAME = "studcheck-reference"

HandFactory = Callable[..., Any]
#: after a refused act, every part of the state (as the protocol and compare.py name them) is
#: explained by ACTION.REFUSAL: it must be exactly as before
_UNCHANGED = ("state", "street", "to_act", "legal", "seats", "community", "pots", "pot_total", "result", "stacks",
              "committed", "up", "down", "folded", "all_in", "shown", "mucked")


def _error(seq: Any, reason: ErrorReason | str, message: str) -> dict[str, Any]:
    value = reason.value if isinstance(reason, ErrorReason) else str(reason)
    return {"seq": seq, "ok": False, "error": {"reason": value, "message": message}}


def declared_options() -> dict[str, Any]:
    """Every option value the reference engine supports, in hello's shape."""
    values: dict[str, Any] = option_values()
    for name in OPEN_INT_OPTIONS:
        values[name] = "any"
    return values


class Server:
    """One engine session: at most one current hand, replaced by each `new_hand`.

    With `explain=True` every hand gets an explanation collector (engine/explain.py) and, after
    each `handle`, `explanations` holds the rules behind the answer just given: fact path -> rule
    IDs, most specific first: the state's facts after a successful new_hand, act or state; after a
    refusal, `ok` and `reason` (the rule that forbids it first, ACTION.REFUSAL last) and, for a
    refused act, every part of the state (ACTION.REFUSAL: it must not change). The hand factory
    must then accept a `notes` keyword (Hand and its subclasses do).
    """

    def __init__(self, hand_factory: HandFactory | None = None, *, explain: bool = False) -> None:
        if hand_factory is None:
            from studcheck.engine import Hand

            hand_factory = Hand
        self._hand_factory = hand_factory
        self._hand: Any = None
        self.finished = False
        self.explain = explain
        self.explanations: dict[str, tuple[str, ...]] = {}

    def handle(self, request: Mapping[str, Any]) -> dict[str, Any]:
        response = self._handle(request)
        if self.explain:
            self._explain(request, response)
        return response

    def _handle(self, request: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(request, Mapping):
            return _error(None, ErrorReason.BAD_REQUEST, "a request must be a JSON object")
        seq = request.get("seq")
        try:
            kind = RequestType(request.get("type"))
        except ValueError:
            known = ", ".join(t.value for t in RequestType)
            return _error(seq, ErrorReason.BAD_REQUEST, f"unknown request type {request.get('type')!r} (known: {known})")
        if kind is RequestType.NEW_HAND:
            self._hand = None  # even a refused new_hand ends the previous hand
        problem = schema_problem(f"request_{kind.value}", request)
        if problem is not None:
            return _error(seq, ErrorReason.BAD_REQUEST, f"{kind.value}: {problem}")
        handler = getattr(self, f"_{kind.value}")
        response: dict[str, Any] = handler(seq, request)
        return response

    def _explain(self, request: Any, response: Mapping[str, Any]) -> None:
        """Fill `explanations` for the answer just given (only with explain=True)."""
        from studcheck.engine.explain import setup_rules

        try:
            kind = RequestType(request.get("type")) if isinstance(request, Mapping) else None
        except ValueError:
            kind = None
        if kind is None:
            self.explanations = {}
            return
        hand = self._hand
        if response.get("ok"):
            if hand is None or kind not in (RequestType.NEW_HAND, RequestType.ACT, RequestType.STATE):
                self.explanations = {}
                return
            hand.explain_state()
            facts: dict[str, tuple[str, ...]] = hand._notes.facts()
            if kind is RequestType.NEW_HAND:
                facts["ok"] = setup_rules(request.get("variant"), None)
            self.explanations = facts
            return
        error = response.get("error") or {}
        rules = self._refusal(kind, request, str(error.get("reason")), str(error.get("message")))
        self.explanations = {"ok": rules, "reason": rules}
        if kind is RequestType.ACT and hand is not None:
            # A refused action changes nothing: any difference in the state after it is ACTION.REFUSAL's.
            self.explanations.update(dict.fromkeys(_UNCHANGED, ("ACTION.REFUSAL",)))

    def _refusal(self, kind: RequestType, request: Mapping[str, Any], reason: str, message: str) -> tuple[str, ...]:
        from studcheck.engine import Action, Reason
        from studcheck.engine.explain import setup_rules

        if kind is RequestType.NEW_HAND:
            return setup_rules(request.get("variant"), message)
        if kind is RequestType.ACT and self._hand is not None:
            try:
                action = Action(seat=request["seat"], action=ActionType(request["action"]), amount=request.get("amount"))
                code = Reason(reason)
            except (KeyError, ValueError):
                return ("ACTION.REFUSAL",)
            rules: tuple[str, ...] = self._hand.explain_refusal(action, code)
            return rules
        return ("ACTION.REFUSAL",)

    def _hello(self, seq: Any, request: Mapping[str, Any]) -> dict[str, Any]:
        if request["protocol"] != PROTOCOL:
            return _error(seq, ErrorReason.UNSUPPORTED, f"this engine speaks protocol {PROTOCOL}, not {request['protocol']}")
        if request.get("profile") == Profile.EVALUATION.value:
            from studcheck.evaluation.kinds import Kind

            return {"seq": seq, "ok": True, "protocol": PROTOCOL, "profile": Profile.EVALUATION.value,
                    "engine": {"name": ENGINE_NAME, "version": __version__}, "kinds": {kind.value: "higher" for kind in Kind}}
        return {
            "seq": seq,
            "ok": True,
            "protocol": PROTOCOL,
            "engine": {"name": ENGINE_NAME, "version": __version__},
            "variants": [variant.value for variant in Variant],
            "options": declared_options(),
        }

    def _new_hand(self, seq: Any, request: Mapping[str, Any]) -> dict[str, Any]:
        try:
            stub = request["remade_stub"]
            extra: dict[str, Any] = {}
            if self.explain:
                from studcheck.engine.explain import Notes

                extra["notes"] = Notes()
            hand = self._hand_factory(
                **extra,
                variant=Variant(request["variant"]),
                options=Options.from_json(request["options"]),
                stakes=Stakes(**request["stakes"]),
                seats=[SeatSetup(seat=s["seat"], stack=s["stack"]) for s in request["seats"]],
                deck=list(parse_cards(request["deck"])),
                remade_stub=None if stub is None else list(parse_cards(stub)),
            )
        except SetupError as exc:
            return _error(seq, ErrorReason.BAD_REQUEST, f"{exc.field}: {exc.message}")
        except CardError as exc:
            return _error(seq, ErrorReason.BAD_REQUEST, f"deck: {exc}")
        self._hand = hand
        return {"seq": seq, "ok": True, "state": hand.snapshot()}

    def _act(self, seq: Any, request: Mapping[str, Any]) -> dict[str, Any]:
        from studcheck.engine import Action, IllegalAction

        if self._hand is None:
            return _error(seq, ErrorReason.NO_HAND, "no current hand: send new_hand first")
        action = Action(seat=request["seat"], action=ActionType(request["action"]), amount=request.get("amount"))
        try:
            self._hand.apply(action)
        except IllegalAction as exc:
            return _error(seq, exc.reason.value, exc.message)
        return {"seq": seq, "ok": True, "state": self._hand.snapshot()}

    def _state(self, seq: Any, request: Mapping[str, Any]) -> dict[str, Any]:
        if self._hand is None:
            return _error(seq, ErrorReason.NO_HAND, "no current hand: send new_hand first")
        return {"seq": seq, "ok": True, "state": self._hand.snapshot()}

    def _evaluate(self, seq: Any, request: Mapping[str, Any]) -> dict[str, Any]:
        """The evaluation profile (spec/evaluation.md): the reference's value of every item, `higher` better."""
        from studcheck.evaluation.kinds import Kind, key_as_value, reference_key

        kind = Kind(request["kind"])
        values: list[Any] = []
        for index, item in enumerate(request["hands"]):
            try:
                values.append(key_as_value(kind, reference_key(kind, parse_cards(item))))
            except (CardError, ValueError) as exc:
                return _error(seq, ErrorReason.BAD_REQUEST, f"hands[{index}]: {exc}")
        return {"seq": seq, "ok": True, "values": values}

    def _bye(self, seq: Any, request: Mapping[str, Any]) -> dict[str, Any]:
        self.finished = True
        return {"seq": seq, "ok": True}


READ_BYTES = 65536


def serve(stdin: IO[bytes], stdout: IO[bytes], server: Server | None = None, *, batched: bool = False) -> int:
    """Answer one JSON line per request line until `bye` (exit code 0) or end of input (0), or a
    reference-engine bug (70, said on stderr like any engine crash).

    By default every answer is written (and flushed) as soon as it is made, so an engine built on
    this loop that dies or hangs on a request has answered every request before it. `batched`
    (the reference engine, `studcheck serve`) writes the answers to all the requests one read
    brought in with one write instead: a pipelined batch then costs one system call each way, not
    one per answer. Answers made before an exception of the reference are still written first.
    """
    server = server or Server()
    code: int | None = None
    if not batched:
        for raw in stdin:
            answer, code = _answer(server, raw)
            if answer:
                stdout.write(answer)
                stdout.flush()
            if code is not None:
                return code
        return 0
    read = getattr(stdin, "read1", None) or stdin.readline
    rest: list[bytes] = []  # the start of a line whose newline has not come yet
    while True:
        chunk = read(READ_BYTES)
        if chunk:
            cut = chunk.rfind(b"\n")
            if cut < 0:  # a part of a long line: nothing complete to answer yet
                rest.append(chunk)
                continue
            lines = b"".join([*rest, chunk[:cut]]).split(b"\n")
            rest = [chunk[cut + 1:]]
        else:
            lines, rest = [b"".join(rest)], []  # the end of input: a last line without its newline
        answers: list[bytes] = []
        for raw in lines:
            answer, code = _answer(server, raw)
            answers.append(answer)
            if code is not None:
                break
        stdout.write(b"".join(answers))
        stdout.flush()
        if code is not None:
            return code
        if not chunk:
            return 0


def _answer(server: Server, raw: bytes) -> tuple[bytes, int | None]:
    """The answer line to one request line (empty for a blank line), and the exit code if the
    loop must stop after it (`bye`; 70 after a reference-engine bug, which has no answer)."""
    line = raw.strip()
    if not line:
        return b"", None
    try:
        request = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        response = _error(None, ErrorReason.BAD_REQUEST, f"not a JSON line: {exc}")
    else:
        try:
            response = server.handle(request)
        except Exception:
            traceback.print_exc(file=sys.stderr)
            return b"", 70
    return encode_acyclic(response), 0 if server.finished else None  # a response is built afresh


def main() -> int:
    return serve(sys.stdin.buffer, sys.stdout.buffer, batched=True)


if __name__ == "__main__":
    raise SystemExit(main())
