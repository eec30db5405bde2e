"""`studcheck lint` on the bad-case corpus: one problem per file, on the right line, saying why."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from studcheck.cases.lint import lint, lint_files

BAD = Path(__file__).resolve().parents[1] / "bad_cases"

# file -> (line, message substring). Lines: every file is the same small hand (comment on line 1,
# id 2, title 3, rules 4, tags 5, variant 6, stakes 7, seats 8, seat 1 on 9, seat 2 on 10, steps 11,
# "act: 1 bring_in 2" on 12, "act: 2 fold" on 13) with one defect; inserted lines shift the rest.
EXPECTED: dict[str, tuple[int, str]] = {
    "wrong_extension.yml": (1, "case files end in .yaml"),
    "amount_on_fold.yaml": (13, "fold takes no amount"),
    "bad_action.yaml": (13, "'2 allin': an action is 'SEAT ACTION [AMOUNT]'"),
    "bad_card_10h.yaml": (10, "invalid card '10h': use T for ten"),
    "bad_card_lowercase.yaml": (10, "ranks are upper case"),
    "bad_id.yaml": (2, "an id is upper-case words joined by '-'"),
    "bad_legal.yaml": (12, "steps[0].expect.legal[1]: 'complete'"),
    "bad_option_value.yaml": (8, "options.max_raises: 5 is not one of: 3, 4"),
    "bad_stakes.yaml": (7, "stakes.bring_in: must be less than the small bet"),
    "community_card.yaml": (11, "community: expected null"),
    "dealt_more_than_listed.yaml": (10, "lists 3 cards but seat 2 is dealt a fourth-street card"),
    "dealt_other_card.yaml": (11, "the fourth-street card is 7h when the steps are played, not 6c"),
    "deck_51_cards.yaml": (11, "deck has 51 cards, a deck is all 52 (missing: As)"),
    "deck_and_cards.yaml": (9, "seats.1.cards: not allowed together with deck"),
    "duplicate_card.yaml": (10, "card Ah is dealt twice: seat 1's first down card and seat 2's second down card"),
    "duplicate_card_burn.yaml": (11, "card Qd is dealt twice: seat 2's second down card and the burn before fourth street"),
    "duplicate_id_a.yaml": (2, "duplicate id BAD-DUP-001 (also at " + str(BAD / "duplicate_id_b.yaml") + ":3)"),
    "duplicate_id_b.yaml": (3, "duplicate id BAD-DUP-001 (also at " + str(BAD / "duplicate_id_a.yaml") + ":2)"),
    "duplicate_yaml_key.yaml": (7, "duplicate key 'variant' (first on line 6)"),
    "empty.yaml": (1, "empty file"),
    "fractional_stack.yaml": (10, "seats.2.stack: expected integer"),
    "generated_without_tag.yaml": (7, "`generated: true` and the tag `generated` go together"),
    "id_variant_mismatch.yaml": (2, "starts with RZ but the variant is stud_high"),
    # `id: |` adds a line break the schema's `$` lets through; it would become file names with one in both exports
    "id_final_newline.yaml": (1, "id: 'SH-BAD-991\\n' is not an ID: capital letters, digits and dashes only"),
    # expectations no engine can meet: ranges, streets and options of another betting or variant
    "range_downwards.yaml": (15, "legal: raise 9..4 runs downwards: a range is min..max with min <= max"),
    "two_ranges.yaml": (15, "legal: raise is listed 2 times with a range: one range holds every amount of its kind"),
    "range_in_fixed_limit.yaml": (13, "legal: raise 5..10 is a range, and only pot and no limit have ranges"),
    "street_not_in_variant.yaml": (13, "street: second is not a street of stud_high (third, fourth, fifth, sixth, seventh"),
    "sixth_street_five_card.yaml": (13, "street: sixth is not a street of five_card_stud (second, third, fourth, fifth,"),
    "limit_option_in_big_bet.yaml": (7, "options.max_raises: only fixed-limit betting has it (BIGBET.NO-CAP, "
                                        "BIGBET.NO-DOUBLE); a no_limit case must not name it"),
    "lone_street.yaml": (9, "only seat 1 is dealt fourth street"),
    "missing_amount.yaml": (12, "'1 bring_in' needs an amount"),
    "missing_key.yaml": (2, "missing key 'stakes'"),
    "not_mapping.yaml": (2, "found a list"),
    "not_yaml.yaml": (11, "invalid YAML"),
    "one_seat.yaml": (8, "a hand needs 2 to 8 seated players, got 1"),
    "protocol_reason.yaml": (12, "'bad_request' is a protocol-level reason"),
    "remade_stub_without_deck.yaml": (11, "remade_stub: needs an explicit deck"),
    "rule_wrong_variant.yaml": (4, "BET.FIRST-ACTOR.LOW does not apply to stud_high"),
    "retired_id.yaml": (2, "id SH-ODD-007 is retired (2026-12-01: community ace in one flush"),
    "retired_rule.yaml": (4, "'ALLIN.CUMULATIVE' is retired (2026-12-01: replaced by ALLIN.REOPEN.PER-PLAYER"),
    "seat_nine.yaml": (10, "9 is not a seat number (1 to 8) in stud_high"),
    "seat_without_cards.yaml": (10, "seats.2: no cards"),
    "short_stub_per_seat.yaml": (8, "8 players reach seventh street with 1 card left in the stub, fewer than the 10 needed"),
    "tab_indent.yaml": (10, "YAML does not allow tabs for indentation"),
    "too_few_cards.yaml": (10, "seats.2.cards: 2 cards listed"),
    "too_many_burns.yaml": (11, "burns: 1 burn card listed but this deal burns only 0"),
    "too_many_cards.yaml": (9, "seats.1.cards: 8 cards listed"),
    "two_documents.yaml": (15, "one case per file: found 2 YAML documents"),
    "two_kinds_step.yaml": (13, "a step has exactly one of act, reject, expect (found: act, expect)"),
    "unknown_expect_key.yaml": (13, "steps[1].expect: unknown key 'pot'"),
    "unknown_key.yaml": (7, "unknown key 'author'"),
    "unknown_option.yaml": (8, "options: unknown key 'raise_cap'"),
    "unknown_rule.yaml": (6, "unknown rule id 'BET.ORDR'"),
    "unknown_seat_but_seated.yaml": (12, "reason unknown_seat but seat 2 is seated"),
    "unknown_tag.yaml": (5, "unknown tag 'bettin'"),
    "unquoted_wildcard.yaml": (10, "a card list starting with ?? must be quoted"),
    "unquoted_wildcard_end.yaml": (10, "quote a card list with ?? inside {...}"),
    "unseated_act.yaml": (13, "steps[1]: seat 5 is not seated (seated: 1 2)"),
    "unseated_expect.yaml": (14, "steps[2].expect.stacks: seat 4 is not seated"),
    "unseated_reject.yaml": (12, "seat 7 is not seated, so the reason can only be unknown_seat"),
    "winners_as_high_low.yaml": (16, "final.pots[0].high: stud_high pots are awarded as winners, not high"),
    "wrong_reason.yaml": (12, "'not_your_turn' is not one of: hand_over"),
    # a seat written both ways: YAML reads two keys, and the later one would silently win
    "seat_twice.yaml": (11, "seat 2 is given twice (as 2 and '2'), first on line 10"),
    "seat_twice_in_winners.yaml": (17, 'seat 1 is given twice (as 1 and "1")'),
    # final amounts no engine can produce (chips are only moved: final stacks + rake = starting stacks)
    "final_stacks_sum.yaml": (15, "final.stacks: the stacks of all seats add up to 201, but the starting stacks add "
                                  "up to 200: antes and bets only move chips, so the final stacks must add up to 200"),
    "final_stacks_listed_sum.yaml": (16, "final.stacks: the listed seats end with 201 chips, but the starting stacks "
                                         "of all seats add up to 200, so only 200 chips are in play"),
    "final_stacks_rake_range.yaml": (16, "the rake (rake_percent 5, no final.rake) is 0 to 10: the final stacks must "
                                         "add up to 190 to 200"),
    "final_rake_too_large.yaml": (16, "final.rake: 2, but the rake is at most 1 (rake_percent 5, rake_cap 1, "
                                      "200 chips in play)"),
    "pot_winners_sum.yaml": (16, "final.pots[0]: the winners get 3, but the pot's amount is 2"),
    "hilo_halves_sum.yaml": (16, "final.pots[0]: the high and low halves pay out 1 + 2 = 3, but the pot's amount is 2"),
    # YAML 1.1 reads these otherwise than the author meant
    "octal_stack.yaml": (9, "`0100` is read by YAML 1.1 as the octal number 64; write 100"),
    "yes_boolean.yaml": (7, "`yes` is read as the boolean true; write true (or quote it if you meant a string)"),
    "y_boolean.yaml": (7, "`y` is the boolean true in YAML 1.1 (this parser reads it as a string, others as true): "
                          "write true, or quote it ('y') if you meant a string"),
    "sexagesimal.yaml": (15, "`2:59` is read by YAML 1.1 as the base-60 (sexagesimal) number 179: for a key and a "
                             "value put a space after the colon (2: 59)"),
    "colon_without_space.yaml": (15, "`1:101` is read as one key with no value: put a space after the colon (1: 101)"),
    "merge_key.yaml": (10, "merge keys (<<) are not allowed in case files: write the keys out"),
    "nesting_too_deep.yaml": (14, "nesting too deep: more than 32 levels of mappings and lists"),
    "unknown_variant.yaml": (6, "variant: 'omaha' is not a variant; the variants and their ID prefixes are "
                                "stud_high (SH-...), razz (RZ-...), stud_hilo8 (HL-...)"),
    "rule_prefix.yaml": (4, "rules: 'BRING-IN' is a prefix of rule ids, not a rule: cite the rules the case tests "
                            "(BRING-IN."),
}


ENGINE_CHECKS = {"dealt_more_than_listed.yaml", "dealt_other_card.yaml"}


def _engine_available() -> bool:
    try:
        import studcheck.engine  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(scope="module")
def corpus() -> tuple[list[Path], dict[str, list[tuple[int, str]]]]:
    files, problems = lint_files([BAD])
    by_file: dict[str, list[tuple[int, str]]] = {}
    for problem in problems:
        by_file.setdefault(problem.path.name, []).append((problem.line, problem.message))
    return files, by_file


def test_every_corpus_file_has_an_expectation() -> None:
    on_disk = {path.name for path in BAD.iterdir() if path.suffix in (".yaml", ".yml")}
    assert on_disk == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_case_gives_exactly_the_expected_problem(
    name: str, corpus: tuple[list[Path], dict[str, list[tuple[int, str]]]]
) -> None:
    if name in ENGINE_CHECKS and not _engine_available():
        pytest.skip("the deal check plays the steps on the reference engine")
    line, text = EXPECTED[name]
    found = corpus[1].get(name, [])
    assert len(found) == 1, found
    assert found[0][0] == line, found
    assert text in found[0][1], found


def test_no_message_prints_a_python_value(corpus: tuple[list[Path], dict[str, list[tuple[int, str]]]]) -> None:
    """Messages speak YAML (null, true), never Python (None, True)."""
    for name, found in corpus[1].items():
        for line, message in found:
            assert not re.search(r"\b(None|True|False)\b", message), (name, line, message)


def test_problem_text_is_file_colon_line_colon_message() -> None:
    problems = lint([BAD / "bad_card_10h.yaml"])
    assert [str(p) for p in problems] == [
        f"{BAD / 'bad_card_10h.yaml'}:10: seats.2.cards: invalid card '10h': use T for ten (e.g. 'Th')"]


def test_missing_path_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    problems = lint([tmp_path / "nope.yaml"])
    assert len(problems) == 1 and "no such file" in problems[0].message


def test_valid_case_is_clean(tmp_path: Path) -> None:
    path = tmp_path / "good.yaml"
    path.write_text(
        "id: SH-TEST-001\ntitle: fold to the bring-in\nrules: [BRING-IN.ALL-FOLD]\ntags: [bring-in]\n"
        "variant: stud_high\nstakes: {ante: 1, bring_in: 2, small_bet: 5, big_bet: 10}\n"
        "seats:\n  1: {stack: 100, cards: Ah Kh 2d}\n  2: {stack: 100, cards: Qs Qd 3c}\n"
        "steps:\n  - act: 1 bring_in 2\n  - act: 2 fold\n", encoding="utf-8")
    assert lint([tmp_path]) == []


def test_a_file_that_crashes_the_loader_is_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import studcheck.cases.load as load

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(load, "parse_yaml", boom)
    path = tmp_path / "x.yaml"
    path.write_text("id: X-1\n", encoding="utf-8")
    problems = lint([path])
    assert len(problems) == 1 and "internal error" in problems[0].message and "kaboom" in problems[0].message
