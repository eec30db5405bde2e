"""Hand evaluators against textbook counts, simple brute-force definitions and hand-picked cases.

The reference definitions below are written from the rules (HAND.HIGH.*, HAND.LOW.*) by sorting and
counting five cards and trying every five-card subset; they share no code with the evaluator.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any, Optional, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studcheck.cards import FULL_DECK, Card, parse_cards
from studcheck.evaluate import (
    HandCategory,
    describe_high,
    describe_low,
    exposed_high_key,
    exposed_low_key,
    high_best_five,
    high_category,
    high_value,
    high_value_indices,
    low8_best_five,
    low8_value,
    low8_value_indices,
    razz_best_five,
    razz_value,
    razz_value_indices,
)

K = TypeVar("K")

# ----------------------------------------------------------------------------------------------
# Reference definitions (deliberately naive)
# ----------------------------------------------------------------------------------------------

RefKey = tuple[int, tuple[int, ...]]


def _grouped(ranks: Sequence[int]) -> tuple[list[int], list[int]]:
    """(group sizes descending, group ranks: bigger group first, then higher rank)."""
    counts = Counter(ranks)
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    return [counts[r] for r in order], order


def ref_high_five(five: Sequence[Card]) -> RefKey:
    """Textbook five-card ranking: (category 0..8, tie-break ranks). Higher is better."""
    ranks = sorted((int(c.rank) for c in five), reverse=True)
    shape, order = _grouped(ranks)
    flush = len({c.suit for c in five}) == 1
    top = 0
    if len(set(ranks)) == 5 and ranks[0] - ranks[4] == 4:
        top = ranks[0]
    elif ranks == [14, 5, 4, 3, 2]:
        top = 5
    if top and flush:
        return (8, (top,))
    if shape == [4, 1]:
        return (7, tuple(order))
    if shape == [3, 2]:
        return (6, tuple(order))
    if flush:
        return (5, tuple(ranks))
    if top:
        return (4, (top,))
    category = {(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1, (1, 1, 1, 1, 1): 0}[tuple(shape)]
    return (category, tuple(order))


def ref_high(cards: Sequence[Card]) -> RefKey:
    return max(ref_high_five(five) for five in combinations(cards, 5))


def _ace_low(card: Card) -> int:
    return 1 if card.rank == 14 else int(card.rank)


def ref_razz_five(five: Sequence[Card]) -> RefKey:
    """A-5 low key, LOWER is better: pairs count against, straights/flushes ignored, ace = 1."""
    shape, order = _grouped([_ace_low(c) for c in five])
    category = {(1, 1, 1, 1, 1): 0, (2, 1, 1, 1): 1, (2, 2, 1): 2, (3, 1, 1): 3, (3, 2): 4, (4, 1): 5}
    return (category[tuple(shape)], tuple(order))


def ref_razz(cards: Sequence[Card]) -> RefKey:
    return min(ref_razz_five(five) for five in combinations(cards, 5))


def ref_low8(cards: Sequence[Card]) -> Optional[tuple[int, ...]]:
    """Best 8-or-better low as ranks high to low (LOWER is better), or None."""
    lows = []
    for five in combinations(cards, 5):
        ranks = sorted({_ace_low(c) for c in five}, reverse=True)
        if len(ranks) == 5 and ranks[0] <= 8:
            lows.append(tuple(ranks))
    return min(lows) if lows else None


def assert_same_order(values: Sequence[int], refs: Sequence[K], key: Callable[[K], Any]) -> None:
    """The values order the hands exactly as the reference keys do (ties included)."""
    ranked = sorted(range(len(values)), key=lambda i: key(refs[i]))
    for a, b in zip(ranked, ranked[1:]):
        ref_a, ref_b = key(refs[a]), key(refs[b])
        if ref_a == ref_b:
            assert values[a] == values[b], (refs[a], refs[b])
        else:
            assert values[a] < values[b], (refs[a], refs[b])


def h(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def neg(ref: RefKey) -> tuple[int, tuple[int, ...]]:
    """Turn a lower-is-better key into a higher-is-better one for assert_same_order."""
    return (-ref[0], tuple(-r for r in ref[1]))


# ----------------------------------------------------------------------------------------------
# Exhaustive five-card counts
# ----------------------------------------------------------------------------------------------

TEXTBOOK_COUNTS = {
    HandCategory.STRAIGHT_FLUSH: 40,
    HandCategory.FOUR_OF_A_KIND: 624,
    HandCategory.FULL_HOUSE: 3_744,
    HandCategory.FLUSH: 5_108,
    HandCategory.STRAIGHT: 10_200,
    HandCategory.THREE_OF_A_KIND: 54_912,
    HandCategory.TWO_PAIR: 123_552,
    HandCategory.ONE_PAIR: 1_098_240,
    HandCategory.HIGH_CARD: 1_302_540,
}


def test_all_five_card_hands_give_textbook_category_counts() -> None:
    by_value = Counter(map(high_value, combinations(FULL_DECK, 5)))
    assert len(by_value) == 7_462
    by_category: Counter[HandCategory] = Counter()
    for value, n in by_value.items():
        by_category[high_category(value)] += n
    assert dict(by_category) == TEXTBOOK_COUNTS
    assert sum(by_category.values()) == 2_598_960


def test_all_five_card_hands_low_counts() -> None:
    # Razz: suits never matter, so every rank multiset (at most 4 of a rank) is its own value:
    # 1287 no-pair + 2860 one pair + 858 two pair + 858 trips + 156 full house + 156 quads.
    by_value = Counter(map(razz_value, combinations(FULL_DECK, 5)))
    assert len(by_value) == 6_175
    assert max(by_value) == razz_value(h("Ac 2d 3h 4s 5c"))  # the wheel is the best low
    # 8-or-better: choose 5 of the 8 ranks A..8 (56 lows), any suits: 56 * 4**5 hands.
    lows = Counter(low8_value(hand) for hand in combinations(FULL_DECK[:28] + FULL_DECK[48:], 5))
    assert sum(n for v, n in lows.items() if v is not None) == 56 * 4**5
    assert len(lows) - 1 == 56


# ----------------------------------------------------------------------------------------------
# High hands vs the reference
# ----------------------------------------------------------------------------------------------

def _random_hands(seed: int, size: int, n: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.sample(FULL_DECK, size)) for _ in range(n)]


@pytest.mark.parametrize("size", [5, 6, 7, 8])
def test_high_orders_random_hands_like_reference(size: int) -> None:
    hands = _random_hands(1000 + size, size, 1500)
    refs = [ref_high(hand) for hand in hands]
    values = [high_value(hand) for hand in hands]
    assert_same_order(values, refs, key=lambda ref: ref)
    for value, ref in zip(values, refs):
        assert high_category(value) == ref[0]


def _dense_hands(sizes: Sequence[int]) -> st.SearchStrategy[tuple[Card, ...]]:
    """Hands drawn from few ranks and suits, so quads, full houses, flushes and straights are common."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple[Card, ...]:
        size = draw(st.sampled_from(sizes))
        ranks = draw(st.sets(st.integers(2, 14), min_size=2, max_size=8))
        suits = draw(st.sets(st.sampled_from("cdhs"), min_size=1, max_size=4))
        deck = [c for c in FULL_DECK if c.rank in ranks and c.suit.value in suits]
        if len(deck) < size:
            deck = list(FULL_DECK)
        return tuple(draw(st.lists(st.sampled_from(deck), min_size=size, max_size=size, unique=True)))

    return build()


any_seven = st.lists(st.sampled_from(FULL_DECK), min_size=7, max_size=7, unique=True).map(tuple)
any_hand = st.one_of(_dense_hands([5, 6, 7, 8]), any_seven)


@settings(max_examples=400, deadline=None)
@given(a=any_hand, b=any_hand)
def test_high_compares_like_reference(a: tuple[Card, ...], b: tuple[Card, ...]) -> None:
    ref_a, ref_b = ref_high(a), ref_high(b)
    va, vb = high_value(a), high_value(b)
    assert (va > vb) == (ref_a > ref_b) and (va == vb) == (ref_a == ref_b)
    assert high_category(va) == ref_a[0]
    assert high_value_indices([c.index for c in a]) == va
    best = high_best_five(a)
    assert len(set(best)) == 5 and set(best) <= set(a) and ref_high_five(best) == ref_a


# Pairs (better, worse) of hands, each pair named for the rule it pins.
HIGH_BEATS = {
    "wheel is a straight": ("Ah 2d 3c 4h 5s Kd Qc", "Ah As Ad Kc Qh 9s 2c"),
    "six-high straight beats the wheel": ("6c 2d 3c 4h 5s Kd Qc", "Ah 2d 3c 4h 5s Kd Qc"),
    "broadway beats king-high straight": ("Ah Kd Qc Jh Ts 2d 3c", "Kd Qc Jh Ts 9s 2d 3c"),
    "steel wheel beats quads": ("Ah 2h 3h 4h 5h Kd Kc", "Ks Kh Kd Kc Qh 9s 2c"),
    "six-high straight flush beats steel wheel": ("6h 2h 3h 4h 5h Kd Kc", "Ah 2h 3h 4h 5h Kd Kc"),
    "no wrap-around: Q-K-A-2-3 is ace high only": ("2c 2d 7h 8s 9c", "Qh Kd Ac 2s 3d 7c 8c"),
    "pair of aces, king kicker beats queen kicker": ("Ah Ad Kc 7h 5s 3d 2c", "As Ac Qc 7d 5h 3s 2d"),
    "two pair decided by the kicker": ("Ah Ad Kc Kh Qs 3d 2c", "As Ac Ks Kd Jc 3s 2d"),
    "two pair decided by the second pair": ("Ah Ad 3c 3h 2s", "As Ac 2d 2c Kh"),
    "flush decided by the fifth card": ("Ah Qh 9h 7h 4h 2c", "As Qs 9s 7s 3s 2d"),
    "full house decided by the trips": ("3c 3d 3h 2s 2c", "2d 2h 2s Ac Ad"),
    "quads play the best kicker": ("7c 7d 7h 7s Kd Qc 2c", "7c 7d 7h 7s Qd Jc Tc"),
    "flush beats straight": ("2h 4h 6h 8h Th", "9c Td Jh Qs Kc"),
    "eight cards: full house beats the flush": ("Ah Kh Qh 9h 2h As Ad Kd", "Ac Kc Qc Jc 9c 2h 3d 4s"),
    "eight cards: quads beat the flush": ("Ah Kh Qh 9h 2h As Ad Ac", "Ah Kh Qh 9h 2h As Ad Kd"),
}


@pytest.mark.parametrize("name", HIGH_BEATS)
def test_high_edge_cases(name: str) -> None:
    better, worse = (h(t) for t in HIGH_BEATS[name])
    assert high_value(better) > high_value(worse)


HIGH_EQUALS = {
    "three pairs play the two best pairs and the best kicker": ("Ah Ad Kc Kd Qh Qs 2c", "As Ac Ks Kh Qc 3d 4h"),
    "suits never rank hands": ("Ac Kc Qc Jc 9c", "Ad Kd Qd Jd 9d"),
    "two trips make a full house of the higher": ("9h 9d 9c Kd Ks Kh 2c", "Kc Kd Kh 9s 9c"),
    "sixth and seventh card do not count": ("Ah Kd Qc Jh 9s 3c 2d", "As Kc Qd Jc 9h 4c 5d"),
}


@pytest.mark.parametrize("name", HIGH_EQUALS)
def test_high_equal_hands(name: str) -> None:
    a, b = (h(t) for t in HIGH_EQUALS[name])
    assert high_value(a) == high_value(b)


@pytest.mark.parametrize(
    ("cards", "text"),
    [
        ("4c 4d 4h 4s Kd Qc 2c", "Four of a kind, fours"),
        ("Ah Ad 2c 2h 7s", "Two pair, aces and twos"),
        ("Ah 2d 3c 4h 5s Kd Kc", "Straight, five high"),
        ("Jd 9d 7d 5d 3d 2c", "Flush, jack high"),
        ("As Ks Qs Js Ts 2d", "Straight flush, ace high"),
        ("6c 6d 6h 2s 2c", "Full house, sixes full of twos"),
        ("Tc Td Th 8s 2c", "Three of a kind, tens"),
        ("9c 9d Kh 8s 2c", "One pair, nines"),
        ("Ac Jd 9h 8s 2c", "High card, ace"),
    ],
)
def test_describe_high(cards: str, text: str) -> None:
    value = high_value(h(cards))
    assert describe_high(value) == text


BEST_FIVE_HIGH = [
    # three pairs: the queens are the kicker; the higher-suited queen is chosen
    ("Ah Ad Kc Kd Qh Qs 2c", "Ah Ad Kd Kc Qs"),
    # six-card flush: the top five hearts
    ("Ah Kh Qh 9h 4h 2h Ks", "Ah Kh Qh 9h 4h"),
    # straight with a paired five: the spade five (higher suit)
    ("Ac 2d 3h 4s 5c 5s Kd", "5s 4s 3h 2d Ac"),
    # quads with the best kicker, the higher-suited king
    ("7c 7d 7h 7s Kd Kc 2c", "7s 7h 7d 7c Kd"),
    # one pair: the pair and the three best kickers
    ("Ac Jd 9h 8s 8c 3c 2c", "Ac Jd 9h 8s 8c"),
]


@pytest.mark.parametrize(("cards", "best"), BEST_FIVE_HIGH)
def test_high_best_five(cards: str, best: str) -> None:
    expected = h(best)
    chosen = high_best_five(h(cards))
    assert set(chosen) == set(expected)
    # documented order: descending by (rank, suit), ace high
    assert list(chosen) == sorted(expected, key=lambda c: (c.rank, c.suit.order), reverse=True)


@pytest.mark.parametrize("n", [4, 9, 0])
def test_card_count_is_checked(n: int) -> None:
    cards = FULL_DECK[:n]
    for evaluate in (high_value, razz_value, low8_value):
        with pytest.raises(ValueError):
            evaluate(cards)


# ----------------------------------------------------------------------------------------------
# Low hands vs the reference
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [5, 6, 7, 8])
def test_lows_order_random_hands_like_reference(size: int) -> None:
    hands = _random_hands(2000 + size, size, 1500)
    razz_refs = [ref_razz(hand) for hand in hands]
    assert_same_order([razz_value(hand) for hand in hands], razz_refs, key=neg)
    low8_refs = [ref_low8(hand) for hand in hands]
    low8 = [low8_value(hand) for hand in hands]
    assert [v is None for v in low8] == [r is None for r in low8_refs]
    qualified = [i for i, v in enumerate(low8) if v is not None]
    assert_same_order(
        [low8[i] or 0 for i in qualified], [low8_refs[i] or () for i in qualified],
        key=lambda ranks: tuple(-r for r in ranks),
    )


low_hand = st.one_of(
    _dense_hands([5, 6, 7, 8]),
    st.lists(st.sampled_from(FULL_DECK[:28] + FULL_DECK[48:]), min_size=5, max_size=8, unique=True).map(tuple),
    st.lists(st.sampled_from(FULL_DECK), min_size=5, max_size=8, unique=True).map(tuple),
)


@settings(max_examples=400, deadline=None)
@given(a=low_hand, b=low_hand)
def test_lows_compare_like_reference(a: tuple[Card, ...], b: tuple[Card, ...]) -> None:
    ra, rb = ref_razz(a), ref_razz(b)
    va, vb = razz_value(a), razz_value(b)
    assert (va > vb) == (ra < rb) and (va == vb) == (ra == rb)
    assert razz_value_indices([c.index for c in a]) == va
    assert ref_razz_five(razz_best_five(a)) == ra
    la, lb = ref_low8(a), ref_low8(b)
    wa, wb = low8_value(a), low8_value(b)
    assert (wa is None) == (la is None)
    assert low8_value_indices([c.index for c in a]) == wa
    if wa is not None and wb is not None and la is not None and lb is not None:
        assert (wa > wb) == (la < lb) and (wa == wb) == (la == lb)
    best8 = low8_best_five(a)
    if la is None:
        assert best8 is None
    else:
        assert best8 is not None and set(best8) <= set(a)
        assert tuple(sorted((_ace_low(c) for c in best8), reverse=True)) == la


def test_eight_seven_six_five_four_qualifies() -> None:
    assert low8_value(h("8c 7d 6h 5s 4c Kd Kc")) is not None


def test_nine_high_does_not_qualify() -> None:
    assert low8_value(h("9c 7d 6h 5s 4c Kd Kc")) is None


def test_four_distinct_low_ranks_do_not_qualify() -> None:
    assert low8_value(h("Ac Ad 2h 3s 4c Kd Qc")) is None
    assert low8_value(h("Ac Ad 2h 2s 3c 3d 4c 4d")) is None


def test_wheel_with_straight_and_flush_is_still_the_best_low() -> None:
    steel = h("Ah 2h 3h 4h 5h Kd Kc")
    rainbow = h("Ac 2d 3h 4s 5c")
    assert razz_value(steel) == razz_value(rainbow)
    best8, six8 = low8_value(steel), low8_value(h("6c 4d 3h 2s Ac"))
    assert best8 is not None and six8 is not None
    assert best8 == low8_value(rainbow)
    assert razz_value(steel) > razz_value(h("6c 4d 3h 2s Ac"))
    assert best8 > six8


def test_low_compares_from_the_highest_card_down() -> None:
    better, worse = h("7c 5d 4h 3s 2c"), h("7d 6h 3c 2d Ah")
    assert razz_value(better) > razz_value(worse)
    assert (low8_value(better) or 0) > (low8_value(worse) or 0)


def test_eight_high_is_the_worst_qualifier() -> None:
    worst = low8_value(h("8c 7d 6h 5s 4c"))
    assert worst is not None
    lows = {low8_value(hand) for hand in combinations(FULL_DECK[:28] + FULL_DECK[48:], 5)} - {None}
    assert min(v for v in lows if v is not None) == worst


RAZZ_BEATS = {
    "king-high no pair beats a pair of twos": ("9h Th Jh Qh Kh", "2c 2d 3h 4s 5c"),
    "pair of aces beats pair of twos": ("Ac Ad 3h 4s 5c", "2c 2d 3h 4s 5c"),
    "one pair beats two pair": ("Kc Kd Qh Js Tc", "2c 2d 3h 3s 4c"),
    "two pair beats trips": ("Kc Kd Qh Qs Jc", "2c 2d 2h 3s 4c"),
    "trips beat a full house": ("Kc Kd Kh Qs Jc", "2c 2d 2h 3s 3c"),
    "full house beats quads": ("Kc Kd Kh Qs Qc", "2c 2d 2h 2s 3c"),
    "seven cards: the paired cards are dropped": ("Ac Ad 2h 2s 3c 4d 6h", "Ac 2d 3h 4s 7c Kd Kc"),
    "eight cards with four ranks: lowest pair": ("Ac Ad 2h 2s 3c 3d 4h 4c", "2c 2d 3h 3s 4c 4d 5h 5c"),
}


@pytest.mark.parametrize("name", RAZZ_BEATS)
def test_razz_edge_cases(name: str) -> None:
    better, worse = (h(t) for t in RAZZ_BEATS[name])
    assert razz_value(better) > razz_value(worse)


@pytest.mark.parametrize(
    ("cards", "text"),
    [
        ("7c 5d 4h 3s Ac Kd Kc", "Seven low: 7-5-4-3-A"),
        ("Ah 2d 3c 4h 5s", "Five low: 5-4-3-2-A"),
        ("Ah Ad 2c 2d 3c 3d 4c", "One pair, aces: A-A-4-3-2"),
        ("9h Th Jh Qh Kh", "King low: K-Q-J-T-9"),
        ("2c 2d 3h 3s 4c", "Two pair, threes and twos: 3-3-2-2-4"),
    ],
)
def test_describe_low(cards: str, text: str) -> None:
    assert describe_low(razz_value(h(cards))) == text


def test_low_best_five_picks_lowest_and_orders_ace_last() -> None:
    chosen = razz_best_five(h("Kc 5s 4d 3c 2h Ac Ad"))
    assert chosen == h("5s 4d 3c 2h Ad")
    assert low8_best_five(h("Kc 5s 4d 3c 2h Ac Ad")) == chosen
    assert low8_best_five(h("Kc Qs 4d 3c 2h Ac Ad")) is None


# ----------------------------------------------------------------------------------------------
# Exposed boards
# ----------------------------------------------------------------------------------------------

def up(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


EXPOSED_HIGH_BEATS = [
    ("2c 2d", "Ac Kd"),  # any pair beats any high cards
    ("2c 2d 3h", "Ac Kd Qh"),
    ("2c 2d 3h 3s", "Ac Ad Kh Qs"),  # two pair beats one pair
    ("2c 2d 2h 3s", "Ac Ad Kh Ks"),  # trips beat two pair
    ("2c 2d 2h 2s", "Ac Ad Ah Ks"),  # quads beat trips
    ("Ac Ad 3h", "Kc Kd Qh"),
    ("9c 9d Kh", "9h 9s Qh"),  # same pair: kicker
    ("Kc Kd 3h 3s", "Qc Qd Jh Js"),
    ("Ac Kd 2h 3s", "Ks Qh Jh Th"),  # four-card straight/flush gives nothing
    ("Ac 7d 2h 3s", "Ks Qs Js Ts"),
    ("Ac 9d", "Kc Qd"),
    ("Ac", "Kd"),
    ("8c 7d 5h 4s", "8d 7c 5s 3h"),
]


@pytest.mark.parametrize(("better", "worse"), EXPOSED_HIGH_BEATS)
def test_exposed_high_ranking(better: str, worse: str) -> None:
    assert exposed_high_key(up(better)) > exposed_high_key(up(worse))


def test_exposed_high_ignores_suits_and_order() -> None:
    assert exposed_high_key(up("Ks 9d 2c")) == exposed_high_key(up("2h Kc 9s"))


EXPOSED_LOW_BEATS = [
    ("6c 2d", "7c Ad"),  # compare from the highest card down
    ("Kc Qd", "2c 2d"),  # unpaired beats any pair
    ("Kc Qd Jh Ts", "Ac Ad 2h 3s"),
    ("Ac Ad 3h", "2c 2d 3s"),  # lower pair beats higher pair, ace low
    ("2c 2d 3h 5s", "2h 2s 3c 6c"),  # same pair: lower kicker
    ("Kc Kd 3h", "Qc Qd Qh"),  # pair beats trips
    ("9c 9d 3h 3s", "2c 2d 2h 3c"),  # two pair beats trips
    ("5c 4c 3c 2c", "6d 4c 3c 2c"),  # four-card straight flush gives no penalty
    ("Ac", "2d"),
    ("8c", "9d"),
    ("7c 4d 3h", "7d 5c Ah"),
]


@pytest.mark.parametrize(("better", "worse"), EXPOSED_LOW_BEATS)
def test_exposed_low_ranking(better: str, worse: str) -> None:
    assert exposed_low_key(up(better)) > exposed_low_key(up(worse))


def test_exposed_keys_refuse_wrong_board_sizes() -> None:
    with pytest.raises(ValueError):
        exposed_high_key(())
    with pytest.raises(ValueError):
        exposed_low_key(up("2c 3c 4c 5c 6c"))


def test_exposed_ties_are_equal() -> None:
    assert exposed_low_key(up("6c 2d")) == exposed_low_key(up("6h 2s"))
    assert exposed_high_key(up("Qc Qd 4h")) == exposed_high_key(up("Qh Qs 4d"))
