"""The search keeps `AHEAD` hands dealt out to the engine beyond the one it compares, and hands dealt
out to an engine process that failed are dealt out again, in order, to the restarted one.

The engine is the reference in process, behind a transport that logs what it is sent (and, for the
second test, fails on one hand): which hands were in the engine's input when each hand was
compared is then exact, whatever the timing.
"""

from __future__ import annotations

import json
from typing import Any

from studcheck.fuzz.census import Finding
from studcheck.fuzz.play import HandRecord, Table
from studcheck.fuzz.search import AHEAD, SearchConfig, search
from studcheck.fuzz.strategies import Capabilities
from studcheck.protocol.client import DEFAULT_TIMEOUT, EngineClient, EngineError, InProcessTransport, Problem

HANDS = 12


class Logged(InProcessTransport):
    """The reference engine, keeping the deck of every new_hand it is sent; with `fail_on`, it dies
    (its input closed: the write fails) on the new_hand of that number, counting from 1."""

    def __init__(self, decks: list[list[str]], fail_on: int | None = None) -> None:
        super().__init__()
        self.decks = decks
        self._fail_on = fail_on

    def send(self, line: bytes, timeout: float = DEFAULT_TIMEOUT, *, answers_due: int = 0) -> None:
        for piece in line.splitlines():
            request: dict[str, Any] = json.loads(piece)
            if request["type"] == "new_hand":
                if self._fail_on is not None and len(self.decks) + 1 == self._fail_on:
                    self._server = None  # nothing more is answered
                    raise EngineError(Problem.CRASH, "the engine stopped reading its input (planted)")
                self.decks.append(request["deck"])
        super().send(line, timeout, answers_due=answers_due)


def _search(client: EngineClient, on_hand: Any, *, max_new: int = 1) -> tuple[int, list[int]]:
    info = client.start()
    numbers: list[int] = []

    def settled(number: int, record: HandRecord, finding: Finding | None) -> None:
        numbers.append(number)
        on_hand(number, record)

    try:
        result = search(Table(client), Capabilities.from_hello(info), SearchConfig(hands=HANDS, seed=5, max_new=max_new),
                        on_hand=settled)
    finally:
        client.stop(polite=False)
    return result.hands, numbers


def test_the_engine_holds_ahead_hands_beyond_the_one_compared() -> None:
    decks: list[list[str]] = []
    dealt_when_settled: dict[int, int] = {}
    hands, numbers = _search(EngineClient(lambda: Logged(decks)),
                             lambda number, record: dealt_when_settled.setdefault(number, len(decks)))
    assert AHEAD >= 2
    assert hands == HANDS and numbers == list(range(1, HANDS + 1))
    # hand N is compared once hands N+1 .. N+AHEAD were sent (fewer at the end of the run)
    assert dealt_when_settled == {number: min(number + AHEAD, HANDS) for number in numbers}


def test_hands_dealt_out_to_a_failed_engine_are_dealt_out_again_in_order() -> None:
    fail_on = 3
    engines: list[Logged] = []

    def factory() -> Logged:
        engines.append(Logged([], fail_on=fail_on if not engines else None))
        return engines[-1]

    setups: dict[int, list[str]] = {}
    hands, numbers = _search(EngineClient(factory), lambda number, record: setups.setdefault(number, list(record.setup.deck)),
                             max_new=HANDS)
    assert hands == HANDS and numbers == list(range(1, HANDS + 1))  # each hand settled once, in order
    assert len(engines) == 2  # one restart, after the failure
    first, second = engines
    assert first.decks == [setups[1], setups[2]]  # the hand it failed on never reached it
    # hand 3 failed; the hands dealt out after it to the failed process went to the new one, in order
    assert second.decks == [setups[number] for number in range(fail_on + 1, HANDS + 1)]
