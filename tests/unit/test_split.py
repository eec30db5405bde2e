"""showdown.split: equal shares, odd chips by priority, and no zero-chip shares (POT.SPLIT, POT.NO-ZERO-SHARE)."""

from __future__ import annotations

from studcheck.engine.showdown import split


def by_seat(seat: int) -> tuple[int, int]:
    return (seat, 0)  # higher seat first in these tests


def test_even_split() -> None:
    assert split(10, [1, 2], by_seat) == {1: 5, 2: 5}


def test_odd_chips_go_in_priority_order() -> None:
    assert split(20, [1, 2, 3], by_seat) == {3: 7, 2: 7, 1: 6}


def test_fewer_chips_than_winners_lists_only_those_paid() -> None:
    assert split(1, [1, 2], by_seat) == {2: 1}
    assert split(2, [1, 2, 3], by_seat) == {3: 1, 2: 1}


def test_empty_pot_pays_nobody() -> None:
    assert split(0, [1, 2], by_seat) == {}
