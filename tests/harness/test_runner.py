"""Verdicts from the runner for engines that answer validly but wrongly (in process, fast)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness_helpers import CASES
from studcheck.cases.load import load_cases
from studcheck.harness.runner import Outcome, Runner, Verdict
from studcheck.protocol.client import EngineClient, InProcessTransport
from studcheck.protocol.serve import Server

Rewrite = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
BY_ID = {case.id: case for case in load_cases([CASES])}


class Rewriting(Server):
    """The reference server with its answers passed through `rewrite(request, response)`."""

    def __init__(self, rewrite: Rewrite) -> None:
        super().__init__()
        self.rewrite = rewrite

    def handle(self, request: Any) -> dict[str, Any]:
        return self.rewrite(request, super().handle(request))


def verdict(case_id: str, rewrite: Rewrite) -> Verdict:
    client = EngineClient(lambda: InProcessTransport(lambda: Rewriting(rewrite)))
    client.start()
    result = Runner(client).run(BY_ID[case_id])
    client.stop()
    return result


def refuse(reason: str, when: Callable[[dict[str, Any]], bool]) -> Rewrite:
    def rewrite(request: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
        if when(request):
            return {"seq": request["seq"], "ok": False, "error": {"reason": reason, "message": "no"}}
        return response
    return rewrite


def test_refused_valid_setup_is_a_fail_at_setup() -> None:
    result = verdict("T-OK-001", refuse("bad_request", lambda r: r["type"] == "new_hand"))
    assert result.outcome is Outcome.FAIL and result.step is None and result.step_text == "setup"
    assert "refused a valid hand setup" in result.message


def test_setup_refused_as_unsupported_is_not_applicable() -> None:
    result = verdict("T-OK-001", refuse("unsupported", lambda r: r["type"] == "new_hand"))
    assert result.outcome is Outcome.NOT_APPLICABLE


def test_refused_legal_action_is_a_fail_at_that_step() -> None:
    result = verdict("T-OK-001", refuse("out_of_turn", lambda r: r["type"] == "act" and r["seat"] == 3))
    assert result.outcome is Outcome.FAIL and result.step == 2 and result.step_text == "act 3 fold"
    assert "refused a legal action (out_of_turn" in result.message
    assert result.transcript[-1]["request"]["seat"] == 3


def test_wrong_refusal_reason_is_a_fail() -> None:
    result = verdict("T-BRI-001", refuse("illegal_action", lambda r: r["type"] == "act" and r["seat"] == 1 and r["action"] == "call"))
    assert result.outcome is Outcome.FAIL and result.step == 1
    assert [(m.path, m.expected, m.actual) for m in result.mismatches] == [("reason", "out_of_turn", "illegal_action")]


def test_accepting_a_refused_action_is_a_fail() -> None:
    def accept(request: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
        if request["type"] == "act" and not response["ok"]:
            return {"seq": request["seq"], "ok": True, "state": accept.last}  # type: ignore[attr-defined]
        if response.get("state") is not None:
            accept.last = response["state"]  # type: ignore[attr-defined]
        return response

    result = verdict("T-BRI-001", accept)
    assert result.outcome is Outcome.FAIL and result.step == 1
    assert "accepted an action that must be refused" in result.message


def test_final_difference_is_reported_against_result() -> None:
    def rich(request: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
        result = (response.get("state") or {}).get("result")
        if result:
            result["stacks"]["2"] += 1
        return response

    result = verdict("T-OK-001", rich)
    assert result.outcome is Outcome.FAIL and result.step is None and result.step_text == "final"
    assert [(m.path, m.expected, m.actual) for m in result.mismatches] == [("result.stacks.2", 102, 103)]


def test_reference_passes_and_records_no_problem() -> None:
    result = verdict("T-BRI-001", lambda request, response: response)
    assert result.outcome is Outcome.PASS and result.problem is None and result.duration > 0
