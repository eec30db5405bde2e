"""`show` renders a played hand; `coverage` counts cases per rule and variant; the commands' exit codes."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from studcheck.cases import load_case
from studcheck.commands import cases as commands
from studcheck.cases.coverage import coverage, render_markdown, render_text, uncovered, unrefused
from studcheck.cases.load import RuleInfo
from studcheck.cases.show import render
from studcheck.resources import schema_path
from studcheck.rules import Variant

engine = pytest.importorskip("studcheck.engine")

FOLD_TO_BRING_IN = """\
id: SH-TEST-101
title: Everyone folds to the bring-in
rules: [BRING-IN.ALL-FOLD]
tags: [bring-in]
variant: stud_high
stakes: {ante: 1, bring_in: 2, small_bet: 5, big_bet: 10}
seats:
  1: {stack: 100, cards: Ah Kh 2d}
  2: {stack: 50, cards: Qs Qd 3c}
  3: {stack: 100, cards: 9s 8s Jd}
steps:
  - reject: {act: 2 call, reason: out_of_turn}
  - act: 1 bring_in 2
  - act: 2 fold
  - act: 3 fold
"""

SHOWDOWN = """\
id: RZ-TEST-102
title: Checked down to a showdown
rules: [SHOWDOWN.MUCK]
tags: [showdown]
variant: razz
stakes: {ante: 1, bring_in: 2, small_bet: 5, big_bet: 10}
seats:
  1: {stack: 100, cards: Ah 2d 3s 4h 5c 9d 9s}
  2: {stack: 100, cards: Kc Kd Ks Qh Qc Jd Jc}
steps:
  - act: 2 bring_in 2
  - act: 1 call
  - act: 1 check
  - act: 2 check
  - act: 1 check
  - act: 2 check
  - act: 1 check
  - act: 2 check
  - act: 1 check
  - act: 2 check
  - act: 1 show
  - act: 2 muck
"""


def case_file(tmp_path: Path, text: str, name: str = "case.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_show_fold_to_bring_in(tmp_path: Path) -> None:
    text = render(load_case(case_file(tmp_path, FOLD_TO_BRING_IN)))
    assert text.startswith("SH-TEST-101  Everyone folds to the bring-in\n")
    assert "seat 1 (100), seat 2 (50), seat 3 (100)" in text
    assert "seat 1  [Ah Kh] 2d" in text
    assert "seat 2 call  (refused: out_of_turn)" in text
    lines = text.splitlines()
    bring_in = next(line for line in lines if "seat 1 brings in 2" in line)
    assert bring_in.endswith("pot 5")          # 3 antes + 2
    assert "uncalled 2 returned to seat 1" in text
    # seat 1 wins the three antes: 100 - 1 + 3
    assert "seat 1 102 (+2)" in text and "seat 2 49 (-1)" in text


def test_show_showdown_describes_hands(tmp_path: Path) -> None:
    text = render(load_case(case_file(tmp_path, SHOWDOWN)))
    assert "*** SEVENTH STREET ***" in text and "*** SHOWDOWN ***" in text
    assert "seat 1  [Ah 2d] 3s 4h 5c 9d [9s]" in text
    show_line = next(line for line in text.splitlines() if "seat 1 shows" in line)
    assert "—" in show_line                     # the evaluator's description of A-2-3-4-5
    assert "seat 2 mucks" in text
    # pot: 2 antes + 2 + 2 = 6 to seat 1, who put in 3 of it
    assert "main pot 6" in text and "seat 1 103 (+3)" in text and "seat 2 97 (-3)" in text


def test_show_marks_refused_act_without_traceback(tmp_path: Path) -> None:
    text = render(load_case(case_file(tmp_path, FOLD_TO_BRING_IN.replace("act: 2 fold", "act: 3 fold"))))
    assert "!! line 14: the reference engine refuses 'act: 3 fold': out_of_turn" in text


def test_show_marks_accepted_reject(tmp_path: Path) -> None:
    text = render(load_case(case_file(tmp_path, FOLD_TO_BRING_IN.replace(
        "reject: {act: 2 call, reason: out_of_turn}", "reject: {act: 1 bring_in 2, reason: out_of_turn}"))))
    assert "should be refused (out_of_turn) but the reference engine accepted it" in text


def test_schema_reasons_are_the_engine_reasons() -> None:
    schema = json.loads(schema_path("case").read_text(encoding="utf-8"))
    assert schema["$defs"]["reason"]["enum"] == [reason.value for reason in engine.Reason]


def _rules() -> dict[str, RuleInfo]:
    return {
        "A.ALL": RuleInfo(id="A.ALL", title="every seven-card game",
                          variants=(Variant.STUD_HIGH, Variant.RAZZ, Variant.STUD_HILO8)),
        "B.RAZZ": RuleInfo(id="B.RAZZ", title="razz only", variants=(Variant.RAZZ,)),
    }


def test_coverage_counts_per_applicable_variant(tmp_path: Path) -> None:
    first = load_case(case_file(tmp_path, FOLD_TO_BRING_IN.replace("[BRING-IN.ALL-FOLD]", "[A.ALL]"), "a.yaml"))
    second = load_case(case_file(tmp_path, SHOWDOWN.replace("[SHOWDOWN.MUCK]", "[A.ALL, B.RAZZ]"), "b.yaml"))
    rows = coverage([first, second], _rules())
    assert rows[0].cases == {Variant.STUD_HIGH: ("SH-TEST-101",), Variant.RAZZ: ("RZ-TEST-102",),
                             Variant.STUD_HILO8: ()}
    assert rows[1].cases == {Variant.RAZZ: ("RZ-TEST-102",)}
    assert uncovered(rows) == [("A.ALL", Variant.STUD_HILO8)]
    assert uncovered(rows, Variant.RAZZ) == []
    text = render_text(rows)
    assert "0!" in text and "2 rules, 3/4 rule-variant pairs covered" in text
    markdown = render_markdown(rows, Variant.RAZZ)
    assert "| `B.RAZZ` | 1 | razz only |" in markdown


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    commands.register(sub)
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code


def test_lint_command_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = case_file(tmp_path, FOLD_TO_BRING_IN)
    assert _run(["lint", str(good)]) == 0
    assert capsys.readouterr().out.strip().endswith("1 files, 0 problems")
    bad = case_file(tmp_path, FOLD_TO_BRING_IN.replace("Qs Qd 3c", "Qs Qd 10c").replace("101", "111"),
                    "bad.yaml")
    assert _run(["lint", str(good), str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{bad}:9: ") and out[-1] == "2 files, 1 problem"


def test_show_command_by_id_and_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = case_file(tmp_path, FOLD_TO_BRING_IN)
    assert _run(["show", "sh-test-101", "--cases", str(tmp_path)]) == 0
    assert "SH-TEST-101" in capsys.readouterr().out
    assert _run(["show", str(path)]) == 0
    assert _run(["show", "SH-NOPE-001", "--cases", str(tmp_path)]) == 2
    assert _run(["show", str(tmp_path / "missing.yaml")]) == 2


def test_list_command_filters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case_file(tmp_path, FOLD_TO_BRING_IN, "a.yaml")
    case_file(tmp_path, SHOWDOWN, "b.yaml")
    assert _run(["list", "--cases", str(tmp_path)]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == ["RZ-TEST-102", "SH-TEST-101"]
    _run(["list", "--cases", str(tmp_path), "--variant", "razz"])
    assert capsys.readouterr().out.split()[0] == "RZ-TEST-102"
    _run(["list", "--cases", str(tmp_path), "--rule", "BRING-IN"])
    assert capsys.readouterr().out.split()[0] == "SH-TEST-101"
    _run(["list", "--cases", str(tmp_path), "--tag", "showdown", "--tag", "bring-in"])
    assert capsys.readouterr().out == ""


def test_coverage_command_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case_file(tmp_path, FOLD_TO_BRING_IN)
    assert _run(["coverage", "--cases", str(tmp_path)]) == 1    # most rules have no case here
    out = capsys.readouterr().out
    assert "BRING-IN.ALL-FOLD" in out and "0!" in out


def test_a_rule_that_forbids_needs_a_reject_case_in_each_variant(tmp_path: Path) -> None:
    rules = {
        "R.FORBID": RuleInfo(id="R.FORBID", title="forbids", variants=(Variant.STUD_HIGH, Variant.RAZZ), refusal=True),
    }
    with_reject = load_case(case_file(tmp_path, FOLD_TO_BRING_IN.replace("[BRING-IN.ALL-FOLD]", "[R.FORBID]"), "a.yaml"))
    without_reject = load_case(case_file(tmp_path, SHOWDOWN.replace("[SHOWDOWN.MUCK]", "[R.FORBID]"), "b.yaml"))
    rows = coverage([with_reject, without_reject], rules)
    assert uncovered(rows) == []
    assert unrefused(rows) == [("R.FORBID", Variant.RAZZ)]
    assert "no `reject` or `setup_refused` case yet for: R.FORBID (razz)" in render_text(rows)


def test_show_writes_a_pot_limit_range_as_the_case_does() -> None:
    path = next(Path(__file__).resolve().parents[2].glob("cases/stud_high/big-bet/sh-big-001-*.yaml"))
    text = render(load_case(path))
    assert "legal [fold, call 2, raise 4..12]" in text
    assert "options  betting=pot_limit" in text
