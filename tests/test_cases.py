"""Every case in the suite passes on the reference engine (through the protocol, in process).

This is how the project proves the suite and the engine agree; a failure prints the same
paragraph as `studcheck run` (diverging step, expected vs actual, replay command).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from studcheck.cases.load import load_cases
from studcheck.cases.model import Case
from studcheck.harness.report import describe_failure
from studcheck.harness.runner import Outcome, Runner
from studcheck.protocol.client import EngineClient, InProcessTransport

CASES = load_cases()


@pytest.fixture(scope="module")
def runner() -> Iterator[Runner]:
    client = EngineClient(InProcessTransport)
    client.start()
    yield Runner(client)
    client.stop()


def test_the_suite_is_not_empty() -> None:
    assert len(CASES) > 0


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_case_passes_on_the_reference_engine(runner: Runner, case: Case) -> None:
    verdict = runner.run(case)
    if verdict.outcome is not Outcome.PASS:
        pytest.fail(describe_failure(verdict, replay=f"studcheck run --in-process --id {case.id}"), pytrace=False)
