"""Compare: the engine's answer against the reference's, and what "the same divergence" means.

For every answer: `ok`; for a refusal the reason code (messages are free text and never compared);
otherwise the whole canonical state (extra keys an engine adds are ignored, as the harness ignores
them). The first difference is the divergence; its signature (kind of step, field with indices
dropped, variant) is what shrinking keeps and `--keep-going` groups by.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from studcheck.harness.compare import diff_json, sorted_legal

SEAT_KEYS = ("seat", "stack", "committed", "folded", "all_in", "up", "down", "shown", "mucked")
RESULT_KEYS = ("pots", "rake", "returned", "showdown_order", "stacks")
AWARD_KEYS = ("winners", "high", "low")


@dataclass(frozen=True, kw_only=True)
class Difference:
    """Where the engine's answer first differs from the reference's (a JSON path into the answer)."""

    path: str
    expected: Any
    actual: Any
    message: str | None = None  # the engine's refusal message, as evidence

    def describe(self) -> str:
        return f"{self.path}: reference {_short(self.expected)}, engine {_short(self.actual)}"


@dataclass(frozen=True, kw_only=True)
class Signature:
    """What "the same divergence" means: the kind of step, the first differing field with indices
    dropped (`state.pots[].amount`), and the variant. Shrinking keeps it; --keep-going groups by it."""

    kind: str  # new_hand, act-accepted, act-refused (by the reference) or state
    path: str
    variant: str

    def text(self) -> str:
        return f"{self.kind} {self.path} {self.variant}"


@dataclass(frozen=True, kw_only=True)
class Divergence:
    exchange: int  # index into HandRecord.exchanges
    kind: str  # new_hand, act-accepted, act-refused (by the reference) or state
    first: Difference
    all: tuple[Difference, ...]

    def signature(self, variant: str) -> Signature:
        return Signature(kind=self.kind, path=_normal_path(self.first.path), variant=variant)


ERROR_KIND = "error"  # the signature kind of a hand in which the engine broke the protocol


def _short(value: Any, limit: int = 200) -> str:
    text = "nothing" if value is None else repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _normal_path(path: str) -> str:
    return re.sub(r"\.\d+(?=\.|$)", ".*", re.sub(r"\[\d+\]", "[]", path))


# --- canonical answers --------------------------------------------------------------------------


def _seat_map(value: Any) -> Any:
    return {str(key): item for key, item in value.items()} if isinstance(value, Mapping) else value


def _seat_set(value: Any) -> Any:
    return sorted(value) if isinstance(value, list) and all(isinstance(v, int) for v in value) else value


def canonical_state(state: Any) -> Any:
    """The state with only the canonical keys, sets sorted: what "the same state" means."""
    if not isinstance(state, Mapping):
        return state
    seats = state.get("seats")
    if isinstance(seats, list) and all(isinstance(row, Mapping) and isinstance(row.get("seat"), int) for row in seats):
        seats = sorted(seats, key=lambda row: row["seat"])  # the harness matches rows by seat number too
    pots = state.get("pots")
    return {
        "street": state.get("street"),
        "to_act": state.get("to_act"),
        "legal": sorted_legal(state.get("legal") or []),
        "seats": [{key: row.get(key) for key in SEAT_KEYS} if isinstance(row, Mapping) else row for row in seats]
        if isinstance(seats, list) else seats,
        "community": state.get("community"),
        "pots": [{"amount": pot.get("amount"), "eligible": _seat_set(pot.get("eligible"))}
                 if isinstance(pot, Mapping) else pot for pot in pots] if isinstance(pots, list) else pots,
        "pot_total": state.get("pot_total"),
        "result": canonical_result(state.get("result")),
    }


def canonical_result(result: Any) -> Any:
    if not isinstance(result, Mapping):
        return result
    out = {key: result.get(key) for key in RESULT_KEYS}
    pots = result.get("pots")
    if isinstance(pots, list):
        out["pots"] = [_result_pot(pot) for pot in pots]
    for key in ("returned", "stacks"):
        out[key] = _seat_map(out[key])
    return out


def _result_pot(pot: Any) -> Any:
    if not isinstance(pot, Mapping):
        return pot
    entry = {"amount": pot.get("amount"), "eligible": _seat_set(pot.get("eligible"))}
    for key in AWARD_KEYS:
        if key in pot:
            entry[key] = _seat_map(pot[key])
    return entry


def differences(reference: Mapping[str, Any], engine: Mapping[str, Any]) -> list[Difference]:
    """Every difference between two answers to the same request, the most telling first."""
    message = None
    if not engine.get("ok"):
        message = str((engine.get("error") or {}).get("message", ""))
    if reference.get("ok") != engine.get("ok"):
        return [Difference(path="ok", expected=reference.get("ok"), actual=engine.get("ok"), message=message)]
    if not reference.get("ok"):
        want, got = (reference.get("error") or {}).get("reason"), (engine.get("error") or {}).get("reason")
        if want != got:
            return [Difference(path="error.reason", expected=want, actual=got, message=message)]
        return []
    if reference.get("state") == engine.get("state"):  # the usual case, without building canonical forms
        return []
    want, got = canonical_state(reference.get("state")), canonical_state(engine.get("state"))
    if want == got:
        return []
    found = diff_json(want, got)
    return [Difference(path=f"state.{item.path}", expected=item.expected, actual=item.actual) for item in found]
