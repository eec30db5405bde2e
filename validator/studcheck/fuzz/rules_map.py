"""Which rule area a divergence belongs to: the rule IDs and tags a generated case cites.

The area is read from where the hand was (setup, a new street, a betting round, a refusal, the
showdown, the result) and which field differed. It is a pointer for the reader, not a verdict:
the case says which rules to check, the rule text says what is right.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from studcheck.fuzz.play import ExchangeKind, HandRecord

BETTING_STREETS = ("third", "fourth", "fifth", "sixth", "seventh")


@dataclass(frozen=True, kw_only=True)
class Area:
    name: str
    rules: tuple[str, ...]
    tags: tuple[str, ...]


def _area(name: str, rules: list[str], tags: list[str]) -> Area:
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


def _states(record: HandRecord, index: int) -> tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]:
    """The reference state before exchange `index` and after it (None if it was refused)."""
    before = None
    for exchange in record.exchanges[:index]:
        if exchange.kind != ExchangeKind.STATE and exchange.reference.get("ok"):
            before = exchange.reference["state"]
    current = record.exchanges[index]
    after = current.reference.get("state") if current.reference.get("ok") else None
    return before, after


def bring_in(record: HandRecord) -> Area:
    setup = record.setup
    card = "BRING-IN.CARD.HIGH" if setup.variant == "razz" else "BRING-IN.CARD.LOW"
    tie = "BRING-IN.TIE.SEAT" if setup.options.get("bring_in_tie") == "seat" else "BRING-IN.TIE.SUIT"
    rules = [card, tie, "BRING-IN.CHOICE", "BRING-IN.FACING", "BRING-IN.COMPLETION-NOT-RAISE"]
    short = [stack for _, stack in setup.seats if stack <= setup.stakes["ante"] + setup.stakes["bring_in"]]
    if short:
        rules += ["BRING-IN.ALL-IN-ANTE", "BRING-IN.ALL-IN-PARTIAL"]
    return _area("bring-in", rules, ["bring-in", "third-street"])


def betting(record: HandRecord, state: Mapping[str, Any] | None, head: str = "legal") -> Area:
    """A betting-round field: which actions and amounts (legal), whose turn (to_act), chips moved."""
    setup = record.setup
    state = state or {}
    street = state.get("street", "third")
    if head in ("to_act", "street"):
        rules = ["BET.ORDER", "BET.ROUND-END", "ALLIN.RUNOUT"]
        if street == "third":
            rules.append("BRING-IN.CALLED-ROUND-ENDS")
        return _area("betting: turn order and the end of a round", rules, ["betting"])
    if head == "legal":
        rules = ["BET.FIXED-AMOUNT", "BET.LIMITS", "BET.CAP", "BET.CHECK", "BET.FOLD"]
        tags = ["betting", "limits", "raise-cap"]
        name = "betting: legal actions and amounts"
    else:
        rules, tags, name = ["BET.FIXED-AMOUNT", "POT.UNCALLED"], ["betting"], "betting: chips moved"
    if setup.options.get("heads_up") != "capped" and head == "legal":
        rules.append("BET.CAP.HEADS-UP")
    if street == "fourth" and head == "legal":
        if setup.variant == "stud_high" and setup.options.get("open_pair_double"):
            rules += ["BET.DOUBLE.OPEN-PAIR", "BET.DOUBLE.RAISES"]
        rules.append("BET.DOUBLE.ABSENT")
        tags.append("double-bet")
    if street == "third":
        rules += ["BRING-IN.FACING", "BRING-IN.COMPLETION-NOT-RAISE"]
    if any(row.get("all_in") for row in state.get("seats") or []):
        rules += ["ALLIN.CALL-SHORT", "ALLIN.HALF-BET.FULL", "ALLIN.HALF-BET.SHORT", "ALLIN.CUMULATIVE"]
        tags += ["all-in", "half-bet"]
    return _area(name, rules, tags)


def first_actor(record: HandRecord, state: Mapping[str, Any]) -> Area:
    setup = record.setup
    rules = ["BET.FIRST-ACTOR.LOW" if setup.variant == "razz" else "BET.FIRST-ACTOR.HIGH",
             "BET.FIRST-ACTOR.EXPOSED-RANKING",
             "BET.FIRST-ACTOR.TIE.SUIT" if setup.options.get("first_actor_tie") == "suit" else "BET.FIRST-ACTOR.TIE.SEAT",
             "BET.FIRST-ACTOR.FOLDED", "BET.FIRST-ACTOR.ALL-IN"]
    if state.get("street") == "seventh":
        rules.append("BET.FIRST-ACTOR.SEVENTH")
        if state.get("community"):
            rules.append("DEAL.COMMUNITY.FIRST-ACTOR")
    return _area("first to act", rules, ["first-actor"])


def dealing(record: HandRecord, state: Mapping[str, Any]) -> Area:
    rules = ["DEAL.STREETS", "DEAL.BURN"]
    tags = ["dealing"]
    if state.get("street") in ("seventh", "showdown", "complete"):
        rules += ["DEAL.SHORT-STUB.REMAKE", "DEAL.SHORT-STUB.COMMUNITY"]
        tags.append("short-stub")
    if state.get("street") in ("showdown", "complete"):
        rules.append("ALLIN.RUNOUT")
    return _area("dealing", rules, tags)


def showdown() -> Area:
    return _area("showdown order and mucking",
                 ["SHOWDOWN.ORDER.AGGRESSOR", "SHOWDOWN.ORDER.UNBET", "SHOWDOWN.MUCK", "SHOWDOWN.LAST-CONTENDER"],
                 ["showdown"])


def awards(record: HandRecord, field: str) -> Area:
    setup = record.setup
    if field == "rake":
        return _area("rake", ["RAKE.PERCENT", "RAKE.NO-THIRD-STREET"], ["rake"])
    if field == "returned":
        return _area("uncalled chips", ["POT.UNCALLED", "BRING-IN.ALL-FOLD"], ["side-pot"])
    if field == "showdown_order":
        return showdown()
    if field in ("amount", "eligible"):
        rules = ["POT.SIDE", "POT.UNCALLED", "ANTE.ALL-IN"] + (["HILO.SIDE-POT"] if setup.variant == "stud_hilo8" else [])
        return _area("pots", rules, ["side-pot"])
    hands = {"stud_high": (["HAND.HIGH.BEST-FIVE", "HAND.HIGH.RANKING", "HAND.HIGH.WHEEL", "HAND.HIGH.KICKERS"], ["hand-ranking"]),
             "razz": (["HAND.LOW.A5"], ["razz-low"]),
             "stud_hilo8": (["HILO.SPLIT", "HILO.NO-LOW", "HILO.SCOOP", "HILO.QUARTER", "HAND.LOW.EIGHT", "HAND.HIGH.RANKING"],
                            ["eight-low", "hi-lo-split"])}[setup.variant]
    odd = "POT.ODD-CHIP.ALL-CARDS" if setup.options.get("odd_chip") == "all_cards" else "POT.ODD-CHIP.BEST-FIVE"
    rules = hands[0] + ["POT.SIDE", "POT.SPLIT", odd, "SHOWDOWN.MUCK", "SHOWDOWN.UNCONTESTED"]
    return _area("awards: hand values, splits and side pots", rules, hands[1] + ["showdown", "side-pot", "odd-chip"])


def refusal(record: HandRecord, index: int) -> Area:
    exchange = record.exchanges[index]
    reason = str((exchange.reference.get("error") or {}).get("reason", ""))
    action = exchange.move.action if exchange.move is not None else ""
    by_reason = {
        "hand_over": ["ACTION.HAND-OVER"],
        "unknown_seat": ["SETUP.PLAYERS"],
        "out_of_turn": ["BET.ORDER"],
        "raise_cap_reached": ["BET.CAP", "BET.CAP.HEADS-UP"],
        "betting_not_reopened": ["ALLIN.HALF-BET.SHORT", "ALLIN.CUMULATIVE"],
        "invalid_amount": ["BET.FIXED-AMOUNT", "BET.LIMITS"],
    }
    by_action = {"check": ["BET.CHECK"], "fold": ["BET.FOLD", "BRING-IN.CHOICE"], "show": ["SHOWDOWN.MUCK"],
                 "muck": ["SHOWDOWN.MUCK", "SHOWDOWN.LAST-CONTENDER"], "bring_in": ["BRING-IN.CHOICE"],
                 "complete": ["BRING-IN.FACING", "BRING-IN.COMPLETION-NOT-RAISE"], "call": ["BET.CHECK"],
                 "bet": ["BET.CHECK", "BET.CAP"], "raise": ["BET.CAP"]}
    rules = ["ACTION.REFUSAL", *by_reason.get(reason, by_action.get(action, []))]
    return _area(f"refusals: {action} refused as {reason}" if reason else "refusals", rules, ["reject"])


def area_for(record: HandRecord) -> Area:
    """The rule area of the record's divergence."""
    divergence = record.divergence
    assert divergence is not None
    index = divergence.exchange
    exchange = record.exchanges[index]
    head, field = _field(divergence.first.path)
    before, after = _states(record, index)
    if exchange.kind == ExchangeKind.SETUP:
        if head == "ok":
            return _area("setup", ["SETUP.PLAYERS", "SETUP.STAKES", "SETUP.STACKS", "SETUP.DECK"], ["setup"])
        if field in ("up", "down"):
            return _area("third-street deal", ["DEAL.THIRD", "SETUP.DECK"], ["dealing"])
        if head in ("to_act", "legal"):
            return bring_in(record)
        return _area("antes", ["ANTE.DEAD", "ANTE.ALL-IN"], ["ante"])
    if exchange.kind == ExchangeKind.STATE or divergence.kind == "act-refused":
        return refusal(record, index - 1 if exchange.kind == ExchangeKind.STATE else index)
    if after is None:
        return betting(record, before, "legal")
    if head == "result":
        return awards(record, field)
    street_changed = before is not None and before.get("street") != after.get("street")
    if head in ("pots", "pot_total"):
        return _area("pots", ["POT.SIDE", "POT.UNCALLED", "ANTE.DEAD", "ALLIN.CALL-SHORT"], ["side-pot"])
    if street_changed and (field in ("up", "down") or head == "community"):
        return dealing(record, after)
    if after.get("street") == "showdown" or (before or {}).get("street") == "showdown":
        return showdown()
    if street_changed and head in ("to_act", "legal") and after.get("street") in BETTING_STREETS[1:]:
        return first_actor(record, after)
    if street_changed and head == "street":
        return _area("end of a betting round", ["BET.ROUND-END", "ALLIN.RUNOUT", "BRING-IN.CALLED-ROUND-ENDS"], ["betting"])
    if after.get("street") == "third" and not _completed(after, record) and head in ("to_act", "legal"):
        return bring_in(record)
    return betting(record, after, head if head in ("to_act", "street", "legal") else "chips")


def _completed(state: Mapping[str, Any], record: HandRecord) -> bool:
    return max((row.get("committed", 0) for row in state.get("seats") or []), default=0) > record.setup.stakes["bring_in"]
