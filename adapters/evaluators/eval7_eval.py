#!/usr/bin/env python3
"""studcheck `evaluation` adapter for eval7 (PyPI and import `eval7`): `python eval7_eval.py`.

eval7 is a hold'em evaluator in Cython: `eval7.evaluate(cards)` returns a number, "higher numeric
values indicate stronger hands". Its docstring asks for 5 to 7 cards, but it ranks any number of
cards without raising (1 to 4 cards give high card, pair, trips and quads values), so besides
`high` it is declared for `exposed_high` (boards of 1 to 4 up cards). No low.
"""

from __future__ import annotations

from importlib.metadata import version

import eval7
from _protocol import CARD_NAMES, Kind, serve

CARDS: dict[str, eval7.Card] = {name: eval7.Card(name) for name in CARD_NAMES}


def evaluate(hands: list[list[eval7.Card]]) -> list[int]:
    """`eval7.evaluate(cards)` on every hand or board, higher is stronger."""
    evaluate = eval7.evaluate
    return [evaluate(hand) for hand in hands]


if __name__ == "__main__":
    serve("eval7", version("eval7"), CARDS,
          {"high": Kind("higher", evaluate), "exposed_high": Kind("higher", evaluate)})
