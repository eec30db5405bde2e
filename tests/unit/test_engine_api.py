"""The reference engine's Python API: setup errors name their field, the dealer's short-stub
branches, the event log, and refusals that leave the hand untouched.

Rule-by-rule behaviour is tested by the case suite (tests/test_cases.py); these tests cover what a
case file cannot express.
"""

from __future__ import annotations

import copy

import pytest

from studcheck.cards import FULL_DECK, parse_cards
from studcheck.engine import Action, Hand, IllegalAction, Reason
from studcheck.engine.dealing import Dealer
from studcheck.rules import ActionType, Options, SeatSetup, SetupError, ShortStub, Stakes, Variant

STAKES = Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10)


def seats(*stacks: int) -> list[SeatSetup]:
    return [SeatSetup(seat=number, stack=stack) for number, stack in enumerate(stacks, start=1)]


def hand(**overrides: object) -> Hand:
    setup: dict[str, object] = {
        "variant": Variant.STUD_HIGH,
        "options": Options(),
        "stakes": STAKES,
        "seats": seats(100, 100, 100),
        "deck": list(FULL_DECK),
        "events": True,
    }
    setup.update(overrides)
    return Hand(**setup)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"seats": seats(100)}, "seats"),
        ({"seats": seats(*[100] * 9)}, "seats"),
        ({"seats": [SeatSetup(seat=1, stack=100), SeatSetup(seat=1, stack=100)]}, "seats[1].seat"),
        ({"seats": [SeatSetup(seat=0, stack=100), SeatSetup(seat=2, stack=100)]}, "seats[0].seat"),
        ({"seats": seats(100, 0)}, "seats[1].stack"),
        ({"deck": list(FULL_DECK)[:51]}, "deck"),
        ({"deck": [FULL_DECK[0], *list(FULL_DECK)[:51]]}, "deck"),
        ({"variant": "stud"}, "variant"),
    ],
)
def test_invalid_setups_name_the_field(overrides: dict[str, object], field: str) -> None:
    with pytest.raises(SetupError) as caught:
        hand(**overrides)
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"ante": -1, "bring_in": 2, "small_bet": 5, "big_bet": 10}, "stakes.ante"),
        ({"ante": 1, "bring_in": 5, "small_bet": 5, "big_bet": 10}, "stakes.bring_in"),
        ({"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 4}, "stakes.big_bet"),
        ({"ante": 1, "bring_in": 2.5, "small_bet": 5, "big_bet": 10}, "stakes.bring_in"),
    ],
)
def test_invalid_stakes_name_the_field(values: dict[str, float], field: str) -> None:
    with pytest.raises(SetupError) as caught:
        Stakes(**values)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_remade_stub_is_an_order_preference() -> None:
    dealer = Dealer(list(FULL_DECK), remade_stub=parse_cards("As Ks 3c"))
    for _ in range(46):
        dealer.take()
    for _ in range(3):
        dealer.burn()
    # the stub is the last 3 cards (Ad Ah As); the burns the 3 before them (Kh Ks Ac): "As Ks" come
    # first as listed (3c is not in the new stub and is ignored), then Ad Ah Kh Ac in the default order
    stub_cards = list(FULL_DECK[49:])
    burns = list(dealer.burns)
    dealer.remake()
    remade = [dealer.take() for _ in range(6)]
    listed = [card for card in parse_cards("As Ks 3c") if card in stub_cards + burns]
    assert remade[: len(listed)] == listed
    rest = [card for card in stub_cards + burns if card not in listed]
    assert remade[len(listed):] == rest


@pytest.mark.parametrize(
    ("dealt", "burns", "live", "burning", "expect_community", "expect_remade"),
    [
        (42, 3, 7, True, False, True),  # 7 players: stub 7 + 3 burns >= 9: case A
        (48, 3, 8, True, True, True),  # 8 players: stub 1: case C
        (48, 0, 8, False, True, False),  # 8 players, no burns: stub 4 >= 3: case B
        (36, 3, 6, True, False, False),  # 6 players: stub 13 >= 8: normal
    ],
)
def test_seventh_street_short_stub_branches(
    dealt: int, burns: int, live: int, burning: bool, expect_community: bool, expect_remade: bool
) -> None:
    dealer = Dealer(list(FULL_DECK), remade_stub=None)
    for _ in range(dealt):
        dealer.take()
    for _ in range(burns):
        dealer.burn()
    options = Options(burn_cards=burning, short_stub=ShortStub.REMAKE)
    deal = dealer.deal_seventh(list(range(1, live + 1)), options)
    assert (deal.community is not None) is expect_community
    assert deal.remade is expect_remade
    assert len(deal.cards) == (0 if expect_community else live)


def test_a_refused_action_changes_nothing_and_names_its_reason() -> None:
    game = hand()
    before = copy.deepcopy(game.snapshot())
    assert game.events is not None
    events = len(game.events)
    for action, reason in [
        (Action(seat=9, action=ActionType.FOLD), Reason.UNKNOWN_SEAT),
        (Action(seat=2, action=ActionType.FOLD), Reason.OUT_OF_TURN),
        (Action(seat=game.to_act or 0, action=ActionType.CHECK), Reason.ILLEGAL_ACTION),
        (Action(seat=game.to_act or 0, action=ActionType.BRING_IN, amount=3), Reason.INVALID_AMOUNT),
    ]:
        if action.seat == game.to_act and reason is Reason.OUT_OF_TURN:
            continue
        with pytest.raises(IllegalAction) as caught:
            game.apply(action)
        assert caught.value.reason is reason
        assert game.snapshot() == before
        assert len(game.events) == events


def test_the_event_log_accounts_for_every_chip() -> None:
    game = hand(seats=seats(100, 100))
    while not game.is_over:
        legal = game.legal_actions()
        choice = next((la for la in legal if la.action in (ActionType.CALL, ActionType.CHECK, ActionType.SHOW)), legal[0])
        game.apply(Action(seat=game.to_act or 0, action=choice.action, amount=choice.amount))
    assert game.events is not None
    kinds = [event["event"] for event in game.events]
    assert kinds.count("ante") == 2 and kinds.count("award") >= 1
    assert sum(1 for event in game.events if event["event"] == "deal") == 14
    antes = sum(event["amount"] for event in game.events if event["event"] == "ante")
    awarded = sum(event["amount"] for event in game.events if event["event"] == "award")
    result = game.snapshot()["result"]
    assert awarded == sum(pot["amount"] for pot in result["pots"])
    assert awarded >= antes
    assert sum(result["stacks"].values()) == 200
    with pytest.raises(IllegalAction) as caught:
        game.apply(Action(seat=1, action=ActionType.FOLD))
    assert caught.value.reason is Reason.HAND_OVER
