"""Reading a case file's text: safe YAML that remembers line numbers, and JSON Schema checking.

Every mapping and sequence is loaded as a LineDict / LineList that records the line of each key and
item, so a problem found anywhere later (schema, cards, deck, steps) is reported at its line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from studcheck.cards import CardError, parse_card
from studcheck.resources import schema_path

#: reason codes only the protocol uses; a case can only expect what the engine itself says
PROTOCOL_ONLY_REASONS = ("bad_request", "no_hand", "unsupported")

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class LineDict(dict[Any, Any]):
    """A mapping that knows its own line and the line of each key (1-based)."""

    line: int = 1
    key_lines: dict[Any, int]

    def key_line(self, key: Any) -> int:
        return self.key_lines.get(key, self.line) if hasattr(self, "key_lines") else self.line


class LineList(list[Any]):
    """A sequence that knows its own line and the line of each item (1-based)."""

    line: int = 1
    item_lines: list[int]

    def item_line(self, index: int) -> int:
        lines = getattr(self, "item_lines", [])
        return lines[index] if 0 <= index < len(lines) else self.line


class SourceError(ValueError):
    """A problem found while reading the text, with its 1-based line."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class _LineLoader(_BaseLoader):  # type: ignore[misc]
    """SafeLoader (C-accelerated when available) that builds LineDict / LineList."""


def _construct_map(loader: Any, node: yaml.MappingNode) -> Iterator[LineDict]:
    data = LineDict()
    data.line = node.start_mark.line + 1
    data.key_lines = {}
    yield data
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        try:
            hash(key)
        except TypeError:
            raise SourceError(line, "a mapping key must be a plain value") from None
        if key in data:
            raise SourceError(line, f"duplicate key {key!r} (first on line {data.key_lines[key]})")
        data[key] = loader.construct_object(value_node, deep=True)
        data.key_lines[key] = line


def _construct_seq(loader: Any, node: yaml.SequenceNode) -> Iterator[LineList]:
    data = LineList()
    data.line = node.start_mark.line + 1
    data.item_lines = [child.start_mark.line + 1 for child in node.value]
    yield data
    data.extend(loader.construct_object(child, deep=True) for child in node.value)


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def parse_yaml(text: str) -> list[tuple[int, Any]]:
    """Every YAML document in `text` as (start line, data). Raises SourceError."""
    loader = _LineLoader(text)
    documents: list[tuple[int, Any]] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            documents.append((node.start_mark.line + 1, loader.construct_document(node)))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        message = " ".join(part for part in (exc.context, exc.problem) if part)
        raise SourceError(line, f"invalid YAML: {message}{_yaml_hint(text, line)}") from None
    except yaml.YAMLError as exc:
        raise SourceError(1, f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()
    return documents


def _yaml_hint(text: str, line: int) -> str:
    """A hint for the two YAML mistakes case authors make most."""
    lines = text.splitlines()
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    indent = source[: len(source) - len(source.lstrip())]
    if "\t" in indent:
        return " (YAML does not allow tabs for indentation: use spaces)"
    if "??" in source and "{" in source:
        return " (inside {...} a card list starting with ?? must be quoted: cards: '?? ?? 2c')"
    return ""


def to_json_view(value: Any, *, budget: int = 200_000) -> Any:
    """Copy with every mapping key as a string (`seats: {1: ...}` -> "1"), keeping the lines.

    Raises SourceError past `budget` nodes, so YAML aliases cannot blow a small file up.
    """
    left = [budget]

    def copy(item: Any) -> Any:
        left[0] -= 1
        if left[0] < 0:
            raise SourceError(1, "the case is too large once YAML aliases are expanded")
        if isinstance(item, dict):
            out = LineDict()
            out.line = getattr(item, "line", 1)
            out.key_lines = {}
            key_lines = getattr(item, "key_lines", {})
            for key, inner in item.items():
                text = key if isinstance(key, str) else json.dumps(key) if isinstance(key, bool) else str(key)
                out[text] = copy(inner)
                out.key_lines[text] = key_lines.get(key, out.line)
            return out
        if isinstance(item, list):
            seq = LineList(copy(inner) for inner in item)
            seq.line = getattr(item, "line", 1)
            seq.item_lines = list(getattr(item, "item_lines", []))
            return seq
        return item

    return copy(value)


def line_of(root: Any, path: Sequence[Any]) -> int:
    """Line of the key or item at `path` (the deepest one that exists)."""
    node = root
    line = getattr(root, "line", 1)
    for part in path:
        if isinstance(node, LineDict) and part in node:
            line = node.key_line(part)
            node = node[part]
        elif isinstance(node, LineList) and isinstance(part, int) and 0 <= part < len(node):
            line = node.item_line(part)
            node = node[part]
        else:
            break
    return line


def where(path: Sequence[Any]) -> str:
    """`["steps", 3, "act"]` -> "steps[3].act"."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


@lru_cache(maxsize=1)
def case_validator() -> Draft202012Validator:
    with schema_path("case").open(encoding="utf-8") as handle:
        schema = json.load(handle)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(_inline_refs(schema, schema.get("$defs", {})))


def _inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    """Replace local `#/$defs/...` references by their target: same meaning, a third faster to check."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
            merged = {**_inline_refs(defs[ref[8:]], defs), **{k: v for k, v in node.items() if k != "$ref"}}
            return {key: _inline_refs(value, defs) for key, value in merged.items()}
        return {key: _inline_refs(value, defs) for key, value in node.items() if key != "$defs"}
    if isinstance(node, list):
        return [_inline_refs(item, defs) for item in node]
    return node


def schema_problems(root: Any) -> list[tuple[int, str]]:
    """Schema errors as (line, message), in file order, with messages written for case authors."""
    found: dict[tuple[int, str], None] = {}
    for error in case_validator().iter_errors(root):
        for line, message in _explain(root, error):
            found[(line, message)] = None
    return sorted(found, key=lambda item: item[0])


def _explain(root: Any, error: ValidationError) -> Iterator[tuple[int, str]]:
    path = list(error.absolute_path)
    here = where(path)
    prefix = f"{here}: " if here else ""
    node: Any = error.instance
    kind = error.validator
    schema: Any = error.schema
    value: Any = error.validator_value
    line = line_of(root, path)
    if kind == "additionalProperties" and isinstance(node, dict):
        allowed = list(schema.get("properties", {}))
        for key in node:
            if key not in allowed:
                hint = f" (allowed: {', '.join(allowed)})" if allowed else ""
                yield line_of(root, [*path, key]), f"{prefix}unknown key {key!r}{hint}"
        return
    if kind == "not" and value == {} and len(path) == 1:
        yield line, f"{prefix}not allowed in a setup_refused case (the hand never starts; give cards with deck:)"
        return
    if kind == "oneOf" and path == ["setup_refused", "reason"]:
        yield line, f"{prefix}{node!r}: must be bad_request, or [bad_request, unsupported] to accept either"
        return
    if kind == "maxItems" and path == ["steps"]:
        yield line, "steps: a setup_refused case has no steps (the hand never starts)"
        return
    if kind == "propertyNames":
        yield line_of(root, [*path, node]), f"{prefix}{node!r} is not a seat number (1 to 8)"
        return
    if kind == "required":
        match = re.match(r"'(.*)' is a required property", error.message)
        missing = match.group(1) if match else error.message
        yield line, f"{prefix}missing key {missing!r}"
        return
    if kind == "enum":
        if path and path[-1] == "reason" and node in PROTOCOL_ONLY_REASONS:
            yield line, (f"{prefix}{node!r} is a protocol-level reason; a case expects an engine reason: "
                         + ", ".join(map(str, value)))
            return
        yield line, f"{prefix}{node!r} is not one of: {', '.join(map(str, value))}"
        return
    if kind == "pattern" and schema.get("title") == "seat number":
        yield line_of(root, [*path, node]), f"{prefix}{node!r} is not a seat number (1 to 8)"
        return
    if kind == "pattern":
        yield line, prefix + _pattern_message(str(schema.get("title", "")), node)
        return
    if kind == "type":
        wanted = value
        wanted_text = " or ".join(wanted) if isinstance(wanted, list) else str(wanted)
        yield line, f"{prefix}expected {wanted_text}, got {_json_type(node)} {node!r}"
        return
    if kind in ("minProperties", "maxProperties") and schema.get("title") == "step":
        keys = ", ".join(node) if isinstance(node, dict) and node else "nothing"
        yield line, f"{prefix}a step has exactly one of act, reject, expect (found: {keys})"
        return
    if kind in ("minProperties", "maxProperties") and path == ["seats"]:
        yield line, f"seats: a hand needs 2 to 8 seated players, got {len(node)}"
        return
    if kind in ("minItems", "maxItems") and path and path[-1] == "cards":
        yield line, f"{prefix}{len(node)} cards listed; a seat is dealt 3 (third street) to 7 (seventh street) cards"
        return
    if kind == "minimum":
        yield line, f"{prefix}must be at least {value}, got {node!r}"
        return
    if kind == "maximum":
        yield line, f"{prefix}must be at most {value}, got {node!r}"
        return
    if kind == "uniqueItems":
        yield line, f"{prefix}lists the same entry twice"
        return
    yield line, f"{prefix}{error.message}"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__


_PATTERN_HINTS = {
    "case id": "an id is upper-case words joined by '-', e.g. SH-BRI-004",
    "rule id": "a rule id looks like BRING-IN.TIE.SUIT (see spec/rules.yaml)",
    "tag": "a tag is lower-case words joined by '-' (see spec/tags.yaml)",
    "action": ("an action is 'SEAT ACTION [AMOUNT]', e.g. '2 bring_in 2', '3 fold', '1 raise 15'; actions: "
               "bring_in complete fold check call bet raise show muck"),
    "legal action": "a legal action is 'fold', 'check', 'show', 'muck' or 'ACTION AMOUNT', e.g. 'call 2'",
    "seat number": "a seat number is 1 to 8",
}


def _pattern_message(title: str, value: Any) -> str:
    if title in ("card", "seat cards", "card list", ""):
        for token in str(value).split():
            if token == "??" and title != "card":
                continue
            try:
                parse_card(token)
            except CardError as exc:
                return str(exc)
        if title == "seat cards":
            count = len(str(value).split())
            return f"{count} cards listed; a seat is dealt 3 (third street) to 7 (seventh street) cards"
        if title == "":
            return f"{value!r}: too many cards or '??' where a real card is needed"
    hint = _PATTERN_HINTS.get(title, "does not have the expected form")
    return f"{value!r}: {hint}"
