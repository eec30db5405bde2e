"""Planted-bug engines: the reference engine with one deliberate rule bug each.

Use in process (`planted_server("max_raises")`) or as a subprocess
(`python tests/fuzz/planted.py max_raises`). Each bug is one a real engine could have; the fuzzer
must find every one of them. Bugs combine with `+` (`max_raises+side_pot`: an engine with both).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from studcheck.protocol.serve import Server, serve
from studcheck.rules import LATE_OPTIONS

Hook = Callable[[Server, Mapping[str, Any]], dict[str, Any]]


def _bring_in_tie(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Plays bring_in_tie=seat when suit is asked."""
    if request.get("type") == "new_hand" and request["options"].get("bring_in_tie") == "suit":
        request = {**request, "options": {**request["options"], "bring_in_tie": "seat"}}
    return server.handle(request)


def _max_raises(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Plays max_raises=4 when 3 is asked."""
    if request.get("type") == "new_hand" and request["options"].get("max_raises") == 3:
        request = {**request, "options": {**request["options"], "max_raises": 4}}
    return server.handle(request)


def _pot_max_short(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Pot limit: lists every range one chip short of the pot (a big-bet engine that forgot a chip)."""
    response = server.handle(request)
    state = response.get("state")
    if isinstance(state, dict):
        for entry in state.get("legal") or []:
            if "max" in entry and entry["max"] > entry["min"]:
                entry["max"] -= 1
    return response


def _range_amount(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Pot and no limit: every range keeps its bounds but says `amount` one over `max` (protocol.md:
    `amount` equals `min`, so a client that reads only `amount` would send an illegal wager)."""
    response = server.handle(request)
    state = response.get("state")
    if isinstance(state, dict):
        for entry in state.get("legal") or []:
            if "max" in entry:
                entry["amount"] = entry["max"] + 1
    return response


def _card_shift(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Deals deck positions 24 and 25 in swapped order (an off-by-one in a later street's deal)."""
    if request.get("type") == "new_hand" and isinstance(request.get("deck"), list) and len(request["deck"]) == 52:
        deck = list(request["deck"])
        deck[24], deck[25] = deck[25], deck[24]
        request = {**request, "deck": deck}
    return server.handle(request)


def _check_facing_bet(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Accepts a check facing a bet (and treats it as a call)."""
    if request.get("type") == "act" and request.get("action") == "check":
        state = server.handle({"type": "state", "seq": request.get("seq")})
        legal = {entry["action"] for entry in state.get("state", {}).get("legal", [])} if state.get("ok") else set()
        if state.get("ok") and state["state"].get("to_act") == request.get("seat") and "check" not in legal and "call" in legal:
            request = {**request, "action": "call"}
    return server.handle(request)


def _side_pot(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Reports one chip of the first side pot in the main pot (the total stays right)."""
    response = server.handle(request)
    pots = response.get("state", {}).get("pots") if response.get("ok") else None
    if pots and len(pots) >= 2 and pots[1]["amount"] > 0:
        pots[0]["amount"] += 1
        pots[1]["amount"] -= 1
    return response


def _bring_in_fold(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Offers `fold` to the player who must post the bring-in (he may only bring in or complete)."""
    response = server.handle(request)
    if request.get("type") == "new_hand" and response.get("ok"):
        legal = response["state"]["legal"]
        if any(entry["action"] == "bring_in" for entry in legal):
            legal.insert(0, {"action": "fold"})
    return response


def _showdown_order(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Reports the showdown order of the result backwards."""
    response = server.handle(request)
    result = response.get("state", {}).get("result") if response.get("ok") else None
    if result and len(result.get("showdown_order") or []) >= 2:
        result["showdown_order"] = list(reversed(result["showdown_order"]))
    return response


def _uncontested_stack(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Shows the winner of a pot nobody contested (everybody else folded) one chip short."""
    response = server.handle(request)
    state = response.get("state") if response.get("ok") else None
    if state and state.get("street") == "complete" and request.get("type") == "act":
        live = [row for row in state["seats"] if not row["folded"]]
        if len(live) == 1:
            live[0]["stack"] -= 1
    return response


def _flags_as_numbers(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Not a rule bug: after a refusal, `state` reports `folded` as 0/1 (equal to false/true in Python, not in JSON)."""
    response = server.handle(request)
    if request.get("type") == "state" and response.get("ok"):
        for row in response["state"]["seats"]:
            row["folded"] = int(row["folded"])
    return response


_hands = 0


def _once(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Not deterministic: reports a wrong pot total in the answer to the session's second new_hand only."""
    global _hands
    response = server.handle(request)
    if request.get("type") == "new_hand" and response.get("ok"):
        _hands += 1
        if _hands == 2:
            response["state"]["pot_total"] += 1
    return response


_acts = 0


def _crash(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Not a rule bug: dies on the 40th action of the session, like a segfault (subprocess only)."""
    global _acts
    if request.get("type") == "act":
        _acts += 1
        if _acts == 40:
            print(f"segmentation fault (core dumped) on seq {request.get('seq')}", file=sys.stderr, flush=True)
            os._exit(139)
    return server.handle(request)


def _fifth_raise_crash(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Not a rule bug: dies (exit 134) when asked to raise on fifth street, as
    tests/engines/crash_on_fifth_raise.py does. Unlike `crash`, it depends on the hand alone, so every
    `--jobs N` sees it in the same hands (subprocess only)."""
    if request.get("type") == "act" and request.get("action") == "raise":
        state = server.handle({"type": "state", "seq": request.get("seq")})
        if state.get("ok") and state["state"].get("street") == "fifth":
            print(f"NotImplementedError: raise on fifth street (seat {state['state'].get('to_act')})", file=sys.stderr,
                  flush=True)
            os._exit(134)
    return server.handle(request)


def _unsupported_eight(server: Server, request: Mapping[str, Any]) -> dict[str, Any]:
    """Not a bug: an engine that cannot seat eight players says so (reason unsupported)."""
    if request.get("type") == "new_hand" and len(request.get("seats", [])) == 8:
        return {"seq": request.get("seq"), "ok": False,
                "error": {"reason": "unsupported", "message": "this engine seats at most 7 players"}}
    return server.handle(request)


BUGS: dict[str, Hook] = {
    "bring_in_tie": _bring_in_tie,
    "max_raises": _max_raises,
    "card_shift": _card_shift,
    "check_facing_bet": _check_facing_bet,
    "side_pot": _side_pot,
    "bring_in_fold": _bring_in_fold,
    "showdown_order": _showdown_order,
    "uncontested_stack": _uncontested_stack,
    "crash": _crash,
    "fifth_raise_crash": _fifth_raise_crash,
    "unsupported_eight": _unsupported_eight,
    "flags_as_numbers": _flags_as_numbers,
    "once": _once,
    "pot_max_short": _pot_max_short,
    "range_amount": _range_amount,
}
#: bugs of pot and no limit: only these engines declare `betting` in hello (the others are v1
#: engines, so their fixed-limit hands are those of before pot and no limit existed)
BIG_BET_BUGS = ("pot_max_short", "range_amount")
RULE_BUGS = ("bring_in_tie", "max_raises", "card_shift", "check_facing_bet", "side_pot", "bring_in_fold", "showdown_order",
             "uncontested_stack")


class PlantedServer(Server):
    """The reference server with one bug (or several, `a+b`) between the request and the answer."""

    def __init__(self, bug: str) -> None:
        super().__init__()
        first, *rest = bug.split("+")
        self._hook = BUGS[first]
        self._inner = PlantedServer("+".join(rest)) if rest else Server()
        self.big_bet = first in BIG_BET_BUGS or getattr(self._inner, "big_bet", False)

    def handle(self, request: Mapping[str, Any]) -> dict[str, Any]:
        response = self._hook(self._inner, request) if isinstance(request, Mapping) else self._inner.handle(request)
        self.finished = self._inner.finished
        if (isinstance(request, Mapping) and request.get("type") == "hello" and isinstance(response.get("options"), dict)
                and not self.big_bet):
            # A v1 engine: hello leaves the late options out (their defaults only), so the
            # fixed-limit bugs are hunted in the same hands as before pot and no limit existed.
            for name in LATE_OPTIONS:  # betting, big_bet_bring_in, rake_third_street: absent = default only
                response["options"].pop(name, None)
        return response


def planted_server(bug: str) -> Server:
    return PlantedServer(bug)


def command(bug: str) -> str:
    """The --engine command that runs this bug as a subprocess."""
    import shlex

    return shlex.join([sys.executable, str(Path(__file__).resolve()), bug])


if __name__ == "__main__":
    raise SystemExit(serve(sys.stdin.buffer, sys.stdout.buffer, PlantedServer(sys.argv[1])))
