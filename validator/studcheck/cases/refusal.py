"""Setup-refusal cases: which setup rules a raw `new_hand` setup breaks.

A setup-refusal case writes an invalid setup on purpose. Lint uses `setup_violations` to check that
the setup really is invalid and that it breaks exactly the rules the case cites, and the runner
uses the same text to say why an engine that accepted the hand is wrong.

Each problem belongs to one rule: a deck entry that is not a card breaks CARDS.NOTATION only; the
deck's length and duplicated cards (among the entries that are cards) break SETUP.DECK.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from studcheck.cards import CardError, FULL_DECK, parse_card
from studcheck.cases.source import show
from studcheck.rules import LAYOUTS, MAX_SEATS, MIN_SEATS, SetupError, Stakes, Variant

PLAYERS = "SETUP.PLAYERS"
FIVE_PLAYERS = "FIVE.PLAYERS"  # five-card stud's own seat rule (2 to 10 seats)
STAKES = "SETUP.STAKES"
STACKS = "SETUP.STACKS"
DECK = "SETUP.DECK"
NOTATION = "CARDS.NOTATION"
#: the rules a setup-refusal case may cite
SETUP_RULES = frozenset({PLAYERS, FIVE_PLAYERS, STAKES, STACKS, DECK, NOTATION})
STAKE_NAMES = ("ante", "bring_in", "small_bet", "big_bet")
#: the canonical 52-card deck, sent when a setup-refusal case gives no deck
CANONICAL_DECK = tuple(str(card) for card in FULL_DECK)


@dataclass(frozen=True, kw_only=True)
class Violation:
    """One broken setup rule: `rule` is None for a value no rule covers (an unknown variant)."""

    rule: str | None
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def setup_violations(setup: Mapping[str, Any]) -> list[Violation]:
    """Every setup rule that the new_hand fields `setup` break (empty: the setup is valid)."""
    found: list[Violation] = []
    variant = setup.get("variant")
    if variant not in {v.value for v in Variant}:
        known = ", ".join(v.value for v in Variant)
        found.append(Violation(rule=None, field="variant", message=f"unknown variant {show(variant)} (known: {known})"))
    found += _stakes(setup.get("stakes"))
    seat_rule = FIVE_PLAYERS if variant == Variant.FIVE_CARD_STUD.value else PLAYERS
    found += _seats(setup.get("seats"), _max_seats(variant), seat_rule)
    found += _cards("deck", setup.get("deck"), full=True)
    if setup.get("remade_stub") is not None:
        found += _cards("remade_stub", setup.get("remade_stub"), full=False)
    return found


def _stakes(stakes: Any) -> list[Violation]:
    if not isinstance(stakes, Mapping) or set(stakes) != set(STAKE_NAMES):
        return [Violation(rule=STAKES, field="stakes", message=f"needs exactly {', '.join(STAKE_NAMES)}")]
    found = [Violation(rule=STAKES, field=f"stakes.{name}", message=f"must be a whole number of chips, got {show(stakes[name])}")
             for name in STAKE_NAMES if not _whole(stakes[name])]
    if found:
        return found
    try:
        Stakes(**{name: stakes[name] for name in STAKE_NAMES})
    except SetupError as exc:
        return [Violation(rule=STAKES, field=exc.field, message=exc.message)]
    return []


def _max_seats(variant: Any) -> int:
    """Five-card stud seats 10, the seven-card games (and an unknown variant) 8."""
    known = {v.value: v for v in Variant}
    return LAYOUTS[known[variant]].max_seats if variant in known else MAX_SEATS


def _seats(seats: Any, max_seats: int = MAX_SEATS, rule: str = PLAYERS) -> list[Violation]:
    if not isinstance(seats, list):
        return [Violation(rule=rule, field="seats", message="must be a list of {seat, stack}")]
    found: list[Violation] = []
    if not MIN_SEATS <= len(seats) <= max_seats:
        found.append(Violation(rule=rule, field="seats",
                               message=f"a hand needs {MIN_SEATS} to {max_seats} seated players, got {len(seats)}"))
    seen: set[Any] = set()
    for position, entry in enumerate(seats):
        seat: Any = entry.get("seat") if isinstance(entry, Mapping) else None
        stack: Any = entry.get("stack") if isinstance(entry, Mapping) else None
        if not _whole(seat) or not 1 <= seat <= max_seats:
            found.append(Violation(rule=rule, field=f"seats[{position}].seat",
                                   message=f"must be a seat number from 1 to {max_seats}, got {show(seat)}"))
        elif seat in seen:
            found.append(Violation(rule=rule, field=f"seats[{position}].seat", message=f"seat {seat} is listed twice"))
        seen.add(seat if _whole(seat) else repr(seat))
        if not _whole(stack) or stack <= 0:
            found.append(Violation(rule=STACKS, field=f"seats[{position}].stack",
                                   message=f"must be a whole number of chips > 0, got {show(stack)}"))
    return found


def _cards(name: str, cards: Any, *, full: bool) -> list[Violation]:
    if not isinstance(cards, list):
        return [Violation(rule=DECK, field=name, message="must be a list of cards")]
    found: list[Violation] = []
    if full and len(cards) != len(CANONICAL_DECK):
        found.append(Violation(rule=DECK, field=name, message=f"must list all 52 cards, got {len(cards)}"))
    seen: set[str] = set()
    for position, text in enumerate(cards):
        try:
            card = str(parse_card(text))
        except CardError as exc:
            found.append(Violation(rule=NOTATION, field=f"{name}[{position}]", message=str(exc)))
            continue
        if card in seen:
            found.append(Violation(rule=DECK, field=f"{name}[{position}]", message=f"card {card} appears twice"))
        seen.add(card)
    return found


def describe(violations: list[Violation]) -> str:
    """One line: every violation, `field: message; ...`."""
    return "; ".join(str(item) for item in violations)
