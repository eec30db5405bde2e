"""Deck building: positions computed by hand from the dealing procedure (contract section 3)."""

from __future__ import annotations

import pytest

from studcheck.cards import FULL_DECK, Card, parse_card, parse_cards
from studcheck.cases.deck import DeckError, build_deck, check_full_deck, deal_positions
from studcheck.rules import ShortStub


def cards(text: str) -> list[Card | None]:
    return [None if token == "??" else parse_card(token) for token in text.split()]


def rest_in_canonical_order(deck: tuple[Card, ...], used: int) -> bool:
    remaining = [card for card in FULL_DECK if card not in deck[:used]]
    return list(deck[used:]) == remaining


def test_three_seats_no_folds_with_burns() -> None:
    seat_cards = {
        1: cards("Ac Ad Ah As Kc Kd Kh"),
        2: cards("Qc Qd Qh Qs Jc Jd Jh"),
        3: cards("Tc Td Th Ts 9c 9d 9h"),
    }
    deck = build_deck(seat_cards, cards("2c 2d 2h 2s"))
    expected = parse_cards(
        "Ac Qc Tc "      # 0-2 first down card, seats 1 2 3
        "Ad Qd Td "      # 3-5 second down card
        "Ah Qh Th "      # 6-8 door cards
        "2c "            # 9 burn before fourth
        "As Qs Ts "      # 10-12 fourth street
        "2d "            # 13 burn before fifth
        "Kc Jc 9c "      # 14-16 fifth
        "2h "            # 17 burn before sixth
        "Kd Jd 9d "      # 18-20 sixth
        "2s "            # 21 burn before seventh
        "Kh Jh 9h")      # 22-24 seventh
    assert deck[:25] == expected
    assert len(deck) == 52 and len(set(deck)) == 52
    assert rest_in_canonical_order(deck, 25)
    assert deck[25] == parse_card("3c")


def test_seat_folding_on_third_street_gets_no_more_cards() -> None:
    seat_cards = {
        1: cards("Ac Ad Ah As Kc Kd Kh"),
        2: cards("Qc Qd Qh"),
        3: cards("Tc Td Th Ts 9c 9d 9h"),
    }
    deck = build_deck(seat_cards, cards("2c 2d 2h 2s"))
    expected = parse_cards("Ac Qc Tc Ad Qd Td Ah Qh Th 2c As Ts 2d Kc 9c 2h Kd 9d 2s Kh 9h")
    assert deck[:21] == expected
    assert rest_in_canonical_order(deck, 21)


def test_burns_off_two_seats_to_fifth_street() -> None:
    seat_cards = {1: cards("Ac Ad Ah As Kc"), 2: cards("Qc Qd Qh Qs Jc")}
    deck = build_deck(seat_cards, (), burn_cards=False)
    assert deck[:10] == parse_cards("Ac Qc Ad Qd Ah Qh As Qs Kc Jc")
    assert rest_in_canonical_order(deck, 10)
    assert deck[10] == parse_card("2c")


def test_seat_numbers_with_gaps_are_dealt_in_ascending_order() -> None:
    seat_cards = {7: cards("7c 7d 7h"), 2: cards("2c 2d 2h"), 5: cards("5c 5d 5h")}
    deck = build_deck(seat_cards)
    assert deck[:9] == parse_cards("2c 5c 7c 2d 5d 7d 2h 5h 7h")


def test_unspecified_cards_are_the_unused_cards_in_canonical_order() -> None:
    # seat 1 wants only its door card (2c); seat 2 wants Ah Ad down. The holes, top first, are
    # positions 0, 2 and 5: filled with 2d 2h 2s (2c is taken).
    deck = build_deck({1: cards("?? ?? 2c"), 2: cards("Ah Ad ??")})
    assert deck[:6] == parse_cards("2d Ah 2h Ad 2c 2s")
    assert rest_in_canonical_order(deck, 6)


def test_listed_burns_go_to_their_streets_and_unlisted_burns_are_filler() -> None:
    seat_cards = {1: cards("?? ?? ?? ?? ?? ?? ??"), 2: cards("?? ?? ?? ?? ?? ?? ??")}
    deck = build_deck(seat_cards, cards("Kc ?? Qc"))
    # two seats: third street 0-5, burn 6, fourth 7-8, burn 9, fifth 10-11, burn 12, sixth 13-14, burn 15
    assert deck[6] == parse_card("Kc")
    assert deck[12] == parse_card("Qc")
    # the 8 holes above position 9 (0-5, 7, 8) took 2c..3s, so the unlisted second burn is 4c
    assert deck[9] == parse_card("4c")


def test_deal_positions_counts_and_burns() -> None:
    plan = deal_positions({1: 7, 2: 4, 3: 7}, burn_cards=True)
    # third street 0-8, burn 9, fourth 10 11 12, burn 13, fifth 14 15 (seat 2 folded), burn 16,
    # sixth 17 18, burn 19, seventh 20 21
    assert plan.seat_positions[1] == (0, 3, 6, 10, 14, 17, 20)
    assert plan.seat_positions[2] == (1, 4, 7, 11)
    assert plan.seat_positions[3] == (2, 5, 8, 12, 15, 18, 21)
    assert plan.burn_positions == (9, 13, 16, 19)
    assert plan.used == 22


def test_hand_ending_on_third_street_burns_nothing() -> None:
    plan = deal_positions({1: 3, 2: 3}, burn_cards=True)
    assert plan.burn_positions == () and plan.used == 6


@pytest.mark.parametrize("counts, text", [
    ({1: 4, 2: 3}, "only seat 1 is dealt fourth street"),
    ({1: 7, 2: 6, 3: 3}, "only seat 1 is dealt seventh street"),
    ({1: 2, 2: 3}, "seat 1 lists 2 cards"),
    ({1: 8, 2: 8}, "seat 1 lists 8 cards"),
])
def test_impossible_counts(counts: dict[int, int], text: str) -> None:
    with pytest.raises(DeckError, match=text):
        deal_positions(counts)


@pytest.mark.parametrize("live, burn, stub_rule, short", [
    (8, True, ShortStub.REMAKE, True),      # 48 + 3 burns = 51 used, 1 left < 10
    (7, True, ShortStub.REMAKE, True),      # 42 + 3 = 45, 7 left < 7 + 1 + 1
    (6, True, ShortStub.REMAKE, False),     # 36 + 3 = 39, 13 left >= 8
    (7, False, ShortStub.REMAKE, False),    # 42, 10 left >= 7 + 0 + 1
    (8, False, ShortStub.REMAKE, True),     # 48, 4 left < 9
    (7, True, ShortStub.COMMUNITY, True),   # 45, 7 left < 7 + 1
    (6, True, ShortStub.COMMUNITY, False),
])
def test_short_stub_needs_an_explicit_deck(live: int, burn: bool, stub_rule: ShortStub, short: bool) -> None:
    counts = {seat: 7 for seat in range(1, live + 1)}
    if short:
        with pytest.raises(DeckError, match="give the whole deck with `deck:`"):
            deal_positions(counts, burn_cards=burn, short_stub=stub_rule)
    else:
        assert deal_positions(counts, burn_cards=burn, short_stub=stub_rule).used == live * 7 + (4 if burn else 0)


def test_folds_make_room_on_seventh_street() -> None:
    # 8 seated, 2 fold on third: 8*3 + 6*4 + 4 burns = 52 - 0? 24 + 24 + 4 = 52 > deck: must be short
    counts = {seat: (7 if seat <= 6 else 3) for seat in range(1, 9)}
    with pytest.raises(DeckError):
        deal_positions(counts)
    # 8 seated, 4 fold on third: 24 + 4*4 + 3 burns = 43 used before 7th, 9 left >= 4 + 1 + 1
    counts = {seat: (7 if seat <= 4 else 3) for seat in range(1, 9)}
    assert deal_positions(counts).used == 24 + 16 + 4


def test_duplicate_card_names_both_places() -> None:
    with pytest.raises(DeckError, match="card Ah is dealt twice: seat 1's door card and seat 2's first down card"):
        build_deck({1: cards("Kc Kd Ah"), 2: cards("Ah Qd Qh")})
    with pytest.raises(DeckError, match="the burn before fourth street") as info:
        build_deck({1: cards("Kc Kd Ah 2c"), 2: cards("Qc Qd Qh 2d")}, cards("2c"))
    assert info.value.field == "burns"


def test_more_burns_than_burned() -> None:
    with pytest.raises(DeckError, match="2 burn cards listed but this deal burns only 1"):
        build_deck({1: cards("?? ?? ?? ??"), 2: cards("?? ?? ?? ??")}, cards("2c 3c"))
    with pytest.raises(DeckError, match="burn_cards is false"):
        build_deck({1: cards("?? ?? ?? ??"), 2: cards("?? ?? ?? ??")}, cards("2c"), burn_cards=False)


def test_check_full_deck() -> None:
    assert check_full_deck(FULL_DECK) == FULL_DECK
    with pytest.raises(DeckError, match="missing: As"):
        check_full_deck(FULL_DECK[:-1])
    with pytest.raises(DeckError, match="2c more than once"):
        check_full_deck((FULL_DECK[0], *FULL_DECK[:-1]))
