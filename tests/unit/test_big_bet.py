"""Pot limit and no limit in the engine's API and on the wire: what the case suite cannot express
(the JSON shape of a range, the refusal's words, bools as amounts, the option's JSON form).

The rules themselves are tested by cases/*/big-bet/ (spec/rules/16-betting-structures.md).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from studcheck.cards import FULL_DECK
from studcheck.engine import Action, Hand, IllegalAction, Reason
from studcheck.protocol.messages import schema_problem
from studcheck.protocol.serve import Server
from studcheck.rules import ActionType, Betting, Options, SeatSetup, SetupError, Stakes, Variant

STAKES = Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10)


def hand(betting: Betting, *stacks: int) -> Hand:
    # FULL_DECK is 2c 2d 2h 2s 3c ...: three seats get doors 3h 3s 4c, so seat 1 (3h) brings in.
    return Hand(variant=Variant.STUD_HIGH, options=Options(betting=betting), stakes=STAKES,
                seats=[SeatSetup(seat=n, stack=s) for n, s in enumerate(stacks or (100, 100, 100), start=1)],
                deck=list(FULL_DECK), events=True)


def after_bring_in(betting: Betting) -> Hand:
    game = hand(betting)
    game.apply(Action(seat=1, action=ActionType.BRING_IN, amount=2))
    return game


def test_a_range_is_one_entry_with_min_and_max_beside_amount() -> None:
    # Pot 3 antes + 2 = 5: min 2 + 2 = 4, max 2 + (5 + 2) = 9.
    legal = after_bring_in(Betting.POT_LIMIT).snapshot()["legal"]
    assert legal == [{"action": "fold"}, {"action": "call", "amount": 2}, {"action": "raise", "amount": 4, "min": 4, "max": 9}]


def test_a_fixed_limit_state_has_no_range() -> None:
    legal = after_bring_in(Betting.FIXED_LIMIT).snapshot()["legal"]
    assert legal == [{"action": "fold"}, {"action": "call", "amount": 2}, {"action": "complete", "amount": 5}]


def test_the_state_with_ranges_matches_the_protocol_schema() -> None:
    response = {"seq": 1, "ok": True, "state": after_bring_in(Betting.NO_LIMIT).snapshot()}
    assert schema_problem("response_state", response) is None


@pytest.mark.parametrize("amount", [3, 10, 0])
def test_an_amount_outside_the_range_is_refused_with_the_range_in_the_message(amount: int) -> None:
    game = after_bring_in(Betting.POT_LIMIT)
    before = copy.deepcopy(game.snapshot())
    with pytest.raises(IllegalAction) as caught:
        game.apply(Action(seat=2, action=ActionType.RAISE, amount=amount))
    assert caught.value.reason is Reason.INVALID_AMOUNT
    assert "from 4 to 9" in str(caught.value)
    assert game.snapshot() == before


def test_true_is_not_an_amount_inside_a_range() -> None:
    game = hand(Betting.NO_LIMIT, 100, 100, 100)
    game.apply(Action(seat=1, action=ActionType.BRING_IN, amount=2))
    game.apply(Action(seat=2, action=ActionType.CALL, amount=2))
    game.apply(Action(seat=3, action=ActionType.CALL, amount=2))
    # Fourth street: the bet range starts at 2; True == 1 must not pass for an amount.
    seat = game.to_act
    assert seat is not None
    with pytest.raises(IllegalAction) as caught:
        game.apply(Action(seat=seat, action=ActionType.BET, amount=True))
    assert caught.value.reason is Reason.INVALID_AMOUNT


def test_every_amount_of_the_range_is_accepted_and_is_the_amount_logged() -> None:
    for amount in range(4, 10):
        game = after_bring_in(Betting.POT_LIMIT)
        game.apply(Action(seat=2, action=ActionType.RAISE, amount=amount))
        assert game.events is not None and game.events[-1] == {"event": "action", "seat": 2, "action": "raise", "amount": amount}
        assert game.snapshot()["seats"][1]["committed"] == amount


def test_complete_is_not_an_action_of_big_bet_poker() -> None:
    game = hand(Betting.POT_LIMIT)
    # No completion; besides the bring-in, only a bet above it up to the pot of antes, 3 (BIGBET.BRING-IN.OPEN-ANY).
    assert [(la.action, la.amount, la.top) for la in game.legal_actions()] == [
        (ActionType.BRING_IN, 2, None),
        (ActionType.BET, 3, 3),
    ]
    with pytest.raises(IllegalAction) as caught:
        game.apply(Action(seat=1, action=ActionType.COMPLETE, amount=5))
    assert caught.value.reason is Reason.ILLEGAL_ACTION


def test_betting_is_a_late_option_in_json() -> None:
    assert "betting" not in Options().to_json()
    assert Options(betting=Betting.NO_LIMIT).to_json()["betting"] == "no_limit"
    assert Options.from_json({"betting": "pot_limit"}).betting is Betting.POT_LIMIT
    assert Options.from_json({}).betting is Betting.FIXED_LIMIT
    with pytest.raises(SetupError) as caught:
        Options.from_json({"betting": "spread_limit"})
    assert caught.value.field == "options.betting"


def _new_hand(options: dict[str, Any]) -> dict[str, Any]:
    return {"type": "new_hand", "seq": 2, "variant": "stud_high", "options": options, "stakes": STAKES.to_json(),
            "seats": [{"seat": 1, "stack": 100}, {"seat": 2, "stack": 100}], "deck": [card.text for card in FULL_DECK],
            "remade_stub": None, "label": "T"}


def test_serve_reads_an_absent_betting_as_fixed_limit_and_refuses_an_unknown_one() -> None:
    server = Server()
    plain = server.handle(_new_hand(Options().to_json()))
    assert plain["ok"] and all("min" not in entry for entry in plain["state"]["legal"])
    big = server.handle(_new_hand({**Options().to_json(), "betting": "no_limit"}))
    assert big["ok"]
    wrong = server.handle(_new_hand({**Options().to_json(), "betting": "spread_limit"}))
    assert not wrong["ok"] and wrong["error"]["reason"] == "bad_request"


@pytest.mark.parametrize(("entry", "valid"), [
    ({"action": "raise", "amount": 4, "min": 4, "max": 9}, True),
    ({"action": "fold", "min": 1, "max": 2}, False),
    ({"action": "check", "max": 2}, False),
])
def test_the_schema_allows_a_range_only_on_an_action_with_an_amount(entry: dict[str, Any], valid: bool) -> None:
    assert (schema_problem("legal_action", entry) is None) is valid
