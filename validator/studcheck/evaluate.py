"""Hand evaluators: best five-card high hand, A-5 low (Razz), 8-or-better low, exposed-board keys.

Rules: HAND.HIGH.BEST-FIVE, HAND.HIGH.RANKING, HAND.HIGH.WHEEL, HAND.HIGH.KICKERS, HAND.LOW.A5,
HAND.LOW.EIGHT, BET.FIRST-ACTOR.EXPOSED-RANKING (spec/rules.yaml).

Why table-driven: the validator evaluates every showdown of every case and the fuzzer plays
millions of hands, so an evaluation must cost a few dictionary look-ups, not a search over the
21 five-card subsets of seven cards.

How it works. Every card has one integer key, ``1 << (3 * rank_index)`` (three bits of count per
rank, 39 bits) plus ``1 << (40 + 4 * suit)`` (four bits of count per suit). Adding the keys of a
hand's cards gives its rank multiset (the low 39 bits) and its suit counts. The suit fields start
at 3, so a suit with five or more cards sets bit 3 of its nibble: one AND tells whether a flush is
possible. The value of a rank multiset (which never depends on suits unless there is a flush) is
computed from the counts on first use and memoised in a dict (lazy build: nothing slow runs at
import; the first evaluation of each multiset costs some microseconds, later ones a look-up).
Flushes and straights are looked up in 8192-entry tables indexed by a 13-bit rank mask.

Value encodings (documented because ``describe_*`` decode them and tests may too):

* high value = ``category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5`` where
  ``r1..`` are the ranks (2..14, ace high) that decide the hand, most important first (the quads
  rank then the kicker; the trips rank then the pair rank; a straight's top card only, 5 for the
  wheel), unused nibbles 0. Higher is better; equal iff equal hands.
* low value (Razz and 8-or-better) = ``_LOW_TOP - lowkey`` with ``lowkey`` encoded like a high
  value with ace = 1 and the categories no pair 0, one pair 1, two pair 2, trips 3, full house 4,
  quads 5 (straights and flushes do not exist). Higher value = better low. An 8-or-better value
  is the Razz value of the same five cards, so ``describe_low`` serves both.

Cards passed in must be distinct (not checked on the hot path: the engine deals from one deck).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import IntEnum
from itertools import combinations

from studcheck.cards import Card


class HandCategory(IntEnum):
    """High-hand categories, worst to best (HAND.HIGH.RANKING)."""

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


class LowCategory(IntEnum):
    """A-5 low categories, best to worst (pairs count against the hand, HAND.LOW.A5)."""

    NO_PAIR = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    FULL_HOUSE = 4
    FOUR_OF_A_KIND = 5


# --------------------------------------------------------------------------------------------
# Card keys and masks
# --------------------------------------------------------------------------------------------

_RANK_BITS = 3
_SUIT_SHIFT = 40
_RANK_MASK = (1 << (13 * _RANK_BITS)) - 1
_SUIT_OFFSET = 0x3333 << _SUIT_SHIFT
_FLUSH_BITS = 0x8888 << _SUIT_SHIFT
#: Per card index 0..51: rank-count key plus suit-count key.
_CARD_KEY: tuple[int, ...] = tuple(
    (1 << (_RANK_BITS * (i >> 2))) + (1 << (_SUIT_SHIFT + 4 * (i & 3))) for i in range(52)
)
_LOW_TOP = 6 << 20
#: A low value above this is a no-pair hand whose top card is 8 or lower: an 8-or-better low.
_LOW8_THRESHOLD = _LOW_TOP - (9 << 16)

_MIN_CARDS, _MAX_CARDS = 5, 8


def _pack(category: int, ranks: Sequence[int]) -> int:
    value = category
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def _unpack(value: int) -> tuple[int, list[int]]:
    ranks = [(value >> shift) & 15 for shift in (16, 12, 8, 4, 0)]
    return value >> 20, [r for r in ranks if r]


# Straight windows on the 13-bit rank mask (bit 0 = deuce ... bit 12 = ace), best first.
_STRAIGHTS: tuple[tuple[int, int], ...] = tuple(
    (top, sum(1 << (r - 2) for r in range(top - 4, top + 1))) for top in range(14, 5, -1)
) + ((5, (1 << 12) | 0b1111),)


def _straight_top(mask: int) -> int:
    for top, window in _STRAIGHTS:
        if mask & window == window:
            return top
    return 0


def _mask_ranks_desc(mask: int) -> list[int]:
    return [i + 2 for i in range(12, -1, -1) if mask >> i & 1]


def _flush_value(mask: int) -> int:
    top = _straight_top(mask)
    if top:
        return _pack(HandCategory.STRAIGHT_FLUSH, (top,))
    return _pack(HandCategory.FLUSH, _mask_ranks_desc(mask)[:5])


#: 13-bit mask of one suit's ranks -> straight-flush or flush value (masks with >= 5 bits only).
_FLUSH_TABLE: tuple[int, ...] = tuple(
    _flush_value(m) if m.bit_count() >= 5 else 0 for m in range(1 << 13)
)


# --------------------------------------------------------------------------------------------
# Values of rank multisets (memoised on first use)
# --------------------------------------------------------------------------------------------

_HIGH_MEMO: dict[int, int] = {}
_LOW_MEMO: dict[int, int] = {}


def _counts(rank_key: int) -> list[int]:
    """Counts per rank index 0 (deuce) .. 12 (ace) from the rank part of a key."""
    return [(rank_key >> (_RANK_BITS * i)) & 7 for i in range(13)]


def _high_of_rank_key(rank_key: int) -> int:
    """Best non-flush five-card high value of a multiset of 5..8 ranks."""
    counts = _counts(rank_key)
    desc = [i + 2 for i in range(12, -1, -1) if counts[i]]
    count = {r: counts[r - 2] for r in desc}
    quads = [r for r in desc if count[r] >= 4]
    if quads:
        kicker = next(r for r in desc if r != quads[0])
        return _pack(HandCategory.FOUR_OF_A_KIND, (quads[0], kicker))
    trips = [r for r in desc if count[r] == 3]
    if trips:
        pair = [r for r in desc if r != trips[0] and count[r] >= 2]
        if pair:
            return _pack(HandCategory.FULL_HOUSE, (trips[0], pair[0]))
    top = _straight_top(sum(1 << (r - 2) for r in desc))
    if top:
        return _pack(HandCategory.STRAIGHT, (top,))
    if trips:
        return _pack(HandCategory.THREE_OF_A_KIND, [trips[0]] + [r for r in desc if r != trips[0]][:2])
    pairs = [r for r in desc if count[r] == 2]
    if len(pairs) >= 2:
        kicker = next(r for r in desc if r not in pairs[:2])
        return _pack(HandCategory.TWO_PAIR, (pairs[0], pairs[1], kicker))
    if pairs:
        return _pack(HandCategory.ONE_PAIR, [pairs[0]] + [r for r in desc if r != pairs[0]][:3])
    return _pack(HandCategory.HIGH_CARD, desc[:5])


def _lowkey_of_five(ranks: Sequence[int]) -> int:
    """A-5 low key (lower = better) of five ranks given with ace = 1."""
    groups = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(c for _, c in groups)
    return _pack(_LOW_SHAPES[shape], [r for r, _ in groups])


_LOW_SHAPES: dict[tuple[int, ...], LowCategory] = {
    (1, 1, 1, 1, 1): LowCategory.NO_PAIR,
    (2, 1, 1, 1): LowCategory.ONE_PAIR,
    (2, 2, 1): LowCategory.TWO_PAIR,
    (3, 1, 1): LowCategory.THREE_OF_A_KIND,
    (3, 2): LowCategory.FULL_HOUSE,
    (4, 1): LowCategory.FOUR_OF_A_KIND,
}


def _low_of_rank_key(rank_key: int) -> int:
    """Best A-5 low value of a multiset of 5..8 ranks."""
    counts = _counts(rank_key)
    # Ace (index 12) counts as 1.
    lows = [1] * counts[12] + [r for i in range(12) for r in [i + 2] * counts[i]]
    distinct = sorted(set(lows))
    if len(distinct) >= 5:
        lowkey = _pack(LowCategory.NO_PAIR, distinct[4::-1])
    else:
        lowkey = min(_lowkey_of_five(five) for five in set(combinations(lows, 5)))
    return _LOW_TOP - lowkey


# --------------------------------------------------------------------------------------------
# Public evaluators
# --------------------------------------------------------------------------------------------


def _check_count(n: int) -> None:
    if not _MIN_CARDS <= n <= _MAX_CARDS:
        raise ValueError(f"a stud hand is evaluated on 5 to 8 cards, got {n}")


def _high_flush(key: int, indices: Sequence[int]) -> int:
    suit = next(s for s in range(4) if key >> (_SUIT_SHIFT + 3 + 4 * s) & 1)
    mask = 0
    for i in indices:
        if i & 3 == suit:
            mask |= 1 << (i >> 2)
    rank_key = key & _RANK_MASK
    plain = _HIGH_MEMO.get(rank_key)
    if plain is None:
        plain = _HIGH_MEMO[rank_key] = _high_of_rank_key(rank_key)
    # Only with eight cards can a full house or quads coexist with a flush; max() covers it.
    return max(_FLUSH_TABLE[mask], plain)


def high_value_indices(indices: Sequence[int]) -> int:
    """``high_value`` on card indices 0..51 (the engine's hot path: no Card objects)."""
    _check_count(len(indices))
    key = _SUIT_OFFSET
    for i in indices:
        key += _CARD_KEY[i]
    if key & _FLUSH_BITS:
        return _high_flush(key, indices)
    rank_key = key & _RANK_MASK
    value = _HIGH_MEMO.get(rank_key)
    if value is None:
        value = _HIGH_MEMO[rank_key] = _high_of_rank_key(rank_key)
    return value


def high_value(cards: Sequence[Card]) -> int:
    """Value of the best five-card high hand of 5..8 cards; higher is better, equal iff tied."""
    _check_count(len(cards))
    key = _SUIT_OFFSET
    for card in cards:
        key += _CARD_KEY[card.index]
    if key & _FLUSH_BITS:
        return _high_flush(key, [card.index for card in cards])
    rank_key = key & _RANK_MASK
    value = _HIGH_MEMO.get(rank_key)
    if value is None:
        value = _HIGH_MEMO[rank_key] = _high_of_rank_key(rank_key)
    return value


# The Card and index entry points repeat the same few lines on purpose: they are the hottest code
# in the package (every showdown, every fuzzed hand), and a shared helper costs a call and a list.
def razz_value_indices(indices: Sequence[int]) -> int:
    """``razz_value`` on card indices 0..51."""
    _check_count(len(indices))
    key = 0
    for i in indices:
        key += _CARD_KEY[i]
    rank_key = key & _RANK_MASK
    value = _LOW_MEMO.get(rank_key)
    if value is None:
        value = _LOW_MEMO[rank_key] = _low_of_rank_key(rank_key)
    return value


def razz_value(cards: Sequence[Card]) -> int:
    """A-5 low value of the best five of 5..8 cards; higher = better low (5-4-3-2-A is the max)."""
    _check_count(len(cards))
    key = 0
    for card in cards:
        key += _CARD_KEY[card.index]
    rank_key = key & _RANK_MASK
    value = _LOW_MEMO.get(rank_key)
    if value is None:
        value = _LOW_MEMO[rank_key] = _low_of_rank_key(rank_key)
    return value


def low8_value_indices(indices: Sequence[int]) -> int | None:
    """``low8_value`` on card indices 0..51."""
    value = razz_value_indices(indices)
    return value if value > _LOW8_THRESHOLD else None


def low8_value(cards: Sequence[Card]) -> int | None:
    """8-or-better low value (higher = better), or None when no five distinct ranks 8 or lower.

    The best qualifying low is the best A-5 low whenever that low has no pair and tops at 8 or
    lower, and no qualifier exists otherwise; so this reuses the Razz table.
    """
    value = razz_value(cards)
    return value if value > _LOW8_THRESHOLD else None


def high_category(value: int) -> HandCategory:
    """The category of a high value."""
    return HandCategory(value >> 20)


def low_category(value: int) -> LowCategory:
    """The category of a Razz (or 8-or-better) low value."""
    return LowCategory((_LOW_TOP - value) >> 20)


# --------------------------------------------------------------------------------------------
# Best five cards (for people and the evaluation profile's blame, evaluation/explain.py; the engine's
# odd chip uses showdown._winning_five_key; not a hot path)
# --------------------------------------------------------------------------------------------


def _low_order(card: Card) -> tuple[int, int]:
    """Card order with the ace low, then suit (c < d < h < s)."""
    return (1 if card.rank == 14 else int(card.rank), card.suit.order)


def _high_order(card: Card) -> tuple[int, int]:
    return (int(card.rank), card.suit.order)


def high_best_five(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The five cards that make ``high_value(cards)``.

    Among equal-valued choices (which then differ only in suits) the set whose cards, sorted
    descending by (rank, suit), are lexicographically highest. Returned sorted descending by
    (rank ace high, suit), e.g. ``As Ah Kd 7c 2s``.
    """
    _check_count(len(cards))
    best = max(
        (sorted(five, key=_high_order, reverse=True) for five in combinations(cards, 5)),
        key=lambda five: (high_value(five), [_high_order(c) for c in five]),
    )
    return tuple(best)


def razz_best_five(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The five cards that make ``razz_value(cards)``.

    Ties broken as in ``high_best_five`` but with the ace low. Returned sorted descending by
    (rank ace low, suit), e.g. ``5s 4d 3c 2h Ac``.
    """
    _check_count(len(cards))
    best = max(
        (sorted(five, key=_low_order, reverse=True) for five in combinations(cards, 5)),
        key=lambda five: (razz_value(five), [_low_order(c) for c in five]),
    )
    return tuple(best)


def low8_best_five(cards: Sequence[Card]) -> tuple[Card, ...] | None:
    """The five cards of the best 8-or-better low, or None; ties and order as ``razz_best_five``."""
    if low8_value(cards) is None:
        return None
    return razz_best_five(cards)


# --------------------------------------------------------------------------------------------
# Descriptions
# --------------------------------------------------------------------------------------------

_RANK_NAMES = {
    1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
    8: "eight", 9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}
_RANK_SYMBOLS = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K", 14: "A"}


def _plural(rank: int) -> str:
    name = _RANK_NAMES[rank]
    return name + "es" if name.endswith("x") else name + "s"


def _symbol(rank: int) -> str:
    return _RANK_SYMBOLS.get(rank, str(rank))


def describe_high(value: int) -> str:
    """Human text of a high value, e.g. ``Two pair, aces and twos``."""
    category, ranks = _unpack(value)
    name = _RANK_NAMES
    match HandCategory(category):
        case HandCategory.STRAIGHT_FLUSH:
            return f"Straight flush, {name[ranks[0]]} high"
        case HandCategory.FOUR_OF_A_KIND:
            return f"Four of a kind, {_plural(ranks[0])}"
        case HandCategory.FULL_HOUSE:
            return f"Full house, {_plural(ranks[0])} full of {_plural(ranks[1])}"
        case HandCategory.FLUSH:
            return f"Flush, {name[ranks[0]]} high"
        case HandCategory.STRAIGHT:
            return f"Straight, {name[ranks[0]]} high"
        case HandCategory.THREE_OF_A_KIND:
            return f"Three of a kind, {_plural(ranks[0])}"
        case HandCategory.TWO_PAIR:
            return f"Two pair, {_plural(ranks[0])} and {_plural(ranks[1])}"
        case HandCategory.ONE_PAIR:
            return f"One pair, {_plural(ranks[0])}"
        case _:
            return f"High card, {name[ranks[0]]}"


_LOW_GROUP_SIZES: dict[LowCategory, tuple[int, ...]] = {
    LowCategory.NO_PAIR: (1, 1, 1, 1, 1),
    LowCategory.ONE_PAIR: (2, 1, 1, 1),
    LowCategory.TWO_PAIR: (2, 2, 1),
    LowCategory.THREE_OF_A_KIND: (3, 1, 1),
    LowCategory.FULL_HOUSE: (3, 2),
    LowCategory.FOUR_OF_A_KIND: (4, 1),
}


def describe_low(value: int) -> str:
    """Human text of a Razz or 8-or-better value, e.g. ``Seven low: 7-5-4-3-A``."""
    category_number, ranks = _unpack(_LOW_TOP - value)
    category = LowCategory(category_number)
    cards = "-".join(
        _symbol(r) for r, size in zip(ranks, _LOW_GROUP_SIZES[category]) for _ in range(size)
    )
    match category:
        case LowCategory.NO_PAIR:
            return f"{_RANK_NAMES[ranks[0]].capitalize()} low: {cards}"
        case LowCategory.ONE_PAIR:
            return f"One pair, {_plural(ranks[0])}: {cards}"
        case LowCategory.TWO_PAIR:
            return f"Two pair, {_plural(ranks[0])} and {_plural(ranks[1])}: {cards}"
        case LowCategory.THREE_OF_A_KIND:
            return f"Three of a kind, {_plural(ranks[0])}: {cards}"
        case LowCategory.FULL_HOUSE:
            return f"Full house, {_plural(ranks[0])} full of {_plural(ranks[1])}: {cards}"
        case _:
            return f"Four of a kind, {_plural(ranks[0])}: {cards}"


# --------------------------------------------------------------------------------------------
# Exposed boards (first to act on 4th-7th street)
# --------------------------------------------------------------------------------------------

#: Exposed-hand categories by group shape: only pairs, two pair, trips and quads count
#: (BET.FIRST-ACTOR.EXPOSED-RANKING); four-card straights and flushes give nothing.
_EXPOSED_SHAPES: dict[tuple[int, ...], int] = {
    (1,): 0, (1, 1): 0, (1, 1, 1): 0, (1, 1, 1, 1): 0,
    (2,): 1, (2, 1): 1, (2, 1, 1): 1,
    (2, 2): 2,
    (3,): 3, (3, 1): 3,
    (4,): 4,
}


def _exposed_groups(ranks: Sequence[int]) -> tuple[int, list[int]]:
    if not 1 <= len(ranks) <= 4:
        raise ValueError(f"an exposed stud board has 1 to 4 up cards, got {len(ranks)}")
    groups = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    return _EXPOSED_SHAPES[tuple(c for _, c in groups)], [r for r, _ in groups]


def exposed_high_key(up: Sequence[Card]) -> tuple[int, ...]:
    """Ranking key of a high board: quads > trips > two pair > pair > high cards, ace high.

    Higher tuple = better board = acts first. The key is (category, group ranks most important
    first); suits never count (ties are the engine's business, per ``first_actor_tie``).
    """
    category, ranks = _exposed_groups([int(c.rank) for c in up])
    return (category, *ranks)


def exposed_low_key(up: Sequence[Card]) -> tuple[int, ...]:
    """Ranking key of a Razz board (A-5 low): higher tuple = lower (better) board = acts first.

    Ace low; any unpaired board beats any paired one; a lower pair beats a higher pair; then
    compare from the highest card down. Encoded as the negated A-5 ranking key.
    """
    category, ranks = _exposed_groups([1 if c.rank == 14 else int(c.rank) for c in up])
    return (-category, *(-r for r in ranks))
