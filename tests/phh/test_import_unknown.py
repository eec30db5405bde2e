"""PHH import: what the note says about final, and filler cards for unknown (??) cards.

A PHH hand history writes `??` for cards nobody saw (a seat that folded on third street): the
skeleton must fill the deck, and a filled UP card must not change who brings in or who acts first,
or the case would describe another hand. Each history below is written by hand; the comments say
why the expected card is the one the rules force.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from studcheck.cards import parse_card
from studcheck.cases.deck import build_deck
from studcheck.cases.load import load_case
from studcheck.cli import main
from studcheck.engine import Hand
from studcheck.phh.import_ import PHH_GAME_OPTIONS, PhhError, case_yaml, import_text
from studcheck.rules import Options, SeatSetup, Stakes, Variant

HEAD = """variant = "{variant}"
antes = [1, 1, 1]
bring_in = 2
small_bet = 5
big_bet = 10
starting_stacks = [100, 100, 100]
"""

# Stud High. Seat 1's cards are unknown and it folds; seat 2's 3d is the lowest known door and brings in.
STUD_UNKNOWN_DOOR = HEAD.format(variant="F7S") + """actions = [
  "d dh p1 ??????", "d dh p2 4c5c3d", "d dh p3 7h8hKc",
  "p2 pb", "p3 cbr 5", "p1 f", "p2 f",
]
"""


def _naive_bring_in(history_cards: dict[int, str], variant: Variant) -> int:
    """Who brings in when the unknown cards get the unused cards in canonical order (the old filler)."""
    cards = {seat: [None if text[i:i + 2] == "??" else parse_card(text[i:i + 2]) for i in range(0, len(text), 2)]
             for seat, text in history_cards.items()}
    hand = Hand(variant=variant, options=Options.from_json(dict(PHH_GAME_OPTIONS)),
                stakes=Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10),
                seats=[SeatSetup(seat=seat, stack=100) for seat in cards], deck=build_deck(cards))
    assert hand.bring_in_seat is not None
    return hand.bring_in_seat


def test_unknown_door_is_filled_so_the_bring_in_stays(tmp_path: Path) -> None:
    # The canonical filler would deal seat 1 2c 2d 2h: the 2h door is lower than the 3d, so seat 1
    # would bring in and seat 2's bring-in would be out of turn.
    assert _naive_bring_in({1: "??????", 2: "4c5c3d", 3: "7h8hKc"}, Variant.STUD_HIGH) == 1
    data = import_text(STUD_UNKNOWN_DOOR, source="door.phh")
    # Doors are tried from the weakest board (the surest to bring in): the first that does not bring
    # in against the 3d (lowest door, ace high, suits break ties, clubs lowest) is the 3s.
    assert data["seats"][1]["cards"] == "?? ?? 3s"
    assert [step["act"] for step in data["steps"]] == ["2 bring_in 2", "3 complete 5", "1 fold", "2 fold"]
    assert "seat 1's door card 3s" in data["note"] and "down cards get the unused cards" in data["note"]
    path = tmp_path / "door.yaml"
    path.write_text(case_yaml(data), encoding="utf-8")
    case = load_case(path)
    assert case.seat_cards is not None and str(case.seat_cards[1][2]) == "3s"
    options = case.options_with(Options())
    assert case.stakes is not None
    hand = Hand(variant=case.variant, options=options, stakes=case.stakes, seats=list(case.seats),
                deck=case.deck_for(options))
    assert hand.bring_in_seat == 2


def test_razz_unknown_door_is_filled_so_the_bring_in_stays() -> None:
    # Razz: the highest door brings in, suits breaking ties. Seat 2's 2c brings in against seat 3's Ad.
    # The canonical filler deals seat 1 2d 2h 2s: the 2s outranks the 2c by suit and would bring in.
    text = HEAD.format(variant="FR") + """actions = [
  "d dh p1 ??????", "d dh p2 8c9c2c", "d dh p3 7h8hAd",
  "p2 pb", "p3 cbr 5", "p1 f", "p2 f",
]
"""
    assert _naive_bring_in({1: "??????", 2: "8c9c2c", 3: "7h8hAd"}, Variant.RAZZ) == 1
    data = import_text(text, source="razz.phh")
    # the lowest razz door, ace low and clubs the lowest suit: the Ac (the Ad is seat 3's)
    assert data["seats"][1]["cards"] == "?? ?? Ac"
    assert [step["act"] for step in data["steps"]][:2] == ["2 bring_in 2", "3 complete 5"]


def test_unknown_door_of_the_seat_that_brings_in() -> None:
    # The history shows seat 1 bringing in with an unknown door: it gets the lowest card, the 2c.
    text = HEAD.format(variant="F7S") + """actions = [
  "d dh p1 ??????", "d dh p2 4c5c3d", "d dh p3 7h8hKc",
  "p1 pb", "p2 f", "p3 cbr 5", "p1 f",
]
"""
    data = import_text(text, source="bring.phh")
    assert data["seats"][1]["cards"] == "?? ?? 2c"
    assert [step["act"] for step in data["steps"]][:1] == ["1 bring_in 2"]


def test_unknown_up_card_that_no_card_can_fill_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Seat 2 shows the 2c, the lowest card there is, yet the history has unknown seat 1 bring in.
    text = HEAD.format(variant="F7S") + """actions = [
  "d dh p1 ??????", "d dh p2 4c5c2c", "d dh p3 7h8hKc",
  "p1 pb", "p2 f", "p3 cbr 5", "p1 f",
]
"""
    path = tmp_path / "impossible.phh"
    path.write_text(text, encoding="utf-8")
    assert main(["import", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "third street: seat 1 cannot bring in as the history has it" in err
    assert "(the lowest door card brings in)" in err and "unknown (??) up cards get (seat 1's door card)" in err
    with pytest.raises(PhhError, match="write the cards in the history"):
        import_text(text, source=str(path))


def test_unknown_fourth_street_card_keeps_the_first_actor() -> None:
    # Seat 1 brings in with the 2h; on fourth street its card is unknown and seat 2 (Ks 4d) acts first.
    # The canonical filler gives seat 1 the 2c: a pair of deuces would act first. The filler must leave
    # seat 2's king high the best board: the lowest card that does not pair the 2h is the 3c.
    text = HEAD.format(variant="F7S") + """actions = [
  "d dh p1 AsAd2h", "d dh p2 QcQdKs", "d dh p3 JcJd9c",
  "p1 pb", "p2 cc", "p3 cc",
  "d dh p1 ??", "d dh p2 4d", "d dh p3 8c",
  "p2 cc", "p3 cc", "p1 cc",
]
"""
    data = import_text(text, source="fourth.phh")
    assert data["seats"][1]["cards"] == "As Ad 2h 3c"
    assert [step["act"] for step in data["steps"]][-3:] == ["2 check", "3 check", "1 check"]
    assert "seat 1's fourth-street card 3c" in data["note"]


def test_unknown_down_cards_only_say_so() -> None:
    text = HEAD.format(variant="F7S") + """actions = [
  "d dh p1 ????Ah", "d dh p2 4c5c3d", "d dh p3 7h8hKc",
  "p2 pb", "p3 cbr 5", "p1 f", "p2 f",
]
"""
    data = import_text(text, source="down.phh")
    assert data["seats"][1]["cards"] == "?? ?? Ah"
    assert "Unknown up cards" not in data["note"] and "may change who wins at showdown" in data["note"]


# --- what the note says about final ---------------------------------------------------------------

RAZZ = Path(__file__).resolve().parent / "data" / "razz-fold-on-sixth.phh"


def test_note_with_finishing_stacks_used() -> None:
    data = import_text(RAZZ.read_text(encoding="utf-8"), source="razz.phh")
    assert data["final"] == {"stacks": {2: 89, 5: 111}}
    assert "final.stacks are the history's finishing_stacks, which the reference engine's replay" in data["note"]


def test_note_without_finishing_stacks() -> None:
    text = RAZZ.read_text(encoding="utf-8").replace("finishing_stacks = [89, 111]", "")
    data = import_text(text, source="razz.phh")
    assert "final" not in data
    assert "the history has no finishing_stacks, so the skeleton has no final" in data["note"]
    assert "final.stacks" not in data["note"]


def test_note_when_the_engine_ends_with_other_stacks() -> None:
    text = RAZZ.read_text(encoding="utf-8").replace("finishing_stacks = [89, 111]", "finishing_stacks = [90, 110]")
    data = import_text(text, source="razz.phh")
    assert "final" not in data
    assert "finishing_stacks are not used and the skeleton has no final" in data["note"]
    assert "ends with stacks [89, 111], the history with [90, 110]" in data["note"]
    assert "final.stacks are" not in data["note"]


def test_note_when_a_disputed_action_becomes_a_reject() -> None:
    text = RAZZ.read_text(encoding="utf-8").replace(
        '"p2 cbr 5 # 6-5 showing is the best low: seat 5 acts first",\n  "p1 cc",', '"p1 cc",')
    data = import_text(text, source="disputed.phh")
    assert "final" not in data
    assert "finishing_stacks are not used and the skeleton has no final" in data["note"]
    assert "refuses actions[7] 'p1 cc'" in data["note"] and "the steps stop there" in data["note"]
    assert "final.stacks are" not in data["note"]
    # without finishing stacks the same refusal says only that there are none
    data = import_text(text.replace("finishing_stacks = [89, 111]", ""), source="disputed.phh")
    assert "the history has no finishing_stacks" in data["note"] and "not used" not in data["note"]


def test_note_when_the_history_stops_early() -> None:
    text = RAZZ.read_text(encoding="utf-8").replace('  "p1 f",\n', "")
    data = import_text(text, source="early.phh")
    assert "final" not in data
    assert "finishing_stacks are not used" in data["note"] and "end before the reference engine's hand" in data["note"]


def test_door_filler_backs_up_when_it_would_act_first_later() -> None:
    # Razz. Seat 2 brings in with an unknown door (it must get the highest door); seat 3's door is
    # unknown too and must not bring in, so the first card tried is the lowest, an ace. But seat 1
    # acts first on fourth street with 7d and an unknown card: seat 3's ace and 5s would be the
    # better low, so the search must come back and give seat 3 a door above seat 1's best board.
    text = HEAD.format(variant="FR") + """actions = [
  "d dh p1 2c??7d", "d dh p2 ??5c??", "d dh p3 ??8c??", "p2 pb", "p3 cc", "p1 cc",
  "d dh p1 ??", "d dh p2 ??", "d dh p3 5s", "p1 cc", "p2 cc", "p3 cc",
]
"""
    data = import_text(text, source="backtrack.phh")
    assert not any("reject" in step for step in data["steps"])
    assert [step["act"] for step in data["steps"]] == [
        "2 bring_in 2", "3 call 2", "1 call 2", "1 check", "2 check", "3 check"]
    # no reject: the engine, replaying the filled deck, has seat 2 bring in and seat 1 act first on
    # fourth street. Seat 3's door is not the Ac tried first (A-5 would beat seat 1's best, 7-A).
    door_3 = parse_card(data["seats"][3]["cards"].split()[2])
    assert door_3.rank.value != 14


def test_no_constraint_on_a_street_nobody_acts_on() -> None:
    # The history stops after the fourth-street cards: nobody is seen acting first there, so seat 1's
    # unknown fourth card keeps nothing and the import does not refuse it (seat 2 brings in with 2c).
    text = HEAD.format(variant="F7S") + """actions = [
  "d dh p1 AhKdQs", "d dh p2 4c5h2c", "d dh p3 4d6d9s", "p2 pb", "p3 cc", "p1 cc",
  "d dh p1 ??", "d dh p2 Td", "d dh p3 3h",
]
"""
    data = import_text(text, source="quiet.phh")
    assert "seat 1's fourth-street card" in data["note"]
    assert [step["act"] for step in data["steps"]] == ["2 bring_in 2", "3 call 2", "1 call 2"]


def test_note_when_filled_down_cards_change_the_winner() -> None:
    # Seat 1's down cards are unknown; the history gives seat 2 (queens) the 6 chips (each paid the
    # ante and 2). The canonical cards give seat 1 2c 2d down (the 2h 2s 3c 3d are the burns, its
    # seventh card the 3h): kings and deuces, so the reference engine gives seat 1 the pot and the
    # note must say the filled cards may be why.
    text = HEAD.format(variant="F7S").replace("[1, 1, 1]", "[1, 1]").replace("[100, 100, 100]", "[100, 100]") + """
actions = [
  "d dh p1 ????Ks", "d dh p2 QcQdJs", "p2 pb", "p1 cc",
  "d dh p1 Kd", "d dh p2 4h", "p1 cc", "p2 cc",
  "d dh p1 9c", "d dh p2 5h", "p1 cc", "p2 cc",
  "d dh p1 8c", "d dh p2 6h", "p1 cc", "p2 cc",
  "d dh p1 ??", "d dh p2 7d", "p1 cc", "p2 cc",
  "p1 sm ????KsKd9c8c??", "p2 sm QcQdJs4h5h6h7d",
]
finishing_stacks = [97, 103]
"""
    data = import_text(text, source="winner.phh")
    assert "final" not in data
    assert "ends with stacks [103, 97], the history with [97, 103]" in data["note"]
    assert "the filled unknown cards may be why" in data["note"]
