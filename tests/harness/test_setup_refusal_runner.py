"""Setup-refusal cases on engines: the reference passes, an engine that accepts any setup fails
(even when its answer breaks the schema, without a restart), a wrong reason fails, `unsupported`
passes only where the case allows it; reports stay valid."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from junitparser import Failure, JUnitXml

from harness_helpers import CASES, ENGINES, engine
from studcheck.cards import FULL_DECK
from studcheck.cases.load import load_case, load_cases
from studcheck.harness.runner import Outcome, Runner, Verdict
from studcheck.protocol.client import EngineClient, InProcessTransport, SubprocessTransport
from studcheck.protocol.messages import schema_problem
from studcheck.protocol.serve import Server
from test_engines import read_report

VALID = {"variant": "stud_high", "stakes": {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10},
         "seats": [{"seat": 1, "stack": 100}, {"seat": 2, "stack": 100}],
         "deck": [str(card) for card in FULL_DECK], "remade_stub": None}
SHIPPED = [case for case in load_cases() if case.setup_refused is not None]
CASE = """\
id: {id}
title: A bring-in equal to the small bet
rules: [SETUP.STAKES]
tags: [setup]
variant: {variant}
setup_refused: {{reason: {reason}}}
stakes: {{ante: 1, bring_in: 5, small_bet: 5, big_bet: 10}}
seats: {{1: {{stack: 100}}, 2: {{stack: 100}}}}
"""


class AcceptsAnySetup(Server):
    """The reference, except that a new_hand it would refuse is played with a valid setup instead."""

    def handle(self, request: Any) -> dict[str, Any]:
        response = super().handle(request)
        if isinstance(request, dict) and request.get("type") == "new_hand" and not response["ok"]:
            response = super().handle({**request, **VALID})
        return response


class Answers(Server):
    """The reference, with new_hand refusals rewritten to `reason` and hello's variants to `variants`."""

    def __init__(self, reason: str | None = None, variants: list[str] | None = None) -> None:
        super().__init__()
        self.reason, self.variants = reason, variants

    def handle(self, request: Any) -> dict[str, Any]:
        response = super().handle(request)
        if request.get("type") == "hello" and self.variants is not None:
            response["variants"] = self.variants
        if request.get("type") == "new_hand" and not response["ok"] and self.reason is not None:
            response["error"]["reason"] = self.reason
        return response


def run(case_path: Path | Any, server: Callable[[], Server]) -> Verdict:
    case = load_case(case_path) if isinstance(case_path, Path) else case_path
    client = EngineClient(lambda: InProcessTransport(server))
    client.start()
    try:
        return Runner(client).run(case)
    finally:
        client.stop()


def write(tmp_path: Path, *, id: str = "SH-SRF-901", variant: str = "stud_high", reason: str = "bad_request") -> Path:
    path = tmp_path / f"{id.lower()}.yaml"
    path.write_text(CASE.format(id=id, variant=variant, reason=reason), encoding="utf-8")
    return path


def test_there_are_shipped_setup_refusal_cases() -> None:
    assert len(SHIPPED) >= 15


@pytest.mark.parametrize("case", SHIPPED, ids=[case.id for case in SHIPPED])
def test_reference_passes_and_an_engine_accepting_any_setup_fails(case: Any) -> None:
    assert run(case, Server).outcome is Outcome.PASS
    failed = run(case, AcceptsAnySetup)
    assert failed.outcome is Outcome.FAIL and failed.step is None and failed.step_text == "setup"
    assert failed.message.startswith("the engine accepted a hand the rules forbid: ")
    assert [(m.path, m.expected, m.actual) for m in failed.mismatches] == [("ok", False, True)]
    assert failed.transcript and failed.transcript[-1]["request"]["type"] == "new_hand"


def test_an_engine_playing_a_forbidden_setup_as_given_fails_without_a_restart() -> None:
    """Its acceptances often break the schema (seat 9, a negative stack): still the case's `fail`,
    the engine is not restarted, and the next case runs on it as usual."""
    client = EngineClient(lambda: SubprocessTransport([sys.executable, str(ENGINES / "accepts_setup_as_given.py")]))
    client.start()
    try:
        runner = Runner(client)
        verdicts = [runner.run(case) for case in SHIPPED]
        after = runner.run(next(case for case in load_cases([CASES]) if case.id == "T-OK-001"), last=True)
    finally:
        client.stop()
    assert {verdict.outcome for verdict in verdicts} == {Outcome.FAIL} and after.outcome is Outcome.PASS
    assert all(verdict.message.startswith("the engine accepted a hand the rules forbid: ") for verdict in verdicts)
    assert client.restarts == 0
    broken = [verdict.case_id for verdict in verdicts
              if schema_problem("response_state", verdict.transcript[-1]["response"]) is not None]
    assert len(broken) >= 5, broken  # the test means something: those answers were protocol errors once


def test_the_setup_goes_out_as_written(tmp_path: Path) -> None:
    verdict = run(write(tmp_path), AcceptsAnySetup)
    request = verdict.transcript[-1]["request"]
    assert request["stakes"] == {"ante": 1, "bring_in": 5, "small_bet": 5, "big_bet": 10}
    assert request["seats"] == [{"seat": 1, "stack": 100}, {"seat": 2, "stack": 100}]
    assert request["label"] == "SH-SRF-901" and set(request["options"]) == set(VALID_OPTIONS)
    assert "stakes.bring_in: must be less than the small bet" in verdict.message


VALID_OPTIONS = {"bring_in_tie", "first_actor_tie", "open_pair_double", "max_raises", "heads_up", "burn_cards",
                 "short_stub", "odd_chip", "showdown_unbet", "rake_percent", "rake_cap"}


def test_another_reason_fails(tmp_path: Path) -> None:
    verdict = run(write(tmp_path), lambda: Answers(reason="invalid_amount"))
    assert verdict.outcome is Outcome.FAIL and "wrong reason" in verdict.message
    assert [(m.path, m.expected, m.actual) for m in verdict.mismatches] == [("reason", "bad_request", "invalid_amount")]


def test_unsupported_passes_only_where_the_case_allows_it(tmp_path: Path) -> None:
    assert run(write(tmp_path), lambda: Answers(reason="unsupported")).outcome is Outcome.FAIL
    allowing = write(tmp_path, id="SH-SRF-902", reason="[bad_request, unsupported]")
    assert run(allowing, lambda: Answers(reason="unsupported")).outcome is Outcome.PASS
    assert run(allowing, Server).outcome is Outcome.PASS


def test_applicability_follows_the_variant_unless_the_variant_is_the_fault(tmp_path: Path) -> None:
    razz = write(tmp_path, id="RZ-SRF-901", variant="razz")
    only_high = lambda: Answers(variants=["stud_high"])  # noqa: E731
    assert run(razz, only_high).outcome is Outcome.NOT_APPLICABLE
    unknown = write(tmp_path, id="RZ-SRF-902", variant="omaha")
    assert run(unknown, only_high).outcome is Outcome.PASS
    assert run(unknown, AcceptsAnySetup).outcome is Outcome.FAIL


def test_reports_and_junit_for_a_failing_setup_refusal_case(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cases = tmp_path / "cases"
    cases.mkdir()
    write(cases)
    report, junit = tmp_path / "report.jsonl", tmp_path / "junit.xml"
    code, out, _ = run_harness("run", "--engine", engine("accepts_any_setup"), "--cases", str(cases),
                               "--report", str(report), "--junit", str(junit))
    assert code == 1
    line = next(item for item in read_report(report) if item["kind"] == "case")
    assert line["outcome"] == "fail" and line["step"] is None and line["step_text"] == "setup"
    assert line["message"].startswith("the engine accepted a hand the rules forbid")
    assert "FAIL SH-SRF-901" in out and "accepted a hand the rules forbid" in out
    [suite] = list(JUnitXml.fromfile(str(junit)))
    [testcase] = list(suite)
    assert isinstance(testcase.result[0], Failure) and "rules forbid" in (testcase.result[0].message or "")
    code, _, _ = run_harness("run", "--cases", str(cases), "--report", str(report))
    assert code == 0 and json.loads(report.read_text().splitlines()[1])["outcome"] == "pass"
