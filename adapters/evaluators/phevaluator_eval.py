#!/usr/bin/env python3
"""studcheck `evaluation` adapter for phevaluator (PyPI and import `phevaluator`): `python phevaluator_eval.py`.

PokerHandEvaluator's Python binding: `evaluate_cards(*cards)` ranks the best five of 5, 6 or 7
cards, 1 (royal flush) to 7462, "smaller is stronger". Other counts raise ValueError (answered
`unsupported`). It has no low and no exposed-board ranking (its other functions are Omaha), so
only `high` is declared. Cards are passed as its integer ids, `rank * 4 + suit` (2..A, c d h s).
"""

from __future__ import annotations

from importlib.metadata import version

from _protocol import CARD_NAMES, Kind, serve
from phevaluator import evaluate_cards

CARDS: dict[str, int] = {name: index for index, name in enumerate(CARD_NAMES)}  # rank * 4 + suit


def high(hands: list[list[int]]) -> list[int]:
    """`phevaluator.evaluate_cards(*cards)`: the best five of the hand, 1 = royal flush."""
    return [evaluate_cards(*hand) for hand in hands]


if __name__ == "__main__":
    serve("phevaluator", version("phevaluator"), CARDS, {"high": Kind("lower", high)})
