"""Play one hand on the engine under test and on the reference, side by side, and compare.

Both engines get the same protocol messages. Every answer is compared: `ok`, the refusal
reason, and the whole canonical state (extra keys an engine adds are ignored, like the harness
does). After every refusal the engine is also asked for its `state`, which must equal the
reference's unchanged state (the reference is not asked: its state is known). The first
difference is the divergence.

Each request is written to the engine first; the in-process reference computes its answer while
the engine works; the engine's answers are read after the reference has played the whole hand
(see `Table`), in order, and checked against the schema.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from studcheck.fuzz.choosers import Chooser
from studcheck.fuzz.strategies import MAX_STEPS, HandSetup, Move, after_end_move, next_move
from studcheck.harness.compare import diff_json, sorted_legal
from studcheck.fuzz.wire import Checker, read_answer
from studcheck.protocol.client import EngineClient, EngineError, Pending, Problem, Stopped, Unsolicited
from studcheck.protocol.messages import ErrorReason, RequestType
from studcheck.protocol.serve import Server
from studcheck.rules import Options

SEAT_KEYS = ("seat", "stack", "committed", "folded", "all_in", "up", "down", "shown", "mucked")
RESULT_KEYS = ("pots", "rake", "returned", "showdown_order", "stacks")
AWARD_KEYS = ("winners", "high", "low")


class ExchangeKind:
    SETUP = "new_hand"
    ACT = "act"
    STATE = "state"  # the engine's state after a refusal


@dataclass(frozen=True, kw_only=True)
class Exchange:
    """One request and both answers (seq removed); `move` is set for `act`."""

    kind: str
    move: Move | None
    reference: Mapping[str, Any]
    engine: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True)
class Difference:
    """Where the engine's answer first differs from the reference's (a JSON path into the answer)."""

    path: str
    expected: Any
    actual: Any
    message: str | None = None  # the engine's refusal message, as evidence

    def describe(self) -> str:
        return f"{self.path}: reference {_short(self.expected)}, engine {_short(self.actual)}"


@dataclass(frozen=True, kw_only=True)
class Signature:
    """What "the same divergence" means: the kind of step, the first differing field with indices
    dropped (`state.pots[].amount`), and the variant. Shrinking keeps it; --keep-going groups by it."""

    kind: str  # new_hand, act-accepted, act-refused (by the reference) or state
    path: str
    variant: str

    def text(self) -> str:
        return f"{self.kind} {self.path} {self.variant}"


@dataclass(frozen=True, kw_only=True)
class Divergence:
    exchange: int  # index into HandRecord.exchanges
    kind: str  # new_hand, act-accepted, act-refused (by the reference) or state
    first: Difference
    all: tuple[Difference, ...]

    def signature(self, variant: str) -> Signature:
        return Signature(kind=self.kind, path=_normal_path(self.first.path), variant=variant)


ERROR_KIND = "error"  # the signature kind of a hand in which the engine broke the protocol


@dataclass(frozen=True, kw_only=True)
class Failure:
    """The engine broke the protocol on one request of a hand (a crash, a timeout, a broken answer)."""

    error: EngineError
    request: Mapping[str, Any]  # as sent, with its seq
    kind: str  # ExchangeKind of the request
    move: Move | None
    reference: Mapping[str, Any]  # the reference's answer to it (no seq)
    compared: int  # how many of the hand's exchanges were compared before it


@dataclass(kw_only=True)
class HandRecord:
    setup: HandSetup
    exchanges: list[Exchange] = field(default_factory=list)
    divergence: Divergence | None = None
    skipped: str | None = None  # the engine refused the setup as unsupported
    # The engine broke the protocol before any divergence: the hand's finding (signature `error`).
    failure: Failure | None = None
    # The engine broke the protocol answering a request sent past the divergence (pipelined: sent
    # before the divergence was known); the divergence stays the finding. Both restart the engine.
    past_failure: Failure | None = None

    @property
    def signature(self) -> Signature | None:
        if self.failure is not None:
            return Signature(kind=ERROR_KIND, path=self.failure.error.problem.value, variant=self.setup.variant)
        return None if self.divergence is None else self.divergence.signature(self.setup.variant)

    @property
    def actions(self) -> int:
        return sum(1 for exchange in self.exchanges if exchange.kind == ExchangeKind.ACT)

    @property
    def refused(self) -> int:
        return sum(1 for exchange in self.exchanges
                   if exchange.kind == ExchangeKind.ACT and not exchange.reference.get("ok"))

    @property
    def size(self) -> tuple[int, ...]:
        """Smaller is simpler: seats, steps, stacks, stakes, options off their defaults, a remade stub, seat numbers."""
        stakes = self.setup.stakes
        defaults = Options().to_json()
        changed = sum(1 for name, value in self.setup.options.items() if defaults.get(name) != value)
        return (len(self.setup.seats), self.actions, sum(stack for _, stack in self.setup.seats),
                stakes["big_bet"], stakes["small_bet"], stakes["bring_in"], stakes["ante"], changed,
                self.setup.remade_stub is not None, sum(self.setup.seat_numbers))

    def moves(self) -> list[Move]:
        """The actions sent, each marked with whether the reference accepted it."""
        return [replace(exchange.move, meant_legal=bool(exchange.reference.get("ok")))
                for exchange in self.exchanges if exchange.kind == ExchangeKind.ACT and exchange.move is not None]


class EngineMisbehaved(BaseException):
    """The run must stop: a signal or the deadline (`Stopped`), or the engine cannot be restarted
    after a failure. A BaseException so Hypothesis does not try to shrink it. (A failure inside a
    hand is not raised: it is the hand's `HandRecord.failure`.) The search fills in `hand`, the
    number of the generated hand it happened in (or was being shrunk), and `shrinking`."""

    def __init__(self, error: EngineError, record: HandRecord | None, request: Mapping[str, Any]) -> None:
        super().__init__(error.message)
        self.error = error
        self.record = record
        self.request = dict(request)
        self.hand: int | None = None
        self.shrinking = False


class ReferenceFailed(BaseException):
    """The reference engine itself failed: a studcheck bug, never the engine's fault."""

    def __init__(self, error: EngineError, record: HandRecord) -> None:
        super().__init__(error.message)
        self.error = error
        self.record = record
        self.hand: int | None = None


def _short(value: Any, limit: int = 200) -> str:
    text = "nothing" if value is None else repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _normal_path(path: str) -> str:
    return re.sub(r"\.\d+(?=\.|$)", ".*", re.sub(r"\[\d+\]", "[]", path))


# --- canonical answers --------------------------------------------------------------------------


def _seat_map(value: Any) -> Any:
    return {str(key): item for key, item in value.items()} if isinstance(value, Mapping) else value


def _seat_set(value: Any) -> Any:
    return sorted(value) if isinstance(value, list) and all(isinstance(v, int) for v in value) else value


def canonical_state(state: Any) -> Any:
    """The state with only the canonical keys, sets sorted: what "the same state" means."""
    if not isinstance(state, Mapping):
        return state
    seats = state.get("seats")
    if isinstance(seats, list) and all(isinstance(row, Mapping) and isinstance(row.get("seat"), int) for row in seats):
        seats = sorted(seats, key=lambda row: row["seat"])  # the harness matches rows by seat number too
    pots = state.get("pots")
    return {
        "street": state.get("street"),
        "to_act": state.get("to_act"),
        "legal": sorted_legal(state.get("legal") or []),
        "seats": [{key: row.get(key) for key in SEAT_KEYS} if isinstance(row, Mapping) else row for row in seats]
        if isinstance(seats, list) else seats,
        "community": state.get("community"),
        "pots": [{"amount": pot.get("amount"), "eligible": _seat_set(pot.get("eligible"))}
                 if isinstance(pot, Mapping) else pot for pot in pots] if isinstance(pots, list) else pots,
        "pot_total": state.get("pot_total"),
        "result": canonical_result(state.get("result")),
    }


def canonical_result(result: Any) -> Any:
    if not isinstance(result, Mapping):
        return result
    out = {key: result.get(key) for key in RESULT_KEYS}
    pots = result.get("pots")
    if isinstance(pots, list):
        out["pots"] = [_result_pot(pot) for pot in pots]
    for key in ("returned", "stacks"):
        out[key] = _seat_map(out[key])
    return out


def _result_pot(pot: Any) -> Any:
    if not isinstance(pot, Mapping):
        return pot
    entry = {"amount": pot.get("amount"), "eligible": _seat_set(pot.get("eligible"))}
    for key in AWARD_KEYS:
        if key in pot:
            entry[key] = _seat_map(pot[key])
    return entry


def differences(reference: Mapping[str, Any], engine: Mapping[str, Any]) -> list[Difference]:
    """Every difference between two answers to the same request, the most telling first."""
    message = None
    if not engine.get("ok"):
        message = str((engine.get("error") or {}).get("message", ""))
    if reference.get("ok") != engine.get("ok"):
        return [Difference(path="ok", expected=reference.get("ok"), actual=engine.get("ok"), message=message)]
    if not reference.get("ok"):
        want, got = (reference.get("error") or {}).get("reason"), (engine.get("error") or {}).get("reason")
        if want != got:
            return [Difference(path="error.reason", expected=want, actual=got, message=message)]
        return []
    if reference.get("state") == engine.get("state"):  # the usual case, without building canonical forms
        return []
    want, got = canonical_state(reference.get("state")), canonical_state(engine.get("state"))
    if want == got:
        return []
    found = diff_json(want, got)
    return [Difference(path=f"state.{item.path}", expected=item.expected, actual=item.actual) for item in found]


# --- playing ------------------------------------------------------------------------------------


def _strip(response: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in response.items() if key != "seq"}


@dataclass(frozen=True, kw_only=True)
class _Sent:
    """A request written to the engine whose answer is still to be read, and the reference's answer."""

    kind: RequestType
    fields: Mapping[str, Any]
    move: Move | None
    reference: dict[str, Any]
    pending: Pending


@dataclass(kw_only=True)
class Planned:
    """A hand the reference has played and whose requests went to the engine; `Table.settle` compares."""

    record: HandRecord
    sent: list[_Sent]
    generation: int  # the engine process it was dealt out to (see Table.live)
    unsent: EngineError | None = None  # the write failed (reported once earlier answers are read)


class Table:
    """The engine under test and the in-process reference, playing the same hands.

    A hand is played in two passes. `deal_out`: the reference plays the whole hand (the next move
    always depends on the reference's state only) and its requests go to the engine in one write.
    `settle`: the engine's answers are read in order and compared; the first difference is the
    divergence. In between, the caller may deal out the next hand, so the engine answers one hand
    while the reference plays the next (pipelining). Requests after a divergence were already
    sent: their answers are read and checked against the protocol but not compared.

    When the engine breaks the protocol (`HandRecord.failure`, `past_failure`) the table is
    `broken`: the next hand dealt out restarts the engine first, and a hand dealt out to the old
    process is no longer `live` (the caller deals it out again).
    """

    def __init__(self, engine: EngineClient, reference: Server | None = None) -> None:
        self.engine = engine
        self.reference = reference or Server()
        self._reference_seq = 0
        self.hands = 0
        self.requests = 0  # requests sent to the engine under test
        self.restarts = 0  # engine restarts after a failure
        self.broken = False  # the engine failed: restart it before the next hand
        self.generation = 0  # engine processes started by this table (restarts)
        self.checker = Checker()

    def live(self, planned: Planned) -> bool:
        """The hand went to the engine process running now, which has not failed."""
        return planned.generation == self.generation and not self.broken

    def ensure_running(self) -> None:
        """Restart the engine if it failed; EngineMisbehaved if it cannot be restarted."""
        if not self.broken:
            return
        self.restarts += 1
        try:
            self.engine.restart()
        except EngineError as exc:
            if not isinstance(exc, Stopped):
                exc.message = f"the engine could not be restarted after a failure: {exc.message}"
            raise EngineMisbehaved(exc, None, {"type": RequestType.HELLO.value}) from None
        self.broken = False
        self.generation += 1

    def play(self, setup: HandSetup, choose: Chooser) -> HandRecord:
        """Play one hand until it ends, the step limit, or the first divergence."""
        return self.settle(self.deal_out(setup, choose))

    def deal_out(self, setup: HandSetup, choose: Chooser) -> Planned:
        """The reference plays the hand; its requests go to the engine (answers not read yet)."""
        self.ensure_running()
        planned = Planned(record=HandRecord(setup=setup), sent=[], generation=self.generation)
        record, sent = planned.record, planned.sent
        try:
            state = self._deal(record, sent)
            while state.get("to_act") is not None and len(sent) < MAX_STEPS:
                state = self._send_move(record, sent, state, next_move(choose, setup, state))
            if state.get("street") == "complete":
                move = after_end_move(choose, setup, state)
                if move is not None:
                    self._send_move(record, sent, state, move)
        except BaseException:  # e.g. Hypothesis ran out of recorded choices while shrinking
            self.engine.flush_discard()
            raise
        self._flush(planned)
        return planned

    def replay(self, setup: HandSetup, moves: Sequence[Move]) -> HandRecord:
        """Play exactly these moves (a reduction candidate) until they run out or the hands diverge."""
        self.ensure_running()
        planned = Planned(record=HandRecord(setup=setup), sent=[], generation=self.generation)
        try:
            state = self._deal(planned.record, planned.sent)
            for move in moves:
                state = self._send_move(planned.record, planned.sent, state, move)
        except BaseException:
            self.engine.flush_discard()
            raise
        self._flush(planned)
        return self.settle(planned)

    def settle(self, planned: Planned) -> HandRecord:
        """Read the engine's answers to a dealt-out hand, in order, and compare them.

        A failure of the engine is recorded in the record (`failure` or `past_failure`) and makes
        the table `broken`; only a signal or the deadline raises (EngineMisbehaved).
        """
        record, unsent = planned.record, planned.unsent
        if isinstance(unsent, Stopped):
            raise EngineMisbehaved(unsent, record, planned.sent[0].pending.entry["request"])
        if isinstance(unsent, Unsolicited):  # found before the batch was written: nothing to read
            self._failed(record, planned.sent[0], unsent)
            return record
        self._compare(record, planned.sent)
        if unsent is not None and record.failure is None and record.past_failure is None:
            self._failed(record, planned.sent[0], unsent)
        return record

    def discard(self, planned: Planned) -> None:
        """Read and drop the answers to a dealt-out hand that will not be settled (the search stopped)."""
        self.requests -= len(planned.sent)
        if not self.live(planned):
            return
        for item in planned.sent:
            try:
                self.engine.receive_line(item.pending)
            except EngineError:
                return  # a broken engine: the next request (bye) finds out

    def _flush(self, planned: Planned) -> None:
        try:
            self.engine.flush()
        except EngineError as exc:
            planned.unsent = exc  # the engine died on an earlier request: settling finds which

    def _deal(self, record: HandRecord, sent: list[_Sent]) -> Mapping[str, Any]:
        """Send `new_hand` to both; the reference's state."""
        self.hands += 1
        self.engine.transcript = []
        ref = self._send(record, sent, RequestType.NEW_HAND, record.setup.request_fields(f"fuzz-{self.hands}"), None)
        if not ref.get("ok"):  # the generator made a setup the rules do not allow: our bug
            error = ref.get("error") or {}
            problem = EngineError(Problem.BAD_RESPONSE, f"the reference refused a generated setup "
                                                        f"({error.get('reason')}: {error.get('message')})")
            raise ReferenceFailed(problem, record)
        state: Mapping[str, Any] = ref["state"]
        return state

    def _send_move(self, record: HandRecord, sent: list[_Sent], state: Mapping[str, Any], move: Move) -> Mapping[str, Any]:
        """Send one action (and `state` after a refusal); the reference's state after it."""
        ref = self._send(record, sent, RequestType.ACT, move.request_fields(), move)
        if ref.get("ok"):
            new_state: Mapping[str, Any] = ref["state"]
            return new_state
        self._send(record, sent, RequestType.STATE, {}, None, known={"ok": True, "state": state})
        return state

    def _send(self, record: HandRecord, sent: list[_Sent], kind: RequestType, fields: Mapping[str, Any],
              move: Move | None, known: dict[str, Any] | None = None) -> dict[str, Any]:
        """Queue the request for the engine, then let the reference answer it (its state is `known` for `state`)."""
        try:
            pending = self.engine.send(kind, fields, defer=True)
        except EngineError as exc:
            raise EngineMisbehaved(exc, record, {"type": kind.value, **fields}) from None
        self.requests += 1
        ref = known if known is not None else self._reference_answer(record, kind, fields)
        sent.append(_Sent(kind=kind, fields=fields, move=move, reference=ref, pending=pending))
        return ref

    def _reference_answer(self, record: HandRecord, kind: RequestType, fields: Mapping[str, Any]) -> dict[str, Any]:
        """The reference's answer without its `seq`, straight from `Server.handle` (no JSON in between)."""
        self._reference_seq += 1
        try:
            answer = self.reference.handle({"type": kind.value, "seq": self._reference_seq, **fields})
        except Exception:  # a reference-engine bug: report it as ours, with the traceback
            problem = EngineError(Problem.CRASH, "the in-process reference engine raised an exception",
                                  stderr=traceback.format_exc())
            raise ReferenceFailed(problem, record) from None
        return _strip(answer)

    # --- second pass: read the engine's answers in order and compare -------------------------

    def _compare(self, record: HandRecord, sent: list[_Sent]) -> None:
        for item in sent:
            try:
                engine = read_answer(self.engine, item.pending, item.reference, self.checker)
            except Stopped as exc:
                raise EngineMisbehaved(exc, record, item.pending.entry["request"]) from None
            except EngineError as exc:
                self._failed(record, item, exc)
                return
            if self.checker.reference_problem is not None:
                problem = EngineError(Problem.BAD_RESPONSE, "the reference's state breaks the protocol schema: "
                                                            f"{self.checker.reference_problem}")
                raise ReferenceFailed(problem, record)
            if record.divergence is not None or record.skipped is not None:
                continue  # sent before the divergence was known: read, checked, not compared
            self._take(record, item, _strip(engine))

    def fail_after(self, planned: Planned, error: EngineError) -> HandRecord:
        """The engine wrote a line nobody asked for (or exited) after its last answer to this hand,
        the last of the run: a failure on the hand's last request."""
        item = planned.sent[-1]
        record = planned.record
        compared = len(record.exchanges)
        self._failed(record, item, error)
        if record.failure is not None and compared:  # its answer was compared: the failure comes after it
            record.failure = replace(record.failure, compared=compared - 1)
        return record

    def _failed(self, record: HandRecord, item: _Sent, error: EngineError) -> None:
        """The engine broke the protocol on `item`: the hand's finding, or, if the hand had already
        diverged (or the engine had refused it as unsupported), a failure on a request the
        unpipelined fuzzer would not have sent, noted while the divergence stays the finding.
        Either way the engine is restarted before the next hand."""
        kind = {RequestType.NEW_HAND: ExchangeKind.SETUP, RequestType.ACT: ExchangeKind.ACT}.get(item.kind, ExchangeKind.STATE)
        failure = Failure(error=error, request=dict(item.pending.entry["request"]), kind=kind, move=item.move,
                          reference=item.reference, compared=len(record.exchanges))
        if record.divergence is None and record.skipped is None:
            record.failure = failure
        else:
            record.past_failure = failure
        self.broken = True

    def _take(self, record: HandRecord, item: _Sent, engine: dict[str, Any]) -> None:
        if item.kind is RequestType.NEW_HAND:
            if not engine.get("ok") and (engine.get("error") or {}).get("reason") == ErrorReason.UNSUPPORTED.value:
                record.skipped = str((engine.get("error") or {}).get("message", ""))
                return
            self._record(record, Exchange(kind=ExchangeKind.SETUP, move=None, reference=item.reference, engine=engine))
        elif item.kind is RequestType.ACT:
            self._record(record, Exchange(kind=ExchangeKind.ACT, move=item.move, reference=item.reference, engine=engine))
        else:
            self._record(record, Exchange(kind=ExchangeKind.STATE, move=None, reference=item.reference, engine=engine))

    @staticmethod
    def _record(record: HandRecord, exchange: Exchange) -> bool:
        record.exchanges.append(exchange)
        found = differences(exchange.reference, exchange.engine)
        if not found:
            return False
        kind = exchange.kind
        if kind == ExchangeKind.ACT:
            kind = "act-accepted" if exchange.reference.get("ok") else "act-refused"
        record.divergence = Divergence(exchange=len(record.exchanges) - 1, kind=kind, first=found[0], all=tuple(found))
        return True


def failure_record(record: HandRecord) -> HandRecord:
    """The hand as played up to the request the engine failed on, that request last (with the
    reference's answer; the engine's is empty)."""
    failure = record.failure
    assert failure is not None
    exchanges = record.exchanges[: failure.compared]
    exchanges.append(Exchange(kind=failure.kind, move=failure.move, reference=failure.reference, engine={}))
    return HandRecord(setup=record.setup, exchanges=exchanges)


def describe_step(record: HandRecord, index: int) -> str:
    """`new_hand`, `act 3 raise 20 (fourth street)`, `state after the refusal of ...`."""
    exchange = record.exchanges[index]
    if exchange.kind == ExchangeKind.SETUP:
        return "new_hand (antes and the third-street deal)"
    street = _street_before(record, index)
    if exchange.kind == ExchangeKind.STATE:
        previous = record.exchanges[index - 1].move
        return f"the state after the refused `{previous.text() if previous else '?'}` ({street})"
    assert exchange.move is not None
    return f"`{exchange.move.text()}` ({street})"


def _street_before(record: HandRecord, index: int) -> str:
    for exchange in reversed(record.exchanges[:index]):
        if exchange.reference.get("ok") and "state" in exchange.reference:
            street = str(exchange.reference["state"].get("street"))
            return {"showdown": "showdown", "complete": "after the end of the hand"}.get(street, f"{street} street")
    return "third street"

