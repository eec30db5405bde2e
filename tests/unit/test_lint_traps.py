"""YAML 1.1 traps, keys given twice, deep nesting, chip arithmetic and `run --cases` refusing what lint refuses.

The bad-case corpus (tests/bad_cases, test_lint.py) has one file per problem; these tests cover the
variants of each problem at the loader level, where the line numbers are made.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from studcheck.cases import source
from studcheck.cases.lint import lint, lint_cases
from studcheck.cases.source import MAX_DEPTH, SourceError, parse_yaml, show, to_json_view
from studcheck.cli import main

BAD = Path(__file__).resolve().parents[1] / "bad_cases"

GOOD = (
    "id: SH-TEST-001\ntitle: fold to the bring-in\nrules: [BRING-IN.ALL-FOLD]\ntags: [bring-in]\n"
    "variant: stud_high\nstakes: {ante: 1, bring_in: 2, small_bet: 5, big_bet: 10}\n"
    "seats:\n  1: {stack: 100, cards: Ah Kh 2d}\n  2: {stack: 100, cards: Qs Qd 3c}\n"
    "steps:\n  - act: 1 bring_in 2\n  - act: 2 fold\n"
)


def _error(text: str) -> SourceError:
    with pytest.raises(SourceError) as caught:
        parse_yaml(text)
    return caught.value


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("a: 1\nb: 0100\n", 2, "`0100` is read by YAML 1.1 as the octal number 64; write 100"),
        ("a: [1, -0_12]\n", 1, "`-0_12` is read by YAML 1.1 as the octal number -10; write -12"),
        ("a: 00\n", 1, "`00` is read by YAML 1.1 as the octal number 0; write 0"),
        ("a:\n  b: YES\n", 2, "`YES` is read as the boolean true; write true (or quote it if you meant a string)"),
        ("a: Off\n", 1, "`Off` is read as the boolean false; write false (or quote it if you meant a string)"),
        ("a: {on: 1}\n", 1, "`on` is read as the boolean true"),
        ("a: [x, N]\n", 1, "`N` is the boolean false in YAML 1.1 (this parser reads it as a string, others as false)"),
        ("a: yEs\n", 1, "`yEs` looks like the boolean true (yes, no, on and off are booleans in YAML 1.1)"),
        ("a: 1:30\n", 1, "`1:30` is read by YAML 1.1 as the base-60 (sexagesimal) number 90: for a key and a value "
                         "put a space after the colon (1: 30); for a string, quote it ('1:30')"),
        ("a: 1:30.5\n", 1, "`1:30.5` is read by YAML 1.1 as the base-60 (sexagesimal) number 90.5"),
        ("s: {3:30}\n", 1, "`3:30` is read by YAML 1.1 as the base-60 (sexagesimal) number 210"),
        ("s: {3:99}\n", 1, "`3:99` is read as one key with no value: put a space after the colon (3: 99)"),
        ("s:\n  3: 1\n  '3': 2\n", 3, "seat 3 is given twice (as 3 and '3'), first on line 2: YAML reads them as "
                                      "two different keys, and in the case the later one would silently win"),
        ("s: {'3': 1, 3: 2}\n", 1, "seat 3 is given twice (as '3' and 3), first on line 1"),
        ("s: {\"3\": 1, '3': 2}\n", 1, "seat 3 is given twice (as \"3\" and '3'), first on line 1"),
        ("s: {1: a, 1.0: b}\n", 1, "the same key is given twice (as 1 and 1.0), first on line 1"),
        ("s:\n  null: 1\n  'null': 2\n", 3, "the same key is given twice (as null and 'null'), first on line 2"),
        ("a: 1\na: 2\n", 2, "duplicate key 'a' (first on line 1)"),
        ("x: &a {b: 1}\nz:\n  <<: *a\n", 3, "merge keys (<<) are not allowed in case files: write the keys out"),
        ("a: " + "[" * 400 + "]" * 400 + "\n", 1, f"nesting too deep: more than {MAX_DEPTH} levels"),
        ("".join("  " * depth + "k:\n" for depth in range(400)), MAX_DEPTH + 1, "nesting too deep"),
    ],
)
def test_trap_is_refused_at_its_line(text: str, line: int, message: str) -> None:
    error = _error(text)
    assert (error.line, message in error.message) == (line, True), (error.line, error.message)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: 'yes'", "yes"), ('a: "0100"', "0100"), ("a: '1:30'", "1:30"), ("a: |\n  yes\n", "yes\n"),
        ("a: 0", 0), ("a: 100", 100), ("a: true", True), ("a: False", False), ("a: ~", None), ("a: 'y'", "y"),
        ("a: ya", "ya"), ("a: 1: 30", None),
    ],
)
def test_what_is_meant_loads(text: str, value: object) -> None:
    if text == "a: 1: 30":  # a mapping value on the same line is invalid YAML, not a trap
        assert "invalid YAML" in _error(text).message
        return
    assert parse_yaml(text)[0][1] == {"a": value}


def test_seat_keys_written_once_each_way_load() -> None:
    data = parse_yaml("s: {1: 10, '2': 20}\n")[0][1]
    assert to_json_view(data) == {"s": {"1": 10, "2": 20}}


def test_nesting_through_aliases_is_refused_not_a_crash() -> None:
    inner = "[" * 25 + "1" + "]" * 25
    text = f"a: &x {inner}\nb: &y {'[' * 25}*x{']' * 25}\nc: {'[' * 25}*y{']' * 25}\n"
    data = parse_yaml(text)[0][1]  # each anchor alone is shallow enough
    with pytest.raises(SourceError, match="nesting too deep once YAML aliases are expanded"):
        to_json_view(data)


def test_a_recursing_parser_reports_the_deep_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pure-Python composer (no libyaml) recurses; its RecursionError becomes file:line too."""

    def recurse(self: object) -> None:
        raise RecursionError

    monkeypatch.setattr(source._LineLoader, "get_node", recurse)
    text = "a: 1\nb:\n" + "".join("  " * depth + "- \n" for depth in range(1, 60))
    error = _error(text)
    assert error.line == MAX_DEPTH + 2 and "nesting too deep" in error.message


def test_show_speaks_yaml() -> None:
    assert [show(None), show(True), show("x"), show([None, {1: False}])] == ["null", "true", "'x'", "[null, {1: false}]"]
    assert len(show(list(range(100)))) == 60 and show(list(range(100))).endswith("...")


def test_type_errors_say_null_not_none(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(GOOD.replace("title: fold to the bring-in", "title:"), encoding="utf-8")
    assert [(p.line, p.message) for p in lint([path])] == [(2, "title: expected string, got null")]
    path.write_text(GOOD.replace("tags: [bring-in]", "tags: {a: 1}"), encoding="utf-8")
    assert [(p.line, p.message) for p in lint([path])] == [(4, "tags: expected list, got mapping {a: 1}")]


def test_unknown_variant_with_unknown_prefix_lists_the_variants(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(GOOD.replace("SH-TEST-001", "XX-TEST-001").replace("stud_high", "seven_card"), encoding="utf-8")
    assert [(p.line, p.message) for p in lint([path])] == [
        (5, "variant: 'seven_card' is not a variant; the variants and their ID prefixes are stud_high (SH-...), "
            "razz (RZ-...), stud_hilo8 (HL-...), five_card_stud (FS-...)")]


@pytest.mark.parametrize(
    ("final", "message"),
    [
        ("final:\n  stacks: {1: 101, 2: 99}\n", None),  # 200 in, 200 out
        ("final:\n  stacks: {1: 101}\n", None),  # one seat listed: only "at most 200" is certain
        ("final:\n  stacks: {1: 101, 2: 98}\n", "add up to 199, but the starting stacks add up to 200"),
        ("final:\n  rake: 1\n  stacks: {1: 100, 2: 99}\n", "final.rake: 1, but there is no rake (rake_percent 0)"),
        ("final:\n  pots: [{amount: 2, winners: {1: 2}}]\n", None),
        ("final:\n  pots: [{amount: 2, winners: {1: 1}}]\n", "the winners get 1, but the pot's amount is 2"),
        ("final:\n  pots: [{winners: {1: 9}}]\n", None),  # no amount: nothing certain to compare with
    ],
)
def test_chip_arithmetic(tmp_path: Path, final: str, message: str | None) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(GOOD + final, encoding="utf-8")
    found = [p.message for p in lint([path])]
    if message is None:
        assert found == []
    else:
        assert len(found) == 1 and message in found[0], found


@pytest.mark.parametrize(
    ("options", "final", "message"),
    [
        # rake_percent 10, no final.rake: the rake is 0 to floor(200 x 10 / 100) = 20
        ("{rake_percent: 10}", "stacks: {1: 101, 2: 99}", None),
        ("{rake_percent: 10}", "stacks: {1: 90, 2: 90}", None),
        ("{rake_percent: 10}", "stacks: {1: 90, 2: 89}", "must add up to 180 to 200"),
        ("{rake_percent: 10, rake_cap: 3}", "stacks: {1: 99, 2: 97}", "must add up to 197 to 200"),
        ("{rake_percent: 10}", "{rake: 5, stacks: {1: 100, 2: 95}}", None),
        ("{rake_percent: 10}", "{rake: 5, stacks: {1: 101, 2: 99}}", "and the rake is 5: antes and bets only move "
                                                                     "chips, so the final stacks must add up to 195"),
        ("{rake_percent: 10}", "{rake: 5, stacks: {1: 196}}", "only 195 chips are in play after the rake of 5"),
        ("{rake_percent: 10}", "{rake: 21}", "the rake is at most 20 (rake_percent 10, 200 chips in play)"),
    ],
)
def test_chip_arithmetic_with_rake(tmp_path: Path, options: str, final: str, message: str | None) -> None:
    path = tmp_path / "c.yaml"
    body = f"final:\n  {final}\n" if final.startswith("stacks") else f"final: {final}\n"
    path.write_text(GOOD.replace("variant: stud_high\n", f"variant: stud_high\noptions: {options}\n") + body,
                    encoding="utf-8")
    found = [p.message for p in lint([path])]
    if message is None:
        assert found == []
    else:
        assert len(found) == 1 and message in found[0], found


def test_hilo_half_alone_may_not_exceed_the_pot(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    text = GOOD.replace("stud_high", "stud_hilo8").replace("SH-", "HL-")
    path.write_text(text + "final:\n  pots: [{amount: 2, high: {1: 1}}]\n", encoding="utf-8")
    assert lint([path]) == []  # the low half is not listed: it may hold the other chip
    path.write_text(text + "final:\n  pots: [{amount: 2, high: {1: 3}}]\n", encoding="utf-8")
    assert [(p.line, p.message) for p in lint([path])] == [
        (14, "final.pots[0]: the high half alone pays out 3, but the pot's amount is 2: a pot is paid out in full "
             "(its amount is what is left after any rake)")]


def test_lint_cases_returns_the_cases_it_loaded() -> None:
    cases, problems = lint_cases([BAD / "rule_prefix.yaml", BAD / "octal_stack.yaml"])
    assert [case.id for case in cases] == ["BAD-LINT-125"]  # the rule prefix loads; lint still refuses it
    assert [(p.path.name, p.line) for p in problems] == [("rule_prefix.yaml", 4), ("octal_stack.yaml", 9)]


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("rule_prefix.yaml", ":4: rules: 'BRING-IN' is a prefix of rule ids, not a rule"),
        ("final_stacks_sum.yaml", ":15: final.stacks: the stacks of all seats add up to 201"),
        ("octal_stack.yaml", ":9: `0100` is read by YAML 1.1 as the octal number 64; write 100"),
    ],
)
def test_run_refuses_a_case_lint_refuses(name: str, where: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--in-process", "--no-progress", "--cases", str(BAD / name)])
    out, err = capsys.readouterr()
    assert code == 2
    assert "nothing was run" in err and f"{BAD / name}{where}" in err, err
    assert out == ""


def test_run_still_runs_a_clean_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(GOOD + "final:\n  stacks: {1: 101, 2: 99}\n", encoding="utf-8")
    assert main(["run", "--in-process", "--no-progress", "--cases", str(path)]) == 0
    assert "1 cases, 1 applicable" in capsys.readouterr().out
