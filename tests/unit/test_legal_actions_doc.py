"""spec/rules/14-legal-actions.md, implemented again from the document alone, agrees with the engine.

`Doc` below is written from the steps of 14-legal-actions.md (their names and numbers are in the
comments) and from nothing else in the engine: its layout table is the document's, not
`rules.LAYOUTS`. It reads from the engine only what the document takes as given: the cards dealt
(for `BringInSeat` and the open-pair test) and the first actor of a later street
(`06-first-to-act.md`, which the document does not restate). On random hands of every variant and
betting structure (a fixed seed) it must give the same seat to act, the same legal actions and the
same refusal reason for wrong actions as the reference engine; a disagreement means the document
or the engine is wrong.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

import pytest

from studcheck.cards import FULL_DECK
from studcheck.engine import Action, Hand, IllegalAction
from studcheck.rules import PROFILES, ActionType, Betting, BigBetBringIn, SeatSetup, Stakes, Variant

FIXED = "fixed_limit"
#: "The variant's layout": Streets, Opening, SmallStreets, OpenPairStreet, Last (the document's table).
SEVEN = ("third", "fourth", "fifth", "sixth", "seventh")
LAYOUT: dict[str, dict[str, object]] = {
    "stud_high": {"streets": SEVEN, "small": {"third", "fourth"}, "open_pair": "fourth"},
    "razz": {"streets": SEVEN, "small": {"third", "fourth"}, "open_pair": None},
    "stud_hilo8": {"streets": SEVEN, "small": {"third", "fourth"}, "open_pair": None},
    "five_card_stud": {"streets": ("second", "third", "fourth", "fifth"), "small": {"second", "third"},
                       "open_pair": "third"},
}
RANKS = "23456789TJQKA"
SUITS = "cdhs"
NO_CAP = 10**9


@dataclass
class Seat:
    number: int
    stack: int
    committed: int = 0
    total: int = 0  # contributions to the hand, antes included (for M)
    folded: bool = False
    acted: int | None = None
    acted_after: int = 0


@dataclass
class Round:
    unit: int = 0
    level: int = 0
    full_level: int = 0
    wager_level: int = 0
    wagers: int = 0
    cap: int = 0
    reopens: int = 0
    double: bool = False
    began_heads_up: bool = False
    capped_multiway: bool = False
    raise_size: int = 0


@dataclass
class Doc:
    variant: str
    betting: str
    open_pair_double: bool
    max_raises: int
    heads_up: str
    bring_in_tie: str
    stakes: Stakes
    seats: list[Seat]
    big_bet_bring_in: str = "open"
    street: str = ""
    to_act: int | None = None
    bring_in_seat: int = 0
    over: bool = False
    r: Round = field(default_factory=Round)

    # ---- helpers named in "Notation" and "The state the operations read"
    def seat(self, number: int) -> Seat:
        return next(s for s in self.seats if s.number == number)

    def active_count(self) -> int:
        return sum(1 for s in self.seats if not s.folded and s.stack > 0)

    def t(self, s: Seat) -> int:
        return s.committed + s.stack

    def m(self) -> int:
        return sum(s.total for s in self.seats)

    @property
    def fixed(self) -> bool:
        return self.betting == FIXED

    @property
    def opening(self) -> str:
        return self.layout["streets"][0]  # type: ignore[index,no-any-return]

    @property
    def layout(self) -> dict[str, object]:
        return LAYOUT[self.variant]

    # ---- OpenRound()
    def open_round(self, street: str, up: dict[int, list[str]], first: int | None) -> None:
        self.street = street
        if self.active_count() < 2:  # step 1
            self.to_act = None
            return
        sb, bb = self.stakes.small_bet, self.stakes.big_bet
        self.r = Round(unit=sb if street in self.layout["small"] else bb)  # type: ignore[operator]  # steps 2-3
        self.r.cap = 1 + self.max_raises if self.fixed else NO_CAP
        self.r.raise_size = self.stakes.bring_in
        live_pair = any(len(up[s.number]) >= 2 and up[s.number][-2][0] == up[s.number][-1][0]
                        for s in self.seats if not s.folded)
        self.r.double = (self.fixed and street == self.layout["open_pair"] and self.open_pair_double
                         and live_pair)  # step 4 (the two up cards of that street)
        self.r.began_heads_up = self.active_count() == 2  # step 5
        for s in self.seats:  # step 6
            s.committed, s.acted, s.acted_after = 0, None, 0
        start = self.bring_in_seat if street == self.opening else first  # step 7
        assert start is not None
        self.to_act = self.next_to_act(start)  # step 8

    def clockwise_from(self, p: int) -> list[Seat]:
        numbers = [s.number for s in self.seats]
        i = numbers.index(p)
        return self.seats[i:] + self.seats[:i]

    # ---- NextToAct(p)
    def next_to_act(self, p: int) -> int | None:
        for s in self.clockwise_from(p):
            if s.folded or s.stack == 0:
                continue
            if s.committed < self.r.level:
                return s.number
            if s.acted is None and self.active_count() >= 2:
                return s.number
        return None

    # ---- LegalActions(s)
    def legal(self) -> list[tuple[str, int | None, int | None]]:
        if self.over or self.to_act is None:
            return []
        s = self.seat(self.to_act)
        t, c = self.t(s), self.r.level
        may_wager = self.wager_block(s) is None
        out: list[tuple[str, int | None, int | None]] = []
        if self.street == self.opening and c == 0:  # step 5
            if s.number != self.bring_in_seat:
                out.append(("fold", None, None))
            out.append(("bring_in", min(self.stakes.bring_in, t), None))
            if self.fixed and may_wager:
                out += [("complete", x, None) for x in self.wager_targets(s) if x > self.stakes.bring_in]
            elif not self.fixed and self.big_bet_bring_in == "open" and may_wager:
                high = self.wager_range(s)[1]
                if high > self.stakes.bring_in:
                    out.append(("bet", self.stakes.bring_in + 1, high))
            return out
        out.append(("fold", None, None))  # step 6
        out.append(("check", None, None) if s.committed >= c else ("call", min(c, t), None))  # step 7
        if may_wager:  # step 8
            k = self.wager_kind()
            if self.fixed:
                out += [(k, x, None) for x in self.wager_targets(s)]
            else:
                low, high = self.wager_range(s)
                out.append((k, low, high))
        return out

    # ---- WagerKind()
    def wager_kind(self) -> str:
        if self.street == self.opening:
            if self.fixed:
                return "complete" if self.r.wagers == 0 else "raise"
            return "raise"
        return "bet" if self.r.level == 0 else "raise"

    # ---- WagerTargets(s)
    def wager_targets(self, s: Seat) -> list[int]:
        t, low, c = self.t(s), self.r.full_level, self.r.level
        sb, bb = self.stakes.small_bet, self.stakes.big_bet
        full = [low + sb, low + bb] if self.r.double and bb != sb else [low + self.r.unit]
        targets = [x for x in full if x <= t]
        if t < full[-1] and t > c and t not in targets:
            targets.append(t)
        return targets

    # ---- WagerRange(s)
    def wager_range(self, s: Seat) -> tuple[int, int]:
        t, c, o, size = self.t(s), self.r.level, s.committed, self.r.raise_size
        high = t
        if self.betting == "pot_limit":
            high = min(t, 2 * c - o + self.m())
        low = c + size
        return (min(low, high), high)

    # ---- WagerBlock(s)
    def wager_block(self, s: Seat) -> str | None:
        if self.t(s) <= self.r.level:
            return "illegal_action"
        if not any(o is not s and not o.folded and o.stack > 0 for o in self.seats):
            return "illegal_action"
        if self.fixed and self.r.wagers >= self.r.cap and not self.is_uncapped():
            return "raise_cap_reached"
        if not self.is_reopened(s):
            return "betting_not_reopened"
        return None

    # ---- IsUncapped()
    def is_uncapped(self) -> bool:
        if self.heads_up == "round_begins":
            return self.r.began_heads_up
        if self.heads_up == "before_cap":
            return not self.r.capped_multiway and self.active_count() == 2
        return False

    # ---- IsReopened(s)
    def is_reopened(self, s: Seat) -> bool:
        if s.acted is None:
            return True
        if self.r.reopens > s.acted_after:
            return True
        if self.fixed:
            return 2 * (self.r.level - s.acted) >= self.r.unit
        return self.r.level - s.acted >= self.r.raise_size

    # ---- Applying an accepted action
    def pay(self, s: Seat, amount: int) -> None:
        s.stack -= amount - s.committed
        s.total += amount - s.committed
        s.committed = amount

    def record_acted(self, s: Seat) -> None:
        s.acted = min(s.committed, self.r.wager_level) if self.fixed else s.committed
        s.acted_after = self.r.reopens

    def apply_bring_in(self, s: Seat, amount: int) -> None:
        self.pay(s, amount)
        self.r.level = max(self.r.level, self.stakes.bring_in)
        self.record_acted(s)
        if not self.fixed and self.big_bet_bring_in == "forced":
            s.acted = 0  # RecordActed: the forced post is not an action

    def apply_wager(self, s: Seat, amount: int) -> None:
        r = self.r
        if not self.fixed:
            c = r.level
            self.pay(s, amount)
            r.raise_size = max(r.raise_size, amount - c)
            r.level = amount
            self.record_acted(s)
            return
        active = self.active_count()  # step 1
        w, u = r.wager_level, r.unit  # step 2
        self.pay(s, amount)  # step 3
        inc = amount - r.full_level  # step 4
        full = inc >= u or (s.stack == 0 and 2 * inc >= u)  # step 5
        r.level, r.wager_level = max(r.level, amount), max(w, amount)  # step 6
        if full:  # step 7
            if r.double and self.stakes.big_bet != self.stakes.small_bet and inc == self.stakes.big_bet:
                r.double, r.unit = False, self.stakes.big_bet
            r.full_level = amount
            r.wagers += 1
            if s.stack > 0 or 2 * (amount - w) >= u:
                r.reopens += 1
            if r.wagers >= r.cap and active > 2:
                r.capped_multiway = True
        self.record_acted(s)  # step 9

    def apply(self, action: str, amount: int | None) -> None:
        assert self.to_act is not None
        s = self.seat(self.to_act)
        if action == "fold":
            s.folded = True
        elif action == "check":
            self.record_acted(s)
        elif action == "call":
            self.pay(s, min(self.r.level, self.t(s)))
            self.record_acted(s)
        elif action == "bring_in":
            assert amount is not None
            self.apply_bring_in(s, amount)
        else:
            assert amount is not None
            self.apply_wager(s, amount)
        if sum(1 for o in self.seats if not o.folded) == 1:  # "After a betting action" step 1
            self.over, self.to_act = True, None
            return
        self.to_act = self.next_to_act(self.after(s.number))  # step 2

    def after(self, number: int) -> int:
        numbers = [s.number for s in self.seats]
        return numbers[(numbers.index(number) + 1) % len(numbers)]

    def end_round(self) -> None:
        """Step 3: the part of the highest commitment nobody matched is returned (POT.UNCALLED)."""
        top = max(self.seats, key=lambda s: s.committed)
        second = max((s.committed for s in self.seats if s is not top), default=0)
        back = top.committed - second
        top.stack += back
        top.total -= back
        top.committed = second

    # ---- RefusalReason(q, a, A)
    def refusal(self, q: int, a: str, amount: int | None) -> str:
        if self.over:
            return "hand_over"
        if q not in [s.number for s in self.seats]:
            return "unknown_seat"
        if q != self.to_act:
            return "out_of_turn"
        same = [entry for entry in self.legal() if entry[0] == a]
        if not same:
            if a in ("bet", "complete", "raise") and a == self.wager_kind():
                block = self.wager_block(self.seat(q))
                if block is not None:
                    return block
            return "illegal_action"
        if a in ("fold", "check", "show", "muck"):
            return "invalid_amount" if amount is not None else "accept"
        if a == "call" and amount is None:
            return "accept"
        for _, low, high in same:
            if amount is not None and (amount == low if high is None else low is not None and low <= amount <= high):
                return "accept"
        return "invalid_amount"


def bring_in_seat(variant: str, tie: str, doors: dict[int, str]) -> int:
    """BRING-IN.CARD.LOW / .HIGH, BRING-IN.TIE.SUIT / .SEAT, FIVE.BRING-IN."""
    def rank(card: str) -> int:
        r = RANKS.index(card[0])
        return (r + 1) % 13 if variant == "razz" else r  # razz: ace low (A=0 .. K=12)

    if variant == "razz":  # the highest card brings in; by suit the highest suit
        key = {n: (rank(c), SUITS.index(c[1]) if tie == "suit" else -n) for n, c in doors.items()}
        return max(key, key=lambda n: key[n])
    key = {n: (rank(c), SUITS.index(c[1]) if tie == "suit" else n) for n, c in doors.items()}
    return min(key, key=lambda n: key[n])


def _legal_of(hand: Hand) -> list[tuple[str, int | None, int | None]]:
    return [(la.action.value, la.amount, la.top) for la in hand.legal_actions()]


def _wrong(rng: random.Random, doc: Doc) -> tuple[int, str, int | None]:
    seats = [s.number for s in doc.seats]
    seat = rng.choice([doc.to_act or 0] * 4 + seats + [99])
    kind = rng.choice([a.value for a in ActionType])
    near = [b + d for _, low, high in doc.legal() for b in (low, high) if b is not None for d in (-1, 0, 1)]
    amount = rng.choice([None, *near, rng.randint(0, 300)])
    return seat, kind, amount


def play(rng: random.Random, variant: Variant, betting: Betting) -> tuple[int, int]:
    """One random hand on the engine and on `Doc`; returns (decisions compared, refusals compared)."""
    options = replace(PROFILES[rng.choice(sorted(PROFILES))], betting=betting,
                      big_bet_bring_in=rng.choice(list(BigBetBringIn)))
    small = rng.randint(2, 10)
    stakes = Stakes(ante=rng.randint(0, 3), bring_in=rng.randint(1, small - 1), small_bet=small,
                    big_bet=rng.choice([small, 2 * small]))
    most = 10 if variant is Variant.FIVE_CARD_STUD else 8
    numbers = sorted(rng.sample(range(1, most + 1), rng.randint(2, most)))
    stacks = {n: rng.choice([rng.randint(1, 12), rng.randint(1, 60), rng.randint(20, 200)]) for n in numbers}
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    hand = Hand(variant=variant, options=options, stakes=stakes,
                seats=[SeatSetup(seat=n, stack=stacks[n]) for n in numbers], deck=deck)
    doc = Doc(variant=variant.value, betting=betting.value, open_pair_double=options.open_pair_double,
              max_raises=options.max_raises, heads_up=options.heads_up.value,
              bring_in_tie=options.bring_in_tie.value, stakes=stakes,
              big_bet_bring_in=options.big_bet_bring_in.value,
              seats=[Seat(number=n, stack=stacks[n]) for n in numbers])
    for s in doc.seats:  # antes (ANTE.DEAD, ANTE.ALL-IN)
        ante = min(stakes.ante, s.stack)
        s.stack -= ante
        s.total += ante
    snap = hand.snapshot()
    up = {row["seat"]: row["up"] for row in snap["seats"]}
    doc.bring_in_seat = bring_in_seat(doc.variant, doc.bring_in_tie, {n: cards[0] for n, cards in up.items()})
    doc.open_round(snap["street"], up, None)
    decisions = refusals = 0
    while not hand.is_over and hand.street.value not in ("showdown", "complete"):
        where = f"{variant.value} {betting.value} {hand.street.value} seat {hand.to_act}"
        assert doc.street == hand.street.value, where
        assert doc.to_act == hand.to_act, f"{where}: the document says seat {doc.to_act} acts"
        assert doc.legal() == _legal_of(hand), f"{where}: document {doc.legal()} engine {_legal_of(hand)}"
        decisions += 1
        if rng.random() < 0.3:
            q, a, amount = _wrong(rng, doc)
            expected = doc.refusal(q, a, amount)
            if expected != "accept":
                try:
                    hand.apply(Action(seat=q, action=ActionType(a), amount=amount))
                except IllegalAction as refused:
                    assert refused.reason.value == expected, f"{where}: {q} {a} {amount}: document {expected}"
                    refusals += 1
                else:
                    raise AssertionError(f"{where}: {q} {a} {amount} accepted; the document says {expected}")
        kind, low, high = rng.choice(doc.legal())
        amount = low if high is None or low is None else rng.choice([low, high, rng.randint(low, high)])
        hand.apply(Action(seat=doc.to_act or 0, action=ActionType(kind), amount=amount))
        doc.apply(kind, amount)
        if doc.over:
            assert hand.is_over, f"{where}: one live player left, the engine plays on"
            break
        if doc.to_act is None:  # the round is over: the next street, or the showdown
            doc.end_round()
            streets = doc.layout["streets"]
            assert isinstance(streets, tuple)
            if doc.street == streets[-1] or hand.street.value in ("showdown", "complete"):
                assert hand.street.value in ("showdown", "complete"), f"{where}: engine still on {hand.street}"
                assert doc.street == streets[-1] or doc.active_count() < 2, where
                break
            snap = hand.snapshot()
            assert snap["street"] == streets[streets.index(doc.street) + 1], where
            doc.open_round(snap["street"], {row["seat"]: row["up"] for row in snap["seats"]}, hand.to_act)
    return decisions, refusals


HANDS = 200  # per variant and structure: 12 x 200 = 2400 hands


@pytest.mark.parametrize("betting", list(Betting), ids=lambda b: b.value)
@pytest.mark.parametrize("variant", list(Variant), ids=lambda v: v.value)
def test_the_document_and_the_engine_agree_on_random_hands(variant: Variant, betting: Betting) -> None:
    rng = random.Random(f"14-legal-actions {variant.value} {betting.value}")
    decisions = refusals = 0
    for _ in range(HANDS):
        d, r = play(rng, variant, betting)
        decisions += d
        refusals += r
    # the hands must actually reach the decisions the document describes, not end at once
    assert decisions > 3 * HANDS and refusals > HANDS // 4, (decisions, refusals)


def test_the_worked_pot_limit_example() -> None:
    """The five-card stud pot-limit example at the end of the document, step by step."""
    doc = Doc(variant="five_card_stud", betting="pot_limit", open_pair_double=False, max_raises=3,
              heads_up="capped", bring_in_tie="suit", stakes=Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10),
              seats=[Seat(number=1, stack=100, total=1), Seat(number=2, stack=100, total=1)], bring_in_seat=1)
    doc.open_round("second", {1: ["2c"], 2: ["Ah"]}, None)
    assert doc.legal() == [("bring_in", 2, None)]
    doc.apply("bring_in", 2)
    assert doc.legal() == [("fold", None, None), ("call", 2, None), ("raise", 4, 8)]
    doc.apply("raise", 8)
    assert doc.legal() == [("fold", None, None), ("call", 8, None), ("raise", 14, 26)]


def test_the_worked_fixed_limit_example() -> None:
    """The table of the document's first worked example: two short all-ins add up to the completion,
    which reopens for the bring-in seat (`acted = 0`) but not for the caller of the first one."""
    doc = Doc(variant="stud_high", betting=FIXED, open_pair_double=True, max_raises=3, heads_up="capped",
              bring_in_tie="suit", stakes=Stakes(ante=0, bring_in=3, small_bet=10, big_bet=20),
              seats=[Seat(number=1, stack=100), Seat(number=2, stack=4), Seat(number=3, stack=6),
                     Seat(number=4, stack=100)], bring_in_seat=1)
    doc.open_round("third", {n: ["Kc"] for n in (1, 2, 3, 4)}, None)
    assert (doc.to_act, doc.legal()) == (1, [("bring_in", 3, None), ("complete", 10, None)])
    doc.apply("bring_in", 3)
    assert doc.seat(1).acted == 0
    assert (doc.to_act, doc.legal()) == (2, [("fold", None, None), ("call", 3, None), ("complete", 4, None)])
    doc.apply("complete", 4)
    assert (doc.r.level, doc.r.full_level, doc.r.wager_level, doc.r.wagers) == (4, 0, 4, 0)
    assert (doc.to_act, doc.legal()) == (3, [("fold", None, None), ("call", 4, None), ("complete", 6, None)])
    doc.apply("complete", 6)
    assert (doc.r.level, doc.r.full_level, doc.r.wagers, doc.r.reopens) == (6, 6, 1, 0)
    assert (doc.to_act, doc.legal()) == (4, [("fold", None, None), ("call", 6, None), ("raise", 16, None)])
    doc.apply("call", 6)
    assert (doc.to_act, doc.legal()) == (1, [("fold", None, None), ("call", 6, None), ("raise", 16, None)])
