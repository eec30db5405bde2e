"""Build the 52-card deck (top first) from the cards each seat is dealt.

Authors write what each player receives; the deck order that produces it follows from the dealing
procedure of the contract (section 3), which this module simulates. Unspecified cards are filled
with the unused cards in canonical order (2c 2d 2h 2s 3c ...) so the deck is deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from studcheck.cards import FULL_DECK, Card
from studcheck.rules import LAYOUTS, Layout, ShortStub, Street, Variant

DECK_SIZE = 52
MIN_CARDS = 3  # seven-card games; a layout's own are len(opening_faces) and max_cards
MAX_CARDS = 7
#: street on which a seat receives its n-th card (0-based) and whether that card is dealt face up
CARD_STREETS: tuple[Street, ...] = (
    Street.THIRD, Street.THIRD, Street.THIRD, Street.FOURTH, Street.FIFTH, Street.SIXTH, Street.SEVENTH,
)
CARD_FACE_UP: tuple[bool, ...] = (False, False, True, True, True, True, False)
_CARD_NAMES = ("first down card", "second down card", "door card", "fourth-street card",
               "fifth-street card", "sixth-street card", "seventh-street card")
_FIVE_CARD_NAMES = ("down card", "door card", "third-street card", "fourth-street card", "fifth-street card")


class DeckError(ValueError):
    """Cards that no deal can produce; `field` ("seats", "burns", "deck") and `seat` locate it."""

    def __init__(self, message: str, *, field: str = "seats", seat: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.seat = seat


@dataclass(frozen=True, kw_only=True)
class DealPlan:
    """Where in the deck each dealt card comes from (0 = top of the deck)."""

    seat_positions: Mapping[int, tuple[int, ...]]
    burn_positions: tuple[int, ...]
    burn_streets: tuple[Street, ...]
    #: cards taken from the deck before the stub that is left after the last street dealt
    used: int


def card_name(number: int, variant: Variant = Variant.STUD_HIGH) -> str:
    """`card_name(2)` -> "door card": the n-th (0-based) card a seat receives."""
    return (_FIVE_CARD_NAMES if variant is Variant.FIVE_CARD_STUD else _CARD_NAMES)[number]


def card_count_text(variant: Variant = Variant.STUD_HIGH) -> str:
    """How many cards a seat of this variant can list, said the way case authors count streets."""
    layout = LAYOUTS[variant]
    return (f"{len(layout.opening_faces)} ({layout.streets[0].value} street) to {layout.max_cards} "
            f"({layout.last.value} street) cards")


def deal_positions(seat_counts: Mapping[int, int], *, burn_cards: bool = True,
                   short_stub: ShortStub = ShortStub.REMAKE, variant: Variant = Variant.STUD_HIGH) -> DealPlan:
    """Simulate the deal for seats that receive `seat_counts[seat]` cards each.

    A seat listing n cards is dealt streets up to the n-th card (3 = third street only). Raises
    DeckError if no hand can deal those counts or if the last street would need the short-stub
    procedure (per-seat cards cannot say where a remade stub puts the cards; give the full deck).
    """
    layout: Layout = LAYOUTS[variant]
    first = len(layout.opening_faces)
    seats = sorted(seat_counts)
    for seat in seats:
        count = seat_counts[seat]
        if not first <= count <= layout.max_cards:
            raise DeckError(f"seat {seat} lists {count} cards; a seat is dealt {card_count_text(variant)}", seat=seat)
    positions: dict[int, list[int]] = {seat: [] for seat in seats}
    top = 0
    for _ in range(first):
        for seat in seats:
            positions[seat].append(top)
            top += 1
    burns: list[int] = []
    burn_streets: list[Street] = []
    for number, street in enumerate(layout.streets[1:], start=first + 1):
        live = [seat for seat in seats if seat_counts[seat] >= number]
        if not live:
            break
        if len(live) == 1:
            raise DeckError(
                f"only seat {live[0]} is dealt {street.value} street, but a street is dealt only while two or "
                f"more players have not folded: list at most {number - 1} cards for seat {live[0]} or "
                f"{number} for another seat", seat=live[0])
        if street is layout.last:
            _check_stub(DECK_SIZE - top, len(live), street, burn_cards=burn_cards, short_stub=short_stub)
        if burn_cards:
            burns.append(top)
            burn_streets.append(street)
            top += 1
        for seat in live:
            positions[seat].append(top)
            top += 1
    return DealPlan(seat_positions={seat: tuple(p) for seat, p in positions.items()},
                    burn_positions=tuple(burns), burn_streets=tuple(burn_streets), used=top)


def _check_stub(stub: int, live: int, street: Street, *, burn_cards: bool, short_stub: ShortStub) -> None:
    required = live + (1 if burn_cards else 0) + (1 if short_stub is ShortStub.REMAKE else 0)
    if stub < required:
        raise DeckError(
            f"{live} players reach {street.value} street with {stub} card{'' if stub == 1 else 's'} left in the stub, fewer than the {required} "
            f"needed ({short_stub.value} procedure): per-seat cards cannot describe a short stub; "
            f"give the whole deck with `deck:` (and `remade_stub:` if it matters)")


def build_deck(seat_cards: Mapping[int, Sequence[Card | None]], burns: Sequence[Card | None] = (), *,
               burn_cards: bool = True, short_stub: ShortStub = ShortStub.REMAKE,
               variant: Variant = Variant.STUD_HIGH) -> tuple[Card, ...]:
    """The 52-card deck, top first, that deals `seat_cards` (None = any card) and `burns`."""
    plan = deal_positions({seat: len(cards) for seat, cards in seat_cards.items()},
                          burn_cards=burn_cards, short_stub=short_stub, variant=variant)
    if len(burns) > len(plan.burn_positions):
        why = " (burn_cards is false)" if not burn_cards else ""
        raise DeckError(f"{len(burns)} burn card{'' if len(burns) == 1 else 's'} listed but this deal burns only {len(plan.burn_positions)}{why}",
                        field="burns")
    slots: list[Card | None] = [None] * DECK_SIZE
    owners: dict[Card, str] = {}

    def place(position: int, card: Card | None, owner: str, *, field: str, seat: int | None) -> None:
        if card is None:
            return
        if card in owners:
            raise DeckError(f"card {card} is dealt twice: {owners[card]} and {owner}", field=field, seat=seat)
        owners[card] = owner
        slots[position] = card

    for seat in sorted(seat_cards):
        for number, (position, card) in enumerate(zip(plan.seat_positions[seat], seat_cards[seat])):
            place(position, card, f"seat {seat}'s {card_name(number, variant)}", field="seats", seat=seat)
    for number, card in enumerate(burns):
        place(plan.burn_positions[number], card, f"the burn before {plan.burn_streets[number].value} street",
              field="burns", seat=None)
    return fill(slots)


def fill(slots: Sequence[Card | None]) -> tuple[Card, ...]:
    """Replace each None with the next unused card in canonical order."""
    used = {card for card in slots if card is not None}
    filler = iter(card for card in FULL_DECK if card not in used)
    return tuple(card if card is not None else next(filler) for card in slots)


def check_full_deck(cards: Sequence[Card]) -> tuple[Card, ...]:
    """An explicit deck must be the 52 cards, each once."""
    seen: set[Card] = set()
    twice = []
    for card in cards:
        if card in seen:
            twice.append(str(card))
        seen.add(card)
    if twice:
        raise DeckError(f"deck lists {', '.join(twice)} more than once", field="deck")
    if len(cards) != DECK_SIZE:
        missing = [str(card) for card in FULL_DECK if card not in seen]
        raise DeckError(f"deck has {len(cards)} cards, a deck is all {DECK_SIZE} (missing: {' '.join(missing)})",
                        field="deck")
    return tuple(cards)
