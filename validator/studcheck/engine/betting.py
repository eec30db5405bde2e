"""Betting: who acts, what they may do, and what an action does to the round.

The round is described by a few numbers (the level to call, the last full level, the count of full
wagers); every limit rule — completion, caps, the open-pair double bet, the half-bet rule — is
expressed in terms of them, so the legal-action list and the effect of an action cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from studcheck.cards import FULL_DECK, Card
from studcheck.engine.errors import Reason
from studcheck.evaluate import exposed_high_key, exposed_low_key
from studcheck.rules import ActionType, BringInTie, FirstActorTie, HeadsUp, Options, Street, Variant


@dataclass(kw_only=True)
class SeatState:
    """One player's mutable state inside a hand (the Hand owns and mutates it)."""

    seat: int
    stack: int
    down: list[Card]
    up: list[Card]
    # The text of `down` and `up`, kept beside them so that a snapshot copies a list of strings
    # instead of formatting every card again.
    down_text: list[str]
    up_text: list[str]
    committed: int = 0  # this street, antes excluded
    total: int = 0  # everything put in this hand, antes included
    folded: bool = False
    # The largest wager this seat had matched after its last action (its street commitment, but 0
    # while that is only the bring-in, which is not a wager); None = not acted yet this round.
    acted_at: int | None = None
    acted_after: int = 0  # the round's count of reopening wagers when this seat last acted
    shown: bool = False
    mucked: bool = False

    def deal(self, card: Card, *, face_up: bool) -> None:
        if face_up:
            self.up.append(card)
            self.up_text.append(card.text)
        else:
            self.down.append(card)
            self.down_text.append(card.text)

    @property
    def can_bet(self) -> bool:
        return not self.folded and self.stack > 0

    @property
    def all_in(self) -> bool:
        return not self.folded and self.stack == 0


@dataclass(kw_only=True)
class Round:
    """One betting round's numbers."""

    street: Street
    small: int
    big: int
    unit: int
    cap: int  # full wagers allowed: the bet (or completion) plus max_raises raises
    heads_up: HeadsUp
    began_heads_up: bool
    # Seats that can still bet (SeatState.can_bet): counted when the round opens, then kept by the
    # Hand as each action is applied (only the seat acting can fold or go all-in), so the decisions
    # read it instead of counting the table again.
    bettors: int
    double: bool = False  # open-pair option in force and no big wager made yet
    opening: bool = False  # the hand's first round (bring-in and completion): third street, five-card second
    level: int = 0  # the amount to call
    full_level: int = 0  # level of the last full bet, completion or raise
    wager_level: int = 0  # the highest bet, completion or raise so far, all-ins for less included (not the bring-in)
    wagers: int = 0  # full wagers so far
    reopening: int = 0  # full wagers that reopen for everyone (all but cumulative all-in conversions)
    capped_multiway: bool = False
    # Pot-limit and no-limit (BIGBET.*): no cap, no double bet, no completion. `raise_size` is the
    # size of the last full bet or raise (the bring-in until someone bets or raises): the minimum
    # raise increment, and what a wager must add to be full and reopen the betting.
    big_bet: bool
    pot_limit: bool
    raise_size: int
    # Pot/no limit, option big_bet_bring_in: the bring-in seat may open for more and its post is an
    # action (BIGBET.BRING-IN.OPEN-ANY), or the post is forced like a blind (BIGBET.BRING-IN.FORCED).
    bring_in_open: bool


# (kind, amount, top): `top` is None except for a pot/no-limit wager, whose legal amounts are the
# whole range amount..top.
LegalEntry = tuple[ActionType, int | None, int | None]
LegalList = Sequence[LegalEntry]

# Enum members used on every decision or round: a module global is about ten times cheaper to read
# in CPython 3.11 than an attribute of the enum class (EnumType.__getattr__ slows every such look-up).
# For the same reason the hot paths write the smaller or larger of two numbers as a conditional
# expression: the builtins min and max parse keyword arguments on every call, also about ten times
# the cost.
_FOLD, _CHECK, _CALL = ActionType.FOLD, ActionType.CHECK, ActionType.CALL
_BRING_IN, _COMPLETE, _BET, _RAISE = ActionType.BRING_IN, ActionType.COMPLETE, ActionType.BET, ActionType.RAISE
_FOLD_ENTRY, _CHECK_ENTRY = (_FOLD, None, None), (_CHECK, None, None)
_ROUND_BEGINS, _BEFORE_CAP = HeadsUp.ROUND_BEGINS, HeadsUp.BEFORE_CAP
_ILLEGAL, _CAPPED, _NOT_REOPENED = Reason.ILLEGAL_ACTION, Reason.RAISE_CAP_REACHED, Reason.BETTING_NOT_REOPENED
_RAZZ, _BRING_IN_SUIT, _FIRST_ACTOR_SUIT = Variant.RAZZ, BringInTie.SUIT, FirstActorTie.SUIT


def count_bettors(seats: Sequence[SeatState]) -> int:
    """Seats that can still bet (SeatState.can_bet, inlined: this runs on every decision)."""
    count = 0
    for seat in seats:
        if not seat.folded and seat.stack > 0:
            count += 1
    return count


def next_to_act(seats: Sequence[SeatState], first: int, round_: Round) -> int | None:
    """The first seat from position `first` (0 to len(seats)) on, clockwise and wrapping, that needs
    to act: one that can bet and faces chips to call, or has not acted yet while someone else could
    still bet against it."""
    count = len(seats)
    level = round_.level
    for position in range(first, first + count):
        seat = seats[position % count]
        if seat.folded or seat.stack <= 0:
            continue
        if seat.committed < level:
            return seat.seat
        if seat.acted_at is None and round_.bettors > 1:  # he is one of them
            return seat.seat
    return None


def _uncapped(round_: Round) -> bool:
    if round_.heads_up is _ROUND_BEGINS:
        return round_.began_heads_up
    if round_.heads_up is _BEFORE_CAP:
        return not round_.capped_multiway and round_.bettors == 2
    return False


def wager_kind(round_: Round) -> ActionType:
    """A bet opens a round; in the opening round the first full wager is a completion (in fixed
    limit: pot and no limit have no completion, BIGBET.BRING-IN.OPEN-ANY); else a raise."""
    if round_.level == 0:
        return _BET
    if round_.wagers == 0 and round_.opening and not round_.big_bet:
        return _COMPLETE
    return _RAISE


def wager_block(seat: SeatState, round_: Round) -> Reason | None:
    """Why this seat, the one to act (who can bet), may not bet, complete or raise now (None: it may)."""
    if seat.committed + seat.stack <= round_.level:
        return _ILLEGAL  # he cannot even cover the call
    if round_.bettors < 2:  # nobody else can bet: no one to wager against
        return _ILLEGAL
    if round_.wagers >= round_.cap and not _uncapped(round_):
        return _CAPPED
    if not _reopened(seat, round_):
        return _NOT_REOPENED
    return None


def _reopened(seat: SeatState, round_: Round) -> bool:
    """Has he not acted yet, or has the betting been reopened to him since (ALLIN.REOPEN.PER-PLAYER)?

    A full wager made on its own reopens for everyone. Short all-ins that only add up to a full
    raise reopen for a player only if the wager he faces grew by half a unit since he acted: "if the
    resulting wager size to a player qualifies as a raise" (RRP, WSOP-L24 129). The bring-in is not
    a wager: a player who only posted or called it is measured from 0, as the completion is.
    """
    if seat.acted_at is None or round_.reopening > seat.acted_after:
        return True
    if round_.big_bet:  # the full-raise rule (BIGBET.FULL-RAISE, BIGBET.CUMULATIVE)
        return round_.level - seat.acted_at >= round_.raise_size
    return 2 * (round_.level - seat.acted_at) >= round_.unit


def wager_targets(seat: SeatState, round_: Round) -> list[int]:
    """The "to" amounts this seat may wager: the full targets it can afford, and all-in for less
    when it cannot afford the largest one (ALLIN.CALL-SHORT)."""
    most = seat.committed + seat.stack
    if round_.double and round_.big != round_.small:
        full = [round_.full_level + round_.small, round_.full_level + round_.big]
    else:
        full = [round_.full_level + round_.unit]
    if full[-1] <= most:  # every target affordable: the usual case
        return full
    targets = [target for target in full if target <= most]
    if most < full[-1] and most > round_.level and most not in targets:
        targets.append(most)
    return targets


def wager_range(seat: SeatState, round_: Round, seats: Sequence[SeatState]) -> tuple[int, int]:
    """Pot/no-limit: the lowest and highest "to" amount this seat may bet or raise.

    The lowest is the amount to call plus the last full bet or raise (BIGBET.MIN-BET,
    BIGBET.MIN-RAISE); the highest is the whole stack (BIGBET.NO-LIMIT-MAX) or, in pot limit, the
    call plus the pot after the call: level + (every chip in the middle + level - own bet)
    (BIGBET.POT-MAX). A seat that cannot reach the lowest may go all-in for less (BIGBET.ALL-IN-SHORT).
    """
    most = seat.committed + seat.stack
    level = round_.level
    high = most
    if round_.pot_limit:
        middle = 0
        for other in seats:
            middle += other.total
        pot_max = 2 * level - seat.committed + middle
        if pot_max < high:
            high = pot_max
    low = level + round_.raise_size
    return (low if low < high else high), high


def legal_actions(
    seat: SeatState, round_: Round, seats: Sequence[SeatState], *, bring_in: int, is_bring_in_seat: bool
) -> tuple[LegalEntry, ...]:
    most = seat.committed + seat.stack
    level = round_.level
    may_wager = wager_block(seat, round_) is None
    if level == 0 and round_.opening:
        # Nobody has opened: the bring-in seat must post or complete; if it was all-in on the
        # ante, each player in turn opens for at least the bring-in or folds (TDA RP-10-E). In pot
        # and no limit the bring-in is the opening bet; the opener may instead bet any amount above
        # it (BIGBET.BRING-IN.OPEN-ANY) unless the bring-in is forced (BIGBET.BRING-IN.FORCED).
        opening: list[LegalEntry] = [] if is_bring_in_seat else [_FOLD_ENTRY]
        opening.append((_BRING_IN, min(bring_in, most), None))
        if may_wager and not round_.big_bet:
            opening += [(_COMPLETE, t, None) for t in wager_targets(seat, round_) if t > bring_in]
        elif may_wager and round_.bring_in_open:
            high = wager_range(seat, round_, seats)[1]
            if high > bring_in:
                opening.append((_BET, bring_in + 1, high))
        return tuple(opening)
    call = _CHECK_ENTRY if seat.committed >= level else (_CALL, level if level < most else most, None)
    if not may_wager:
        return (_FOLD_ENTRY, call)
    if round_.big_bet:
        low, high = wager_range(seat, round_, seats)
        return (_FOLD_ENTRY, call, (wager_kind(round_), low, high))
    kind = wager_kind(round_)
    targets = wager_targets(seat, round_)
    if len(targets) == 1:  # the usual case, without building a list
        return (_FOLD_ENTRY, call, (kind, targets[0], None))
    return (_FOLD_ENTRY, call, *[(kind, target, None) for target in targets])


def apply_wager(seat: SeatState, round_: Round, amount: int) -> None:
    """Bet, complete or raise to `amount`; decides whether it is a full wager (half-bet rule)."""
    if round_.big_bet:
        _apply_big_wager(seat, round_, amount)
        return
    active = round_.bettors  # before paying (the Hand counts after): an all-in raiser still counts
    # The wager it faced: the last bet, completion or raise, all-in or not; the bring-in is none.
    faced, unit_before = round_.wager_level, round_.unit
    _pay_to(seat, amount)
    increment = amount - round_.full_level
    full = increment >= round_.unit or (seat.stack == 0 and 2 * increment >= round_.unit)
    if amount > round_.level:
        round_.level = amount
    round_.wager_level = amount if amount > faced else faced
    if full:
        if round_.double and increment == round_.big and round_.big != round_.small:
            round_.double = False
            round_.unit = round_.big
        round_.full_level = amount
        round_.wagers += 1
        # An all-in that is full only together with earlier short all-ins reopens per player.
        if not (seat.stack == 0 and 2 * (amount - faced) < unit_before):
            round_.reopening += 1
        if round_.wagers >= round_.cap and active > 2:
            round_.capped_multiway = True
    _acted(seat, round_)


def _apply_big_wager(seat: SeatState, round_: Round, amount: int) -> None:
    """Pot/no-limit: a wager adding at least the last full bet or raise is full and its size is the
    new minimum raise; a shorter (all-in) one only raises the level (BIGBET.FULL-RAISE: the
    half-bet rule is for limit poker only).

    Nothing else is counted: there is no cap, and whom a wager reopens the betting for follows from
    the level alone (_reopened: a full raise since a seat acted lifts the level by at least the raise
    size over what it matched), so the fixed-limit counters stay unused.
    """
    _pay_to(seat, amount)
    if amount - round_.level > round_.raise_size:
        round_.raise_size = amount - round_.level
    round_.level = amount  # every listed target is above the level
    _acted(seat, round_)


def apply_bring_in(seat: SeatState, round_: Round, amount: int, bring_in: int) -> None:
    """The bring-in sets the level to the full bring-in even when posted all-in for less."""
    _pay_to(seat, amount)
    if bring_in > round_.level:
        round_.level = bring_in
    _acted(seat, round_)
    if round_.big_bet and not round_.bring_in_open:
        # A forced post is no action, as a blind is not (BIGBET.BRING-IN.FORCED): measured from 0,
        # any wager since then lets the seat raise (_reopened), and a called bring-in still ends the round.
        seat.acted_at = 0


def apply_call(seat: SeatState, round_: Round) -> None:
    most = seat.committed + seat.stack
    _pay_to(seat, round_.level if round_.level < most else most)
    _acted(seat, round_)


def apply_check(seat: SeatState, round_: Round) -> None:
    _acted(seat, round_)


def _acted(seat: SeatState, round_: Round) -> None:
    committed = seat.committed
    if round_.big_bet:  # the bring-in is the opening bet: posting it is acting at its level
        seat.acted_at = committed  # never above the level; below it only all-in, never asked again
    else:
        seat.acted_at = committed if committed <= round_.wager_level else round_.wager_level
    seat.acted_after = round_.reopening


def _pay_to(seat: SeatState, amount: int) -> None:
    pay = amount - seat.committed
    seat.stack -= pay
    seat.committed = amount
    seat.total += pay


# --- who acts first -------------------------------------------------------------------------


def _card_key(card: Card, ace_low: bool) -> tuple[int, int]:
    """(rank, suit order), the ace ranked 1 when `ace_low`; read from the index (rank - 2) * 4 + suit
    order, which is cheaper than the Rank and Suit enum properties."""
    rank = (card.index >> 2) + 2
    return (1 if ace_low and rank == 14 else rank, card.index & 3)


def _door_badness(card: Card, razz: bool, by_suit: bool) -> int:
    """How surely a door card brings it in (larger: more surely), as one number. Stud/Hi-Lo: the
    lowest card, ace high; Razz: the highest, ace low; by suit or not (then the seat decides)."""
    rank, suit = _card_key(card, razz)
    if not razz:
        rank, suit = -rank, -suit
    return 4 * rank + (suit if by_suit else 0)  # suit order is 0..3: the rank comes first


#: _door_badness of every card by index, for (razz, by suit): one look-up a seat per hand.
_DOOR_BADNESS = {
    (razz, by_suit): tuple(_door_badness(card, razz, by_suit) for card in FULL_DECK)
    for razz in (False, True)
    for by_suit in (False, True)
}


def bring_in_seat(variant: Variant, options: Options, door_cards: dict[int, Card]) -> int:
    """Stud/Hi-Lo: lowest door card, ace high. Razz: highest, ace low. Ties per the option."""
    badness_of = _DOOR_BADNESS[variant is _RAZZ, options.bring_in_tie is _BRING_IN_SUIT]
    worst_seat = -1
    worst: tuple[int, int] | None = None
    for seat, card in door_cards.items():
        badness = (badness_of[card.index], -seat)
        if worst is None or badness > worst:  # badnesses differ in -seat at least
            worst, worst_seat = badness, seat
    return worst_seat


def first_actor_seat(variant: Variant, options: Options, boards: Mapping[int, Sequence[Card]]) -> int:
    """The best exposed board (Razz: lowest) among the given live seats; ties per the option."""
    razz = variant is _RAZZ
    key_of = _exposed_low if razz else _exposed_high
    by_suit = options.first_actor_tie is _FIRST_ACTOR_SUIT

    best_seat = -1
    best: tuple[tuple[int, ...], tuple[int, int], int] | None = None
    for seat, board in boards.items():
        tie = max([_card_key(card, razz) for card in board]) if by_suit else (0, 0)
        strength = (key_of(tuple(sorted([card.index >> 2 for card in board]))), tie, -seat)  # ranks - 2
        if best is None or strength > best:  # strengths differ in -seat at least
            best, best_seat = strength, seat
    return best_seat


@lru_cache(maxsize=None)
def _exposed_high(ranks: tuple[int, ...]) -> tuple[int, ...]:
    return exposed_high_key([FULL_DECK[4 * r] for r in ranks])


@lru_cache(maxsize=None)
def _exposed_low(ranks: tuple[int, ...]) -> tuple[int, ...]:
    return exposed_low_key([FULL_DECK[4 * r] for r in ranks])


def clockwise_from(order: Sequence[int], start: int) -> list[int]:
    """Seats in clockwise order beginning with `start` (seat numbers ascend clockwise)."""
    index = order.index(start)
    return list(order[index:]) + list(order[:index])
