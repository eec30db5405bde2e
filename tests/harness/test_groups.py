"""Failing cases grouped by first divergence (harness/groups.py): the keys, and `studcheck run` showing
them everywhere (terminal, JSONL, JUnit, Markdown), --write-xfail, --maxfail and -x.

The broken engine is tests/engines/bring_in_option.py: one early deviation (the bring-in gets an
option when everyone calls) that fails dozens of cases at different steps; they must read as one
cause. Its runs go through a real subprocess, once per module where the tests only read the output.
"""

from __future__ import annotations

import contextlib
import io
import re
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
from studcheck.harness.groups import STREETS, Cause, case_divergence, group_verdicts, main_difference, normal_field, shape
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


# --- one fix, one entry: the same wrong answer in several places -----------------------------------


def _blamed_as(monkeypatch: pytest.MonkeyPatch, blame: dict[str, tuple[str, ...]]) -> None:
    """Each case blamed on the rules given for it, its own divergence the root (no replay)."""
    from studcheck.harness import groups as module

    def fake(v: Verdict) -> Any:
        seen = case_divergence(v)
        return module.Blamed(seen=seen, root=seen, blame=blame[v.case_id])

    monkeypatch.setattr(module, "blame_verdict", fake)


def wrong_reason(case_id: str, action: str, rules: tuple[str, ...] = ("BET.ORDER",), length: int = 3) -> Verdict:
    return verdict(f"reject 2 {action} (out_of_turn)",
                   Mismatch(path="reason", expected="out_of_turn", actual="illegal_action"),
                   transcript=(act(action, refusal("illegal_action")),) * length).with_changes(case_id=case_id, rules=rules)


def on_street(case_id: str, street: str) -> Verdict:
    return verdict("expect street", Mismatch(path="street", expected="showdown", actual=street)).with_changes(case_id=case_id)


def test_one_rule_broken_the_same_way_in_several_requests_is_one_cause(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [wrong_reason("A-1", "check"), wrong_reason("A-2", "call"), wrong_reason("A-3", "check"),
             wrong_reason("B-1", "call", rules=("BRING-IN.CHOICE",))]
    _blamed_as(monkeypatch, {"A-1": ("BET.ORDER",), "A-2": ("BET.ORDER",), "A-3": ("BET.ORDER",), "B-1": ("BET.CAP",)})
    grouping = group_verdicts(cases)
    assert [(group.rule, group.count) for group in grouping.groups] == [("BET.ORDER", 3), ("BET.CAP", 1)]  # rules stay apart
    order = grouping.groups[0]
    assert order.key == "an action refused for the wrong reason: expected out_of_turn, got illegal_action"
    assert order.title == f"BET.ORDER: {order.key}"
    assert [(way.key, [v.case_id for v in way.verdicts]) for way in order.ways] == [
        ("check refused for the wrong reason: expected out_of_turn, got illegal_action", ["A-1", "A-3"]),
        ("call refused for the wrong reason: expected out_of_turn, got illegal_action", ["A-2"])]
    assert [v.case_id for v in order.verdicts] == ["A-1", "A-2", "A-3"]  # run order
    assert order.way_of("A-2") is order.ways[1] and order.where(order.ways[1]) == "call"
    assert grouping.groups[1].ways == () and grouping.cause_of("A-2") == 1


def test_one_rule_broken_the_same_way_on_several_streets_is_one_cause(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [on_street("A-1", "sixth"), on_street("A-2", "fourth"), on_street("A-3", "sixth")]
    _blamed_as(monkeypatch, {case.case_id: ("ALLIN.RUNOUT",) for case in cases})
    (group,) = group_verdicts(cases).groups
    assert group.key == "street: expected 'showdown', got 'fourth' or 'sixth'"  # the streets in their order
    assert [(way.key, way.count) for way in group.ways] == [("street: expected 'showdown', got 'sixth'", 2),
                                                            ("street: expected 'showdown', got 'fourth'", 1)]
    assert [group.where(way) for way in group.ways] == ["'sixth'", "'fourth'"]


def test_what_is_not_where_it_showed_stays_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another shape, another field or kind of divergence, or no rule named: other causes."""
    cases = [on_street("A-1", "sixth"),
             verdict("expect street", Mismatch(path="street", expected="sixth", actual="showdown")).with_changes(case_id="A-2"),
             verdict("expect to_act", Mismatch(path="to_act", expected=1, actual=2)).with_changes(case_id="A-3"),
             verdict("step 2", outcome=Outcome.ERROR, problem="crash",
                     transcript=({"request": {"type": "act"}, "response": None},)).with_changes(case_id="E-1"),
             verdict("step 2", outcome=Outcome.ERROR, problem="crash",
                     transcript=({"request": {"type": "state"}, "response": None},)).with_changes(case_id="E-2")]
    _blamed_as(monkeypatch, {"A-1": ("R",), "A-2": ("R",), "A-3": ("R",), "E-1": (), "E-2": ()})
    grouping = group_verdicts(cases)
    assert len(grouping.groups) == 5 and all(group.ways == () for group in grouping.groups)


def test_the_example_cites_the_rule_broken_when_a_case_does(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [wrong_reason("A-1", "check", rules=("BET.CHECK",), length=2), wrong_reason("A-2", "check", length=5),
             wrong_reason("A-3", "check", length=4)]
    _blamed_as(monkeypatch, {case.case_id: ("BET.ORDER",) for case in cases})
    assert group_verdicts(cases).groups[0].representative.case_id == "A-3"  # the quickest of those citing it
    _blamed_as(monkeypatch, {case.case_id: ("BET.CAP",) for case in cases})
    assert group_verdicts(cases).groups[0].representative.case_id == "A-1"  # none cites it: the quickest


def test_a_rule_is_cited_by_the_applicable_cases_only() -> None:
    street = Mismatch(path="street", expected="fourth", actual="third")
    failing = verdict("expect street", street).with_changes(rules=("BET.ORDER",))
    skipped = [verdict("", outcome=Outcome.NOT_APPLICABLE, message="no razz").with_changes(case_id=f"N-{n}", rules=("BET.ORDER",))
               for n in range(3)]
    assert group_verdicts([failing, *skipped]).cited == {"BET.ORDER": 1}


# --- the planted engines, through `studcheck run` ------------------------------------------------


#: the cases about the order of play and refusals: those out_of_turn_as_illegal fails, in several requests
TURNS = ("--rule", "BET.ORDER", "--rule", "ACTION.REFUSAL")
WRONG_KEY = "an action refused for the wrong reason: expected out_of_turn, got illegal_action"


@dataclass(frozen=True, kw_only=True)
class Runs:
    """out_of_turn_as_illegal on TURNS: failing (report, JUnit, Markdown, output), then with the expected-failure
    file that run wrote (the same outputs)."""

    failing: list[dict[str, Any]]
    failing_out: str
    failing_junit: Path
    failing_markdown: str
    expected: list[dict[str, Any]]
    expected_out: str
    expected_junit: Path
    expected_markdown: str
    where: Path


@pytest.fixture(scope="module")
def turns(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    where = tmp_path_factory.mktemp("turns")
    base = ("run", "--engine", engine("out_of_turn_as_illegal"), *TURNS, "--no-progress")
    outputs: dict[str, tuple[int, str]] = {}
    for name, extra in (("failing", ("--write-xfail", str(where / "known.yaml"))), ("expected", ("--xfail", str(where / "known.yaml")))):
        outputs[name] = run_quietly(*base, *extra, "--report", str(where / f"{name}.jsonl"), "--junit", str(where / f"{name}.xml"),
                                    "--markdown", str(where / f"{name}.md"))
    assert [code for code, _ in outputs.values()] == [1, 0]
    return Runs(failing=read_report(where / "failing.jsonl"), failing_out=outputs["failing"][1], failing_junit=where / "failing.xml",
                failing_markdown=(where / "failing.md").read_text(), expected=read_report(where / "expected.jsonl"),
                expected_out=outputs["expected"][1], expected_junit=where / "expected.xml",
                expected_markdown=(where / "expected.md").read_text(), where=where)


def groups_of(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if line["kind"] == "group"]


def test_a_wrong_reason_in_every_kind_of_request_is_one_cause_with_its_ways(turns: Runs) -> None:
    (group,) = groups_of(turns.failing)
    failing = [line for line in turns.failing if line["kind"] == "case" and line["outcome"] == "fail"]
    assert (group["key"], group["blame"][0], group["expected"], group["count"]) == (WRONG_KEY, "BET.ORDER", False, len(failing))
    ways = group["ways"]
    actions = [way["action"] for way in ways]
    assert len(ways) >= 3 and len(set(actions)) == len(actions) and group["action"] is None
    assert sum(way["count"] for way in ways) == group["count"]
    assert sorted(case for way in ways for case in way["cases"]) == sorted(group["cases"]) == sorted(line["id"] for line in failing)
    assert all(way["key"] == f"{way['action']} refused for the wrong reason: expected out_of_turn, got illegal_action" for way in ways)
    lines = {line["id"]: line for line in failing}
    assert "BET.ORDER" in lines[group["representative"]]["rules"]  # the example cites the rule broken
    assert all("BET.ORDER" in lines[way["representative"]]["rules"] for way in ways
               if any("BET.ORDER" in lines[case]["rules"] for case in way["cases"]))
    assert all(line["cause"] == 1 and line["blame"][0] == "BET.ORDER" for line in failing)
    # the terminal: one cause, its ways listed; each failing case says where it showed
    assert f"cause 1 — BET.ORDER: {WRONG_KEY} — {len(failing)} cases, {len(ways)} ways it showed\n" in turns.failing_out
    assert "    the ways it showed (cases, and the first difference there):\n" in turns.failing_out
    assert f"\n      {ways[0]['count']:>2}  {ways[0]['key']}\n" in turns.failing_out
    assert f"  cause 1 — BET.ORDER: {WRONG_KEY} (here: {ways[0]['action']})\n" in turns.failing_out
    assert f"{len(ways)} ways it showed: {ways[0]['key']} ({ways[0]['count']})" in turns.failing_markdown
    root = ET.parse(turns.failing_junit).getroot()
    shown = {case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")} for case in root.iter("testcase")}
    for way in ways:
        assert all(shown[case]["studcheck.way"] == way["key"] and shown[case]["studcheck.group"] == WRONG_KEY for case in way["cases"])


def test_expected_failures_have_group_lines_with_their_blame(turns: Runs) -> None:
    expected = [line for line in turns.expected if line["kind"] == "case" and line["outcome"] == "xfail"]
    groups, failing = groups_of(turns.expected), groups_of(turns.failing)
    assert expected and [(group["expected"], group["rank"]) for group in groups] == [(True, rank) for rank in range(1, len(groups) + 1)]
    same = ("key", "blame", "count", "cases", "representative", "ways", "rules")
    assert [{key: group.get(key) for key in same} for group in groups] == [{key: group.get(key) for key in same} for group in failing]
    assert all(group["outcomes"] == {"xfail": group["count"]} and group["blame"] for group in groups)
    rank_of = {case: group["rank"] for group in groups for case in group["cases"]}
    assert all(line["expected_cause"] == rank_of[line["id"]] and "cause" not in line and line["blame"] for line in expected)
    first = groups[0]
    causes = f"{len(groups)} cause{'' if len(groups) == 1 else 's'}"
    assert f"{len(expected)} expected failures in {causes}:\nexpected cause 1 — {first['blame'][0]}: " in turns.expected_out
    assert f"### {len(expected)} expected failures in {causes}" in turns.expected_markdown
    assert f"| 1 | **{first['blame'][0]}** | {first['count']} | " in turns.expected_markdown


def test_junit_shows_the_expected_causes(turns: Runs) -> None:
    group_of = {case: group for group in groups_of(turns.expected) for case in group["cases"]}
    root = ET.parse(turns.expected_junit).getroot()
    skipped = [case for case in root.iter("testcase") if case.find("skipped") is not None]
    assert skipped and {case.get("name") for case in skipped} == set(group_of)
    for case in skipped:
        values = {prop.get("name"): prop.get("value") for prop in case.iter("property")}
        group = group_of[str(case.get("name"))]
        assert values["studcheck.group"] == group["key"] and values["studcheck.expected_group.rank"] == str(group["rank"])
        assert values["studcheck.blame"].startswith(group["blame"][0]) and "studcheck.group.rank" not in values
    suites = [{prop.get("name"): prop.get("value") for prop in suite.find("properties").iter("property")}  # type: ignore[union-attr]
              for suite in root.iter("testsuite")]
    first = groups_of(turns.expected)[0]
    assert any(f"expected failures: {first['blame'][0]}: {first['key']}" in props.get("studcheck.expected_group.1", "")
               for props in suites)
    assert not any(name.startswith("studcheck.group.") for props in suites for name in props)
    assert all(re.fullmatch(r"\d+ of \d+ applicable", props["studcheck.passing"]) for props in suites)


def test_report_and_merge_read_the_expected_causes_back(turns: Runs, tmp_path: Path) -> None:
    from studcheck.cli import main

    shards = [tmp_path / f"shard-{index}.jsonl" for index in (1, 2)]
    for index, shard in enumerate(shards, start=1):
        code, _ = run_quietly("run", "--engine", engine("out_of_turn_as_illegal"), *TURNS, "--no-progress", "--xfail",
                              str(turns.where / "known.yaml"), "--shard", f"{index}/2", "--report", str(shard))
        assert code == 0
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["merge", *map(str, shards), "-o", str(tmp_path / "merged.jsonl")]) == 0
        assert main(["report", str(tmp_path / "merged.jsonl"), "-o", str(tmp_path / "site")]) == 0
    merged = groups_of(read_report(tmp_path / "merged.jsonl"))
    assert merged == groups_of(turns.expected)  # the whole run's expected causes, recomputed from the shards
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    first = html[html.index('<div id="summary">'):html.index('<div class="filters"')]
    assert '<ol class="causes expected">' in first and "in no cause" not in first
    assert first.count('<li class="cause">') == len(merged)
    assert all(f'<a href="#rule-{group["blame"][0]}"><code>{group["blame"][0]}</code></a>' in first for group in merged)
    ways = [group for group in merged if group.get("ways")]
    assert ways and all(f'<summary>{len(group["ways"])} ways it showed</summary>' in first for group in ways)


def test_a_run_out_that_asks_for_bets_is_one_cause_with_a_way_per_street() -> None:
    from studcheck.cases.load import load_cases
    from studcheck.harness.runner import Runner
    from studcheck.protocol.client import EngineClient, InProcessTransport
    from test_blame import engine_module

    module = engine_module("runout_asks_to_act")
    client = EngineClient(lambda: InProcessTransport(module.make_server), validate=False)
    client.start()
    try:
        runner = Runner(client)
        verdicts = [runner.run(case) for case in load_cases() if "ALLIN.RUNOUT" in case.rules]
    finally:
        client.stop()
    grouping = group_verdicts(verdicts)
    first = grouping.groups[0]
    assert first.rule == "ALLIN.RUNOUT" and len(first.ways) >= 3, [group.title for group in grouping.groups]
    assert all(re.fullmatch(r"street: expected 'showdown', got '\w+'", way.key) for way in first.ways)
    found = [street for street in STREETS if any(way.key.endswith(f"'{street}'") for way in first.ways)]
    listed = ", ".join(f"'{street}'" for street in found[:-1]) + f" or '{found[-1]}'"
    assert first.key == f"street: expected 'showdown', got {listed}"
    assert [group.rule for group in grouping.groups].count("ALLIN.RUNOUT") == 1


def test_per_variant_counts_say_how_many_of_the_applicable_cases_pass() -> None:
    from studcheck.harness.report import render_markdown, summary_table

    street = Mismatch(path="street", expected="fourth", actual="third")
    verdicts = [verdict("", outcome=Outcome.PASS).with_changes(case_id="P-1"), verdict("expect street", street),
                *(verdict("", outcome=Outcome.NOT_APPLICABLE, message="no").with_changes(case_id=f"N-{n}") for n in range(3)),
                verdict("", outcome=Outcome.NOT_APPLICABLE, message="no").with_changes(case_id="F-1", variant="five_card_stud")]
    table = summary_table(verdicts).splitlines()
    assert table[0].split() == ["variant", "pass", "fail", "error", "n/a", "xfail", "xpass", "passing"]
    assert table[1].split()[-2:] == ["none", "applicable"]  # five_card_stud: nothing the engine plays
    assert table[2].endswith("  1 of 2 applicable") and table[3].endswith("  1 of 2 applicable")  # razz, total
    markdown = render_markdown(verdicts, replay=lambda case_id: case_id, engine="e")
    assert "| razz | 1 | 1 | 0 | 3 | 0 | 0 | 1 of 2 applicable |" in markdown
    assert "| five_card_stud | 0 | 0 | 0 | 1 | 0 | 0 | none applicable |" in markdown


def test_merge_keeps_the_blame_an_evaluation_verdict_was_given(tmp_path: Path) -> None:
    """The evaluation profile names the rule from the pair the engine ranked, while it has the engine:
    merged shards keep it (a pair cannot be replayed later)."""
    from studcheck.cli import main

    bug = f"{engine('planted_evaluator')} --bug wheel_not_straight"
    reports = [tmp_path / name for name in ("whole.jsonl", "s1.jsonl", "s2.jsonl")]
    for report, shard in zip(reports, ([], ["--shard", "1/2"], ["--shard", "2/2"])):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(["run", "--profile", "evaluation", "--kind", "high", "--engine", bug, "--no-progress", *shard, "--report", str(report)])
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["merge", str(reports[1]), str(reports[2]), "-o", str(tmp_path / "merged.jsonl")]) == 1
    whole, merged = groups_of(read_report(reports[0])), groups_of(read_report(tmp_path / "merged.jsonl"))
    assert whole and whole[0]["blame"][0] == "HAND.HIGH.WHEEL"
    assert [(group["key"], group["blame"], group["cases"]) for group in merged] == [
        (group["key"], group["blame"], group["cases"]) for group in whole]
