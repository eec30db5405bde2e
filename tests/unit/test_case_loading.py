"""Loading case files: fields, canonical expectation shapes, lines, errors, directory loading."""

from __future__ import annotations

from pathlib import Path

import pytest

from studcheck.cards import FULL_DECK, parse_cards
from studcheck.cases import Case, CaseError, StepKind, load_case, load_cases
from studcheck.cases.load import case_files, rule_index, tag_vocabulary
from studcheck.resources import cases_dir
from studcheck.rules import ActionType, Options, SeatSetup, Stakes, Variant

EXAMPLE = """\
id: SH-BRI-904
title: Equal lowest door cards, suit decides the bring-in
rules: [BRING-IN.CARD.LOW, BRING-IN.TIE.SUIT]
tags: [bring-in, third-street]
variant: stud_high
options: {bring_in_tie: suit}
stakes: {ante: 1, bring_in: 2, small_bet: 5, big_bet: 10}
seats:
  1: {stack: 100, cards: Ah Kh 2d}
  2: {stack: 100, cards: [Qs, Qd, 2c]}
  3: {stack: 100, cards: 9s 8s Jd}
steps:
  - expect: {street: third, to_act: 2, legal: [complete 5, bring_in 2]}
  - reject: {act: 1 call, reason: out_of_turn}
  - act: 2 bring_in 2
  - act: 3 fold
  - expect:
      to_act: 1
      legal: [fold, call 2, complete 5]
      committed: {2: 2}
      pot_total: 5
      folded: [3]
      up: {2: 2c}
      pots: [{amount: 3, eligible: [3, 2, 1]}]
  - act: 1 fold
final:
  pots: [{amount: 3, eligible: [2], winners: {2: 3}}]
  stacks: {1: 99, 2: 102, 3: 99}
  returned: {2: 2}
  showdown_order: []
note: adapted from the contract example
"""


def write(tmp_path: Path, text: str, name: str = "case.yaml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_example_case_fields(tmp_path: Path) -> None:
    case = load_case(write(tmp_path, EXAMPLE))
    assert isinstance(case, Case)
    assert case.id == "SH-BRI-904" and case.line == 1
    assert case.rules == ("BRING-IN.CARD.LOW", "BRING-IN.TIE.SUIT")
    assert case.tags == ("bring-in", "third-street")
    assert case.variant is Variant.STUD_HIGH
    assert case.options == {"bring_in_tie": "suit"}
    assert case.stakes == Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10)
    assert case.seats == tuple(SeatSetup(seat=s, stack=100) for s in (1, 2, 3))
    assert case.deck[:9] == parse_cards("Ah Qs 9s Kh Qd 8s 2d 2c Jd")
    assert sorted(case.deck, key=lambda c: c.index) == list(FULL_DECK)
    assert case.remade_stub is None
    assert case.generated is False and case.note == "adapted from the contract example"


def test_steps_have_kinds_lines_and_canonical_expectations(tmp_path: Path) -> None:
    steps = load_case(write(tmp_path, EXAMPLE)).steps
    assert [s.kind for s in steps] == [StepKind.EXPECT, StepKind.REJECT, StepKind.ACT, StepKind.ACT,
                                       StepKind.EXPECT, StepKind.ACT]
    assert [s.line for s in steps] == [13, 14, 15, 16, 17, 25]
    assert steps[0].expect == {"street": "third", "to_act": 2, "legal": [
        {"action": "bring_in", "amount": 2}, {"action": "complete", "amount": 5}]}
    reject = steps[1]
    assert (reject.seat, reject.action, reject.amount, reject.reason) == (1, ActionType.CALL, None, "out_of_turn")
    assert (steps[2].seat, steps[2].action, steps[2].amount) == (2, ActionType.BRING_IN, 2)
    assert (steps[3].seat, steps[3].action, steps[3].amount) == (3, ActionType.FOLD, None)
    assert steps[4].expect == {
        "to_act": 1,
        "legal": [{"action": "fold"}, {"action": "call", "amount": 2}, {"action": "complete", "amount": 5}],
        "committed": {"2": 2}, "pot_total": 5, "folded": [3], "up": {"2": ["2c"]},
        "pots": [{"amount": 3, "eligible": [1, 2, 3]}],
    }
    assert steps[2].describe() == "act 2 bring_in 2"
    assert steps[1].describe() == "reject 1 call (out_of_turn)"


def test_final_uses_string_seat_keys(tmp_path: Path) -> None:
    final = load_case(write(tmp_path, EXAMPLE)).final
    assert final == {"pots": [{"amount": 3, "eligible": [2], "winners": {"2": 3}}],
                     "stacks": {"1": 99, "2": 102, "3": 99}, "returned": {"2": 2}, "showdown_order": []}


def test_options_with_overrides_only_named_options(tmp_path: Path) -> None:
    case = load_case(write(tmp_path, EXAMPLE.replace("{bring_in_tie: suit}", "{bring_in_tie: seat}")))
    base = Options(max_raises=4)
    full = case.options_with(base)
    assert full.bring_in_tie.value == "seat" and full.max_raises == 4


def test_options_change_the_deck(tmp_path: Path) -> None:
    text = EXAMPLE.replace("Ah Kh 2d}", "Ah Kh 2d 3d}").replace("[Qs, Qd, 2c]}", "[Qs, Qd, 2c, 4d]}")
    text = text.replace("steps:\n", "burns: [7c]\nsteps:\n")
    with_burns = load_case(write(tmp_path, text))
    assert str(with_burns.deck[9]) == "7c" and str(with_burns.deck[10]) == "3d"
    without = load_case(write(tmp_path, text.replace("burns: [7c]\n", "").replace(
        "{bring_in_tie: suit}", "{bring_in_tie: suit, burn_cards: false}")))
    assert str(without.deck[9]) == "3d" and str(without.deck[10]) == "4d"


def test_explicit_deck_and_remade_stub(tmp_path: Path) -> None:
    deck = " ".join(str(c) for c in reversed(FULL_DECK))
    text = EXAMPLE.replace("  1: {stack: 100, cards: Ah Kh 2d}\n  2: {stack: 100, cards: [Qs, Qd, 2c]}\n"
                           "  3: {stack: 100, cards: 9s 8s Jd}\n",
                           "  1: {stack: 100}\n  2: {stack: 100}\n  3: {stack: 100}\n"
                           f"deck: {deck}\nremade_stub: [2c, 3c]\n")
    case = load_case(write(tmp_path, text))
    assert case.deck == tuple(reversed(FULL_DECK))
    assert case.remade_stub == parse_cards("2c 3c")


def test_error_has_path_line_and_every_problem(tmp_path: Path) -> None:
    text = EXAMPLE.replace("9s 8s Jd", "9s 8s 10d").replace("act: 3 fold", "act: 3 fold 5")
    path = write(tmp_path, text)
    with pytest.raises(CaseError) as info:
        load_case(path)
    error = info.value
    assert (error.path, error.line) == (path, 11)
    assert str(error).startswith(f"{path}:11: seats.3.cards: invalid card '10d'")
    assert len(error.problems) >= 1


def test_never_yaml_load_python_tags(tmp_path: Path) -> None:
    path = write(tmp_path, "!!python/object/apply:os.system ['echo hi']\n")
    with pytest.raises(CaseError, match="invalid YAML"):
        load_case(path)


def test_load_cases_walks_directories_sorted_and_collects_errors(tmp_path: Path) -> None:
    write(tmp_path, EXAMPLE.replace("SH-BRI-904", "SH-BRI-902"), "b/two.yaml")
    write(tmp_path, EXAMPLE.replace("SH-BRI-904", "SH-BRI-901"), "a/deep/one.yaml")
    write(tmp_path, "id: [\n", "c/broken.yaml")
    write(tmp_path, EXAMPLE.replace("SH-BRI-904", "SH-BRI-901"), "d/dup.yaml")
    write(tmp_path, "not a case", "notes.txt")
    assert [p.relative_to(tmp_path).as_posix() for p in case_files([tmp_path])] == [
        "a/deep/one.yaml", "b/two.yaml", "c/broken.yaml", "d/dup.yaml"]
    errors: list[CaseError] = []
    cases = load_cases([tmp_path], errors=errors)
    assert [c.id for c in cases] == ["SH-BRI-901", "SH-BRI-902"]
    assert [e.path.name for e in errors] == ["broken.yaml", "dup.yaml"]
    assert "duplicate id SH-BRI-901" in errors[1].message
    with pytest.raises(CaseError, match="invalid YAML"):
        load_cases([tmp_path])


def test_default_loads_the_bundled_cases() -> None:
    files = case_files()
    assert all(cases_dir() in f.parents for f in files)
    errors: list[CaseError] = []
    cases = load_cases(errors=errors)
    assert len(cases) + len(errors) == len(files)
    assert len({c.id for c in cases}) == len(cases)


def test_spec_indexes() -> None:
    rules = rule_index()
    assert rules["BRING-IN.CARD.HIGH"].variants == (Variant.RAZZ,)
    assert "bring-in" in tag_vocabulary()


def test_reject_may_omit_required_amount_but_act_may_not(tmp_path: Path) -> None:
    text = EXAMPLE.replace("  - act: 2 bring_in 2\n", "  - reject: {act: 2 raise, reason: illegal_action}\n"
                                                       "  - act: 2 bring_in 2\n")
    step = load_case(write(tmp_path, text)).steps[2]
    assert (step.kind, step.action, step.amount) == (StepKind.REJECT, ActionType.RAISE, None)
    with pytest.raises(CaseError, match="needs an amount"):
        load_case(write(tmp_path, EXAMPLE.replace("act: 2 bring_in 2", "act: 2 bring_in")))


def test_unknown_seat_reject_for_empty_seat(tmp_path: Path) -> None:
    text = EXAMPLE.replace("  - act: 2 bring_in 2\n", "  - reject: {act: 6 call, reason: unknown_seat}\n"
                                                       "  - act: 2 bring_in 2\n")
    step = load_case(write(tmp_path, text)).steps[2]
    assert (step.seat, step.reason) == (6, "unknown_seat")


def test_readme_example_loads(tmp_path: Path) -> None:
    import re

    readme = (cases_dir() / "README.md").read_text(encoding="utf-8")
    match = re.search(r"## A complete example\n\n```yaml\n(.*?)```", readme, re.S)
    assert match is not None
    case = load_case(write(tmp_path, match.group(1)))
    assert case.id == "SH-BRI-904" and len(case.steps) == 6


def test_yaml_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 9)]
    with pytest.raises(CaseError, match="too large once YAML aliases are expanded"):
        load_case(write(tmp_path, "\n".join(lines) + "\n"))
