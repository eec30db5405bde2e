"""`fuzz --known FILE` reads hostile files as it reads case files: an error with file and line, never
a traceback, and bounded work (an alias bomb used to take 30 s and 2.5 GB before a MemoryError)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from studcheck.fuzz.known import KnownError, load_known

_LEVELS = "abcdefghi"
#: a list whose items are lists of ten aliases of the item before: 10**9 scalars once expanded
BOMB = "- &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"- &{name} [{', '.join([f'*{before}'] * 10)}]\n" for before, name in zip(_LEVELS, _LEVELS[1:])
)

HOSTILE = {
    "not UTF-8": (b"- signature: state legal razz\n  reason: \xff\xfe\n", "not UTF-8 text (byte"),
    "deep nesting": (("- " + "[" * 5000 + "]" * 5000 + "\n").encode(), "nesting"),
    "an alias bomb": (BOMB.encode(), ":1: the file is too large once YAML aliases are expanded"),
    "two documents": (b"- signature: state legal razz\n  reason: r\n---\n- x\n", ":4: a second YAML document"),
    "a tab": (b"-\tsignature: x\n", "invalid YAML"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_known_file_is_an_error_with_its_place(name: str, tmp_path: Path) -> None:
    data, problem = HOSTILE[name]
    path = tmp_path / "known.yaml"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        with pytest.raises(KnownError) as caught:
            load_known(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(path) in str(caught.value) and problem in str(caught.value)
    assert peak < 200 * 1024 * 1024, f"{peak} bytes allocated reading a {len(data)}-byte file"


def test_the_alias_bomb_is_a_bomb() -> None:
    assert BOMB.count("*") == 80  # eight levels of ten aliases each: 10**9 scalars if expanded


def test_an_entry_error_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "known.yaml"
    path.write_text("- signature: state legal razz\n  reason: fine\n- signature: oops\n  reason: two few parts\n",
                    encoding="utf-8")
    with pytest.raises(KnownError, match=r"known.yaml:3: entry 2: signature must be"):
        load_known(path)
