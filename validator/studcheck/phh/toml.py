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
        return json.dumps(value, ensure_ascii=False)
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


def loads(text: str) -> dict[str, Any]:
    try:
        data: dict[str, Any] = _TOMLLIB.loads(text)
    except _TOMLLIB.TOMLDecodeError as exc:
        raise TomlError(str(exc)) from None
    return data
