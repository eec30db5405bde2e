"""Card notation (CARDS.NOTATION): exactly one spelling per card, errors that say what is wrong."""

from __future__ import annotations

import pytest

from studcheck.cards import FULL_DECK, Card, CardError, Rank, Suit, format_cards, parse_card, parse_cards


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("10h", "use T for ten"),
        ("as", "upper case"),
        ("AS", "lower case"),
        ("Ax", "suit"),
        ("", "two characters"),
        ("A", "two characters"),
        ("Ahh", "two characters"),
        ("1h", "rank"),
        (" Ah", "two characters"),
    ],
)
def test_parse_errors_explain(text: str, hint: str) -> None:
    with pytest.raises(CardError, match=hint):
        parse_card(text)


@pytest.mark.parametrize("value", [None, 14, b"As", ("A", "s")])
def test_non_strings_are_refused(value: object) -> None:
    with pytest.raises(CardError):
        parse_card(value)  # type: ignore[arg-type]


def test_card_error_is_a_value_error() -> None:
    assert issubclass(CardError, ValueError)


def test_every_card_round_trips() -> None:
    texts = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    assert len(FULL_DECK) == 52 == len(set(FULL_DECK))
    for text in texts:
        card = parse_card(text)
        assert str(card) == text
        assert parse_card(str(card)) == card
    assert [str(c) for c in FULL_DECK] == texts


def test_index_is_rank_then_suit_in_canonical_order() -> None:
    assert [c.index for c in FULL_DECK] == list(range(52))
    assert parse_card("2c").index == 0
    assert parse_card("2s").index == 3
    assert parse_card("3c").index == 4
    assert parse_card("As").index == 51
    assert parse_card("Td").index == (10 - 2) * 4 + 1


def test_suit_order_is_clubs_diamonds_hearts_spades() -> None:
    assert [s.order for s in (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)] == [0, 1, 2, 3]


def test_parse_cards_accepts_text_and_lists() -> None:
    expected = (Card(rank=Rank.ACE, suit=Suit.SPADES), Card(rank=Rank.KING, suit=Suit.DIAMONDS))
    assert parse_cards("As Kd") == expected
    assert parse_cards(["As", "Kd"]) == expected
    assert parse_cards("") == ()
    assert format_cards(expected) == "As Kd"
    with pytest.raises(CardError):
        parse_cards("As 10d")
