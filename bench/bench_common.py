"""Shapes shared by the benchmark modules: one table row, verdicts, and a best-of-N timer.

Kept apart from `run.py` so each workload module can be imported (and tested) on its own.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")
U = TypeVar("U")


class Verdict(str, Enum):
    """How a row meets its target. WRONG means the two libraries disagreed: the numbers are void."""

    PASS = "PASS"
    MISS = "MISS"
    INFO = "info"  # no target on this row
    SKIP = "SKIP"
    WRONG = "WRONG"


@dataclass(frozen=True, kw_only=True)
class Row:
    """One line of the table: a rate (or a time) for studcheck and for the reference point."""

    key: str  # stable name in the JSON output, e.g. "eval.high"
    label: str
    unit: str  # "evals/s", "hands/s", "s"
    studcheck: float | None
    other: float | None  # PokerKit, or the in-process run for the protocol rows
    other_name: str = "pokerkit"
    ratio: float | None = None  # how many times better studcheck is (>= 1 is better), per `target`
    target: str = ""
    verdict: Verdict = Verdict.INFO
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key, "label": self.label, "unit": self.unit, "studcheck": self.studcheck,
            "other": self.other, "other_name": self.other_name, "ratio": self.ratio, "target": self.target,
            "verdict": self.verdict.value, "note": self.note, "extra": self.extra,
        }


def at_least(ratio: float | None, goal: float) -> Verdict:
    if ratio is None:
        return Verdict.SKIP
    return Verdict.PASS if ratio >= goal else Verdict.MISS


def best_of_pair(
    first: Callable[[], T], second: Callable[[], U], repeat: int
) -> tuple[tuple[float, T], tuple[float, U]]:
    """`best_of` for two workloads run alternately (a, b, a, b, ...).

    Interleaving spreads any background load over both sides, so a busy moment does not land on
    one library only and skew the ratio.
    """
    best_a = best_b = float("inf")
    result_a: list[T] = []
    result_b: list[U] = []
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        result_a = [first()]
        best_a = min(best_a, time.perf_counter() - start)
        start = time.perf_counter()
        result_b = [second()]
        best_b = min(best_b, time.perf_counter() - start)
    return (best_a, result_a[0]), (best_b, result_b[0])


def timed(work: Callable[[], T]) -> tuple[float, T]:
    """One run of `work`: its wall time and its result."""
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def best_of(work: Callable[[], T], repeat: int) -> tuple[float, T]:
    """Run `work` `repeat` times (>= 1); the shortest wall time and the last result.

    The minimum, not the mean: other processes only ever add time, so the fastest run is the
    closest to what the code itself costs.
    """
    best = float("inf")
    results: list[T] = []
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        results = [work()]
        best = min(best, time.perf_counter() - start)
    return best, results[0]
