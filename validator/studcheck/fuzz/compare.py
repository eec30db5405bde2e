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

from studcheck.harness.compare import canonical_state, diff_json



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
