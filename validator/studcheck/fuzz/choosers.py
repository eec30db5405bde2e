"""Where the fuzzer's random decisions come from: one bounded integer at a time.

The search asks a `RandomChooser` (a seeded `random.Random`: cheap, and it records every choice);
shrinking replays a recorded choice list through Hypothesis (shrink.py), which then minimises it.
Both sides see exactly the same sequence of `integer(low, high)` calls, so a recorded list
replays as the same hand. A choice with a single possible value is never asked for or recorded
(Hypothesis and the recording must agree on what counts as a choice).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")


class Chooser(Protocol):
    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high]; `low` is the simplest (what shrinking moves towards)."""
        ...


def pick(choose: Chooser, items: Sequence[T]) -> T:
    """One of `items`; the first is the simplest."""
    return items[choose.integer(0, len(items) - 1)]


def shuffle(choose: Chooser, items: Sequence[T]) -> tuple[T, ...]:
    """A permutation of `items` (Fisher-Yates); all-simplest choices keep the original order."""
    out = list(items)
    last = len(out) - 1
    for index in range(last):
        other = choose.integer(index, last)
        out[index], out[other] = out[other], out[index]
    return tuple(out)


class RandomChooser:
    """Seeded choices for the search, recorded so the hand can be replayed through Hypothesis."""

    def __init__(self, seed: str) -> None:
        self._random = random.Random(seed).random  # str seeds hash with SHA-512: the same on every run
        self.choices: list[int] = []

    def integer(self, low: int, high: int) -> int:
        if high <= low:
            return low
        value = low + int(self._random() * (high - low + 1))
        self.choices.append(value)
        return value


def hand_seed(seed: int, hand: int) -> str:
    """The seed of generated hand number `hand` (1-based) of a run: each hand can be regenerated alone."""
    return f"studcheck-fuzz:{seed}:{hand}"
