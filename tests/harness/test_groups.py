"""Failing cases grouped by first divergence (harness/groups.py): the keys, and `studcheck run` showing
them everywhere (terminal, JSONL, JUnit, Markdown), --write-xfail, --maxfail and -x.

The broken engine is tests/engines/bring_in_option.py: one early deviation (the bring-in gets an
option when everyone calls) that fails dozens of cases at different steps; they must read as one
cause. Its runs go through a real subprocess, once per module where the tests only read the output.
"""

from __future__ import annotations

import contextlib
import io
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from junitparser import JUnitXml

from harness_helpers import CASES, engine, harness_main
from test_engines import read_report  # every report line checked against report.schema.json
from studcheck.harness.compare import Mismatch
from studcheck.harness.groups import Cause, case_divergence, group_verdicts, main_difference, normal_field, shape
from studcheck.harness.runner import Outcome, Verdict
from studcheck.harness.xfail import parse_xfail

STREET = "street: expected 'fourth', got 'third'"
RULE = "BRING-IN.CALLED-ROUND-ENDS"  # the one rule tests/engines/bring_in_option.py breaks
TITLE = f"{RULE}: street expected 'fourth', got 'third'"  # how the terminal and --write-xfail name the cause
SUITE = Path(__file__).resolve().parents[2] / "cases"
#: 38 Razz cases of which bring_in_option fails 27 at different steps (as an expect step sees it, or as a
#: refused action), RZ-BRI-007 citing the rule it breaks; the whole Razz suite (94 failing) says nothing
#: more about grouping and costs 4 times as much
PICKED = (*(str(SUITE / "razz" / part) for part in ("all-in", "betting", "refusals", "dealing")),
          str(SUITE / "razz" / "bring-in" / "rz-bri-007-all-call-no-option.yaml"))
BROKEN = ("run", "--engine", engine("bring_in_option"), "--cases", *PICKED)


def run_quietly(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = harness_main(argv)
    return code, out.getvalue()


@dataclass(frozen=True, kw_only=True)
class BrokenRun:
    code: int
    out: str
    report: list[dict[str, Any]]
    junit: Path
    markdown: str
    xfail: Path


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokenRun]:
    where = tmp_path_factory.mktemp("broken")
    report, junit, markdown, xfail = where / "r.jsonl", where / "r.xml", where / "r.md", where / "known.yaml"
    code, out = run_quietly(*BROKEN, "--report", str(report), "--junit", str(junit), "--markdown", str(markdown),
                            "--write-xfail", str(xfail))
    yield BrokenRun(code=code, out=out, report=read_report(report), junit=junit, markdown=markdown.read_text(), xfail=xfail)


# --- one early deviation, one cause ---------------------------------------------------------------


def test_one_early_deviation_is_one_big_group(broken: BrokenRun) -> None:
    groups = [line for line in broken.report if line["kind"] == "group"]
    failing = [line for line in broken.report if line["kind"] == "case" and line["outcome"] == "fail"]
    assert broken.code == 1 and len(failing) >= 24, len(failing)
    assert groups[0]["key"] == STREET and groups[0]["rank"] == 1
    assert groups[0]["count"] == len(failing) == sum(group["count"] for group in groups)
    assert sorted(groups[0]["cases"]) == sorted(line["id"] for line in failing)
    # the cases saw it differently (an expect step, a refused action); the group says why
    forms = {form["key"]: form["count"] for form in groups[0]["forms"]}
    assert forms[STREET] > 0 and forms["a legal action refused: out_of_turn"] > 0
    assert groups[0]["replay"].endswith(f"--id {groups[0]['representative']}")
    assert groups[0]["representative"] in groups[0]["cases"]
    assert {rule["id"] for rule in groups[0]["rules"]} >= {RULE}  # what the cases cite: context only
    assert groups[0]["blame"][0] == RULE
    # every failing case line names its rule and its cause (added when the run is over)
    assert all(line["blame"][0] == RULE and line["cause"] == 1 for line in failing)
    passing = [line for line in broken.report if line["kind"] == "case" and line["outcome"] == "pass"]
    assert passing and all("blame" not in line and "cause" not in line for line in passing)


def test_terminal_shows_the_causes_after_the_failures_before_the_table(broken: BrokenRun) -> None:
    count = next(line["count"] for line in broken.report if line["kind"] == "group")
    example = next(line["representative"] for line in broken.report if line["kind"] == "group")
    heading = f"{count} failing cases, 1 cause (by first divergence and the rule it breaks, largest first):"
    assert heading in broken.out
    causes = broken.out[broken.out.index(heading):]
    assert broken.out.rindex("\nFAIL ") < broken.out.index(heading) < broken.out.index("variant ")
    assert f"\ncause 1 — {RULE}: street expected 'fourth', got 'third' — {count} cases\n" in causes
    assert f"e.g. {example} at cases/razz/" in causes  # relative to the cases folder
    assert "cases cite: " in causes and "\x1b[" not in broken.out  # no colour off a terminal
    assert "  cause 1 — " in broken.out[:broken.out.index(heading)]  # each failing case names its cause
    assert "  follows from cause 1 — " in broken.out  # a refused action that only follows from it
    assert f"replay: studcheck run --engine {engine('bring_in_option')}{''.join(f' --cases {path}' for path in PICKED)} --id {example}" in causes.replace("'", "")
    assert "first seen by the cases as: " in causes and "a legal action refused: out_of_turn" in causes


def test_junit_carries_the_group(broken: BrokenRun) -> None:
    JUnitXml.fromfile(str(broken.junit))  # parses
    root = ET.parse(broken.junit).getroot()
    failing = [case for case in root.iter("testcase") if case.find("failure") is not None]
    assert failing
    for case in failing:
        values = {prop.get("name"): prop.get("value") for prop in case.iter("property")}
        assert values["studcheck.group"] == STREET and values["studcheck.group.rank"] == "1"
        assert values["studcheck.blame"].split(", ")[0] == RULE
    passing = [case for case in root.iter("testcase") if case.find("failure") is None]
    assert passing and all(case.find("properties") is None for case in passing)
    suite = {prop.get("name"): prop.get("value") for prop in root.find("testsuite").find("properties")}  # type: ignore[union-attr]
    assert suite["studcheck.group.1"].startswith(f"{len(failing)} of {len(failing)} failing cases: {RULE}: {STREET} (e.g. ")


def test_markdown_has_the_causes_table(broken: BrokenRun) -> None:
    assert "### 1 cause of failure (by first divergence and the rule it breaks)" in broken.markdown
    assert f"| 1 | **{RULE}** | " in broken.markdown and "| street expected 'fourth', got 'third' |" in broken.markdown
    assert "(`cases/razz/" in broken.markdown
    assert broken.markdown.index("cause of failure") < broken.markdown.index("failing\n")


def test_write_xfail_then_the_next_run_passes(broken: BrokenRun) -> None:
    text = broken.xfail.read_text()
    assert text.startswith("# Expected failures of ") and "--write-xfail" in text.splitlines()[0]
    entries = parse_xfail(text)
    failing = {line["id"] for line in broken.report if line["kind"] == "case" and line["outcome"] == "fail"}
    assert set(entries) == failing and set(entries.values()) == {TITLE}
    assert f"wrote {len(failing)} expected failures to {broken.xfail}" in broken.out
    code, out = run_quietly(*BROKEN, "--xfail", str(broken.xfail))
    assert code == 0, out
    assert "failing case" not in out and "xfail" in out
    # the expected failures are grouped into causes too, apart from the failures
    assert f"{len(failing)} expected failures in 1 cause:\nexpected cause 1 — {TITLE} — {len(failing)} cases" in out


def test_write_xfail_keeps_the_reasons_already_given(tmp_path: Path, broken: BrokenRun) -> None:
    first = sorted(parse_xfail(broken.xfail.read_text()))[0]
    listed = tmp_path / "listed.yaml"
    listed.write_text(f"- {{id: {first}, reason: issue 12}}\n")
    again = tmp_path / "again.yaml"
    code, _ = run_quietly(*BROKEN, "--xfail", str(listed), "--write-xfail", str(again))
    entries = parse_xfail(again.read_text())
    assert code == 1 and entries[first] == "issue 12"
    assert set(entries) == set(parse_xfail(broken.xfail.read_text()))
    assert "# 1 listed before and still failing" in again.read_text()


# --- --maxfail and -x ----------------------------------------------------------------------------


@pytest.mark.parametrize(("flags", "maxfail"), [(["-x"], 1), (["--maxfail", "3"], 3)])
def test_maxfail_stops_early_and_closes_the_reports(run_harness, tmp_path: Path, flags: list[str], maxfail: int) -> None:  # type: ignore[no-untyped-def]
    report, junit = tmp_path / "r.jsonl", tmp_path / "r.xml"
    code, out, _ = run_harness(*BROKEN, *flags, "--report", str(report), "--junit", str(junit))
    lines = read_report(report)
    cases = [line for line in lines if line["kind"] == "case"]
    assert code == 1
    assert [line["outcome"] for line in cases].count("fail") == maxfail and cases[-1]["outcome"] == "fail"
    stopped = lines[-1]["stopped"]
    assert stopped["maxfail"] == maxfail and stopped["not_run"] > 0
    assert lines[-1]["counts"]["fail"] == maxfail and lines[-1]["exit_code"] == 1
    assert f"stopped early after {maxfail} failing case" in out and f"{stopped['not_run']} cases not run" in out
    root = ET.parse(junit).getroot()
    assert int(root.get("tests", "0")) == len(cases) and int(root.get("failures", "0")) == maxfail
    assert any(prop.get("name") == "studcheck.stopped" for prop in root.iter("property"))


def test_a_run_that_is_not_stopped_says_nothing_about_it(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    report = tmp_path / "r.jsonl"
    code, out, _ = run_harness("run", "--in-process", "--cases", str(CASES), "--maxfail", "1", "--report", str(report))
    assert code == 0 and "stopped" not in out
    assert read_report(report)[-1]["stopped"] is None


@pytest.mark.parametrize(("argv", "words"), [
    (["--maxfail", "0"], "--maxfail must be at least 1"),
    (["-x", "--write-xfail", "f.yaml"], "--write-xfail needs the whole run"),
])
def test_maxfail_usage_errors(run_harness, argv: list[str], words: str) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_harness("run", "--in-process", "--cases", str(CASES), *argv)
    assert code == 2 and words in err


# --- not applicable, errors ----------------------------------------------------------------------


def test_not_applicable_reasons_are_counted(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    report = tmp_path / "r.jsonl"
    code, out, _ = run_harness("run", "--engine", engine("stud_high_only"), "--cases", str(CASES), "--report", str(report))
    records = [line for line in read_report(report) if line["kind"] == "not_applicable"]
    assert code == 0
    assert {record["reason"]: record["cases"] for record in records} == {
        "the engine does not support the variant razz": ["T-RAZ-001"],
        "the engine does not support bring_in_tie=seat": ["T-BRI-002"],
    }
    assert "2 cases not applicable, by reason:\n  1  the engine does not support" in out


def test_engine_errors_are_grouped_by_problem_and_request(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    report = tmp_path / "r.jsonl"
    run_harness("run", "--engine", engine("crash_mid_hand"), "--cases", str(CASES), "--report", str(report))
    groups = [line for line in read_report(report) if line["kind"] == "group"]
    assert [(group["key"], group["cases"]) for group in groups] == [("engine error: crash on act", ["T-CRASH-001"])]
    assert groups[0]["blame"] == []  # a protocol error is no rule's
    assert groups[0]["outcomes"] == {"error": 1}


# --- the keys -----------------------------------------------------------------------------------


def verdict(step_text: str, *mismatches: Mismatch, transcript: tuple[dict[str, Any], ...] = (), **fields: Any) -> Verdict:
    return Verdict(case_id="X-1", outcome=fields.pop("outcome", Outcome.FAIL), variant="razz", file="f", line=1,
                   step_text=step_text, mismatches=mismatches, transcript=transcript, **fields)


def act(action: str, response: dict[str, Any]) -> dict[str, Any]:
    return {"request": {"type": "act", "seq": 1, "seat": 1, "action": action}, "response": response}


def refusal(reason: str) -> dict[str, Any]:
    return {"seq": 1, "ok": False, "error": {"reason": reason, "message": "no"}}


@pytest.mark.parametrize(("path", "normal"), [
    ("pots[1].amount", "pots[].amount"), ("result.pots[0].winners.3", "result.pots[].winners.*"),
    ("stacks.2", "stacks.*"), ("up.7", "up.*"), ("street", "street"),
])
def test_indexes_and_seats_are_dropped(path: str, normal: str) -> None:
    assert normal_field(path) == normal


@pytest.mark.parametrize(("field", "expected", "actual", "text"), [
    ("street", "fourth", "third", "expected 'fourth', got 'third'"),
    ("to_act", 1, 3, "expected N, got M"),
    ("to_act", 2, None, "expected N, got nothing"),
    ("pot_total", 9, 10, "expected N, got N+1"),
    ("pot_total", 0, 1, "expected N, got N+1"),  # one chip too many, from zero or not
    ("pots[].amount", 6, 5, "expected N, got N-1"),
    ("stacks.*", 90, 70, "expected N, got less"),
    ("result.rake", 0, 5, "expected 0, got N"),
    ("result.pots[].winners.*", 9, None, "expected N, got nothing"),
    ("legal", ["fold", "call 20"], ["fold", "call 20", "raise 25"], "unexpected [raise N]"),
    ("legal", ["fold", "check", "bet 5"], ["fold", "check", "complete 5"], "missing [bet N]; unexpected [complete N]"),
    ("legal", ["fold", "call 2"], ["fold", "call 3"], "other amount [call]"),
    ("folded", [2, 3], [2], "missing [N]"),
    ("up.*", ["As", "Ks"], ["As", "Kd"], "other cards"),
    ("up.*", ["5c", "5s"], ["5c"], "fewer cards"),
    ("community", "Qd", None, "expected a card, got nothing"),
    ("result.pots", [{"amount": 6}, {"amount": 4}], [{"amount": 10}], "fewer entries"),  # merged pots, any count
])
def test_shapes_take_out_what_varies_from_case_to_case(field: str, expected: Any, actual: Any, text: str) -> None:
    assert shape(field, expected, actual) == text


def test_the_field_that_explains_most_is_chosen_and_its_differences_merged() -> None:
    later = [Mismatch(path="to_act", expected=1, actual=2), Mismatch(path="street", expected="fourth", actual="third")]
    assert main_difference(later) == ("street", "expected 'fourth', got 'third'")
    odd_chip = [Mismatch(path="result.pots[0].winners.1", expected=5, actual=4),
                Mismatch(path="result.pots[0].winners.2", expected=4, actual=5)]
    raked = [Mismatch(path="result.pots[0].amount", expected=95, actual=94), Mismatch(path="result.rake", expected=1, actual=2)]
    assert main_difference(raked) == ("result.rake", "expected N, got N+1")  # the rake decides the amounts
    swapped = list(reversed(odd_chip))
    assert main_difference(odd_chip) == main_difference(swapped) == (
        "result.pots[].winners.*", "expected N, got N+1; expected N, got N-1")


def test_each_kind_of_divergence_has_its_key() -> None:
    refused = verdict("act 1 bet 10", Mismatch(path="ok", expected=True, actual=False),
                      transcript=(act("bet", refusal("invalid_amount")),))
    out_of_turn = verdict("act 1 check", Mismatch(path="ok", expected=True, actual=False),
                          transcript=(act("check", refusal("out_of_turn")),))
    accepted = verdict("reject 1 check (illegal_action)", Mismatch(path="reason", expected="illegal_action", actual=None),
                       transcript=(act("check", {"seq": 1, "ok": True, "state": {}}),))
    wrong = verdict("reject 1 check (illegal_action)", Mismatch(path="reason", expected="illegal_action", actual="out_of_turn"),
                    transcript=(act("check", refusal("out_of_turn")),))
    changed = verdict("reject 1 check (illegal_action)", Mismatch(path="pot_total", expected=3, actual=4))
    setup = verdict("setup", Mismatch(path="ok", expected=True, actual=False),
                    transcript=({"request": {"type": "new_hand"}, "response": refusal("bad_request")},))
    forbidden = verdict("setup", Mismatch(path="ok", expected=False, actual=True))
    final = verdict("final", Mismatch(path="result.rake", expected=1, actual=2))
    error = verdict("step 2", outcome=Outcome.ERROR, problem="timeout",
                    transcript=({"request": {"type": "act"}, "response": None},))
    keys = {name: case_divergence(v).key for name, v in locals().items() if isinstance(v, Verdict)}
    assert keys == {
        "refused": "a legal bet refused: invalid_amount",
        "out_of_turn": "a legal action refused: out_of_turn",
        "accepted": "check accepted, must be refused: illegal_action",
        "wrong": "check refused for the wrong reason: expected illegal_action, got out_of_turn",
        "changed": "a refused action changed the state: pot_total: expected N, got N+1",
        "setup": "a valid new_hand refused: bad_request",
        "forbidden": "new_hand accepted, must be refused: bad_request",
        "final": "result.rake: expected N, got N+1",
        "error": "engine error: timeout on act",
    }
    assert case_divergence(error).cause is Cause.ERROR


def test_groups_are_largest_first_and_the_representative_is_the_shortest() -> None:
    street = Mismatch(path="street", expected="fourth", actual="third")
    long_one = verdict("expect street", street, transcript=({"request": {}},) * 9).with_changes(case_id="A-1")
    short_one = verdict("expect street", street, transcript=({"request": {}},) * 3).with_changes(case_id="A-2")
    other = verdict("final", Mismatch(path="result.rake", expected=1, actual=2)).with_changes(case_id="B-1")
    skipped = verdict("", outcome=Outcome.NOT_APPLICABLE, message="the engine does not support the variant razz")
    grouping = group_verdicts([other, long_one, short_one, skipped])
    assert [(group.key, group.count) for group in grouping.groups] == [(STREET, 2), ("result.rake: expected N, got N+1", 1)]
    assert grouping.groups[0].representative.case_id == "A-2"
    assert [(entry.reason, entry.case_ids) for entry in grouping.not_applicable] == [
        ("the engine does not support the variant razz", ("X-1",))]
    assert grouping.group_of("B-1") is grouping.groups[1]


def test_a_failure_without_differences_is_keyed_by_its_message() -> None:
    failed = verdict("reject 1 call (out_of_turn)",
                     message="the engine refused a state request after a refused action (no_hand: seat 3 is not in)")
    assert case_divergence(failed).key == "the engine refused a state request after a refused action (no_hand: seat N is not in)"


def test_a_run_stopped_by_a_signal_or_the_deadline_is_no_cause_of_failure() -> None:
    stopped = [verdict("step 1", outcome=Outcome.ERROR, problem=problem) for problem in ("interrupted", "deadline")]
    crash = verdict("step 1", outcome=Outcome.ERROR, problem="crash")
    assert [group.key for group in group_verdicts([*stopped, crash]).groups] == ["engine error: crash"]


def test_two_broken_rules_that_show_the_same_way_are_two_causes(monkeypatch: pytest.MonkeyPatch) -> None:
    from studcheck.harness import groups as module

    street = Mismatch(path="street", expected="fourth", actual="third")
    cases = [verdict("expect street", street).with_changes(case_id=f"A-{n}") for n in range(1, 4)]
    blame = {"A-1": ("BRING-IN.CALLED-ROUND-ENDS",), "A-2": ("BET.ROUND-END",), "A-3": ("BRING-IN.CALLED-ROUND-ENDS", "X")}
    seen = case_divergence(cases[0])
    monkeypatch.setattr(module, "blame_verdict",
                        lambda v: module.Blamed(seen=seen, root=seen, blame=blame[v.case_id]))
    grouping = group_verdicts(cases)
    assert [(group.rule, group.count, group.key) for group in grouping.groups] == [
        ("BRING-IN.CALLED-ROUND-ENDS", 2, STREET), ("BET.ROUND-END", 1, STREET)]
    assert grouping.groups[0].title == "BRING-IN.CALLED-ROUND-ENDS: street expected 'fourth', got 'third'"
    assert [grouping.cause_of(case.case_id) for case in cases] == [1, 2, 1]
    expected = [case.with_changes(outcome=Outcome.XFAIL, xfail_reason="known") for case in cases]
    apart = group_verdicts(expected)
    assert apart.groups == () and [group.count for group in apart.expected] == [2, 1]
    assert apart.cause_of("A-1") is None and apart.expected_cause_of("A-2") == 2


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    from studcheck.harness.report import Style

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert Style.for_stream(_Tty()).rule("BET.CAP") == "\x1b[1;31mBET.CAP\x1b[0m"
    assert Style.for_stream(io.StringIO()).rule("BET.CAP") == "BET.CAP"  # a file or a pipe
    monkeypatch.setenv("NO_COLOR", "1")
    assert Style.for_stream(_Tty()).rule("BET.CAP") == "BET.CAP"
