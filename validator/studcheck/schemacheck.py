"""Checking a JSON value against a studcheck schema (one `$defs` entry, or a whole case file): a fast
yes, an exact no.

Every engine response, every request `studcheck serve` reads, every exported document and every
case file read without the cache is checked, so the check is on the hot path of `run`, `fuzz` and
`serve`. jsonschema-rs (compiled) answers first; when it objects, or is not installed, or cannot
read the value, jsonschema (the reference implementation of draft 2020-12) decides and words the
reason. So the verdict and its words never depend on which of the two is installed: the fast check
only ever shortens a "yes". Where the two differ on JSON values, the fast one is the stricter (a
pattern's `$` lets a final newline through in Python's `re`, not in Rust's regex; NaN is a number
to jsonschema), and a value it refuses wrongly still gets jsonschema's verdict.

The values checked are JSON values as `json.loads` gives them, since the schemas are of what is
on the wire or in the file: a Python tuple, which no JSON text becomes, passes jsonschema-rs as an
array and fails jsonschema, so a caller holding Python objects checks their JSON round trip.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from studcheck.resources import schema_path

if TYPE_CHECKING:
    from jsonschema.protocols import Validator


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, Any]:
    """spec/schema/<name>.schema.json (or the installed copy), parsed once per process."""
    with open(schema_path(name), encoding="utf-8") as handle:
        schema: dict[str, Any] = json.load(handle)
    return schema


def _wrapper(name: str, definition: str) -> dict[str, Any]:
    schema = load_schema(name)
    return {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}


@lru_cache(maxsize=None)
def authoritative(name: str, definition: str) -> Validator:
    """jsonschema's validator of `$defs/<definition>`: the one that decides and words a "no"."""
    from jsonschema import Draft202012Validator  # only when the fast check objects: it takes 0.3 s to import

    validator: Validator = Draft202012Validator(_wrapper(name, definition))
    return validator


def _compiled(schema: dict[str, Any]) -> Callable[[Any], bool] | None:
    """jsonschema-rs's `is_valid` for `schema`, or None if it is missing or cannot compile it."""
    try:
        import jsonschema_rs

        is_valid: Callable[[Any], bool] = jsonschema_rs.Draft202012Validator(schema).is_valid
    except Exception:  # not installed, or a version that cannot compile the schema: jsonschema alone decides
        return None
    return is_valid


@lru_cache(maxsize=None)
def fast(name: str, definition: str) -> Callable[[Any], bool] | None:
    """jsonschema-rs's `is_valid` for `$defs/<definition>`, or None."""
    return _compiled(_wrapper(name, definition))


@lru_cache(maxsize=None)
def fast_document(name: str) -> Callable[[Any], bool] | None:
    """jsonschema-rs's `is_valid` for a whole document of `<name>.schema.json` (a case file), or None."""
    return _compiled(load_schema(name))


def _surely(check: Callable[[Any], bool] | None, value: Any) -> bool:
    if check is None:
        return False
    try:
        return check(value)
    except Exception:  # a value jsonschema-rs cannot convert (a dict with a non-string key, a date): jsonschema decides
        return False


def _fast_yes(name: str, definition: str, value: Any) -> bool:
    return _surely(fast(name, definition), value)


def surely_valid_document(name: str, value: Any) -> bool:
    """True only if jsonschema-rs finds `value` a valid `<name>` document; False means "ask jsonschema"."""
    return _surely(fast_document(name), value)


def first_problem(name: str, definition: str, value: Any) -> str | None:
    """The first reason (in jsonschema's order) `value` breaks `$defs/<definition>`, or None."""
    if _fast_yes(name, definition, value):
        return None
    return _words(next(iter(authoritative(name, definition).iter_errors(value)), None))


def best_problem(name: str, definition: str, value: Any) -> str | None:
    """jsonschema's best match among the reasons `value` breaks `$defs/<definition>`, or None."""
    if _fast_yes(name, definition, value):
        return None
    from jsonschema.exceptions import best_match

    return _words(best_match(authoritative(name, definition).iter_errors(value)))


def _words(error: Any) -> str | None:
    """`state.seats[1].up[0]: '10h' does not match ...`: where, then jsonschema's message."""
    if error is None:
        return None
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path)
    return f"{where.lstrip('.') or '(top level)'}: {error.message}"
