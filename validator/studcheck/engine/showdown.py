"""Pots, rake and awards.

Pots are layers of total contributions: a new layer starts at every live all-in player's total,
so each player is eligible exactly for the chips he could have won. Awards are then a pure function
of the layers, the shown hands and the options.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from studcheck.cards import Card, Rank
from studcheck.evaluate import high_value, low8_value, razz_value
from studcheck.rules import OddChip, Options, Variant


# Module globals, not enum attributes, on every hand's path: ten times cheaper in CPython 3.11.
_HILO, _RAZZ = Variant.STUD_HILO8, Variant.RAZZ


@dataclass(kw_only=True)
class Pot:
    amount: int
    eligible: list[int]
    winners: dict[int, int] = field(default_factory=dict)  # stud_high, razz
    high: dict[int, int] = field(default_factory=dict)  # stud_hilo8
    low: dict[int, int] = field(default_factory=dict)  # stud_hilo8 (empty: no qualifying low)


def build_pots(totals: Mapping[int, int], live: set[int], all_in: set[int]) -> tuple[list[Pot], dict[int, int]]:
    """Layers of contributions; a layer only one seat paid into is returned to it (uncalled)."""
    top = max(totals.values(), default=0)
    bounds = sorted({totals[seat] for seat in all_in if seat in live and totals[seat] > 0} | {top})
    pots: list[Pot] = []
    returned: dict[int, int] = {}
    floor = 0
    for bound in bounds:
        if bound <= floor:
            continue
        shares = {seat: (paid if paid < bound else bound) - floor for seat, paid in totals.items() if paid > floor}
        amount = sum(shares.values())
        eligible = sorted([seat for seat in live if totals.get(seat, 0) >= bound])
        if len(shares) == 1:
            (seat,) = shares
            returned[seat] = returned.get(seat, 0) + amount
        elif eligible:
            pots.append(Pot(amount=amount, eligible=eligible))
        elif pots:
            pots[-1].amount += amount  # unreachable in play: a layer with no live player left
        floor = bound
    return pots, returned


def take_rake(pots: Sequence[Pot], options: Options) -> int:
    """Whole-chip percentage of all pots, capped, taken from the main pot first."""
    total = sum(pot.amount for pot in pots)
    rake = total * options.rake_percent // 100
    if options.rake_cap > 0:
        rake = min(rake, options.rake_cap)
    left = rake
    for pot in pots:
        take = min(left, pot.amount)
        pot.amount -= take
        left -= take
    return rake


def _low_rank(card: Card) -> int:
    return 1 if card.rank is Rank.ACE else int(card.rank)


def _chip_key(card: Card, low: bool) -> tuple[int, int]:
    return (_low_rank(card) if low else int(card.rank), card.suit.order)


#: Odd-chip priority: cards by (rank, suit), highest first; the larger key is served first.
ChipKey = tuple[tuple[int, ...], ...]


def _winning_five_key(hand: Sequence[Card], value_of: Callable[[Sequence[Card]], int | None], low: bool) -> ChipKey:
    """The winning five most favourable to the player, every card of it counted, a community card
    too (POT.ODD-CHIP.WINNING-FIVE): its highest card first, and when two winners share that card
    (the community card), their next highest, and so on."""
    target = value_of(hand)
    return max(
        tuple(sorted((_chip_key(c, low) for c in five), reverse=True))
        for five in combinations(hand, 5)
        if value_of(five) == target
    )


@dataclass(frozen=True, kw_only=True)
class Side:
    """How one side of a pot is judged: its value function, and ace low or high."""

    value_of: Callable[[Sequence[Card]], int | None]
    low: bool


HIGH = Side(value_of=high_value, low=False)
RAZZ = Side(value_of=razz_value, low=True)
EIGHT = Side(value_of=low8_value, low=True)


def _priority(side: Side, hand: Sequence[Card], own: Sequence[Card], options: Options) -> ChipKey:
    """Odd-chip priority of a winner: larger is served first."""
    if options.odd_chip is OddChip.BEST_FIVE:
        return _winning_five_key(hand, side.value_of, side.low)
    if side.low:  # RRP: the lowest card by suit of all cards takes the odd chip in low games
        lowest = min((_low_rank(c), c.suit.order) for c in own)
        return ((-lowest[0], -lowest[1]),)
    return (max((int(c.rank), c.suit.order) for c in own),)


def _split_side(
    amount: int,
    contenders: Sequence[int],
    side: Side,
    hands: Mapping[int, Sequence[Card]],
    own_cards: Mapping[int, Sequence[Card]],
    options: Options,
) -> dict[int, int]:
    """The best hands of one side among the contenders share `amount` (high and Razz: every hand
    has a value, so there is always a winner)."""
    winners = _best({seat: side.value_of(hands[seat]) for seat in contenders})
    return split(amount, winners, lambda seat: _priority(side, hands[seat], own_cards[seat], options))


def split(amount: int, winners: Sequence[int], priority: Callable[[int], ChipKey]) -> dict[int, int]:
    """Equal shares; the odd chips go one each to the winners in priority order.

    Nobody is listed as winning zero chips (RAKE.PERCENT, POT.SPLIT): a pot the rake emptied pays
    nobody, and with fewer chips than tied winners only those served an odd chip are listed.
    """
    if amount == 0:
        return {}
    share, odd = divmod(amount, len(winners))
    if odd == 0:
        return {seat: share for seat in winners}
    ordered = sorted(winners, key=priority, reverse=True)
    shares = {seat: share + (1 if position < odd else 0) for position, seat in enumerate(ordered)}
    return shares if share > 0 else {seat: chips for seat, chips in shares.items() if chips > 0}


def _best(values: Mapping[int, int | None]) -> list[int]:
    scored = {seat: value for seat, value in values.items() if value is not None}
    if not scored:
        return []
    top = max(scored.values())
    return sorted(seat for seat, value in scored.items() if value == top)


def award(
    pot: Pot,
    contenders: Sequence[int],
    variant: Variant,
    options: Options,
    hands: Mapping[int, Sequence[Card]],
    own_cards: Mapping[int, Sequence[Card]],
    *,
    shown: bool,
) -> None:
    """Fill the pot's winners (or high and low halves) among `contenders`.

    Shown hands are always judged, even a single one (a lone shown Hi-Lo hand with a low takes
    both halves); a pot won without a showdown goes whole to its winner.
    """
    if not shown:
        if pot.amount > 0:  # a pot the rake emptied pays nobody (RAKE.PERCENT)
            target = pot.high if variant is _HILO else pot.winners
            target[contenders[0]] = pot.amount
        return
    if variant is not _HILO:
        side = RAZZ if variant is _RAZZ else HIGH
        pot.winners = _split_side(pot.amount, contenders, side, hands, own_cards, options)
        return
    low_half = pot.amount // 2
    low_winners = _best({seat: EIGHT.value_of(hands[seat]) for seat in contenders})
    high_share = pot.amount - low_half if low_winners else pot.amount
    high_winners = _best({seat: HIGH.value_of(hands[seat]) for seat in contenders})

    def high_priority(seat: int) -> ChipKey:
        return _priority(HIGH, hands[seat], own_cards[seat], options)

    pot.high = split(high_share, high_winners, high_priority)
    if low_winners == high_winners:
        # HILO.QUARTER.EVEN: identical hands split the pot as one, so the low half's odd chips go
        # first to those the high half gave none, each time in the high half's order.
        served = {seat for seat, chips in pot.high.items() if chips > high_share // len(high_winners)}
        pot.low = split(low_half, low_winners, lambda seat: ((int(seat not in served),), *high_priority(seat)))
    elif low_winners:  # else no qualifying low: the pot's low stays empty (HILO.NO-LOW)
        pot.low = split(low_half, low_winners, lambda seat: _priority(EIGHT, hands[seat], own_cards[seat], options))
