"""Cards for a PHH history's unknown (`??`) up cards that keep who brings in and who acts first.

A history shows who acted first on each street; an up card decides that (the door cards the
bring-in, the boards each later street's first actor). So the unknown up cards must get cards,
distinct from every card the history shows (dealt or shown at showdown), under which the reference
engine's rules give the turn to the seat the history has acting first: the best board (or the
bring-in) itself, or an all-in seat just before it, whose turn passes on. When the known cards
alone already decide against the history (a disputed hand), the filled cards only must not change
that decision, so the case stays disputed by its known cards.

The search is complete (it finds cards when any exist, and says none exist only when it has shown
it) and bounded:

- depth-first over the unknown up cards, street by street, doors first, within a street the seats
  that must win its decision first;
- after each card, every decision the card counts in is checked with bounds: for each seat the
  best and worst board its unknown cards could still make from the unused ranks; some seat allowed
  to win must be able to beat every other seat's worst (a relaxation: it never prunes a card that
  a solution uses);
- a dead end is explained by the earlier cards that cause it (the seats whose boards cannot be
  beaten, or the cards that used up a rank), and the search jumps back to the latest of those
  (conflict-directed backjumping) instead of retrying the cards in between;
- cards of one rank are tried once where suits cannot matter (ties broken by seat; a door's suit
  only breaks a bring-in tie, so the most or least likely to bring in of each rank stands for it);
- the boards and unused ranks at the start of a street that already failed are not searched again;
- a run that takes long restarts with the order shaken a little (runs of the Luby sequence times
  `_Search.UNIT` cards, seeded by the run number, so the answer depends on the file alone);
- at most `BUDGET` cards are tried in all; past that the import stops and says so.

Cards are tried in an order that makes natural choices first: doors from the weakest board (the
next card to bring in), later cards from the strongest board for a seat that must act first and
from the weakest for the others.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Protocol

from studcheck.cards import FULL_DECK, Card
from studcheck.cases.deck import CARD_STREETS, card_name
from studcheck.evaluate import exposed_high_key, exposed_low_key
from studcheck.rules import BringInTie, FirstActorTie, Options, SeatSetup, Stakes, Variant

#: cards tried in all, by the search and, when it shows that no cards exist, by the search for the street
#: to blame (about two seconds at a table of seven; of 17,700 blanked real hands none needed over 4,100)
BUDGET = 20_000
#: the up cards of a seven-card seat (door, fourth, fifth, sixth street) by index in its dealt cards
UP_CARDS = (2, 3, 4, 5)

Slot = tuple[int, int]  # (seat, index of the card in its dealt cards)
Strength = tuple[object, ...]


class FillError(ValueError):
    """No cards keep the history's decisions (`exhausted` false), or the search hit BUDGET."""

    def __init__(self, message: str, *, exhausted: bool = False) -> None:
        super().__init__(message)
        self.exhausted = exhausted


class Move(Protocol):
    """What the decisions need of a history action (import_.Move): PHH's code, and the cards held then."""

    @property
    def seat(self) -> int: ...
    @property
    def code(self) -> str: ...
    @property
    def amount(self) -> int | None: ...
    @property
    def cards(self) -> int: ...


@dataclass(frozen=True, kw_only=True)
class Decision:
    """The bring-in (cards=3) or the first actor of a later street (cards=4..7), as the history plays it."""

    cards: int
    seats: tuple[int, ...]  # the seats compared: all for the bring-in, the live ones later
    target: int  # the seat the history shows acting first
    allowed: frozenset[int]  # seats whose win gives the target the turn (it, or all-in seats just before it)
    disputed_by: int | None = None  # the known cards give the turn to this seat instead: keep it
    #: sixth street only: the seventh street's target, when its decision (same boards) narrowed `allowed`
    seventh: int | None = None

    @property
    def street(self) -> str:
        return CARD_STREETS[self.cards - 1].value

    @property
    def end(self) -> int:
        """The dealt cards 2 to end-1 decide: the door for the bring-in, else the up cards so far."""
        return 3 if self.cards == 3 else min(self.cards, 6)

    def numbers(self) -> range:
        return range(2, self.end)

    def board(self, dealt: Sequence[Card | None]) -> Sequence[Card | None]:
        return dealt[2:self.end]

    def describe(self, variant: Variant) -> str:
        """Why the history cannot be played: who it has acting, and the rule that decides."""
        razz = variant is Variant.RAZZ
        if self.cards == 3:
            act, rule = "bring in", f"the {'highest' if razz else 'lowest'} door card brings in"
        else:
            act, rule = "act first", f"the {'lowest' if razz else 'best'} board acts first"
        if self.disputed_by is not None:
            return (f"the known cards have seat {self.disputed_by} {act} ({rule}; the history has seat "
                    f"{self.target}) and the unknown cards cannot keep it so")
        passed = sorted(self.allowed - {self.target})
        via = (f", nor can the all-in seat{'s' if len(passed) > 1 else ''} before it whose turn would pass to it "
               f"({', '.join(f'seat {s}' for s in passed)})" if passed else "")
        same = (f"; seventh street's boards are the same and the history has seat {self.seventh} act first there"
                if self.seventh is not None else "")
        return f"seat {self.target} cannot {act} as the history has it ({rule}){via}{same}"


def decisions(variant: Variant, options: Options, stakes: Stakes, seats: Sequence[SeatSetup],
              cards: Mapping[int, Sequence[Card | None]], moves: Sequence[Move]) -> list[Decision]:
    """Every street's decision that the history shows (someone acts on that street), in street order.

    Chips are followed through the actions to know who is all-in when each street begins: an
    all-in seat that wins the decision passes the turn to the next seat that can act. A history
    whose actions or known cards already contradict the rules (the engine will refuse an action
    there) gets no decision after that street: the replay stops at the refusal.
    """
    order = sorted(cards)
    stack = {s.seat: s.stack - min(stakes.ante, s.stack) for s in seats}
    folded: set[int] = set()
    out: list[Decision] = []
    for held in range(3, 8):
        street = [m for m in moves if m.cards == held and m.code != "sm"]
        compared = tuple(seat for seat in order if len(cards[seat]) >= min(held, 6) and seat not in folded)
        if street and compared:
            target = street[0].seat
            allowed = frozenset(seat for seat in compared if _first_from(seat, order, folded, stack) == target)
            if held == 3 and street[0].code == "f":  # the bring-in seat may not fold (BRING-IN.CHOICE): the
                allowed -= {target}  # history's folder acts first only after an all-in bring-in seat
            if not allowed:  # the target cannot act (folded, all-in): the engine refuses the action
                break
            decision = Decision(cards=held, seats=compared, target=target, allowed=allowed)
            decision = _against_known(decision, variant, options, cards)
            out.append(decision)
            if decision.disputed_by is not None:
                break
        _follow_chips(street, stakes, stack, folded)
    return _same_boards(out)


def _same_boards(found: list[Decision]) -> list[Decision]:
    """Seventh street's boards are sixth street's: a sixth-street winner still live must win seventh street too."""
    sixth = next((d for d in found if d.cards == 6 and d.disputed_by is None), None)
    seventh = next((d for d in found if d.cards == 7 and d.disputed_by is None), None)
    if sixth is None or seventh is None:
        return found
    allowed = frozenset(seat for seat in sixth.allowed if seat not in seventh.seats or seat in seventh.allowed)
    if allowed == sixth.allowed:
        return found
    narrowed = replace(sixth, allowed=allowed, seventh=seventh.target)
    return [narrowed if d is sixth else d for d in found]


def _first_from(seat: int, order: Sequence[int], folded: set[int], stack: Mapping[int, int]) -> int | None:
    """Who acts when `seat` wins the decision: it, or the next seat clockwise that has chips (engine's next_to_act)."""
    start = order.index(seat)
    for step in range(len(order)):
        other = order[(start + step) % len(order)]
        if other not in folded and stack.get(other, 0) > 0:
            return other
    return None


def _follow_chips(street: Sequence[Move], stakes: Stakes, stack: dict[int, int], folded: set[int]) -> None:
    """One street's actions, paid as the reference engine pays them (betting.apply_*): who is all-in after it."""
    committed: dict[int, int] = {}
    level = 0
    for move in street:
        have, put = stack.get(move.seat, 0), committed.get(move.seat, 0)
        if move.code == "f":
            folded.add(move.seat)
            continue
        if move.code == "pb":  # a bring-in posted all-in for less still makes the others pay it all
            pay, level = min(stakes.bring_in, have), max(level, stakes.bring_in)
        elif move.code == "cc":
            pay = min(max(level - put, 0), have)
        else:
            pay = min(max((move.amount or 0) - put, 0), have)
        stack[move.seat] = have - pay
        committed[move.seat] = put + pay
        level = max(level, put + pay)


def _against_known(decision: Decision, variant: Variant, options: Options,
                   cards: Mapping[int, Sequence[Card | None]]) -> Decision:
    """When every allowed seat's board is known, the known boards decide: a disputed one keeps its winner."""
    blind = {seat for seat in decision.seats if any(c is None for c in decision.board(cards[seat]))}
    if decision.allowed & blind:
        return decision
    known = [seat for seat in decision.seats if seat not in blind]
    winner = _decide(decision, variant, options, {seat: cards[seat] for seat in known})
    if winner in decision.allowed:
        return decision
    return Decision(cards=decision.cards, seats=decision.seats, target=decision.target,
                    allowed=frozenset({winner}), disputed_by=winner)


def _decide(decision: Decision, variant: Variant, options: Options,
            cards: Mapping[int, Sequence[Card | None]]) -> int:
    """The engine's own answer for complete boards."""
    from studcheck.engine.betting import bring_in_seat, first_actor_seat

    boards = {seat: [_known(c) for c in decision.board(dealt)] for seat, dealt in cards.items()}
    if decision.cards == 3:
        return bring_in_seat(variant, options, {seat: board[0] for seat, board in boards.items()})
    return first_actor_seat(variant, options, boards)


def _known(card: Card | None) -> Card:
    assert card is not None
    return card


# --- strengths and their bounds --------------------------------------------------------------------


@dataclass(frozen=True)
class _Rules:
    razz: bool
    bring_in_by_suit: bool
    first_by_suit: bool

    def door(self, card: Card, seat: int) -> Strength:
        """How surely `card` brings in (larger brings in), as the engine's bring_in_seat ranks it."""
        rank, suit = _card_key(card, self.razz)
        if not self.razz:
            rank, suit = -rank, -suit
        return (rank, suit if self.bring_in_by_suit else 0, -seat)

    def board(self, board: Sequence[Card], seat: int) -> Strength:
        """How surely a board acts first (larger acts first), as the engine's first_actor_seat ranks it."""
        tie = max(_card_key(c, self.razz) for c in board) if self.first_by_suit else (0, 0)
        return (_key(self.razz, tuple(sorted(c.index >> 2 for c in board))), tie, -seat)


def _card_key(card: Card, ace_low: bool) -> tuple[int, int]:
    rank = (card.index >> 2) + 2
    return (1 if ace_low and rank == 14 else rank, card.index & 3)


@lru_cache(maxsize=None)
def _key(razz: bool, ranks: tuple[int, ...]) -> tuple[int, ...]:
    cards = [FULL_DECK[4 * r] for r in ranks]
    return exposed_low_key(cards) if razz else exposed_high_key(cards)


def _key_bounds(razz: bool, known: tuple[int, ...], free: int,
                counts: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(best, worst) key of a board with the `known` ranks and `free` more from ranks with `counts` left."""
    options = _completions(razz, known, free)
    best = next((key for key, needs in options if all(counts[rank] >= many for rank, many in needs)), None)
    worst = next((key for key, needs in reversed(options) if all(counts[rank] >= many for rank, many in needs)), None)
    return None if best is None or worst is None else (best, worst)


@lru_cache(maxsize=4096)
def _completions(razz: bool, known: tuple[int, ...],
                 free: int) -> list[tuple[tuple[int, ...], tuple[tuple[int, int], ...]]]:
    """Every way to add `free` ranks to `known`: (key, ((rank, how many of it), ...)), the best key first."""
    out = []
    for extra in combinations_with_replacement(range(13), free):
        needs = tuple((rank, extra.count(rank)) for rank in sorted(set(extra)))
        out.append((_key(razz, tuple(sorted(known + extra))), needs))
    out.sort(key=lambda item: item[0], reverse=True)
    return out


_TOP = (99, 99)
_BOTTOM = (-1, -1)


def _luby(index: int) -> int:
    """1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ...: the restart lengths that waste at most a log factor."""
    size, power = 1, 0
    while size < index + 1:
        size, power = 2 * size + 1, power + 1
    while size - 1 != index:
        size //= 2
        power -= 1
        index %= size
    return 1 << power


class _Budget:
    def __init__(self, tries: int) -> None:
        self.total = self.left = tries


class _Search:
    """Depth-first search with restarts over the slots that some decision depends on.

    run() is True with every slot filled in `cards`, False when the search proved that no cards
    exist, None when the budget ran out first.
    """

    #: tries in the shortest restart (restarts follow the Luby sequence times this)
    UNIT = 64

    def __init__(self, variant: Variant, options: Options, cards: dict[int, list[Card | None]],
                 order: Sequence[Slot], decisions: Sequence[Decision], budget: _Budget) -> None:
        self.variant, self.options, self.cards, self.decisions, self.budget = \
            variant, options, cards, list(decisions), budget
        self.rules = _Rules(razz=variant is Variant.RAZZ, bring_in_by_suit=options.bring_in_tie is BringInTie.SUIT,
                            first_by_suit=options.first_actor_tie is FirstActorTie.SUIT)
        used = {card for dealt in cards.values() for card in dealt if card is not None}
        self.unused = {card for card in FULL_DECK if card not in used}
        self.counts = [0] * 13
        for card in self.unused:
            self.counts[card.index >> 2] += 1
        #: every card, the surest to bring in first (a free door's bounds are the first and last unused)
        self.door_order = sorted(FULL_DECK, key=lambda c: self.rules.door(c, 0), reverse=True)
        self.touches = {slot: [d for d in self.decisions if slot[0] in d.seats and slot[1] in d.numbers()]
                        for slot in order}
        self.slots = [slot for slot in order if self.touches[slot]]
        self.rest = [slot for slot in order if not self.touches[slot]]
        self.failed: dict[object, set[int]] = {}
        self.position = {slot: index for index, slot in enumerate(self.slots)}
        self.start_unused, self.start_counts = set(self.unused), list(self.counts)
        self.left = 0
        self.cut = False
        self.shake: random.Random | None = None

    def run(self) -> bool | None:
        attempt = 0
        while self.budget.left > 0:
            self.left = min(self.budget.left, _luby(attempt) * self.UNIT)
            self.cut = False
            self.shake = random.Random(attempt) if attempt else None  # deterministic: same file, same cards
            spent = self.left
            found = self._place(0) is True
            self.budget.left -= spent - self.left
            if found:
                for seat, number in self.rest:  # no decision depends on them: the first unused card
                    card = min(self.unused, key=lambda c: c.index, default=None)
                    if card is None:
                        return False
                    self._set(seat, number, card)
                return True
            if not self.cut:
                return False
            attempt += 1
        return None

    # bounds -----------------------------------------------------------------------------------

    def _bounds(self, decision: Decision, seat: int, *, pristine: bool = False) -> tuple[Strength, Strength] | None:
        """(best, worst) strength the seat's board can still reach; `pristine`: from the seat's own cards only,
        as if no other unknown card were filled (an explanation that names just this seat)."""
        board = self.cards[seat][2:decision.end]
        if decision.cards == 3:
            door = board[0]
            if door is not None:
                exact = self.rules.door(door, seat)
                return exact, exact
            unused = self.start_unused if pristine else self.unused
            best = next((c for c in self.door_order if c in unused), None)
            worst = next((c for c in reversed(self.door_order) if c in unused), None)
            if best is None or worst is None:
                return None
            return self.rules.door(best, seat), self.rules.door(worst, seat)
        known = [c for c in board if c is not None]
        free = len(board) - len(known)
        if free == 0:
            exact = self.rules.board(known, seat)
            return exact, exact
        keys = _key_bounds(self.rules.razz, tuple(sorted([c.index >> 2 for c in known])), free,
                           self.start_counts if pristine else self.counts)
        if keys is None:
            return None
        if self.rules.first_by_suit:
            low_tie = max((_card_key(c, self.rules.razz) for c in known), default=_BOTTOM)
            return (keys[0], _TOP, -seat), (keys[1], low_tie, -seat)
        return (keys[0], (0, 0), -seat), (keys[1], (0, 0), -seat)

    def _why(self, decision: Decision, index: int) -> set[int] | None:
        """None while some allowed seat can still beat every other seat's worst board; else the positions
        of the filled slots (up to `index`) that make it impossible: for each allowed seat, its cards and
        those of a seat it can no longer beat, or every filled slot when the unused cards are the reason."""
        bounds = {}
        for seat in decision.seats:
            got = self._bounds(decision, seat)
            if got is None:
                return set(range(index + 1))
            bounds[seat] = got
        beaten = {winner: [seat for seat in decision.seats if seat != winner and bounds[winner][0] <= bounds[seat][1]]
                  for winner in decision.allowed}
        if not all(beaten.values()):
            return None
        why: set[int] = set()
        for winner in sorted(decision.allowed):
            best = self._bounds(decision, winner, pristine=True)
            reason = next((seat for seat in beaten[winner] if best is not None and (
                worst := self._bounds(decision, seat, pristine=True)) is not None and best[0] <= worst[1]), None)
            if reason is None:
                return set(range(index + 1))
            why |= {self.position[(seat, number)] for seat in (winner, reason) for number in decision.numbers()
                    if (seat, number) in self.position and self.position[(seat, number)] <= index}
        return why

    # search -----------------------------------------------------------------------------------

    def _set(self, seat: int, number: int, card: Card | None) -> None:
        old = self.cards[seat][number]
        if old is not None:
            self.unused.add(old)
            self.counts[old.index >> 2] += 1
        if card is not None:
            self.unused.discard(card)
            self.counts[card.index >> 2] -= 1
        self.cards[seat][number] = card

    def _state(self, index: int) -> object:
        """What the search from slots[index] on depends on: ranks only where suits cannot matter."""
        doors_open = self.rules.bring_in_by_suit and any(n == 2 for _seat, n in self.slots[index:])
        if self.rules.first_by_suit or doors_open:
            return index, tuple(tuple(d) for _s, d in sorted(self.cards.items())), frozenset(self.unused)
        return (index, tuple(tuple(None if c is None else c.index >> 2 for c in d[2:6])
                             for _s, d in sorted(self.cards.items())), tuple(self.counts))

    def _place(self, index: int) -> bool | set[int]:
        """Fill slots[index:]: True, or the positions of the earlier slots that explain the failure
        (conflict-directed backjumping: a slot not among them is skipped on the way back)."""
        if index == len(self.slots):
            return True if self._exact() else set(range(index))
        seat, number = self.slots[index]
        state = self._state(index) if index == 0 or self.slots[index - 1][1] != number else None
        if state is not None and state in self.failed:
            return self.failed[state]
        conflict: set[int] = set()
        for card in self._candidates(seat, number):
            if self.left <= 0:
                self.cut = True
                break
            self.left -= 1
            self._set(seat, number, card)
            why = next((w for d in self.touches[(seat, number)] if (w := self._why(d, index)) is not None), None)
            if why is not None:
                conflict |= why - {index}
                continue
            below = self._place(index + 1)
            if below is True:
                return True
            if self.cut:
                break
            assert isinstance(below, set)
            if index not in below:  # this card is not the reason: no other card can help here
                conflict = below
                break
            conflict |= below - {index}
        self._set(seat, number, None)
        if self.cut:
            return set(range(index))
        conflict |= self._taken(number, index)
        if state is not None:
            self.failed[state] = conflict
        return conflict

    def _taken(self, number: int, index: int) -> set[int]:
        """The earlier slots whose cards this slot could not have: they are part of any failure here.

        One card a rank is tried, so a rank is missing only when all its unused cards are taken; where
        suits count (door suits breaking bring-in ties, or first_actor_tie: suit) every earlier card is.
        """
        if self.rules.first_by_suit or (number == 2 and self.rules.bring_in_by_suit):
            return set(range(index))
        gone = {rank for rank in range(13) if self.counts[rank] == 0 and self.start_counts[rank] > 0}
        return {self.position[(seat, n)] for seat, n in self.slots[:index]
                if (card := self.cards[seat][n]) is not None and card.index >> 2 in gone}

    def _exact(self) -> bool:
        """Complete boards: the engine's own functions must agree (the bounds are then exact)."""
        return all(_decide(d, self.variant, self.options, {seat: self.cards[seat] for seat in d.seats}) in d.allowed
                   for d in self.decisions)

    def _candidates(self, seat: int, number: int) -> list[Card]:
        """The unused cards to try for this slot, in order.

        Where suits only break bring-in ties, one card a rank is enough: the most likely to bring in
        for a seat that must bring in, else the least likely (any solution can be made to use those).
        Where suits never matter, the first card of each rank in canonical order. Doors are tried
        from the weakest board (the surest to bring in) for every seat: a seat that must not bring in
        gets the first card that does not; later cards from the strongest board for a seat that must
        act first, from the weakest for the others. A restart shakes that order a little.
        """
        free = sorted(self.unused, key=lambda c: c.index)
        role = self.touches[(seat, number)][0]
        win = seat in role.allowed
        if not self.rules.first_by_suit:
            pick: dict[int, Card] = {}
            for card in free:
                rank = card.index >> 2
                if rank not in pick:
                    pick[rank] = card
                elif number == 2 and self.rules.bring_in_by_suit:
                    if (self.rules.door(card, seat) > self.rules.door(pick[rank], seat)) == win:
                        pick[rank] = card
            free = list(pick.values())

        def strength(card: Card) -> Strength:
            if role.cards == 3:
                return self.rules.door(card, seat)
            board = [c for c in role.board(self.cards[seat]) if c is not None]
            return self.rules.board([*board, card], seat)

        strongest = win or role.cards == 3
        ordered = sorted(free, key=lambda c: (strength(c), -c.index if strongest else c.index), reverse=strongest)
        if self.shake is not None:
            noise = [position + 4 * self.shake.random() for position in range(len(ordered))]
            ordered = [card for _n, card in sorted(zip(noise, ordered), key=lambda pair: pair[0])]
        return ordered


def fill_up_cards(variant: Variant, options: Options, cards: dict[int, list[Card | None]],
                  found: Sequence[Decision], budget: int = BUDGET) -> list[tuple[int, int, Card]]:
    """Give each unknown up card a card that keeps `found` (decisions()); (seat, card number, card) each.

    Raises FillError naming the first street whose decision no cards can keep, or saying that the
    search reached its bound. `cards` is filled in place only on success.
    """
    slots = [(seat, number) for number in UP_CARDS for seat in sorted(cards)
             if number < len(cards[seat]) and cards[seat][number] is None]
    if not slots:
        return []

    def street(number: int) -> list[Slot]:
        """One street's slots: the seats that must win first."""
        decision = next((d for d in found if d.cards == max(3, number + 1)), None)
        first = decision.allowed if decision is not None else frozenset()
        return sorted((slot for slot in slots if slot[1] == number), key=lambda slot: (slot[0] not in first, slot[0]))

    order = [slot for number in UP_CARDS for slot in street(number)]

    def search(upto: int, tries: _Budget) -> tuple[bool | None, dict[int, list[Card | None]]]:
        work = {seat: list(dealt) for seat, dealt in cards.items()}
        return _Search(variant, options, work, order, found[:upto], tries).run(), work

    tries = _Budget(budget)
    outcome, work = search(len(found), tries)
    if outcome:
        for seat, number in slots:
            cards[seat][number] = work[seat][number]
        return [(seat, number, _known(cards[seat][number])) for seat, number in slots]
    if outcome is False:  # no cards exist: name the first street that no cards can keep
        for count in range(1, len(found) + 1):
            outcome, _work = search(count, tries)
            if outcome is None:
                break
            if outcome is False:
                decision = found[count - 1]
                unknown = [f"seat {seat}'s {card_name(number, variant)}" for seat in decision.seats
                           for number in decision.numbers() if (seat, number) in slots]
                listed = ", ".join(unknown[:6]) + (f" and {len(unknown) - 6} more" if len(unknown) > 6 else "")
                raise FillError(f"{decision.street} street: {decision.describe(variant)}, whatever cards the unknown "
                                f"(??) up cards get ({listed or 'none of them decides this street'}): "
                                "write the cards in the history")
        raise FillError("no cards for the unknown (??) up cards keep the history's bring-in and first actors: "
                        "write the cards in the history")
    raise FillError(f"gave up after trying {budget} cards for the {len(slots)} unknown (??) up cards (a bound, so "
                    "that no file can make the import run for long): it is not known whether any cards keep the "
                    "history's bring-in and first actors; write some of the unknown cards in the history",
                    exhausted=True)
