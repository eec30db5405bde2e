"""Expected failures: an engine's list of case IDs it knows it fails, each with a reason.

Strict by design: a listed case that passes is `xpass` and fails the run (so the list shrinks as
the engine is fixed), and an ID that names no case is a configuration error (so typos and retired
cases do not silently hide failures).

`studcheck run --write-xfail FILE` writes the file from a run, so adopting studcheck on an engine
that fails is one command: each failing case is listed with its cause (harness/groups.py) as the
reason (the blamed rule first), grouped under a comment per cause; a case the run already expected
to fail keeps its reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import yaml

from studcheck import __version__
from studcheck.harness.groups import Grouping
from studcheck.harness.report import now_iso
from studcheck.harness.runner import Outcome, Verdict


class ConfigError(ValueError):
    """A problem with the harness's inputs (exit code 2)."""


def parse_xfail(text: str, *, source: str = "<xfail>") -> dict[str, str]:
    """`- {id: SH-BRI-004, reason: "..."}` entries -> {id: reason}."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, list):
        raise ConfigError(f"{source}: must be a list of entries like `- {{id: SH-BRI-004, reason: \"...\"}}`")
    entries: dict[str, str] = {}
    for number, entry in enumerate(data, start=1):
        if not isinstance(entry, Mapping) or set(entry) - {"id", "reason"}:
            raise ConfigError(f"{source}: entry {number} must have exactly the keys id and reason")
        case_id, reason = entry.get("id"), entry.get("reason")
        if not isinstance(case_id, str) or not case_id:
            raise ConfigError(f"{source}: entry {number} has no case id")
        if not isinstance(reason, str) or not reason.strip():
            raise ConfigError(f"{source}: entry {number} ({case_id}) needs a reason")
        if case_id in entries:
            raise ConfigError(f"{source}: {case_id} is listed twice")
        entries[case_id] = reason.strip()
    return entries


def load_xfail(path: Path, known_ids: Iterable[str]) -> dict[str, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the expected-failure file {path}: {exc.strerror}") from None
    entries = parse_xfail(text, source=str(path))
    known = set(known_ids)
    unknown = sorted(set(entries) - known)
    if unknown:
        raise ConfigError(f"{path}: these IDs name no case in the suite: {', '.join(unknown)}")
    return entries


def apply_xfail(verdict: Verdict, entries: Mapping[str, str]) -> Verdict:
    """fail or error -> xfail; pass -> xpass; not applicable stays not applicable."""
    reason = entries.get(verdict.case_id)
    if reason is None:
        return verdict
    if verdict.outcome in (Outcome.FAIL, Outcome.ERROR):
        return verdict.with_changes(outcome=Outcome.XFAIL, xfail_reason=reason)
    if verdict.outcome is Outcome.PASS:
        return verdict.with_changes(
            outcome=Outcome.XPASS, xfail_reason=reason,
            message="listed as an expected failure but passed: remove it from the expected-failure file",
        )
    return verdict


def render_xfail(verdicts: Sequence[Verdict], grouping: Grouping, *, engine: str, command: str, cases: Sequence[str],
                 written: str) -> tuple[str, int]:
    """The expected-failure file for a run's failing cases, and how many entries it has."""
    kept = [verdict for verdict in verdicts if verdict.outcome is Outcome.XFAIL]
    grouped = sum(group.count for group in grouping.groups)
    total = grouped + len(kept)
    causes = f"{len(grouping.groups)} cause{'' if len(grouping.groups) == 1 else 's'}"
    before = f", {len(kept)} listed before (their reasons kept)" if kept else ""
    lines = [
        f"# Expected failures of {engine}, written by `studcheck run --write-xfail {written}`",
        f"# (studcheck {__version__}, {now_iso()}; engine command: {command}; cases: {' '.join(cases)}).",
        f"# {total} failing case{'' if total == 1 else 's'}: {grouped} with their cause as the reason ({causes}: the first",
        f"# divergence from the rules, as the run's summary groups them){before}.",
        f"# Run with `--xfail {written}`. A listed case that passes fails the run (xpass): delete its entry.",
    ]
    for group in grouping.groups:
        lines += ["", f"# {group.count} case{'' if group.count == 1 else 's'}: {group.title}"]
        if group.ways:  # one fix that showed in several places
            lines.append(f"# ({len(group.ways)} ways it showed: {', '.join(f'{group.where(way)} {way.count}' for way in group.ways)})")
        lines += _entries((verdict.case_id, group.title) for verdict in group.verdicts)
    if kept:
        lines += ["", f"# {len(kept)} listed before and still failing"]
        lines += _entries((verdict.case_id, verdict.xfail_reason or "listed before") for verdict in kept)
    return "\n".join(lines) + "\n", total


def _entries(pairs: Iterable[tuple[str, str]]) -> list[str]:
    """`- id: ...` / `  reason: "..."` (a JSON string is a YAML double-quoted scalar)."""
    lines: list[str] = []
    for case_id, reason in pairs:
        lines += [f"- id: {case_id}", f"  reason: {json.dumps(reason, ensure_ascii=False)}"]
    return lines


def write_xfail(path: Path, verdicts: Sequence[Verdict], grouping: Grouping, *, engine: str, command: str,
                cases: Sequence[str]) -> int:
    """Write the expected-failure file for this run to `path`; the number of entries."""
    text, total = render_xfail(verdicts, grouping, engine=engine, command=command, cases=cases, written=str(path))
    path.write_text(text, encoding="utf-8")
    return total
