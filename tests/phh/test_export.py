"""PHH export: the TOML writer, and hands written from the case files by hand (not from the exporter)."""

from __future__ import annotations

import pytest

from studcheck.cases.load import load_cases
from studcheck.cases.model import Case
from studcheck.phh import toml
from studcheck.phh.export import PhhRefusal, export_case


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    return {case.id: case for case in load_cases()}


@pytest.mark.parametrize(("value", "text"), [
    (3, "3"), (True, "true"), (False, "false"), ("F7S/8", '"F7S/8"'),
    ('say "hi"\n', '"say \\"hi\\"\\n"'), ([1, 2], "[1, 2]"), ([], "[]"),
    ({"burn_cards": False, "max_raises": 3}, "{burn_cards = false, max_raises = 3}"),
    ({"odd key": 1}, '{"odd key" = 1}'),
])
def test_toml_values(value: object, text: str) -> None:
    assert toml.value_text(value) == text


def test_toml_reads_back_and_skips_none() -> None:
    fields = {"variant": "FR", "antes": [1, 1], "note": "it's \u00e9t\u00e9 \\ \"quoted\"", "gone": None,
              "_studcheck_options": {"burn_cards": False}}
    text = toml.dumps(fields)
    assert "gone" not in text
    assert toml.loads(text) == {key: value for key, value in fields.items() if value is not None}


def test_toml_rejects_what_phh_never_holds() -> None:
    with pytest.raises(TypeError):
        toml.value_text(1.5)


def test_finished_hand_sh_hrk_002(cases: dict[str, Case]) -> None:
    # From the case file: seat 1 Ts 3c Ah Kc Qd Jh 4d, seat 2 Ks Qh 2h Jc Td 9c 5s; stacks 6 each.
    # Seat 2 (door 2h) brings in by completing to 5, seat 1 calls all-in: both have 6 - 1 ante = 5.
    # PHH lists each street's cards per player (p1 = seat 1), no burns; shows list all 7 cards.
    phh = toml.loads(export_case(cases["SH-HRK-002"]).text())
    assert phh["variant"] == "F7S"
    assert (phh["antes"], phh["bring_in"], phh["small_bet"], phh["big_bet"]) == ([1, 1], 2, 5, 10)
    assert phh["starting_stacks"] == [6, 6]
    assert phh["seats"] == [1, 2]
    assert phh["actions"] == [
        "d dh p1 Ts3cAh", "d dh p2 KsQh2h", "p2 cbr 5", "p1 cc",
        "d dh p1 Kc", "d dh p2 Jc", "d dh p1 Qd", "d dh p2 Td", "d dh p1 Jh", "d dh p2 9c",
        "d dh p1 4d", "d dh p2 5s",
        "p1 sm Ts3cAhKcQdJh4d", "p2 sm KsQh2hJcTd9c5s",
    ]
    assert phh["finishing_stacks"] == [12, 0]  # the case's final stacks: seat 1 wins the 12-chip pot
    assert phh["hand"] == phh["_studcheck_id"] == "SH-HRK-002"
    assert phh["_studcheck_rules"] == ["HAND.HIGH.RANKING", "HAND.HIGH.KICKERS"]
    assert phh["_studcheck_variant"] == "stud_high"


def test_text_layout_sh_bri_005(cases: dict[str, Case]) -> None:
    # Seat 2 (door 2c) completes to 5, seat 3 calls, seat 1 folds; 4th street is dealt, then the steps end.
    # Seats 2 and 3 list `??` for 4th street: the deck fills unused cards in canonical order, the
    # burn (position 9) gets 2d, seat 2's card 2h, seat 3's 2s (2c is seat 2's door card).
    lines = export_case(cases["SH-BRI-005"]).text().splitlines()
    assert lines[:7] == [
        'variant = "F7S"', "antes = [1, 1, 1]", "bring_in = 2", "small_bet = 5", "big_bet = 10",
        "starting_stacks = [100, 100, 100]",
        'actions = ["d dh p1 AsKs9d", "d dh p2 QsQd2c", "d dh p3 JsTh7h", "p2 cbr 5", "p3 cc", "p1 f", '
        '"d dh p2 2h", "d dh p3 2s"]',
    ]
    assert not any(line.startswith("finishing_stacks") for line in lines)
    assert '_studcheck_note = "the case\'s steps end before the hand does: no finishing stacks"' in lines


@pytest.mark.parametrize(("case_id", "code"), [("RZ-LOW-002", "FR"), ("HL-ANT-001", "F7S/8")])
def test_variant_codes(cases: dict[str, Case], case_id: str, code: str) -> None:
    assert toml.loads(export_case(cases[case_id]).text())["variant"] == code


@pytest.mark.parametrize(("case_id", "why"), [
    ("SH-RAK-001", "rake_percent=5"),  # PHH has no rake field
    ("HL-CAP-002", "max_raises=4"),  # PokerKit's fixed-limit games cap at bet + 3 raises
    ("HL-ODD-005", "short_stub=community"),
    ("RZ-STB-001", "community card"),  # remake without burns still runs short: a community card
    ("HL-SRF-001", "setup-refusal"),
])
def test_refusals_say_why(cases: dict[str, Case], case_id: str, why: str) -> None:
    with pytest.raises(PhhRefusal, match=why):
        export_case(cases[case_id])
