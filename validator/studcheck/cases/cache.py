"""A cache of loaded cases, so that `studcheck run` does not parse and check 650 YAML files every time.

Reading, schema-checking and building every bundled case costs about a second on each start; the
result depends only on the bytes of the case file and on the code and schema that read it. So the
cache is keyed by both: one file per *reader* (studcheck's version and a hash of the modules and the
schema that turn a file into a `Case`), holding `{sha256 of a case file's bytes: Case}`. An edited
case file has a new hash (a miss: it is read again); an edited reader or a new version has a new
cache file. Only cases that loaded are kept: a bad file is read again each time, so its errors and
line numbers are always today's.

Where: `$XDG_CACHE_HOME/studcheck` or `~/.cache/studcheck` (the usual user cache directory), or
`$STUDCHECK_CACHE_DIR` when set.
Off: `--no-cache`, or `STUDCHECK_NO_CACHE=1` in the environment. The cache is an optimisation and
never a failure: a file that cannot be read or unpickled, or a directory that cannot be written,
is the same as no cache.

Pickle is safe enough here for the same reason as for pytest's or mypy's caches: the directory is
the user's own (created mode 0700), and nothing read from it is trusted beyond its being a `Case`.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from studcheck import __version__
from studcheck.cases.model import Case
from studcheck.resources import schema_path

NO_CACHE_ENV = "STUDCHECK_NO_CACHE"
CACHE_DIR_ENV = "STUDCHECK_CACHE_DIR"
#: modules whose code decides what a case file loads as; an edit to any of them is a new cache file
_READERS = ("cases/load.py", "cases/source.py", "cases/deck.py", "cases/refusal.py", "cases/model.py",
            "cards.py", "rules.py")
_STALE_DAYS = 30  # cache files of other readers left unused this long are removed when a new one is written
#: cache file -> ((mtime_ns, size, inode) when read, its entries): Cases are frozen, so sharing them is safe
_READ: dict[Path, tuple[tuple[int, int, int], dict[str, Case]]] = {}


def enabled() -> bool:
    return os.environ.get(NO_CACHE_ENV, "").strip().lower() in ("", "0", "false", "no")


def cache_dir() -> Path:
    """STUDCHECK_CACHE_DIR if set (tests use a temporary one), else the user's cache directory."""
    own = os.environ.get(CACHE_DIR_ENV, "").strip()
    if own:
        return Path(own)
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache") / "studcheck"


def content_key(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def reader_key() -> str:
    """studcheck's version and the bytes of the code and schema that read case files."""
    digest = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent.parent
    for name in _READERS:
        path = package / name
        try:
            digest.update(path.read_bytes())
        except OSError:  # a compiled or zipped install without the source: the version and the rest decide
            digest.update(f"missing {name}".encode())
    try:
        digest.update(schema_path("case").read_bytes())
    except OSError:
        pass
    return digest.hexdigest()[:20]


class CaseCache:
    """The cases of one reader: read once, looked up by content hash, written back if anything was added."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or cache_dir()
        self.path = self.directory / f"cases-{reader_key()}.pickle"
        self.entries: dict[str, Case] = {}
        self.added = 0
        self.hits = 0
        self._read()

    def _read(self) -> None:
        """The file's entries; unpickled once per process while the file is unchanged (tests and
        tools load cases many times: each unpickling of 700 cases costs about 0.1 s)."""
        try:
            stat = self.path.stat()
            stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
            remembered = _READ.get(self.path)
            if remembered is not None and remembered[0] == stamp:
                self.entries = dict(remembered[1])
                return
            with self.path.open("rb") as handle:
                data: Any = pickle.load(handle)
        except Exception:  # noqa: BLE001 - missing, unreadable, truncated or foreign: start empty
            return
        if isinstance(data, dict):
            self.entries = {key: value for key, value in data.items() if isinstance(key, str) and isinstance(value, Case)}
            _READ[self.path] = (stamp, dict(self.entries))

    def get(self, key: str, path: Path) -> Case | None:
        case = self.entries.get(key)
        if case is None:
            return None
        self.hits += 1
        return case if case.path == path else replace(case, path=path)

    def put(self, key: str, case: Case) -> None:
        self.entries[key] = case
        self.added += 1

    def save(self) -> None:
        """Write the cache if anything was added: atomically (a temporary file, then a rename), quietly."""
        if not self.added:
            return
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".cases-", suffix=".tmp", dir=self.directory)
            try:
                with os.fdopen(handle, "wb") as stream:
                    pickle.dump(self.entries, stream, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, self.path)
                stat = self.path.stat()
                _READ[self.path] = ((stat.st_mtime_ns, stat.st_size, stat.st_ino), dict(self.entries))
            finally:
                if os.path.exists(temporary):
                    os.unlink(temporary)
            self.added = 0
            self._prune()
        except (OSError, pickle.PicklingError):  # read-only home, full disk, ...: run without the cache
            pass

    def _prune(self) -> None:
        old = time.time() - _STALE_DAYS * 86400
        for other in self.directory.glob("cases-*.pickle"):
            try:
                if other != self.path and other.stat().st_mtime < old:
                    other.unlink()
            except OSError:
                pass


__all__ = ["CACHE_DIR_ENV", "NO_CACHE_ENV", "CaseCache", "cache_dir", "content_key", "enabled", "reader_key"]
