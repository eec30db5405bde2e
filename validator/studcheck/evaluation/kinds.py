"""The kinds of the evaluation profile and the reference's key for each (spec/evaluation.md section 2).

A key is what the reference ranks an item by: a **higher key is chosen first** (the better hand,
the board that acts first, the card that brings in), equal keys tie. Keys come from evaluate.py,
the same functions the reference engine plays showdowns, first actors and bring-ins with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from studcheck.cards import Card, Rank
from studcheck.evaluate import exposed_high_key, exposed_low_key, high_value, low8_value, razz_value

Key = tuple[int, ...]


class Kind(str, Enum):
    HIGH = "high"
    RAZZ = "razz"
    LOW8 = "low8"
    EXPOSED_HIGH = "exposed_high"
    EXPOSED_LOW = "exposed_low"
    BRING_IN = "bring_in"
    BRING_IN_RAZZ = "bring_in_razz"


@dataclass(frozen=True, kw_only=True)
class KindSpec:
    """What one kind evaluates: how many cards an item has, what the rules choose, and the rules."""

    kind: Kind
    cards: tuple[int, int]  # fewest, most
    chooses: str  # what a higher key is, in words
    rules: tuple[str, ...]
    key: Callable[[Sequence[Card]], Key]


def _high(cards: Sequence[Card]) -> Key:
    return (high_value(cards),)


def _razz(cards: Sequence[Card]) -> Key:
    return (razz_value(cards),)


def _low8(cards: Sequence[Card]) -> Key:
    """No qualifying low is below every low (a key of its own, shorter than a low's)."""
    value = low8_value(cards)
    return (0,) if value is None else (1, value)


def _ace_low(card: Card) -> int:
    return 1 if card.rank is Rank.ACE else int(card.rank)


def _bring_in(cards: Sequence[Card]) -> Key:
    """BRING-IN.CARD.LOW and BRING-IN.TIE.SUIT: the lowest rank (ace high), then the lowest suit."""
    (card,) = cards
    return (-int(card.rank), -card.suit.order)


def _bring_in_razz(cards: Sequence[Card]) -> Key:
    """BRING-IN.CARD.HIGH and BRING-IN.TIE.SUIT: the highest rank (ace low), then the highest suit."""
    (card,) = cards
    return (_ace_low(card), card.suit.order)


SPECS: dict[Kind, KindSpec] = {
    spec.kind: spec
    for spec in (
        KindSpec(kind=Kind.HIGH, cards=(5, 7), chooses="the better high hand", key=_high,
                 rules=("HAND.HIGH.BEST-FIVE", "HAND.HIGH.RANKING", "HAND.HIGH.WHEEL", "HAND.HIGH.KICKERS")),
        KindSpec(kind=Kind.RAZZ, cards=(5, 7), chooses="the better (lower) A-5 low", key=_razz, rules=("HAND.LOW.A5",)),
        KindSpec(kind=Kind.LOW8, cards=(5, 7), chooses="the better qualifying low", key=_low8, rules=("HAND.LOW.EIGHT",)),
        KindSpec(kind=Kind.EXPOSED_HIGH, cards=(2, 4), chooses="the board that acts first",
                 key=lambda cards: exposed_high_key(cards), rules=("BET.FIRST-ACTOR.EXPOSED-RANKING",)),
        KindSpec(kind=Kind.EXPOSED_LOW, cards=(2, 4), chooses="the Razz board that acts first",
                 key=lambda cards: exposed_low_key(cards), rules=("BET.FIRST-ACTOR.EXPOSED-RANKING",)),
        KindSpec(kind=Kind.BRING_IN, cards=(1, 1), chooses="the card that brings in", key=_bring_in,
                 rules=("BRING-IN.CARD.LOW", "BRING-IN.TIE.SUIT")),
        KindSpec(kind=Kind.BRING_IN_RAZZ, cards=(1, 1), chooses="the card that brings in in Razz", key=_bring_in_razz,
                 rules=("BRING-IN.CARD.HIGH", "BRING-IN.TIE.SUIT")),
    )
}


def reference_key(kind: Kind, cards: Sequence[Card]) -> Key:
    """The reference's key of one item; raises ValueError for a card count the kind does not take."""
    spec = SPECS[kind]
    low, high = spec.cards
    if not low <= len(cards) <= high:
        raise ValueError(f"a {kind.value} item has {low} to {high} cards, got {len(cards)}")
    if len(set(cards)) != len(cards):
        raise ValueError(f"a card appears twice in one {kind.value} item")
    return spec.key(cards)


def key_as_value(kind: Kind, key: Key) -> int | list[int] | None:
    """A reference key as an answer's value, direction `higher` (what `studcheck serve` answers):
    one number as an integer, no qualifying low as null, a board's or a card's key as a list."""
    if kind is Kind.LOW8:
        return None if key == (0,) else key[1]
    if len(key) == 1:
        return key[0]
    return list(key)


def value_as_key(kind: Kind, value: int | list[int] | None) -> Key:
    """The inverse of `key_as_value` (the reference's own answers back as keys)."""
    if kind is Kind.LOW8:
        return (0,) if value is None else (1, int(value))  # type: ignore[arg-type]
    if isinstance(value, list):
        return tuple(value)
    assert value is not None
    return (value,)
