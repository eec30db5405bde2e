"""Write cases as JSON (spec/export.md): one file per case plus an index, each with its golden transcript.

The transcript is what the harness really sends, produced by the harness itself: a `Runner` drives
the reference engine in process exactly as `studcheck run --in-process` does, and its client's
transcript is kept. Nothing here re-implements a request.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from enum import Enum
from pathlib import Path
from typing import Any

from studcheck import __version__
from studcheck.cases.model import Case, Step, StepKind
from studcheck.harness.runner import Outcome, Runner
from studcheck.harness.smoke import run_smoke
from studcheck.protocol.client import EngineClient, InProcessTransport
from studcheck.protocol.messages import PROTOCOL
from studcheck.resources import data_root
from studcheck.rules import PROFILES, Options
from studcheck.safe_text import file_safe

FORMAT_VERSION = 1
CASE_FORMAT = "studcheck-export-case"
INDEX_FORMAT = "studcheck-export-index"
#: the profile the transcripts are played under (the harness's default, `studcheck run` without --profile)
PROFILE = "source_texts"
#: the seq the harness gives `hello`; a transcript is numbered as if its case were the session's only one
HELLO_SEQ = 1


class ExportFailure(Exception):
    """The reference engine did not pass a case: the export would carry a wrong golden transcript."""


@dataclass(frozen=True, kw_only=True)
class Exported:
    """One case's JSON document and the file name it goes to."""

    case_id: str
    name: str
    document: dict[str, Any]
    text: str


#: top-level lists written one item per line (the rest of a value stays on its key's line)
_LISTED = frozenset({"steps", "transcript", "cases", "smoke"})


def _one_line(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def dumps(document: Mapping[str, Any]) -> str:
    """Stable text: sorted keys, one top-level key per line, one step or transcript entry per line.

    Fully indented JSON would be 2.6 times larger (the transcripts repeat whole states); this keeps
    a case readable and diffable line by line, and any JSON reader reads it.
    """
    lines = []
    for key in sorted(document):
        value = document[key]
        name = json.dumps(key)
        if key in _LISTED and isinstance(value, list) and value:
            items = ",\n".join(f"    {_one_line(item)}" for item in value)
            lines.append(f"  {name}: [\n{items}\n  ]")
        else:
            lines.append(f"  {name}: {_one_line(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def relative_file(path: Path) -> str:
    """The case file as `cases/<variant>/<topic>/<file>.yaml` when bundled, else its name as given."""
    try:
        return path.resolve().relative_to(data_root().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def every_option(options: Options) -> dict[str, Any]:
    """Every option with its JSON value, the late ones (protocol.md 2.1) included even at their default."""
    return {field.name: value.value if isinstance(value := getattr(options, field.name), Enum) else value
            for field in fields(Options)}


def step_json(step: Step) -> dict[str, Any]:
    entry: dict[str, Any] = {"kind": step.kind.value, "line": step.line}
    if step.kind is StepKind.EXPECT:
        entry["expect"] = step.expect or {}
        return entry
    entry["seat"] = step.seat
    entry["action"] = step.action.value if step.action is not None else None
    entry["amount"] = step.amount
    if step.kind is StepKind.REJECT:
        entry["reason"] = step.reason
    return entry


def case_json(case: Case, *, defaults: Options | None = None) -> dict[str, Any]:
    """Everything the case model holds, in JSON terms (the reader rebuilds the identical `Case`)."""
    full = case.options_with(defaults or PROFILES[PROFILE])
    return {
        "format": CASE_FORMAT,
        "format_version": FORMAT_VERSION,
        "suite_version": __version__,
        "id": case.id,
        "title": case.title,
        "file": relative_file(case.path),
        "line": case.line,
        "rules": list(case.rules),
        "tags": list(case.tags),
        "variant": case.variant.value,
        "generated": case.generated,
        "note": case.note,
        "options_named": dict(case.options),
        "options": every_option(full),
        "stakes": case.stakes.to_json() if case.stakes is not None else None,
        "seats": [{"seat": seat.seat, "stack": seat.stack} for seat in case.seats],
        "deck": [str(card) for card in case.deck],
        "remade_stub": None if case.remade_stub is None else [str(card) for card in case.remade_stub],
        "seat_cards": None if case.seat_cards is None else {
            str(seat): [None if card is None else str(card) for card in cards]
            for seat, cards in sorted(case.seat_cards.items())},
        "burns": [None if card is None else str(card) for card in case.burns],
        "steps": [step_json(step) for step in case.steps],
        "final": case.final,
        "setup_refused": None if case.setup_refused is None else {
            "reasons": list(case.setup_refused.reasons), "why": case.setup_refused.why},
        "new_hand": None if case.new_hand is None else dict(case.new_hand),
    }


def step_of_requests(case: Case) -> list[int | None]:
    """For each request the harness sends for `case`, the index of the step that sends it (None: new_hand).

    An `act` step sends one `act`; a `reject` step its `act` and then a `state` (the check that the
    refusal changed nothing); an `expect` step sends nothing (protocol.md section 5).
    """
    owners: list[int | None] = [None]
    for index, step in enumerate(case.steps):
        if step.kind is StepKind.ACT:
            owners.append(index)
        elif step.kind is StepKind.REJECT:
            owners.extend((index, index))
    return owners


class GoldenPlayer:
    """The reference engine in process behind the harness's Runner; one session for a whole export."""

    def __init__(self, *, defaults: Options | None = None) -> None:
        self.client = EngineClient(InProcessTransport)
        self.client.start()
        hello = self.client.transcript[0]
        self.hello: dict[str, Any] = {"request": hello["request"], "response": hello["response"]}
        self.runner = Runner(self.client, defaults=defaults or PROFILES[PROFILE])

    def transcript(self, case: Case) -> list[dict[str, Any]]:
        """Every request the harness sends for `case` with the reference engine's whole answer."""
        verdict = self.runner.run(case, last=True)
        if verdict.outcome is not Outcome.PASS:
            raise ExportFailure(f"{case.id}: the reference engine's verdict is {verdict.outcome.value}: {verdict.message}")
        owners = step_of_requests(case)
        entries = list(self.client.transcript)
        if len(entries) != len(owners):
            raise ExportFailure(f"{case.id}: the harness sent {len(entries)} requests, the steps account for {len(owners)}")
        out: list[dict[str, Any]] = []
        for number, (entry, owner) in enumerate(zip(entries, owners)):
            seq = HELLO_SEQ + 1 + number
            request = {**entry["request"], "seq": seq}
            response = {**entry["response"], "seq": seq}
            out.append({"step": owner, "request": request, "response": response})
        return out

    def close(self) -> None:
        self.client.stop()


def smoke_transcript() -> list[dict[str, Any]]:
    """What `studcheck smoke` sends after hello (its short hands) and the reference engine's answers.

    Recorded by running the harness's own smoke test in process, so an engine that replays the export
    can pass `studcheck smoke` too. `bye` is left out: it ends a session, it is no hand.
    """
    client = EngineClient(InProcessTransport)
    result = run_smoke(client, lambda _line: None)
    if not result.ok:
        raise ExportFailure("the reference engine fails `studcheck smoke`: " + "; ".join(result.lines))
    return [{"step": None, "request": entry["request"], "response": entry["response"]}
            for entry in client.transcript if entry["request"]["type"] not in ("hello", "bye")]


def case_name(case_id: str) -> str:
    """`cases/<ID>.json`; an ID too long for a file name is cut and hashed (`file_safe`)."""
    return f"cases/{file_safe(case_id)}.json"


def export_cases(cases: Iterable[Case], *, progress: Callable[[Case], None] | None = None) -> tuple[dict[str, Any], list[Exported]]:
    """The index and one document per case (sorted by ID), each case with its golden transcript."""
    player = GoldenPlayer()
    exported: list[Exported] = []
    try:
        for case in sorted(cases, key=lambda c: c.id):
            document = case_json(case)
            document["transcript"] = player.transcript(case)
            exported.append(Exported(case_id=case.id, name=case_name(case.id), document=document, text=dumps(document)))
            if progress is not None:
                progress(case)
    finally:
        player.close()
    return index_json(player.hello, exported, smoke_transcript()), exported


def index_json(hello: Mapping[str, Any], exported: Sequence[Exported], smoke: list[dict[str, Any]]) -> dict[str, Any]:
    defaults = PROFILES[PROFILE]
    return {
        "format": INDEX_FORMAT,
        "format_version": FORMAT_VERSION,
        "suite_version": __version__,
        "protocol": PROTOCOL,
        "profile": PROFILE,
        "defaults": every_option(defaults),
        "hello": dict(hello),
        "smoke": smoke,
        "cases": [{
            "id": item.case_id,
            "file": item.name,
            "variant": item.document["variant"],
            "title": item.document["title"],
            "rules": item.document["rules"],
            "tags": item.document["tags"],
            "sha256": hashlib.sha256(item.text.encode("utf-8")).hexdigest(),
        } for item in exported],
    }


def write_export(directory: Path, index: Mapping[str, Any], exported: Sequence[Exported]) -> int:
    """Write DIR/index.json and DIR/cases/<ID>.json; returns the bytes written."""
    (directory / "cases").mkdir(parents=True, exist_ok=True)
    total = 0
    for item in exported:
        data = item.text.encode("utf-8")
        (directory / item.name).write_bytes(data)
        total += len(data)
    data = dumps(index).encode("utf-8")
    (directory / "index.json").write_bytes(data)
    return total + len(data)
