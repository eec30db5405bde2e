"""spec/, cases/ and docs/ point to nothing outside the repository.

A reader of the spec, a case or a doc has only the repository (or the installed package): an
absolute path from the machine it was written on, or a pointer to notes kept elsewhere ("the
research note", ../shared), is a reference nobody can follow. What a rule needs from a source is
quoted into spec/sources.md and cited by its tag instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("spec", "cases", "docs")
OUTSIDE = re.compile(
    r"/work/|/home/|/tmp/|\b[A-Za-z]:\\|\.\./shared|\bresearch notes?\b|\bresearch/",
    re.IGNORECASE,
)


def _text_files() -> list[Path]:
    files = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix.lower() not in {".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico"}:
                files.append(path)
    return files


def outside_pointers(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line that names a machine path or a place outside the repository."""
    return [(number, line.strip()) for number, line in enumerate(text.splitlines(), 1) if OUTSIDE.search(line)]


def test_no_file_points_outside_the_repository() -> None:
    found = []
    for path in _text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        found += [f"{path.relative_to(ROOT)}:{number}: {line[:120]}" for number, line in outside_pointers(text)]
    assert not found, "pointers outside the repository (quote the source into spec/sources.md instead):\n" + "\n".join(found)


@pytest.mark.parametrize("line", [
    "compiled in `/work/shared/research/variants-and-structures.md`",
    "see /home/alice/notes.md",
    "written to /tmp/out.json",
    r"C:\Users\me\studcheck",
    "as in ../shared/DESIGN.md",
    "as in the research note",
    "see shared/research/rules.md",
])
def test_each_kind_of_pointer_is_found(line: str) -> None:
    assert outside_pointers("fine\n" + line) == [(2, line)]


def test_ordinary_text_is_not_flagged() -> None:
    assert outside_pointers("spec/rules/05-betting.md; docs/fuzzing.md; a temporary file; the workflow") == []


def test_a_named_research_group_is_no_pointer() -> None:
    """A source's own name may hold the word (a university research group, cited with its licence)."""
    assert outside_pointers("Copyright (c) 2023 University of Toronto Computer Poker Student Research Group") == []
