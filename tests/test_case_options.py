"""No case depends on an option it does not name.

The harness fills unnamed options with whatever an engine supports, so a case's expectations must
hold under every value of them. Each profile gives a different set of values for the unnamed
options (burns on and off, both short-stub procedures, both tie rules, 3 and 4 raises, every
heads-up rule, both odd-chip rules); every case must pass under each.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from studcheck.cases.load import load_cases
from studcheck.harness.report import describe_failure
from studcheck.harness.runner import Outcome, Runner
from studcheck.protocol.client import EngineClient, InProcessTransport
from studcheck.rules import PROFILES, Options, ShowdownUnbet

CASES = load_cases()
DEFAULTS = {
    **PROFILES,
    "lowest_seat_showdown": replace(Options(), showdown_unbet=ShowdownUnbet.LOWEST_SEAT),
}


@pytest.fixture(scope="module")
def client() -> Iterator[EngineClient]:
    engine = EngineClient(InProcessTransport)
    engine.start()
    yield engine
    engine.stop()


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_every_case_passes_whatever_the_unnamed_options(client: EngineClient, name: str) -> None:
    runner = Runner(client, defaults=DEFAULTS[name])
    failures = []
    for case in CASES:
        verdict = runner.run(case)
        if verdict.outcome is not Outcome.PASS:
            failures.append(describe_failure(verdict, replay=f"studcheck run --in-process --id {case.id}"))
    assert not failures, f"{len(failures)} cases depend on options they do not name ({name}):\n" + "\n".join(failures[:10])
