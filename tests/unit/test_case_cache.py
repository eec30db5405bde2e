"""The cache of loaded cases: a hit skips reading, an edit is a miss, a broken cache is no cache.

Each test has its own cache directory (STUDCHECK_CACHE_DIR) and its own copy of two bundled cases.
"""

from __future__ import annotations

import pickle
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from studcheck import cli
from studcheck.cases import cache as cache_module
from studcheck.cases import load as load_module
from studcheck.cases.cache import CACHE_DIR_ENV, NO_CACHE_ENV, CaseCache, read_cache_file, sealed, user_key
from studcheck.cases.load import CaseError, load_cases
from studcheck.cases.model import Case
from studcheck.resources import cases_dir

BAD = Path(__file__).resolve().parent.parent / "bad_cases"
SOURCES = ("stud_high/worked-example/sh-wex-001-czech-source-hand.yaml", "razz/bring-in/rz-bri-001-ace-door-never-brings-in.yaml")


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(NO_CACHE_ENV, raising=False)
    folder = tmp_path / "cases"
    folder.mkdir()
    for name in SOURCES:
        shutil.copy(cases_dir() / name, folder / Path(name).name)
    return folder


def cache_files(suite: Path) -> list[Path]:
    return sorted((suite.parent / "cache").glob("cases-*.pickle"))


def no_reading(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Make every real read of a case file recorded (a hit must not read through `analyse`)."""
    read: list[Path] = []
    analyse = load_module.analyse

    def recording(path: Path, data: bytes | None = None) -> load_module.Analysis:
        read.append(path)
        return analyse(path, data)

    monkeypatch.setattr(load_module, "analyse", recording)
    return read


def test_a_second_load_comes_from_the_cache(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    uncached = load_cases([suite], cache=False)
    assert cache_files(suite) == []
    first = load_cases([suite])
    assert len(cache_files(suite)) == 1
    read = no_reading(monkeypatch)
    second = load_cases([suite])
    assert read == [] and second == first == uncached and len(second) == 2


def test_the_same_bytes_elsewhere_get_their_own_path(suite: Path) -> None:
    load_cases([suite])
    other = suite.parent / "elsewhere"
    shutil.copytree(suite, other)
    moved = load_cases([other])
    assert all(case.path.parent == other for case in moved)
    assert moved == load_cases([other], cache=False)


def test_an_edited_file_is_read_again(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    load_cases([suite])
    path = sorted(suite.glob("*.yaml"))[0]
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\ntitle: ", "\ntitle: Edited. ", 1), encoding="utf-8")
    read = no_reading(monkeypatch)
    cases = {case.path: case for case in load_cases([suite])}
    assert read == [path]  # only the edited file
    assert cases[path].title.startswith("Edited. ")
    assert list(cases.values()) == load_cases([suite], cache=False)


def test_an_edit_that_breaks_a_file_gives_todays_error(suite: Path) -> None:
    load_cases([suite])
    path = sorted(suite.glob("*.yaml"))[0]
    path.write_text(path.read_text(encoding="utf-8").replace("\nsteps:", "\nsteps: [\n", 1), encoding="utf-8")
    errors: list[CaseError] = []
    cached = load_cases([suite], errors=errors)
    fresh: list[CaseError] = []
    load_cases([suite], errors=fresh, cache=False)
    assert len(cached) == 1 and [str(e) for e in errors] == [str(e) for e in fresh] != []


def test_bad_files_are_never_cached_and_keep_their_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    runs = []
    for _ in range(2):
        errors: list[CaseError] = []
        load_cases([BAD], errors=errors)
        runs.append([(str(error.path), error.line, error.message) for error in errors])
    fresh: list[CaseError] = []
    load_cases([BAD], errors=fresh, cache=False)
    assert runs[0] == runs[1] == [(str(error.path), error.line, error.message) for error in fresh]


@pytest.mark.parametrize("garbage", [b"", b"not a pickle", pickle.dumps(["a", "list"]), pickle.dumps({"key": "not a case"})])
def test_a_corrupt_cache_file_is_no_cache(suite: Path, garbage: bytes) -> None:
    expected = load_cases([suite])
    (path,) = cache_files(suite)
    path.write_bytes(garbage)
    assert load_cases([suite]) == expected
    assert unsealed(path).keys() == CaseCache().entries.keys() != set()  # written back whole


def test_a_cache_that_cannot_be_written_is_no_cache(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = suite.parent / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(CACHE_DIR_ENV, str(blocker / "cache"))  # mkdir fails even for root
    assert load_cases([suite]) == load_cases([suite], cache=False)
    assert blocker.read_text() == "not a directory"


def test_a_new_version_starts_a_new_cache(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    load_cases([suite])
    monkeypatch.setattr(cache_module, "__version__", "99.0")
    read = no_reading(monkeypatch)
    load_cases([suite])
    assert len(read) == 2 and len(cache_files(suite)) == 2


@pytest.mark.parametrize("how", ["env", "flag"])
def test_no_cache_reads_every_file(suite: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                   how: str) -> None:
    load_cases([suite])
    read = no_reading(monkeypatch)
    if how == "env":
        monkeypatch.setenv(NO_CACHE_ENV, "1")
        load_cases([suite])
    else:
        monkeypatch.setenv(NO_CACHE_ENV, "")  # restored after the test; the flag sets it
        assert cli.main(["run", "--no-cache", "--in-process", "--cases", str(suite), "--no-progress"]) == 0
        capsys.readouterr()
        assert cache_module.enabled() is False
        read.clear()
        load_cases([suite])
    assert len(read) == 2


def test_a_cache_file_replaced_since_it_was_read_is_read_again(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process remembers a cache file's entries only while the file is the one it read."""
    load_cases([suite])
    (path,) = cache_files(suite)
    entries = unsealed(path)
    loads: list[object] = []
    real_loads = pickle.loads
    monkeypatch.setattr(pickle, "loads", lambda data: loads.append(data) or real_loads(data))
    assert len(CaseCache().entries) == 2 and loads == []  # unchanged: remembered, not unpickled again
    kept = next(iter(entries))
    path.write_bytes(sealed({kept: entries[kept]}, key()))  # another process of this user replaced it
    assert list(CaseCache().entries) == [kept] and len(loads) == 1


class Boom:
    """A pickle that runs code when loaded: it would create `marker`."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        return (Path.write_text, (self.marker, "ran"))


def test_a_file_not_sealed_with_the_users_key_is_never_unpickled(suite: Path) -> None:
    load_cases([suite])
    (path,) = cache_files(suite)
    marker = suite.parent / "marker"
    body = pickle.dumps({"x": Boom(marker)})
    forged = [body, cache_module.MAGIC + b"\0" * 32 + body, sealed({}, b"another key of 32 bytes, not hers")[:50] + body]
    for data in forged:
        path.write_bytes(data)
        assert load_cases([suite]) == load_cases([suite], cache=False)
        assert not marker.exists()


def test_an_entry_for_a_real_file_with_other_content_is_ignored_unless_sealed_by_the_user(suite: Path) -> None:
    """A crafted entry (the right content hash, a case with another title) written without the key."""
    expected = load_cases([suite], cache=False)
    load_cases([suite])
    (path,) = cache_files(suite)
    entries = unsealed(path)
    lying = {digest: replace(case, title="a title nobody wrote") for digest, case in entries.items()}
    path.write_bytes(sealed(lying, b"k" * 32))  # sealed, but not with this user's key
    assert load_cases([suite]) == expected


def test_a_directory_others_can_write_is_not_used(suite: Path) -> None:
    folder = suite.parent / "cache"
    load_cases([suite])
    (path,) = cache_files(suite)
    before = path.read_bytes()
    folder.chmod(0o777)
    try:
        assert CaseCache().entries == {}  # not read
        (suite / "new.yaml").write_bytes((suite / Path(SOURCES[0]).name).read_bytes().replace(b"SH-WEX-001", b"SH-WEX-991"))
        load_cases([suite])
        assert path.read_bytes() == before  # and not written
    finally:
        folder.chmod(0o700)


def test_a_fifo_at_the_cache_path_does_not_hang(suite: Path) -> None:
    import os
    import threading

    load_cases([suite])
    (path,) = cache_files(suite)
    path.unlink()
    os.mkfifo(path)
    done: list[object] = []
    thread = threading.Thread(target=lambda: done.append(load_cases([suite])), daemon=True)
    thread.start()
    thread.join(30)
    assert done, "loading cases hung on a FIFO at the cache path"


def test_entries_are_bounded_and_a_killed_saves_temporary_file_goes(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import time

    folder = suite.parent / "cache"
    load_cases([suite])
    stale = folder / ".cases-killed.tmp"
    stale.write_bytes(b"half a cache")
    old = time.time() - 2 * cache_module.STALE_TEMPORARY
    os.utime(stale, (old, old))
    monkeypatch.setattr(cache_module, "MAX_ENTRIES", 1)
    (suite / Path(SOURCES[0]).name).write_text((suite / Path(SOURCES[0]).name).read_text() + "# edited\n")
    load_cases([suite])  # a new entry: saved, bounded to one, the stale temporary file removed
    (path,) = cache_files(suite)
    assert len(unsealed(path)) == 1
    assert not stale.exists()


def key() -> bytes:
    found = user_key()
    assert found is not None
    return found


def unsealed(path: Path) -> dict[str, Case]:
    found = read_cache_file(path, key())
    assert found is not None, f"{path} is not a cache file sealed with this user's key"
    return found
