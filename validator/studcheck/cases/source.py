"""Reading a case file's text: safe YAML that remembers line numbers, and JSON Schema checking.

Every mapping and sequence is loaded as a LineDict / LineList that records the line of each key and
item, so a problem found anywhere later (schema, cards, deck, steps) is reported at its line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import yaml
from yaml.constructor import SafeConstructor

from studcheck import schemacheck
from studcheck.cards import CardError, parse_card
from studcheck.resources import schema_path

if TYPE_CHECKING:  # jsonschema is imported only when a case file is read, not taken from the cache (0.1-0.3 s)
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

#: reason codes only the protocol uses; a case can only expect what the engine itself says
PROTOCOL_ONLY_REASONS = ("bad_request", "no_hand", "unsupported")
#: ID prefix for each variant (cases/README.md: <VARIANT>-<TOPIC>-<NNN>)
VARIANT_PREFIXES = {"stud_high": "SH", "razz": "RZ", "stud_hilo8": "HL", "five_card_stud": "FS"}

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
    """SafeLoader (C-accelerated when available) that builds LineDict / LineList.

    It also refuses what YAML 1.1 reads differently from what an author means (octal `0100`,
    `yes`/`no`/`on`/`off`, base-60 `1:30`), merge keys, a seat written both as `3` and `'3'`, and
    nesting deeper than MAX_DEPTH, each at its line.
    """

    depth: int = 0


#: mappings and lists inside one another; a case needs about 7, Python's recursion limit about 300
MAX_DEPTH = 32
_MERGE_TAG = "tag:yaml.org,2002:merge"
_NULL_TAG = "tag:yaml.org,2002:null"
_COLON_KEY = re.compile(r"[-+]?[0-9]+:[^:\s]+")
_OCTAL = re.compile(r"[-+]?0[0-7_]+")
#: YAML 1.1 booleans (y and n included) and their mixed-case look-alikes, by their lower-case text
_BOOLEAN_WORDS = {"yes": True, "y": True, "on": True, "true": True,
                  "no": False, "n": False, "off": False, "false": False}


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _enter(loader: Any, node: yaml.Node) -> None:
    loader.depth += 1
    if loader.depth > MAX_DEPTH:
        raise SourceError(_line(node), f"nesting too deep: more than {MAX_DEPTH} levels of mappings and lists "
                                       "inside one another (a case needs fewer than 10)")


def _construct_map(loader: Any, node: yaml.MappingNode) -> Iterator[LineDict]:
    data = LineDict()
    data.line = _line(node)
    data.key_lines = {}
    yield data
    for key_node, _ in node.value:
        if key_node.tag == _MERGE_TAG:
            raise SourceError(_line(key_node), "merge keys (<<) are not allowed in case files: write the keys out")
    loader.flatten_mapping(node)  # only turns `=` keys into strings now that merges are refused
    _enter(loader, node)
    written: dict[str, yaml.Node] = {}  # each key as text (what to_json_view makes it) -> its node
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = _line(key_node)
        try:
            hash(key)
        except TypeError:
            raise SourceError(line, "a mapping key must be a plain value") from None
        text = key if type(key) is str else key_text(key)
        if text in written or key in data:
            _refuse_twice(data, written, key, key_node)
        if value_node.tag == _NULL_TAG and _colon_key(key_node, value_node):
            left, _, right = key_node.value.partition(":")
            raise SourceError(line, f"`{key_node.value}` is read as one key with no value: put a space after the "
                                    f"colon ({left}: {right})")
        data[key] = loader.construct_object(value_node, deep=True)
        data.key_lines[key] = line
        written[text] = key_node
    loader.depth -= 1


def _refuse_twice(data: LineDict, written: dict[str, yaml.Node], key: Any, key_node: yaml.Node) -> None:
    """A key given twice: the same key, or a seat as both 3 and '3' (two keys the JSON view would merge)."""
    text = key_text(key)
    same_key = key in data
    first = written.get(text)
    if first is None:  # equal in Python but written differently: 1 and 1.0, 1 and true
        first = next(written[key_text(other)] for other in data if other == key)
    message = _twice_message(text, _as_written(first), _as_written(key_node), _line(first), same_key=same_key)
    raise SourceError(_line(key_node), message)


def _colon_key(key_node: yaml.Node, value_node: yaml.Node) -> bool:
    """`{1:101}`: a plain key like 1:101 with no value is a missing space (1: 101), not a key."""
    return (isinstance(key_node, yaml.ScalarNode) and _plain(key_node) and isinstance(value_node, yaml.ScalarNode)
            and value_node.tag == _NULL_TAG and value_node.value == "" and _COLON_KEY.fullmatch(key_node.value) is not None)


def _twice_message(text: str, first: str, second: str, first_line: int, *, same_key: bool) -> str:
    """A key given twice in one mapping; `same_key` if YAML itself sees the same key twice."""
    if first == second:
        return f"duplicate key {show(text)} (first on line {first_line})"
    seat = re.fullmatch(r"-?[0-9]+", text) and re.fullmatch(r"""['"]?-?[0-9]+['"]?""", first)
    what = f"seat {text}" if seat else "the same key"
    why = ("" if same_key else
           ": YAML reads them as two different keys, and in the case the later one would silently win")
    return f"{what} is given twice (as {first} and {second}), first on line {first_line}{why}"


def _as_written(node: yaml.Node) -> str:
    """A scalar key as it appears in the file: 3, '3' or "3"."""
    if not isinstance(node, yaml.ScalarNode):
        return "a mapping or list"
    quote = node.style if node.style in ("'", '"') else ""
    return f"{quote}{node.value}{quote}"


def _construct_seq(loader: Any, node: yaml.SequenceNode) -> Iterator[LineList]:
    data = LineList()
    data.line = _line(node)
    data.item_lines = [_line(child) for child in node.value]
    yield data
    _enter(loader, node)
    data.extend(loader.construct_object(child, deep=True) for child in node.value)
    loader.depth -= 1


def _plain(node: yaml.ScalarNode) -> bool:
    return not node.style  # None (pure-Python parser) or "" (libyaml) for a plain scalar


def _construct_int(loader: Any, node: yaml.ScalarNode) -> int:
    value: int = SafeConstructor.construct_yaml_int(loader, node)
    text = node.value
    if _plain(node) and (":" in text or (text[0] in "0+-" and _OCTAL.fullmatch(text))):
        if ":" in text:
            raise SourceError(_line(node), _sexagesimal_message(text, value))
        meant = int(text.replace("_", ""), 10)
        raise SourceError(_line(node), f"`{text}` is read by YAML 1.1 as the octal number {value}; write {meant}")
    return value


def _construct_float(loader: Any, node: yaml.ScalarNode) -> float:
    value: float = SafeConstructor.construct_yaml_float(loader, node)
    if _plain(node) and ":" in node.value:
        raise SourceError(_line(node), _sexagesimal_message(node.value, value))
    return value


def _sexagesimal_message(text: str, value: float) -> str:
    left, _, right = text.partition(":")
    return (f"`{text}` is read by YAML 1.1 as the base-60 (sexagesimal) number {value:g}: for a key and a value "
            f"put a space after the colon ({left}: {right}); for a string, quote it ('{text}')")


def _construct_bool(loader: Any, node: yaml.ScalarNode) -> bool:
    value: bool = SafeConstructor.construct_yaml_bool(loader, node)
    if _plain(node) and node.value.lower() not in ("true", "false"):
        word = json.dumps(value)
        raise SourceError(_line(node), f"`{node.value}` is read as the boolean {word}; write {word} "
                                       "(or quote it if you meant a string)")
    return value


def _construct_str(loader: Any, node: yaml.ScalarNode) -> str:
    value: str = loader.construct_scalar(node)
    if len(value) <= 3 and _plain(node):
        meaning = _BOOLEAN_WORDS.get(value.lower())
        if meaning is not None and value.lower() not in ("true", "false"):
            word = json.dumps(meaning)
            if value in ("y", "Y", "n", "N"):
                why = f"is the boolean {word} in YAML 1.1 (this parser reads it as a string, others as {word})"
            else:
                why = f"looks like the boolean {word} (yes, no, on and off are booleans in YAML 1.1)"
            raise SourceError(_line(node), f"`{value}` {why}: write {word}, or quote it ('{value}') if you "
                                           "meant a string")
    return value


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)
_LineLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_LineLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)
_LineLoader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)
_LineLoader.add_constructor("tag:yaml.org,2002:str", _construct_str)


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
    except RecursionError:  # the pure-Python composer recurses; libyaml's does not
        raise SourceError(_too_deep_line(text), f"nesting too deep: more than {MAX_DEPTH} levels of mappings and "
                                                "lists inside one another (a case needs fewer than 10)") from None
    finally:
        loader.dispose()
    return documents


def _too_deep_line(text: str) -> int:
    """The line where mappings and lists first nest deeper than MAX_DEPTH (the parser keeps a stack, no recursion)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    return int(event.start_mark.line) + 1 if event.start_mark is not None else 1
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        pass
    return 1


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


def key_text(key: Any) -> str:
    """A mapping key as the JSON view writes it: `3` -> "3", `true` -> "true", `null` -> "null"."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    return str(key)


def show(value: Any, *, limit: int = 60) -> str:
    """A value for a message, as YAML would write it: null, true, 'text', [1, 2], {a: 1}; long ones cut."""
    text = _show(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def show_plain(value: Any) -> str:
    """Like `show`, but a string without quotes (for lists of allowed words)."""
    return value if isinstance(value, str) else show(value)


def _show(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key if isinstance(key, str) else _show(key)}: {_show(item)}"
                               for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_show(item) for item in value) + "]"
    return repr(value)


def to_json_view(value: Any, *, budget: int = 200_000) -> Any:
    """Copy with every mapping key as a string (`seats: {1: ...}` -> "1"), keeping the lines.

    Raises SourceError past `budget` nodes, so YAML aliases cannot blow a small file up, and past
    MAX_DEPTH levels (aliases inside aliases can nest deeper than the text does).
    """
    left = [budget]

    def copy(item: Any, depth: int) -> Any:
        left[0] -= 1
        if left[0] < 0:
            raise SourceError(1, "the file is too large once YAML aliases are expanded")
        if isinstance(item, (dict, list)) and depth > MAX_DEPTH:
            raise SourceError(getattr(item, "line", 1), f"nesting too deep once YAML aliases are expanded: more than "
                                                        f"{MAX_DEPTH} levels of mappings and lists")
        if isinstance(item, dict):
            out = LineDict()
            out.line = getattr(item, "line", 1)
            out.key_lines = {}
            key_lines = getattr(item, "key_lines", {})
            for key, inner in item.items():
                text = key_text(key)
                out[text] = copy(inner, depth + 1)
                out.key_lines[text] = key_lines.get(key, out.line)
            return out
        if isinstance(item, list):
            seq = LineList(copy(inner, depth + 1) for inner in item)
            seq.line = getattr(item, "line", 1)
            seq.item_lines = list(getattr(item, "item_lines", []))
            return seq
        return item

    return copy(value, 1)


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
    from jsonschema import Draft202012Validator

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
    """Schema errors as (line, message), in file order, with messages written for case authors.

    jsonschema-rs answers a valid file first (schemacheck.py: a fast yes; any "no" is jsonschema's)."""
    if schemacheck.surely_valid_document("case", root):
        return []
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
                yield line_of(root, [*path, key]), f"{prefix}unknown key {show(key)}{hint}"
        return
    if kind == "not" and value == {} and len(path) == 1:
        yield line, f"{prefix}not allowed in a setup_refused case (the hand never starts; give cards with deck:)"
        return
    if kind == "oneOf" and path == ["setup_refused", "reason"]:
        yield line, f"{prefix}{show(node)}: must be bad_request, or [bad_request, unsupported] to accept either"
        return
    if kind == "maxItems" and path == ["steps"]:
        yield line, "steps: a setup_refused case has no steps (the hand never starts)"
        return
    if kind == "propertyNames":
        yield line_of(root, [*path, node]), f"{prefix}{show(node)} is not a seat number (1 to 8; five_card_stud: 1 to 10)"
        return
    if kind == "required":
        match = re.match(r"'(.*)' is a required property", error.message)
        missing = match.group(1) if match else error.message
        yield line, f"{prefix}missing key {missing!r}"
        return
    if kind == "enum" and path == ["variant"]:
        yield line, variant_message(node, root.get("id"))
        return
    if kind == "enum":
        if path and path[-1] == "reason" and node in PROTOCOL_ONLY_REASONS:
            yield line, (f"{prefix}{show(node)} is a protocol-level reason; a case expects an engine reason: "
                         + ", ".join(map(str, value)))
            return
        yield line, f"{prefix}{show(node)} is not one of: {', '.join(map(show_plain, value))}"
        return
    if kind == "pattern" and schema.get("title") == "seat number":
        yield line_of(root, [*path, node]), f"{prefix}{show(node)} is not a seat number (1 to 8; five_card_stud: 1 to 10)"
        return
    if kind == "pattern":
        yield line, prefix + _pattern_message(str(schema.get("title", "")), node)
        return
    if kind == "type":
        wanted = [str(name) for name in (value if isinstance(value, list) else [value])]
        wanted_text = " or ".join(_TYPE_NAMES.get(name, name) for name in wanted)
        got = _json_type(node) if node is None else f"{_json_type(node)} {show(node)}"
        yield line, f"{prefix}expected {wanted_text}, got {got}"
        return
    if kind in ("minProperties", "maxProperties") and schema.get("title") == "step":
        keys = ", ".join(node) if isinstance(node, dict) and node else "nothing"
        yield line, f"{prefix}a step has exactly one of act, reject, expect (found: {keys})"
        return
    if kind in ("minProperties", "maxProperties") and path == ["seats"]:
        yield line, f"seats: a hand needs 2 to 8 seated players, got {len(node)} (five_card_stud: up to 10)"
        return
    if kind in ("minItems", "maxItems") and path and path[-1] == "cards":
        yield line, f"{prefix}{len(node)} cards listed; {_CARD_COUNTS}"
        return
    if kind == "minimum":
        yield line, f"{prefix}must be at least {value}, got {show(node)}"
        return
    if kind == "maximum":
        yield line, f"{prefix}must be at most {value}, got {show(node)}"
        return
    if kind == "uniqueItems":
        yield line, f"{prefix}lists the same entry twice"
        return
    yield line, f"{prefix}{error.message}"


def variant_message(value: Any, case_id: Any) -> str:
    """An unknown `variant:`: the variants, their ID prefixes, and the one the case's ID names."""
    known = ", ".join(f"{name} ({prefix}-...)" for name, prefix in VARIANT_PREFIXES.items())
    text = f"variant: {show(value)} is not a variant; the variants and their ID prefixes are {known}"
    prefix = case_id.split("-", 1)[0] if isinstance(case_id, str) else ""
    by_prefix = {short: name for name, short in VARIANT_PREFIXES.items()}
    if prefix in by_prefix:
        text += f" (the ID {case_id} starts with {prefix}-, the prefix of {by_prefix[prefix]})"
    return text


_CARD_COUNTS = ("a seat is dealt 3 (third street) to 7 (seventh street) cards "
                "(five_card_stud: 2 (second street) to 5 (fifth street))")

#: JSON Schema type names as YAML authors say them
_TYPE_NAMES = {"array": "list", "object": "mapping"}


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
    "legal action": "a legal action is 'fold', 'check', 'show', 'muck' or 'ACTION AMOUNT', e.g. 'call 2', or a pot/no-limit range 'raise 4..12'",
    "seat number": "a seat number is 1 to 8 (five_card_stud: 1 to 10)",
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
            return f"{count} cards listed; {_CARD_COUNTS}"
        if title == "":
            return f"{show(value)}: too many cards or '??' where a real card is needed"
    hint = _PATTERN_HINTS.get(title, "does not have the expected form")
    return f"{show(value)}: {hint}"
