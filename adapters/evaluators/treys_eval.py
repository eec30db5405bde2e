#!/usr/bin/env python3
"""studcheck `evaluation` adapter for treys (PyPI `treys`, import `treys`): `python treys_eval.py`.

treys is a hold'em evaluator (Cactus Kev tables): `Evaluator().evaluate(hand, board)` ranks the
best five of 5, 6 or 7 cards, 1 (royal flush) to 7462, lower is better. It has no low and no
exposed-board ranking, so only `high` is declared. It concatenates `hand + board`, so a stud hand
is passed whole as `hand` with an empty board; other card counts raise KeyError (answered
`unsupported`).
"""

from __future__ import annotations

from importlib.metadata import version

from _protocol import CARD_NAMES, Kind, serve
from treys import Card, Evaluator

CARDS: dict[str, int] = {name: Card.new(name) for name in CARD_NAMES}
EVALUATOR = Evaluator()


def high(hands: list[list[int]]) -> list[int]:
    """`Evaluator.evaluate(hand, board)`: the best five of the hand, 1 = royal flush."""
    evaluate = EVALUATOR.evaluate
    return [evaluate(hand, []) for hand in hands]


if __name__ == "__main__":
    serve("treys", version("treys"), CARDS, {"high": Kind("lower", high)})
