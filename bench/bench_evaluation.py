"""Evaluations per second of seven-card hands: studcheck.evaluate against PokerKit.

Both libraries see the same seeded random seven-card hands. PokerKit gets pre-parsed cards (only
evaluation is timed) and a prefix of the hands, because it is slow. While measuring, the values
both return are kept and compared: on every consecutive pair of hands the two libraries must name
the same winner (or a tie), otherwise the row is WRONG and the speed is meaningless.

studcheck fills its memo tables lazily (one entry per rank multiset). The first pass over the hands
("cold", tables empty) is reported in the notes; then every 7-card rank multiset (49,205 of them) is
evaluated once, timed and reported as the one-time fill cost, so that the timed passes measure the
steady state of any long run (the fuzzer) on any hands, seen before or not.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bench_common import Row, Verdict, at_least, best_of, best_of_pair
from studcheck.cards import FULL_DECK, Card
from studcheck.evaluate import high_value, low8_value, razz_value

Cards = tuple[Card, ...]
Evaluator = Callable[[Any], Any]
TARGET = 100.0


@dataclass(frozen=True, kw_only=True)
class EvalConfig:
    hands: int  # studcheck evaluates all of them
    pokerkit_hands: int  # PokerKit evaluates this prefix; agreement is checked on it
    repeat: int
    seed: int
    #: how many rank multisets the one-time fill evaluates: None for all 49,205 (the benchmark); the
    #: smoke test fills a few, since only the plumbing is checked there
    fill: int | None = None


KINDS: dict[str, tuple[str, Evaluator]] = {
    "high": ("7-card high (Stud)", high_value),
    "razz": ("7-card A-5 low (Razz)", razz_value),
    "low8": ("7-card 8-or-better low", low8_value),
}


def seeded_hands(count: int, seed: int) -> list[Cards]:
    rng = random.Random(seed)
    return [tuple(rng.sample(FULL_DECK, 7)) for _ in range(count)]


def pokerkit_evaluators() -> dict[str, Evaluator]:
    """PokerKit's best-five evaluators; None (not an exception) for a missing 8-or-better low."""
    from pokerkit import EightOrBetterLowHand, RegularLowHand, StandardHighHand

    return {
        "high": StandardHighHand.from_game,
        "razz": RegularLowHand.from_game,
        "low8": EightOrBetterLowHand.from_game_or_none,
    }


def to_pokerkit(hands: Sequence[Cards]) -> list[tuple[Any, ...]]:
    from pokerkit import Card as PkCard

    return [tuple(PkCard.parse("".join(str(card) for card in hand))) for hand in hands]


def _sign(a: Any, b: Any) -> int:
    """-1, 0, 1: which of two values is better; None (no qualifying low) loses to any hand."""
    if a is None or b is None:
        return (a is not None) - (b is not None)
    return int(a > b) - int(a < b)


def disagreements(ours: Sequence[Any], theirs: Sequence[Any]) -> int:
    """Consecutive pairs on which the winners differ (both libraries: greater = better, lows too)."""
    return sum(
        _sign(ours[i], ours[i + 1]) != _sign(theirs[i], theirs[i + 1]) for i in range(min(len(ours), len(theirs)) - 1)
    )


def _pass(evaluate: Evaluator, hands: Sequence[Any]) -> list[Any]:
    return [evaluate(hand) for hand in hands]


def rank_multiset_hands() -> list[Cards]:
    """One flush-free 7-card hand per multiset of 7 ranks (at most 4 of a rank): suits cycle
    c, d, h, s over the cards, so no suit holds more than two of them."""
    hands: list[Cards] = []

    def extend(rank: int, left: int, counts: list[int]) -> None:
        if left == 0:
            ranks = [r for r, count in enumerate(counts) for _ in range(count)]
            hands.append(tuple(FULL_DECK[4 * r + k % 4] for k, r in enumerate(ranks)))
            return
        if rank == 13:
            return
        for count in range(min(4, left), -1, -1):
            extend(rank + 1, left - count, counts + [count])

    extend(0, 7, [])
    return hands


def fill_tables(limit: int | None = None) -> tuple[int, float]:
    """Evaluate every rank multiset (or the first `limit`) with every evaluator; (hands, seconds)."""
    hands = rank_multiset_hands()[:limit]
    start = time.perf_counter()
    for _, evaluate in KINDS.values():
        _pass(evaluate, hands)
    return len(hands), time.perf_counter() - start


def _rate(evaluate: Evaluator, hands: Sequence[Any]) -> float:
    start = time.perf_counter()
    _pass(evaluate, hands)
    return len(hands) / (time.perf_counter() - start)


def measure(config: EvalConfig, *, with_pokerkit: bool) -> list[Row]:
    hands = seeded_hands(config.hands, config.seed)
    sample = hands[: config.pokerkit_hands]
    theirs = pokerkit_evaluators() if with_pokerkit else {}
    pk_hands = to_pokerkit(sample) if with_pokerkit else []
    cold = {kind: _rate(evaluate, hands) for kind, (_, evaluate) in KINDS.items()}  # tables empty
    multisets, fill_seconds = fill_tables(config.fill)
    rows = []
    for kind, (label, evaluate) in KINDS.items():
        extra: dict[str, Any] = {"cold": cold[kind], "hands": len(hands), "seed": config.seed,
                                 "fill_multisets": multisets, "fill_seconds": fill_seconds}
        shared = " (Razz tables, already filled)" if kind == "low8" else ""
        note = (f"tables full (one-time fill of all: {fill_seconds:.2f} s); first pass on empty tables"
                f"{shared}: {cold[kind]:,.0f}/s")
        if not with_pokerkit:
            seconds, _ = best_of(lambda: _pass(evaluate, hands), config.repeat)
            rows.append(Row(key=f"eval.{kind}", label=label, unit="evals/s", studcheck=len(hands) / seconds,
                            other=None, target=f">= {TARGET:g}x", verdict=Verdict.SKIP,
                            note=f"{note}; PokerKit not installed", extra=extra))
            continue
        pk = theirs[kind]
        _pass(pk, pk_hands[:50])  # warm-up
        (seconds, values), (pk_seconds, pk_values) = best_of_pair(
            lambda: _pass(evaluate, hands), lambda: _pass(pk, pk_hands), config.repeat
        )
        warm, rate = len(hands) / seconds, len(pk_hands) / pk_seconds
        wrong = disagreements(values[: len(sample)], pk_values)
        ratio = warm / rate
        extra.update(pokerkit_hands=len(pk_hands), disagreements=wrong, pairs=max(0, len(pk_hands) - 1))
        note += f"; winners agree on {len(pk_hands) - 1 - wrong}/{len(pk_hands) - 1} pairs"
        rows.append(Row(key=f"eval.{kind}", label=label, unit="evals/s", studcheck=warm, other=rate, ratio=ratio,
                        target=f">= {TARGET:g}x", verdict=Verdict.WRONG if wrong else at_least(ratio, TARGET),
                        note=note, extra=extra))
    return rows
