"""An evaluation case: items of one kind and what the rules say of each (spec/evaluation.md section 5)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from studcheck.cards import Card
from studcheck.evaluation.kinds import Key, Kind
from studcheck.evaluation.order import tie_classes


@dataclass(frozen=True, kw_only=True)
class EvaluationCase:
    """One evaluation case: `items` in the file's order, `keys[i]` what the rules say of `items[i]`."""

    id: str
    title: str
    kind: Kind
    rules: tuple[str, ...]
    path: Path
    line: int
    items: tuple[tuple[Card, ...], ...]
    keys: tuple[Key, ...]
    item_lines: tuple[int, ...]  # the file line each item is written on
    note: str = ""
    generated: bool = False  # the exhaustive mode's: keys from the reference, not from a file
    tags: tuple[str, ...] = ()

    @property
    def variant(self) -> str:
        """Reports show a case's variant column: for an evaluation case, its kind."""
        return self.kind.value

    @cached_property
    def hands(self) -> list[list[str]]:
        """The items as the request writes them (built once: an exhaustive case has 15,000)."""
        return [[str(card) for card in item] for item in self.items]

    @cached_property
    def classes(self) -> list[list[int]]:
        """The items grouped by what the rules say of them, the first chosen first (order.tie_classes)."""
        return tie_classes(self.keys)
