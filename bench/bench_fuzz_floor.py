"""How fast the fuzzer itself can go: its own work per hand, against an engine that costs nothing.

`studcheck fuzz` plays every hand twice: on the engine under test and on its in-process reference,
which also decides every move and whose state after every request is compared with the engine's.
This measures that side alone. The same hands are first played against the in-process reference
engine while its answer lines are recorded; then the search runs again, in process, against a
transport that hands back the recorded lines instantly (no engine work, no pipe). The second run's
rate is the most `studcheck fuzz` can reach on this machine with any engine, however fast, since
everything it times is the fuzzer's own work: the reference engine, choosing moves, encoding
requests and comparing answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from studcheck.fuzz.play import Table
from studcheck.fuzz.search import SearchConfig, search
from studcheck.fuzz.strategies import Capabilities
from studcheck.protocol.client import DEFAULT_TIMEOUT, EngineClient, EngineError, InProcessTransport, Problem


class _Recording(InProcessTransport):
    """The in-process reference engine, keeping every answer line it gives."""

    def __init__(self, answers: list[bytes]) -> None:
        super().__init__()
        self._answers = answers

    def receive(self, timeout: float) -> bytes:
        line = super().receive(timeout)
        self._answers.append(line)
        return line


class _Replaying:
    """An engine that answers instantly with recorded lines, in order (it ignores what it is sent)."""

    def __init__(self, answers: list[bytes]) -> None:
        self._answers = answers
        self._next = 0

    def start(self) -> None:
        self._next = 0

    def send(self, line: bytes, timeout: float = DEFAULT_TIMEOUT, *, answers_due: int = 0) -> None:
        return None

    def receive(self, timeout: float) -> bytes:
        if self._next >= len(self._answers):
            raise EngineError(Problem.CRASH, "the recording ran out: the replay did not play the recorded hands")
        line = self._answers[self._next]
        self._next += 1
        return line

    def stderr_tail(self) -> str:
        return ""

    def unsolicited(self, wait: float, *, patience: float = 0.0) -> bool:
        """A recording holds exactly the answers asked for: nothing is ever left over."""
        return True

    def mark_stderr(self) -> None:
        return None

    def stderr_excerpt(self) -> str:
        return ""

    def close(self, grace: float = 1.0) -> None:
        return None


@dataclass(frozen=True, kw_only=True)
class Floor:
    hands: int
    seconds: float
    requests: int

    @property
    def rate(self) -> float:
        return self.hands / self.seconds


def _search(client: EngineClient, hands: int, seed: int) -> Floor:
    info = client.start()
    try:
        result = search(Table(client), Capabilities.from_hello(info), SearchConfig(hands=hands, seed=seed))
    finally:
        client.stop(polite=False)
    if result.findings:
        raise RuntimeError(f"the reference diverged from itself: {list(result.findings)}")
    return Floor(hands=result.hands, seconds=result.seconds, requests=result.requests)


def fuzzer_floor(hands: int, seed: int, repeat: int) -> Floor:
    """The fastest of `repeat` replays of `hands` fuzz hands against an engine that costs nothing."""
    answers: list[bytes] = []
    _search(EngineClient(lambda: _Recording(answers)), hands, seed)
    best: Floor | None = None
    for _ in range(max(1, repeat)):
        floor = _search(EngineClient(lambda: _Replaying(answers)), hands, seed)
        if best is None or floor.seconds < best.seconds:
            best = floor
    assert best is not None
    return best
