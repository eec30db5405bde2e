"""Reading JSON and JSON Lines that someone else may have written: total and bounded.

Every studcheck file that is read back (run reports, shard reports, fuzz censuses) goes through
here, so each bound is set once: a reader either returns plain JSON values or raises
`InputError` naming the file and line. What is refused and why:

- lines are split on "\\n" only: `str.splitlines` also splits on U+2028, U+2029, U+0085 and other
  characters that studcheck itself writes unescaped inside strings (`ensure_ascii=False`);
- NaN and Infinity (not JSON, though Python's json reads them) and numbers too large for a float;
- integers longer than `MAX_INT_DIGITS` digits (no count or chip amount needs more, and Python
  refuses to convert very long ones anyway);
- nesting deeper than `MAX_DEPTH` (no studcheck file nests past a dozen levels);
- lone surrogates (`"\\ud800"`), which no UTF-8 file can hold and no writer could write back;
- files larger than the caller's byte limit, refused before they are read into memory.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

MAX_DEPTH = 64
MAX_INT_DIGITS = 30
#: the default size limit of a file read whole (a full run of every case with transcripts is ~30 MB)
MAX_FILE_BYTES = 512 * 1024 * 1024


class InputError(ValueError):
    """A file studcheck cannot read; `str()` is `path:line: problem` (line 0: the whole file)."""

    def __init__(self, path: str | Path, line: int, problem: str) -> None:
        self.path, self.line, self.problem = str(path), line, problem
        super().__init__(f"{path}:{line}: {problem}" if line else f"{path}: {problem}")


class _Refused(ValueError):
    pass


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or len(text) > 64:
        raise _Refused(f"the number {text[:20]}{'…' if len(text) > 20 else ''} is out of range")
    return value


def _check(value: Any) -> None:
    """Depth and lone surrogates, without recursion (a hostile file cannot overflow the stack)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _text(item)
        elif isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                raise _Refused(f"nested more than {MAX_DEPTH} levels deep")
            if isinstance(item, dict):
                for key in item:
                    _text(key)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)


def _text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _Refused("a string holds a lone surrogate (\\ud800-\\udfff), which is not text") from None


def loads(text: str, *, path: str | Path, line: int = 0) -> Any:
    """One JSON value from `text`, within the bounds above, or InputError."""
    try:
        value = json.loads(text, parse_constant=_constant, parse_int=_integer, parse_float=_float)
        _check(value)
    except _Refused as error:
        raise InputError(path, line, str(error)) from None
    except RecursionError:
        raise InputError(path, line, f"nested more than {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError as error:
        where = line or error.lineno
        raise InputError(path, where, f"not JSON ({error.msg})") from None
    return value


def read_text(path: Path, *, limit: int = MAX_FILE_BYTES) -> str:
    """The whole file as UTF-8 text, refused before reading when it is over `limit` bytes."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise InputError(path, 0, f"{size} bytes, more than the {limit} this reader takes")
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise InputError(path, 0, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, 0, "is a directory, not a file") from None
    except UnicodeDecodeError as error:
        raise InputError(path, 0, f"not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise InputError(path, 0, f"cannot read: {error.strerror or error}") from None


def lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line, split on "\\n" alone (a "\\r" before it dropped)."""
    for number, raw in enumerate(text.split("\n"), start=1):
        raw = raw.removesuffix("\r")
        if raw.strip():
            yield number, raw
