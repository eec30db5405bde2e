"""The run report: one JSON Lines file (header, one line per case, the failure groups, footer) and
the terminal view.

The JSONL report is the canonical record (spec/schema/report.schema.json); JUnit XML and the
terminal summary are derived from the same verdicts, so they cannot disagree.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO, Any

from studcheck import PROTOCOL_VERSION, __version__
from studcheck.harness.groups import Cause, Group, Grouping, group_verdicts
from studcheck.harness.runner import Outcome, Verdict
from studcheck.protocol.client import shorten, truncate
from studcheck.protocol.messages import EngineInfo

#: outcomes in table order, with their column titles
COLUMNS: tuple[tuple[Outcome, str], ...] = (
    (Outcome.PASS, "pass"),
    (Outcome.FAIL, "fail"),
    (Outcome.ERROR, "error"),
    (Outcome.NOT_APPLICABLE, "n/a"),
    (Outcome.XFAIL, "xfail"),
    (Outcome.XPASS, "xpass"),
)
FAILING = frozenset({Outcome.FAIL, Outcome.ERROR, Outcome.XPASS})
WITH_TRANSCRIPT = frozenset({Outcome.FAIL, Outcome.ERROR, Outcome.XFAIL})


@dataclass(frozen=True, kw_only=True)
class Stopped:
    """The run stopped early (--maxfail): after how many failing cases, and how many were not run."""

    maxfail: int
    not_run: int

    def to_json(self) -> dict[str, int]:
        return {"maxfail": self.maxfail, "not_run": self.not_run}

    def describe(self) -> str:
        failing = f"{self.maxfail} failing case{'' if self.maxfail == 1 else 's'}"
        return f"stopped early after {failing} (--maxfail {self.maxfail}): {self.not_run} case{'' if self.not_run == 1 else 's'} not run"


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def header_line(*, info: EngineInfo | None, command: str, started: str, cases: Sequence[str],
                shard: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`shard`: which shard of the selection this run is (`run --shard`); absent for a whole run."""
    engine: dict[str, Any] | None = None
    if info is not None:
        engine = {**info.raw, "name": info.name, "version": info.version, "variants": list(info.variants), "options": dict(info.options)}
    line = {
        "kind": "header", "studcheck": __version__, "protocol": PROTOCOL_VERSION, "engine": engine,
        "command": command, "started": started, "cases": list(cases),
    }
    if shard is not None:
        line["shard"] = dict(shard)
    return line


def case_line(verdict: Verdict, *, replay: str) -> dict[str, Any]:
    line: dict[str, Any] = {
        "kind": "case", "id": verdict.case_id, "outcome": verdict.outcome.value, "variant": verdict.variant,
        "file": verdict.file, "line": verdict.line, "title": verdict.title, "tags": list(verdict.tags),
        "rules": list(verdict.rules), "duration_ms": round(verdict.duration * 1000, 3),
    }
    if verdict.outcome is not Outcome.PASS:
        line.update(
            step=verdict.step, step_text=verdict.step_text, message=verdict.message,
            mismatches=[m.to_json() for m in verdict.mismatches], problem=verdict.problem,
            evidence=verdict.evidence, stderr=verdict.stderr, options=dict(verdict.options),
            xfail_reason=verdict.xfail_reason, replay=replay,
        )
    if verdict.outcome in WITH_TRANSCRIPT:
        line["transcript"] = list(verdict.transcript)
    return line


def counts(verdicts: Iterable[Verdict]) -> dict[str, int]:
    tally = Counter(verdict.outcome for verdict in verdicts)
    return {outcome.value: tally.get(outcome, 0) for outcome, _ in COLUMNS}


def footer_line(verdicts: Sequence[Verdict], *, duration: float, exit_code: int, stopped: Stopped | None = None,
                interrupted: str | None = None) -> dict[str, Any]:
    """`interrupted`: the name of the signal that cut the run short (SIGTERM), else null."""
    return {"kind": "footer", "counts": counts(verdicts), "duration_s": round(duration, 3), "exit_code": exit_code,
            "stopped": None if stopped is None else stopped.to_json(), "interrupted": interrupted}


def group_lines(grouping: Grouping, *, replay: Callable[[str], str]) -> list[dict[str, Any]]:
    """One `group` line per cause of failure (largest first), then one `not_applicable` line per reason."""
    lines = [_group_line(rank, group, grouping, replay) for rank, group in enumerate(grouping.groups, start=1)]
    lines += [{"kind": "not_applicable", "reason": entry.reason, "count": len(entry.case_ids), "cases": list(entry.case_ids)}
              for entry in grouping.not_applicable]
    return lines


def _group_line(rank: int, group: Group, grouping: Grouping, replay: Callable[[str], str]) -> dict[str, Any]:
    example = group.representative
    return {
        "kind": "group", "rank": rank, "key": group.key, **group.divergence.to_json(), "count": group.count,
        "outcomes": dict(Counter(verdict.outcome.value for verdict in group.verdicts)),
        "variants": dict(Counter(verdict.variant for verdict in group.verdicts)),
        "cases": [verdict.case_id for verdict in group.verdicts],
        "representative": example.case_id, "replay": replay(example.case_id),
        "rules": [{"id": share.rule, "cases": share.cases, "of": share.of} for share in grouping.rules(group)],
        "forms": [{"key": key, "count": number} for key, number in group.forms],
    }


class ReportWriter:
    """Writes report lines as they come, so a killed run still leaves a readable prefix."""

    def __init__(self, stream: IO[str] | None) -> None:
        self.stream = stream
        self.lines: list[dict[str, Any]] = []

    def write(self, line: Mapping[str, Any]) -> None:
        self.lines.append(dict(line))
        if self.stream is not None:
            self.stream.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
            self.stream.flush()


def summary_table(verdicts: Sequence[Verdict]) -> str:
    """Counts per variant and in total, one row each."""
    variants = sorted({verdict.variant for verdict in verdicts})
    rows: list[list[str]] = [[variant, *map(str, _row([v for v in verdicts if v.variant == variant]))] for variant in variants]
    rows.append(["total", *map(str, _row(verdicts))])
    titles = ["variant", *(title for _, title in COLUMNS)]
    widths = [max(len(str(row[i])) for row in [titles, *rows]) for i in range(len(titles))]

    def fmt(row: Sequence[object]) -> str:
        first = str(row[0]).ljust(widths[0])
        return "  ".join([first, *(str(cell).rjust(width) for cell, width in zip(row[1:], widths[1:]))])

    return "\n".join([fmt(titles), *(fmt(row) for row in rows)])


def _row(verdicts: Sequence[Verdict]) -> list[int]:
    tally = Counter(verdict.outcome for verdict in verdicts)
    return [tally.get(outcome, 0) for outcome, _ in COLUMNS]


def describe_failure(verdict: Verdict, *, replay: str) -> str:
    """A self-contained paragraph: what, where, expected vs actual, how to replay just this case."""
    where = f"step {verdict.step + 1} `{verdict.step_text}`" if verdict.step is not None else (verdict.step_text or "setup")
    lines = [f"{verdict.outcome.value.upper()} {verdict.case_id} ({verdict.title})" if verdict.title else f"{verdict.outcome.value.upper()} {verdict.case_id}"]
    lines.append(f"  at {verdict.location}, {where}")
    if verdict.rules:
        lines.append(f"  rules: {', '.join(verdict.rules)}")
    if verdict.message:
        lines.append(f"  {verdict.message}")
    for mismatch in verdict.mismatches[:12]:
        lines.append(f"    {truncate(mismatch.describe(), 400)}")
    if len(verdict.mismatches) > 12:
        lines.append(f"    … and {len(verdict.mismatches) - 12} more differences")
    if verdict.evidence:
        lines.append(f"  engine output: {verdict.evidence}")
    if verdict.stderr.strip():  # written during this case; a crash's traceback first, its last words last
        lines.append("  engine stderr during this case:")
        lines.extend(f"    {text}" for text in shorten(verdict.stderr, head=20, tail=5).splitlines())
    if verdict.xfail_reason and verdict.outcome is Outcome.XPASS:
        lines.append(f"  expected-failure reason was: {verdict.xfail_reason}")
    lines.append(f"  replay: {replay}")
    return "\n".join(lines)


def render_groups(grouping: Grouping, *, replay: Callable[[str], str]) -> str:
    """Failing cases by cause, largest first: count, cause, how the cases showed it, an example to replay."""
    if not grouping.groups:
        return ""
    failing = sum(group.count for group in grouping.groups)
    causes = f"{len(grouping.groups)} cause{'' if len(grouping.groups) == 1 else 's'}"
    lines = [f"{failing} failing case{'' if failing == 1 else 's'}, {causes} (grouped by first divergence, largest first):"]
    width = len(str(grouping.groups[0].count))
    for group in grouping.groups:
        example = group.representative
        where = f"step {example.step + 1} `{example.step_text}`" if example.step is not None else (example.step_text or "setup")
        lines.append(f"  {group.count:>{width}}  {group.key}")
        indent = " " * (width + 4)
        if group.forms:
            shown = "; ".join(f"{key} ({number})" for key, number in group.forms[:3])
            more = f"; {len(group.forms) - 3} more" if len(group.forms) > 3 else ""
            lines.append(f"{indent}first seen by the cases as: {truncate(shown, 400)}{more}")
        rules = ", ".join(f"{share.rule} ({share.cases} of {share.of})" for share in grouping.rules(group)[:3])
        if rules and group.divergence.cause is not Cause.ERROR:  # a protocol error is no rule's
            lines.append(f"{indent}rules hit hardest (cases here of cases citing): {rules}")
        lines.append(f"{indent}e.g. {example.case_id} at {example.location}, {where}")
        lines.append(f"{indent}replay: {replay(example.case_id)}")
    return "\n".join(lines)


def render_not_applicable(grouping: Grouping) -> str:
    if not grouping.not_applicable:
        return ""
    total = sum(len(entry.case_ids) for entry in grouping.not_applicable)
    width = len(str(len(grouping.not_applicable[0].case_ids)))
    lines = [f"{total} case{'' if total == 1 else 's'} not applicable, by reason:"]
    lines += [f"  {len(entry.case_ids):>{width}}  {entry.reason}" for entry in grouping.not_applicable]
    return "\n".join(lines)


def render_terminal(verdicts: Sequence[Verdict], *, replay: Callable[[str], str], duration: float,
                    grouping: Grouping | None = None, stopped: Stopped | None = None) -> str:
    """Each failing case, the causes of failure, the not-applicable reasons, the table, the totals."""
    grouping = grouping if grouping is not None else group_verdicts(verdicts)
    parts = []
    failing = [verdict for verdict in verdicts if verdict.outcome in FAILING and not verdict.not_run]
    for verdict in failing:
        parts.append(describe_failure(verdict, replay=replay(verdict.case_id)))
    not_run = [verdict for verdict in verdicts if verdict.not_run]
    if not_run:  # cut short by a signal or the deadline: one line, not a paragraph each
        parts.append(f"{len(not_run)} case{'' if len(not_run) == 1 else 's'} {not_run[0].message}")
    parts += [text for text in (render_groups(grouping, replay=replay), render_not_applicable(grouping)) if text]
    parts.append(summary_table(verdicts))
    total = counts(verdicts)
    applicable = len(verdicts) - total[Outcome.NOT_APPLICABLE.value]
    parts.append(f"{len(verdicts)} cases, {applicable} applicable, in {duration:.2f} s")
    if stopped is not None:
        parts[-1] += f"; {stopped.describe()}"
    if verdicts and total[Outcome.ERROR.value] == len(verdicts) and not not_run:
        parts.append("every case errored: the engine or its adapter is probably broken; try `studcheck smoke --engine ...`")
    return "\n\n".join(parts)


def render_markdown(verdicts: Sequence[Verdict], *, replay: Callable[[str], str], engine: str,
                    grouping: Grouping | None = None, stopped: Stopped | None = None) -> str:
    """A summary for CI pages (e.g. `>> $GITHUB_STEP_SUMMARY`): the table, the causes, then each failing case."""
    grouping = grouping if grouping is not None else group_verdicts(verdicts)
    titles = ["variant", *(title for _, title in COLUMNS)]
    lines = [f"## studcheck {__version__}: {engine}", "", "| " + " | ".join(titles) + " |", "|" + "---|" * len(titles)]
    for variant in sorted({verdict.variant for verdict in verdicts}):
        lines.append("| " + " | ".join([variant, *map(str, _row([v for v in verdicts if v.variant == variant]))]) + " |")
    lines.append("| " + " | ".join(["**total**", *map(str, _row(verdicts))]) + " |")
    if stopped is not None:
        lines += ["", f"**{stopped.describe()}**"]
    lines += _markdown_groups(grouping, replay)
    failing = [verdict for verdict in verdicts if verdict.outcome in FAILING and not verdict.not_run]
    if len(failing) < sum(verdict.outcome in FAILING for verdict in verdicts):
        lines += ["", f"**{sum(verdict.not_run for verdict in verdicts)} cases {next(v for v in verdicts if v.not_run).message}**"]
    if failing:
        lines += ["", f"### {len(failing)} failing"]
    for verdict in failing:
        where = verdict.step_text or "setup"
        lines.append(f"- **{verdict.outcome.value.upper()} {verdict.case_id}** {verdict.title} (`{verdict.location}`, `{where}`): {verdict.message}")
        lines.extend(f"  - `{truncate(m.describe(), 300)}`" for m in verdict.mismatches[:6])
        if verdict.evidence:
            lines.append(f"  - engine output: `{truncate(verdict.evidence, 200)}`")
        lines.append(f"  - replay: `{replay(verdict.case_id)}`")
    return "\n".join(lines) + "\n"


def _markdown_groups(grouping: Grouping, replay: Callable[[str], str]) -> list[str]:
    if not grouping.groups:
        return []
    lines = ["", f"### {len(grouping.groups)} cause{'' if len(grouping.groups) == 1 else 's'} of failure (by first divergence)",
             "", "| cases | first divergence | example | replay |", "|---:|---|---|---|"]
    for group in grouping.groups:
        example = group.representative.case_id
        lines.append(f"| {group.count} | {_cell(group.key)} | {example} | `{_cell(replay(example))}` |")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
