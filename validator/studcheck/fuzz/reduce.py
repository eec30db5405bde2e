"""Delta debugging on the concrete hand, after Hypothesis has shrunk the choice sequence.

Why a second pass: Hypothesis shrinks the *choices* a hand was generated from, and a move is an
index into the reference's legal list at that moment. Dropping a seat shifts the meaning of every
later choice, so the shrinker rarely manages to remove seats from a hand with a long action
sequence. Here the hand is the list of concrete requests sent (`3 raise 20`), and a candidate is
the same hand with a seat and its actions removed, one action removed, a smaller stack, an
option back at its default, no ante, or seats renumbered 1..n. A candidate is kept when it is
smaller (HandRecord.size), every action keeps its fate on the reference (accepted stays accepted,
refused stays refused), and the hands diverge in the same way (same signature). Deterministic,
and bounded by a replay budget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from studcheck.fuzz.play import ExchangeKind, HandRecord, Table
from studcheck.fuzz.strategies import Capabilities, HandSetup, Move
from studcheck.cases.deck import DeckError, deal_positions
from studcheck.rules import Options, ShortStub

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
    try:
        before = deal_positions({seat: len(cards) for seat, cards in dealt.items()}, burn_cards=burning, short_stub=stub_rule)
        after = deal_positions({seat: len(dealt[seat]) for seat in keep}, burn_cards=burning, short_stub=stub_rule)
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
