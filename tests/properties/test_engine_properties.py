"""Properties of random hands in every variant and profile.

Hypothesis draws the table (variant, profile, stakes, seats, stacks, deck order) and then, at
every step, either one of the listed legal actions or a deliberately wrong one. The invariants
hold whatever is drawn.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studcheck.cards import FULL_DECK
from studcheck.engine import Action, Hand, IllegalAction
from studcheck.engine.showdown import build_pots
from studcheck.engine.state import LegalAction
from studcheck.rules import ACTION_ORDER, LAYOUTS, PROFILES, ActionType, Betting, SeatSetup, Stakes, Variant

# Above the longest possible hand: every bet, raise or call moves at least one chip (10 stacks of
# at most 150: at most 1500 each), plus checks, folds and showdown actions (5 x 10 + 10 + 10).
MAX_STEPS = 2 * 10 * 150 + 70
MAX_WRONG = 60  # deliberately wrong actions tried per hand (they must not count as steps)


@st.composite
def tables(draw: st.DrawFn, variants: tuple[Variant, ...] = tuple(Variant)) -> dict[str, Any]:
    variant = draw(st.sampled_from(variants))
    from dataclasses import replace

    options = PROFILES[draw(st.sampled_from(sorted(PROFILES)))]
    options = replace(options, betting=draw(st.sampled_from(list(Betting))))
    if draw(st.booleans()):
        options = replace(options, rake_percent=draw(st.integers(0, 10)), rake_cap=draw(st.integers(0, 5)))
    small = draw(st.integers(2, 10))
    stakes = Stakes(
        ante=draw(st.integers(0, 3)),
        bring_in=draw(st.integers(1, small - 1)),
        small_bet=small,
        big_bet=draw(st.sampled_from([small, 2 * small])),
    )
    most = LAYOUTS[variant].max_seats  # 8, five-card stud 10
    count = draw(st.integers(2, most))
    numbers = sorted(draw(st.sets(st.integers(1, most), min_size=count, max_size=count)))
    seats = [SeatSetup(seat=n, stack=draw(st.integers(1, 150))) for n in numbers]
    deck = draw(st.permutations(FULL_DECK))
    return {"variant": variant, "options": options, "stakes": stakes, "seats": seats, "deck": deck}


def _chips(hand: Hand) -> int:
    snap = hand.snapshot()
    stacks = sum(seat["stack"] for seat in snap["seats"])
    if snap["result"] is not None:
        return stacks + snap["result"]["rake"]
    return stacks + snap["pot_total"]


def _dealt(hand: Hand) -> list[str]:
    snap = hand.snapshot()
    cards = [card for seat in snap["seats"] for card in seat["up"] + seat["down"]]
    if snap["community"]:
        cards.append(snap["community"])
    return cards


def _pots_by_definition(hand: Hand) -> list[dict[str, Any]]:
    """The pots of the chips collected so far, built from scratch (spec: layers of contributions)."""
    if hand.result is not None:
        return []
    seats = hand.seats.values()
    collected = {s.seat: s.total - s.committed for s in seats}
    pots, _ = build_pots(collected, {s.seat for s in seats if not s.folded}, {s.seat for s in seats if s.all_in})
    return [{"amount": pot.amount, "eligible": pot.eligible} for pot in pots]


def _wrong_actions(hand: Hand, draw: st.DrawFn) -> Action:
    seat = draw(st.sampled_from([*hand.seats, 11, 0]))
    kind = draw(st.sampled_from(list(ActionType)))
    # Just outside every listed amount or range too: the boundaries are where engines go wrong.
    near = sorted({bound + step for la in hand.legal_actions() for bound in (la.amount, la.top) if bound is not None
                   for step in (-1, 1)})
    amount = draw(st.one_of(st.none(), st.integers(-1, 400), st.sampled_from(near or [0])))
    return Action(seat=seat, action=kind, amount=amount)


def _amount(choice: LegalAction, draw: st.DrawFn) -> int | None:
    """A pot/no-limit range's bounds or any amount between them; else the listed amount."""
    if choice.top is None or choice.amount is None:
        return choice.amount
    return draw(st.one_of(st.sampled_from([choice.amount, choice.top]), st.integers(choice.amount, choice.top)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), data=st.data())
def test_random_hands_keep_the_invariants(table: dict[str, Any], data: st.DataObject) -> None:
    _play_and_check(table, data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(variants=(Variant.FIVE_CARD_STUD,)), data=st.data())
def test_five_card_stud_hands_keep_the_invariants(table: dict[str, Any], data: st.DataObject) -> None:
    """Five-card stud on its own (up to 10 seats), so each run plays it often; plus its card counts."""
    hand = _play_and_check(table, data)
    for seat in hand.snapshot()["seats"]:
        assert len(seat["down"]) == 1 and 1 <= len(seat["up"]) <= 4, f"FIVE.DEAL/FIVE.STREETS: {seat}"
        if hand.showdown_order and not seat["folded"]:
            community = 1 if hand.community is not None else 0
            assert len(seat["down"]) + len(seat["up"]) + community == 5, f"FIVE.HAND: {seat}"


def _play_and_check(table: dict[str, Any], data: st.DataObject) -> Hand:
    hand = Hand(**table, events=True)  # so a refused action is also seen to log nothing
    assert hand.events is not None
    opening = hand.snapshot()
    assert json.loads(json.dumps(opening)) == opening, "a snapshot must be plain JSON (lists, string keys)"
    start_chips = sum(seat.stack for seat in table["seats"])
    assert _chips(hand) == start_chips
    steps = 0
    wrong_tries = 0
    history: list[str] = []
    kept: list[tuple[dict[str, Any], dict[str, Any]]] = []
    while not hand.is_over and steps < MAX_STEPS:
        legal = hand.legal_actions()
        assert legal, "a hand that is not over always has a seat to act with a legal action"
        keys = [(ACTION_ORDER[la.action], la.amount or 0) for la in legal]
        assert keys == sorted(keys) and len(set(keys)) == len(keys), f"legal list not canonical: {legal}"
        if wrong_tries < MAX_WRONG and data.draw(st.integers(0, 4)) == 0:
            wrong_tries += 1
            wrong = _wrong_actions(hand, data.draw)
            listed = wrong.seat == hand.to_act and any(
                la.action is wrong.action
                and (la.amount == wrong.amount or la.allows(wrong.amount) or (wrong.amount is None and la.action is ActionType.CALL))
                for la in legal
            )
            if not listed:
                before = json.loads(json.dumps(hand.snapshot()))  # a deep copy: every snapshot is asserted plain JSON
                events = len(hand.events)
                try:
                    hand.apply(wrong)
                except IllegalAction:
                    pass
                else:
                    raise AssertionError(f"unlisted action {wrong} was accepted; legal: {legal}")
                assert hand.snapshot() == before
                assert len(hand.events) == events
                continue
        steps += 1
        choice = data.draw(st.sampled_from(legal))
        amount = _amount(choice, data.draw)
        history.append(f"{hand.street.value}: {hand.to_act} {choice.action.value} {amount}")
        hand.apply(Action(seat=hand.to_act or 0, action=choice.action, amount=amount))
        assert _chips(hand) == start_chips
        snapshot = hand.snapshot()
        frozen = json.loads(json.dumps(snapshot))  # the round trip the next check needs is also the deep copy kept
        assert frozen == snapshot, "a snapshot must be plain JSON (lists, string keys)"
        assert snapshot["pots"] == _pots_by_definition(hand), "the snapshot's pots are stale"
        kept.append((snapshot, frozen))
        dealt = _dealt(hand)
        assert len(dealt) == len(set(dealt)), "a card was dealt twice"
    assert hand.is_over, f"the hand did not end within the step bound: {history[:40]}"
    # Callers keep snapshots (the fuzzer compares and records them): later moves must not change them.
    assert all(snapshot == frozen for snapshot, frozen in kept)
    result = hand.snapshot()["result"]
    awarded = 0
    for pot in result["pots"]:
        shares = {**pot.get("winners", {}), **{}}
        parts = list(pot.get("winners", {}).values()) + list(pot.get("high", {}).values()) + list(pot.get("low", {}).values())
        assert all(part >= 1 for part in parts), f"nobody is listed as winning zero chips (POT.NO-ZERO-SHARE): {pot}"
        assert sum(parts) == pot["amount"], f"awards {shares} do not add up to pot {pot}"
        awarded += pot["amount"]
    returned = sum(result["returned"].values())
    assert sum(result["stacks"].values()) + result["rake"] == start_chips
    assert awarded + result["rake"] + returned >= 0
    return hand
