"""The little TOML PHH needs: flat `key = value` lines out, any TOML in.

PHH files are flat (strings, integers, booleans, lists of them, one inline table), so a dozen-line
writer does it and the exporter needs no PokerKit (its `HandHistory.dumps` would). Reading uses the
standard library's tomllib (Python 3.11+) or its backport tomli, a full parser with line numbers.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Mapping
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Imported as Any: the module name depends on the Python version, and mypy checks one version.
_TOMLLIB: Any = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli")


class TomlError(ValueError):
    """Text that is not TOML; the message carries the parser's line and column."""


def value_text(value: Any) -> str:
    """One TOML value: JSON string escapes are valid TOML basic-string escapes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        # TOML strings may not hold DEL or any control character but tab (JSON escapes the others),
        # nor a lone surrogate (no UTF-8 file can): escape the one, replace the other.
        text = _SURROGATE.sub("\ufffd", value)
        return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_text(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key_text(str(key))} = {value_text(item)}" for key, item in value.items()) + "}"
    raise TypeError(f"no TOML form for {type(value).__name__} values in a PHH file")


def key_text(key: str) -> str:
    return key if _BARE_KEY.match(key) else json.dumps(key, ensure_ascii=False)


def dumps(fields: Mapping[str, Any]) -> str:
    """`key = value` lines in the given order (None values are left out), ending with a newline."""
    return "".join(f"{key_text(key)} = {value_text(value)}\n" for key, value in fields.items() if value is not None)


#: a PHH file nests one inline table in a list at most; no PHH number needs more digits
MAX_DEPTH = 16
MAX_INT_DIGITS = 30


def loads(text: str) -> dict[str, Any]:
    """The TOML document, or TomlError: also for nesting deeper than MAX_DEPTH (checked before
    parsing, since the parser recurses) and integers longer than MAX_INT_DIGITS digits."""
    deep = _too_deep(text)
    if deep is not None:
        raise TomlError(f"nesting deeper than {MAX_DEPTH} levels of arrays and tables (at line {deep})")
    try:
        data: dict[str, Any] = _TOMLLIB.loads(text)
    except _TOMLLIB.TOMLDecodeError as exc:
        raise TomlError(str(exc)) from None
    except (ValueError, RecursionError) as exc:  # e.g. Python's limit on converting very long integers
        raise TomlError(f"a value this reader cannot take: {exc}") from None
    _check_numbers(data)
    return data


def _too_deep(text: str) -> int | None:
    """The line where `[` and `{` outside strings and comments first nest past MAX_DEPTH, or None."""
    depth, line, quote, comment = 0, 1, "", False
    for char in text:
        if char == "\n":
            line, comment = line + 1, False
            if quote in ('"', "'"):
                quote = ""  # a single-line string ends here at the latest (the parser says if it is wrong)
        elif comment:
            continue
        elif quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            comment = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return line
        elif char in "]}":
            depth = max(depth - 1, 0)
    return None


def _check_numbers(data: Any) -> None:
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, int) and not isinstance(item, bool) and abs(item) >= 10**MAX_INT_DIGITS:
            raise TomlError(f"an integer of {len(str(abs(item)))} digits (at most {MAX_INT_DIGITS})")
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
