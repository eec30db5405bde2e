"""A pot/no-limit range whose `amount` is not its `min` is a wrong legal entry (protocol.md, `legal`).

An engine that keeps the bounds right but lists `amount` one over `max` sends a client that reads
only `amount` an illegal wager; it used to pass every case and every fuzz hand, since legal sets
were compared by their bounds alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from studcheck.cases import load_cases
from studcheck.harness.compare import compare_state, legal_text
from studcheck.harness.runner import Outcome, Runner
from studcheck.protocol.client import EngineClient, InProcessTransport

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
from planted import planted_server  # noqa: E402


@pytest.mark.parametrize(
    ("entry", "text"),
    [
        ({"action": "raise", "amount": 4, "min": 4, "max": 12}, "raise 4..12"),
        ({"action": "raise", "amount": 13, "min": 4, "max": 12}, "raise 4..12 (amount 13)"),
        ({"action": "bet", "min": 2, "max": 9}, "bet 2..9 (amount None)"),
        ({"action": "bet", "amount": True, "min": True, "max": 9}, "bet True..9 (amount True)"),
        ({"action": "call", "amount": 4}, "call 4"),
    ],
)
def test_a_range_is_read_with_its_amount(entry: dict[str, object], text: str) -> None:
    assert legal_text(entry) == text


def test_a_range_with_another_amount_is_a_difference() -> None:
    expect = {"legal": ["fold", "call 4", "raise 8..20"]}
    right = {"legal": [{"action": "fold"}, {"action": "call", "amount": 4},
                       {"action": "raise", "amount": 8, "min": 8, "max": 20}]}
    assert compare_state(expect, right) == []
    wrong = {"legal": [{"action": "fold"}, {"action": "call", "amount": 4},
                       {"action": "raise", "amount": 21, "min": 8, "max": 20}]}
    [mismatch] = compare_state(expect, wrong)
    assert mismatch.path == "legal" and "raise 8..20 (amount 21)" in mismatch.actual


def test_the_bundled_cases_fail_an_engine_whose_range_amount_lies() -> None:
    big_bet = [case for case in load_cases() if case.options.get("betting", "fixed_limit") != "fixed_limit"]
    client = EngineClient(lambda: InProcessTransport(lambda: planted_server("range_amount")))
    client.start()
    try:
        runner = Runner(client)
        verdicts = [runner.run(case) for case in big_bet]
    finally:
        client.stop()
    failing = [verdict for verdict in verdicts if verdict.outcome is Outcome.FAIL]
    # 52 of the 56 big-bet cases state a legal set with a range; each sees the lie there
    assert len(failing) >= 50, len(failing)
    assert all(verdict.mismatches[0].path == "legal" and "(amount " in str(verdict.mismatches[0].actual)
               for verdict in failing)


def test_the_fuzzer_finds_an_engine_whose_range_amount_lies(tmp_path: Path) -> None:
    from studcheck.commands.fuzz import FuzzConfig, fuzz

    lines: list[str] = []
    client = EngineClient(lambda: InProcessTransport(lambda: planted_server("range_amount")))
    # finding it is the claim (seed 1: in the first hand); shrinking what was found is tests/fuzz's, and here
    # would cost 40 times the search
    config = FuzzConfig(hands=100, seed=1, out=tmp_path, replay_engine="--engine ENGINE", shrink_replays=1, variants=())
    assert fuzz(client, config, out=lines.append) == 1, lines
    assert any(line.startswith("DIVERGENCE in hand ") for line in lines), lines
