"""The tally of a run: hands, actions and divergences by signature, and the census file.

Every stage before it produces one settled hand at a time; the campaign drivers (search.py for one
process, pool.py for workers) fold them, in hand order, into a `SearchResult`. The census is that
result as JSON (`--census FILE`): no timings and nothing that depends on `--jobs`, so the same seed
gives the same file for every `--jobs`, and the censuses of the shards of a CI matrix merge into the
census of the whole (`merge_censuses`, called by `studcheck merge`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from studcheck import jsonio
from studcheck.fuzz.compare import Signature
from studcheck.fuzz.play import Failure, HandRecord

if TYPE_CHECKING:
    from studcheck.fuzz.shrink import Shrunk

CENSUS_FORMAT = "studcheck-fuzz-census"  # the file's identifying header: {"format": CENSUS_FORMAT, ...}
CENSUS_VERSION = 1
PAST_FAILURES_KEPT = 3  # failures past a divergence kept with their evidence (the rest are counted)
_COUNTS = ("hands", "actions", "refused", "skipped", "past_failures", "divergent_hands")


class Counted(Protocol):
    """A settled hand as counted: a HandRecord, or its summary sent by a worker (pool.Settled)."""

    @property
    def actions(self) -> int: ...
    @property
    def refused(self) -> int: ...
    @property
    def skipped(self) -> str | None: ...
    @property
    def past_failure(self) -> Failure | None: ...


@dataclass(kw_only=True)
class Finding:
    """One signature: the first hand that showed it, how many hands did, and its shrunk hand if new."""

    signature: Signature
    found: HandRecord
    found_at: int  # the hand's number (1-based)
    hands: int = 1
    known: str | None = None  # why it is known (--known), or None if it is new
    shrunk: Shrunk | None = None
    shrink_failures: int = 0  # replayed candidates the engine failed on while shrinking (each a restart)


@dataclass(kw_only=True)
class SearchResult:
    hands: int = 0  # generated hands played (not counting shrink replays)
    actions: int = 0
    refused: int = 0
    skipped: int = 0
    requests: int = 0  # requests to the engine under test while generating
    past_failures: int = 0  # hands in which the engine failed on a request sent past the divergence
    first_past_failures: list[tuple[int, Failure]] = field(default_factory=list)  # (hand, failure), the first few
    seconds: float = 0.0  # time spent generating and playing (not shrinking or reporting)
    findings: dict[Signature, Finding] = field(default_factory=dict)  # in order of first appearance
    stopped: bool = False  # stopped at max_new new signatures before playing every hand
    out_of_time: bool = False  # `--duration` passed before every hand was played

    @property
    def new(self) -> list[Finding]:
        return [finding for finding in self.findings.values() if finding.known is None]

    @property
    def divergent_hands(self) -> int:
        return sum(finding.hands for finding in self.findings.values())

    def count(self, number: int, record: Counted) -> None:
        """Add one settled hand's counters (its finding, if any, is filed apart)."""
        self.hands += 1
        self.actions += record.actions
        self.refused += record.refused
        self.skipped += record.skipped is not None
        if record.past_failure is not None:
            self.past_failures += 1
            if len(self.first_past_failures) < PAST_FAILURES_KEPT:
                self.first_past_failures.append((number, record.past_failure))


class CensusError(ValueError):
    """A census file that cannot be read, or censuses that do not belong to one run."""


def census(result: SearchResult, *, engine: str, seed: int, variants: Iterable[str], shard: tuple[int, int],
           last_hand: int | None, cases: Mapping[str, str]) -> dict[str, Any]:
    """The census of a run as JSON data; `cases`: signature text -> the case file written for it."""
    return {
        "format": CENSUS_FORMAT,
        "version": CENSUS_VERSION,
        "engine": engine,
        "seed": seed,
        "variants": list(variants),
        "shards": {"count": shard[1], "indexes": [shard[0]]},
        "last_hand": last_hand,  # --hands, or null for a --duration run
        "complete": not result.stopped and not result.out_of_time,
        **{name: getattr(result, name) for name in _COUNTS},
        "signatures": [{"signature": finding.signature.text(), "hands": finding.hands, "first": finding.found_at,
                        "known": finding.known, "case": cases.get(finding.signature.text())}
                       for finding in result.findings.values()],
    }


def write_census(path: Path, data: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def read_census(path: Path) -> dict[str, Any]:
    try:
        data = jsonio.loads(jsonio.read_text(path), path=path)
    except jsonio.InputError as exc:
        raise CensusError(str(exc)) from None
    if not isinstance(data, dict) or data.get("format") != CENSUS_FORMAT:
        raise CensusError(f"{path}: not a studcheck fuzz census (no \"format\": \"{CENSUS_FORMAT}\")")
    if data.get("version") != CENSUS_VERSION:
        raise CensusError(f"{path}: census version {data.get('version')!r}, this studcheck reads {CENSUS_VERSION}")
    problem = next(iter(sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))), None)
    if problem is not None:
        where = ".".join(str(part) for part in problem.absolute_path) or "census"
        raise CensusError(f"{path}: not a valid census: {where}: {problem.message}")
    count, indexes = data["shards"]["count"], data["shards"]["indexes"]
    if max(indexes) > count:
        raise CensusError(f"{path}: shard {max(indexes)} of {count}: a shard index is at most the shard count")
    return data


def _validator() -> Any:
    """spec/schema/census.schema.json: every field a merge reads, with its type and range."""
    from jsonschema import Draft202012Validator

    from studcheck.resources import schema_path

    return Draft202012Validator(jsonio.loads(schema_path("census").read_text(encoding="utf-8"), path="census.schema.json"))


_SAME = ("engine", "seed", "variants", "last_hand")  # what every shard of one run shares


def merge_censuses(paths: Iterable[Path]) -> dict[str, Any]:
    """The census of the whole run from the censuses of its shards (`--shard K/N`, same seed and engine).

    Counters add up; a signature's hands add up, its first hand is the earliest, its case the one
    written for that hand. Raises CensusError on a file that is not a census, shards of different
    runs, or the same shard twice.
    """
    files = [(path, read_census(path)) for path in paths]
    if not files:
        raise CensusError("no census to merge")
    first_path, merged = files[0]
    merged = dict(json.loads(json.dumps(merged)))  # a copy
    seen = set(merged["shards"]["indexes"])
    by_signature = {entry["signature"]: entry for entry in merged["signatures"]}
    for path, data in files[1:]:
        for key in _SAME:
            if data.get(key) != merged.get(key):
                raise CensusError(f"{path}: {key} {data.get(key)!r} differs from {first_path}'s {merged.get(key)!r}")
        if data["shards"]["count"] != merged["shards"]["count"]:
            raise CensusError(f"{path}: a shard of {data['shards']['count']}, {first_path} one of {merged['shards']['count']}")
        again = seen & set(data["shards"]["indexes"])
        if again:
            raise CensusError(f"{path}: shard {sorted(again)[0]} is merged twice")
        seen |= set(data["shards"]["indexes"])
        merged["complete"] = merged["complete"] and data["complete"]
        for name in _COUNTS:
            merged[name] += data[name]
        for entry in data["signatures"]:
            _merge_signature(by_signature, entry)
    merged["shards"]["indexes"] = sorted(seen)
    merged["signatures"] = sorted(by_signature.values(), key=lambda entry: (entry["first"], entry["signature"]))
    return merged


def _merge_signature(by_signature: dict[str, dict[str, Any]], entry: Mapping[str, Any]) -> None:
    mine = by_signature.get(entry["signature"])
    if mine is None:
        by_signature[entry["signature"]] = dict(entry)
        return
    mine["hands"] += entry["hands"]
    if entry["first"] < mine["first"]:
        mine["first"], mine["case"] = entry["first"], entry["case"]
    mine["known"] = mine["known"] if mine["known"] is not None else entry["known"]
