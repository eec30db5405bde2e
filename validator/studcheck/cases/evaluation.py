"""Evaluation cases (spec/evaluation.md section 5): hands of one kind in the order the rules choose them.

A case file lists lines of items, the one the rules choose first at the top, tied items on one line
joined by ` = `, and for `low8` the hands with no qualifying low. Loading turns the lines into keys
(a higher key is chosen first, equal keys tie) that the harness compares an engine's values with;
the keys come from the file, never from the reference (the reference must pass every case, a test).
"""

from __future__ import annotations

import json
import re
import stat
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from studcheck.cards import Card, CardError, parse_cards
from studcheck.cases.load import EVALUATION_FOLDER, CaseError, Problem, retired_rules, rule_index, yaml_files
from studcheck.cases.source import LineDict, LineList, SourceError, line_of, parse_yaml, show, to_json_view, where
from studcheck.evaluation.kinds import SPECS, Key, Kind
from studcheck.evaluation.model import EvaluationCase
from studcheck.resources import cases_dir, schema_path

#: an evaluation case ID, whole
EVALUATION_ID = re.compile(r"EV(?:-[A-Z0-9]+)+")
#: a case file larger than this is refused before it is read (a case needs a few kilobytes)
MAX_BYTES = 1 << 20


def default_folder() -> Path:
    """The bundled evaluation cases: cases/evaluation/<kind>/*.yaml (the hands loader leaves this folder out)."""
    return cases_dir() / EVALUATION_FOLDER


def case_files(paths: Sequence[Path | str] | None = None) -> list[Path]:
    """The files named; for a folder, the *.yaml under its `evaluation` subfolder if it has one (a
    folder of hand cases, like the bundled cases/), else every *.yaml under it."""
    files: list[Path] = []
    for item in [Path(p) for p in paths] if paths else [default_folder()]:
        if not item.is_dir():
            files.append(item)
        elif (item / EVALUATION_FOLDER).is_dir():
            files.extend(yaml_files(item, evaluation=True))
        else:
            files.extend(sorted(item.rglob("*.yaml")))
    return files


def load_evaluation_cases(paths: Sequence[Path | str] | None = None) -> list[EvaluationCase]:
    """Every evaluation case under `paths` (default: the bundled ones); the first bad file raises CaseError
    with every problem of that file, and a repeated ID is a problem of the second file."""
    cases: list[EvaluationCase] = []
    seen: dict[str, Path] = {}
    for path in case_files(paths):
        case, problems = analyse(path)
        if case is not None and case.id in seen:
            problems.append(Problem(path=path, line=1, message=f"the ID {case.id} is also used by {seen[case.id]}"))
        if problems:
            first = problems[0]
            raise CaseError(first.path, first.line, first.message, problems)
        assert case is not None
        seen[case.id] = path
        cases.append(case)
    return cases


def lint_evaluation_cases(paths: Sequence[Path | str] | None = None) -> tuple[list[EvaluationCase], list[Problem]]:
    """Every case that loads and every problem found (all files are read)."""
    cases: list[EvaluationCase] = []
    problems: list[Problem] = []
    seen: dict[str, Path] = {}
    for path in case_files(paths):
        case, found = analyse(path)
        problems.extend(found)
        if case is None:
            continue
        if case.id in seen:
            problems.append(Problem(path=path, line=1, message=f"the ID {case.id} is also used by {seen[case.id]}"))
            continue
        seen[case.id] = path
        cases.append(case)
    return cases, problems


def analyse(path: Path) -> tuple[EvaluationCase | None, list[Problem]]:
    """The case in one file, or the problems that keep it from loading (never an exception)."""
    problems: list[Problem] = []

    def add(line: int, message: str) -> None:
        problems.append(Problem(path=path, line=line, message=message))

    try:
        case = _read(path, add)
    except Exception as exc:  # noqa: BLE001 - a case file must never produce a traceback
        add(1, f"internal error while reading this case ({type(exc).__name__}: {exc}); please report it")
        return None, problems
    return (case if not problems else None), problems


def _read(path: Path, add: Any) -> EvaluationCase | None:
    try:
        info = path.stat()
    except OSError as exc:
        add(1, f"cannot read the file: {exc.strerror or exc}")
        return None
    if not stat.S_ISREG(info.st_mode):
        add(1, "not a regular file (a case file is a YAML text file)")
        return None
    if info.st_size > MAX_BYTES:
        add(1, f"{info.st_size} bytes, more than the {MAX_BYTES} a case file may have")
        return None
    try:
        text = path.read_bytes()[: MAX_BYTES + 1].decode("utf-8")
        documents = parse_yaml(text)
        raw = to_json_view(documents[0][1]) if len(documents) == 1 else None
    except UnicodeDecodeError as exc:
        add(1, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        return None
    except OSError as exc:
        add(1, f"cannot read the file: {exc.strerror or exc}")
        return None
    except SourceError as exc:
        add(exc.line, exc.message)
        return None
    if not isinstance(raw, LineDict):
        add(1, "an evaluation case file holds one YAML mapping (id, title, kind, rules, order)")
        return None
    for line, message in _schema_problems(raw):
        add(line, message)
    if not isinstance(raw.get("kind"), str) or raw["kind"] not in {kind.value for kind in Kind}:
        return None
    return _build(path, raw, add)


def _schema_problems(raw: LineDict) -> list[tuple[int, str]]:
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(_schema())
    found = []
    for error in sorted(validator.iter_errors(raw), key=lambda e: list(map(str, e.absolute_path))):
        path = list(error.absolute_path)
        here = where(path)
        if error.validator == "additionalProperties":
            allowed = ", ".join(_schema()["properties"])
            unknown = [key for key in error.instance if key not in _schema()["properties"]]
            for key in unknown:
                found.append((line_of(raw, [*path, key]), f"unknown key {show(key)} (allowed: {allowed})"))
            continue
        if error.validator == "pattern" and path and path[0] in ("order", "no_low"):
            message = (f"{here}: {show(error.instance)} is not a line of hands: cards like `Ah Kd 5c` "
                       "(rank 23456789TJQKA then suit cdhs), tied hands joined by ` = `")
        else:
            message = f"{here}: {error.message}" if here else error.message
        found.append((line_of(raw, path), message))
    return found


@lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    with schema_path("evaluation-case").open(encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


def _build(path: Path, raw: LineDict, add: Any) -> EvaluationCase | None:
    kind = Kind(raw["kind"])
    if isinstance(raw.get("id"), str) and not EVALUATION_ID.fullmatch(raw["id"]):  # `$` lets a final line break by
        add(raw.key_line("id"), f"id: {show(raw['id'])} is not an ID: EV-, then capital letters, digits and dashes only")
    spec = SPECS[kind]
    known, retired = rule_index(), retired_rules()
    rules = raw.get("rules")
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        if isinstance(rule, str) and rule in retired:
            add(line_of(raw, ["rules", index]), f"{rule!r} is retired ({retired[rule]})")
        elif isinstance(rule, str) and rule not in known:
            add(line_of(raw, ["rules", index]), f"unknown rule ID {rule!r} (spec/rules.yaml)")
    if "no_low" in raw and kind is not Kind.LOW8:
        add(line_of(raw, ["no_low"]), "`no_low` is for low8 cases only")
    items: list[tuple[Card, ...]] = []
    keys: list[Key] = []
    lines: list[int] = []
    written = [line for line in raw.get("order") or [] if isinstance(line, str)]
    order = _lines(raw.get("order"))
    for rank, text in enumerate(written):
        line = order.item_line(rank)
        for hand in text.split("="):
            cards = _hand(hand, line, spec.cards, kind, add)
            if cards is not None:
                items.append(cards)
                keys.append((1, len(written) - rank) if kind is Kind.LOW8 else (len(written) - rank,))
                lines.append(line)
    no_low = _lines(raw.get("no_low"))
    for index, text in enumerate(no_low):
        cards = _hand(str(text), no_low.item_line(index), spec.cards, kind, add)
        if cards is not None:
            items.append(cards)
            keys.append((0,))
            lines.append(no_low.item_line(index))
    if kind in (Kind.EXPOSED_HIGH, Kind.EXPOSED_LOW) and len({len(item) for item in items}) > 1:
        add(line_of(raw, ["order"]), "the boards of one case have one size (the rules compare boards of equal size)")
    if len(text_items(written)) + len(no_low) < 2:
        add(line_of(raw, ["order"]), "a case orders at least two items")
    return EvaluationCase(
        id=str(raw["id"]), title=str(raw["title"]), kind=kind, rules=tuple(str(rule) for rule in rules or ()),
        path=path, line=raw.key_line("id"), items=tuple(items), keys=tuple(keys), item_lines=tuple(lines),
        note=str(raw.get("note", "")),
    )


def text_items(lines: Sequence[str]) -> list[str]:
    """The items the order lines write (a line of tied items holds several)."""
    return [item for line in lines for item in line.split("=")]


def _lines(value: Any) -> LineList:
    return value if isinstance(value, LineList) else LineList()


def _hand(text: str, line: int, sizes: tuple[int, int], kind: Kind, add: Any) -> tuple[Card, ...] | None:
    try:
        cards = parse_cards(text.split())
    except CardError as exc:
        add(line, f"{text.strip()!r}: {exc}")
        return None
    low, high = sizes
    if not low <= len(cards) <= high:
        count = f"{low}" if low == high else f"{low} to {high}"
        add(line, f"{text.strip()!r}: a {kind.value} item has {count} card{'' if high == 1 else 's'}, not {len(cards)}")
        return None
    if len(set(cards)) != len(cards):
        add(line, f"{text.strip()!r}: a card appears twice in one hand")
        return None
    return cards
