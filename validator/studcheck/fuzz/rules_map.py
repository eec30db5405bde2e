"""Which rules a generated case cites: what the reference engine was deciding at the diverging step.

A step (the `new_hand`, an action, the state after a refusal) makes the reference decide a few
things: after a raise, whose turn it is and what that player may do (the cap, the bring-in still
uncompleted, a short all-in that does not reopen, the fourth-street double bet, a check when
nothing is wagered); after the round's last call, the end of the round, the next street's cards
and first actor; at the showdown, the order and the awards. The field that differed picks which of
these decisions the case is about (`legal`: what the next player may do; `to_act`: whose turn;
`result`: the awards...), and the step's context picks the rules of that decision: a `legal`
difference after the raise that reached the cap cites BET.CAP, not every betting rule. It is a
pointer for the reader, not a verdict: the rule text says what is right.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from studcheck.cases.load import rule_index
from studcheck.fuzz.play import ExchangeKind, HandRecord
from studcheck.rules import LAYOUTS, Layout, Variant

BETTING_STREETS = tuple(street.value for street in {s: None for layout in LAYOUTS.values() for s in layout.streets})
AGGRESSIVE = ("complete", "bet", "raise")
AMOUNT_RULES = ["BET.FIXED-AMOUNT", "BET.LIMITS"]

State = Mapping[str, Any]


@dataclass(frozen=True, kw_only=True)
class Area:
    name: str
    rules: tuple[str, ...]
    tags: tuple[str, ...]


def _area(name: str, rules: Sequence[str], tags: Sequence[str]) -> Area:
    return Area(name=name, rules=tuple(dict.fromkeys(rules)), tags=tuple(dict.fromkeys(tags)))


def _field(path: str) -> tuple[str, str]:
    """(`head`, `rest`) of a difference path: `state.seats[2].up` -> (`seats`, `up`)."""
    if path.startswith("state"):
        path = path.split(".", 1)[1] if "." in path else ""
    head = re.split(r"[.\[]", path, maxsplit=1)[0]
    match = re.match(r"seats\[\d+\]\.(\w+)", path)
    if match:
        return head, match.group(1)
    match = re.match(r"result\.(\w+)(?:\[\d+\]\.(\w+))?", path)
    if match:
        return head, match.group(2) or match.group(1)
    return head, ""


# --- the step's context ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Step:
    """One step of a hand as the reference saw it."""

    record: HandRecord
    index: int
    kind: str  # ExchangeKind
    action: str  # the action's kind ("" for new_hand and state)
    seat: int | None
    before: State | None  # the reference's state before the step (None for new_hand)
    after: State | None  # after it (None if the reference refused it)
    reason: str  # the reference's refusal reason ("" if accepted)

    @property
    def setup(self) -> Any:
        return self.record.setup

    def street(self, state: State | None) -> str:
        return str((state or {}).get("street") or "")

    @property
    def layout(self) -> Layout:
        """The variant's streets: which one opens with the bring-in, which are small-bet, which doubles."""
        return LAYOUTS[Variant(self.setup.variant)]

    def opening(self, state: State | None) -> bool:
        return self.street(state) == self.layout.streets[0].value

    def doubling(self, state: State | None) -> bool:
        """The street where an open pair may allow the big bet (fourth; third in five-card stud)."""
        street = self.layout.open_pair_street
        return street is not None and self.street(state) == street.value

    @property
    def new_street(self) -> bool:
        return self.before is not None and self.after is not None and self.street(self.before) != self.street(self.after)

    def aggressive_in_round(self) -> int:
        """Completions, bets and raises accepted in the current round, this step included."""
        count = 0
        exchanges = self.record.exchanges[: self.index + 1]
        street = self.street(self.after or self.before)
        for position in range(len(exchanges) - 1, -1, -1):
            exchange = exchanges[position]
            if exchange.kind == ExchangeKind.SETUP:
                break
            if exchange.kind != ExchangeKind.ACT or not exchange.reference.get("ok"):
                continue
            if self.street(_before(self.record, position)) != street:
                break
            if exchange.move is not None and exchange.move.action in AGGRESSIVE:
                count += 1
        return count


def _before(record: HandRecord, index: int) -> State | None:
    for exchange in reversed(record.exchanges[:index]):
        if exchange.kind != ExchangeKind.STATE and exchange.reference.get("ok"):
            state: State = exchange.reference["state"]
            return state
    return None


def step_at(record: HandRecord, index: int) -> Step:
    exchange = record.exchanges[index]
    target = index - 1 if exchange.kind == ExchangeKind.STATE and index > 0 else index
    acted = record.exchanges[target]
    ok = bool(acted.reference.get("ok"))
    move = acted.move
    return Step(record=record, index=target, kind=exchange.kind, action=move.action if move is not None else "",
                seat=move.seat if move is not None else None, before=_before(record, target),
                after=acted.reference.get("state") if ok else None,
                reason="" if ok else str((acted.reference.get("error") or {}).get("reason", "")))


def _rows(state: State | None) -> list[Mapping[str, Any]]:
    return [row for row in (state or {}).get("seats") or [] if isinstance(row, Mapping)]


def _row(state: State | None, seat: Any) -> Mapping[str, Any]:
    return next((row for row in _rows(state) if row.get("seat") == seat), {})


def _wager(state: State | None) -> int:
    return max((int(row.get("committed") or 0) for row in _rows(state)), default=0)


def _in_hand(state: State | None) -> list[Mapping[str, Any]]:
    return [row for row in _rows(state) if not row.get("folded")]


def _open_pair(state: State | None) -> bool:
    for row in _in_hand(state):
        ranks = [str(card)[0] for card in row.get("up") or []]
        if len(ranks) != len(set(ranks)):
            return True
    return False


def _bring_in_tie(step: Step, state: State | None) -> bool:
    """Two door cards of the bring-in's rank: the tie-break decided who brings in."""
    doors = [str(row["up"][0])[0] for row in _rows(state) if row.get("up")]
    order = "A23456789TJQK" if step.setup.variant == "razz" else "23456789TJQKA"
    if not doors:
        return False
    worst = max(doors, key=order.index) if step.setup.variant == "razz" else min(doors, key=order.index)
    return doors.count(worst) > 1


# --- the decisions ------------------------------------------------------------------------------


def bring_in(step: Step, state: State | None, head: str, amounts_only: bool = False) -> Area:
    """Who brings in (to_act) and what the bring-in may do (legal), decided at new_hand."""
    setup = step.setup
    rules: list[str] = []
    if head != "legal":
        rules.append("BRING-IN.CARD.HIGH" if setup.variant == "razz" else "BRING-IN.CARD.LOW")
        if _bring_in_tie(step, state):
            rules.append("BRING-IN.TIE.SEAT" if setup.options.get("bring_in_tie") == "seat" else "BRING-IN.TIE.SUIT")
    rules.append("BRING-IN.CHOICE")
    if any(row.get("all_in") for row in _rows(state)):
        rules += ["BRING-IN.ALL-IN-ANTE", "BRING-IN.ALL-IN-PARTIAL", "ANTE.ALL-IN"]
    if head == "legal" and amounts_only:
        rules.append("BET.LIMITS")  # the completion is to the small bet
    return _area("bring-in", rules, ["bring-in", "third-street"])


def legal(step: Step, state: State | None, amounts_only: bool = False) -> Area:
    """What the player to act in `state` may do, given how the round went up to this step."""
    setup = step.setup
    state = state or {}
    street = step.street(state)
    wager = _wager(state)
    to_act = _row(state, state.get("to_act"))
    rules: list[str] = []
    tags = ["betting"]
    aggressive = step.aggressive_in_round()
    max_raises = int(setup.options.get("max_raises", 3))
    if aggressive >= max_raises:  # at the cap, or one raise from it
        rules.append("BET.CAP")
        tags.append("raise-cap")
        if len(_in_hand(state)) == 2:
            rules.append("BET.CAP.HEADS-UP")
    if step.opening(state):
        tags.append("third-street")
        if wager <= setup.stakes["bring_in"]:
            rules.append("BRING-IN.FACING")
            tags.append("bring-in")
        else:
            rules.append("BRING-IN.COMPLETION-NOT-RAISE")
            tags.append("completion")
    round_all_ins = [row for row in _in_hand(state) if row.get("all_in") and row.get("committed")]
    if round_all_ins:
        rules += ["ALLIN.HALF-BET.FULL", "ALLIN.HALF-BET.SHORT", "ALLIN.REOPEN.PER-PLAYER"]
        tags += ["all-in", "half-bet"]
    small = street in {s.value for s in step.layout.small_bet_streets}
    unit = setup.stakes["small_bet"] if small else setup.stakes["big_bet"]
    if to_act and int(to_act.get("stack") or 0) < wager - int(to_act.get("committed") or 0) + unit:
        rules.append("ALLIN.CALL-SHORT")  # cannot make a full raise: calls or wagers all-in for less
        tags.append("all-in")
    if step.doubling(state):
        if setup.options.get("open_pair_double") and _open_pair(state):
            rules += ["BET.DOUBLE.OPEN-PAIR", "BET.DOUBLE.RAISES"]
        else:
            rules.append("BET.DOUBLE.ABSENT")
        tags.append("double-bet")
    if wager == 0:
        rules.append("BET.CHECK")
    if amounts_only or not rules:
        rules += AMOUNT_RULES
        tags.append("limits")
    return _area("legal actions: " + _context(step, state), rules, tags)


def _context(step: Step, state: State) -> str:
    parts = [f"{step.street(state)} street" if step.street(state) in BETTING_STREETS else step.street(state)]
    aggressive = step.aggressive_in_round()
    if aggressive >= int(step.setup.options.get("max_raises", 3)):
        parts.append(f"{aggressive} wagers in the round")
    return ", ".join(part for part in parts if part)


def moved(step: Step) -> Area:
    """The chips and flags an accepted action moved (stack, committed, all_in, folded)."""
    action = step.action
    rules = {"bring_in": ["BRING-IN.CHOICE"], "complete": ["BRING-IN.FACING", "BRING-IN.COMPLETION-NOT-RAISE"],
             "call": [], "bet": [*AMOUNT_RULES], "raise": [*AMOUNT_RULES], "check": ["BET.CHECK"],
             "fold": ["BET.FOLD"]}.get(action, [])
    mover = _row(step.after, step.seat)
    tags = ["betting"]
    if mover.get("all_in") and not _row(step.before, step.seat).get("all_in"):
        rules = ["ALLIN.CALL-SHORT", *(["BRING-IN.ALL-IN-PARTIAL"] if action == "bring_in" else []), *rules]
        tags.append("all-in")
    if step.doubling(step.after) and action in ("bet", "raise"):
        rules += ["BET.DOUBLE.OPEN-PAIR", "BET.DOUBLE.RAISES"] if _open_pair(step.after) else ["BET.DOUBLE.ABSENT"]
    return _area(f"chips moved by {action or 'the step'}", rules or AMOUNT_RULES, tags)


def round_end(step: Step) -> Area:
    rules = ["BET.ROUND-END"]
    if step.opening(step.before) and _wager(step.before) <= step.setup.stakes["bring_in"]:
        rules.append("BRING-IN.CALLED-ROUND-ENDS")
    before, after = step.street(step.before), step.street(step.after)
    streets = (*(street.value for street in step.layout.streets), "showdown", "complete")
    skipped = before in streets and after in streets and streets.index(after) > streets.index(before) + 1
    contenders = len(_in_hand(step.after))
    if (skipped and contenders > 1) or (step.after is not None and step.after.get("to_act") is None and contenders > 1):
        rules.append("ALLIN.RUNOUT")  # at most one player can still bet: the cards are dealt without betting
    return _area("the end of the round", rules, ["betting"])


def turn(step: Step) -> Area:
    """Whose turn it is after an action within a round."""
    rules = ["BET.ORDER", "BET.ROUND-END"]
    if step.opening(step.after) and _wager(step.after) <= step.setup.stakes["bring_in"]:
        rules.append("BRING-IN.CALLED-ROUND-ENDS")
    if any(row.get("all_in") for row in _rows(step.after)):
        rules.append("ALLIN.RUNOUT")
    return _area("whose turn", rules, ["betting"])


def first_actor(step: Step, state: State) -> Area:
    setup = step.setup
    rules = ["BET.FIRST-ACTOR.LOW" if setup.variant == "razz" else "BET.FIRST-ACTOR.HIGH",
             "BET.FIRST-ACTOR.EXPOSED-RANKING",
             "BET.FIRST-ACTOR.TIE.SUIT" if setup.options.get("first_actor_tie") == "suit" else "BET.FIRST-ACTOR.TIE.SEAT"]
    if any(row.get("folded") for row in _rows(state)):
        rules.append("BET.FIRST-ACTOR.FOLDED")
    if any(row.get("all_in") for row in _rows(state)):
        rules.append("BET.FIRST-ACTOR.ALL-IN")
    if state.get("street") == step.layout.last.value:
        rules.append("BET.FIRST-ACTOR.SEVENTH")
        if state.get("community"):
            rules.append("DEAL.COMMUNITY.FIRST-ACTOR")
    return _area("first to act", rules, ["first-actor"])


def dealing(step: Step, state: State) -> Area:
    rules = ["DEAL.STREETS", "DEAL.BURN"]
    tags = ["dealing"]
    late = step.street(state) in (step.layout.last.value, "showdown", "complete")
    if state.get("community") or (late and len(_rows(state)) >= 7):  # the stub may run short on seventh
        rules += ["DEAL.SHORT-STUB.REMAKE", "DEAL.SHORT-STUB.COMMUNITY"]
        tags.append("short-stub")
    if step.street(state) in ("showdown", "complete") or state.get("to_act") is None:
        rules.append("ALLIN.RUNOUT")
    return _area("dealing", rules, tags)


def showdown(step: Step, order_first: bool = False) -> Area:
    """Who shows first and next (the order), and what a player may do with his hand (show or muck)."""
    order = ["SHOWDOWN.ORDER.AGGRESSOR", "SHOWDOWN.ORDER.UNBET"]
    mucking = ["SHOWDOWN.MUCK", "SHOWDOWN.LAST-CONTENDER"]
    if step.action in ("show", "muck") and not order_first:
        return _area("showdown: showing and mucking", mucking + order, ["showdown"])
    return _area("showdown order", order + mucking, ["showdown"])


def pots(step: Step) -> Area:
    state = step.after or {}
    rules = ["POT.SIDE", "POT.UNCALLED"]
    if any(row.get("all_in") for row in _rows(state)):
        rules.append("ALLIN.CALL-SHORT")
    if step.setup.stakes["ante"] and any(row.get("all_in") for row in _rows(state)):
        rules.append("ANTE.ALL-IN")
    return _area("pots", rules, ["side-pot"])


def awards(step: Step, field: str) -> Area:
    """The result of the hand: who won what, and why (the showdown, or everybody else folded)."""
    setup = step.setup
    state = step.after or {}
    uncontested = len(_in_hand(state)) == 1
    if field == "rake":
        third = "RAKE.THIRD-STREET" if setup.options.get("rake_third_street") is True else "RAKE.NO-THIRD-STREET"
        return _area("rake", ["RAKE.PERCENT", third], ["rake"])
    if field == "returned":
        return _area("uncalled chips", ["POT.UNCALLED", "BRING-IN.ALL-FOLD"], ["side-pot"])
    if field == "showdown_order":
        return showdown(step, order_first=True)
    if uncontested:
        rules = ["SHOWDOWN.UNCONTESTED", "POT.UNCALLED", "POT.NO-ZERO-SHARE"]
        if step.opening(step.before):
            rules.append("BRING-IN.ALL-FOLD")
        return _area("awards: an uncontested pot", rules + ["POT.SIDE"], ["showdown"])
    if field in ("amount", "eligible"):
        rules = ["POT.SIDE", "POT.UNCALLED", "ANTE.ALL-IN"] + (["HILO.SIDE-POT"] if setup.variant == "stud_hilo8" else [])
        return _area("pots", rules, ["side-pot"])
    hands = {"stud_high": (["HAND.HIGH.BEST-FIVE", "HAND.HIGH.RANKING", "HAND.HIGH.WHEEL", "HAND.HIGH.KICKERS"], ["hand-ranking"]),
             "razz": (["HAND.LOW.A5"], ["razz-low"]),
             "five_card_stud": (["FIVE.HAND", "HAND.HIGH.RANKING", "HAND.HIGH.WHEEL", "HAND.HIGH.KICKERS"], ["hand-ranking"]),
             "stud_hilo8": (["HILO.SPLIT", "HILO.NO-LOW", "HILO.SCOOP", "HILO.QUARTER.EVEN", "HAND.LOW.EIGHT", "HAND.HIGH.RANKING"],
                            ["eight-low", "hi-lo-split"])}[setup.variant]
    odd = "POT.ODD-CHIP.ALL-CARDS" if setup.options.get("odd_chip") == "all_cards" else "POT.ODD-CHIP.WINNING-FIVE"
    rules = hands[0] + ["POT.SPLIT", "POT.NO-ZERO-SHARE", odd, "POT.SIDE", "SHOWDOWN.MUCK"]
    return _area("awards: hand values, splits and side pots", rules, hands[1] + ["showdown", "side-pot", "odd-chip"])


REFUSAL_REASONS = {
    "hand_over": ["ACTION.HAND-OVER"],
    "unknown_seat": ["SETUP.PLAYERS"],
    "out_of_turn": ["BET.ORDER"],
    "raise_cap_reached": ["BET.CAP", "BET.CAP.HEADS-UP"],
    "betting_not_reopened": ["ALLIN.HALF-BET.SHORT", "ALLIN.REOPEN.PER-PLAYER"],
    "invalid_amount": AMOUNT_RULES,
}
REFUSED_ACTIONS = {"check": ["BET.CHECK"], "fold": ["BET.FOLD", "BRING-IN.CHOICE"], "show": ["SHOWDOWN.MUCK"],
                   "muck": ["SHOWDOWN.MUCK", "SHOWDOWN.LAST-CONTENDER"], "bring_in": ["BRING-IN.CHOICE"],
                   "complete": ["BRING-IN.FACING", "BRING-IN.COMPLETION-NOT-RAISE"], "call": ["BET.CHECK"],
                   "bet": ["BET.CHECK", "BET.CAP"], "raise": ["BET.CAP"]}


def refusal(step: Step) -> Area:
    """Why the reference refused the action (its reason code), in the state it was refused in."""
    rules = ["ACTION.REFUSAL", *REFUSAL_REASONS.get(step.reason, [])]
    if step.reason in ("illegal_action", "invalid_amount", ""):
        rules += REFUSED_ACTIONS.get(step.action, [])
        if step.opening(step.before) and step.action in ("fold", "check", "bring_in", "complete", "raise", "bet"):
            rules.append("BRING-IN.FACING" if _wager(step.before) <= step.setup.stakes["bring_in"] else
                         "BRING-IN.COMPLETION-NOT-RAISE")
        if step.doubling(step.before) and step.action in ("bet", "raise"):
            rules.append("BET.DOUBLE.OPEN-PAIR" if _open_pair(step.before) else "BET.DOUBLE.ABSENT")
    name = f"refusals: {step.action} refused as {step.reason}" if step.reason else "refusals"
    return _area(name, rules, ["reject"])


def accepted(step: Step) -> Area:
    """Why the reference accepted the action the engine refused: the legal actions before it."""
    if step.action in ("show", "muck"):
        return showdown(step)
    if step.action == "bring_in":
        return bring_in(step, step.before, "legal")
    area = legal(step, step.before)
    extra = {"fold": ["BET.FOLD"], "check": ["BET.CHECK"], "call": ["ALLIN.CALL-SHORT"] if _row(step.after, step.seat).get("all_in") else [],
             "complete": ["BRING-IN.FACING"]}.get(step.action, AMOUNT_RULES if step.action in ("bet", "raise") else [])
    return _area(f"{step.action} accepted: {area.name}", [*extra, *area.rules], area.tags)


# --- the area of a divergence -------------------------------------------------------------------


def area_for(record: HandRecord) -> Area:
    """The rule area of the record's divergence."""
    divergence = record.divergence
    assert divergence is not None
    head, field = _field(divergence.first.path)
    amounts_only = head == "legal" and _same_actions(divergence.first.expected, divergence.first.actual)
    return area_at(record, divergence.exchange, head, field, amounts_only=amounts_only)


def _same_actions(expected: Any, actual: Any) -> bool:
    def names(value: Any) -> set[str] | None:
        return {str(item).split()[0] for item in value} if isinstance(value, list) else None
    return names(expected) is not None and names(expected) == names(actual)


#: seven-card rules and the five-card stud rules that take their place there (spec/rules/15-five-card-stud.md)
FIVE_CARD_RULES = {
    "SETUP.PLAYERS": ["FIVE.PLAYERS"],
    "DEAL.THIRD": ["FIVE.DEAL"],
    "DEAL.STREETS": ["FIVE.STREETS"],
    "DEAL.BURN": ["FIVE.STREETS"],
    "DEAL.SHORT-STUB.REMAKE": ["FIVE.SHORT-STUB"],
    "DEAL.SHORT-STUB.COMMUNITY": ["FIVE.SHORT-STUB"],
    "DEAL.COMMUNITY.FIRST-ACTOR": ["FIVE.SHORT-STUB", "FIVE.FIRST-ACTOR"],
    "BET.LIMITS": ["FIVE.LIMITS"],
    "BET.DOUBLE.OPEN-PAIR": ["FIVE.OPEN-PAIR"],
    "BET.FIRST-ACTOR.HIGH": ["FIVE.FIRST-ACTOR"],
    "BET.FIRST-ACTOR.SEVENTH": ["FIVE.FIRST-ACTOR"],
    "BRING-IN.CARD.LOW": ["BRING-IN.CARD.LOW", "FIVE.BRING-IN"],
}


#: fixed-limit rules and the pot/no-limit rules that take their place there (spec/rules/16-betting-structures.md)
BIG_BET_RULES = {
    "BET.LIMITS": ["BIGBET.MIN-BET"],
    "BET.CAP": ["BIGBET.NO-CAP"],
    "BET.CAP.HEADS-UP": ["BIGBET.NO-CAP"],
    "BET.DOUBLE.OPEN-PAIR": ["BIGBET.NO-DOUBLE"],
    "BET.DOUBLE.RAISES": ["BIGBET.NO-DOUBLE"],
    "BET.DOUBLE.ABSENT": ["BIGBET.NO-DOUBLE"],
    "BRING-IN.FACING": ["BIGBET.BRING-IN.OPEN-ANY"],
    "BRING-IN.COMPLETION-NOT-RAISE": ["BIGBET.BRING-IN.OPEN-ANY"],
    "BRING-IN.CHOICE": ["BRING-IN.CHOICE", "BIGBET.BRING-IN.OPEN-ANY"],
    "ALLIN.HALF-BET.FULL": ["BIGBET.FULL-RAISE"],
    "ALLIN.HALF-BET.SHORT": ["BIGBET.ALL-IN-SHORT", "BIGBET.FULL-RAISE"],
    "ALLIN.REOPEN.PER-PLAYER": ["BIGBET.CUMULATIVE"],
}


def _big_bet_rules(rule: str, betting: str) -> list[str]:
    if betting == "fixed_limit":
        return [rule]
    if rule == "BET.FIXED-AMOUNT":  # the range: its lowest and its highest amount
        return ["BIGBET.MIN-BET", "BIGBET.MIN-RAISE", "BIGBET.POT-MAX" if betting == "pot_limit" else "BIGBET.NO-LIMIT-MAX"]
    return BIG_BET_RULES.get(rule, [rule])


def area_at(record: HandRecord, index: int, head: str = "", field: str = "", *, amounts_only: bool = False) -> Area:
    """The rules of what the reference decided at exchange `index` that the field `head` (`field`
    inside it) shows; with no field (a step the engine failed on), all that step decided.

    Only rules that apply to the hand's variant and betting structure are cited: in pot and no
    limit the fixed-limit rules of amounts, caps, the double bet, the completion and the half-bet
    rule give way to their BIGBET.* counterparts; in five-card stud the seven-card rules of
    dealing, limits, the double bet and first to act give way to their FIVE.* counterparts."""
    area = _area_at(record, index, head, field, amounts_only=amounts_only)
    variant = Variant(record.setup.variant)
    betting = str(record.setup.options.get("betting", "fixed_limit"))
    index_of_rules = rule_index()
    rules: list[str] = []
    forced = record.setup.options.get("big_bet_bring_in") == "forced"
    for rule in (big for seven in area.rules for big in _big_bet_rules(seven, betting)):
        if forced and rule == "BIGBET.BRING-IN.OPEN-ANY":
            rule = "BIGBET.BRING-IN.FORCED"
        for cited in FIVE_CARD_RULES.get(rule, [rule]) if variant is Variant.FIVE_CARD_STUD else [rule]:
            info = index_of_rules.get(cited)
            if (info is None or variant in info.variants) and cited not in rules:
                rules.append(cited)
    return _area(area.name, rules or list(area.rules), area.tags)


def _area_at(record: HandRecord, index: int, head: str = "", field: str = "", *, amounts_only: bool = False) -> Area:
    step = step_at(record, index)
    exchange = record.exchanges[index]
    after = step.after
    if head == "result" and after is not None:
        return awards(step, field)
    if step.kind == ExchangeKind.SETUP:
        if head == "ok" or after is None:
            return _area("setup", ["SETUP.PLAYERS", "SETUP.STAKES", "SETUP.STACKS", "SETUP.DECK"], ["setup"])
        if field in ("up", "down"):
            return _area("third-street deal", ["DEAL.THIRD", "SETUP.DECK"], ["dealing"])
        if head in ("pots", "pot_total") or field in ("stack", "committed", "all_in"):
            return _area("antes", ["ANTE.DEAD", "ANTE.ALL-IN", "POT.SIDE"], ["ante"])
        if not head:  # the engine failed on new_hand: all it decided
            return _merge(_area("antes and the deal", ["ANTE.DEAD", "DEAL.THIRD"], ["ante", "dealing"]),
                          bring_in(step, after, "to_act"))
        return bring_in(step, after, head, amounts_only)
    if exchange.kind == ExchangeKind.STATE or after is None:
        return refusal(step)
    if head == "ok":
        return accepted(step)
    if not head:  # the engine failed here: what this step decided
        if step.street(after) in ("showdown", "complete") and step.action in ("show", "muck", ""):
            return showdown(step) if step.street(after) == "showdown" else awards(step, "")
        if step.new_street:
            return _merge(round_end(step), first_actor(step, after) if after.get("to_act") is not None else dealing(step, after))
        return _merge(moved(step), legal(step, after))
    if step.street(step.before) == "showdown" and head not in ("pots", "pot_total") and field not in ("stack", "committed"):
        return showdown(step)  # who shows next, whether the showdown is over
    if step.new_street:
        if field in ("up", "down") or head == "community":
            return dealing(step, after)
        if step.street(after) == "complete" and (head in ("pots", "pot_total") or field in ("stack", "committed")):
            return awards(step, "stacks")  # the hand ended here: the chips are the awards
        if head in ("pots", "pot_total"):
            return _merge(pots(step), round_end(step))
        if head == "street":
            return round_end(step)
        if step.street(after) == "showdown":  # who shows first, what each may do; after a run-out
            return _merge(showdown(step, order_first=True), round_end(step))
        if head == "to_act":
            return first_actor(step, after) if after.get("to_act") is not None else round_end(step)
        if head == "legal":
            return legal(step, after, amounts_only)
        return _merge(round_end(step), dealing(step, after))
    if step.street(after) == "showdown" or step.street(step.before) == "showdown":
        return pots(step) if head in ("pots", "pot_total") else showdown(step)
    if head == "legal":
        return legal(step, after, amounts_only)
    if head in ("to_act", "street"):
        return turn(step)
    if head in ("pots", "pot_total"):
        return pots(step)
    return moved(step)


def _merge(first: Area, second: Area) -> Area:
    return _area(f"{first.name}; {second.name}", [*first.rules, *second.rules], [*first.tags, *second.tags])
