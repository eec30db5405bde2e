"""The page reads what `studcheck run` now writes: causes of expected failure as `group` lines marked
`expected` (ranked apart), a cause that showed in several ways (`ways`, one click away), and per variant
how many of the applicable cases pass. A report without the marks (gamma.jsonl, older runs) reads as
before: there a group whose cases are all xfail is an expected cause.

delta 1.0 (written here): razz RZ-A-1..3 fail, one cause (BET.ORDER) that showed in two ways (check: RZ-A-1,
RZ-A-3; call: RZ-A-2), RZ-A-2 the only case citing BET.ORDER; RZ-X-1 and RZ-X-2 xfail, expected cause 1
(RAKE.PERCENT); RZ-P-1 passes; RZ-N-1 and RZ-N-2 are not applicable. stud_high: SH-N-1 not applicable only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from studcheck.harness.junit import junit_xml
from studcheck.report.load import from_lines, parse_line
from studcheck.report.model import Model, build_model, load_rules
from studcheck.report.render import render_html

KEY = "an action refused for the wrong reason: expected out_of_turn, got illegal_action"
WAYS = [("check", ["RZ-A-1", "RZ-A-3"], "RZ-A-3"), ("call", ["RZ-A-2"], "RZ-A-2")]


def case(case_id: str, outcome: str, *, rules: tuple[str, ...] = ("BET.CHECK",), variant: str = "razz",
         **extra: Any) -> dict[str, Any]:
    line = {"kind": "case", "id": case_id, "outcome": outcome, "variant": variant, "file": f"cases/{case_id.lower()}.yaml",
            "line": 1, "title": f"title of {case_id}", "tags": [], "rules": list(rules), "duration_ms": 1.0}
    if outcome != "pass":
        line.update(step=1, step_text="reject 2 check (out_of_turn)", message="wrong reason", problem=None, evidence=None,
                    stderr="", options={}, xfail_reason="known" if outcome == "xfail" else None,
                    replay=f"studcheck run --engine ./delta --id {case_id}",
                    mismatches=[{"path": "reason", "expected": "out_of_turn", "actual": "illegal_action"}], transcript=[])
    line.update(extra)
    return line


def group(rank: int, *, expected: bool, key: str, blame: list[str], cases: list[str], representative: str,
          ways: list[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    line: dict[str, Any] = {
        "kind": "group", "rank": rank, "expected": expected, "key": key, "cause": "wrong_reason", "field": "reason",
        "shape": "expected out_of_turn, got illegal_action", "action": None, "blame": blame, "count": len(cases),
        "outcomes": {"xfail" if expected else "fail": len(cases)}, "variants": {"razz": len(cases)}, "cases": cases,
        "representative": representative, "replay": f"studcheck run --engine ./delta --id {representative}",
        "rules": [{"id": "BET.CHECK", "cases": len(cases), "of": 4}], "forms": []}
    if ways is not None:
        line["ways"] = list(ways)
    return line


LINES = [
    {"kind": "header", "studcheck": "0.1.0", "protocol": 1, "engine": {"name": "delta", "version": "1.0",
     "variants": ["razz"], "options": {}}, "command": "./delta", "started": "2026-12-05T00:00:00Z", "cases": ["(bundled suite)"]},
    case("RZ-A-1", "fail", blame=["BET.ORDER"], cause=1), case("RZ-A-2", "fail", rules=("BET.ORDER",), blame=["BET.ORDER"], cause=1),
    case("RZ-A-3", "fail", blame=["BET.ORDER"], cause=1),
    case("RZ-X-1", "xfail", blame=["RAKE.PERCENT"], expected_cause=1), case("RZ-X-2", "xfail", blame=["RAKE.PERCENT"], expected_cause=1),
    case("RZ-P-1", "pass"), case("RZ-N-1", "not_applicable", message="no"), case("RZ-N-2", "not_applicable", message="no"),
    case("SH-N-1", "not_applicable", variant="stud_high", message="no"),
    group(1, expected=False, key=KEY, blame=["BET.ORDER", "ACTION.REFUSAL"], cases=["RZ-A-1", "RZ-A-2", "RZ-A-3"],
          representative="RZ-A-2",
          ways=[{"key": f"{action} refused for the wrong reason: expected out_of_turn, got illegal_action", "cause": "wrong_reason",
                 "field": "reason", "shape": "expected out_of_turn, got illegal_action", "action": action, "count": len(ids),
                 "cases": ids, "representative": example} for action, ids, example in WAYS]),
    group(1, expected=True, key="result.rake: expected N, got N+1", blame=["RAKE.PERCENT"], cases=["RZ-X-1", "RZ-X-2"],
          representative="RZ-X-1"),
    {"kind": "not_applicable", "reason": "no", "count": 3, "cases": ["RZ-N-1", "RZ-N-2", "SH-N-1"]},
    {"kind": "footer", "counts": {"pass": 1, "fail": 3, "error": 0, "not_applicable": 3, "xfail": 2, "xpass": 0},
     "duration_s": 0.1, "exit_code": 1, "stopped": None, "interrupted": None},
]


@pytest.fixture(scope="module")
def delta() -> Model:
    lines = [parse_line(json.dumps(line), where=f"delta.jsonl:{number}") for number, line in enumerate(LINES, start=1)]
    return build_model([from_lines("delta.jsonl", lines)], load_rules())


def summary(html: str) -> str:
    return html[html.index('<div id="summary">'):html.index('<div class="filters"')]


def test_expected_causes_are_read_from_their_mark(delta: Model) -> None:
    (engine,) = delta.engines
    assert [(g.blamed, g.count, g.line["rank"]) for g in engine.causes] == [("BET.ORDER", 3, 1)]
    assert [(g.blamed, g.count, g.line["rank"]) for g in engine.expected] == [("RAKE.PERCENT", 2, 1)]
    assert engine.ungrouped == {}
    first = summary(render_html(delta))
    assert "<strong>3 failing cases in 1 cause</strong>; <strong>2 expected failures</strong> in 1 cause." in first
    expected = first[first.index('<ol class="causes expected">'):]
    assert '<a href="#rule-RAKE.PERCENT"><code>RAKE.PERCENT</code></a>' in expected and "in no cause" not in first


def test_a_cause_that_showed_in_several_ways_lists_them_one_click_away(delta: Model) -> None:
    cause = delta.engines[0].causes[0]
    assert [(way.key.split()[0], [c.id for c in way.cases], way.representative.id if way.representative else None)
            for way in cause.ways] == WAYS
    html = render_html(delta)
    first = summary(html)
    assert '<details class="ways"><summary>2 ways it showed</summary><ul>' in first
    assert ('<li>2 cases — check refused for the wrong reason: expected out_of_turn, got illegal_action — '
            'e.g. <a href="#case-c1-RZ-A-3">RZ-A-3</a></li>') in first
    assert "e.g. <a href=\"#case-c1-RZ-A-2\">RZ-A-2</a>" in first  # the cause's own example
    assert "(3 cases, 2 ways it showed)</h3>" in html
    assert "same cause as <a href=\"#case-c1-RZ-A-2\">RZ-A-2</a> (here: call refused" not in html  # RZ-A-2 is drawn in full
    assert "same cause as <a href=\"#case-c1-RZ-A-2\">RZ-A-2</a> (here: check refused for the wrong reason" in html
    assert "; it showed here as: call refused for the wrong reason" in html


def test_each_variant_counts_its_applicable_cases_only(delta: Model) -> None:
    first = summary(render_html(delta))
    assert "1 of 6 applicable pass, 3 fail, 2 xfail, 2 n/a" in first  # razz: 1 pass + 3 fail + 2 xfail applicable
    assert "none applicable, 1 n/a" in first
    assert "1 of 6 applicable cases pass, 3 not applicable." in first


def test_junit_reads_the_marks_too() -> None:
    root = junit_xml(LINES)._elem
    properties = {case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")} for case in root.iter("testcase")}
    assert properties["RZ-X-1"]["studcheck.expected_group.rank"] == "1" and "studcheck.group.rank" not in properties["RZ-X-1"]
    assert properties["RZ-A-1"]["studcheck.way"].startswith("check refused") and properties["RZ-A-2"]["studcheck.group"] == KEY
    suites = {suite.get("name"): {p.get("name"): p.get("value") for p in suite.find("properties").iter("property")}
              for suite in root.iter("testsuite")}
    assert suites["studcheck.razz"]["studcheck.passing"] == "1 of 6 applicable"
    assert suites["studcheck.stud_high"]["studcheck.passing"] == "none applicable"
    assert suites["studcheck.razz"]["studcheck.expected_group.1"].startswith("2 of 2 expected failures: RAKE.PERCENT: ")
    assert ", 2 ways it showed (e.g. RZ-A-2;" in suites["studcheck.razz"]["studcheck.group.1"]
