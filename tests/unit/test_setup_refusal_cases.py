"""Setup-refusal cases: loading (invalid setup kept as written), lint (the setup must break exactly
the cited setup rules), the schema still strict everywhere else, and coverage counting them."""

from __future__ import annotations

from pathlib import Path

import pytest

from studcheck.cards import FULL_DECK
from studcheck.cases import CaseError, load_case
from studcheck.cases.coverage import coverage, unrefused
from studcheck.cases.lint import lint
from studcheck.cases.load import RuleInfo
from studcheck.cases.refusal import setup_violations
from studcheck.rules import Variant

CANONICAL = [str(card) for card in FULL_DECK]
NINE_SEATS = """\
id: SH-SRF-901
title: Nine seats
rules: [SETUP.PLAYERS]
tags: [setup]
variant: stud_high
setup_refused: {reason: bad_request}
stakes: {ante: 1, bring_in: 2, small_bet: 5, big_bet: 10}
seats:
""" + "".join(f"  {seat}: {{stack: 100}}\n" for seat in range(1, 10))
VALID_SETUP = """\
id: RZ-SRF-902
title: Nothing wrong here
rules: [SETUP.STAKES]
tags: [setup]
variant: razz
setup_refused: {reason: bad_request}
stakes: {ante: 0, bring_in: 1, small_bet: 2, big_bet: 2}
seats: {1: {stack: 100}, 2: {stack: 1}}
"""


def write(tmp_path: Path, text: str, name: str = "case.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def messages(path: Path) -> list[str]:
    return [problem.message for problem in lint([path])]


def test_setup_refused_case_keeps_the_invalid_setup_as_written(tmp_path: Path) -> None:
    case = load_case(write(tmp_path, NINE_SEATS))
    assert case.setup_refused is not None and case.setup_refused.reasons == ("bad_request",)
    assert case.steps == () and case.final is None and case.stakes is None
    assert case.new_hand is not None
    assert case.new_hand["seats"] == [{"seat": seat, "stack": 100} for seat in range(1, 10)]
    assert case.new_hand["stakes"] == {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10}
    assert case.new_hand["deck"] == CANONICAL  # no deck given: the 52 cards in canonical order
    assert case.new_hand["variant"] == "stud_high" and case.variant is Variant.STUD_HIGH
    assert "2 to 8" in case.setup_refused.why
    assert messages(tmp_path / "case.yaml") == []


def test_raw_deck_and_listed_seats_are_sent_verbatim(tmp_path: Path) -> None:
    deck = ["10h" if card == "Th" else card for card in CANONICAL]
    text = NINE_SEATS.split("seats:")[0].replace("SETUP.PLAYERS", "CARDS.NOTATION") + (
        "seats:\n  - {seat: 1, stack: 100}\n  - {seat: 2, stack: 100}\n"
        "deck: [" + ", ".join(deck) + "]\n")
    case = load_case(write(tmp_path, text))
    assert case.new_hand is not None and case.new_hand["deck"] == deck
    assert case.new_hand["seats"] == [{"seat": 1, "stack": 100}, {"seat": 2, "stack": 100}]
    assert messages(tmp_path / "case.yaml") == []


def test_duplicated_seat_fractional_stack_and_reason_list(tmp_path: Path) -> None:
    text = NINE_SEATS.split("seats:")[0].replace("[SETUP.PLAYERS]", "[SETUP.PLAYERS, SETUP.STACKS]").replace(
        "{reason: bad_request}", "{reason: [bad_request, unsupported], why: 'seat 3 twice, stack 2.5'}") + (
        "seats:\n  - {seat: 3, stack: 100}\n  - {seat: 3, stack: 2.5}\n")
    case = load_case(write(tmp_path, text))
    assert case.setup_refused is not None
    assert case.setup_refused.reasons == ("bad_request", "unsupported")
    assert case.setup_refused.why == "seat 3 twice, stack 2.5"
    assert messages(tmp_path / "case.yaml") == []


def test_a_setup_refused_case_whose_setup_is_valid_is_a_lint_error(tmp_path: Path) -> None:
    found = messages(write(tmp_path, VALID_SETUP))
    assert len(found) == 1 and "breaks no setup rule" in found[0]


def test_cited_rules_must_be_exactly_the_broken_setup_rules(tmp_path: Path) -> None:
    # bring_in 2 = small_bet 2 breaks SETUP.STAKES; the stacks are fine; BET.ORDER is no setup rule
    text = VALID_SETUP.replace("bring_in: 1", "bring_in: 2").replace("[SETUP.STAKES]", "[SETUP.STACKS, BET.ORDER]")
    found = messages(write(tmp_path, text))
    assert any("cites only setup rules" in m and "BET.ORDER" in m for m in found)
    assert any("also breaks SETUP.STAKES" in m for m in found)
    assert any("does not break SETUP.STACKS" in m for m in found)


def test_schema_stays_strict_outside_setup_refused_cases(tmp_path: Path) -> None:
    ordinary = NINE_SEATS.replace("setup_refused: {reason: bad_request}\n", "steps: []\n")
    with pytest.raises(CaseError) as caught:
        load_case(write(tmp_path, ordinary))
    assert any("a hand needs 2 to 8 seated players" in p.message for p in caught.value.problems)
    stakes = VALID_SETUP.replace("setup_refused: {reason: bad_request}\n", "steps: []\n").replace("ante: 0", "ante: -1")
    with pytest.raises(CaseError) as caught:
        load_case(write(tmp_path, stakes, "stakes.yaml"))
    assert "stakes.ante: must be at least 0" in caught.value.message


@pytest.mark.parametrize(("change", "expected"), [
    (("id: SH-SRF-901", "id: sh-srf-901"), "an id is upper-case words"),
    (("tags: [setup]", "tags: [setup]\ncolour: red"), "unknown key 'colour'"),
    (("{reason: bad_request}", "{reason: unsupported}"), "must be bad_request, or [bad_request, unsupported]"),
    (("{reason: bad_request}", "{reason: bad_request, extra: 1}"), "unknown key 'extra'"),
    (("  9: {stack: 100}", "  9: {stack: 100, cards: Ah Kh Qh}"), "unknown key 'cards'"),
    (("tags: [setup]", "tags: [setup]\nsteps: [{act: 1 fold}]"), "a setup_refused case has no steps"),
    (("tags: [setup]", "tags: [setup]\nfinal: {rake: 0}"), "final: not allowed in a setup_refused case"),
    (("tags: [setup]", "tags: [setup]\nburns: [2c]"), "burns: not allowed in a setup_refused case"),
    (("ante: 1", "ante: one"), "expected number"),
    (("rules: [SETUP.PLAYERS]", "rules: []"), "rules"),
])
def test_schema_stays_strict_in_setup_refused_cases(tmp_path: Path, change: tuple[str, str], expected: str) -> None:
    assert change[0] in NINE_SEATS
    with pytest.raises(CaseError) as caught:
        load_case(write(tmp_path, NINE_SEATS.replace(*change)))
    assert any(expected in problem.message for problem in caught.value.problems), caught.value.problems


def test_unknown_variant_belongs_to_the_suite_of_its_id_prefix(tmp_path: Path) -> None:
    text = VALID_SETUP.replace("variant: razz", "variant: omaha").replace("bring_in: 1", "bring_in: 0")
    case = load_case(write(tmp_path, text))
    assert case.variant is Variant.RAZZ and case.new_hand is not None and case.new_hand["variant"] == "omaha"
    assert messages(tmp_path / "case.yaml") == []
    with pytest.raises(CaseError, match="ID prefix"):
        load_case(write(tmp_path, text.replace("RZ-SRF-902", "XX-SRF-902"), "other.yaml"))


def test_a_setup_refused_case_counts_as_a_refusal_case_in_coverage(tmp_path: Path) -> None:
    case = load_case(write(tmp_path, NINE_SEATS))
    rules = {"SETUP.PLAYERS": RuleInfo(id="SETUP.PLAYERS", title="t", variants=(Variant.STUD_HIGH, Variant.RAZZ),
                                       refusal=True)}
    assert unrefused(coverage([case], rules)) == [("SETUP.PLAYERS", Variant.RAZZ)]


def setup(**changes: object) -> dict[str, object]:
    base: dict[str, object] = {"variant": "stud_high", "stakes": {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10},
                               "seats": [{"seat": 1, "stack": 100}, {"seat": 2, "stack": 100}],
                               "deck": list(CANONICAL), "remade_stub": None}
    base.update(changes)
    return base


STAKES = {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10}


@pytest.mark.parametrize(("changes", "rules"), [
    ({}, set()),
    ({"stakes": {"ante": 0, "bring_in": 1, "small_bet": 2, "big_bet": 2}}, set()),  # SETUP.STAKES example: valid
    ({"seats": [{"seat": 1, "stack": 100}, {"seat": 2, "stack": 1}]}, set()),  # a stack below the ante is valid
    ({"seats": [{"seat": 1, "stack": 100}]}, {"SETUP.PLAYERS"}),
    ({"seats": [{"seat": n, "stack": 100} for n in range(1, 10)]}, {"SETUP.PLAYERS"}),
    ({"seats": [{"seat": 0, "stack": 100}, {"seat": 2, "stack": 100}]}, {"SETUP.PLAYERS"}),
    ({"seats": [{"seat": 3, "stack": 100}, {"seat": 3, "stack": 100}]}, {"SETUP.PLAYERS"}),
    ({"seats": [{"seat": 1, "stack": 0}, {"seat": 2, "stack": 2.5}]}, {"SETUP.STACKS"}),
    ({"stakes": {**STAKES, "bring_in": 5}}, {"SETUP.STAKES"}),
    ({"stakes": {**STAKES, "big_bet": 4}}, {"SETUP.STAKES"}),
    ({"stakes": {**STAKES, "ante": -1}}, {"SETUP.STAKES"}),
    ({"stakes": {**STAKES, "ante": 0.5}}, {"SETUP.STAKES"}),
    ({"deck": CANONICAL[:51]}, {"SETUP.DECK"}),
    ({"deck": ["As", *CANONICAL[1:]]}, {"SETUP.DECK"}),
    ({"deck": ["10h" if c == "Th" else c for c in CANONICAL]}, {"CARDS.NOTATION"}),
    ({"deck": ["AS" if c == "As" else c for c in CANONICAL]}, {"CARDS.NOTATION"}),
    ({"deck": ["Ah " if c == "Ah" else c for c in CANONICAL]}, {"CARDS.NOTATION"}),
])
def test_setup_violations_name_the_broken_rule(changes: dict[str, object], rules: set[str]) -> None:
    found = setup_violations(setup(**changes))
    assert {item.rule for item in found} == rules


def test_unknown_variant_is_a_violation_of_no_rule() -> None:
    found = setup_violations(setup(variant="omaha"))
    assert [(item.rule, item.field) for item in found] == [(None, "variant")]
