"""What the fuzzer generates: hand setups within an engine's declared capabilities, and moves.

Every random decision is one bounded integer choice from a `Chooser`. The search uses a seeded
`random.Random` (fast, and it records the choices); shrinking replays the recorded choices through
Hypothesis, whose shrinker then minimises them (the choices, below). Choices are arranged so that the
value Hypothesis shrinks towards (the lower bound, the first element) is the *simpler* hand: fewer
seats, contiguous seat numbers, short stacks, small stakes, default options, no remade stub, the
canonical deck order, passive actions and no deliberately illegal attempts.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, TypeVar

from studcheck.cards import FULL_DECK
from studcheck.protocol.messages import OPEN_INT_OPTIONS, EngineInfo
from studcheck.rules import LATE_OPTIONS, LAYOUTS, ActionType, Options, SetupError, Variant

T = TypeVar("T")

# --- the choices: Where the fuzzer's random decisions come from: one bounded integer at a time.
#
#
# The search asks a `RandomChooser` (a seeded `random.Random`: cheap, and it records every choice);
# shrinking replays a recorded choice list through Hypothesis (shrink.py), which then minimises it.
# Both sides see exactly the same sequence of `integer(low, high)` calls, so a recorded list
# replays as the same hand. A choice with a single possible value is never asked for or recorded
# (Hypothesis and the recording must agree on what counts as a choice).


class Chooser(Protocol):
    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high]; `low` is the simplest (what shrinking moves towards)."""
        ...


def pick(choose: Chooser, items: Sequence[T]) -> T:
    """One of `items`; the first is the simplest."""
    return items[choose.integer(0, len(items) - 1)]


def shuffle(choose: Chooser, items: Sequence[T]) -> tuple[T, ...]:
    """A permutation of `items` (Fisher-Yates); all-simplest choices keep the original order."""
    out = list(items)
    last = len(out) - 1
    for index in range(last):
        other = choose.integer(index, last)
        out[index], out[other] = out[other], out[index]
    return tuple(out)


class RandomChooser:
    """Seeded choices for the search, recorded so the hand can be replayed through Hypothesis."""

    def __init__(self, seed: str) -> None:
        self._random = random.Random(seed).random  # str seeds hash with SHA-512: the same on every run
        self.choices: list[int] = []

    def integer(self, low: int, high: int) -> int:
        if high <= low:
            return low
        value = low + int(self._random() * (high - low + 1))
        self.choices.append(value)
        return value


def hand_seed(seed: int, hand: int) -> str:
    """The seed of generated hand number `hand` (1-based) of a run: each hand can be regenerated alone."""
    return f"studcheck-fuzz:{seed}:{hand}"


DECK: tuple[str, ...] = tuple(str(card) for card in FULL_DECK)
MAX_STEPS = 300  # a safety net: capped betting ends every hand long before this
AMOUNT_ACTIONS = frozenset({"bring_in", "complete", "call", "bet", "raise"})
PASSIVE = ("bring_in", "check", "call", "show")
AGGRESSIVE = ("complete", "bet", "raise")
ACTION_NAMES = tuple(action.value for action in ActionType)


class CapabilityError(ValueError):
    """The engine's hello leaves nothing to generate (e.g. no supported value for an option)."""


@dataclass(frozen=True, kw_only=True)
class Capabilities:
    """The variants and option values to generate from: the engine's, restricted to valid ones.

    Each option's values are ordered default-first so that shrinking moves towards the default.
    `None` for an integer option means the engine accepts any value ("any").
    """

    variants: tuple[str, ...]
    options: Mapping[str, tuple[Any, ...] | None]

    @classmethod
    def from_hello(cls, info: EngineInfo, *, only: Sequence[str] = ()) -> Capabilities:
        known = [v.value for v in Variant]
        declared = [v for v in known if info.supports_variant(v)]
        if only:
            missing = [v for v in only if v not in declared]
            if missing:
                raise CapabilityError(f"the engine does not declare the variant {', '.join(missing)} "
                                      f"(it declares: {', '.join(declared) or 'none'})")
            declared = [v for v in declared if v in only]
        if not declared:
            raise CapabilityError(f"the engine declares none of the variants {', '.join(known)}")
        defaults = Options().to_json()
        options: dict[str, tuple[Any, ...] | None] = {}
        for name, default in defaults.items():
            if name in OPEN_INT_OPTIONS and info.options.get(name) == "any":
                options[name] = None
                continue
            values = [value for value in info.supported_values(name) if _valid(name, value)]
            if not values:
                raise CapabilityError(f"the engine declares no usable value for the option {name} "
                                      f"(declared: {info.options.get(name)!r})")
            values.sort(key=lambda value: (value != default or type(value) is not type(default), str(value)))
            options[name] = tuple(values)
        for name, default in LATE_OPTIONS.items():
            # Added after protocol v1: absent from hello means the default only (supported_values),
            # and a setup names it only off its default (draw_setup), as the harness does.
            late = [value for value in info.supported_values(name) if _valid(name, value)]
            options[name] = tuple(sorted(late, key=lambda value: (value != default, str(value)))) or (default,)
        return cls(variants=tuple(declared), options=options)


def _valid(name: str, value: Any) -> bool:
    """A value the rules define (so the reference engine can play it too)."""
    try:
        Options.from_json({name: value})
    except (SetupError, TypeError):
        return False
    return True


@dataclass(frozen=True, kw_only=True)
class Style:
    """How the players of one hand behave (percentages and weights); drawn once per hand."""

    aggression: int  # 0 calm, 1 normal, 2 aggressive, 3 raise war
    fold_weight: int
    muck_weight: int
    illegal_percent: int
    after_end: bool  # try one action after the hand is over


@dataclass(frozen=True, kw_only=True)
class HandSetup:
    """One `new_hand`: every field explicit, in protocol JSON shapes."""

    variant: str
    options: Mapping[str, Any]
    stakes: Mapping[str, int]
    seats: tuple[tuple[int, int], ...]  # (seat, stack), ascending seat
    deck: tuple[str, ...]
    remade_stub: tuple[str, ...] | None = None
    style: Style = field(default_factory=lambda: Style(aggression=0, fold_weight=0, muck_weight=0,
                                                       illegal_percent=0, after_end=False))

    def request_fields(self, label: str) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "options": dict(self.options),
            "stakes": dict(self.stakes),
            "seats": [{"seat": seat, "stack": stack} for seat, stack in self.seats],
            "deck": list(self.deck),
            "remade_stub": None if self.remade_stub is None else list(self.remade_stub),
            "label": label,
        }

    @property
    def seat_numbers(self) -> tuple[int, ...]:
        return tuple(seat for seat, _ in self.seats)


@dataclass(frozen=True, kw_only=True)
class Move:
    """One `act` request; `meant_legal` says whether it was picked from the reference's legal list."""

    seat: int
    action: str
    amount: int | None
    meant_legal: bool

    def request_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {"seat": self.seat, "action": self.action}
        if self.amount is not None:
            fields["amount"] = self.amount
        return fields

    def text(self) -> str:
        """The case-file form: `SEAT ACTION [AMOUNT]`."""
        return f"{self.seat} {self.action}" + ("" if self.amount is None else f" {self.amount}")


# --- setups -------------------------------------------------------------------------------------


def _option_value(choose: Chooser, name: str, values: tuple[Any, ...] | None, big_bet: int) -> Any:
    if values is not None:
        return pick(choose, values)
    if choose.integer(0, 3) < 3:  # "any": mostly off (0), so rake shows up in a quarter of hands
        return 0
    if name == "rake_percent":
        return choose.integer(1, 100)
    return choose.integer(1, 3 * big_bet)


def _stakes(choose: Chooser) -> dict[str, int]:
    bring_in = choose.integer(1, 5)
    small = bring_in + choose.integer(1, 10)
    shape = choose.integer(0, 9)
    big = 2 * small if shape < 6 else small if shape < 8 else small + choose.integer(1, 2 * small)
    ante = choose.integer(0, small)
    return {"ante": ante, "bring_in": bring_in, "small_bet": small, "big_bet": big}


def _seats(choose: Chooser, stakes: Mapping[str, int], places: int) -> tuple[tuple[int, int], ...]:
    """Seats and stacks; stacks are drawn for all `places` (the variant's seats) whatever the count,
    so when the shrinker lowers the count the later draws (deck, moves) keep their meaning."""
    numbers = tuple(range(1, places + 1))
    count = choose.integer(2, places)
    gaps = choose.integer(0, 2) == 2  # a third of the hands have gaps in the numbering
    order = shuffle(choose, numbers) if gaps else numbers
    small, big = stakes["small_bet"], stakes["big_bet"]
    stacks = []
    for _ in numbers:
        if choose.integer(0, 2) == 0:  # a third are short: antes, bring-ins and raises go all-in
            stacks.append(choose.integer(1, 3 * small))
        else:
            stacks.append(choose.integer(5 * big, 60 * big))
    return tuple(zip(sorted(order[:count]), stacks))


def _style(choose: Chooser) -> Style:
    return Style(
        aggression=choose.integer(0, 3),
        fold_weight=pick(choose, (4, 15, 40)),
        muck_weight=pick(choose, (0, 15, 40)),
        illegal_percent=pick(choose, (0, 5, 12, 25)),
        after_end=choose.integer(0, 3) == 3,
    )


def draw_setup(choose: Chooser, caps: Capabilities) -> HandSetup:
    """One hand's setup, chosen piece by piece."""
    variant = pick(choose, caps.variants)
    stakes = _stakes(choose)
    options = {name: _option_value(choose, name, values, stakes["big_bet"]) for name, values in caps.options.items()}
    for name, default in LATE_OPTIONS.items():
        if options.get(name) == default:
            del options[name]  # a v1 engine keeps receiving v1 messages
    seats = _seats(choose, stakes, LAYOUTS[Variant(variant)].max_seats)  # 8, or 10 in five-card stud
    deck = shuffle(choose, DECK)
    stub = shuffle(choose, DECK) if choose.integer(0, 4) == 4 else None
    return HandSetup(variant=variant, options=options, stakes=stakes, seats=seats, deck=deck, remade_stub=stub,
                     style=_style(choose))


# --- moves --------------------------------------------------------------------------------------


def _weights(style: Style, legal: Sequence[Mapping[str, Any]], state: Mapping[str, Any], unit: int) -> list[int]:
    """Weight of each legal entry: passive play dominates so hands reach showdown; raise wars happen.

    Aggression fades once the level is many units high, so uncapped heads-up wars end.
    """
    aggressive = (8, 25, 50, 85)[style.aggression]
    level = max((seat.get("committed", 0) for seat in state.get("seats", [])), default=0)
    if level >= 6 * max(unit, 1):
        aggressive = min(aggressive, 10)
    kinds = {entry["action"] for entry in legal}
    weights = []
    for entry in legal:
        action = entry["action"]
        if action in AGGRESSIVE:
            weights.append(aggressive)
        elif action == "fold":
            weights.append(1 if "check" in kinds else style.fold_weight)
        elif action == "muck":
            weights.append(style.muck_weight)
        else:
            weights.append(100 - aggressive // 2)
    return weights


def _passive_first(legal: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Order the legal list so the simplest choice (index 0) is a passive one."""
    rank = {action: position for position, action in enumerate(PASSIVE + AGGRESSIVE + ("fold", "muck"))}
    return sorted(legal, key=lambda entry: (rank.get(entry["action"], 99), entry.get("amount") or 0))


def pick_weighted(point: int, items: Sequence[T], weights: Sequence[int]) -> T:
    """The item at `point` (0..99) of the cumulative weights: 0 picks the first item."""
    total = sum(weights)
    if total <= 0:
        return items[0]
    point = point * total // 100
    for item, weight in zip(items, weights):
        if point < weight:
            return item
        point -= weight
    return items[-1]


def legal_move(choose: Chooser, point: int, setup: HandSetup, state: Mapping[str, Any]) -> Move:
    legal = _passive_first(state["legal"])
    entry = pick_weighted(point, legal, _weights(setup.style, legal, state, _unit(setup, state)))
    return Move(seat=int(state["to_act"]), action=str(entry["action"]), amount=_legal_amount(choose, entry),
                meant_legal=True)


def _legal_amount(choose: Chooser, entry: Mapping[str, Any]) -> int | None:
    """A listed amount, or for a pot/no-limit range its lowest, its highest or one in between
    (the bounds are where engines go wrong). A fixed amount asks for no choice."""
    if "max" not in entry:
        return entry.get("amount")
    low, high = int(entry["min"]), int(entry["max"])
    if high <= low:
        return low
    where = choose.integer(0, 2 if high - low > 1 else 1)
    if where == 0:
        return low
    if where == 1:
        return high
    return choose.integer(low + 1, high - 1)


class Illegal(str, Enum):
    OUT_OF_TURN = "out_of_turn"
    UNKNOWN_SEAT = "unknown_seat"
    WRONG_AMOUNT = "wrong_amount"
    WRONG_KIND = "wrong_kind"
    NO_RAISE = "no_raise"  # a raise when none is offered: at the cap, or not reopened by a short all-in


#: kinds of illegal request, weighted by repetition (the wrong kind of action has the most variants)
ILLEGAL_KINDS = (Illegal.WRONG_KIND, Illegal.OUT_OF_TURN, Illegal.WRONG_AMOUNT, Illegal.WRONG_KIND,
                                 Illegal.UNKNOWN_SEAT, Illegal.NO_RAISE, Illegal.WRONG_KIND, Illegal.WRONG_AMOUNT,
                 Illegal.OUT_OF_TURN, Illegal.WRONG_KIND)


def illegal_move(choose: Chooser, setup: HandSetup, state: Mapping[str, Any]) -> Move:
    """A deliberately wrong request; the reference decides what the refusal reason is."""
    kind = pick(choose, ILLEGAL_KINDS)
    seated = setup.seat_numbers
    to_act = state.get("to_act")
    legal = list(state.get("legal") or [])
    unit = _unit(setup, state)
    numbers = range(1, LAYOUTS[Variant(setup.variant)].max_seats + 1)
    if kind is Illegal.UNKNOWN_SEAT and len(seated) < len(numbers):
        seat = pick(choose, [n for n in numbers if n not in seated])
        return _any_action(choose, seat, legal, unit)
    if kind is Illegal.OUT_OF_TURN and to_act is not None:
        return _any_action(choose, pick(choose, [n for n in seated if n != to_act]), legal, unit)
    if to_act is None:  # hand over: anything is refused
        return _any_action(choose, pick(choose, seated), legal, unit)
    with_amount = [entry for entry in legal if entry.get("amount") is not None]
    if kind is Illegal.WRONG_AMOUNT and with_amount:
        entry = pick(choose, with_amount)
        if "max" in entry:
            return _outside_range(choose, to_act, entry)
        delta = choose.integer(1, max(1, unit))
        amount = entry["amount"] + delta if choose.integer(0, 1) == 1 or entry["amount"] - delta < 0 else entry["amount"] - delta
        return Move(seat=to_act, action=entry["action"], amount=amount, meant_legal=False)
    kinds = {entry["action"] for entry in legal}
    if kind is Illegal.NO_RAISE and "call" in kinds and "raise" not in kinds:
        return Move(seat=to_act, action="raise", amount=_plausible_amount("raise", state, unit), meant_legal=False)
    absent = [action.value for action in ActionType if action.value not in kinds]
    if "call" in kinds and "check" in absent:
        absent = ["check", *absent]  # a check facing a wager: the classic wrong kind, twice as likely
    action = pick(choose, absent) if absent else "fold"
    return Move(seat=to_act, action=action, amount=_plausible_amount(action, state, unit), meant_legal=False)


def _outside_range(choose: Chooser, seat: int, entry: Mapping[str, Any]) -> Move:
    """Just below a range, just above it, or no amount at all (a range is not an amount)."""
    where = choose.integer(0, 2)
    low, high = int(entry["min"]), int(entry["max"])
    amount = None if where == 2 else high + 1 if where == 1 or low == 0 else low - 1
    return Move(seat=seat, action=str(entry["action"]), amount=amount, meant_legal=False)


def _unit(setup: HandSetup, state: Mapping[str, Any]) -> int:
    small = state.get("street") in {street.value for street in LAYOUTS[Variant(setup.variant)].small_bet_streets}
    return int(setup.stakes["small_bet"] if small else setup.stakes["big_bet"])


def _plausible_amount(action: str, state: Mapping[str, Any], unit: int) -> int | None:
    if action not in AMOUNT_ACTIONS or action == "call":
        return None
    level = max((seat.get("committed", 0) for seat in state.get("seats", [])), default=0)
    return int(level + unit)


def _any_action(choose: Chooser, seat: int, legal: Sequence[Mapping[str, Any]], unit: int) -> Move:
    if legal and choose.integer(0, 1) == 1:
        entry = pick(choose, legal)
        return Move(seat=seat, action=entry["action"], amount=entry.get("amount"), meant_legal=False)
    action = pick(choose, ACTION_NAMES)
    amount = unit if action in AMOUNT_ACTIONS and action != "call" else None
    return Move(seat=seat, action=action, amount=amount, meant_legal=False)


def next_move(choose: Chooser, setup: HandSetup, state: Mapping[str, Any]) -> Move:
    """The next request of a hand in progress: mostly a legal action, sometimes an illegal one.

    Two choices per move; details of an illegal move are chosen only when one is made.
    """
    illegal, point = choose.integer(0, 99), choose.integer(0, 99)
    kinds = {entry["action"] for entry in state["legal"]}
    if setup.style.illegal_percent and "call" in kinds and "raise" not in kinds and illegal >= 70:
        # at the cap or not reopened: the raise-refusal rules are only tested in these spots
        return Move(seat=int(state["to_act"]), action="raise", amount=_plausible_amount("raise", state, _unit(setup, state)),
                    meant_legal=False)
    if illegal >= 100 - setup.style.illegal_percent:
        return illegal_move(choose, setup, state)
    return legal_move(choose, point, setup, state)


def after_end_move(choose: Chooser, setup: HandSetup, state: Mapping[str, Any]) -> Move | None:
    """Sometimes one more request once the hand is over (it must be refused: hand_over)."""
    if not setup.style.after_end:
        return None
    return illegal_move(choose, setup, state)
