"""Shrinking one divergent hand: Hypothesis on its recorded choices, then delta debugging.

The search (search.py) generates hands from a seeded `random.Random` and records every choice. A
divergent hand's choice list is handed to Hypothesis as a stored example (an in-memory example
database, under the secondary key so Hypothesis does not take it for an already-shrunk failure);
Hypothesis replays it, sees it fail, and its shrinker minimises the choices. Because every choice
is arranged so that smaller means simpler (strategies.py), a shrunk example is a hand with fewer
seats, fewer steps, smaller stacks and stakes, default options and passive play.

"The same divergence" means the same signature (kind of step, field with indices dropped, variant):
a candidate diverging elsewhere counts as passing, so the shrinker cannot slide from one bug to
another. The seed is fixed and the stop is a replay count, so shrinking is deterministic.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase
from hypothesis.errors import Flaky, HypothesisException

from studcheck.fuzz.play import ExchangeKind, HandRecord, Table
from studcheck.fuzz.strategies import Capabilities, HandSetup, Move, draw_setup
from studcheck.cases.deck import DeckError, deal_positions
from studcheck.rules import LATE_OPTIONS, Options, ShortStub, Variant

DEFAULT_SHRINK_SECONDS = 120.0
DEFAULT_SHRINK_REPLAYS = 1000
PATIENCE = 200  # the Hypothesis pass ends after this many replays in a row without a smaller hand
DATABASE_KEY = b"studcheck-fuzz-shrink"

try:  # the database stores choice sequences since Hypothesis 6.124
    from hypothesis.database import choices_to_bytes as _choices_to_bytes
except ImportError:  # pragma: no cover - an older Hypothesis: delta debugging only
    _choices_to_bytes = None  # type: ignore[assignment, unused-ignore]
choices_to_bytes: Callable[[Sequence[int]], bytes] | None = _choices_to_bytes


class _Diverged(Exception):
    """Raised inside the Hypothesis test: this example shows the divergence being shrunk."""


class _ShrinkBudget(BaseException):  # noqa: N818 - a signal, not an error
    """Stop shrinking (a BaseException passes straight through Hypothesis) and keep the best so far."""


class _NoProgress(BaseException):  # noqa: N818 - a signal, not an error
    """The Hypothesis pass has stopped finding smaller hands: leave the rest to delta debugging."""


@dataclass(kw_only=True)
class Progress:
    """Callbacks for the display; all optional."""

    hand_done: Callable[[HandRecord], None] = lambda record: None
    shrinking: Callable[[HandRecord], None] = lambda record: None
    shrink_step: Callable[[int, HandRecord], None] = lambda tries, best: None


@dataclass(frozen=True, kw_only=True)
class Shrunk:
    """The result of shrinking one hand."""

    hand: HandRecord  # the smallest hand showing the same divergence
    after_hypothesis: HandRecord  # the same before delta debugging
    hypothesis_replays: int
    reduce_replays: int
    seconds: float
    note: str | None = None  # a budget stop, or a divergence that does not reproduce


@lru_cache(maxsize=4096)
def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


class HypothesisChooser:
    """Choices drawn through Hypothesis (one integer choice each), so its shrinker can minimise them.

    Drawn from the test case's ConjectureData (internal, hence the fallback) rather than through
    `data.draw`: the same choices and spans, so the same shrinking, without what `data.draw` adds for
    a user's test (a note per draw, a check that the strategy left `random` alone, spans for the
    explain phase, which shrinking does not run): about half of each draw's time.
    """

    def __init__(self, data: st.DataObject) -> None:
        conjecture = getattr(data, "conjecture_data", None)
        self._draw = data.draw if conjecture is None else conjecture.draw

    def integer(self, low: int, high: int) -> int:
        if high <= low:
            return low
        value: int = self._draw(_integers(low, high))
        return value


@contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hypothesis mixes constants found in the *loaded local modules* into the values it makes up,
    which would make shrinking depend on which studcheck modules happen to be imported. Switch that
    off (private API, hence the guard)."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a Hypothesis without the feature
        yield
        return
    original = getattr(providers, "_get_local_constants", None)
    constants = getattr(providers, "Constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if original is None or constants is None:
        yield
        return
    empty: Any = constants()
    providers._get_local_constants = lambda: empty
    if cache is not None:
        cache.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original
        if cache is not None:
            cache.cache.clear()


def shrink(table: Table, caps: Capabilities, found: HandRecord, choices: Sequence[int], *, seed_value: int,
           replays: int = DEFAULT_SHRINK_REPLAYS, seconds: float = DEFAULT_SHRINK_SECONDS,
           progress: Progress | None = None) -> Shrunk:
    """The smallest hand showing `found`'s divergence, from its recorded `choices`.

    Each pass (Hypothesis, then delta debugging) may use `replays` replays; `seconds` is only a
    safety net (it makes the result depend on the machine's speed).
    """
    progress = progress or Progress()
    signature = found.signature
    assert signature is not None
    started = time.perf_counter()
    if choices_to_bytes is None:  # pragma: no cover - an older Hypothesis
        hand, replayed = reduce(table, found, caps, budget=replays, tried=progress.shrink_step)
        return Shrunk(hand=hand, after_hypothesis=found, hypothesis_replays=0, reduce_replays=replayed,
                      seconds=time.perf_counter() - started,
                      note="this Hypothesis is too old to shrink recorded choices (6.124 or later needed); "
                           "delta debugging only")
    best = found
    tries = 0
    stale = 0  # replays since the last smaller hand
    first: list[tuple[bool, bool]] = []  # the first replay (the found hand itself): same setup? same divergence?

    def budget() -> None:
        """Stop when the replays (counted as they start: Hypothesis abandons some mid-hand) are spent."""
        if tries > replays:
            raise _ShrinkBudget(f"shrinking stopped after {replays} replays; the smallest hand so far is kept")
        if time.perf_counter() - started > seconds:
            raise _ShrinkBudget(f"shrinking stopped after {seconds:g} s; the smallest hand so far is kept")

    def trial(data: st.DataObject) -> None:
        nonlocal tries, best, stale
        tries += 1
        stale += 1  # counted as they start, like the budget: Hypothesis abandons some mid-hand
        choose = HypothesisChooser(data)
        setup = draw_setup(choose, caps)
        record = table.play(setup, choose)
        budget()  # after the draws: stopping before them makes Hypothesis see inconsistent data
        if stale > PATIENCE:
            raise _NoProgress
        same = record.signature == signature
        if not first:
            first.append((setup == found.setup, same))
        if same and record.size < best.size:
            best, stale = record, 0
        progress.shrink_step(tries, best)
        if same:
            raise _Diverged  # one raise site: Hypothesis tells failures apart by where they are raised

    database = InMemoryExampleDatabase()
    database.save(DATABASE_KEY + b".secondary", choices_to_bytes(choices))
    run: Any = settings(max_examples=1, database=database, deadline=None, derandomize=False,
                        suppress_health_check=list(HealthCheck), phases=[Phase.reuse, Phase.shrink],
                        report_multiple_bugs=False, verbosity=Verbosity.quiet, print_blob=False)(
        seed(seed_value)(given(st.data())(trial)))
    run._hypothesis_internal_database_key = DATABASE_KEY
    note = None
    try:
        with _no_local_constants():
            run()
    except (_Diverged, _NoProgress):
        pass
    except _ShrinkBudget as exc:
        note = str(exc)
    except (Flaky, HypothesisException) as exc:
        note = f"shrinking stopped: {type(exc).__name__} (the engine may not be deterministic)"
    replayed, reproduced = first[0] if first else (False, False)
    if not replayed:  # the recorded choices did not make the same hand: a studcheck bug
        note = "internal: the recorded choices did not replay as the same hand; the hand as found is kept"
    elif not reproduced:
        note = ("the divergence did not reproduce when the hand was replayed (an engine that is not "
                "deterministic, or that carries state from one hand to the next?); the hand as found is kept")
    if note is not None and not (replayed and reproduced):
        return Shrunk(hand=found, after_hypothesis=found, hypothesis_replays=min(tries, replays), reduce_replays=0,
                      seconds=time.perf_counter() - started, note=note)
    after_hypothesis = best
    shrunk, reduce_replays = reduce(table, best, caps, budget=replays, tried=progress.shrink_step)
    return Shrunk(hand=shrunk, after_hypothesis=after_hypothesis, hypothesis_replays=min(tries, replays),
                  reduce_replays=reduce_replays, seconds=time.perf_counter() - started, note=note)


# --- delta debugging: Delta debugging on the concrete hand, after Hypothesis has shrunk the choice sequence.
#
#
# Why a second pass: Hypothesis shrinks the *choices* a hand was generated from, and a move is an
# index into the reference's legal list at that moment. Dropping a seat shifts the meaning of every
# later choice, so the shrinker rarely manages to remove seats from a hand with a long action
# sequence. Here the hand is the list of concrete requests sent (`3 raise 20`), and a candidate is
# the same hand with a seat and its actions removed, one action removed, a smaller stack, an
# option back at its default, no ante, or seats renumbered 1..n. A candidate is kept when it is
# smaller (HandRecord.size), every action keeps its fate on the reference (accepted stays accepted,
# refused stays refused), and the hands diverge in the same way (same signature). Deterministic,
# and bounded by a replay budget.


Candidate = tuple[HandSetup, list[Move]]


class _Spent(Exception):
    pass


def _keeps_fates(record: HandRecord) -> bool:
    return all(bool(exchange.reference.get("ok")) == exchange.move.meant_legal
               for exchange in record.exchanges if exchange.kind == ExchangeKind.ACT and exchange.move is not None)


def _dealt(record: HandRecord) -> dict[int, list[str]] | None:
    """Each seat's cards in the order received, as the reference dealt them by the divergence."""
    for exchange in reversed(record.exchanges):
        if exchange.kind != ExchangeKind.STATE and exchange.reference.get("ok"):
            rows = exchange.reference["state"]["seats"]
            return {row["seat"]: list(row["down"][:2]) + list(row["up"]) + list(row["down"][2:]) for row in rows}
    return None


def _redealt(record: HandRecord, keep: Sequence[int]) -> tuple[str, ...] | None:
    """A deck that gives the seats in `keep` the very cards they got (and keeps the burns and the
    order of the rest), so removing a seat does not reshuffle everybody else's cards."""
    setup = record.setup
    dealt = _dealt(record)
    if dealt is None:
        return None
    burning = bool(setup.options.get("burn_cards", True))
    stub_rule = ShortStub(setup.options.get("short_stub", "remake"))
    variant = Variant(setup.variant)  # where each card goes depends on the variant's deal
    try:
        before = deal_positions({seat: len(cards) for seat, cards in dealt.items()}, burn_cards=burning,
                                short_stub=stub_rule, variant=variant)
        after = deal_positions({seat: len(dealt[seat]) for seat in keep}, burn_cards=burning, short_stub=stub_rule,
                               variant=variant)
    except DeckError:  # e.g. a short stub: per-seat dealing cannot say where the cards go
        return None
    slots: list[str | None] = [None] * len(setup.deck)
    for seat in keep:
        for position, card in zip(after.seat_positions[seat], dealt[seat]):
            slots[position] = card
    for position, burn in zip(after.burn_positions, [setup.deck[p] for p in before.burn_positions]):
        slots[position] = burn
    rest = iter([card for card in setup.deck if card not in set(slots)])
    return tuple(card if card is not None else next(rest) for card in slots)


def _without_seat(record: HandRecord, moves: Sequence[Move]) -> Iterator[Candidate]:
    setup = record.setup
    if len(setup.seats) <= 2:
        return
    for seat, _ in reversed(setup.seats):
        seats = tuple(item for item in setup.seats if item[0] != seat)
        kept = [move for move in moves if move.seat != seat]
        deck = _redealt(record, [number for number, _ in seats])
        if deck is not None:
            yield replace(setup, seats=seats, deck=deck), kept
        yield replace(setup, seats=seats), kept


def _without_move(setup: HandSetup, moves: Sequence[Move]) -> Iterator[Candidate]:
    refused_first = sorted(range(len(moves) - 1), key=lambda index: (moves[index].meant_legal, -index))
    for index in refused_first:
        yield setup, [move for number, move in enumerate(moves) if number != index]


def _smaller_stacks(setup: HandSetup, moves: Sequence[Move], used: dict[int, int]) -> Iterator[Candidate]:
    for position, (seat, stack) in enumerate(setup.seats):
        for smaller in sorted({used.get(seat, 0) + 1, stack // 2}, reverse=True):
            if 0 < smaller < stack:
                seats = list(setup.seats)
                seats[position] = (seat, smaller)
                yield replace(setup, seats=tuple(seats)), list(moves)


def _simpler_setup(setup: HandSetup, moves: Sequence[Move], caps: Capabilities) -> Iterator[Candidate]:
    if setup.stakes["ante"] > 0:
        yield replace(setup, stakes={**setup.stakes, "ante": 0}), list(moves)
    if setup.remade_stub is not None:
        yield replace(setup, remade_stub=None), list(moves)
    for name, default in Options().to_json().items():
        values = caps.options.get(name)
        supported = values is None or any(type(v) is type(default) and v == default for v in values)
        if setup.options.get(name) != default and supported:
            yield replace(setup, options={**setup.options, name: default}), list(moves)
    for name in LATE_OPTIONS:
        if name in setup.options:  # a late option at its default is left out of new_hand
            yield replace(setup, options={key: value for key, value in setup.options.items() if key != name}), list(moves)
    numbers = [seat for seat, _ in setup.seats]
    if numbers != list(range(1, len(numbers) + 1)):
        mapping = {old: new for new, old in enumerate(numbers, start=1)}
        seats = tuple((mapping[seat], stack) for seat, stack in setup.seats)
        renumbered = [replace(move, seat=mapping.get(move.seat, move.seat)) for move in moves]
        yield replace(setup, seats=seats), renumbered


def _chips_used(record: HandRecord) -> dict[int, int]:
    """Chips each seat had put in by the divergence (per the reference)."""
    for exchange in reversed(record.exchanges):
        if exchange.kind != ExchangeKind.STATE and exchange.reference.get("ok"):
            start = dict(record.setup.seats)
            return {row["seat"]: start[row["seat"]] - row["stack"] for row in exchange.reference["state"]["seats"]}
    return {}


def reduce(table: Table, record: HandRecord, caps: Capabilities, *, budget: int,
           tried: Callable[[int, HandRecord], None] = lambda tries, best: None) -> tuple[HandRecord, int]:
    """The smallest hand reachable by greedy reductions within `budget` replays, and the replays used."""
    signature = record.signature
    assert signature is not None
    best = record
    tries = 0

    def attempt(candidate: Candidate) -> HandRecord | None:
        nonlocal tries
        if tries >= budget:
            raise _Spent
        tries += 1
        result = table.replay(*candidate)
        tried(tries, best)
        if (result.signature == signature and result.size < best.size and _keeps_fates(result)):
            return result
        return None

    def candidates(current: HandRecord) -> Iterator[Candidate]:
        moves = current.moves()
        yield from _without_seat(current, moves)
        yield from _without_move(current.setup, moves)
        yield from _smaller_stacks(current.setup, moves, _chips_used(current))
        yield from _simpler_setup(current.setup, moves, caps)

    try:
        improved = True
        while improved:
            improved = False
            for candidate in candidates(best):
                found = attempt(candidate)
                if found is not None:
                    best, improved = found, True
                    break
    except _Spent:
        pass
    return best, tries
