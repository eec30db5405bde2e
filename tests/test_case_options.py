"""No case depends on an option it does not name.

The harness fills unnamed options with whatever an engine supports, so a case's expectations must
hold under every value of them. Each profile gives a different set of values for the unnamed
options (burns on and off, both short-stub procedures, both tie rules, 3 and 4 raises, every
heads-up rule, both odd-chip rules); every case must pass under each.

Each case runs once per distinct set of options the profiles give it: the Runner's requests, and so
the reference's answers and the verdict, follow from the case and its options alone. The default
profile (`source_texts`, the Runner's own defaults) is tests/test_cases.py, which runs every case
with the same Runner and client; here a case's run under a profile is left out only when its
options are ones it was already run with (there or under an earlier profile).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from studcheck.cases.load import load_cases
from studcheck.cases.model import Case
from studcheck.harness.report import describe_failure
from studcheck.harness.runner import NotApplicable, Outcome, Runner, choose_options
from studcheck.protocol.client import EngineClient, InProcessTransport
from studcheck.rules import PROFILES, Options, ShowdownUnbet

CASES = load_cases()
DEFAULTS = {
    **PROFILES,
    "lowest_seat_showdown": replace(Options(), showdown_unbet=ShowdownUnbet.LOWEST_SEAT),
}
#: run by tests/test_cases.py (Runner(client) with no defaults is Options(), this profile)
COVERED_BY_TEST_CASES = "source_texts"


@pytest.fixture(scope="module")
def client() -> Iterator[EngineClient]:
    engine = EngineClient(InProcessTransport)
    engine.start()
    yield engine
    engine.stop()


@pytest.fixture(scope="module")
def already_run() -> dict[str, set[str]]:
    """Case ID -> the option sets (as JSON) it has been run with; starts with test_cases.py's."""
    return {}


def options_key(case_options: dict[str, Any] | None) -> str:
    return json.dumps(case_options, sort_keys=True)


def test_the_default_profile_is_test_cases() -> None:
    assert DEFAULTS[COVERED_BY_TEST_CASES] == Options()


@pytest.mark.parametrize("name", sorted(set(DEFAULTS) - {COVERED_BY_TEST_CASES}))
def test_every_case_passes_whatever_the_unnamed_options(client: EngineClient, already_run: dict[str, set[str]],
                                                        name: str) -> None:
    assert client.info is not None
    runner = Runner(client, defaults=DEFAULTS[name])
    failures = []
    ran = 0
    for case in CASES:
        seen = already_run.setdefault(case.id, set())
        if not seen:
            seen.add(options_key(_chosen(case, client, Options())))  # test_cases.py's run
        key = options_key(_chosen(case, client, DEFAULTS[name]))
        if key in seen:
            continue
        seen.add(key)
        ran += 1
        verdict = runner.run(case)
        if verdict.outcome is not Outcome.PASS:
            failures.append(describe_failure(verdict, replay=f"studcheck run --in-process --id {case.id}"))
    assert ran > 0, f"{name} gives no case other options than the profiles before it"
    assert not failures, f"{len(failures)} cases depend on options they do not name ({name}):\n" + "\n".join(failures[:10])


def _chosen(case: Case, client: EngineClient, defaults: Options) -> dict[str, Any] | None:
    """The options the Runner sends for `case` (None: the case does not apply to the engine)."""
    assert client.info is not None
    try:
        return choose_options(case, client.info, defaults)
    except NotApplicable:
        return None
