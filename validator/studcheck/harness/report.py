"""The run report: one JSON Lines file (header, one line per case, the failure groups, footer) and
the terminal view.

The JSONL report is the canonical record (spec/schema/report.schema.json); JUnit XML and the
terminal summary are derived from the same verdicts, so they cannot disagree.
"""

from __future__ import annotations

import io
import json
import os
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO, Any

from pathlib import Path

from studcheck import PROTOCOL_VERSION, __version__

from studcheck.harness.groups import Cause, Group, Grouping, group_verdicts
from studcheck.harness.groups import example as example_of
from studcheck.harness.runner import Outcome, Verdict, display_path
from studcheck.protocol.client import shorten, truncate
from studcheck.safe_text import markdown_code, markdown_inline, terminal_safe
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
        if info.kinds:  # the evaluation profile (spec/evaluation.md): what it evaluates, and which way
            engine.update(profile=info.profile.value, kinds=dict(info.kinds), variants=list(info.kinds))
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


def annotate_cases(lines: Iterable[dict[str, Any]], grouping: Grouping) -> None:
    """Add to each grouped case line its `blame` and the rank of its cause: `cause` for a failure
    (the rank of its `group` line), `expected_cause` for an expected failure (the rank of its
    `group` line marked `expected`). Known only once the run is over."""
    for line in lines:
        if line.get("kind") != "case":
            continue
        blamed = grouping.blamed.get(str(line.get("id")))
        if blamed is None:
            continue
        line["blame"] = list(blamed.blame)
        cause, expected = grouping.cause_of(str(line["id"])), grouping.expected_cause_of(str(line["id"]))
        if cause is not None:
            line["cause"] = cause
        if expected is not None:
            line["expected_cause"] = expected


def group_lines(grouping: Grouping, *, replay: Callable[[str], str]) -> list[dict[str, Any]]:
    """One `group` line per cause of failure (largest first), then one per cause of expected failure
    (`expected: true`, ranked apart, largest first), then one `not_applicable` line per reason."""
    lines = [_group_line(rank, group, grouping, replay) for rank, group in enumerate(grouping.groups, start=1)]
    lines += [_group_line(rank, group, grouping, replay, expected=True) for rank, group in enumerate(grouping.expected, start=1)]
    lines += [{"kind": "not_applicable", "reason": entry.reason, "count": len(entry.case_ids), "cases": list(entry.case_ids)}
              for entry in grouping.not_applicable]
    return lines


def _group_line(rank: int, group: Group, grouping: Grouping, replay: Callable[[str], str], *,
                expected: bool = False) -> dict[str, Any]:
    example = group.representative
    line = {
        "kind": "group", "rank": rank, "expected": expected, "key": group.key, **group.divergence.to_json(),
        "blame": list(group.blame), "count": group.count,
        "outcomes": dict(Counter(verdict.outcome.value for verdict in group.verdicts)),
        "variants": dict(Counter(verdict.variant for verdict in group.verdicts)),
        "cases": [verdict.case_id for verdict in group.verdicts],
        "representative": example.case_id, "replay": replay(example.case_id),
        "rules": [{"id": share.rule, "cases": share.cases, "of": share.of} for share in grouping.rules(group)],
        "forms": [{"key": key, "count": number} for key, number in group.forms],
    }
    if group.ways:  # one fix that showed in several places: each place with its cases
        line["ways"] = [{"key": way.key, **way.divergence.to_json(), "count": way.count,
                         "cases": [verdict.case_id for verdict in way.verdicts],
                         "representative": example_of(way.verdicts, group.rule).case_id} for way in group.ways]
    return line


class ReportWriter:
    """Writes report lines as they come, so a killed run still leaves a readable prefix.

    `path`: the file `stream` writes (`run --report FILE`), so that `rewrite` can replace it whole.
    """

    def __init__(self, stream: IO[str] | None, path: Path | None = None) -> None:
        self.stream = stream
        self.path = path
        self.lines: list[dict[str, Any]] = []

    def write(self, line: Mapping[str, Any]) -> None:
        self.lines.append(dict(line))
        if self.stream is not None:
            self.stream.write(_json_line(line))
            self.stream.flush()

    def rewrite(self) -> None:
        """Write every line so far again (after `annotate_cases` added what only the end of the run
        knows), all at once: the new text is built first, written to a temporary file beside the
        report and moved over it (`os.replace`), so that a failure on the way (no memory, a full disk)
        leaves the report as first written, never empty or cut short. Later lines go to the new file.

        A stream that is not the regular file at `path` (a pipe, /dev/stdout, no path given), or a
        directory where no temporary file can be made, keeps the lines as first written (still a
        whole report, without the causes)."""
        if self.stream is None or self.path is None:
            return
        text = report_text(self.lines)
        target = _regular_target(self.stream, self.path)
        if target is None:
            return
        try:
            descriptor, temporary = tempfile.mkstemp(prefix=".studcheck-report-", suffix=".tmp", dir=target.parent)
        except OSError:
            return
        try:
            handle = os.fdopen(descriptor, "w", encoding="utf-8")
        except BaseException:
            os.close(descriptor)
            _remove(temporary)
            raise
        try:
            os.chmod(temporary, stat.S_IMODE(os.fstat(self.stream.fileno()).st_mode))  # the report's own mode, not 0600
            handle.write(text)
            handle.flush()
            os.replace(temporary, target)
        except BaseException:
            handle.close()
            _remove(temporary)
            raise
        old, self.stream = self.stream, handle
        old.close()

    def close(self) -> None:
        """Close the stream this writer writes now (after `rewrite`, the one it opened)."""
        if self.stream is not None:
            self.stream.close()


def report_text(lines: Iterable[Mapping[str, Any]]) -> str:
    """The whole report as text, one JSON line per line."""
    return "".join(map(_json_line, lines))


def _regular_target(stream: IO[str], path: Path) -> Path | None:
    """The real path of the regular file `stream` writes, if `path` names that file (through any
    symlink, which stays a symlink); None for a pipe, a terminal, a device or another file."""
    try:
        written = os.fstat(stream.fileno())
        target = Path(os.path.realpath(path))
        named = os.stat(target)
    except (OSError, ValueError, io.UnsupportedOperation):
        return None
    if not stat.S_ISREG(written.st_mode) or (written.st_dev, written.st_ino) != (named.st_dev, named.st_ino):
        return None
    return target


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _json_line(line: Mapping[str, Any]) -> str:
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"


def case_path(file: str) -> str:
    """A case file as the reports show it (`display_path`): also for the lines of a report written
    before case paths were shown that way (an absolute site-packages path becomes `cases/razz/...`)."""
    return display_path(Path(file))


def _location(verdict: Verdict) -> str:
    return f"{case_path(verdict.file)}:{verdict.line}"


class Style:
    """Terminal colour: only on a terminal and when NO_COLOR is unset; never in files."""

    def __init__(self, enabled: bool = False) -> None:
        self.enabled = enabled

    @classmethod
    def for_stream(cls, stream: IO[str]) -> Style:
        return cls("NO_COLOR" not in os.environ and bool(getattr(stream, "isatty", lambda: False)()))

    def _paint(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.enabled and text else text

    def rule(self, text: str) -> str:
        return self._paint("1;31", text)

    def bold(self, text: str) -> str:
        return self._paint("1", text)

    def dim(self, text: str) -> str:
        return self._paint("2", text)


def passed(verdicts: Sequence[Verdict]) -> str:
    """`111 of 131 applicable`: the passing cases of those the engine declared it plays (not-applicable
    cases are its declared scope and count in neither number)."""
    tally = Counter(verdict.outcome for verdict in verdicts)
    applicable = len(verdicts) - tally.get(Outcome.NOT_APPLICABLE, 0)
    return f"{tally.get(Outcome.PASS, 0)} of {applicable} applicable" if applicable else "none applicable"


def summary_table(verdicts: Sequence[Verdict]) -> str:
    """Counts per variant and in total, one row each, and how many of the applicable cases pass."""
    variants = sorted({verdict.variant for verdict in verdicts})
    rows: list[list[str]] = [[terminal_safe(variant), *map(str, _row(mine)), passed(mine)]  # a report's variant is any text
                             for variant in variants for mine in [[v for v in verdicts if v.variant == variant]]]
    rows.append(["total", *map(str, _row(verdicts)), passed(verdicts)])
    titles = ["variant", *(title for _, title in COLUMNS), "passing"]
    widths = [max(len(str(row[i])) for row in [titles, *rows]) for i in range(len(titles))]

    def fmt(row: Sequence[object]) -> str:
        first = str(row[0]).ljust(widths[0])
        numbers = (str(cell).rjust(width) for cell, width in zip(row[1:-1], widths[1:-1]))
        return "  ".join([first, *numbers, str(row[-1])]).rstrip()

    return "\n".join([fmt(titles), *(fmt(row) for row in rows)])


def _row(verdicts: Sequence[Verdict]) -> list[int]:
    tally = Counter(verdict.outcome for verdict in verdicts)
    return [tally.get(outcome, 0) for outcome, _ in COLUMNS]


def describe_failure(verdict: Verdict, *, replay: str, cause: str | None = None, style: Style | None = None) -> str:
    """A self-contained paragraph: what, where, the cause and its rule, expected vs actual, how to
    replay just this case. `cause`: the line `cause_text` gives for it. Every field passes through
    `terminal_safe`: in `run` they come from case files and the engine, in `merge` from report files."""
    style = style or Style()
    title = f"{verdict.outcome.value.upper()} {verdict.case_id}"
    lines = [style.bold(terminal_safe(f"{title} ({verdict.title})" if verdict.title else title)),
             terminal_safe(f"  at {_location(verdict)}, {_where(verdict)}")]
    if cause:  # the one line that may carry colour: cause_text made its words safe already
        lines.append(f"  {cause}")
    plain = []
    if verdict.rules:
        plain.append(f"  the case cites: {', '.join(verdict.rules)}")
    if verdict.message:
        plain.append(f"  {verdict.message}")
    for mismatch in verdict.mismatches[:12]:
        plain.append(f"    {truncate(mismatch.describe(), 400)}")
    if len(verdict.mismatches) > 12:
        plain.append(f"    … and {len(verdict.mismatches) - 12} more differences")
    if verdict.evidence:
        plain.append(f"  engine output: {verdict.evidence}")
    if verdict.stderr.strip():  # written during this case; a crash's traceback first, its last words last
        plain.append("  engine stderr during this case:")  # escapes shown as text: no engine restyles the terminal
        plain.extend(f"    {text}" for text in shorten(verdict.stderr, head=20, tail=5).split("\n"))
    if verdict.xfail_reason and verdict.outcome is Outcome.XPASS:
        plain.append(f"  expected-failure reason was: {verdict.xfail_reason}")
    plain.append(f"  replay: {replay}")
    return "\n".join([*lines, *map(terminal_safe, plain)])


def _where(verdict: Verdict) -> str:
    """Where the case diverged: its step number and text, or what stands for one (`setup`, `not run`)."""
    return f"step {verdict.step + 1} `{verdict.step_text}`" if verdict.step is not None else (verdict.step_text or "setup")


def cause_text(grouping: Grouping, case_id: str, style: Style | None = None) -> str | None:
    """`cause 2 — RULE: divergence`, or `follows from cause 1 — ...` for a case whose own failure is
    a later consequence of its group's first divergence (found by the replay)."""
    style = style or Style()
    rank = grouping.cause_of(case_id)
    blamed = grouping.blamed.get(case_id)
    if rank is None or blamed is None:
        return None
    group = grouping.groups[rank - 1]
    text = terminal_safe(group.divergence.text)  # the shape of what the engine answered
    title = f"{style.rule(terminal_safe(group.rule))}: {text}" if group.rule else text
    way = group.way_of(case_id)
    here = f" (here: {terminal_safe(group.where(way))})" if way is not None else ""
    if blamed.follows:
        return f"follows from cause {rank} — {title}{here} (the case saw: {terminal_safe(blamed.seen.key)})"
    return f"cause {rank} — {title}{here}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def render_groups(grouping: Grouping, *, replay: Callable[[str], str], style: Style | None = None) -> str:
    """Failing cases by cause, largest first: the blamed rule, the divergence, how many, how the
    cases showed it, the rules they cite, an example to replay; then the expected failures' causes."""
    style = style or Style()
    lines: list[str] = []
    if grouping.groups:
        failing = sum(group.count for group in grouping.groups)
        lines.append(f"{_plural(failing, 'failing case')}, {_plural(len(grouping.groups), 'cause')} "
                     "(by first divergence and the rule it breaks, largest first):")
        for rank, group in enumerate(grouping.groups, start=1):
            lines += _group_lines(f"cause {rank}", group, grouping, replay, style)
    if grouping.expected:
        expected = sum(group.count for group in grouping.expected)
        if lines:
            lines.append("")
        lines.append(f"{_plural(expected, 'expected failure')} in {_plural(len(grouping.expected), 'cause')}:")
        for rank, group in enumerate(grouping.expected, start=1):
            lines += _group_lines(f"expected cause {rank}", group, grouping, replay, style, brief=True)
    return "\n".join(lines)


def ways_text(group: Group) -> str:
    """`, 8 ways it showed` for a cause that showed in several places (streets, requests); else ""."""
    return f", {len(group.ways)} ways it showed" if group.ways else ""


#: the ways of one cause listed in the terminal; the JSONL report lists them all
WAYS_SHOWN = 8


def _ways_lines(group: Group, indent: str) -> list[str]:
    """The places one cause showed in, largest first, each with its number of cases."""
    if not group.ways:
        return []
    width = len(str(group.ways[0].count))
    lines = [f"{indent}the ways it showed (cases, and the first difference there):"]
    lines += [f"{indent}  {way.count:>{width}}  {terminal_safe(truncate(way.key, 300))}" for way in group.ways[:WAYS_SHOWN]]
    if len(group.ways) > WAYS_SHOWN:
        lines.append(f"{indent}  … and {len(group.ways) - WAYS_SHOWN} more (the --report file lists them all)")
    return lines


def _group_lines(label: str, group: Group, grouping: Grouping, replay: Callable[[str], str], style: Style, *,
                 brief: bool = False) -> list[str]:
    """One cause: every word from a case, an engine or a report through `terminal_safe`, then styled."""
    example = group.representative
    text = terminal_safe(group.divergence.text)  # the shape of what the engine answered
    title = f"{style.rule(terminal_safe(group.rule))}: {text}" if group.rule else text
    lines = [f"{style.bold(label)} — {title} — {_plural(group.count, 'case')}{ways_text(group)}"]
    indent = "    "
    if len(group.blame) > 1:
        lines.append(terminal_safe(f"{indent}also: {', '.join(group.blame[1:])}"))
    lines += _ways_lines(group, indent)
    if brief:
        lines.append(terminal_safe(f"{indent}e.g. {example.case_id} at {_location(example)}"))
        return lines
    if group.forms:
        shown = "; ".join(f"{key} ({number})" for key, number in group.forms[:3])
        more = f"; {len(group.forms) - 3} more" if len(group.forms) > 3 else ""
        lines.append(f"{indent}first seen by the cases as: {terminal_safe(truncate(shown, 400))}{more}")
    rules = ", ".join(f"{share.rule} ({share.cases} of {share.of})" for share in grouping.rules(group)[:3])
    if rules and group.divergence.cause is not Cause.ERROR:  # a protocol error is no rule's
        lines.append(style.dim(terminal_safe(f"{indent}cases cite: {rules}")))
    lines.append(terminal_safe(f"{indent}e.g. {example.case_id} at {_location(example)}, {_where(example)}"))
    lines.append(terminal_safe(f"{indent}replay: {replay(example.case_id)}"))
    return lines


def render_not_applicable(grouping: Grouping) -> str:
    if not grouping.not_applicable:
        return ""
    total = sum(len(entry.case_ids) for entry in grouping.not_applicable)
    width = len(str(len(grouping.not_applicable[0].case_ids)))
    lines = [f"{total} case{'' if total == 1 else 's'} not applicable, by reason:"]
    lines += [f"  {len(entry.case_ids):>{width}}  {terminal_safe(entry.reason)}" for entry in grouping.not_applicable]
    return "\n".join(lines)


def render_terminal(verdicts: Sequence[Verdict], *, replay: Callable[[str], str], duration: float,
                    grouping: Grouping | None = None, stopped: Stopped | None = None, style: Style | None = None) -> str:
    """Each failing case, the causes of failure, the not-applicable reasons, the table, the totals."""
    grouping = grouping if grouping is not None else group_verdicts(verdicts)
    style = style or Style()
    parts = []
    failing = [verdict for verdict in verdicts if verdict.outcome in FAILING and not verdict.not_run]
    for verdict in failing:
        parts.append(describe_failure(verdict, replay=replay(verdict.case_id), cause=cause_text(grouping, verdict.case_id, style),
                                      style=style))
    not_run = [verdict for verdict in verdicts if verdict.not_run]
    if not_run:  # cut short by a signal or the deadline: one line, not a paragraph each
        parts.append(terminal_safe(f"{len(not_run)} case{'' if len(not_run) == 1 else 's'} {not_run[0].message}"))
    parts += [text for text in (render_groups(grouping, replay=replay, style=style), render_not_applicable(grouping)) if text]
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
    titles = ["variant", *(title for _, title in COLUMNS), "passing"]
    lines = [f"## studcheck {__version__}: {markdown_inline(engine)}", "", "| " + " | ".join(titles) + " |",
             "|" + "---|" * len(titles)]
    for variant in sorted({verdict.variant for verdict in verdicts}):
        mine = [v for v in verdicts if v.variant == variant]
        lines.append("| " + " | ".join([variant, *map(str, _row(mine)), passed(mine)]) + " |")
    lines.append("| " + " | ".join(["**total**", *map(str, _row(verdicts)), passed(verdicts)]) + " |")
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
        lines.append(f"- **{verdict.outcome.value.upper()} {markdown_inline(verdict.case_id)}** {markdown_inline(verdict.title)} "
                     f"({markdown_code(_location(verdict))}, {markdown_code(where)}): {markdown_inline(verdict.message)}")
        cause = cause_text(grouping, verdict.case_id)
        if cause:
            lines.append(f"  - {_cell(cause)}")
        lines.extend(f"  - {markdown_code(truncate(m.describe(), 300))}" for m in verdict.mismatches[:6])
        if verdict.evidence:
            lines.append(f"  - engine output: {markdown_code(truncate(verdict.evidence, 200))}")
        lines.append(f"  - replay: {markdown_code(replay(verdict.case_id))}")
    return "\n".join(lines) + "\n"


def _markdown_groups(grouping: Grouping, replay: Callable[[str], str]) -> list[str]:
    lines: list[str] = []
    if grouping.groups:
        lines += ["", f"### {_plural(len(grouping.groups), 'cause')} of failure (by first divergence and the rule it breaks)", ""]
        lines += _markdown_table(grouping.groups, replay)
    if grouping.expected:
        expected = sum(group.count for group in grouping.expected)
        lines += ["", f"### {_plural(expected, 'expected failure')} in {_plural(len(grouping.expected), 'cause')} "
                      "(known deviations, listed in the expected-failure file)", ""]
        lines += _markdown_table(grouping.expected, replay)
    return lines


def _markdown_table(groups: Sequence[Group], replay: Callable[[str], str]) -> list[str]:
    lines = ["| cause | rule broken | cases | first divergence | example | replay |", "|---:|---|---:|---|---|---|"]
    for rank, group in enumerate(groups, start=1):
        example = group.representative
        rule = f"**{group.rule}**" if group.rule else "(no rule: engine error)"
        ways = f" ({len(group.ways)} ways it showed: {_cell('; '.join(f'{way.key} ({way.count})' for way in group.ways))})" \
            if group.ways else ""
        lines.append(f"| {rank} | {rule} | {group.count} | {_cell(group.divergence.text)}{ways} | "
                     f"{markdown_inline(example.case_id)} ({markdown_code(_location(example))}) | "
                     f"{markdown_code(replay(example.case_id))} |")
    return lines


def _cell(text: str) -> str:
    """Text that may hold an engine's words, as plain text in one table cell or list line."""
    return markdown_inline(text)
