"""Evaluations per second of studcheck.evaluate, side by side with PokerKit when it is installed.

Usage: python bench/bench_eval.py [--hands 20000] [--seed 2026] [--repeat 5]

Every evaluator sees the same seeded random seven-card hands. "cold" is the first pass over the
hands (studcheck fills its memo tables lazily), "warm" the best of --repeat later passes. PokerKit
(StandardHighHand / RegularLowHand / EightOrBetterLowHand .from_game) gets pre-parsed cards, so
only evaluation is timed; it also serves as an independent check: on consecutive hand pairs both
libraries must agree on which hand wins.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from studcheck.cards import FULL_DECK, Card
from studcheck.evaluate import high_value, high_value_indices, low8_value, razz_value

Hand = tuple[Card, ...]


def rate(evaluate: Callable[[Any], object], hands: Sequence[Any], repeat: int) -> tuple[float, float]:
    """(cold, warm) evaluations per second."""
    start = time.perf_counter()
    for hand in hands:
        evaluate(hand)
    cold = len(hands) / (time.perf_counter() - start)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for hand in hands:
            evaluate(hand)
        best = min(best, time.perf_counter() - start)
    return cold, len(hands) / best


def _pokerkit() -> dict[str, Callable[[Any], object]] | None:
    try:
        from pokerkit import EightOrBetterLowHand, RegularLowHand, StandardHighHand
    except ImportError:
        return None

    def low8(cards: Any) -> object:
        try:
            return EightOrBetterLowHand.from_game(cards)
        except ValueError:  # PokerKit raises when no qualifying low exists
            return None

    return {"high": StandardHighHand.from_game, "razz": RegularLowHand.from_game, "low8": low8}


def _sign(a: Any, b: Any) -> int:
    if a is None or b is None:
        return (a is not None) - (b is not None)
    return int(a > b) - int(a < b)


def agreement(ours: Callable[[Hand], Any], theirs: Callable[[Any], Any], hands: Sequence[Hand],
              pk_hands: Sequence[Any]) -> int:
    """Number of consecutive pairs on which the two libraries disagree about the winner.

    PokerKit hands compare "greater = better" for lows too, like ours; no low (None) loses.
    """
    mine = [ours(h) for h in hands]
    other = [theirs(h) for h in pk_hands]
    return sum(_sign(mine[i], mine[i + 1]) != _sign(other[i], other[i + 1]) for i in range(len(hands) - 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--pokerkit-hands", type=int, default=3_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    hands: list[Hand] = [tuple(rng.sample(FULL_DECK, 7)) for _ in range(args.hands)]
    index_hands = [[c.index for c in hand] for hand in hands]

    ours: dict[str, tuple[float, float]] = {
        "high": rate(high_value, hands, args.repeat),
        "razz": rate(razz_value, hands, args.repeat),
        "low8": rate(low8_value, hands, args.repeat),
    }
    high_indices = rate(high_value_indices, index_hands, args.repeat)
    print(f"{args.hands} seeded 7-card hands (seed {args.seed}); evals/s, cold = first pass (lazy tables)")
    for name, (cold, warm) in ours.items():
        print(f"  studcheck {name:5} cold {cold:12,.0f}   warm {warm:12,.0f}")
    print(f"  studcheck high on indices   warm {high_indices[1]:12,.0f}")

    pk = _pokerkit()
    if pk is None:
        print("PokerKit not importable: pip install pokerkit to compare")
        return
    from pokerkit import Card as PkCard

    sample = hands[: args.pokerkit_hands]
    pk_hands = [tuple(PkCard.parse("".join(str(c) for c in hand))) for hand in sample]
    evaluators = {"high": high_value, "razz": razz_value, "low8": low8_value}
    print(f"PokerKit on the first {len(sample)} hands (pre-parsed cards):")
    for name, evaluate in pk.items():
        _, warm = rate(evaluate, pk_hands, 1)
        mismatches = agreement(evaluators[name], evaluate, sample, pk_hands)
        print(f"  pokerkit  {name:5} {warm:12,.0f}/s   studcheck warm is {ours[name][1] / warm:6.0f}x"
              f"   disagreements on {len(sample) - 1} hand pairs: {mismatches}")


if __name__ == "__main__":
    main()
