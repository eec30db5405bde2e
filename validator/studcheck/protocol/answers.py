"""Reading an engine's answer line within the bounds of the run's own report readers.

Whatever the harness accepts from an engine may be recorded (a failing case's transcript, a
message quoting the engine's error), and the run's report must stay readable by `studcheck
report`, `merge` and `rulebook --report` (jsonio.py, report/load.py). So an answer those readers
would refuse is refused here, as `bad_response` with its reason, before anything records it:
numbers they do not take, nesting deeper than they take, strings longer than they take.
"""

from __future__ import annotations

import json
import math
from typing import Any

from studcheck.jsonio import MAX_INT_DIGITS

#: how deep an answer may nest (a state nests five levels; extra keys may add some): deeper ones are
#: refused, so that no report, reader or recursion downstream meets them (the report readers take 64
#: levels, jsonio.MAX_DEPTH, and a report line holds an answer four levels down)
MAX_DEPTH = 48
#: the longest string (key or value, in characters) an answer may hold. The report readers take
#: strings of up to 1,000,000 characters (report/load.py MAX_STRING); a report line may quote an
#: answer's string inside a longer one (a message; repr-escaped, up to 10 characters a character),
#: so a tenth of that. No state needs more than a few dozen; an error message is a sentence.
MAX_STRING_CHARS = 100_000
#: hello's engine name and version, which the report's header carries: the readers take 1,000
#: characters (report/load.py MAX_NAME)
MAX_NAME_CHARS = 1000
#: a schema problem quoted in a message: jsonschema's words quote the offending value whole, which
#: may be most of an 8 MiB answer line
MAX_PROBLEM_CHARS = 2000
#: Whole floats up to this size are read as integers; past 2**53 a float no longer holds every integer.
_EXACT_FLOAT = 2.0**53


class Refused(Exception):
    """An answer that is JSON but that no report reader would take back; `str()` says why."""


class _OutOfRange(Exception):
    """A number in an answer that no report reader would take back (jsonio's bounds)."""


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _OutOfRange(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def number(text: str) -> float | int:
    """A JSON number with a fraction or exponent: `2.0` is read as the integer 2, as JSON Schema
    counts it (protocol.md section 1), so an engine that does its arithmetic in floats or whose JSON
    library writes `2.0` is compared by value; `2.5` stays a float, which the schema refuses."""
    value = float(text)
    if not math.isfinite(value) or len(text) > 64:
        raise _OutOfRange(f"the number {text[:20]}{'…' if len(text) > 20 else ''} is out of range")
    return int(value) if value.is_integer() and abs(value) <= _EXACT_FLOAT else value


def depth(value: Any) -> int:
    """How deeply lists and objects nest in a parsed answer (iterative: no recursion limit); it stops
    counting once past MAX_DEPTH."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            items = list(item.values())
        elif isinstance(item, list):
            items = item
        else:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in items)
    return deepest


def longest_string(value: Any) -> int:
    """The length of the longest string in a parsed answer, keys included (iterative); it stops
    looking once one is longer than MAX_STRING_CHARS."""
    longest = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            longest = max(longest, len(item))
        elif isinstance(item, dict):
            longest = max(longest, max(map(len, item), default=0))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        if longest > MAX_STRING_CHARS:
            break
    return longest


def parse(raw: bytes) -> Any:
    """One answer line as JSON within the readers' bounds.

    Raises `Refused` (JSON no report reader takes back), or ValueError / UnicodeDecodeError (not
    JSON: NaN and Infinity included). The whole-answer walks run only on lines long enough or
    nested enough to need them, so an ordinary answer costs nothing more than `json.loads`.
    """
    try:
        value = json.loads(raw, parse_float=number, parse_int=_integer, parse_constant=_constant)
    except _OutOfRange as exc:
        raise Refused(f"the engine's answer holds {exc}") from None
    except RecursionError:
        raise Refused(f"the engine's answer is nested more than {MAX_DEPTH} levels deep") from None
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and depth(value) > MAX_DEPTH:
        raise Refused(f"the engine's answer is nested more than {MAX_DEPTH} levels deep "
                      "(a state needs five; reports could not be written or read back)")
    if len(raw) > MAX_STRING_CHARS:  # a string of N characters takes at least N + 2 bytes of the line
        longest = longest_string(value)
        if longest > MAX_STRING_CHARS:
            raise Refused(f"the engine's answer holds a string of {longest:,} characters (at most "
                          f"{MAX_STRING_CHARS:,}; the run's report could not be read back)")
    return value


def hello_problem(response: Any) -> str | None:
    """Why a hello answer's engine name or version cannot go into a report's header, or None."""
    engine = response.get("engine") if isinstance(response, dict) else None
    if not isinstance(engine, dict):
        return None
    for field in ("name", "version"):
        value = engine.get(field)
        if isinstance(value, str) and len(value) > MAX_NAME_CHARS:
            return (f"the engine's {field} in hello is {len(value):,} characters long (at most {MAX_NAME_CHARS:,}: "
                    "the run's report could not be read back)")
    return None
