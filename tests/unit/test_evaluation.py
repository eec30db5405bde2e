"""The evaluation profile's kinds, order, explanations and exhaustive mode (spec/evaluation.md).

Every expectation here is worked out by hand from the spec and the rules (spec/rules/*.md), never by
running the code under test on other inputs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import pytest

from studcheck.cards import FULL_DECK, Rank, parse_cards
from studcheck.evaluate import HandCategory, high_category
from studcheck.evaluation.exhaustive import distinct_classes, exhaustive_cases
from studcheck.evaluation.explain import explain
from studcheck.evaluation.kinds import Kind, key_as_value, reference_key, value_as_key
from studcheck.evaluation.model import EvaluationCase
from studcheck.evaluation.order import Better, Disagreement, Qualifier, Relation, engine_ranks, first_disagreement


def same_order(ranks: Sequence[int], expected: Sequence[int]) -> bool:
    """Do `ranks` order (and tie) the items exactly as the hand-written `expected` ranks do?"""
    return all((ranks[i] > ranks[j]) == (expected[i] > expected[j]) and (ranks[i] == ranks[j]) == (expected[i] == expected[j])
               for i, j in combinations(range(len(expected)), 2))


# --- order.engine_ranks ---------------------------------------------------------------------------


def test_higher_values_rank_higher() -> None:
    assert same_order(engine_ranks([3, 1, 2, 3], Better.HIGHER), [3, 1, 2, 3])


def test_lower_values_rank_higher() -> None:
    assert same_order(engine_ranks([3, 1, 2, 3], Better.LOWER), [1, 3, 2, 1])


def test_lists_compare_item_by_item_a_prefix_smaller() -> None:
    # (0, 9) < (1,) < (1, 2) < (1, 2, 0) < (2,): the first item decides, then the next; a prefix is smaller
    values: list[Any] = [[1, 2], [1], [1, 2, 0], [0, 9], [2]]
    assert same_order(engine_ranks(values, Better.HIGHER), [3, 2, 4, 1, 5])


@pytest.mark.parametrize("better", list(Better))
def test_null_is_below_everything(better: Better) -> None:
    ranks = engine_ranks([None, 0, -5, 7], better)
    assert ranks[0] < min(ranks[1:])


# --- order.first_disagreement -------------------------------------------------------------------


def test_engine_low_where_the_rules_say_none_is_found_before_a_pair() -> None:
    # rules: item 0 (1, 2) above item 1 (1, 1), item 2 no low. The engine ranks 0 below 1 (a pair
    # disagreement, first in the rules' order) and gives item 2 a low: the qualifier is reported.
    found = first_disagreement(Kind.LOW8, [(1, 2), (1, 1), (0,)], [3, 5, 4], Better.HIGHER)
    assert found == Disagreement(first=2, second=None, expected=Qualifier.NO_LOW, actual=Qualifier.LOW)


def test_engine_null_where_the_rules_see_a_low_is_found_before_a_pair() -> None:
    # rules: item 0 (1, 2) above item 2 (1, 1), item 1 no low; the engine answers null for item 0
    # (which also puts it below item 2: a pair disagreement too)
    found = first_disagreement(Kind.LOW8, [(1, 2), (0,), (1, 1)], [None, None, 1], Better.HIGHER)
    assert found == Disagreement(first=0, second=None, expected=Qualifier.LOW, actual=Qualifier.NO_LOW)


def test_a_tie_the_engine_splits_is_expected_tie() -> None:
    # both items key 5: a tie; the engine (higher) gives item 0 the smaller value, so item 0 is below
    found = first_disagreement(Kind.HIGH, [(5,), (5,)], [1, 2], Better.HIGHER)
    assert found == Disagreement(first=0, second=1, expected=Relation.TIE, actual=Relation.BELOW)


def test_a_pair_the_engine_ties_is_expected_above_actual_tie() -> None:
    found = first_disagreement(Kind.HIGH, [(2,), (1,)], [7, 7], Better.HIGHER)
    assert found == Disagreement(first=0, second=1, expected=Relation.ABOVE, actual=Relation.TIE)


def test_a_pair_the_engine_reverses_is_expected_above_actual_below() -> None:
    # direction lower: the rules' first item (key 2) got the larger value 9, so the engine ranks it below
    found = first_disagreement(Kind.RAZZ, [(2,), (1,)], [9, 4], Better.LOWER)
    assert found == Disagreement(first=0, second=1, expected=Relation.ABOVE, actual=Relation.BELOW)


def test_the_pair_is_the_rules_first_item_and_the_next_class() -> None:
    # items 0 and 1 tie (key 2), item 2 is below them; the engine ties all three
    found = first_disagreement(Kind.HIGH, [(2,), (2,), (1,)], [5, 5, 5], Better.HIGHER)
    assert found == Disagreement(first=0, second=2, expected=Relation.ABOVE, actual=Relation.TIE)


def test_the_first_disagreement_in_the_rules_order_is_reported() -> None:
    # rules' order: item 3 (key 4), 2 (key 3), 1 (key 2), 0 (key 1). The engine swaps 3 and 2 (the
    # first pair in the rules' order) and 1 and 0 (the first in the batch's order).
    found = first_disagreement(Kind.HIGH, [(1,), (2,), (3,), (4,)], [20, 10, 40, 30], Better.HIGHER)
    assert found == Disagreement(first=3, second=2, expected=Relation.ABOVE, actual=Relation.BELOW)


def test_an_engine_that_agrees_gives_none() -> None:
    # rules: items 0 and 2 tie on top, then 3, then 1; the engine's lower values say the same
    assert first_disagreement(Kind.HIGH, [(3,), (1,), (3,), (2,)], [1, 9, 1, 4], Better.LOWER) is None


def test_a_low8_engine_that_agrees_gives_none() -> None:
    keys = [(1, 5), (0,), (1, 3), (0,)]
    assert first_disagreement(Kind.LOW8, keys, [[1, 0], None, [0, 7], None], Better.HIGHER) is None


def test_a_length_mismatch_raises() -> None:
    with pytest.raises(ValueError):
        first_disagreement(Kind.HIGH, [(1,), (2,)], [1], Better.HIGHER)


# --- explain.explain ------------------------------------------------------------------------------

ABOVE_BELOW = Disagreement(first=0, second=1, expected=Relation.ABOVE, actual=Relation.BELOW)


def first_rule(kind: Kind, first: str, second: str | None, disagreement: Disagreement = ABOVE_BELOW, *,
               best_fives_agree: bool | None = None) -> str:
    explanation = explain(kind, parse_cards(first), None if second is None else parse_cards(second), disagreement,
                          best_fives_agree=best_fives_agree)
    return explanation.rules[0]


@pytest.mark.parametrize(("first", "second", "rule"), [
    ("5d 4c 3h 2s Ah", "7c 7d 7h Ks Qd", "HAND.HIGH.WHEEL"),  # the wheel (a straight) ranked below trips
    ("6c 5d 4c 3h 2s", "5s 4d 3c 2h Ad", "HAND.HIGH.WHEEL"),  # the six-high straight ranked below a wheel
    ("9c 9d Qh Js 8c", "Kc Ad 2h 3s 4c", "HAND.HIGH.WHEEL"),  # K-A-2-3-4 (ace high) ranked over a pair
    ("Kh 9h 7h 4h 2h", "9c 8d 7d 6s 5c", "HAND.HIGH.RANKING"),  # a flush ranked below a nine-high straight
    ("Ac Ad Kh Qs Jc", "As Ah Kd Qc Tc", "HAND.HIGH.KICKERS"),  # aces with K-Q-J ranked below aces with K-Q-T
], ids=["wheel-below-trips", "six-high-below-wheel", "wrap-over-pair", "flush-below-straight", "kickers"])
def test_high_pairs_are_blamed_on_their_rule(first: str, second: str, rule: str) -> None:
    assert first_rule(Kind.HIGH, first, second) == rule


def test_a_tie_split_by_suits_is_kickers() -> None:
    split = Disagreement(first=0, second=1, expected=Relation.TIE, actual=Relation.BELOW)
    assert first_rule(Kind.HIGH, "Ac Kc Qd Jh 9s", "Ad Kd Qh Js 9c", split) == "HAND.HIGH.KICKERS"


def test_best_fives_ranked_right_is_best_five() -> None:
    rule = first_rule(Kind.HIGH, "Ac Ad Kh Qs Jc 2d", "As Ah Kd Qc Tc 3h", best_fives_agree=True)
    assert rule == "HAND.HIGH.BEST-FIVE"


def test_razz_is_a5() -> None:
    assert first_rule(Kind.RAZZ, "5c 4d 3h 2s Ac", "6c 4h 3d 2c As") == "HAND.LOW.A5"


def test_low8_pair_is_eight() -> None:
    assert first_rule(Kind.LOW8, "5c 4d 3h 2s Ac", "8c 7d 6h 5s 4c") == "HAND.LOW.EIGHT"


def test_low8_qualifier_is_eight_with_aspect_qualifier() -> None:
    qualifier = Disagreement(first=0, second=None, expected=Qualifier.NO_LOW, actual=Qualifier.LOW)
    explanation = explain(Kind.LOW8, parse_cards("9c 5d 4h 3s 2c"), None, qualifier)
    assert (explanation.rules[0], explanation.aspect) == ("HAND.LOW.EIGHT", "qualifier")


@pytest.mark.parametrize("kind", [Kind.EXPOSED_HIGH, Kind.EXPOSED_LOW])
def test_exposed_is_exposed_ranking(kind: Kind) -> None:
    assert first_rule(kind, "Ac Ad", "Kc Qd") == "BET.FIRST-ACTOR.EXPOSED-RANKING"


@pytest.mark.parametrize(("kind", "first", "second", "rule"), [
    (Kind.BRING_IN, "2c", "3d", "BRING-IN.CARD.LOW"),
    (Kind.BRING_IN, "2c", "2d", "BRING-IN.TIE.SUIT"),
    (Kind.BRING_IN_RAZZ, "Ks", "Qc", "BRING-IN.CARD.HIGH"),
    (Kind.BRING_IN_RAZZ, "Ks", "Kh", "BRING-IN.TIE.SUIT"),
])
def test_bring_in_rank_then_suit(kind: Kind, first: str, second: str, rule: str) -> None:
    assert first_rule(kind, first, second) == rule


# --- kinds.reference_key --------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "cards"), [
    (Kind.HIGH, "Ac Kd Qh Js"),
    (Kind.HIGH, "Ac Kd Qh Js 9c 8d 7h 6s"),
    (Kind.EXPOSED_HIGH, "Ac"),
    (Kind.EXPOSED_HIGH, "Ac Kd Qh Js Tc"),
    (Kind.EXPOSED_LOW, "Ac"),
    (Kind.EXPOSED_LOW, "Ac Kd Qh Js Tc"),
    (Kind.BRING_IN, "2c 3d"),
    (Kind.BRING_IN_RAZZ, "2c 3d"),
])
def test_a_card_count_the_kind_does_not_take_raises(kind: Kind, cards: str) -> None:
    with pytest.raises(ValueError):
        reference_key(kind, parse_cards(cards))


def test_a_card_twice_raises() -> None:
    with pytest.raises(ValueError):
        reference_key(Kind.HIGH, parse_cards("Ah Ah Kd 5c 3s"))


def keys_of(kind: Kind, cards: str) -> list[tuple[int, ...]]:
    return [reference_key(kind, (card,)) for card in parse_cards(cards)]


def test_bring_in_lowest_rank_then_lowest_suit_ace_high() -> None:
    # BRING-IN.CARD.LOW (ace high), BRING-IN.TIE.SUIT (clubs < diamonds): chosen first, 2c 2d 3c Ks As
    keys = keys_of(Kind.BRING_IN, "2c 2d 3c Ks As")
    assert keys[0] > keys[1] > keys[2] > keys[3] > keys[4]


def test_bring_in_razz_highest_rank_then_highest_suit() -> None:
    # BRING-IN.CARD.HIGH, BRING-IN.TIE.SUIT (hearts < spades): chosen first, Ks Kh Qs
    keys = keys_of(Kind.BRING_IN_RAZZ, "Ks Kh Qs")
    assert keys[0] > keys[1] > keys[2]


def test_bring_in_razz_ace_is_the_lowest_rank() -> None:
    # ace low: As brings in after every card of another rank, the deuces included
    ace = reference_key(Kind.BRING_IN_RAZZ, parse_cards("As"))
    others = [reference_key(Kind.BRING_IN_RAZZ, (card,)) for card in FULL_DECK if card.rank is not Rank.ACE]
    assert ace < min(others)


ROUND_TRIP = [
    (Kind.HIGH, ["As Ks Qs Js Ts", "5d 4c 3h 2s Ah Kd Kc", "9c 9d Ah Kh 4s"]),
    (Kind.RAZZ, ["5c 4d 3h 2s Ac", "Kc Kd Kh Ks Qc Qd"]),
    (Kind.LOW8, ["5c 4d 3h 2s Ac", "9c 5d 4h 3s 2c", "8c 7d 6h 5s 4c 4d 4h"]),
    (Kind.EXPOSED_HIGH, ["Ac Ad", "Kc Qd Jh", "2c 2d 2h 3s"]),
    (Kind.EXPOSED_LOW, ["Ac 2d", "Kc Qd Jh", "2c 2d 2h 3s"]),
    (Kind.BRING_IN, ["2c", "As", "Th"]),
    (Kind.BRING_IN_RAZZ, ["2c", "As", "Th"]),
]


@pytest.mark.parametrize(("kind", "hands"), ROUND_TRIP, ids=[kind.value for kind, _ in ROUND_TRIP])
def test_key_as_value_round_trips(kind: Kind, hands: list[str]) -> None:
    keys = [reference_key(kind, parse_cards(hand)) for hand in hands]
    assert [value_as_key(kind, key_as_value(kind, key)) for key in keys] == keys


# --- exhaustive -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def generated() -> dict[str, EvaluationCase]:
    return {case.id: case for case in exhaustive_cases()}


@pytest.mark.parametrize(("case_id", "classes"), [
    ("EV-ALL-HIGH", 7462),  # distinct five-card high hands (Cactus Kev's count; 2,598,960 hands fall into 7,462 classes)
    ("EV-ALL-RAZZ", 6175),  # A-5 lows: rank multisets of five with at most four alike, C(17,5) - 13 = 6188 - 13
    ("EV-ALL-LOW8", 57),  # qualifying 8-or-better lows: five distinct ranks of A-8, C(8,5) = 56, plus one "no low"
    ("EV-ALL-XH2", 91), ("EV-ALL-XL2", 91),  # two-card boards: rank multisets C(14,2)
    ("EV-ALL-XH3", 455), ("EV-ALL-XL3", 455),  # three-card boards: C(15,3)
    ("EV-ALL-XH4", 1820), ("EV-ALL-XL4", 1820),  # four-card boards: C(16,4) (four of a rank is possible)
    ("EV-ALL-BI", 52), ("EV-ALL-BR", 52),  # every door card: suits break every tie
])
def test_class_counts(generated: dict[str, EvaluationCase], case_id: str, classes: int) -> None:
    assert distinct_classes(generated[case_id]) == classes


def test_no_generated_item_repeats_a_card(generated: dict[str, EvaluationCase]) -> None:
    repeated = [(case.id, item) for case in generated.values() for item in case.items if len(set(item)) != len(item)]
    assert repeated == []


@pytest.mark.parametrize("case_id", ["EV-ALL-HIGH", "EV-ALL-RAZZ", "EV-ALL-XH2", "EV-ALL-XL2", "EV-ALL-XH3", "EV-ALL-XL3",
                                     "EV-ALL-XH4", "EV-ALL-XL4"])
def test_every_class_appears_at_least_twice(generated: dict[str, EvaluationCase], case_id: str) -> None:
    counts = Counter(generated[case_id].keys)
    assert min(counts.values()) >= 2


def suited_categories(case: EvaluationCase) -> Counter[HandCategory]:
    suited = {key for item, key in zip(case.items, case.keys) if len({card.suit for card in item}) == 1}
    return Counter(high_category(key[0]) for key in suited)


def test_suited_high_items_hold_ten_straight_flush_classes(generated: dict[str, EvaluationCase]) -> None:
    # A-K-Q-J-T down to the steel wheel 5-4-3-2-A (HAND.HIGH.WHEEL)
    assert suited_categories(generated["EV-ALL-HIGH"])[HandCategory.STRAIGHT_FLUSH] == 10


def test_suited_high_items_hold_every_flush_class(generated: dict[str, EvaluationCase]) -> None:
    # five distinct ranks, C(13,5) = 1,287, less the 10 straights
    assert suited_categories(generated["EV-ALL-HIGH"])[HandCategory.FLUSH] == 1277



def test_the_first_qualifier_disagreement_in_the_rules_order_is_reported() -> None:
    # two lows the engine both calls "no low": the better low (key (1, 2), chosen first) is the one shown,
    # although it comes second in the batch
    found = first_disagreement(Kind.LOW8, [(1, 1), (1, 2)], [None, None], Better.HIGHER)
    assert found is not None and (found.first, found.second) == (1, None)
    assert (found.expected, found.actual) == (Qualifier.LOW, Qualifier.NO_LOW)
