"""The search: generated hands, played side by side, divergences grouped by signature and shrunk.

Hand number N of seed S is made by a `random.Random` seeded from (S, N) alone, so a seed always
plays the same hands and any hand can be regenerated on its own; nothing is kept between hands
but counters, so memory does not grow with `--hands`. A divergent hand's recorded choices go to
shrink.py. A hand in which the engine broke the protocol (a crash, a timeout, a broken answer) is a
finding too, with the signature `error PROBLEM VARIANT`: it is not shrunk, its reproducer is written
as it happened, and the engine is restarted for the next hand. By default the search stops at the
first new signature; with `--keep-going` it goes on, shrinking one hand per new divergence and
counting the rest, until `max_new` new signatures.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from studcheck.fuzz.census import PAST_FAILURES_KEPT, Finding, SearchResult
from studcheck.fuzz.strategies import RandomChooser, hand_seed
from studcheck.fuzz.known import Known, known_reason
from studcheck.fuzz.compare import Signature
from studcheck.fuzz.play import EngineMisbehaved, HandRecord, Planned, ReferenceFailed, Table
from studcheck.fuzz.shrink import DEFAULT_SHRINK_REPLAYS, DEFAULT_SHRINK_SECONDS, Progress, shrink
from studcheck.fuzz.strategies import Capabilities, draw_setup
from studcheck.protocol.client import EngineError, Stopped


@dataclass(frozen=True, kw_only=True)
class SearchConfig:
    hands: int  # the last hand number
    seed: int
    numbers: range | None = None  # the hand numbers to play, in order (a shard's, a worker's); None: 1..hands
    duration: float | None = None  # seconds: deal no new hand after this long
    max_new: int = 1  # stop after this many new signatures (1 without --keep-going)
    known: tuple[Known, ...] = ()
    shrink_replays: int = DEFAULT_SHRINK_REPLAYS
    shrink_seconds: float = DEFAULT_SHRINK_SECONDS


AFTER_RUN_WAIT = 0.05  # how long to listen for a line nobody asked for after the last answer (as `run` does)
#: hands dealt out to the engine beyond the one being settled. One is not enough: the engine answers
#: a whole hand's batch at once, and a long hand followed by a short one leaves the fuzzer waiting
#: (and its core idle) for most of the long hand's answers; a second hand in the pipe covers it.
#: The pipes hold a few hands' requests and answers; a fuller one only makes a writer wait (and
#: the client reads answers while it waits to write, so neither side can block the other).
AHEAD = 2


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


OnHand = Callable[[int, HandRecord, "Finding | None"], None]
Claim = Callable[[Signature, int], bool]  # shrink and report this new signature's hand? (pool: no if seen earlier)


def search(table: Table, caps: Capabilities, config: SearchConfig, *, progress: Progress | None = None,
           on_new: Callable[[Finding], None] = lambda finding: None,
           on_hand: OnHand = lambda number, record, finding: None,
           listen_at_end: bool = True, claim: Claim = lambda signature, number: True) -> SearchResult:
    """Play the hands `config.numbers` (default 1..hands); hand to `on_new` the first hand of each new
    signature (a divergence shrunk first; a hand in which the engine broke the protocol as it is).

    `on_hand(number, record, finding)` follows every settled hand, with the Finding it opened if it
    is the first of its signature here (the worker pool sends these to the parent). `claim(signature,
    number)` False leaves a new signature's hand unshrunk and unreported (another worker has an earlier
    hand with it, which is the one that counts). EngineMisbehaved
    (a signal, the deadline, an engine that cannot be restarted) and ReferenceFailed leave with
    `hand` set to the number of the hand being played or shrunk.
    """
    progress = progress or Progress()
    result = SearchResult()
    numbers = config.numbers if config.numbers is not None else range(1, config.hands + 1)
    state = _Search(table=table, caps=caps, config=config, numbers=numbers, progress=progress, on_new=on_new,
                    on_hand=on_hand, claim=claim, result=result, listen_at_end=listen_at_end)
    started = time.perf_counter()
    try:
        state.run()
    except (EngineMisbehaved, ReferenceFailed) as exc:
        if exc.hand is None:
            exc.hand = state.number
        if isinstance(exc, EngineMisbehaved):
            exc.shrinking = exc.shrinking or state.shrinking
        raise
    result.requests = table.requests
    result.seconds = time.perf_counter() - started - state.elsewhere
    return result


@dataclass(kw_only=True)
class _Search:
    table: Table
    caps: Capabilities
    config: SearchConfig
    numbers: range
    progress: Progress
    on_new: Callable[[Finding], None]
    on_hand: OnHand
    claim: Claim
    result: SearchResult
    listen_at_end: bool
    number: int = 0  # the hand being settled (or shrunk)
    shrinking: bool = False
    elsewhere: float = 0.0  # seconds spent shrinking and reporting
    ends: float | None = None  # time.monotonic() after which no new hand is dealt (--duration)

    def deal(self, number: int) -> _Hand:
        try:
            return _Hand.deal_out(self.table, self.caps, self.config.seed, number)
        except (EngineMisbehaved, ReferenceFailed) as exc:
            exc.hand = exc.hand or number
            raise

    def following(self, index: int) -> _Hand | None:
        """Deal out the hand at `index` of the numbers, or None past the last (or past --duration)."""
        if index >= len(self.numbers):
            return None
        if self.ends is not None and time.monotonic() >= self.ends:
            self.result.out_of_time = True
            return None
        return self.deal(self.numbers[index])

    def run(self) -> None:
        table, config, result = self.table, self.config, self.result
        if config.duration is not None:
            self.ends = time.monotonic() + config.duration
        ahead: deque[_Hand] = deque()  # dealt out, not settled yet, in the order dealt
        index, more = 0, True
        last: _Hand | None = None
        while True:
            # The next hands go to the engine before this one is compared: the engine answers them
            # while this process compares and the reference plays the ones after (see Table).
            while more and len(ahead) <= AHEAD:
                dealt = self.following(index)
                if dealt is None:
                    more = False
                else:
                    ahead.append(dealt)
                    index += 1
            if not ahead:
                break
            last = ahead.popleft()
            self.number = last.number
            record = last.settle(table)
            result.count(self.number, record)
            self.progress.hand_done(record)
            opened = len(result.findings)
            stop = record.signature is not None and self.find(last, ahead)
            opened_now = record.signature is not None and len(result.findings) > opened
            self.on_hand(self.number, record, result.findings[record.signature] if opened_now and record.signature else None)
            if stop:
                break
            self.deal_again(ahead)
        unsettled = [hand for hand in ahead if hand.record is None]
        for hand in unsettled:
            table.discard(hand.planned)  # dealt out but not counted: the search stopped before it
        if not unsettled and last is not None and not result.stopped and not table.broken and self.listen_at_end:
            self.listen_after_the_last_answer(last)

    def deal_again(self, ahead: deque[_Hand]) -> None:
        """Deal out again, in order, the hands dealt out to an engine process that failed (the first
        one restarts it)."""
        for position in range(len(ahead)):
            hand = ahead[position]
            if hand.record is None and not self.table.live(hand.planned):
                self.table.requests -= len(hand.planned.sent)
                ahead[position] = self.deal(hand.number)

    def find(self, hand: _Hand, ahead: Sequence[_Hand]) -> bool:
        """File a settled hand's finding (shrunk and reported if new); True if the search must stop."""
        result, table, record = self.result, self.table, hand.record
        assert record is not None and record.signature is not None
        signature = record.signature
        finding = result.findings.get(signature)
        if finding is not None:
            finding.hands += 1
            return False
        finding = Finding(signature=signature, found=record, found_at=self.number,
                          known=known_reason(self.config.known, signature))
        result.findings[signature] = finding
        if finding.known is not None:
            return False
        if not self.claim(signature, self.number):
            return len(result.new) >= self.config.max_new  # still new here: this search stops no later than the whole run
        for later in ahead:  # the engine must be idle and in step before shrinking talks to it
            if later.record is None and table.live(later.planned):
                later.settle(table)
        result.requests = table.requests
        aside = time.perf_counter()
        if record.failure is None:  # a divergence: shrink it (a failure is written as it happened)
            self.progress.shrinking(record)
            self.shrinking = True
            restarts = table.restarts + table.broken  # a restart owed to the hand found is not the shrinking's
            finding.shrunk = shrink(table, self.caps, record, hand.choose.choices, seed_value=self.config.seed,
                                    replays=self.config.shrink_replays, seconds=self.config.shrink_seconds,
                                    progress=self.progress)
            table.ensure_running()  # count the last candidate's failure too, and leave the engine ready
            finding.shrink_failures = table.restarts - restarts
            self.shrinking = False
        self.on_new(finding)
        self.elsewhere += time.perf_counter() - aside
        table.requests = result.requests  # shrink replays and the report do not count as generated requests
        if len(result.new) >= self.config.max_new:
            result.stopped = self.number < self.numbers[-1]
            return True
        return False

    def listen_after_the_last_answer(self, last: _Hand) -> None:
        """A line nobody asked for after the run's last answer (`studcheck run` listens after its last
        case too) is a failure of the last hand, or a failure past its divergence."""
        aside = time.perf_counter()
        try:
            self.table.engine.expect_quiet(AFTER_RUN_WAIT)
        except Stopped as exc:
            raise EngineMisbehaved(exc, last.record, {}) from None
        except EngineError as exc:
            record = self.table.fail_after(last.planned, exc)
            if record.past_failure is not None:
                self.result.past_failures += 1
                if len(self.result.first_past_failures) < PAST_FAILURES_KEPT:
                    self.result.first_past_failures.append((self.number, record.past_failure))
            elif record.signature is not None:
                self.find(last, ())
        finally:
            self.elsewhere += time.perf_counter() - aside
