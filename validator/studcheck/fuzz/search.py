"""The search: generated hands, played side by side, divergences grouped by signature and shrunk.

Hand number N of seed S is made by a `random.Random` seeded from (S, N) alone, so a seed always
plays the same hands and any hand can be regenerated on its own; nothing is kept between hands
but counters, so memory does not grow with `--hands`. A divergent hand's recorded choices go to
shrink.py. By default the search stops at the first new signature; with `--keep-going` it goes on,
shrinking one hand per new signature and counting the rest, until `max_new` new signatures.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from studcheck.fuzz.choosers import RandomChooser, hand_seed
from studcheck.fuzz.known import Known, known_reason
from studcheck.fuzz.play import HandRecord, Planned, Signature, Table
from studcheck.fuzz.shrink import DEFAULT_SHRINK_REPLAYS, DEFAULT_SHRINK_SECONDS, Progress, Shrunk, shrink
from studcheck.fuzz.strategies import Capabilities, draw_setup


@dataclass(kw_only=True)
class Finding:
    """One signature: the first hand that showed it, how many hands did, and its shrunk hand if new."""

    signature: Signature
    found: HandRecord
    found_at: int  # the hand's number (1-based)
    hands: int = 1
    known: str | None = None  # why it is known (--known), or None if it is new
    shrunk: Shrunk | None = None


@dataclass(kw_only=True)
class SearchResult:
    hands: int = 0  # generated hands played (not counting shrink replays)
    actions: int = 0
    refused: int = 0
    skipped: int = 0
    requests: int = 0  # requests to the engine under test while generating
    restarts: int = 0  # engine restarts after failing on requests sent past a divergence
    seconds: float = 0.0  # time spent generating and playing (not shrinking or reporting)
    findings: dict[Signature, Finding] = field(default_factory=dict)  # in order of first appearance
    stopped: bool = False  # stopped at max_new new signatures before playing every hand

    @property
    def new(self) -> list[Finding]:
        return [finding for finding in self.findings.values() if finding.known is None]

    @property
    def divergent_hands(self) -> int:
        return sum(finding.hands for finding in self.findings.values())


@dataclass(frozen=True, kw_only=True)
class SearchConfig:
    hands: int
    seed: int
    max_new: int = 1  # stop after this many new signatures (1 without --keep-going)
    known: tuple[Known, ...] = ()
    shrink_replays: int = DEFAULT_SHRINK_REPLAYS
    shrink_seconds: float = DEFAULT_SHRINK_SECONDS


@dataclass(kw_only=True)
class _Hand:
    """Generated hand number `number`: dealt out to the engine, then settled (compared) once."""

    number: int
    choose: RandomChooser
    planned: Planned
    record: HandRecord | None = None

    @classmethod
    def deal_out(cls, table: Table, caps: Capabilities, seed: int, number: int) -> _Hand:
        choose = RandomChooser(hand_seed(seed, number))
        return cls(number=number, choose=choose, planned=table.deal_out(draw_setup(choose, caps), choose))

    def settle(self, table: Table) -> HandRecord:
        if self.record is None:
            self.record = table.settle(self.planned)
        return self.record


def search(table: Table, caps: Capabilities, config: SearchConfig, *, progress: Progress | None = None,
           on_new: Callable[[Finding], None] = lambda finding: None) -> SearchResult:
    """Play up to `config.hands` hands; shrink and hand to `on_new` the first hand of each new signature."""
    progress = progress or Progress()
    result = SearchResult()
    elsewhere = 0.0  # seconds spent shrinking and reporting
    started = time.perf_counter()
    ahead = _Hand.deal_out(table, caps, config.seed, 1) if config.hands else None
    while ahead is not None:
        current, number = ahead, ahead.number
        # The next hand goes to the engine before this one is compared: the engine answers it
        # while this process compares and the reference plays the one after (see Table).
        ahead = _Hand.deal_out(table, caps, config.seed, number + 1) if number < config.hands else None
        restarts = table.restarts
        record = current.settle(table)
        if table.restarts != restarts and ahead is not None:  # dealt out to the engine process that was replaced
            table.requests -= len(ahead.planned.sent)
            ahead = _Hand.deal_out(table, caps, config.seed, ahead.number)
        result.hands += 1
        result.actions += record.actions
        result.refused += record.refused
        result.skipped += record.skipped is not None
        progress.hand_done(record)
        signature = record.signature
        if signature is None:
            continue
        finding = result.findings.get(signature)
        if finding is not None:
            finding.hands += 1
            continue
        finding = Finding(signature=signature, found=record, found_at=number,
                          known=known_reason(config.known, signature))
        result.findings[signature] = finding
        if finding.known is not None:
            continue
        if ahead is not None:  # the engine must be idle and in step before shrinking talks to it
            ahead.settle(table)
        result.requests = table.requests
        aside = time.perf_counter()
        progress.shrinking(record)
        finding.shrunk = shrink(table, caps, record, current.choose.choices, seed_value=config.seed,
                                replays=config.shrink_replays, seconds=config.shrink_seconds, progress=progress)
        on_new(finding)
        elsewhere += time.perf_counter() - aside
        table.requests = result.requests  # shrink replays and the report do not count as generated requests
        if len(result.new) >= config.max_new:
            result.stopped = number < config.hands
            break
    if ahead is not None and ahead.record is None:
        table.discard(ahead.planned)  # dealt out but not counted: the search stopped before it
    result.requests = table.requests
    result.restarts = table.restarts
    result.seconds = time.perf_counter() - started - elsewhere
    return result
