"""Play: one hand on the engine under test and on the in-process reference, side by side.

Both engines get the same protocol messages; every answer is compared (compare.py) and the first
difference is the divergence. After every refusal the engine is also asked for its `state`, which
must equal the reference's unchanged state (the reference is not asked: its state is known).

Each request is written to the engine first; the in-process reference computes its answer while
the engine works; the engine's answers are read after the reference has played the whole hand
(see `Table`), in order, and checked against the schema.

The engine's side of each request ("the wire", below) does what `EngineClient.request` does not:

- **Pipelining**: the search writes a whole hand's requests, as the reference decided them, in one
  write (`EngineClient.send(defer=True)` / `flush`) and reads the engine's answers later, in order
  (`receive_line`), so the two processes work at the same time instead of waiting for each other.
- **Skip re-validating an answer that is the reference's.** Every answer of the engine is
  checked against the protocol schema. Checking a whole state costs more than the reference's own
  move, yet most answers are exactly the reference's state. An answer line that is byte for byte
  the reference's answer (as `studcheck serve` would encode it, with the engine's `seq`), or that
  parses to `{"seq": <int>, "ok": true, "state": S}`, type for type and key for key, with S
  identical to the reference's state, is valid exactly when the reference's state is, so the
  schema is run on the reference's state instead, every `REFERENCE_CHECK_EVERY`-th time (the
  reference's schema conformance is tested on its own; the sample keeps this assumption checked
  during the run). The shortcut is used only while the schema's `response_state` and `seq` are
  exactly the shapes this reasoning relies on; any other answer is validated in full, as the
  client would.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from studcheck.fuzz.strategies import Chooser
from studcheck.fuzz.strategies import MAX_STEPS, HandSetup, Move, after_end_move, next_move
from studcheck.fuzz.compare import ERROR_KIND, Divergence, Signature, differences
from studcheck.protocol.answers import MAX_PROBLEM_CHARS
from studcheck.protocol.client import EngineClient, EngineError, Pending, Problem, Stopped, Unsolicited, truncate
from studcheck.protocol.messages import (ErrorReason, RequestType, encode_acyclic, protocol_schema, response_kind,
                                         schema_problem)
from studcheck.protocol.serve import Server
from studcheck.rules import Options


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


# --- the wire: the engine's answers, checked as cheaply as correctness allows -----------------


REFERENCE_CHECK_EVERY = 64  # about once every two hands
_RESPONSE_STATE = {"type": "object", "required": ["seq", "ok", "state"],
                   "properties": {"seq": {"$ref": "#/$defs/seq"}, "ok": {"const": True},
                                  "state": {"$ref": "#/$defs/state"}}}
_SEQ = {"type": "integer", "minimum": 0}
_ENVELOPE = frozenset({"seq", "ok", "state"})
_ANSWER = frozenset({"ok", "state"})


@lru_cache(maxsize=1)
def shortcut_is_sound() -> bool:
    """The schema still says what the shortcut relies on: the state answer is seq + ok + state, nothing across them."""
    defs = protocol_schema()["$defs"]
    state_def = {key: value for key, value in defs.get("response_state", {}).items() if key != "description"}
    seq_def = {key: value for key, value in defs.get("seq", {}).items() if key != "description"}
    return state_def == _RESPONSE_STATE and seq_def == _SEQ


def identical(a: Any, b: Any) -> bool:
    """The same JSON value, type for type (`true` is not `1`, `1.0` is not `1`) and key for key.

    Leaves are compared in the loop, not by a call each: this runs on every answer.
    """
    kind = type(a)
    if kind is not type(b):
        return False
    pairs: Any
    if kind is dict:
        if a.keys() != b.keys():
            return False
        pairs = zip(a.values(), map(b.__getitem__, a))
    elif kind is list:
        if len(a) != len(b):
            return False
        pairs = zip(a, b)
    else:
        return bool(a == b)
    for x, y in pairs:
        inner = type(x)
        if inner is not type(y):
            return False
        if inner is dict or inner is list:
            if not identical(x, y):
                return False
        elif x != y:
            return False
    return True


def _is_reference_state(response: Mapping[str, Any], reference_state: Mapping[str, Any] | None) -> bool:
    return (reference_state is not None and response.keys() == _ENVELOPE and response["ok"] is True
            and type(response["seq"]) is int and response["seq"] >= 0 and shortcut_is_sound()
            and identical(response["state"], reference_state))


class Checker:
    """Schema checks of the engine's answers, with the identical-to-the-reference shortcut."""

    def __init__(self) -> None:
        self.shortcuts = 0
        self.reference_problem: str | None = None  # a sampled reference state breaks the schema: a studcheck bug

    def same_as_reference(self, reference_state: Mapping[str, Any]) -> None:
        """An answer was found to be the reference's state: sample the reference's own conformance."""
        self.shortcuts += 1
        if self.shortcuts % REFERENCE_CHECK_EVERY == 1 and self.reference_problem is None:
            wire = json.loads(encode_acyclic({"seq": 0, "ok": True, "state": reference_state}))  # the schema is of the wire
            self.reference_problem = schema_problem("response_state", wire)

    def check(self, kind: RequestType, response: dict[str, Any], raw: bytes,
              reference_state: Mapping[str, Any] | None) -> None:
        if _is_reference_state(response, reference_state):
            assert reference_state is not None
            self.same_as_reference(reference_state)
            return
        problem = schema_problem(response_kind(kind, response).value, response)
        if problem is not None:
            line = truncate(raw.decode("utf-8", errors="replace").rstrip("\n"))
            raise EngineError(Problem.BAD_RESPONSE, f"the answer to {kind.value} breaks the protocol schema: "
                              f"{truncate(problem, MAX_PROBLEM_CHARS)}", line=line)


def read_answer(client: EngineClient, pending: Pending, reference: Mapping[str, Any], checker: Checker) -> dict[str, Any]:
    """The engine's checked answer to `pending`; `reference` is the reference's answer (no `seq`).

    The client's envelope checks (JSON, seq, `ok`) apply; the schema check is the checker's.
    """
    raw = client.receive_line(pending)
    reference_state = reference.get("state") if reference.get("ok") is True else None
    if reference_state is not None and reference.keys() == _ANSWER and shortcut_is_sound():
        expected = {"seq": pending.seq, **reference}
        if raw == encode_acyclic(expected):  # what `studcheck serve` writes: nothing to parse or compare
            pending.entry["response"] = expected
            if client.validate:
                checker.same_as_reference(reference_state)
            return expected
    try:
        response = client.check(pending, schema=False)
    except EngineError as exc:
        raise extra_line(pending, exc) or exc from None
    if client.validate:
        try:
            checker.check(pending.kind, response, raw, reference_state)
        except EngineError as exc:
            exc.stderr = exc.stderr or client.stderr_tail()
            raise
    return response


def extra_line(pending: Pending, error: EngineError) -> Unsolicited | None:
    """The answer read for `pending` carries the `seq` of an earlier request: a line nobody asked for.

    Every earlier request was answered already (answers are read in order), so the line answers
    no request: a second answer to one request, say. `studcheck run` reports such a line as
    `bad_response` ("a line nobody asked for", `Unsolicited`); the fuzzer too, whether the line
    comes while answers are due (it is then read in place of the next answer and looks like a
    wrong `seq`) or while none is (the client finds it before the next write).
    """
    if error.problem is not Problem.WRONG_SEQ:
        return None
    seq = (pending.entry.get("response") or {}).get("seq")
    if type(seq) is not int or seq >= pending.seq:
        return None
    return Unsolicited(Problem.BAD_RESPONSE,
                       f"the engine wrote a line nobody asked for before its answer to seq {pending.seq}: an answer "
                       f"to seq {seq}, which was answered already (two answers to one request?)",
                       line=error.line, stderr=error.stderr)


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
    divergence. In between, the caller may deal out the next hands (the search keeps two dealt
    out ahead), so the engine answers them while the reference plays on (pipelining); hands are
    settled in the order they were dealt out. Requests after a divergence were already
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

