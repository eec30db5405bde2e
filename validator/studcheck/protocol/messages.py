"""Protocol v1 messages: request builders, response checks and the protocol JSON Schema.

Requests are plain frozen dataclasses so the runner cannot forget a field; responses stay dicts
(they come from arbitrary programs) and are checked against spec/schema/protocol.schema.json.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from studcheck.rules import LATE_OPTIONS
from studcheck.schemacheck import first_problem, load_schema

PROTOCOL = 1


class RequestType(str, Enum):
    HELLO = "hello"
    NEW_HAND = "new_hand"
    ACT = "act"
    STATE = "state"
    BYE = "bye"
    EVALUATE = "evaluate"  # the evaluation profile (spec/evaluation.md)


class ErrorReason(str, Enum):
    """Engine reasons (contract section 6, in checking order) plus the protocol's own three."""

    HAND_OVER = "hand_over"
    UNKNOWN_SEAT = "unknown_seat"
    OUT_OF_TURN = "out_of_turn"
    ILLEGAL_ACTION = "illegal_action"
    RAISE_CAP_REACHED = "raise_cap_reached"
    BETTING_NOT_REOPENED = "betting_not_reopened"
    INVALID_AMOUNT = "invalid_amount"
    BAD_REQUEST = "bad_request"
    NO_HAND = "no_hand"
    UNSUPPORTED = "unsupported"


class ResponseKind(str, Enum):
    """Which response schema applies (by the request that was sent and the `ok` flag)."""

    HELLO = "response_hello"
    HELLO_EVALUATION = "response_hello_evaluation"
    STATE = "response_state"
    BYE = "response_bye"
    ERROR = "response_error"
    EVALUATE = "response_evaluate"


class Profile(str, Enum):
    """What an engine can be asked (spec/evaluation.md): whole hands, or batches of evaluations."""

    HANDS = "hands"
    EVALUATION = "evaluation"


#: Integer options whose support may be declared as "any" instead of a list of values.
OPEN_INT_OPTIONS = frozenset({"rake_percent", "rake_cap"})


@dataclass(frozen=True, kw_only=True)
class Hello:
    seq: int
    harness: str
    protocol: int = PROTOCOL

    def to_json(self) -> dict[str, Any]:
        return {"type": RequestType.HELLO.value, "seq": self.seq, "protocol": self.protocol, "harness": self.harness}


@dataclass(frozen=True, kw_only=True)
class NewHand:
    seq: int
    variant: str
    options: Mapping[str, Any]
    stakes: Mapping[str, int]
    seats: Sequence[Mapping[str, int]]
    deck: Sequence[str]
    remade_stub: Sequence[str] | None
    label: str

    def to_json(self) -> dict[str, Any]:
        return {
            "type": RequestType.NEW_HAND.value,
            "seq": self.seq,
            "variant": self.variant,
            "options": dict(self.options),
            "stakes": dict(self.stakes),
            "seats": [dict(seat) for seat in self.seats],
            "deck": list(self.deck),
            "remade_stub": None if self.remade_stub is None else list(self.remade_stub),
            "label": self.label,
        }


@dataclass(frozen=True, kw_only=True)
class Act:
    seq: int
    seat: int
    action: str
    amount: int | None = None

    def to_json(self) -> dict[str, Any]:
        message: dict[str, Any] = {"type": RequestType.ACT.value, "seq": self.seq, "seat": self.seat, "action": self.action}
        if self.amount is not None:
            message["amount"] = self.amount
        return message


@dataclass(frozen=True, kw_only=True)
class StateRequest:
    seq: int

    def to_json(self) -> dict[str, Any]:
        return {"type": RequestType.STATE.value, "seq": self.seq}


@dataclass(frozen=True, kw_only=True)
class Bye:
    seq: int

    def to_json(self) -> dict[str, Any]:
        return {"type": RequestType.BYE.value, "seq": self.seq}


@dataclass(frozen=True, kw_only=True)
class EngineInfo:
    """What the engine said about itself in its `hello` answer."""

    name: str
    version: str
    variants: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict)
    parallel: bool = True  # False: the engine must run alone (`run --jobs` then starts only one)
    profile: Profile = Profile.HANDS
    kinds: Mapping[str, str] = field(default_factory=dict)  # evaluation profile: kind -> "higher" | "lower"

    @classmethod
    def from_response(cls, response: Mapping[str, Any]) -> EngineInfo:
        engine = response.get("engine", {})
        evaluation = response.get("profile") == Profile.EVALUATION.value
        return cls(
            name=str(engine.get("name", "")),
            version=str(engine.get("version", "")),
            variants=tuple(response.get("variants", ())),
            options=dict(response.get("options", {})),
            raw=dict(engine),
            parallel=response.get("parallel", True) is not False,
            profile=Profile.EVALUATION if evaluation else Profile.HANDS,
            kinds=dict(response.get("kinds", {})) if evaluation else {},
        )

    def supports_variant(self, variant: str) -> bool:
        return variant in self.variants

    def supports(self, option: str, value: Any) -> bool:
        """`value` is one the engine declared (bools and ints are told apart: true is not 1)."""
        declared = self._declared(option)
        if declared == "any":
            return option in OPEN_INT_OPTIONS and isinstance(value, int) and not isinstance(value, bool)
        if not isinstance(declared, list):
            return False
        return any(type(item) is type(value) and item == value for item in declared)

    def supported_values(self, option: str) -> list[Any]:
        declared = self._declared(option)
        return list(declared) if isinstance(declared, list) else []

    def _declared(self, option: str) -> Any:
        """What hello said of `option`; an option added after v1 that hello leaves out means only
        its default (protocol.md 2.1)."""
        if option not in self.options and option in LATE_OPTIONS:
            return [LATE_OPTIONS[option]]
        return self.options.get(option)


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)  # json.dumps builds one per call
# The same line without the encoder's check for cycles (an id and a dict entry per object and list, a
# fifth of the time to encode a state): only for messages built fresh by studcheck's own code.
_ACYCLIC_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)


def encode(message: Mapping[str, Any]) -> bytes:
    """One protocol line: compact JSON, UTF-8, newline-terminated."""
    return _ENCODER.encode(message).encode("utf-8") + b"\n"


def encode_acyclic(message: Mapping[str, Any]) -> bytes:
    """`encode`, byte for byte, of a message known to hold no cycle: the reference engine's answers
    (`Server.handle` builds each from scratch), which `studcheck serve` and the fuzzer encode on every
    request. (A cycle would recurse until RecursionError instead of raising ValueError.) Requests
    keep `encode`: their fields may come from a case file."""
    return _ACYCLIC_ENCODER.encode(message).encode("utf-8") + b"\n"


def protocol_schema() -> dict[str, Any]:
    return load_schema("protocol")


def schema_problem(definition: str, message: Any) -> str | None:
    """The first reason `message` does not match `$defs/<definition>`, or None if it does."""
    return first_problem("protocol", definition, message)


def response_kind(request_type: RequestType, response: Mapping[str, Any]) -> ResponseKind:
    if response.get("ok") is False:
        return ResponseKind.ERROR
    if request_type is RequestType.HELLO:
        return ResponseKind.HELLO_EVALUATION if response.get("profile") == Profile.EVALUATION.value else ResponseKind.HELLO
    if request_type is RequestType.BYE:
        return ResponseKind.BYE
    if request_type is RequestType.EVALUATE:
        return ResponseKind.EVALUATE
    return ResponseKind.STATE
