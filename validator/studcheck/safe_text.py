"""Engine-written text made safe for each place studcheck writes it.

An engine's name, its stderr and its answers are written by someone else: they may hold an ANSI
escape (colour logging is common), a NUL, a lone surrogate, or Markdown/HTML that would hide or
restyle what follows. Each writer passes engine text through the function for its medium, so no
report is lost (XML 1.0 refuses most control characters) and none can be rewritten by an engine.
A file name is such a place too (an engine's name in a badge's, a case ID in an export's).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

#: characters XML 1.0 does not allow at all (section 2.2), surrogates and U+FFFE/U+FFFF included
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: C0 and C1 controls but tab and newline, DEL, and the line/paragraph separators: on a terminal
#: they move the cursor, set the title or clear the screen
_BACKTICKS = re.compile("`+")
_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def xml_safe(text: str) -> str:
    """`text` with every character XML 1.0 forbids written as a visible escape (`\\x1b`)."""
    return _XML_FORBIDDEN.sub(_escape, text)


def xml_safe_json(value: Any) -> Any:
    """Every string in a JSON value (keys too) made XML-safe."""
    if isinstance(value, str):
        return xml_safe(value)
    if isinstance(value, Mapping):
        return {xml_safe(str(key)): xml_safe_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [xml_safe_json(item) for item in value]
    return value


def terminal_safe(text: str) -> str:
    """`text` with every control character but tab and newline written as a visible escape."""
    return _TERMINAL_UNSAFE.sub(_escape, text)


def markdown_inline(text: str) -> str:
    """`text` as plain words inside one Markdown line or table cell: no line breaks, no HTML (an
    engine named `x\\n<!--` would otherwise hide the rest of a CI summary), no table pipes."""
    flat = " ".join(terminal_safe(text).split())
    return flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def markdown_code(text: str) -> str:
    """`text` as one inline code span: one line, no control characters, and fenced by more
    backticks than any run inside it (CommonMark), so engine text cannot end the span early. A
    pipe is escaped, since GitHub splits table cells on it even inside code."""
    flat = " ".join(terminal_safe(text).split()).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat else ""
    return fence + pad + flat + pad + fence


#: the longest file-name stem `file_safe` gives, in bytes: file systems allow 255, and a prefix
#: (`badge-`), a suffix (`.json`) and a temporary file's marks must fit beside it
FILE_STEM_BYTES = 120
_FILE_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
#: names Windows refuses for a file whatever its extension
_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", *(f"COM{n}" for n in range(10)), *(f"LPT{n}" for n in range(10))})


def file_safe(text: str, *, limit: int = FILE_STEM_BYTES) -> str:
    """`text` as a file-name stem of at most `limit` bytes, on any file system, that no other text gives.

    Letters, digits, `.`, `_` and `-` stay; every run of other characters becomes `-`. Text that
    changed on the way (characters replaced, cut to `limit`, a leading `.` or `-`, a name Windows
    reserves, empty) ends in `-` and the first 10 hex digits of its SHA-256, so two engines whose
    names differ only past the cut, or only in replaced characters, get two files. Text that is
    already a short safe name stays as it is (`SH-BRI-004`, `my-engine-1-2`). The digits are upper
    case, so that a long case ID's export file still matches the export schema's `[A-Z0-9-]`.
    """
    if not 12 <= limit:
        raise ValueError(f"a file-name limit of {limit} bytes leaves no room for the hash")
    stem = _FILE_UNSAFE.sub("-", text)
    if stem == text and text and len(text) <= limit and text[0] not in ".-" and text.split(".")[0].upper() not in _RESERVED:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10].upper()
    stem = stem.lstrip(".-")[: limit - len(digest) - 1].rstrip(".-")
    return f"{stem}-{digest}" if stem else digest
