"""Read an export back (spec/export.md): a total reader that returns `Case` objects or raises ExportError.

Every document is checked against spec/schema/export.schema.json before anything is built from it,
so what reaches the model is well typed; a card or value the model itself refuses is an error too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from studcheck.cards import Card, CardError, parse_card
from studcheck.cases.model import Case, SetupRefusal, Step, StepKind
from studcheck.export.write import CASE_FORMAT, FORMAT_VERSION, INDEX_FORMAT
from studcheck.resources import data_root
from studcheck.rules import ActionType, SeatSetup, SetupError, Stakes, Variant
from studcheck.schemacheck import best_problem

#: bigger than any case export (the largest bundled one is about 200 KB) by far; a reader sets bounds once
MAX_DOCUMENT_BYTES = 16 * 1024 * 1024


class ExportError(ValueError):
    """An export file that cannot be read: `str()` is `file: problem`."""

    def __init__(self, path: Path | str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = Path(path)
        self.message = message


def schema_problem(definition: str, document: Any) -> str | None:
    """The best reason (jsonschema's best match) `document` breaks `$defs/<definition>` of the export schema, or None."""
    return best_problem("export", definition, document)


def read_document(path: Path, definition: str) -> dict[str, Any]:
    """Parse one file and check it against the schema; every failure is an ExportError."""
    try:
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            raise ExportError(path, f"larger than {MAX_DOCUMENT_BYTES} bytes")
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ExportError(path, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ExportError(path, f"not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ExportError(path, f"line {exc.lineno}: not JSON ({exc.msg})") from None
    except RecursionError:
        raise ExportError(path, "nested too deeply") from None
    problem = schema_problem(definition, document)
    if problem is not None:
        raise ExportError(path, problem)
    if document["format_version"] != FORMAT_VERSION:
        raise ExportError(path, f"format_version {document['format_version']}: this studcheck reads {FORMAT_VERSION}")
    assert isinstance(document, dict)
    return document


def _card(value: str) -> Card:
    return parse_card(value)


def _maybe_card(value: str | None) -> Card | None:
    return None if value is None else parse_card(value)


def _step(raw: dict[str, Any]) -> Step:
    kind = StepKind(raw["kind"])
    if kind is StepKind.EXPECT:
        return Step(kind=kind, line=raw["line"], expect=raw["expect"])
    action = raw["action"]
    return Step(kind=kind, line=raw["line"], seat=raw["seat"], action=None if action is None else ActionType(action),
                amount=raw["amount"], reason=raw.get("reason"))


def case_from_json(document: dict[str, Any], *, root: Path | None = None) -> Case:
    """The `Case` a schema-valid case document describes; `root` resolves `file` (default: the bundled data)."""
    file = Path(document["file"])
    path = file if file.is_absolute() else (root or data_root()) / file
    refusal = document["setup_refused"]
    stub = document["remade_stub"]
    seat_cards = document["seat_cards"]
    return Case(
        id=document["id"], title=document["title"], path=path, line=document["line"],
        rules=tuple(document["rules"]), tags=tuple(document["tags"]), variant=Variant(document["variant"]),
        options=dict(document["options_named"]),
        stakes=None if document["stakes"] is None else Stakes(**document["stakes"]),
        seats=tuple(SeatSetup(seat=seat["seat"], stack=seat["stack"]) for seat in document["seats"]),
        deck=tuple(_card(card) for card in document["deck"]),
        remade_stub=None if stub is None else tuple(_card(card) for card in stub),
        steps=tuple(_step(step) for step in document["steps"]),
        final=document["final"], generated=document["generated"], note=document["note"],
        seat_cards=None if seat_cards is None else {
            int(seat): tuple(_maybe_card(card) for card in cards) for seat, cards in seat_cards.items()},
        burns=tuple(_maybe_card(card) for card in document["burns"]),
        setup_refused=None if refusal is None else SetupRefusal(reasons=tuple(refusal["reasons"]), why=refusal["why"]),
        new_hand=document["new_hand"],
    )


def read_case(path: Path, *, root: Path | None = None) -> Case:
    """One exported case file as a `Case`; raises ExportError naming the file and the problem."""
    document = read_document(path, "case")
    if document["format"] != CASE_FORMAT:
        raise ExportError(path, f"format {document['format']!r} is not {CASE_FORMAT!r}")
    try:
        return case_from_json(document, root=root)
    except (CardError, SetupError, ValueError) as exc:
        raise ExportError(path, str(exc)) from None


def read_export(directory: Path, *, root: Path | None = None) -> list[Case]:
    """Every case an export's index lists, in index order; the index's hashes must match the files."""
    import hashlib

    index = read_document(directory / "index.json", "index")
    if index["format"] != INDEX_FORMAT:
        raise ExportError(directory / "index.json", f"format {index['format']!r} is not {INDEX_FORMAT!r}")
    cases: list[Case] = []
    for entry in index["cases"]:
        path = directory / entry["file"]
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as exc:
            raise ExportError(path, f"cannot read: {exc.strerror or exc}") from None
        if digest != entry["sha256"]:
            raise ExportError(path, "its sha256 differs from the index's (edited after the export?)")
        case = read_case(path, root=root)
        if case.id != entry["id"]:
            raise ExportError(path, f"holds case {case.id}, the index says {entry['id']}")
        cases.append(case)
    return cases
