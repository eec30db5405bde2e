"""The explanation collector, and the view of the hand the explanations read.

explain.py (and explain_legal.py, explain_award.py) record into `Notes` from the facts of a hand;
`HandView` names the few attributes of the hand they read, so they depend on those facts and not on
state.py, which calls them: the engine has no import cycle. A Protocol costs nothing at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from studcheck.cards import Card
from studcheck.engine.betting import Round, SeatState
from studcheck.engine.values import LegalAction
from studcheck.rules import Layout, Options, Stakes, Street, Variant

#: fact path -> rule IDs, most specific first
Facts = dict[str, tuple[str, ...]]


class Notes:
    """The rules behind each fact of the current state (path -> rule IDs, most specific first)."""

    def __init__(self) -> None:
        self._facts: Facts = {}
        self._candidates: set[str] = set()  # the `<fact>|<rule>` keys recorded
        #: this round's actions in order: (seat, how its wager counted: `counted`; None for no wager)
        self.actions: list[tuple[int, str | None]] = []

    def add(self, fact: str, *rules: str) -> None:
        """Record (or replace) the rules that decided `fact` (and forget its candidate sets)."""
        self._facts[fact] = tuple(rules)
        if self._candidates:
            for key in [key for key in self._candidates if key.startswith(fact + "|")]:
                self._candidates.discard(key)
                del self._facts[key]

    def narrow(self, fact: str, rule: str, values: Sequence[object]) -> None:
        """Record `<fact>|<rule>`: the values `fact` may take when `rule` (a narrowing rule: a tie
        rule, the all-in or folded detail; an option value that took something away) is the one
        broken, `lo..hi` for a range of whole numbers; after `add(fact, ...)`."""
        key = f"{fact}|{rule}"
        self._facts[key] = tuple(sorted({str(value) for value in values}))
        self._candidates.add(key)

    def get(self, fact: str) -> tuple[str, ...]:
        return self._facts.get(fact, ())

    def clear_prefix(self, prefix: str) -> None:
        """Forget `prefix` and every fact under it (`legal` also drops `legal.raise`)."""
        for fact in [f for f in self._facts if f == prefix or f.startswith((prefix + ".", prefix + "[", prefix + "|"))]:
            del self._facts[fact]
            self._candidates.discard(fact)

    def clear(self) -> None:
        self._facts.clear()
        self._candidates.clear()

    def facts(self) -> Facts:
        """A copy of every recorded fact."""
        return dict(self._facts)


class HandView(Protocol):
    """What the explanations read of a hand (state.Hand is one); they never change it."""

    variant: Variant
    options: Options
    stakes: Stakes
    layout: Layout
    street: Street
    seats: dict[int, SeatState]
    order: list[int]
    community: Card | None
    round: Round | None
    to_act: int | None
    bring_in_seat: int | None
    fourth_dealt: bool
    seventh_aggressor: int | None
    result: dict[str, Any] | None
    _last: Street
    _seat_list: list[SeatState]
    _pots: list[tuple[int, list[int]]]
    _notes: Notes | None

    def legal_actions(self) -> tuple[LegalAction, ...]: ...

    def _live(self) -> list[SeatState]: ...

    def _must_show(self, seat_number: int) -> bool: ...

