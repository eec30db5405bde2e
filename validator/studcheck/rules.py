"""The rules as data: variants, option values, profiles, stakes and seats.

Every point where real rulebooks disagree is an explicit option (see spec/options.md); a profile is
only a name for one set of option values. Nothing here has behaviour beyond validation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from enum import Enum
from typing import Any


def _not_int(value: object) -> bool:
    return isinstance(value, bool) or not isinstance(value, int)


class SetupError(ValueError):
    """Invalid hand setup; `field` names the offending input (e.g. `stakes.bring_in`)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class Variant(str, Enum):
    STUD_HIGH = "stud_high"
    RAZZ = "razz"
    STUD_HILO8 = "stud_hilo8"
    FIVE_CARD_STUD = "five_card_stud"


class Street(str, Enum):
    SECOND = "second"  # five-card stud's first round (down card and door card)
    THIRD = "third"
    FOURTH = "fourth"
    FIFTH = "fifth"
    SIXTH = "sixth"
    SEVENTH = "seventh"
    SHOWDOWN = "showdown"
    COMPLETE = "complete"


BETTING_STREETS = (Street.THIRD, Street.FOURTH, Street.FIFTH, Street.SIXTH, Street.SEVENTH)


@dataclass(frozen=True, kw_only=True)
class Layout:
    """How a variant deals and bets, as data: the engine and the case deck builder read only this.

    Seven-card games deal down-down-up, then four streets (the last down); five-card stud deals
    down-up, then three up streets (DEAL.FIVE.*). The first street has the bring-in.
    """

    streets: tuple[Street, ...]  # the betting rounds, in order
    opening_faces: tuple[bool, ...]  # the first deal, card by card: face up?
    last_face_up: bool  # the final street's card
    small_bet_streets: frozenset[Street]
    open_pair_street: Street | None  # where open_pair_double can apply (None: never)
    max_seats: int

    @property
    def last(self) -> Street:
        return self.streets[-1]

    def next_street(self, street: Street) -> Street:
        return self.streets[self.streets.index(street) + 1]

    @property
    def max_cards(self) -> int:
        return len(self.opening_faces) + len(self.streets) - 1


_SEVEN_CARD = Layout(
    streets=BETTING_STREETS,
    opening_faces=(False, False, True),
    last_face_up=False,
    small_bet_streets=frozenset({Street.THIRD, Street.FOURTH}),
    open_pair_street=Street.FOURTH,
    max_seats=8,
)
LAYOUTS: dict[Variant, Layout] = {
    Variant.STUD_HIGH: _SEVEN_CARD,
    Variant.RAZZ: replace(_SEVEN_CARD, open_pair_street=None),
    Variant.STUD_HILO8: replace(_SEVEN_CARD, open_pair_street=None),
    Variant.FIVE_CARD_STUD: Layout(
        streets=(Street.SECOND, Street.THIRD, Street.FOURTH, Street.FIFTH),
        opening_faces=(False, True),
        last_face_up=True,
        small_bet_streets=frozenset({Street.SECOND, Street.THIRD}),
        open_pair_street=Street.THIRD,
        max_seats=10,
    ),
}


class ActionType(str, Enum):
    """Declaration order is the canonical sort order of legal-action lists."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BRING_IN = "bring_in"
    COMPLETE = "complete"
    BET = "bet"
    RAISE = "raise"
    SHOW = "show"
    MUCK = "muck"


ACTION_ORDER = {action: position for position, action in enumerate(ActionType)}
AMOUNT_ACTIONS = frozenset({ActionType.BRING_IN, ActionType.COMPLETE, ActionType.CALL, ActionType.BET, ActionType.RAISE})


class BringInTie(str, Enum):
    SUIT = "suit"
    SEAT = "seat"


class FirstActorTie(str, Enum):
    SEAT = "seat"
    SUIT = "suit"


class HeadsUp(str, Enum):
    CAPPED = "capped"
    ROUND_BEGINS = "round_begins"
    BEFORE_CAP = "before_cap"


class ShortStub(str, Enum):
    REMAKE = "remake"
    COMMUNITY = "community"


class OddChip(str, Enum):
    BEST_FIVE = "best_five"
    ALL_CARDS = "all_cards"


class ShowdownUnbet(str, Enum):
    FIRST_ACTOR = "first_actor"
    LOWEST_SEAT = "lowest_seat"


class Betting(str, Enum):
    """The betting structure (spec/rules/16-betting-structures.md)."""

    FIXED_LIMIT = "fixed_limit"
    POT_LIMIT = "pot_limit"
    NO_LIMIT = "no_limit"


_FIXED_LIMIT = Betting.FIXED_LIMIT


class BigBetBringIn(str, Enum):
    """Pot/no limit: may the bring-in seat open for more (BIGBET.BRING-IN.OPEN-ANY), or is the bring-in
    forced like a blind (BIGBET.BRING-IN.FORCED)?"""

    OPEN = "open"
    FORCED = "forced"


OPTION_ENUMS: dict[str, type[Enum]] = {
    "bring_in_tie": BringInTie,
    "first_actor_tie": FirstActorTie,
    "heads_up": HeadsUp,
    "short_stub": ShortStub,
    "odd_chip": OddChip,
    "showdown_unbet": ShowdownUnbet,
    "betting": Betting,
    "big_bet_bring_in": BigBetBringIn,
}
MAX_RAISES_VALUES = (3, 4)

#: Options added after protocol v1, with their defaults. An engine's hello may leave one out (it
#: then supports only the default), and a new_hand carries one only when its value is not the
#: default, so an engine written for v1 keeps receiving byte-identical messages (protocol.md 2.1).
LATE_OPTIONS: dict[str, Any] = {"betting": Betting.FIXED_LIMIT.value, "big_bet_bring_in": BigBetBringIn.OPEN.value,
                                 "rake_third_street": False}


@dataclass(frozen=True, kw_only=True)
class Options:
    """One value for every rule option; the defaults are the source texts' rules."""

    bring_in_tie: BringInTie = BringInTie.SUIT
    first_actor_tie: FirstActorTie = FirstActorTie.SEAT
    open_pair_double: bool = True
    max_raises: int = 3
    heads_up: HeadsUp = HeadsUp.CAPPED
    burn_cards: bool = True
    short_stub: ShortStub = ShortStub.REMAKE
    odd_chip: OddChip = OddChip.BEST_FIVE
    showdown_unbet: ShowdownUnbet = ShowdownUnbet.FIRST_ACTOR
    rake_percent: int = 0
    rake_cap: int = 0
    # Added after protocol v1 (LATE_OPTIONS): max_raises, heads_up and open_pair_double only
    # matter under fixed_limit.
    betting: Betting = Betting.FIXED_LIMIT
    big_bet_bring_in: BigBetBringIn = BigBetBringIn.OPEN  # only matters under pot_limit and no_limit
    rake_third_street: bool = False  # only matters when rake_percent > 0

    def __post_init__(self) -> None:
        for name, enum in OPTION_ENUMS.items():
            if not isinstance(getattr(self, name), enum):
                raise SetupError(f"options.{name}", f"must be one of {[m.value for m in enum]}")
        for name in ("open_pair_double", "burn_cards", "rake_third_street"):
            if not isinstance(getattr(self, name), bool):
                raise SetupError(f"options.{name}", "must be true or false")
        if _not_int(self.max_raises) or self.max_raises not in MAX_RAISES_VALUES:
            raise SetupError("options.max_raises", f"must be one of {list(MAX_RAISES_VALUES)}")
        if _not_int(self.rake_percent) or not 0 <= self.rake_percent <= 100:
            raise SetupError("options.rake_percent", "must be a whole number from 0 to 100")
        if _not_int(self.rake_cap) or self.rake_cap < 0:
            raise SetupError("options.rake_cap", "must be a whole number >= 0")

    @property
    def big_bet(self) -> bool:
        """Pot-limit or no-limit: the limit-only rules (caps, the double bet, completion) are off."""
        return self.betting is not _FIXED_LIMIT  # (a module global: read on every round, see engine/betting.py)

    def to_json(self) -> dict[str, Any]:
        """The JSON form; an option added after protocol v1 appears only when it is not its default."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}  # scalars and enums: asdict's deep copy is not needed
        data = {key: value.value if isinstance(value, Enum) else value for key, value in values.items()}
        for name, default in LATE_OPTIONS.items():
            if data[name] == default:
                del data[name]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, base: Options | None = None) -> Options:
        """Build from JSON names and values; keys not given keep `base` (default: the defaults)."""
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise SetupError(f"options.{key}", f"unknown option (known: {', '.join(sorted(known))})")
            enum = OPTION_ENUMS.get(key)
            if enum is not None:
                try:
                    value = enum(value)
                except ValueError:
                    raise SetupError(f"options.{key}", f"must be one of {[m.value for m in enum]}, got {value!r}") from None
            values[key] = value
        return replace(base or cls(), **values)


def option_values() -> dict[str, list[Any]]:
    """Every option with every value the rules define (what the reference engine supports)."""
    values: dict[str, list[Any]] = {name: [m.value for m in enum] for name, enum in OPTION_ENUMS.items()}
    values["open_pair_double"] = [True, False]
    values["burn_cards"] = [True, False]
    values["rake_third_street"] = [False, True]
    values["max_raises"] = list(MAX_RAISES_VALUES)
    values["rake_percent"] = ["0..100"]
    values["rake_cap"] = [">=0"]
    return values


PROFILES: dict[str, Options] = {
    "source_texts": Options(),
    "rrp_cash": Options(heads_up=HeadsUp.BEFORE_CAP, odd_chip=OddChip.ALL_CARDS),
    "tda_tournament": Options(first_actor_tie=FirstActorTie.SUIT, open_pair_double=False, max_raises=4),
    "wsop_cash": Options(max_raises=4, heads_up=HeadsUp.ROUND_BEGINS),
    "online": Options(burn_cards=False, short_stub=ShortStub.COMMUNITY),
}


@dataclass(frozen=True, kw_only=True)
class Stakes:
    """Chip amounts of the forced bets and the two betting units."""

    ante: int
    bring_in: int
    small_bet: int
    big_bet: int

    def __post_init__(self) -> None:
        for name in ("ante", "bring_in", "small_bet", "big_bet"):
            if _not_int(getattr(self, name)):
                raise SetupError(f"stakes.{name}", "must be a whole number of chips")
        if self.ante < 0:
            raise SetupError("stakes.ante", "must be >= 0")
        if self.bring_in <= 0:
            raise SetupError("stakes.bring_in", "must be > 0")
        if self.bring_in >= self.small_bet:
            raise SetupError("stakes.bring_in", "must be less than the small bet")
        if self.big_bet < self.small_bet:
            raise SetupError("stakes.big_bet", "must be at least the small bet")

    def to_json(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True, kw_only=True)
class SeatSetup:
    seat: int
    stack: int


MIN_SEATS = 2
MAX_SEATS = 8  # seven-card games; five-card stud seats 10 (Layout.max_seats)


def validate_seats(seats: tuple[SeatSetup, ...], max_seats: int = MAX_SEATS) -> None:
    """Seats 1..max_seats, unique, 2 to max_seats of them, each with chips."""
    if not MIN_SEATS <= len(seats) <= max_seats:
        raise SetupError("seats", f"a hand needs {MIN_SEATS} to {max_seats} seated players, got {len(seats)}")
    seen: set[int] = set()
    for position, setup in enumerate(seats):
        seat, stack = setup.seat, setup.stack
        if _not_int(seat) or not 1 <= seat <= max_seats:
            raise SetupError(f"seats[{position}].seat", f"must be a seat number from 1 to {max_seats}, got {seat!r}")
        if seat in seen:
            raise SetupError(f"seats[{position}].seat", f"seat {seat} is listed twice")
        seen.add(seat)
        if _not_int(stack) or stack <= 0:
            raise SetupError(f"seats[{position}].stack", f"must be a whole number of chips > 0, got {stack!r}")
