"""The search: Hypothesis generates hands, and its shrinker minimises the first divergence.

Every hand is one Hypothesis example drawn through `st.data()`: the setup first, then each move
as the hand goes on (moves depend on the reference's answers, so they cannot be drawn up front).
Hypothesis shrinks the underlying choice sequence; because every draw is arranged so that
smaller means simpler (see strategies.py), a shrunk example is a hand with fewer seats, fewer
steps, smaller stacks and stakes, default options and passive play.

"The same divergence" while shrinking means the same kind of step (setup, accepted action,
refused action, state after a refusal) and the same field with indices dropped
(`state.pots[].amount`): a candidate diverging elsewhere counts as passing, so the shrinker cannot
slide from one bug to another. Phases are generate then shrink; the example database is off and
the seed is fixed, so a seed always plays the same hands.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky, HypothesisException

from studcheck.fuzz.play import HandRecord, Table
from studcheck.fuzz.reduce import reduce
from studcheck.fuzz.strategies import Capabilities, setups

DEFAULT_SHRINK_SECONDS = 120.0
DEFAULT_SHRINK_REPLAYS = 1000


class _Diverged(Exception):
    """Raised inside the Hypothesis test: this example shows the divergence being hunted."""


class _ShrinkBudget(BaseException):  # noqa: N818 - a signal, not an error
    """Stop shrinking (a BaseException passes straight through Hypothesis) and keep the best so far."""


@dataclass(kw_only=True)
class Progress:
    """Callbacks for the display; all optional."""

    hand_done: Callable[[HandRecord], None] = lambda record: None
    shrinking: Callable[[HandRecord], None] = lambda record: None
    shrink_step: Callable[[int, HandRecord], None] = lambda tries, best: None


@dataclass(kw_only=True)
class SearchResult:
    hands: int = 0  # generated hands played (not counting shrink replays)
    actions: int = 0
    refused: int = 0
    skipped: int = 0
    requests: int = 0  # requests to the engine under test while generating
    seconds: float = 0.0
    found: HandRecord | None = None  # the first divergent hand, as generated
    found_at: int = 0  # its number (1-based)
    shrunk: HandRecord | None = None  # the smallest hand showing the same divergence
    shrink_tries: int = 0
    after_hypothesis: HandRecord | None = None  # the shrunk hand before delta debugging
    reduce_tries: int = 0
    shrink_seconds: float = 0.0
    shrink_note: str | None = None  # e.g. time limit or flakiness
    history: list[tuple[int, int]] = field(default_factory=list)


@contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hypothesis mixes constants found in the *loaded local modules* into generation, so the hands
    of a seed would depend on which studcheck modules happen to be imported (and on their source).
    Switch that off for the search (private API, hence the guard); without it a seed is still
    deterministic for one command, just not across code changes."""
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


CHUNK = 1000  # hands per Hypothesis run: its record of every example grows by ~50 MB per 1000 hands


def _chunks(hands: int) -> list[int]:
    return [min(CHUNK, hands - start) for start in range(0, max(hands, 1), CHUNK)]


def _chunk_seed(seed_value: int, chunk: int) -> int:
    """Chunk 0 uses the seed itself; later chunks get seeds of their own, derived from it."""
    return seed_value if chunk == 0 else seed_value + chunk * 1_000_000_007


def search(table: Table, caps: Capabilities, *, hands: int, seed_value: int,
           progress: Progress | None = None, shrink_seconds: float = DEFAULT_SHRINK_SECONDS,
           shrink_replays: int = DEFAULT_SHRINK_REPLAYS) -> SearchResult:
    """Play up to `hands` generated hands; on the first divergence shrink it.

    Deterministic per seed: shrinking stops after `shrink_replays` replays (a count, so the result
    does not depend on the machine's speed); `shrink_seconds` is only a safety net.
    """
    progress = progress or Progress()
    result = SearchResult()
    started = time.perf_counter()
    shrink_started = 0.0

    def budget() -> None:
        """Stop when the replays (counted as they start: Hypothesis abandons some mid-hand) are spent."""
        if result.shrink_tries > shrink_replays:
            raise _ShrinkBudget(f"shrinking stopped after {shrink_replays} replays; the smallest hand so far is kept")
        if time.perf_counter() - shrink_started > shrink_seconds:
            raise _ShrinkBudget(f"shrinking stopped after {shrink_seconds:g} s; the smallest hand so far is kept")

    def consider(record: HandRecord) -> bool:
        """During shrinking: does this replay show the hunted divergence? Keep the smallest."""
        assert result.found is not None and result.found.divergence is not None
        same = record.divergence is not None and record.divergence.signature == result.found.divergence.signature
        if same and (result.shrunk is None or record.size < result.shrunk.size):
            result.shrunk = record
        progress.shrink_step(result.shrink_tries, result.shrunk or result.found)
        return same

    setup_strategy = setups(caps)
    limit = 0  # cumulative hands allowed up to the end of the current chunk

    def trial(data: st.DataObject) -> None:
        result.shrink_tries += result.found is not None
        setup = data.draw(setup_strategy)
        record = table.play(setup, data.draw)
        if result.found is not None:
            budget()  # after the draws: stopping before them makes Hypothesis see inconsistent data
            failing = consider(record)
        elif result.hands >= limit:
            failing = False  # Hypothesis may ask for a few more examples than max_examples; they do not count
        else:
            failing = first_run(record)
        if failing:
            raise _Diverged  # one raise site: Hypothesis tells failures apart by where they are raised

    def first_run(record: HandRecord) -> bool:
        nonlocal shrink_started
        result.hands += 1
        result.actions += record.actions
        result.refused += record.refused
        result.skipped += record.skipped is not None
        progress.hand_done(record)
        if record.divergence is None:
            return False
        result.found, result.found_at, result.shrunk = record, result.hands, record
        result.seconds = time.perf_counter() - started
        result.requests = table.requests
        shrink_started = time.perf_counter()
        progress.shrinking(record)
        return True

    for chunk, size in enumerate(_chunks(hands)):
        limit += size
        run = settings(max_examples=size, database=None, deadline=None, derandomize=False,
                       suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink],
                       report_multiple_bugs=False, verbosity=Verbosity.quiet, print_blob=False)(
            seed(_chunk_seed(seed_value, chunk))(given(st.data())(trial)))
        try:
            with _no_local_constants():
                run()
        except _Diverged:
            pass
        except _ShrinkBudget as exc:
            result.shrink_note = str(exc)
        except (Flaky, HypothesisException) as exc:
            if result.found is None:
                raise
            result.shrink_note = f"shrinking stopped: {type(exc).__name__} (the engine may not be deterministic)"
        if result.found is not None:
            break
    result.shrink_tries = min(result.shrink_tries, shrink_replays)
    if result.found is None:
        result.seconds = time.perf_counter() - started
        result.requests = table.requests
        return result
    assert result.shrunk is not None
    result.after_hypothesis = result.shrunk
    result.shrunk, result.reduce_tries = reduce(table, result.shrunk, caps, budget=shrink_replays,
                                                tried=progress.shrink_step)
    result.shrink_seconds = time.perf_counter() - shrink_started
    return result
