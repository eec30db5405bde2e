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

Trust. A cache directory may be restored by CI from shared storage, or be writable by others; a
verdict must never depend on a file someone else could write. So the cache is read only from a
directory owned by this user that nobody else can write (as ssh treats ~/.ssh), only from a regular
file (never a FIFO or a link) of a bounded size, and only when its contents carry an HMAC made with
this user's own key (`cache.key` in the user's config directory, created mode 0600, never in the
cache directory): a file somebody else wrote, or restored from elsewhere, is no cache, and it is
never unpickled. Entries are bounded (the most recently used are kept) and a temporary file left by
a killed save is removed by the next one.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import stat
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
KEY_DIR_ENV = "STUDCHECK_CACHE_KEY_DIR"  # where cache.key is (default: the user's config directory)
#: what a cache file starts with; then the HMAC-SHA256 of the rest, then the pickled entries
MAGIC = b"studcheck-cases 2\n"
MAX_BYTES = 64 << 20  # a cache file larger than this is not read (the bundled suite's is about 1 MB)
MAX_ENTRIES = 5000  # the most recently used entries kept (the bundled suite has about 800 cases)
STALE_TEMPORARY = 3600  # seconds after which a temporary file of a killed save is removed
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


def key_dir() -> Path:
    own = os.environ.get(KEY_DIR_ENV, "").strip()
    if own:
        return Path(own)
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    return (Path(base) if base and Path(base).is_absolute() else Path.home() / ".config") / "studcheck"


def _private(info: os.stat_result) -> bool:
    """Owned by this user (or root) and writable by nobody else."""
    return info.st_uid in (os.geteuid(), 0) and info.st_mode & 0o022 == 0


def user_key() -> bytes | None:
    """This user's cache key (32 random bytes in a 0600 file it owns), created on first use; None if
    it cannot be had or is not private (then there is no cache)."""
    folder = key_dir()
    path = folder / "cache.key"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(handle, "wb") as stream:
                stream.write(os.urandom(32))
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_uid not in (os.geteuid(), 0) or info.st_mode & 0o077:
            return None
        key = path.read_bytes()
    except OSError:
        return None
    return key if len(key) == 32 else None


def trusted_directory(directory: Path) -> bool:
    """A real directory this user owns that nobody else can write."""
    try:
        info = os.lstat(directory)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and _private(info)


def read_cache_file(path: Path, key: bytes) -> dict[str, Case] | None:
    """The entries of a cache file this user's key sealed, or None (absent, foreign, forged, too large,
    not a regular file, not a dict of Cases). Nothing is unpickled before the seal is checked."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or not _private(info) or info.st_size > MAX_BYTES:
            return None
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(handle, "rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except OSError:
        return None
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 32:
        return None
    seal, body = data[len(MAGIC):len(MAGIC) + 32], data[len(MAGIC) + 32:]
    if not hmac.compare_digest(seal, hmac.new(key, body, hashlib.sha256).digest()):
        return None
    try:
        entries: Any = pickle.loads(body)
    except Exception:  # noqa: BLE001 - sealed by us but unreadable (another Python?): no cache
        return None
    if not isinstance(entries, dict):
        return None
    return {k: v for k, v in entries.items() if isinstance(k, str) and isinstance(v, Case)}


def sealed(entries: dict[str, Case], key: bytes) -> bytes:
    """A cache file's bytes: the magic line, the HMAC of the pickled entries, the pickled entries."""
    body = pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL)
    return MAGIC + hmac.new(key, body, hashlib.sha256).digest() + body


class CaseCache:
    """The cases of one reader: read once, looked up by content hash, written back if anything was added."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or cache_dir()
        self.path = self.directory / f"cases-{reader_key()}.pickle"
        self.entries: dict[str, Case] = {}
        self.added = 0
        self.hits = 0
        self._used: set[str] = set()
        self._key = user_key()
        self._read()

    def _read(self) -> None:
        """The file's entries; unsealed once per process while the file is unchanged (tests and tools
        load cases many times: each unpickling of 700 cases costs about 0.1 s)."""
        if self._key is None or not trusted_directory(self.directory):
            return
        try:
            info = os.lstat(self.path)
        except OSError:
            return
        stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        remembered = _READ.get(self.path)
        if remembered is not None and remembered[0] == stamp:
            self.entries = dict(remembered[1])
            return
        entries = read_cache_file(self.path, self._key)
        if entries is not None:
            self.entries = entries
            _READ[self.path] = (stamp, dict(entries))

    def get(self, key: str, path: Path) -> Case | None:
        case = self.entries.get(key)
        if case is None:
            return None
        self.hits += 1
        self._used.add(key)
        return case if case.path == path else replace(case, path=path)

    def put(self, key: str, case: Case) -> None:
        self.entries[key] = case
        self._used.add(key)
        self.added += 1

    def save(self) -> None:
        """Write the cache if anything was added: atomically (a temporary file, then a rename), quietly;
        never into a directory somebody else could write."""
        if not self.added or self._key is None:
            return
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not trusted_directory(self.directory):
                return
            # the entries used now last (most recent), the oldest dropped beyond MAX_ENTRIES
            kept = {key: case for key, case in self.entries.items() if key not in self._used}
            kept.update((key, self.entries[key]) for key in self.entries if key in self._used)
            kept = dict(list(kept.items())[-MAX_ENTRIES:])
            handle, temporary = tempfile.mkstemp(prefix=".cases-", suffix=".tmp", dir=self.directory)
            try:
                with os.fdopen(handle, "wb") as stream:
                    stream.write(sealed(kept, self._key))
                os.replace(temporary, self.path)
                info = self.path.stat()
                _READ[self.path] = ((info.st_mtime_ns, info.st_size, info.st_ino), dict(kept))
            finally:
                if os.path.exists(temporary):
                    os.unlink(temporary)
            self.entries = kept
            self.added = 0
            self._prune()
        except (OSError, pickle.PicklingError):  # read-only home, full disk, ...: run without the cache
            pass

    def _prune(self) -> None:
        """Other readers' cache files unused for _STALE_DAYS, and temporary files of killed saves."""
        now = time.time()
        for other in [*self.directory.glob("cases-*.pickle"), *self.directory.glob(".cases-*.tmp")]:
            try:
                age = now - other.stat().st_mtime
                stale = age > _STALE_DAYS * 86400 if other.suffix == ".pickle" else age > STALE_TEMPORARY
                if other != self.path and stale:
                    other.unlink()
            except OSError:
                pass


__all__ = ["CACHE_DIR_ENV", "KEY_DIR_ENV", "NO_CACHE_ENV", "CaseCache", "cache_dir", "content_key", "enabled",
           "read_cache_file", "reader_key", "sealed", "user_key"]
