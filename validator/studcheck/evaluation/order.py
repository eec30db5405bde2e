"""Does an engine's batch of values order the items as the rules do? (spec/evaluation.md section 4)

Values are never compared with the reference's, only their order and ties: the engine may number
hands any way it likes within one batch. The first disagreement, in the rules' order (the item
chosen first), is returned as a pair of items, or one item for an 8-or-better qualifier.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from studcheck.evaluation.kinds import Key, Kind


class Better(str, Enum):
    """Which end of an engine's values the rules' choice is at (hello's `kinds`)."""

    HIGHER = "higher"
    LOWER = "lower"


class Relation(str, Enum):
    """How the first item of a pair stands to the second."""

    ABOVE = "above"  # chosen first
    TIE = "tie"
    BELOW = "below"


class Qualifier(str, Enum):
    LOW = "a low"
    NO_LOW = "no low"


@dataclass(frozen=True, kw_only=True)
class Disagreement:
    """Where the engine's values first disagree with the rules: `first` (and `second`) index the batch.

    For a pair, `first` is the item the rules choose first (or the first of two tied items) and the
    relations say how `first` stands to `second`. For a `low8` qualifier, `second` is None and the
    relations are Qualifier values: what the rules say of the hand, what the engine's value says.
    """

    first: int
    second: int | None
    expected: Relation | Qualifier
    actual: Relation | Qualifier

    @property
    def path(self) -> str:
        return "qualifier" if self.second is None else "order"


def engine_ranks(values: Sequence[Any], better: Better) -> list[int]:
    """The engine's values as ranks, higher = chosen first; `null` below everything (no low).

    An integer is a list of one; lists compare item by item (a prefix is smaller), as Python's
    tuples do. A value of another type has no place in the order: it ranks with `null`.
    """
    sign = 1 if better is Better.HIGHER else -1
    if set(map(type, values)) == {int}:  # the usual answer: one integer per item, compared as they are
        return [sign * value for value in values]
    normal: list[tuple[int, ...] | None] = []
    for value in values:
        if isinstance(value, int) and not isinstance(value, bool):
            normal.append((value,))
        elif isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            normal.append(tuple(value))
        else:
            normal.append(None)
    distinct = sorted({item for item in normal if item is not None})
    place = {item: index for index, item in enumerate(distinct)}
    bottom = -len(distinct) - 1
    return [bottom if item is None else sign * place[item] for item in normal]


def tie_classes(keys: Sequence[Key]) -> list[list[int]]:
    """The items' indices grouped by equal keys, the class the rules choose first first (batch order
    within a class): what a case's keys say, computed once per case."""
    ordered = sorted(range(len(keys)), key=lambda index: keys[index], reverse=True)  # stable: batch order within a tie
    classes: list[list[int]] = []
    for index in ordered:
        if classes and keys[classes[-1][0]] == keys[index]:
            classes[-1].append(index)
        else:
            classes.append([index])
    return classes


def first_disagreement(kind: Kind, keys: Sequence[Key], values: Sequence[Any], better: Better, *,
                       classes: Sequence[Sequence[int]] | None = None) -> Disagreement | None:
    """The first place, in the rules' order, where the engine's values say otherwise; None if none.
    `classes`: `tie_classes(keys)`, when the caller has it already."""
    if len(values) != len(keys):
        raise ValueError(f"{len(values)} values for {len(keys)} items")
    ranks = engine_ranks(values, better)
    if classes is None:
        classes = tie_classes(keys)
    if kind is Kind.LOW8:
        for index in (index for members in classes for index in members):  # the rules' order
            rules = Qualifier.NO_LOW if keys[index] == (0,) else Qualifier.LOW
            engine = Qualifier.NO_LOW if values[index] is None else Qualifier.LOW
            if rules is not engine:
                return Disagreement(first=index, second=None, expected=rules, actual=engine)
    for position, members in enumerate(classes):
        head = members[0]
        other = next((index for index in members if ranks[index] != ranks[head]), None)
        if other is not None:
            return Disagreement(first=head, second=other, expected=Relation.TIE, actual=_relation(ranks[head], ranks[other]))
        if position + 1 < len(classes):
            below = classes[position + 1][0]
            if ranks[head] <= ranks[below]:
                return Disagreement(first=head, second=below, expected=Relation.ABOVE, actual=_relation(ranks[head], ranks[below]))
    return None


def _relation(first: int, second: int) -> Relation:
    return Relation.ABOVE if first > second else Relation.TIE if first == second else Relation.BELOW
