"""The loaded form of a case file: what the harness runs and what `show` renders.

Expectations keep the canonical JSON key names of the protocol `state` object (seat keys are the
strings "1".."8") so the harness compares them with engine answers without translating.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from studcheck.cases.deck import build_deck
from studcheck.cards import Card
from studcheck.rules import ActionType, Options, SeatSetup, Stakes, Variant


class StepKind(str, Enum):
    ACT = "act"
    REJECT = "reject"
    EXPECT = "expect"


@dataclass(frozen=True, kw_only=True)
class Step:
    """One step: apply an action, expect a refusal with a reason, or compare part of the state.

    `act`: seat, action, amount (None when the action has none). `reject`: the same plus `reason`
    (amount and action may be anything the author wants refused). `expect`: only `expect` is set.
    """

    kind: StepKind
    line: int
    seat: int | None = None
    action: ActionType | None = None
    amount: int | None = None
    reason: str | None = None
    expect: dict[str, Any] | None = None

    def describe(self) -> str:
        """Short text for reports, e.g. `act 2 bring_in 2` or `reject 1 call (out_of_turn)`."""
        if self.kind is StepKind.EXPECT:
            return "expect " + ", ".join(sorted(self.expect or {}))
        text = f"{self.kind.value} {self.seat} {self.action.value if self.action else '?'}"
        if self.amount is not None:
            text += f" {self.amount}"
        if self.kind is StepKind.REJECT:
            text += f" ({self.reason})"
        return text


@dataclass(frozen=True, kw_only=True)
class SetupRefusal:
    """A case whose setup breaks a setup rule: the engine must refuse `new_hand` itself.

    `reasons`: the answers that pass (`bad_request`, plus `unsupported` only if the case allows it).
    `why`: what is wrong with the setup, for the failure message when an engine accepts it.
    """

    reasons: tuple[str, ...]
    why: str


@dataclass(frozen=True, kw_only=True)
class Case:
    """A scenario: setup, the full 52-card deck (top first), steps and the final expectation."""

    id: str
    title: str
    path: Path
    line: int
    rules: tuple[str, ...]
    tags: tuple[str, ...]
    variant: Variant
    #: only the options the case names, with JSON values; the harness fills in the rest
    options: dict[str, Any]
    #: None only in a setup-refusal case (its stakes are in `new_hand`, as written)
    stakes: Stakes | None
    seats: tuple[SeatSetup, ...]
    deck: tuple[Card, ...]
    remade_stub: tuple[Card, ...] | None
    steps: tuple[Step, ...]
    #: keys of `state.result` (pots, rake, returned, showdown_order, stacks); partial
    final: dict[str, Any] | None
    generated: bool
    note: str | None
    #: per-seat cards (None = any card) and burns, when the deck was built from them: kept so the
    #: deck can be dealt again for the burn option an engine actually plays (see `deck_for`)
    seat_cards: dict[int, tuple[Card | None, ...]] | None = None
    burns: tuple[Card | None, ...] = ()
    #: set for a case whose setup the engine must refuse (no steps, no final; seats and deck empty)
    setup_refused: SetupRefusal | None = None
    #: a setup-refusal case's new_hand fields (variant, stakes, seats, deck, remade_stub) exactly as
    #: written, invalid values included: the runner sends them verbatim, with the options and label
    new_hand: Mapping[str, Any] | None = None

    def deck_for(self, options: Options) -> tuple[Card, ...]:
        """The deck that deals this case's cards under `options` (burns shift every later card)."""
        if self.seat_cards is None or options.burn_cards == self.options.get("burn_cards", True):
            return self.deck
        return build_deck(self.seat_cards, self.burns, burn_cards=options.burn_cards, short_stub=options.short_stub,
                          variant=self.variant)

    def options_with(self, defaults: Options) -> Options:
        """The full option set for running this case: `defaults` overridden by the case's options."""
        return Options.from_json(self.options, base=defaults)

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"
