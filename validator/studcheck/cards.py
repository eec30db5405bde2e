"""Cards and their two-character text form (`As`, `Td`, `2c`).

Only the canonical form is accepted: `10h` is refused so that a scenario file has exactly one
spelling for every card and a diff of two decks is a diff of their cards.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum, IntEnum


class CardError(ValueError):
    """A card text that is not one of the 52 canonical two-character cards."""


class Rank(IntEnum):
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def char(self) -> str:
        return RANK_CHARS[self.value - 2]


class Suit(str, Enum):
    """Suits in bring-in order: clubs < diamonds < hearts < spades (bridge order)."""

    CLUBS = "c"
    DIAMONDS = "d"
    HEARTS = "h"
    SPADES = "s"

    @property
    def order(self) -> int:
        return SUIT_CHARS.index(self.value)


RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"


@dataclass(frozen=True, order=False)
class Card:
    rank: Rank
    suit: Suit
    #: 0..51 in canonical order 2c 2d 2h 2s 3c ... As (rank first, then suit); stored, since
    #: evaluators index tables with it on hot paths.
    index: int = field(init=False, compare=False, repr=False)
    text: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", (self.rank - 2) * 4 + self.suit.order)
        object.__setattr__(self, "text", self.rank.char + self.suit.value)

    def __hash__(self) -> int:  # equal cards have equal indices; cheaper than hashing the fields
        return self.index

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"


FULL_DECK: tuple[Card, ...] = tuple(Card(rank=Rank(r), suit=Suit(s)) for r in range(2, 15) for s in SUIT_CHARS)
_BY_TEXT: dict[str, Card] = {str(card): card for card in FULL_DECK}


def parse_card(text: str) -> Card:
    """Parse one card; the error says what is wrong, not just that it is wrong."""
    if not isinstance(text, str):
        raise CardError(f"card must be a string like 'As', got {text!r}")
    card = _BY_TEXT.get(text)
    if card is not None:
        return card
    if text.startswith("10"):
        raise CardError(f"invalid card {text!r}: use T for ten (e.g. 'Th')")
    if len(text) != 2:
        raise CardError(f"invalid card {text!r}: a card is two characters, rank then suit, e.g. 'As' or 'Td'")
    rank, suit = text[0], text[1]
    if rank not in RANK_CHARS:
        hint = " (ranks are upper case)" if rank.upper() in RANK_CHARS else ""
        raise CardError(f"invalid card {text!r}: rank {rank!r} is not one of {RANK_CHARS}{hint}")
    hint = " (suits are lower case)" if suit.lower() in SUIT_CHARS else ""
    raise CardError(f"invalid card {text!r}: suit {suit!r} is not one of c d h s{hint}")


def parse_cards(cards: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse `"As Kd"` or `["As", "Kd"]`."""
    items = cards.split() if isinstance(cards, str) else list(cards)
    return tuple(parse_card(item) for item in items)


def card_by_index(index: int) -> Card:
    return FULL_DECK[index]


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(card) for card in cards)
