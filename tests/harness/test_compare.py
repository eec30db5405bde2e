"""Partial expectation matching (contract section 8): only named keys, meaning not text."""

from __future__ import annotations

from typing import Any

from studcheck.harness.compare import Mismatch, compare_final, compare_state, diff_json, sorted_legal


def seat(number: int, **values: Any) -> dict[str, Any]:
    row = {"seat": number, "stack": 100, "committed": 0, "folded": False, "all_in": False,
           "up": [], "down": [], "shown": False, "mucked": False}
    row.update(values)
    return row


STATE: dict[str, Any] = {
    "street": "third", "to_act": 1,
    "legal": [{"action": "fold"}, {"action": "call", "amount": 2}, {"action": "complete", "amount": 5}],
    "seats": [seat(1, stack=99, up=["Kh"], down=["Ah", "As"]), seat(2, stack=97, committed=2, up=["2c"]),
              seat(3, stack=99, folded=True)],
    "community": None, "pots": [{"amount": 3, "eligible": [1, 2, 3]}], "pot_total": 5, "result": None,
}

RESULT: dict[str, Any] = {
    "pots": [{"amount": 30, "eligible": [1, 2], "winners": {"2": 30}},
             {"amount": 10, "eligible": [2, 3], "high": {"2": 5}, "low": {"3": 5}}],
    "rake": 0, "returned": {"1": 5}, "showdown_order": [2, 1], "stacks": {"1": 90, "2": 110, "3": 100},
}


def paths(found: list[Mismatch]) -> list[str]:
    return [m.path for m in found]


def test_only_named_keys_are_compared() -> None:
    assert compare_state({"to_act": 1}, STATE) == []
    assert compare_state({}, STATE) == []


def test_scalar_difference_names_the_key() -> None:
    assert compare_state({"to_act": 2, "street": "third"}, STATE) == [Mismatch(path="to_act", expected=2, actual=1)]


def test_legal_is_set_equality_in_any_spelling() -> None:
    as_text = ["complete 5", "fold", "call 2"]
    as_json = [{"action": "call", "amount": 2}, {"action": "complete", "amount": 5}, {"action": "fold"}]
    assert compare_state({"legal": as_text}, STATE) == []
    assert compare_state({"legal": as_json}, STATE) == []
    found = compare_state({"legal": ["fold", "call 2"]}, STATE)
    assert found == [Mismatch(path="legal", expected=["fold", "call 2"], actual=["fold", "call 2", "complete 5"])]


def test_legal_sorting_follows_action_order() -> None:
    assert sorted_legal(["raise 20", "fold", "call 10", "raise 15", "bring_in 2"]) == [
        "fold", "call 10", "bring_in 2", "raise 15", "raise 20"]


def test_seat_maps_compare_listed_seats_only() -> None:
    assert compare_state({"stacks": {"2": 97}}, STATE) == []
    assert compare_state({"stacks": {2: 96, 1: 99}}, STATE) == [Mismatch(path="stacks.2", expected=96, actual=97)]
    assert paths(compare_state({"committed": {"1": 1}}, STATE)) == ["committed.1"]


def test_card_lists_accept_text_or_lists() -> None:
    assert compare_state({"down": {"1": "Ah As"}, "up": {"1": ["Kh"]}}, STATE) == []
    assert compare_state({"up": {"2": ["2d"]}}, STATE) == [Mismatch(path="up.2", expected=["2d"], actual=["2c"])]


def test_seat_sets_are_set_equality() -> None:
    assert compare_state({"folded": [3]}, STATE) == []
    assert compare_state({"folded": []}, STATE) == [Mismatch(path="folded", expected=[], actual=[3])]
    assert compare_state({"all_in": [1]}, STATE) == [Mismatch(path="all_in", expected=[1], actual=[])]


def test_pots_compare_amount_and_eligible() -> None:
    assert compare_state({"pots": [{"amount": 3, "eligible": [3, 2, 1]}]}, STATE) == []
    assert compare_state({"pots": [{"amount": 3, "eligible": [1, 2]}]}, STATE) == [
        Mismatch(path="pots[0].eligible", expected=[1, 2], actual=[1, 2, 3])]
    assert paths(compare_state({"pots": []}, STATE)) == ["pots"]


def test_unknown_seat_in_expectation_is_a_difference() -> None:
    assert compare_state({"stacks": {"7": 100}}, STATE) == [Mismatch(path="stacks.7", expected=100, actual=None)]


def test_final_compares_the_keys_each_pot_lists() -> None:
    assert compare_final({"pots": [{"amount": 30}, {"low": {"3": 5}}]}, RESULT) == []
    found = compare_final({"pots": [{"winners": {"1": 30}}, {"amount": 10}]}, RESULT)
    assert found == [
        Mismatch(path="result.pots[0].winners.1", expected=30, actual=None),
        Mismatch(path="result.pots[0].winners.2", expected=None, actual=30),
    ]


def test_final_pots_count_must_match() -> None:
    assert paths(compare_final({"pots": [{"amount": 30}]}, RESULT)) == ["result.pots"]


def test_final_scalars_orders_and_stacks() -> None:
    assert compare_final({"rake": 0, "showdown_order": [2, 1], "stacks": {"2": 110}}, RESULT) == []
    assert compare_final({"showdown_order": [1, 2]}, RESULT) == [
        Mismatch(path="result.showdown_order", expected=[1, 2], actual=[2, 1])]
    assert compare_final({"stacks": {"3": 99}}, RESULT) == [Mismatch(path="result.stacks.3", expected=99, actual=100)]
    assert compare_final({"returned": {}}, RESULT) == [Mismatch(path="result.returned.1", expected=None, actual=5)]


def test_final_without_result_says_the_hand_is_not_over() -> None:
    assert paths(compare_final({"rake": 0}, None)) == ["result"]


def test_diff_json_points_into_seats() -> None:
    after = {**STATE, "seats": [STATE["seats"][0], {**STATE["seats"][1], "stack": 95}, STATE["seats"][2]]}
    assert diff_json(STATE, after) == [Mismatch(path="seats[1].stack", expected=97, actual=95)]
    assert diff_json(STATE, STATE) == []
