"""What one `studcheck fuzz` run is asked to do: the parsed command line, shared by every stage.

Its own module so that the command (commands.py), the campaign drivers (search.py, pool.py) and the
report (report.py) can all read it without importing each other.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from studcheck.fuzz.known import Known

DEFAULT_HANDS = 200
DEFAULT_OUT = Path("fuzz-cases")
DEFAULT_MAX_DIVERGENCES = 20
UNBOUNDED = sys.maxsize  # the last hand number of a `--duration` run without `--hands`


@dataclass(frozen=True, kw_only=True)
class Shard:
    """Shard K of N (1-based): the hands whose number is K modulo N (hand K, K + N, K + 2N, ...).

    Interleaved, not contiguous blocks: a `--duration` run has no last hand to cut blocks from, the
    shards of a CI matrix then all play early (cheap, well-mixed) hand numbers, and the first M
    hands of every shard together are a prefix-like sample replayable with `--shard` alone.
    """

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`2/4` -> Shard(index=2, count=4); ValueError with the reason otherwise."""
        left, sep, right = text.strip().partition("/")
        if not sep or not left.isdigit() or not right.isdigit():
            raise ValueError(f"{text!r} is not a shard (say K/N, e.g. 2/4)")
        index, count = int(left), int(right)
        if not 1 <= index <= count:
            raise ValueError(f"{text!r}: K must be between 1 and N")
        return cls(index=index, count=count)

    def text(self) -> str:
        return f"{self.index}/{self.count}"


WHOLE = Shard(index=1, count=1)


def hand_numbers(last: int, shard: Shard = WHOLE, *, worker: int = 0, workers: int = 1) -> range:
    """The hand numbers (1-based, in order) that `worker` of `workers` plays in `shard`, up to `last`.

    Hand k is made from (seed, k) alone, so any partition plays the same hands as the whole run.
    """
    step = shard.count * workers
    return range(shard.index + worker * shard.count, last + 1, step)


@dataclass(frozen=True, kw_only=True)
class FuzzConfig:
    hands: int  # the last hand number (UNBOUNDED: `--duration` alone decides)
    seed: int
    variants: tuple[str, ...]
    out: Path
    replay_engine: str  # how `studcheck run --engine` is spelled for this engine
    shrink_seconds: float = 120.0
    shrink_replays: int = 1000
    progress: bool = False  # the live bar on a terminal
    progress_lines: bool = False  # plain progress lines every `PROGRESS_EVERY` s (stderr is not a terminal)
    keep_going: bool = False
    max_divergences: int = DEFAULT_MAX_DIVERGENCES
    known: tuple[Known, ...] = ()
    known_file: Path | None = None
    write_known: Path | None = None
    jobs: int = 1
    shard: Shard = WHOLE
    duration: float | None = None  # seconds: stop dealing new hands after this long
    census: Path | None = None  # where to write the census (JSON)

    @property
    def total(self) -> int | None:
        """The hand count to print as "hand 3 of N", or None for a `--duration` run without `--hands`."""
        return None if self.hands == UNBOUNDED else self.hands

    def numbers(self, *, worker: int = 0, workers: int = 1) -> range:
        return hand_numbers(self.hands, self.shard, worker=worker, workers=workers)
