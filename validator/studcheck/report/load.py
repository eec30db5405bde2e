"""Reading JSONL run reports, with errors that name the file and the line.

The page is built only from lines the report schema accepts, so a truncated or foreign file is
refused up front with a message the reader can act on, not turned into a misleading page.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any


from studcheck import jsonio
from studcheck.resources import schema_path

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

KINDS = ("header", "case", "group", "not_applicable", "footer")


class ReportInputError(ValueError):
    """A report that cannot be read; the message names the file and, when known, the line."""


@dataclass(frozen=True, kw_only=True)
class RunReport:
    """One JSONL report's lines by kind (a killed run may lack the footer, or even the header)."""

    path: str
    header: Mapping[str, Any] | None
    cases: tuple[Mapping[str, Any], ...]
    groups: tuple[Mapping[str, Any], ...]
    not_applicable: tuple[Mapping[str, Any], ...]
    footer: Mapping[str, Any] | None


@lru_cache(maxsize=1)
def _validators() -> dict[str, Draft202012Validator]:
    from jsonschema import Draft202012Validator  # only when a report is read back (0.1-0.3 s to import)

    schema = json.loads(schema_path("report").read_text(encoding="utf-8"))
    return {kind: Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{kind}"}) for kind in KINDS}


def parse_line(text: str, *, where: str) -> dict[str, Any]:
    """One report line, checked against its kind's schema; `where` is `file:line` for the message."""
    try:
        line = jsonio.loads(text, path=where)
    except jsonio.InputError as error:
        hint = "; is this a `studcheck run --report` file?" if error.problem.startswith("not JSON") else ""
        raise ReportInputError(f"{where}: {error.problem}{hint}") from None
    if not isinstance(line, dict) or line.get("kind") not in KINDS:
        raise ReportInputError(f"{where}: not a report line (expected an object with kind one of {', '.join(KINDS)})")
    _check_sizes(line, where)
    problem = next(iter(sorted(_validators()[line["kind"]].iter_errors(line), key=lambda e: list(map(str, e.path)))), None)
    if problem is not None:
        field = ".".join(str(part) for part in problem.absolute_path) or "line"
        raise ReportInputError(f"{where}: not a valid {line['kind']} line: {field}: {problem.message}")
    return line


def read_report(path: Path) -> RunReport:
    """All lines of one report file, in order; blank lines are skipped."""
    try:
        text = jsonio.read_text(path)
    except jsonio.InputError as error:
        raise ReportInputError(str(error)) from None
    numbered = [(number, parse_line(raw, where=f"{path}:{number}")) for number, raw in jsonio.lines(text)]
    if not numbered:
        raise ReportInputError(f"{path}: empty; a report has at least a header line")
    for kind in ("header", "footer"):  # two runs written into one file must not be drawn as one
        at = [number for number, line in numbered if line["kind"] == kind]
        if len(at) > 1:
            raise ReportInputError(f"{path}:{at[1]}: a second {kind} line (the first is line {at[0]}): one file holds "
                                   "one run's report; give each run its own file")
    lines = [line for _, line in numbered]
    return from_lines(str(path), lines)


def from_lines(path: str, lines: Iterable[Mapping[str, Any]]) -> RunReport:
    """Report lines (already checked) sorted by kind; `run --html` passes the lines it just wrote."""
    by_kind: dict[str, list[Mapping[str, Any]]] = {kind: [] for kind in KINDS}
    for line in lines:
        by_kind[line["kind"]].append(line)
    return RunReport(path=path, header=next(iter(by_kind["header"]), None), cases=tuple(by_kind["case"]),
                     groups=tuple(by_kind["group"]), not_applicable=tuple(by_kind["not_applicable"]),
                     footer=next(iter(by_kind["footer"]), None))


#: what studcheck writes stays far below these: a title, an ID or an engine's name is a line of
#: text, and engine output is cut to a few kB per case (protocol/pipes.py); a report holding more
#: was not written by studcheck, and drawing it would make a page of hundreds of megabytes
MAX_NAME = 1000
MAX_STRING = 1_000_000
_NAMES = ("id", "title", "variant", "command", "key", "reason")


def _check_sizes(line: dict[str, Any], where: str) -> None:
    for name in _NAMES:
        value = line.get(name)
        if isinstance(value, str) and len(value) > MAX_NAME:
            raise ReportInputError(f"{where}: {name}: a string of {len(value):,} characters (at most {MAX_NAME:,})")
    engine = line.get("engine")
    if isinstance(engine, dict):
        for name in ("name", "version"):
            value = engine.get(name)
            if isinstance(value, str) and len(value) > MAX_NAME:
                raise ReportInputError(f"{where}: engine.{name}: a string of {len(value):,} characters (at most {MAX_NAME:,})")
    stack: list[Any] = [line]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and len(item) > MAX_STRING:
            raise ReportInputError(f"{where}: a string of {len(item):,} characters (at most {MAX_STRING:,})")
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
