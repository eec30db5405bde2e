"""`--known FILE`: divergence signatures to count but not report (an engine's known deviations).

The file is a YAML list; every entry names a signature as `studcheck fuzz` prints it and says why
it is known, so the list documents itself:

    - signature: act-accepted state.result.pots[].winners.* stud_hilo8
      reason: odd chips go to the lowest seat index (docs/conformance/pokerkit.md)

Each of the three parts (kind of step, field path, variant) may be `*`, matching anything. The kind
`error` is a hand in which the engine broke the protocol; its field is the problem (`error crash *`).

`studcheck fuzz --keep-going --write-known FILE` writes the file from a run: every signature the
run saw, a new one with how it first showed as the reason, a known one with the reason it had.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING


from studcheck import __version__
from studcheck.fuzz.compare import Signature
from studcheck.protocol.client import truncate

if TYPE_CHECKING:
    from studcheck.fuzz.census import Finding

KINDS = ("new_hand", "act-accepted", "act-refused", "state", "error")  # error: the engine broke the protocol


class KnownError(ValueError):
    """The --known file cannot be read or is not a list of signatures with reasons."""


@dataclass(frozen=True, kw_only=True)
class Known:
    kind: str
    path: str
    variant: str
    reason: str

    def matches(self, signature: Signature) -> bool:
        return all(want in ("*", got) for want, got in ((self.kind, signature.kind), (self.path, signature.path),
                                                         (self.variant, signature.variant)))


def known_reason(known: tuple[Known, ...], signature: Signature) -> str | None:
    """Why `signature` is known (the first entry matching it), or None if it is new."""
    return next((entry.reason for entry in known if entry.matches(signature)), None)


#: a known-divergences file lists tens of signatures; this is far more than any real one
MAX_KNOWN_BYTES = 4 * 1024 * 1024


def load_known(path: Path) -> tuple[Known, ...]:
    """The entries of a --known file, read with the case files' hardened YAML loader: line numbers
    in every message, nesting and alias expansion bounded (an alias bomb is refused, not expanded)."""
    from studcheck import jsonio
    from studcheck.cases.source import SourceError, parse_yaml, to_json_view

    try:
        text = jsonio.read_text(path, limit=MAX_KNOWN_BYTES)
    except jsonio.InputError as exc:
        raise KnownError(str(exc)) from None
    try:
        documents = parse_yaml(text)
        if len(documents) > 1:
            raise SourceError(documents[1][0], "a second YAML document: a --known file is one list")
        data = to_json_view(documents[0][1], budget=100_000) if documents else None
    except SourceError as exc:
        raise KnownError(f"{path}:{exc.line}: {exc.message}") from None
    if data is None:
        return ()
    if not isinstance(data, list):
        raise KnownError(f"{path}: expected a list of {{signature, reason}} entries")
    return tuple(_entry(path, number, item) for number, item in enumerate(data, start=1))


def _entry(path: Path, number: int, item: object) -> Known:
    where = f"{path}:{getattr(item, 'line', '?')}: entry {number}"
    if not isinstance(item, dict) or set(item) != {"signature", "reason"}:
        raise KnownError(f"{where}: expected exactly the keys signature and reason")
    signature, reason = item["signature"], item["reason"]
    if not isinstance(reason, str) or not reason.strip():
        raise KnownError(f"{where}: reason must be a non-empty string")
    parts = signature.split() if isinstance(signature, str) else []
    if len(parts) != 3:
        raise KnownError(f"{where}: signature must be `KIND PATH VARIANT` as studcheck fuzz prints it, "
                         f"got {signature!r}")
    kind, field_path, variant = parts
    if kind not in (*KINDS, "*"):
        raise KnownError(f"{where}: unknown kind of step {kind!r} (one of {', '.join(KINDS)}, or *)")
    return Known(kind=kind, path=field_path, variant=variant, reason=reason.strip())


def render_known(findings: Iterable[Finding], *, engine: str, seed: int, hands: int, written: str,
                 cases: dict[str, str]) -> tuple[str, int]:
    """The --known file for a run's signatures (`cases`: signature text -> case file written), and how many."""
    findings = list(findings)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    lines = [
        f"# Known divergences of {engine}, written by `studcheck fuzz --write-known {written}`",
        f"# (studcheck {__version__}, {now}; seed {seed}, {hands} hands): {len(findings)} signature"
        f"{'' if len(findings) == 1 else 's'}. A new one's reason says how it first showed; a known one keeps its reason.",
        f"# Run with `--known {written}`: these divergences are counted, not reported. Delete an entry when it is fixed.",
    ]
    for finding in findings:
        lines += [f"- signature: {json.dumps(finding.signature.text())}",
                  f"  reason: {json.dumps(_reason(finding, seed, cases), ensure_ascii=False)}"]
    return "\n".join(lines) + "\n", len(findings)


def _reason(finding: Finding, seed: int, cases: dict[str, str]) -> str:
    if finding.known is not None:
        return finding.known
    divergence, failure = finding.found.divergence, finding.found.failure
    if failure is not None:
        first = truncate(f"{failure.error.problem.value}: {failure.error.message}", 200)
    else:
        first = truncate(divergence.first.describe(), 200) if divergence is not None else "diverged"
    case = cases.get(finding.signature.text())
    where = f"hand {finding.found_at} of seed {seed}, {finding.hands} hand{'' if finding.hands == 1 else 's'}"
    return f"{first} ({where}{f'; case {case}' if case else ''})"


def write_known(path: Path, findings: Iterable[Finding], *, engine: str, seed: int, hands: int,
                cases: dict[str, str]) -> int:
    """Write the --known file for these signatures to `path`; how many entries."""
    text, count = render_known(findings, engine=engine, seed=seed, hands=hands, written=str(path), cases=cases)
    path.write_text(text, encoding="utf-8")
    return count
