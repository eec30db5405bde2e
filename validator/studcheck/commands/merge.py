"""`studcheck merge`: join the reports of `run --shard K/N` (one per CI job) into one report.

The merged report is the one a single run of the whole selection writes: the header of shard 1
without `shard`, the case lines in case order, the groups (causes of failure, then of expected
failure) and not-applicable lines recomputed over all cases, and a footer whose counts, exit code
and stop reasons cover every shard. `studcheck report` and every other reader take it like any
run's report.

Merging refuses (exit 2, saying what is wrong) shards of different studcheck versions, engines,
commands, case files or selections, the same shard twice, missing shards, and shards cut short
(no footer, or fewer case lines than the shard holds: --maxfail, a killed run).

The kind of file is read from its first line: run reports start with a `header` line. Fuzz
censuses (`fuzz --shard K/N --census FILE`, one JSON object with `"format": "studcheck-fuzz-census"`)
are merged by `studcheck.fuzz.census.merge_censuses` into the census of the whole campaign.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studcheck.harness.compare import Mismatch
from studcheck.harness.runner import Outcome, Verdict
from studcheck.safe_text import terminal_safe

EXIT_OK, EXIT_FAIL, EXIT_CONFIG = 0, 1, 2
#: header fields every shard of one run has the same value for
SAME = ("studcheck", "protocol", "engine", "command", "cases")


class MergeError(ValueError):
    """Shards that do not make one run; the message says which file and what is wrong."""


@dataclass(frozen=True, kw_only=True)
class Merged:
    """The merged report's lines and the exit code the whole run would have had."""

    lines: tuple[dict[str, Any], ...]
    exit_code: int
    verdicts: tuple[Verdict, ...]


def register(subparsers: Any) -> None:
    merge = subparsers.add_parser("merge", help="join the --report files of `run --shard K/N` (or fuzz censuses) into one",
                                  description="Join the JSONL reports of `studcheck run --shard 1/N` ... `--shard N/N` "
                                              "into the report one run of all the cases writes; or the censuses of "
                                              "`studcheck fuzz --shard K/N --census FILE` into the whole campaign's.")
    merge.add_argument("reports", nargs="+", type=Path, metavar="FILE.jsonl", help="one report per shard, in any order")
    merge.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.jsonl", help="write the merged report here")
    merge.add_argument("--junit", type=Path, metavar="FILE.xml", help="also write a JUnit XML report of the merged run")
    merge.set_defaults(handler=_merge)


def _merge(args: argparse.Namespace) -> int:
    from studcheck.harness.report import ReportWriter, render_terminal
    from studcheck.report.load import ReportInputError

    censuses = [_is_census(path) for path in args.reports]
    if any(censuses):
        return _merge_censuses(args, all(censuses))
    try:
        merged = merge_files(args.reports)
    except (MergeError, ReportInputError) as exc:
        print(terminal_safe(f"studcheck merge: {exc}"), file=sys.stderr)
        return EXIT_CONFIG
    try:
        with open(args.output, "w", encoding="utf-8") as stream:
            writer = ReportWriter(stream)
            for line in merged.lines:
                writer.write(line)
    except OSError as exc:
        print(terminal_safe(f"studcheck merge: cannot write {exc.filename}: {exc.strerror}"), file=sys.stderr)
        return EXIT_CONFIG
    if args.junit:
        from studcheck.harness.junit import write_junit

        write_junit(list(merged.lines), args.junit)
    replays = _replays(merged.lines)
    footer = merged.lines[-1]
    print(render_terminal(merged.verdicts, replay=replays.__getitem__, duration=float(footer["duration_s"])))
    print(terminal_safe(f"merged {len(args.reports)} shard report{'' if len(args.reports) == 1 else 's'} into {args.output}"))
    return merged.exit_code


def _is_census(path: Path) -> bool:
    """A `fuzz --census` file: one JSON object (not JSON lines) whose `format` names it."""
    from studcheck import jsonio
    from studcheck.fuzz.census import CENSUS_FORMAT

    try:
        data = jsonio.loads(jsonio.read_text(path), path=path)
    except jsonio.InputError:
        return False  # the run-report reader says what is wrong with it
    return isinstance(data, dict) and data.get("format") == CENSUS_FORMAT


def _merge_censuses(args: argparse.Namespace, only_censuses: bool) -> int:
    """The fuzz censuses of `fuzz --shard K/N --census FILE` into the census of the whole run."""
    from studcheck.fuzz.census import CensusError, merge_censuses, write_census

    if not only_censuses:
        print("studcheck merge: some files are fuzz censuses and some are not: merge files of one kind", file=sys.stderr)
        return EXIT_CONFIG
    if args.junit:
        print("studcheck merge: --junit is for run reports; a fuzz census has no cases", file=sys.stderr)
        return EXIT_CONFIG
    try:
        merged = merge_censuses(args.reports)
        write_census(args.output, merged)
    except CensusError as exc:
        print(terminal_safe(f"studcheck merge: {exc}"), file=sys.stderr)
        return EXIT_CONFIG
    except OSError as exc:
        print(terminal_safe(f"studcheck merge: cannot write {exc.filename}: {exc.strerror}"), file=sys.stderr)
        return EXIT_CONFIG
    count, indexes = int(merged["shards"]["count"]), list(merged["shards"]["indexes"])
    missing = [index for index in range(1, count + 1) if index not in indexes]
    print(terminal_safe(f"merged {len(args.reports)} fuzz census{'' if len(args.reports) == 1 else 'es'} into {args.output}: "
          f"{merged['hands']} hands, {len(merged['signatures'])} signature{'' if len(merged['signatures']) == 1 else 's'}, "
          f"shards {', '.join(map(str, indexes))} of {count}"
          + (f" (missing: {', '.join(map(str, missing))})" if missing else "")))
    return EXIT_OK


def merge_files(paths: Sequence[Path]) -> Merged:
    """Read each file, and merge them with the merger for the kind of their first line."""
    first = [_first_kind(path) for path in paths]
    kinds = sorted(set(first))
    if len(kinds) > 1:
        raise MergeError(f"the files are of different kinds ({', '.join(kinds)}): merge files of one kind")
    merger = MERGERS.get(kinds[0])
    if merger is None:
        raise MergeError(f"{paths[0]}: files whose first line is of kind {kinds[0]!r} cannot be merged "
                         f"(known: {', '.join(sorted(MERGERS))})")
    return merger(paths)


def _first_kind(path: Path) -> str:
    from studcheck import jsonio

    try:
        number, text = next(jsonio.lines(jsonio.read_text(path)), (1, ""))
        line = jsonio.loads(text, path=path, line=number) if text else None
    except jsonio.InputError as exc:
        raise MergeError(str(exc)) from None
    if not isinstance(line, dict) or not isinstance(line.get("kind"), str):
        raise MergeError(f"{path}:1: not a studcheck report (its first line has no `kind`)")
    return str(line["kind"])


def merge_run_reports(paths: Sequence[Path]) -> Merged:
    """Shards of one `studcheck run`, checked to be the whole of it, as one report."""
    from studcheck.harness.groups import group_verdicts
    from studcheck.harness.report import FAILING, annotate_cases, group_lines
    from studcheck.report.load import RunReport, read_report

    reports = [read_report(path) for path in paths]
    shards = _check_shards(reports)
    count = shards[0][1]["count"]
    ordered: list[RunReport] = [report for report, _ in sorted(shards, key=lambda pair: int(pair[1]["index"]))]
    cases = [ordered[position % count].cases[position // count] for position in range(int(shards[0][1]["of"]))]
    # an evaluation verdict names its rule when it is given (the engine's pair), and cannot be replayed after
    evaluation = ((ordered[0].header or {}).get("engine") or {}).get("profile") == "evaluation"
    verdicts = tuple(verdict_of(line, blamed=evaluation) for line in cases)
    replays = _replays(cases)
    footers = [report.footer for report in ordered if report.footer is not None]
    exit_code = _exit_code(verdicts, footers, FAILING)
    header = {key: value for key, value in dict(ordered[0].header or {}).items() if key != "shard"}
    header["started"] = min(str(report.header["started"]) for report in ordered if report.header is not None)
    footer = {
        "kind": "footer", "counts": _counts(verdicts), "duration_s": max(float(f["duration_s"]) for f in footers),
        "exit_code": exit_code, "stopped": None,
        "interrupted": next((f.get("interrupted") for f in footers if f.get("interrupted")), None),
    }
    grouping = group_verdicts(verdicts)
    case_lines = [dict(line) for line in cases]
    annotate_cases(case_lines, grouping)
    lines = [header, *case_lines, *group_lines(grouping, replay=replays.__getitem__), footer]
    return Merged(lines=tuple(lines), exit_code=exit_code, verdicts=verdicts)


def _check_shards(reports: Sequence[Any]) -> list[tuple[Any, Mapping[str, Any]]]:
    """Every report a finished shard of the same run, each shard once, none missing."""
    shards: list[tuple[Any, Mapping[str, Any]]] = []
    for report in reports:
        if report.header is None:
            raise MergeError(f"{report.path}: no header line")
        shard = report.header.get("shard")
        if not isinstance(shard, Mapping):
            raise MergeError(f"{report.path}: not the report of a `studcheck run --shard K/N` (its header has no shard)")
        if report.footer is None:
            raise MergeError(f"{report.path}: shard {shard['index']}/{shard['count']} has no footer: that run did not finish")
        if report.footer.get("exit_code") == 3:
            raise MergeError(f"{report.path}: shard {shard['index']}/{shard['count']}: the engine could not start in that run")
        if report.footer.get("stopped"):
            raise MergeError(f"{report.path}: shard {shard['index']}/{shard['count']} stopped early (--maxfail): "
                             "merge needs every case; run the shards without --maxfail/-x")
        if not 1 <= int(shard["index"]) <= int(shard["count"]):
            raise MergeError(f"{report.path}: shard {shard['index']}/{shard['count']}: a shard index runs from 1 to the count")
        expected = len(range(int(shard["index"]) - 1, int(shard["of"]), int(shard["count"])))
        if len(report.cases) != expected:
            raise MergeError(f"{report.path}: shard {shard['index']}/{shard['count']} has {len(report.cases)} case lines "
                             f"where it holds {expected}")
        _check_counts(report, shard)
        shards.append((report, shard))
    first, first_shard = shards[0]
    for report, shard in shards[1:]:
        for key in SAME:
            if report.header.get(key) != first.header.get(key):
                raise MergeError(f"{report.path} and {first.path} are not shards of one run: their `{key}` differs")
        for key in ("count", "of", "selection"):
            if shard[key] != first_shard[key]:
                what = "selection of cases" if key != "count" else "number of shards"
                raise MergeError(f"{report.path} and {first.path} are not shards of one run: the {what} differs "
                                 f"({key} {shard[key]} against {first_shard[key]})")
    seen: dict[int, str] = {}
    for report, shard in shards:
        index = int(shard["index"])
        if index in seen:
            raise MergeError(f"{report.path} and {seen[index]} are both shard {index}/{shard['count']}")
        seen[index] = report.path
    missing = [str(index) for index in range(1, int(first_shard["count"]) + 1) if index not in seen]
    if missing:
        raise MergeError(f"shard{'' if len(missing) == 1 else 's'} {', '.join(missing)} of {first_shard['count']} "
                         f"missing: give every shard's report")
    owner: dict[str, str] = {}
    for report, _ in shards:  # a case line copied over another would lose that case's verdict silently
        for line in report.cases:
            case_id = str(line["id"])
            if case_id in owner:
                where = "twice in" if owner[case_id] == report.path else f"in {owner[case_id]} and in"
                raise MergeError(f"case {case_id} is reported {where} {report.path}: each case belongs to one shard, once")
            owner[case_id] = report.path
    return shards


def _check_counts(report: Any, shard: Mapping[str, Any]) -> None:
    """The footer's counts are those of the shard's own case lines (an edited verdict shows here)."""
    from studcheck.harness.report import COLUMNS

    tally = {outcome.value: 0 for outcome, _ in COLUMNS}
    for line in report.cases:
        tally[str(line["outcome"])] = tally.get(str(line["outcome"]), 0) + 1
    counted = dict((report.footer or {}).get("counts") or {})
    if counted != tally:
        differing = ", ".join(f"{key} {counted.get(key, 0)} in the footer, {tally.get(key, 0)} case lines"
                              for key in sorted(set(tally) | set(counted)) if counted.get(key, 0) != tally.get(key, 0))
        raise MergeError(f"{report.path}: shard {shard['index']}/{shard['count']}: its case lines do not add up to its "
                         f"footer ({differing}): the file was changed after the run")


def verdict_of(line: Mapping[str, Any], *, blamed: bool = False) -> Verdict:
    """A report's case line back as the verdict it was written from (what grouping reads). `blamed`: the
    line's `blame` is the verdict's own (the evaluation profile names it from the pair the engine ranked;
    a hand's blame is found again by replaying its transcript)."""
    return Verdict(
        case_id=line["id"], outcome=Outcome(line["outcome"]), variant=line["variant"], file=line["file"], line=line["line"],
        title=line.get("title", ""), tags=tuple(line.get("tags", ())), rules=tuple(line.get("rules", ())),
        step=line.get("step"), step_text=line.get("step_text"), message=line.get("message") or "",
        mismatches=tuple(Mismatch(path=m["path"], expected=m["expected"], actual=m["actual"]) for m in line.get("mismatches") or ()),
        problem=line.get("problem"), evidence=line.get("evidence"), stderr=line.get("stderr") or "",
        transcript=tuple(line.get("transcript") or ()), duration=float(line.get("duration_ms", 0)) / 1000,
        xfail_reason=line.get("xfail_reason"), options=dict(line.get("options") or {}),
        blame=tuple(line["blame"]) if blamed and "blame" in line else None,
    )


def _exit_code(verdicts: Sequence[Verdict], footers: Sequence[Mapping[str, Any]], failing: frozenset[Outcome]) -> int:
    """What `run` would have exited with: a signal's code first, then 1 for a failing case, then 2
    when no case applied; 0 otherwise (rules of commands/run.py)."""
    signalled = [int(f["exit_code"]) for f in footers if int(f["exit_code"]) > 128]
    if signalled:
        return signalled[0]
    if any(verdict.outcome in failing for verdict in verdicts):
        return EXIT_FAIL
    if verdicts and all(verdict.outcome is Outcome.NOT_APPLICABLE for verdict in verdicts):
        return EXIT_CONFIG
    return EXIT_OK


def _counts(verdicts: Sequence[Verdict]) -> dict[str, int]:
    from studcheck.harness.report import counts

    return counts(verdicts)


def _replays(lines: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each case's replay command as its line gives it (only failing cases carry one)."""
    return {str(line["id"]): str(line["replay"]) for line in lines if line.get("kind") == "case" and "replay" in line}


#: first-line kind -> merger; a fuzz census adds its own here
MERGERS: dict[str, Callable[[Sequence[Path]], Merged]] = {"header": merge_run_reports}
