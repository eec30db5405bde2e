#!/usr/bin/env python3
"""A complete studcheck protocol-v1 adapter, ready to adapt to your engine.

Run it:      studcheck smoke --engine "python docs/examples/adapter_template.py"
             studcheck run   --engine "python docs/examples/adapter_template.py"

The protocol loop, the framing (one JSON object per line, flush after each), the error replies and
`hello` are done. The places to change are marked `YOUR ENGINE`: they call studcheck's own
reference engine as a stand-in, so this file passes the suite as it is. Replace them with calls
into your engine and keep everything else. Only the standard library is needed once you do.
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import Any

PROTOCOL = 1
ENGINE = {"name": "my-stud-engine", "version": "0.0.1"}

# YOUR ENGINE: what you support. List every option; the harness only sends values listed here
# and marks cases needing anything else "not applicable" (never "failed").
VARIANTS = ["stud_high", "razz", "stud_hilo8"]
OPTIONS: dict[str, Any] = {
    "bring_in_tie": ["suit", "seat"],
    "first_actor_tie": ["seat", "suit"],
    "open_pair_double": [True, False],
    "max_raises": [3, 4],
    "heads_up": ["capped", "round_begins", "before_cap"],
    "burn_cards": [True, False],
    "short_stub": ["remake", "community"],
    "odd_chip": ["best_five", "all_cards"],
    "showdown_unbet": ["first_actor", "lowest_seat"],
    "rake_percent": "any",
    "rake_cap": "any",
}


class Refused(Exception):
    """An action or request the engine refuses; `reason` is a protocol reason code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class Adapter:
    """Holds the current hand of YOUR ENGINE and translates requests to it and states from it."""

    def __init__(self) -> None:
        self.hand: Any = None

    def new_hand(self, request: dict[str, Any]) -> dict[str, Any]:
        self.hand = None  # a refused new_hand leaves no current hand
        for name, value in request["options"].items():
            allowed = OPTIONS.get(name)
            if allowed != "any" and value not in (allowed or []):
                raise Refused("unsupported", f"options.{name}={value!r} is not supported")
        # YOUR ENGINE: create a hand from variant, options, stakes, seats and the 52-card deck
        # (top first; deal exactly as spec/protocol.md section 2.2 says), post antes, deal third street.
        from studcheck.cards import parse_cards
        from studcheck.engine import Hand
        from studcheck.rules import Options, SeatSetup, SetupError, Stakes, Variant

        try:
            stub = request["remade_stub"]
            self.hand = Hand(
                variant=Variant(request["variant"]),
                options=Options.from_json(request["options"]),
                stakes=Stakes(**request["stakes"]),
                seats=[SeatSetup(seat=s["seat"], stack=s["stack"]) for s in request["seats"]],
                deck=list(parse_cards(request["deck"])),
                remade_stub=None if stub is None else list(parse_cards(stub)),
            )
        except (SetupError, ValueError, KeyError, TypeError) as exc:
            raise Refused("bad_request", str(exc)) from None
        return self.state()

    def act(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.hand is None:
            raise Refused("no_hand", "send new_hand first")
        # YOUR ENGINE: apply the action. `amount` is a "to" amount (the seat's street total after
        # the action). Refuse with the right reason code and change nothing when it is illegal.
        from studcheck.engine import Action, IllegalAction
        from studcheck.rules import ActionType

        try:
            self.hand.apply(Action(seat=request["seat"], action=ActionType(request["action"]), amount=request.get("amount")))
        except IllegalAction as exc:
            raise Refused(exc.reason.value, exc.message) from None
        except (ValueError, KeyError) as exc:
            raise Refused("bad_request", str(exc)) from None
        return self.state()

    def state(self) -> dict[str, Any]:
        if self.hand is None:
            raise Refused("no_hand", "send new_hand first")
        # YOUR ENGINE: build the state object of spec/protocol.md section 3 from your hand:
        # street, to_act, legal (with "to" amounts), seats (stack, committed this street, folded,
        # all_in, up and down cards in the order dealt, shown, mucked), community, pots (main
        # first, with eligible seats), pot_total, and result once the hand is complete.
        state: dict[str, Any] = self.hand.snapshot()
        return state


def answer(adapter: Adapter, request: Any) -> dict[str, Any]:
    if not isinstance(request, dict):
        return {"seq": None, "ok": False, "error": {"reason": "bad_request", "message": "not a JSON object"}}
    seq, kind = request.get("seq"), request.get("type")
    try:
        if kind == "hello":
            if request.get("protocol") != PROTOCOL:
                raise Refused("unsupported", f"this adapter speaks protocol {PROTOCOL}")
            return {"seq": seq, "ok": True, "protocol": PROTOCOL, "engine": ENGINE, "variants": VARIANTS, "options": OPTIONS}
        if kind == "new_hand":
            return {"seq": seq, "ok": True, "state": adapter.new_hand(request)}
        if kind == "act":
            return {"seq": seq, "ok": True, "state": adapter.act(request)}
        if kind == "state":
            return {"seq": seq, "ok": True, "state": adapter.state()}
        if kind == "bye":
            return {"seq": seq, "ok": True}
        raise Refused("bad_request", f"unknown request type {kind!r}")
    except Refused as exc:
        return {"seq": seq, "ok": False, "error": {"reason": exc.reason, "message": exc.message}}


def main() -> int:
    adapter = Adapter()
    for line in sys.stdin:  # one request per line
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:
            response = {"seq": None, "ok": False, "error": {"reason": "bad_request", "message": f"not JSON: {exc}"}}
        else:
            try:
                response = answer(adapter, request)
            except Exception:  # an engine bug: log it on stderr (the harness shows it) and stop
                traceback.print_exc(file=sys.stderr)
                return 70
        sys.stdout.write(json.dumps(response, separators=(",", ":")) + "\n")
        sys.stdout.flush()  # without this the harness waits for an answer that sits in a buffer
        if isinstance(request, dict) and request.get("type") == "bye":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
