"""Five-card stud through the layers the FS- cases do not reach directly: the deck builder's
positions, the per-variant seat limits, and the loader's and `show`'s five-card wording.
Expected positions are worked out by hand from FIVE.DEAL and FIVE.STREETS."""

from __future__ import annotations

from pathlib import Path

import pytest

from studcheck.cards import FULL_DECK, parse_cards
from studcheck.cases import load_case
from studcheck.cases.deck import DeckError, build_deck, deal_positions
from studcheck.cases.load import CaseError
from studcheck.cases.show import render
from studcheck.engine import Hand
from studcheck.rules import Options, SeatSetup, SetupError, Stakes, Variant

FIVE = Variant.FIVE_CARD_STUD
STAKES = Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10)


def test_three_seats_to_fifth_street_with_burns() -> None:
    # holes 0-2, doors 3-5, burn 6, third 7-9, burn 10, fourth 11-13, burn 14, fifth 15-17
    plan = deal_positions({1: 5, 2: 5, 3: 5}, variant=FIVE)
    assert plan.seat_positions == {1: (0, 3, 7, 11, 15), 2: (1, 4, 8, 12, 16), 3: (2, 5, 9, 13, 17)}
    assert plan.burn_positions == (6, 10, 14)
    assert plan.used == 18


def test_a_fold_on_third_street_and_no_burns() -> None:
    # holes 0-2, doors 3-5, third 6-8; seat 2 folded there: fourth 9-10, fifth 11-12
    plan = deal_positions({1: 5, 2: 3, 3: 5}, burn_cards=False, variant=FIVE)
    assert plan.seat_positions == {1: (0, 3, 6, 9, 11), 2: (1, 4, 7), 3: (2, 5, 8, 10, 12)}
    assert plan.burn_positions == ()


def test_built_deck_deals_the_listed_cards() -> None:
    deck = build_deck({1: list(parse_cards("Ah Kd 7c")), 2: list(parse_cards("Qh 4c Jd"))}, variant=FIVE)
    assert deck[:5] == tuple(parse_cards("Ah Qh Kd 4c 2c"))  # 2c: the first unused card, burnt
    assert deck[5:7] == tuple(parse_cards("7c Jd"))
    assert set(deck) == set(FULL_DECK) and len(deck) == 52


@pytest.mark.parametrize("count", [1, 6])
def test_card_counts_outside_two_to_five_are_refused(count: int) -> None:
    with pytest.raises(DeckError, match=r"2 \(second street\) to 5 \(fifth street\)"):
        deal_positions({1: count, 2: 2}, variant=FIVE)


def test_ten_players_to_fifth_street_need_the_whole_deck() -> None:
    # 20 + burn + 10 + burn + 10 = 42: 10 left < 10 players + burn + 1 (remake procedure)
    with pytest.raises(DeckError, match="10 players reach fifth street with 10 cards left"):
        deal_positions({seat: 5 for seat in range(1, 11)}, variant=FIVE)


def _hand(variant: Variant, seats: int) -> Hand:
    return Hand(variant=variant, options=Options(), stakes=STAKES, deck=FULL_DECK,
                seats=[SeatSetup(seat=n, stack=50) for n in range(1, seats + 1)])


def test_seat_limits_per_variant() -> None:
    assert len(_hand(FIVE, 10).seats) == 10
    with pytest.raises(SetupError, match="2 to 10 seated players, got 11"):
        _hand(FIVE, 11)
    with pytest.raises(SetupError, match="2 to 8 seated players, got 9"):
        _hand(Variant.STUD_HIGH, 9)


def test_the_opening_deal_is_one_down_one_up() -> None:
    hand = _hand(FIVE, 2)
    snap = hand.snapshot()
    # canonical deck: 2c 2d to the holes, 2h 2s the doors; 2h (hearts < spades) brings in
    assert [(s["down"], s["up"]) for s in snap["seats"]] == [(["2c"], ["2h"]), (["2d"], ["2s"])]
    assert snap["street"] == "second" and snap["to_act"] == 1


CASE = """\
id: FS-TEST-001
title: test
rules: [FIVE.DEAL]
tags: [dealing]
variant: VARIANT
options: {open_pair_double: false}
stakes: {ante: 1, bring_in: 2, small_bet: 5, big_bet: 10}
seats:
  1: {stack: 100, cards: Ah Kd}
  SEAT: {stack: 100, cards: Qh 4c}
steps:
  - act: SEAT bring_in 2
"""


def _write(tmp_path: Path, variant: str, seat: int) -> Path:
    path = tmp_path / "case.yaml"
    text = CASE.replace("VARIANT", variant).replace("SEAT", str(seat))
    if variant == "stud_high":
        text = text.replace("FS-", "SH-").replace("FIVE.DEAL", "DEAL.THIRD").replace("Ah Kd", "Ah As Kd").replace("Qh 4c", "Qh Qs 4c")
    path.write_text(text, encoding="utf-8")
    return path


def test_seat_ten_loads_in_five_card_stud_and_shows_second_street(tmp_path: Path) -> None:
    case = load_case(_write(tmp_path, "five_card_stud", 10))
    assert [setup.seat for setup in case.seats] == [1, 10]
    assert "*** SECOND STREET ***" in render(case)


def test_seat_nine_is_refused_in_stud_high(tmp_path: Path) -> None:
    with pytest.raises(CaseError, match=r"9 is not a seat number \(1 to 8\) in stud_high"):
        load_case(_write(tmp_path, "stud_high", 9))
