"""The fuzzer refuses an answer holding a string the report readers would refuse, as `run` does (issue 33).

Its answers go through the same client checks; the schema problem it words itself (fuzz/play.py's
Checker) is cut short as the client's is, since jsonschema's words quote the offending value whole.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from studcheck.fuzz.play import Table
from studcheck.fuzz.strategies import Capabilities, RandomChooser, draw_setup, hand_seed
from studcheck.protocol.client import EngineClient, SubprocessTransport

ENGINES = Path(__file__).resolve().parents[1] / "engines"


@pytest.mark.parametrize(("args", "words"), [
    (("extra", "2000000"), "a string of 2,000,000 characters (at most 100,000"),
    (("schema", "3000000"), "breaks the protocol schema: state.to_act: ['xxxxxxxxxx', "),
])
def test_a_long_string_in_an_answer_is_a_bad_response_with_its_reason(args: tuple[str, ...], words: str) -> None:
    client = EngineClient(lambda: SubprocessTransport([sys.executable, str(ENGINES / "long_string.py"), *args]))
    caps = Capabilities.from_hello(client.start())
    try:
        choose = RandomChooser(hand_seed(0, 1))
        record = Table(client).play(draw_setup(choose, caps), choose)
    finally:
        client.stop(polite=False)
    assert record.failure is not None
    error = record.failure.error
    assert error.problem.value == "bad_response" and words in error.message
    assert len(error.message) < 5000  # jsonschema quoted 3 MB (MAX_PROBLEM_CHARS: 2,000)
