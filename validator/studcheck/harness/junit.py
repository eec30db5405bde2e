"""JUnit XML derived from the JSONL report lines (for CI systems that show test results).

One <testsuite> per variant, one <testcase> per case (classname `studcheck.<variant>`, name = case
ID). fail and xpass -> <failure>, error -> <error>, not applicable and xfail -> <skipped>.

The causes of failure (the report's `group` lines) appear twice: a failing testcase has the
properties `studcheck.blame` (the rules it breaks, most specific first, as the report's case line
has them), `studcheck.group` (its cause, the same text for every case of the group) and, when the
cause showed in several ways (streets, requests), `studcheck.way` (the way this case showed it);
each suite lists the causes of its failures as `studcheck.group.<rank>` properties, largest first,
so a CI view that shows properties shows the few causes before the many cases. Expected failures
(xfail, skipped) are grouped the same way, apart: `studcheck.blame`, `studcheck.group` and
`studcheck.expected_group.rank` on the testcase, `studcheck.expected_group.<rank>` on the suite.
Each suite says how many of its applicable cases pass (`studcheck.passing`: `111 of 131
applicable`; not-applicable cases count in neither number). A run stopped by --maxfail says so in a
`studcheck.stopped` suite property.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from junitparser import Error, Failure, JUnitXml, Properties, Property, Skipped, TestCase, TestSuite

from studcheck.safe_text import xml_safe_json


def _details(line: Mapping[str, Any]) -> str:
    text = [f"{line.get('file')}:{line.get('line')}"]
    if line.get("step_text"):
        text.append(f"step: {line['step_text']}")
    for mismatch in line.get("mismatches") or []:
        text.append(f"{mismatch['path']}: expected {json.dumps(mismatch['expected'])}, got {json.dumps(mismatch['actual'])}")
    if line.get("evidence"):
        text.append(f"engine output: {line['evidence']}")
    if line.get("replay"):
        text.append(f"replay: {line['replay']}")
    return "\n".join(text)


def _testcase(line: Mapping[str, Any], group: Mapping[str, Any] | None = None) -> TestCase:
    case = TestCase(name=str(line["id"]), classname=f"studcheck.{line['variant']}", time=float(line.get("duration_ms", 0)) / 1000)
    outcome = line["outcome"]
    message = str(line.get("message") or "")
    result: Failure | Error | Skipped | None = None
    if outcome in ("fail", "xpass"):
        result = Failure(message=message, type_=outcome)
    elif outcome == "error":
        result = Error(message=message, type_=str(line.get("problem") or "error"))
    elif outcome == "not_applicable":
        result = Skipped(message=f"not applicable: {message}")
    elif outcome == "xfail":
        result = Skipped(message=f"expected failure: {line.get('xfail_reason')}")
    if result is not None:
        if outcome != "not_applicable":
            result.text = _details(line)
        case.result = [result]
    if line.get("stderr"):
        case.system_err = str(line["stderr"])
    if group is not None:
        properties = Properties()  # type: ignore[no-untyped-call]
        properties.add_property(Property("studcheck.blame", ", ".join(map(str, line.get("blame") or group.get("blame") or []))))
        properties.add_property(Property("studcheck.group", str(group["key"])))
        rank = "studcheck.expected_group.rank" if expected_group(group) else "studcheck.group.rank"
        properties.add_property(Property(rank, str(group["rank"])))
        way = next((way for way in group.get("ways") or [] if line["id"] in way.get("cases", [])), None)
        if way is not None:
            properties.add_property(Property("studcheck.way", str(way["key"])))
        case._elem.insert(0, properties._elem)  # properties come first in a testcase, as pytest writes them
    return case


def expected_group(line: Mapping[str, Any]) -> bool:
    """A cause of expected failures: marked so, or (a report without the mark) all its cases xfail."""
    if "expected" in line:
        return bool(line["expected"])
    outcomes = line.get("outcomes") or {}
    return bool(outcomes) and set(outcomes) <= {"xfail"}


def _suite_properties(suite: TestSuite, variant: str, groups: list[Mapping[str, Any]], footer: Mapping[str, Any],
                      outcomes: Mapping[str, int]) -> None:
    applicable = sum(outcomes.values()) - outcomes.get("not_applicable", 0)
    suite.add_property("studcheck.passing", f"{outcomes.get('pass', 0)} of {applicable} applicable" if applicable
                       else "none applicable")
    for group in groups:
        here = (group.get("variants") or {}).get(variant, 0)
        if here:
            blame = group.get("blame") or []
            rule = f"{blame[0]}: " if blame else ""
            expected = expected_group(group)
            ways = f", {len(group['ways'])} ways it showed" if group.get("ways") else ""
            suite.add_property(f"studcheck.{'expected_group' if expected else 'group'}.{group['rank']}",
                               f"{here} of {group['count']} {'expected failures' if expected else 'failing cases'}: "
                               f"{rule}{group['key']}{ways} (e.g. {group['representative']}; replay: {group['replay']})")
    stopped = footer.get("stopped")
    if stopped:
        suite.add_property("studcheck.stopped", f"stopped early after {stopped['maxfail']} failing case(s) "
                                                f"(--maxfail {stopped['maxfail']}): {stopped['not_run']} case(s) not run")


def junit_xml(lines: Iterable[Mapping[str, Any]]) -> JUnitXml:
    # Engine text (stderr with colour escapes, a NUL in a message) may hold characters XML 1.0
    # forbids: they are written as visible escapes, so the report is always written.
    lines = [xml_safe_json(line) for line in lines]
    xml = JUnitXml(name="studcheck")
    groups = [line for line in lines if line.get("kind") == "group"]
    groups.sort(key=expected_group)  # the causes of failure first, then the expected ones (a stable sort)
    group_of = {(expected_group(group), case_id): group for group in groups for case_id in group.get("cases", [])}
    outcomes: dict[str, Counter[str]] = {}
    footer = next((line for line in lines if line.get("kind") == "footer"), {})
    suites: dict[str, TestSuite] = {}
    header: Mapping[str, Any] = {}
    for line in lines:
        if line.get("kind") == "header":
            header = line
        if line.get("kind") != "case":
            continue
        variant = str(line["variant"])
        if variant not in suites:
            suite = TestSuite(name=f"studcheck.{variant}")
            engine = header.get("engine") or {}
            suite.add_property("engine", f"{engine.get('name', '?')} {engine.get('version', '')}".strip())
            suite.add_property("studcheck", str(header.get("studcheck", "")))
            suites[variant] = suite
        outcomes.setdefault(variant, Counter())[str(line["outcome"])] += 1
        grouped = {"fail": False, "error": False, "xfail": True}.get(str(line["outcome"]))
        suites[variant].add_testcase(_testcase(line, None if grouped is None else group_of.get((grouped, str(line["id"])))))
    for variant in sorted(suites):
        _suite_properties(suites[variant], variant, groups, footer, outcomes[variant])
        suites[variant].update_statistics()  # type: ignore[no-untyped-call]
        xml.add_testsuite(suites[variant])
    xml.update_statistics()  # type: ignore[no-untyped-call]
    _fixed_point_times(xml)
    return xml


def _fixed_point_times(xml: JUnitXml) -> None:
    """junitparser writes str(float), e.g. time="8.7e-05", which the JUnit XSDs (xs:decimal) reject."""
    for element in xml._elem.iter():
        value = element.get("time")
        if value is not None:
            element.set("time", f"{float(value):.6f}")


def write_junit(lines: Iterable[Mapping[str, Any]], path: Path) -> None:
    junit_xml(lines).write(str(path), pretty=True)
