"""Which rule decided each fact of the state: bookkeeping beside the hand, never a second engine.

A `Hand` built with a `Notes` collector records, beside the branch that produced a fact, the rule
IDs (spec/rules.yaml) that decided it, most specific first, keyed by the fact's path in the
harness's Mismatch syntax (`to_act`, `legal.raise`, `up.3`, `result.pots[0].winners.2`). A hand
without a collector records nothing: every recording call sits behind `if notes is not None`.

The harness asks for explanations only when a case diverges: it replays the case on the
reference with a collector and blames the rule that explains the first differing fact (`lookup`).
The helpers below decide which rule a branch stands for from values the hand already has; none of
them changes the hand.

Facts: `street`, `to_act`, `community`, `legal` and `legal.<kind>` (offered, or absent for a
reason a reader may ask about), `up.<seat>`, `down.<seat>`, `stacks.<seat>`, `committed.<seat>`,
`folded`, `all_in`, `shown`, `mucked`, `pots`, `pot_total`, `ok` (the accepted action's legal
entry), and at the end `result.showdown_order`, `result.rake`, `result.returned.<seat>`,
`result.pots[<i>].amount|eligible`, `result.pots[<i>].winners|high|low.<seat>`,
`result.stacks.<seat>`. A fact keeps its explanation until the branch that changes it records a
new one.

Candidate sets: where a rule only narrows a choice (BRING-IN.TIE.*, BET.FIRST-ACTOR.TIE.*, the
all-in ante, BET.FIRST-ACTOR.ALL-IN / FOLDED / EXPOSED-RANKING) and leads `to_act`'s explanation,
`to_act|<rule>` holds the values (seat numbers, as text) `to_act` could take if that rule were the
one broken and the general rule kept (`first_actor_candidates`); blame (harness/blame.py) passes
over a leading rule whose set does not hold the engine's value. These keys are no rule IDs and go
with their fact (recording the fact again drops them). `legal.<kind>.max` is what capped the top of
a pot-limit range short of the stack (BIGBET.POT-MAX), asked only when just the top differs. Refusals are explained by `refusal_rules` and `setup_rules` (protocol/serve.py adds them).

The end of the hand (who shows first, why a hand won, how each pot was shared) is explained in
engine/explain_award.py; its recording points and rules are importable from here too, so the hand
reaches every recording point through this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from studcheck.cards import Card
from studcheck.engine import betting
from studcheck.engine.betting import LegalList, Round, SeatState
from studcheck.engine.errors import Reason
from studcheck.engine.explain_award import award_rules as award_rules
from studcheck.engine.explain_award import high_rules as high_rules
from studcheck.engine.explain_award import note_finish as note_finish
from studcheck.engine.explain_award import note_showdown_order as note_showdown_order
from studcheck.engine.explain_award import note_zero_shares as note_zero_shares
from studcheck.evaluate import exposed_high_key, exposed_low_key
from studcheck.rules import ActionType, BigBetBringIn, BringInTie, FirstActorTie, HeadsUp, Options, Street, Variant

if TYPE_CHECKING:
    from studcheck.engine.state import Action, Hand, LegalAction

Facts = dict[str, tuple[str, ...]]


class Notes:
    """The rules behind each fact of the current state (path -> rule IDs, most specific first)."""

    def __init__(self) -> None:
        self._facts: Facts = {}
        self._candidates: set[str] = set()  # the `<fact>|<rule>` keys recorded

    def add(self, fact: str, *rules: str) -> None:
        """Record (or replace) the rules that decided `fact` (and forget its candidate sets)."""
        self._facts[fact] = tuple(rules)
        if self._candidates:
            for key in [key for key in self._candidates if key.startswith(fact + "|")]:
                self._candidates.discard(key)
                del self._facts[key]

    def narrow(self, fact: str, rule: str, values: Sequence[object]) -> None:
        """Record `<fact>|<rule>`: the values `fact` may take when `rule` (a narrowing rule: a tie
        rule, the all-in or folded detail) is the one broken; after `add(fact, ...)`."""
        key = f"{fact}|{rule}"
        self._facts[key] = tuple(sorted({str(value) for value in values}))
        self._candidates.add(key)

    def get(self, fact: str) -> tuple[str, ...]:
        return self._facts.get(fact, ())

    def clear_prefix(self, prefix: str) -> None:
        """Forget `prefix` and every fact under it (`legal` also drops `legal.raise`)."""
        for fact in [f for f in self._facts if f == prefix or f.startswith((prefix + ".", prefix + "[", prefix + "|"))]:
            del self._facts[fact]
            self._candidates.discard(fact)

    def clear(self) -> None:
        self._facts.clear()
        self._candidates.clear()

    def facts(self) -> Facts:
        """A copy of every recorded fact."""
        return dict(self._facts)


def parent_path(path: str) -> str | None:
    """`result.pots[0].winners.3` -> `result.pots[0].winners` -> `result.pots[0]` -> `result.pots`
    -> `result` -> None."""
    if path.endswith("]"):
        start = path.rfind("[")
        if start > 0:
            return path[:start]
    dot = path.rfind(".")
    if dot > 0:
        return path[:dot]
    return None


def lookup(facts: Mapping[str, tuple[str, ...]], path: str) -> tuple[str, ...]:
    """The rules for `path`, else for its ever shorter prefixes, else ()."""
    current: str | None = path
    while current is not None:
        rules = facts.get(current)
        if rules:
            return tuple(rules)
        current = parent_path(current)
    return ()


# --- who brings in, who acts first --------------------------------------------------------------


def _card_rank(card: Card, ace_low: bool) -> int:
    rank = (card.index >> 2) + 2
    return 1 if ace_low and rank == 14 else rank


def bring_in_rules(variant: Variant, tie: BringInTie, doors: Mapping[int, Card]) -> tuple[str, ...]:
    """The bring-in card rule, after the tie rule when several door cards share the bring-in rank."""
    razz = variant is Variant.RAZZ
    ranks = [_card_rank(card, razz) for card in doors.values()]
    worst = max(ranks) if razz else min(ranks)
    rules: list[str] = []
    if ranks.count(worst) > 1:
        rules.append("BRING-IN.TIE.SUIT" if tie is BringInTie.SUIT else "BRING-IN.TIE.SEAT")
    if variant is Variant.FIVE_CARD_STUD:
        rules += ["FIVE.BRING-IN", "BRING-IN.CARD.LOW"]
    else:
        rules.append("BRING-IN.CARD.HIGH" if razz else "BRING-IN.CARD.LOW")
    return tuple(rules)


def _card_rule(variant: Variant) -> str:
    """The rule that names the bring-in card of `variant`."""
    if variant is Variant.FIVE_CARD_STUD:
        return "FIVE.BRING-IN"
    return "BRING-IN.CARD.HIGH" if variant is Variant.RAZZ else "BRING-IN.CARD.LOW"


def _naive_key(board: Sequence[Card], razz: bool) -> tuple[int, ...]:
    """Boards compared card by card from the highest (lower is better in Razz), pairs ignored:
    where this disagrees with the exposed ranking, that ranking decided (EXPOSED-RANKING)."""
    ranks = sorted((_card_rank(card, razz) for card in board), reverse=True)
    return tuple(-r for r in ranks) if razz else tuple(ranks)


def first_actor_rules(
    variant: Variant,
    tie: FirstActorTie,
    boards: Mapping[int, Sequence[Card]],
    folded_boards: Mapping[int, Sequence[Card]],
    chosen: int,
    *,
    all_in_skipped: bool,
    last_street: bool,
    community: bool,
) -> tuple[str, ...]:
    """Why `chosen` (the best live board) leads this street: tie, all-in, last street, ranking."""
    razz = variant is Variant.RAZZ
    key_of = exposed_low_key if razz else exposed_high_key
    keys = {seat: key_of(board) for seat, board in boards.items()}
    best = keys[chosen]
    rules: list[str] = []
    if sum(1 for key in keys.values() if key == best) > 1:
        rules.append("BET.FIRST-ACTOR.TIE.SUIT" if tie is FirstActorTie.SUIT else "BET.FIRST-ACTOR.TIE.SEAT")
    if all_in_skipped:
        rules.append("BET.FIRST-ACTOR.ALL-IN")
    if any(key_of(board) > best for board in folded_boards.values()):
        rules.append("BET.FIRST-ACTOR.FOLDED")
    if last_street and variant is not Variant.FIVE_CARD_STUD:
        if community:
            rules.append("DEAL.COMMUNITY.FIRST-ACTOR")
        rules.append("BET.FIRST-ACTOR.SEVENTH")
    naive = {seat: _naive_key(board, razz) for seat, board in boards.items()}
    if len(boards) > 1 and max(naive.values()) != naive[chosen]:
        rules.append("BET.FIRST-ACTOR.EXPOSED-RANKING")
    if variant is Variant.FIVE_CARD_STUD:
        rules.append("FIVE.FIRST-ACTOR")
    else:
        rules.append("BET.FIRST-ACTOR.LOW" if razz else "BET.FIRST-ACTOR.HIGH")
    if "BET.FIRST-ACTOR.EXPOSED-RANKING" not in rules:
        rules.append("BET.FIRST-ACTOR.EXPOSED-RANKING")
    return tuple(rules)



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


def _bring_in_rule(table: Table) -> str:
    """Pot and no limit: may the bring-in seat open for more, and is its post an action?"""
    forced = table.options.big_bet_bring_in is BigBetBringIn.FORCED
    return "BIGBET.BRING-IN.FORCED" if forced else "BIGBET.BRING-IN.OPEN"


def _only_posted(seat: SeatState, round_: Round, table: Table) -> bool:
    """The bring-in seat, back on the opening street with only its bring-in in."""
    return table.is_bring_in_seat and round_.opening and 0 < seat.committed <= table.bring_in


def _limits(table: Table) -> str:
    return "FIVE.LIMITS" if table.variant is Variant.FIVE_CARD_STUD else "BET.LIMITS"


def _open_pair_rule(table: Table) -> str:
    return "FIVE.OPEN-PAIR" if table.variant is Variant.FIVE_CARD_STUD else "BET.DOUBLE.OPEN-PAIR"


def cap_rules(round_: Round, seats: Sequence[SeatState], options: Options) -> tuple[str, ...]:
    """Why no more raises: the cap removed the raise (BET.CAP); then the heads-up option when it was
    weighed (it did not lift the cap), and the completion that counted as the bet, not a raise."""
    rules = ["BET.CAP"]
    if betting.count_bettors(seats) == 2 or round_.began_heads_up or options.heads_up is not HeadsUp.CAPPED and round_.capped_multiway:
        rules.append("BET.CAP.HEADS-UP")
    if round_.opening:
        rules.append("BRING-IN.COMPLETION-NOT-RAISE")
    return tuple(rules)


def _reopened_by_sum(seat: SeatState, round_: Round, seats: Sequence[SeatState]) -> bool:
    """Reopened for this seat only by short all-ins that add up (ALLIN.REOPEN.PER-PLAYER, BIGBET.CUMULATIVE).

    Fixed limit counts the wagers that reopen for everyone; pot and no limit keep no counter, so
    there it is two or more all-ins above what the seat matched."""
    acted = seat.acted_at
    if acted is None:
        return False
    if not round_.big_bet:
        return round_.reopening <= seat.acted_after
    return sum(1 for s in seats if s.all_in and s.committed > acted) >= 2


def wager_rules(kind: ActionType, seat: SeatState, round_: Round, seats: Sequence[SeatState], table: Table, amounts: Sequence[int]) -> tuple[str, ...]:
    """Why the wager of the round (`kind`) is offered at `amounts`, or not at all (no amounts)."""
    block = betting.wager_block(seat, round_, seats)
    most = seat.committed + seat.stack
    if block is Reason.RAISE_CAP_REACHED:
        return cap_rules(round_, seats, table.options)
    if block is Reason.BETTING_NOT_REOPENED:
        if round_.big_bet and _only_posted(seat, round_, table):
            return (_bring_in_rule(table), "BIGBET.FULL-RAISE")  # under `open` its post was its action
        return ("BIGBET.FULL-RAISE",) if round_.big_bet else ("ALLIN.HALF-BET.SHORT",)
    if block is not None:
        return ("ALLIN.CALL-SHORT",) if most <= round_.level else ("ALLIN.RUNOUT", "BET.ROUND-END")
    rules: list[str] = []
    if _reopened_by_sum(seat, round_, seats) and (round_.big_bet or table.variant is not Variant.FIVE_CARD_STUD):
        rules.append("BIGBET.CUMULATIVE" if round_.big_bet else "ALLIN.REOPEN.PER-PLAYER")
    if round_.big_bet:
        if seat.acted_at is None and _only_posted(seat, round_, table):
            rules.append(_bring_in_rule(table))  # `forced`: the post was no action, so a short all-in reopens
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
        if amount < low and opening and table.is_bring_in_seat:
            return (_bring_in_rule(table), "BIGBET.MIN-BET")  # the smallest opening is twice the bring-in
        if amount < low:
            return ("BIGBET.MIN-BET",) if kind is ActionType.BET else ("BIGBET.MIN-RAISE",)
        return ("BIGBET.POT-MAX",) if round_.pot_limit else ("BIGBET.NO-LIMIT-MAX",)
    if kind is ActionType.COMPLETE:
        return ("BRING-IN.CHOICE",) if table.is_bring_in_seat and opening else ("BRING-IN.FACING",)
    rules = legal_facts.get("legal." + kind.value) or ()
    other_unit = round_.big if round_.unit == round_.small else round_.small
    if "BET.DOUBLE.ABSENT" in rules or "BET.DOUBLE.RAISES" in rules or _open_pair_rule(table) in rules:
        return rules
    if amount == round_.full_level + other_unit:
        return (_limits(table), "BET.FIXED-AMOUNT")
    return ("BET.FIXED-AMOUNT", _limits(table))



# --- setups ---------------------------------------------------------------------------------------

#: words of a refused deck's message that say the deck is not 52 distinct cards (else a card is
#: badly written, CARDS.NOTATION)
_DECK_WORDS = ("52", "twice", "non-unique", "too short", "too long", "must contain cards", "must list")


def setup_rules(variant: object, message: str | None) -> tuple[str, ...]:
    """The setup rule a refused new_hand breaks (`message`: the refusal's, `field: problem`),
    ACTION.REFUSAL last; with no message, the rules an accepted setup satisfies."""
    players = "FIVE.PLAYERS" if variant == Variant.FIVE_CARD_STUD.value else "SETUP.PLAYERS"
    if message is None:
        return (players, "SETUP.STAKES", "SETUP.STACKS", "SETUP.DECK", "CARDS.NOTATION")
    text = message.removeprefix("new_hand: ")
    field = text.split(": ", 1)[0]
    if field.startswith(("deck[", "remade_stub[")):
        return ("CARDS.NOTATION", "ACTION.REFUSAL")
    if field in ("deck", "remade_stub"):
        rule = "SETUP.DECK" if any(word in text for word in _DECK_WORDS) else "CARDS.NOTATION"
        return (rule, "ACTION.REFUSAL")
    if field.startswith("seats") and field.endswith(".stack"):
        return ("SETUP.STACKS", "ACTION.REFUSAL")
    if field.startswith("seats"):
        return (players, "ACTION.REFUSAL")
    if field.startswith("stakes"):
        return ("SETUP.STAKES", "ACTION.REFUSAL")
    return ("ACTION.REFUSAL",)


# --- the hand's recording points (called by Hand only when it has a collector) ----------------------


def note_state(hand: Hand, notes: Notes) -> None:
    """Record the facts derived from the current state (the legal actions, the pots) into the
    collector; the Server calls this after each answer when explanations are wanted."""
    notes.clear_prefix("legal")
    if hand.result is not None:
        notes.add("legal", *notes.get("street"))
    elif hand.street is Street.SHOWDOWN and hand.to_act is not None:
        muck = ("SHOWDOWN.LAST-CONTENDER", "SHOWDOWN.MUCK") if hand._must_show(hand.to_act) else ("SHOWDOWN.MUCK",)
        notes.add("legal", *muck)
        notes.add("legal.muck", *muck)
        notes.add("legal.show", "SHOWDOWN.MUCK")
    else:
        for fact, rules in legal_facts(hand).items():
            notes.add(fact, *rules)
    if hand.result is None and len(hand._pots) > 1:  # the snapshot's pots, just built
        ante_only = any(s.all_in and s.total <= hand.stakes.ante for s in hand._seat_list)
        notes.add("pots", *(("ANTE.ALL-IN", "POT.SIDE") if ante_only else ("POT.SIDE",)))


def refusal_of(hand: Hand, action: Action, reason: Reason) -> tuple[str, ...]:
    """The rules behind refusing `action` with `reason` (the hand is unchanged)."""
    seat = hand.seats.get(hand.to_act) if hand.to_act is not None else None
    showdown_street = hand.street is Street.SHOWDOWN
    table = table_of(hand, seat) if seat is not None else None
    facts: dict[str, tuple[str, ...]] = {} if showdown_street or seat is None or hand.round is None else legal_facts(hand)
    refused = Refused(
        reason=reason, kind=action.action, amount=action.amount, seat=seat, round=hand.round, seats=hand._seat_list,
        table=table, showdown=showdown_street,
        must_show=showdown_street and hand.to_act is not None and hand._must_show(hand.to_act),
    )
    return refusal_rules(refused, facts)


def table_of(hand: Hand, seat: SeatState) -> Table:
    """The game facts the legal-action rules of `seat` depend on."""
    layout = hand.layout
    decided = layout.open_pair_street or (layout.streets[1] if len(layout.streets) > 1 else None)
    return Table(
        variant=hand.variant, options=hand.options, bring_in=hand.stakes.bring_in, ante=hand.stakes.ante,
        is_bring_in_seat=seat.seat == hand.bring_in_seat,
        open_pair_street=hand.street is decided,
        open_pair=any(len(s.up) > 1 and s.up[0].rank == s.up[1].rank for s in hand._live()),
    )


def legal_facts(hand: Hand) -> dict[str, tuple[str, ...]]:
    """`legal` and `legal.<kind>` for the seat to act (empty between rounds and at the end)."""
    if hand.to_act is None or hand.round is None:
        return {}
    seat = hand.seats[hand.to_act]
    pairs = [(la.action, la.amount, la.top) for la in hand.legal_actions()]
    return legal_rules(seat, hand.round, hand._seat_list, pairs, table_of(hand, seat))


def note_antes(hand: Hand) -> None:
    """Stacks and the pot after the antes (dead money; all-in on the ante)."""
    assert hand._notes is not None
    notes = hand._notes
    ante_all_in = False
    for seat in hand._seat_list:
        if seat.stack == 0:
            ante_all_in = True
            notes.add(f"stacks.{seat.seat}", "ANTE.ALL-IN", "ANTE.DEAD")
        else:
            notes.add(f"stacks.{seat.seat}", "ANTE.DEAD")
    notes.add("pot_total", "ANTE.DEAD")
    notes.add("committed", "ANTE.DEAD")
    notes.add("pots", *(("ANTE.ALL-IN", "POT.SIDE") if ante_all_in else ("ANTE.DEAD",)))
    notes.add("all_in", *(("ANTE.ALL-IN",) if ante_all_in else ("ALLIN.CALL-SHORT",)))


def note_opening(hand: Hand, doors: dict[int, Card]) -> None:
    """The opening deal (third street; five-card second street)."""
    assert hand._notes is not None
    rule = "FIVE.DEAL" if hand.variant is Variant.FIVE_CARD_STUD else "DEAL.THIRD"
    for seat in hand._seat_list:
        hand._notes.add(f"up.{seat.seat}", rule)
        hand._notes.add(f"down.{seat.seat}", rule)
    hand._notes.add("street", rule)
    hand._notes.add("community", "DEAL.STREETS" if rule == "DEAL.THIRD" else "FIVE.STREETS")


def street_rules(hand: Hand, *, remade: bool = False, burned: bool = False) -> list[str]:
    """The rules that put a card where it is on a later street, most specific first."""
    if hand.variant is Variant.FIVE_CARD_STUD:
        return (["FIVE.SHORT-STUB"] if remade else []) + ["FIVE.STREETS"]
    return (["DEAL.SHORT-STUB.REMAKE"] if remade else []) + (["DEAL.BURN"] if burned else []) + ["DEAL.STREETS"]


def note_street(hand: Hand, dealt: list[int]) -> None:
    """One up card each on fourth to sixth street (five-card third and fourth)."""
    assert hand._notes is not None
    rules = street_rules(hand, burned=hand.options.burn_cards)
    for seat in dealt:
        hand._notes.add(f"up.{seat}", *rules)


def note_last_street(hand: Hand, cards: dict[int, Card], *, remade: bool, burned: bool, community: bool) -> None:
    """The last card: dealt to each, after a remade stub, or one community card (short stub)."""
    assert hand._notes is not None
    rules = street_rules(hand, remade=remade, burned=burned)
    face = "up" if hand.layout.last_face_up else "down"
    for seat in cards:
        hand._notes.add(f"{face}.{seat}", *rules)
    if community:
        five = hand.variant is Variant.FIVE_CARD_STUD
        first = ["FIVE.SHORT-STUB"] if five else ["DEAL.SHORT-STUB.COMMUNITY"] + (["DEAL.SHORT-STUB.REMAKE"] if remade else [])
        shared = (*first, *(["DEAL.BURN"] if burned and not five else []), *rules[-1:])
        hand._notes.add("community", *shared)
        for live in hand._live():  # no last card of its own: the community card is everyone's
            if live.seat not in cards:
                hand._notes.add(f"{face}.{live.seat}", *shared)
    else:
        hand._notes.add("community", *rules)


def note_first_actor(hand: Hand, first: int) -> None:
    """Who opens a round: the bring-in card, or the best board. Only this street's first-actor rules:
    why the round before ended is the `street` fact's (BRING-IN.CALLED-ROUND-ENDS, BET.ROUND-END).
    Each narrowing rule also gets its candidate set (`to_act|<rule>`, `first_actor_candidates`)."""
    assert hand._notes is not None and hand.round is not None
    notes = hand._notes
    if hand.round.opening:
        doors = {seat.seat: seat.up[0] for seat in hand._seat_list}
        rules = bring_in_rules(hand.variant, hand.options.bring_in_tie, doors)
        if hand.to_act != first:
            rules = ("BRING-IN.ALL-IN-ANTE",) + rules
    else:
        live = hand._live()
        rules = first_actor_rules(
            hand.variant, hand.options.first_actor_tie,
            {s.seat: s.up[:4] for s in live},
            {s.seat: s.up[:4] for s in hand._seat_list if s.folded and s.up},
            first,
            all_in_skipped=hand.to_act != first,
            last_street=hand.street is hand._last,
            community=hand.community is not None,
        )
    notes.add("to_act", *rules)
    for rule, seats in first_actor_candidates(hand, first, rules).items():
        notes.narrow("to_act", rule, seats)
    notes.clear_prefix("committed")
    if not hand.round.opening:
        notes.add("committed", "BET.ROUND-END")


def first_actor_candidates(hand: Hand, first: int, rules: Sequence[str]) -> dict[str, list[int]]:
    """For each narrowing rule among `rules`, the seats `to_act` could be if that rule were the one
    broken and the general rule kept: the blame of a `to_act` outside them passes to the next rule.

    - BRING-IN.TIE.* / BET.FIRST-ACTOR.TIE.*: whichever of the tied seats (the card or board rule
      leaves them all) opens;
    - BRING-IN.ALL-IN-ANTE / BET.FIRST-ACTOR.ALL-IN: the all-in seat itself, or the seat the forced
      bet or the lead would pass to by card or board (the rule says: to the next seat clockwise);
    - BET.FIRST-ACTOR.FOLDED: a folded seat whose board is better, or the seat after it;
    - BET.FIRST-ACTOR.EXPOSED-RANKING: the best board compared card by card with pairs ignored.
    """
    assert hand.round is not None
    round_, seat_list, order = hand.round, hand._seat_list, hand.order

    def opens(seat: int) -> int:  # who acts if `seat` holds the lead (an all-in seat passes it on)
        return betting.next_to_act(seat_list, order.index(seat), round_) or seat

    razz = hand.variant is Variant.RAZZ
    out: dict[str, list[int]] = {}
    if round_.opening:
        doors = {state.seat: state.up[0] for state in seat_list}
        ranks = {seat: _card_rank(card, razz) for seat, card in doors.items()}
        worst = max(ranks.values()) if razz else min(ranks.values())
        for rule in rules:
            if rule.startswith("BRING-IN.TIE."):
                out[rule] = [opens(seat) for seat, rank in ranks.items() if rank == worst]
            elif rule == "BRING-IN.ALL-IN-ANTE":
                active = {state.seat: state.up[0] for state in seat_list if state.stack > 0}
                out[rule] = [first] + ([betting.bring_in_seat(hand.variant, hand.options, active)] if active else [])
        return out
    key_of = exposed_low_key if razz else exposed_high_key
    boards = {s.seat: s.up[:4] for s in hand._live()}
    keys = {seat: key_of(board) for seat, board in boards.items()}
    best = keys[first]
    for rule in rules:
        if rule.startswith("BET.FIRST-ACTOR.TIE."):
            out[rule] = [opens(seat) for seat, key in keys.items() if key == best]
        elif rule == "BET.FIRST-ACTOR.ALL-IN":
            bettors = {seat: board for seat, board in boards.items() if hand.seats[seat].stack > 0}
            out[rule] = [first] + ([opens(betting.first_actor_seat(hand.variant, hand.options, bettors))] if bettors else [])
        elif rule == "BET.FIRST-ACTOR.FOLDED":
            better = [s.seat for s in seat_list if s.folded and s.up and key_of(s.up[:4]) > best]
            out[rule] = better + [opens(seat) for seat in better]
        elif rule == "BET.FIRST-ACTOR.EXPOSED-RANKING" and rule != rules[-1]:
            naive = {seat: _naive_key(board, razz) for seat, board in boards.items()}
            top = max(naive.values())
            out[rule] = [opens(seat) for seat, key in naive.items() if key == top]
    return out


def note_action(hand: Hand, action: Action, legal: LegalAction) -> None:
    """An accepted action: the rules of the legal entry it matched explain what it changed."""
    assert hand._notes is not None
    notes = hand._notes
    if hand.street is Street.SHOWDOWN:
        notes.add("ok", *notes.get("legal.muck" if legal.action is ActionType.MUCK else "legal.show") or ("SHOWDOWN.MUCK",))
        notes.add("shown" if legal.action is ActionType.SHOW else "mucked", "SHOWDOWN.MUCK")
        return
    kind_rules = legal_facts(hand).get("legal." + legal.action.value) or ("BET.ORDER",)
    round_, seat_state = hand.round, hand.seats[action.seat]
    if round_ is not None and not round_.big_bet and legal.action in (ActionType.BET, ActionType.RAISE, ActionType.COMPLETE):
        increment = (legal.amount or 0) - round_.full_level
        if legal.amount == seat_state.committed + seat_state.stack and increment < round_.unit:
            half = "ALLIN.HALF-BET.FULL" if 2 * increment >= round_.unit else "ALLIN.HALF-BET.SHORT"
            kind_rules = (half,) + kind_rules
    notes.add("ok", *kind_rules)
    seat = action.seat
    notes.add(f"stacks.{seat}", *kind_rules)
    notes.add(f"committed.{seat}", *kind_rules)
    notes.add("pot_total", *kind_rules)
    if legal.action is ActionType.FOLD:
        notes.add("folded", "BET.FOLD")


def note_turn(hand: Hand, seat_number: int) -> None:
    """After a betting action: who acts next, or why the round is over."""
    assert hand._notes is not None and hand.round is not None
    notes = hand._notes
    if hand.seats[seat_number].all_in:
        notes.add("all_in", *notes.get("ok"))
    if hand.to_act is not None:
        notes.add("to_act", "BET.ORDER")
        return
    round_ = hand.round
    rules = ["BET.ROUND-END"]
    bring_in = hand.seats.get(hand.bring_in_seat) if hand.bring_in_seat is not None else None
    no_wager = round_.level <= hand.stakes.bring_in if round_.big_bet else round_.wagers == 0
    if round_.opening and no_wager and bring_in is not None and bring_in.can_bet and round_.level > 0:
        rules.insert(0, "BRING-IN.CALLED-ROUND-ENDS")
    notes.add("street", *rules)
    notes.add("to_act", *rules)


def runout_rules(hand: Hand) -> tuple[str, ...]:
    """A street dealt without betting: fewer than two players can bet (after the round that ended)."""
    assert hand._notes is not None
    before = hand._notes.get("street")
    if before and before[0] == "ALLIN.RUNOUT":
        return before
    return ("ALLIN.RUNOUT",) + tuple(rule for rule in before if rule.startswith(("BET.", "BRING-IN.")))


def note_last_live(hand: Hand) -> None:
    """Everyone else folded: the hand ends without a showdown."""
    assert hand._notes is not None and hand.round is not None
    winner = hand._live()[0].seat
    all_fold = hand.round.opening and winner == hand.bring_in_seat
    rules = ("BRING-IN.ALL-FOLD", "SHOWDOWN.UNCONTESTED") if all_fold else ("SHOWDOWN.UNCONTESTED",)
    hand._notes.add("street", *rules)
    hand._notes.add("to_act", *rules)


def note_returned(hand: Hand, seat: int) -> None:
    """Uncalled chips given back at the end of a round."""
    assert hand._notes is not None and hand.round is not None
    bring_in = hand.seats.get(hand.bring_in_seat) if hand.bring_in_seat is not None else None
    partial = hand.round.opening and bring_in is not None and bring_in.all_in and bring_in.committed < hand.stakes.bring_in
    rules = ("BRING-IN.ALL-IN-PARTIAL", "POT.UNCALLED") if partial else ("POT.UNCALLED",)
    hand._notes.add(f"result.returned.{seat}", *rules)
    hand._notes.add(f"stacks.{seat}", *rules)
    hand._notes.add("pot_total", *rules)
