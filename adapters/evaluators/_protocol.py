"""The `evaluation` profile of the studcheck protocol (spec/evaluation.md), for evaluator libraries.

Why one shared loop: every adapter in this folder differs only in how it turns cards into the
library's type and which library function it calls per kind; framing, seq, refusals and the
"never crash, never write anything but protocol lines to stdout" guarantees live here once.

Standalone on purpose (it imports nothing of studcheck): copy this file beside an adapter and run
`python my_adapter.py`. An adapter calls `serve(name, version, card_table, kinds)`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, BinaryIO, NamedTuple, NoReturn, TypeVar

C = TypeVar("C")

#: One value per item: an integer, a list of integers, or None (`low8`: no qualifying low).
Value = int | list[int] | None

#: Every kind of the profile (spec/evaluation.md section 2); an adapter declares a subset.
PROFILE_KINDS = frozenset({"high", "razz", "low8", "exposed_high", "exposed_low", "bring_in", "bring_in_razz"})

#: The 52 cards in protocol notation (CARDS.NOTATION): rank 23456789TJQKA, suit cdhs.
CARD_NAMES: tuple[str, ...] = tuple(rank + suit for rank in "23456789TJQKA" for suit in "cdhs")


class Kind(NamedTuple):
    """A kind the library evaluates: its direction and the batch function calling the library.

    `evaluate` gets the batch's hands already converted to the library's cards (lists, in the
    request's order) and returns one value per hand; whatever it raises is the library refusing.
    """

    direction: str  # "higher" or "lower": which value the rule chooses
    evaluate: Callable[[list[list[Any]]], Sequence[Value]]


class Refusal(Exception):
    """A request answered ok:false; `reason` is a protocol.md section 4 code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def _dumps(obj: object) -> bytes:
    """Compact JSON, one line (the harness reads one object per line)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode() + b"\n"


def _protocol_stdout() -> BinaryIO:
    """Keep the real stdout for protocol lines and point fd 1 (and sys.stdout) at stderr.

    Why: a library that prints (from Python or from C) must not corrupt the protocol stream.
    """
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def _convert(hands: object, table: Mapping[str, C]) -> list[list[C]]:
    """Check the batch's shape and convert every card with `table` (one dict look-up per card)."""
    if type(hands) is not list:
        raise Refusal("bad_request", "hands: must be a list of hands")
    if not hands:  # no upper bound here: a bigger batch costs time, not correctness
        raise Refusal("bad_request", "hands: must hold at least one hand")
    get = table.__getitem__
    try:  # the fast path (the harness only sends well-formed batches): one map per hand
        converted: list[list[C]] = [list(map(get, hand)) for hand in hands]
    except (KeyError, TypeError):
        raise _bad_hand(hands, table) from None
    for hand in hands:
        if type(hand) is not list or len(set(hand)) != len(hand):
            raise _bad_hand(hands, table)
    return converted


def _bad_hand(hands: list[Any], table: Mapping[str, Any]) -> Refusal:
    """The slow path: name the first malformed hand (not a list of known, distinct cards)."""
    for index, hand in enumerate(hands):
        if type(hand) is not list or not all(type(card) is str and card in table for card in hand):
            return Refusal("bad_request", f"hands[{index}]: {hand!r} is not a list of cards like 'Ah'")
        if len(set(hand)) != len(hand):
            return Refusal("bad_request", f"hands[{index}]: {hand!r} repeats a card")
    return Refusal("bad_request", "hands: malformed")  # not reached: the caller found a bad hand


def _answer(request: object, engine: dict[str, str], table: Mapping[str, C],
            kinds: Mapping[str, Kind]) -> tuple[dict[str, object], bool]:
    """Answer one decoded request; the bool says whether the session ends (`bye`)."""
    if type(request) is not dict:
        return {"seq": None, "ok": False, "error": {"reason": "bad_request", "message": "a request is a JSON object"}}, False
    seq = request.get("seq")
    kind_of = request.get("type")
    try:
        if type(seq) is not int or seq < 0:  # bool is not int here
            raise Refusal("bad_request", "seq: must be a non-negative integer")
        if kind_of == "hello":
            if request.get("protocol", 1) != 1:
                raise Refusal("unsupported", f"protocol {request.get('protocol')!r}: only version 1 is spoken")
            return {"seq": seq, "ok": True, "protocol": 1, "profile": "evaluation", "engine": engine,
                    "kinds": {name: kind.direction for name, kind in kinds.items()}}, False
        if kind_of == "bye":
            return {"seq": seq, "ok": True}, True
        if kind_of != "evaluate":
            raise Refusal("bad_request", f"type: unknown request type {kind_of!r}")
        name = request.get("kind")
        kind = kinds.get(name) if type(name) is str else None
        if kind is None:
            if name in PROFILE_KINDS:
                raise Refusal("unsupported", f"kind: {engine['name']} does not evaluate {name!r}")
            raise Refusal("bad_request", f"kind: unknown kind {name!r}")
        hands = _convert(request.get("hands"), table)
        try:
            values = list(kind.evaluate(hands))
        except Exception as exc:  # the library refused a hand: report its own words, go on
            message = f"{type(exc).__name__}: {exc}"
            print(f"seq {seq}: {engine['name']} raised {message}", file=sys.stderr, flush=True)
            raise Refusal("unsupported", message) from None
        return {"seq": seq, "ok": True, "values": values}, False
    except Refusal as refusal:
        return {"seq": seq if type(seq) is int else None, "ok": False,
                "error": {"reason": refusal.reason, "message": refusal.message}}, False


def serve(name: str, version: str, table: Mapping[str, C], kinds: Mapping[str, Kind]) -> NoReturn:
    """Run the session: one answer line per request line, flushed; exit 0 on `bye` or end of stdin.

    `table` maps each protocol card ("Ah") to the library's card; `kinds` are the kinds declared.
    """
    out = _protocol_stdout()
    engine = {"name": name, "version": version}
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:  # not JSON (or not UTF-8)
            response: dict[str, object] = {"seq": None, "ok": False,
                                           "error": {"reason": "bad_request", "message": f"not JSON: {exc}"}}
            done = False
        else:
            response, done = _answer(request, engine, table, kinds)
        try:
            data = _dumps(response)
        except (TypeError, ValueError) as exc:  # a value JSON cannot carry (NaN, a non-number object)
            data = _dumps({"seq": response.get("seq"), "ok": False,
                           "error": {"reason": "unsupported", "message": f"unanswerable value: {exc}"}})
        try:
            out.write(data)
            out.flush()
        except BrokenPipeError:  # the harness stopped reading: nothing left to answer
            break
        if done:
            break
    sys.exit(0)


def number_by_sorting(objects: Sequence[Any]) -> list[Value]:
    """Number comparable objects (e.g. PokerKit hands) so that a weaker one gets a smaller integer.

    Why: values need only be comparable within one batch (spec/evaluation.md section 3); equal
    objects (by == and hash, as the library defines them) get equal numbers, None stays None.
    """
    order = {obj: index for index, obj in enumerate(sorted({obj for obj in objects if obj is not None}))}
    return [None if obj is None else order[obj] for obj in objects]
