"""The rule a disagreeing pair breaks, as the reference explains the pair (spec/evaluation.md section 4).

The pair is already as small as the engine's answers allowed (the harness drops cards while the
engine still disagrees), and the harness has asked the engine about the two hands' best fives:
`best_fives_agree` is True when the engine ranks those right although it ranks the whole hands
wrong, which can only mean it chose the wrong five or let a sixth card count (HAND.*.BEST-FIVE's
"only five cards count"). Otherwise the pair itself says which rule: what separates the two hands
in the reference's ranking (a category, a kicker, the wheel, a qualifier, a suit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from studcheck.cards import Card, format_cards
from studcheck.evaluate import (
    HandCategory,
    describe_high,
    describe_low,
    high_best_five,
    high_category,
    high_value,
    low8_best_five,
    low8_value,
    razz_best_five,
    razz_value,
)
from studcheck.evaluation.kinds import Kind
from studcheck.evaluation.order import Disagreement, Relation

#: five-card runs that go round the corner through the ace: not straights (HAND.HIGH.WHEEL)
_WRAPS = ({12, 13, 14, 2, 3}, {11, 12, 13, 14, 2}, {13, 14, 2, 3, 4})
_WHEEL = {14, 2, 3, 4, 5}


@dataclass(frozen=True, kw_only=True)
class Explanation:
    rules: tuple[str, ...]  # most specific first
    aspect: str  # what about the pair the rule decides: "category", "kickers", "wheel", "best five", ...


def best_five(kind: Kind, cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """The five cards the reference's value of `cards` is made of (None: no qualifying low, or a
    kind whose items are not hands)."""
    if kind is Kind.HIGH:
        return high_best_five(cards)
    if kind is Kind.RAZZ:
        return razz_best_five(cards)
    if kind is Kind.LOW8:
        return low8_best_five(cards)
    return None


def describe(kind: Kind, cards: Sequence[Card]) -> str:
    """What the reference sees in one item, for a reader: `Straight, five high`, `no low`."""
    if kind is Kind.HIGH:
        return describe_high(high_value(cards))
    if kind is Kind.RAZZ:
        return describe_low(razz_value(cards))
    if kind is Kind.LOW8:
        value = low8_value(cards)
        return "no qualifying low" if value is None else describe_low(value)
    if kind in (Kind.EXPOSED_HIGH, Kind.EXPOSED_LOW):
        counts = sorted((sum(1 for c in cards if c.rank is card.rank) for card in cards), reverse=True)
        shape = {4: "four of a kind", 3: "three of a kind"}.get(counts[0]) or (
            "two pair" if counts.count(2) >= 4 else "one pair" if counts[0] == 2 else "no pair")
        return f"board {format_cards(cards)}: {shape}"
    return f"door card {format_cards(cards)}"


def explain(kind: Kind, first: Sequence[Card], second: Sequence[Card] | None, disagreement: Disagreement, *,
            best_fives_agree: bool | None = None) -> Explanation:
    """The rules the engine's disagreement on (`first`, `second`) breaks, most specific first."""
    if kind is Kind.LOW8:
        return Explanation(rules=("HAND.LOW.EIGHT",), aspect="qualifier" if second is None else
                           "best five" if best_fives_agree else "order")
    assert second is not None
    if kind is Kind.RAZZ:
        return Explanation(rules=("HAND.LOW.A5",), aspect="best five" if best_fives_agree else "order")
    if kind in (Kind.EXPOSED_HIGH, Kind.EXPOSED_LOW):
        return Explanation(rules=("BET.FIRST-ACTOR.EXPOSED-RANKING",), aspect="board")
    if kind in (Kind.BRING_IN, Kind.BRING_IN_RAZZ):
        card_rule = "BRING-IN.CARD.LOW" if kind is Kind.BRING_IN else "BRING-IN.CARD.HIGH"
        if first[0].rank is second[0].rank:
            return Explanation(rules=("BRING-IN.TIE.SUIT", card_rule), aspect="suit")
        return Explanation(rules=(card_rule, "BRING-IN.TIE.SUIT"), aspect="rank")
    return _explain_high(first, second, disagreement, best_fives_agree=best_fives_agree)


def _explain_high(first: Sequence[Card], second: Sequence[Card], disagreement: Disagreement, *,
                  best_fives_agree: bool | None) -> Explanation:
    """`first` is the hand the rules choose first (or the first of two tied hands)."""
    if best_fives_agree:
        return Explanation(rules=("HAND.HIGH.BEST-FIVE", "HAND.HIGH.KICKERS"), aspect="best five")
    values = high_value(first), high_value(second)
    fives = high_best_five(first), high_best_five(second)
    if disagreement.expected is Relation.ABOVE:
        # the rules rank `first` higher: a wheel the engine did not see as the straight it is, or a
        # wheel or a run round the corner the engine ranked too high
        same = high_category(values[0]) == high_category(values[1])
        under_wheel = _is_wheel(fives[0], values[0])  # seen as ace high, or below its own category
        over_wheel = same and _is_wheel(fives[1], values[1])  # ranked as the top straight (flush) of its kind
        # a run round the corner seen as a straight: a category above its own, or above an equal
        # hand the rules rank higher (a "straight flush" K-A-2-3-4 over the flush A-K-x-x-x)
        wrap = (not same or disagreement.actual is Relation.BELOW) and any(_ranks(second) >= run for run in _WRAPS)
        if under_wheel or over_wheel or wrap:
            return Explanation(rules=("HAND.HIGH.WHEEL", "HAND.HIGH.RANKING"), aspect="wheel")
        if high_category(values[0]) != high_category(values[1]):
            return Explanation(rules=("HAND.HIGH.RANKING", "HAND.HIGH.BEST-FIVE"), aspect="category")
        return Explanation(rules=("HAND.HIGH.KICKERS",), aspect="kickers")
    if best_fives_agree is None and (len(first) > 5 or len(second) > 5) and _ranks_list(first) != _ranks_list(second):
        # a tie in the best fives with other cards beside them, and the engine was not asked about
        # the fives (it refused them): a card outside the five counted
        return Explanation(rules=("HAND.HIGH.BEST-FIVE", "HAND.HIGH.KICKERS"), aspect="best five")
    return Explanation(rules=("HAND.HIGH.KICKERS",), aspect="suits" if _ranks_list(fives[0]) == _ranks_list(fives[1]) else "kickers")


def _is_wheel(five: Sequence[Card], value: int) -> bool:
    return _ranks(five) == _WHEEL and high_category(value) in _STRAIGHTS


_STRAIGHTS = (HandCategory.STRAIGHT, HandCategory.STRAIGHT_FLUSH)


def _ranks(cards: Sequence[Card]) -> set[int]:
    return {int(card.rank) for card in cards}


def _ranks_list(cards: Sequence[Card]) -> list[int]:
    return sorted((int(card.rank) for card in cards), reverse=True)

