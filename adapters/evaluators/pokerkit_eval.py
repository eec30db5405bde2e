#!/usr/bin/env python3
"""studcheck `evaluation` adapter for PokerKit (PyPI and import `pokerkit`): `python pokerkit_eval.py`.

PokerKit's hand classes compare with < (a stronger hand is greater) instead of returning numbers,
so each batch is numbered by sorting (weakest 0, equal hands equal numbers): every kind is
"higher". Each hand is built with `Hand.from_game(cards)`, which takes the best of all its
five-card combinations:

- `high`: `StandardHighHand.from_game`;
- `razz`: `RegularLowHand.from_game` (A-5 low, "flushes are ignored");
- `low8`: `EightOrBetterLowHand.from_game_or_none`, None (JSON null) = no qualifying low.

Fewer than five cards raise ValueError ("No valid ... hand"), answered `unsupported`. PokerKit
ranks exposed boards and door cards only privately inside `State` (the opener of a stud street),
with no public function, so no `exposed_*` or `bring_in*` kind is declared.
"""

from __future__ import annotations

from importlib.metadata import version

from _protocol import CARD_NAMES, Kind, Value, number_by_sorting, serve
from pokerkit import Card, EightOrBetterLowHand, Hand, RegularLowHand, StandardHighHand

CARDS: dict[str, Card] = {name: next(Card.parse(name)) for name in CARD_NAMES}


def best(hand_class: type[Hand]) -> Kind:
    """`hand_class.from_game(cards)` on every hand, numbered by sorting the batch."""
    from_game = hand_class.from_game

    def evaluate(hands: list[list[Card]]) -> list[Value]:
        return number_by_sorting([from_game(hand) for hand in hands])

    return Kind("higher", evaluate)


def low8(hands: list[list[Card]]) -> list[Value]:
    """`EightOrBetterLowHand.from_game_or_none(cards)`: None where no eight-or-better low exists."""
    from_game_or_none = EightOrBetterLowHand.from_game_or_none
    return number_by_sorting([from_game_or_none(hand) for hand in hands])


if __name__ == "__main__":
    serve("pokerkit", version("pokerkit"), CARDS,
          {"high": best(StandardHighHand), "razz": best(RegularLowHand), "low8": Kind("higher", low8)})
