"""Which rules decided the legal actions, and why an action is refused.

The betting half of the explanations (engine/explain.py has the rest and what every part shares: the
collector, the fact paths, blame's `lookup`, and the recording points that call these). Like
explain.py it is bookkeeping beside the hand, never a second engine: the helpers read the round,
the seats and the `Table` (the game, its options, how the round's wagers counted), and change
nothing.

`legal.<kind>` is explained for every kind offered and for the absent kinds a reader may expect.
The rule of the option value or condition in force leads, whichever way it went: a raise the cap
took away is BET.CAP's, or BET.CAP.HEADS-UP's when the heads-up value is what kept the cap; a raise
an all-in gave back is ALLIN.HALF-BET.FULL's or ALLIN.REOPEN.PER-PLAYER's, one it did not is
ALLIN.HALF-BET.SHORT's (BIGBET.FULL-RAISE, BIGBET.CUMULATIVE in pot and no limit), and the amount
after an all-in is the rule that set the full level it counts from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from studcheck.engine import betting
from studcheck.engine.betting import LegalList, Round, SeatState
from studcheck.engine.errors import Reason
from studcheck.rules import ActionType, BigBetBringIn, HeadsUp, Options, Variant

#: fact path -> rule IDs, most specific first (explain.py's Facts)
Facts = dict[str, tuple[str, ...]]

# --- legal actions and refusals -------------------------------------------------------------------

_WAGERS = (ActionType.BET, ActionType.RAISE, ActionType.COMPLETE)
_AMOUNT_KINDS = frozenset({ActionType.BRING_IN, ActionType.CALL, ActionType.BET, ActionType.RAISE, ActionType.COMPLETE})


@dataclass(frozen=True, kw_only=True)
class Table:
    """What the legal-action rules depend on beyond the round: the game, its options and stakes."""

    variant: Variant
    options: Options
    bring_in: int
    ante: int
    is_bring_in_seat: bool
    #: the street where the open-pair double bet is decided (fourth; five-card third) and whether an
    #: open pair shows there
    open_pair_street: bool
    open_pair: bool
    #: how each wager since the seat last acted this round counted (`counted`; every wager of the
    #: round if it has not acted), and the one that set the full level ("" for none)
    since: tuple[str, ...] = ()
    last_full: str = ""


def _card_rule(variant: Variant) -> str:
    """The rule that names the bring-in card of `variant`."""
    if variant is Variant.FIVE_CARD_STUD:
        return "FIVE.BRING-IN"
    return "BRING-IN.CARD.HIGH" if variant is Variant.RAZZ else "BRING-IN.CARD.LOW"


def _bring_in_rule(table: Table) -> str:
    """Pot and no limit: may the bring-in seat open for more, and is its post an action?"""
    forced = table.options.big_bet_bring_in is BigBetBringIn.FORCED
    return "BIGBET.BRING-IN.FORCED" if forced else "BIGBET.BRING-IN.OPEN-ANY"


def _only_posted(seat: SeatState, round_: Round, table: Table) -> bool:
    """The bring-in seat, back on the opening street with only its bring-in in."""
    return table.is_bring_in_seat and round_.opening and 0 < seat.committed <= table.bring_in


def _limits(table: Table) -> str:
    return "FIVE.LIMITS" if table.variant is Variant.FIVE_CARD_STUD else "BET.LIMITS"


def _open_pair_rule(table: Table) -> str:
    return "FIVE.OPEN-PAIR" if table.variant is Variant.FIVE_CARD_STUD else "BET.DOUBLE.OPEN-PAIR"


def cap_rules(round_: Round, seats: Sequence[SeatState], options: Options) -> tuple[str, ...]:
    """Why no more raises: the cap (BET.CAP), led by the heads-up option when its value in force is
    what kept it (two players betting and the round not capped while more were: another value would
    lift it); then the completion that counted as the bet, not a raise."""
    rules = ["BET.CAP"]
    if betting.count_bettors(seats) == 2 and not round_.capped_multiway:
        rules.insert(0, "BET.CAP.HEADS-UP")
    elif round_.began_heads_up or options.heads_up is not HeadsUp.CAPPED and round_.capped_multiway:
        rules.append("BET.CAP.HEADS-UP")
    if round_.opening:
        rules.append("BRING-IN.COMPLETION-NOT-RAISE")
    return tuple(rules)


#: how a wager counted (`counted`) when it reopened the betting for no one
_SHORT = ("ALLIN.HALF-BET.SHORT", "BIGBET.FULL-RAISE")
#: the fixed-limit rules of what an all-in reopens and where the next wager counts from
_REOPENING = ("ALLIN.HALF-BET.SHORT", "ALLIN.HALF-BET.FULL", "ALLIN.REOPEN.PER-PLAYER")


def counted(seat: SeatState, round_: Round, amount: int) -> str:
    """How a wager to `amount` counts, decided as betting.apply_wager decides it: "" a full wager;
    fixed limit: ALLIN.HALF-BET.FULL an all-in of half a unit or more, ALLIN.REOPEN.PER-PLAYER full
    only with the short all-ins before it (it reopens per player), ALLIN.HALF-BET.SHORT a short
    all-in; pot and no limit: BIGBET.FULL-RAISE an all-in short of a full raise."""
    if round_.big_bet:
        return "" if amount - round_.level >= round_.raise_size else "BIGBET.FULL-RAISE"
    increment, all_in = amount - round_.full_level, amount == seat.committed + seat.stack
    if increment < round_.unit and not (all_in and 2 * increment >= round_.unit):
        return "ALLIN.HALF-BET.SHORT"
    if all_in and 2 * (amount - round_.wager_level) < round_.unit:
        return "ALLIN.REOPEN.PER-PLAYER"
    return "ALLIN.HALF-BET.FULL" if increment < round_.unit else ""


def _reopened_by_sum(seat: SeatState, round_: Round, table: Table) -> bool:
    """Reopened for this seat only by short all-ins that add up (ALLIN.REOPEN.PER-PLAYER,
    BIGBET.CUMULATIVE): fixed limit counts the wagers that reopen for everyone; in pot and no limit
    no full raise came since the seat acted."""
    if seat.acted_at is None:
        return False
    if not round_.big_bet:
        return round_.reopening <= seat.acted_after
    return "" not in table.since


def _reopening_rules(seat: SeatState, round_: Round, table: Table) -> list[str]:
    """Fixed limit, a wager offered after all-ins: why it is there for a seat that had acted (an all-in
    of half a unit reopened the betting, ALLIN.HALF-BET.FULL; short all-ins reached half a unit for
    this player, ALLIN.REOPEN.PER-PLAYER), then why its amount: one unit over the full level such an
    all-in set (the same rules), or over the last full level when short all-ins stand above it (the
    wager completes them, ALLIN.HALF-BET.SHORT)."""
    rules: list[str] = []
    if _reopened_by_sum(seat, round_, table):
        rules.append("ALLIN.REOPEN.PER-PLAYER")
    elif seat.acted_at is not None:
        reopened_by = [how for how in table.since if how not in _SHORT]
        if reopened_by and all(how == "ALLIN.HALF-BET.FULL" for how in reopened_by):
            rules.append("ALLIN.HALF-BET.FULL")
    if table.last_full:
        rules.append(table.last_full)
    if round_.wager_level > round_.full_level:
        rules.append("ALLIN.HALF-BET.SHORT")
    return list(dict.fromkeys(rules))


def wager_rules(kind: ActionType, seat: SeatState, round_: Round, seats: Sequence[SeatState], table: Table, amounts: Sequence[int]) -> tuple[str, ...]:
    """Why the wager of the round (`kind`) is offered at `amounts`, or not at all (no amounts)."""
    block = betting.wager_block(seat, round_)
    most = seat.committed + seat.stack
    if block is Reason.RAISE_CAP_REACHED:
        return cap_rules(round_, seats, table.options)
    if block is Reason.BETTING_NOT_REOPENED:
        if round_.big_bet and _only_posted(seat, round_, table):
            return (_bring_in_rule(table), "BIGBET.FULL-RAISE")  # under `open` its post was its action
        if round_.big_bet:
            return ("BIGBET.FULL-RAISE",)
        # for this seat the all-ins since it acted add less than half a unit; they may have been
        # full for others, or be several (judged per player)
        several = "ALLIN.REOPEN.PER-PLAYER" in table.since or table.since.count("ALLIN.HALF-BET.SHORT") > 1
        return ("ALLIN.HALF-BET.SHORT", "ALLIN.REOPEN.PER-PLAYER") if several else ("ALLIN.HALF-BET.SHORT",)
    if block is not None:
        return ("ALLIN.CALL-SHORT",) if most <= round_.level else ("ALLIN.RUNOUT", "BET.ROUND-END")
    rules: list[str] = []
    if round_.big_bet:
        if _only_posted(seat, round_, table) and not round_.bring_in_open and round_.level - seat.committed < round_.raise_size:
            rules.append(_bring_in_rule(table))  # `forced`: the post was no action, so a short all-in reopened it
        elif _reopened_by_sum(seat, round_, table):
            rules.append("BIGBET.CUMULATIVE")
        if kind is ActionType.RAISE and round_.level >= round_.raise_size * (2 + table.options.max_raises):
            rules.append("BIGBET.NO-CAP")  # more raises than a fixed-limit cap would have allowed
        low, high = betting.wager_range(seat, round_, seats)
        if low == high == most and most < round_.level + round_.raise_size:
            rules.append("BIGBET.ALL-IN-SHORT")
        if table.open_pair_street and table.open_pair and table.variant in (Variant.STUD_HIGH, Variant.FIVE_CARD_STUD):
            rules.append("BIGBET.NO-DOUBLE")
        minimum = "BIGBET.MIN-BET" if kind is ActionType.BET else "BIGBET.MIN-RAISE"
        rules += ["BIGBET.POT-MAX", minimum] if round_.pot_limit else [minimum, "BIGBET.NO-LIMIT-MAX"]
        return tuple(rules)
    if round_.wagers >= round_.cap:
        rules.append("BET.CAP.HEADS-UP")
    rules += _reopening_rules(seat, round_, table)
    if amounts and max(amounts) == most and most < round_.full_level + round_.unit:
        rules.append("ALLIN.CALL-SHORT")
    small_street = round_.unit == round_.small or round_.double
    if round_.double and round_.big != round_.small:
        rules += ["BET.DOUBLE.RAISES", _open_pair_rule(table)] if round_.level > 0 and kind is not ActionType.COMPLETE else [_open_pair_rule(table), "BET.DOUBLE.RAISES"]
    elif table.open_pair_street and table.open_pair and table.options.open_pair_double and table.variant in (Variant.STUD_HIGH, Variant.FIVE_CARD_STUD) and not small_street:
        rules += ["BET.DOUBLE.RAISES", _open_pair_rule(table)]
    elif table.open_pair_street and table.open_pair:
        rules.append("BET.DOUBLE.ABSENT")
    if kind is ActionType.COMPLETE:
        rules.append("BRING-IN.CHOICE" if table.is_bring_in_seat and round_.level == 0 else "BRING-IN.FACING")
    elif kind is ActionType.RAISE and round_.opening:
        rules.append("BRING-IN.COMPLETION-NOT-RAISE")
    rules += [_limits(table), "BET.FIXED-AMOUNT"]
    return tuple(rules)


def legal_rules(seat: SeatState, round_: Round, seats: Sequence[SeatState], legal: LegalList, table: Table) -> Facts:
    """`legal` and `legal.<kind>` for every kind offered, and for the absent kinds a reader may expect."""
    kinds = {kind for kind, _, _ in legal}
    out: Facts = {}
    most = seat.committed + seat.stack
    big = round_.big_bet
    if round_.level == 0 and round_.opening:
        if table.is_bring_in_seat:
            base: tuple[str, ...] = (_bring_in_rule(table), "BRING-IN.CHOICE") if big else ("BRING-IN.CHOICE",)
            out["legal"] = base
            out["legal.fold"] = out["legal.check"] = ("BRING-IN.CHOICE",)
            out["legal.bring_in"] = ("BRING-IN.ALL-IN-PARTIAL", "BRING-IN.CHOICE") if most < table.bring_in else base
        else:
            base = ("BRING-IN.ALL-IN-ANTE", _bring_in_rule(table)) if big else ("BRING-IN.ALL-IN-ANTE",)
            out["legal"] = out["legal.check"] = out["legal.bring_in"] = base
            # it may fold because the bring-in card is another seat's (the card rule), all-in on the ante
            out["legal.fold"] = (_card_rule(table.variant), *base)
        if big:
            out["legal.complete"] = (_bring_in_rule(table),)
        else:
            amounts = [amount for kind, amount, _ in legal if kind is ActionType.COMPLETE and amount is not None]
            out["legal.complete"] = wager_rules(ActionType.COMPLETE, seat, round_, seats, table, amounts) if amounts else base
        if big and table.is_bring_in_seat:
            out["legal.bet"] = out["legal.raise"] = (_bring_in_rule(table), "BIGBET.POT-MAX" if round_.pot_limit
                                                     else "BIGBET.NO-LIMIT-MAX")
            out.update(_max_rules(seat, round_, seats, out))
        else:
            out["legal.bet"] = out["legal.raise"] = (_bring_in_rule(table),) if big else base
        return out
    facing_bring_in = round_.opening and not big and round_.wagers == 0
    out["legal.fold"] = ("BET.FOLD",)
    out["legal.check"] = ("BET.CHECK",)
    call = [amount for kind, amount, _ in legal if kind is ActionType.CALL]
    if call and call[0] is not None and call[0] < round_.level:
        out["legal.call"] = ("ALLIN.CALL-SHORT",)
    elif facing_bring_in:
        short = any(s.committed < table.bring_in and s.stack == 0 and not s.folded and s.committed > 0 for s in seats)
        out["legal.call"] = ("BRING-IN.ALL-IN-PARTIAL", "BRING-IN.FACING") if short else ("BRING-IN.FACING",)
    elif ActionType.CALL in kinds:
        out["legal.call"] = ("BET.ROUND-END",)
    else:
        out["legal.call"] = ("BET.CHECK",)
    kind = betting.wager_kind(round_)
    amounts = [amount for k, amount, _ in legal if k is kind and amount is not None]
    rules = wager_rules(kind, seat, round_, seats, table, amounts)
    out["legal." + kind.value] = rules
    if big:
        out.update(_max_rules(seat, round_, seats, {"legal." + kind.value: rules}))
    for other in _WAGERS:
        if other is kind:
            continue
        if facing_bring_in:
            out["legal." + other.value] = ("BRING-IN.FACING",)
        elif other is ActionType.COMPLETE and round_.opening:  # complete exists only in the opening round
            out["legal.complete"] = (_bring_in_rule(table),) if big else ("BRING-IN.COMPLETION-NOT-RAISE",)
    if facing_bring_in:
        out["legal"] = ("BRING-IN.FACING",)
    elif kind in kinds:
        out["legal"] = rules
    else:
        out["legal"] = rules + ("BET.CHECK",) if ActionType.CHECK in kinds else rules
    return out


def _max_rules(seat: SeatState, round_: Round, seats: Sequence[SeatState], wagers: Facts) -> Facts:
    """`legal.<kind>.max`: in pot limit, a range that stops short of the stack stops at the pot
    (BIGBET.POT-MAX decided its top, whatever decided its bottom); the harness asks for it when
    only the top of a range differs (harness/blame.py)."""
    if not round_.pot_limit:
        return {}
    _, high = betting.wager_range(seat, round_, seats)
    if high >= seat.committed + seat.stack:
        return {}
    return {f"{fact}.max": ("BIGBET.POT-MAX", *(rule for rule in rules if rule != "BIGBET.POT-MAX")) for fact, rules in wagers.items()}


@dataclass(frozen=True, kw_only=True)
class Refused:
    """A refused action and what its refusal depends on (seat, round, table: None outside betting)."""

    reason: Reason
    kind: ActionType
    amount: int | None
    seat: SeatState | None
    round: Round | None
    seats: Sequence[SeatState]
    table: Table | None
    showdown: bool
    must_show: bool


def refusal_rules(refused: Refused, legal_facts: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The rule that forbids an action first, ACTION.REFUSAL last."""
    r = refused
    rules = _refusal_rules(r.reason, r.kind, r.amount, legal_facts, r.seat, r.round, r.seats, r.table, r.showdown, r.must_show)
    return rules + ("ACTION.REFUSAL",)


def _kind_rules(kind: ActionType, legal_facts: Mapping[str, tuple[str, ...]], round_: Round) -> tuple[str, ...]:
    """The rules of `legal.<kind>`; a bet, completion or raise that is not the round's wager kind
    answers to the rules of the kind that is (a bet facing a bet is a raise)."""
    rules = legal_facts.get("legal." + kind.value)
    if not rules and kind in _WAGERS:
        rules = legal_facts.get("legal." + betting.wager_kind(round_).value)
    return rules or ()


def _refusal_rules(reason: Reason, kind: ActionType, amount: int | None, legal_facts: Mapping[str, tuple[str, ...]],
                   seat: SeatState | None, round_: Round | None, seats: Sequence[SeatState], table: Table | None,
                   showdown: bool, must_show: bool) -> tuple[str, ...]:
    if reason is Reason.HAND_OVER:
        return ("ACTION.HAND-OVER",)
    if reason is Reason.UNKNOWN_SEAT:
        return ("FIVE.PLAYERS",) if table is not None and table.variant is Variant.FIVE_CARD_STUD else ("SETUP.PLAYERS",)
    if reason is Reason.OUT_OF_TURN:
        return ("BET.ORDER",)
    if showdown or kind in (ActionType.SHOW, ActionType.MUCK):
        if kind is ActionType.MUCK and must_show:
            return ("SHOWDOWN.LAST-CONTENDER", "SHOWDOWN.MUCK")
        return ("SHOWDOWN.MUCK",)
    if seat is None or round_ is None or table is None:
        return ()
    if reason in (Reason.RAISE_CAP_REACHED, Reason.BETTING_NOT_REOPENED):
        return _kind_rules(kind, legal_facts, round_)
    opening = round_.level == 0 and round_.opening
    if reason is Reason.ILLEGAL_ACTION:
        if opening and kind in (ActionType.FOLD, ActionType.CHECK):
            return ("BRING-IN.CHOICE",) if table.is_bring_in_seat else ("BRING-IN.ALL-IN-ANTE",)
        if kind is ActionType.CHECK:
            facing = round_.opening and not round_.big_bet and round_.wagers == 0
            return ("BET.CHECK", "BRING-IN.FACING") if facing else ("BET.CHECK",)
        if kind is ActionType.CALL:
            return ("BRING-IN.CHOICE",) if opening else ("BET.CHECK",)
        if kind is ActionType.BRING_IN:
            return ("BRING-IN.CHOICE",)
        return _kind_rules(kind, legal_facts, round_)
    # invalid_amount
    if kind not in _AMOUNT_KINDS:
        return ()  # an amount given to an action that takes none
    if kind is ActionType.BRING_IN:
        return ("BRING-IN.CHOICE",) if table.is_bring_in_seat else ("BRING-IN.ALL-IN-ANTE",)
    if type(amount) is not int:  # no amount, or not a whole number: the kind's own amount rule
        return _kind_rules(kind, legal_facts, round_)
    if kind is ActionType.CALL:
        if amount == round_.level + table.ante or amount == round_.level - seat.committed + table.ante:
            return ("ANTE.DEAD",)
        return legal_facts.get("legal.call") or ()
    if round_.big_bet:
        low, _ = betting.wager_range(seat, round_, seats)
        if opening and amount <= table.bring_in:
            return (_bring_in_rule(table), "BIGBET.MIN-BET")  # a bet must be above the bring-in it replaces
        if amount < low:
            return ("BIGBET.MIN-BET",) if kind is ActionType.BET else ("BIGBET.MIN-RAISE",)
        return ("BIGBET.POT-MAX",) if round_.pot_limit else ("BIGBET.NO-LIMIT-MAX",)
    if kind is ActionType.COMPLETE:
        return ("BRING-IN.CHOICE",) if table.is_bring_in_seat and opening else ("BRING-IN.FACING",)
    rules = legal_facts.get("legal." + kind.value) or ()
    other_unit = round_.big if round_.unit == round_.small else round_.small
    if "BET.DOUBLE.ABSENT" in rules or "BET.DOUBLE.RAISES" in rules or _open_pair_rule(table) in rules:
        return rules
    if rules[:1] and rules[0] in _REOPENING and amount != round_.full_level + other_unit:
        return rules  # the all-in that set (or did not set) the full level decided the amount
    if amount == round_.full_level + other_unit:
        return (_limits(table), "BET.FIXED-AMOUNT")
    return ("BET.FIXED-AMOUNT", _limits(table))
