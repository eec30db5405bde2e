"""Equivalent mutants (equivalent.yaml), classification, and the reports (terminal, JSON, Markdown)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from engine_run import ERROR, KILLED, SURVIVED, TIMEOUT, RunResult
from mutants import Mutant, changed_lines

EQUIVALENT = "equivalent"
#: A survivor the protocol allows either way (equivalent.yaml `kind: spec_permitted`): its behaviour
#: does differ, but spec/protocol.md permits both answers, so no case may pin it. Counted apart.
PERMITTED = "permitted"

#: The two claims an entry can make.
KIND_EQUIVALENT = "equivalent"  # no protocol answer can differ (checked by guard.py too)
KIND_SPEC_PERMITTED = "spec_permitted"  # an answer can differ, and the protocol permits both
KINDS = (KIND_EQUIVALENT, KIND_SPEC_PERMITTED)

_ID_KEYS = {"id", "file", "line", "function", "description", "reason", "kind", "permitted_by"}
_SCOPE_KEYS = {"scope", "file", "function", "reason", "kind", "permitted_by"}


class EquivalentError(Exception):
    """equivalent.yaml is malformed (a usage error: exit 2)."""


@dataclass(frozen=True, kw_only=True)
class EquivalentEntry:
    """One mutant (`id`) or every mutant of one function (`scope: function`) with the reason no
    protocol answer can differ."""

    reason: str
    line_no: int  # where the entry starts in equivalent.yaml
    id: str | None = None
    file: str | None = None
    function: str | None = None
    description: str | None = None
    line: int | None = None
    kind: str = KIND_EQUIVALENT
    permitted_by: str | None = None  # kind spec_permitted: the spec/protocol.md section permitting both answers

    @property
    def permitted(self) -> bool:
        return self.kind == KIND_SPEC_PERMITTED

    @property
    def label(self) -> str:
        if self.id is not None:
            return f"{self.id} ({self.file}:{self.line} {self.description or ''})".rstrip()
        return f"scope function {self.file}:{self.function}"

    def matches(self, mutant: Mutant) -> bool:
        if self.id is not None:
            return mutant.id == self.id
        return mutant.file == self.file and (mutant.function == self.function or mutant.function.startswith(f"{self.function}."))


class _LineLoader(yaml.SafeLoader):
    pass


def _mapping_with_line(loader: _LineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    mapping: dict[str, Any] = {str(k): v for k, v in loader.construct_mapping(node, deep=True).items()}
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_with_line)


def _load_with_lines(text: str) -> Any:
    """Safe YAML (a SafeLoader subclass) whose mappings also carry their line, for messages."""
    loader = _LineLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def load_equivalents(path: Path) -> list[EquivalentEntry]:
    """Read equivalent.yaml: a list of entries (see the file's header); a missing file is empty."""
    if not path.exists():
        return []
    try:
        data = _load_with_lines(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise EquivalentError(f"{path}: not valid YAML: {exc}") from None
    if data is None:
        return []
    if not isinstance(data, list):
        raise EquivalentError(f"{path}: must be a YAML list of entries")
    entries: list[EquivalentEntry] = []
    seen: dict[str, int] = {}
    for item in data:
        if not isinstance(item, dict):
            raise EquivalentError(f"{path}: every entry must be a mapping, got {item!r}")
        line_no = int(item.pop("__line__", 0))
        where = f"{path}:{line_no}"
        reason = item.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise EquivalentError(f"{where}: an entry needs a `reason` saying why no protocol answer can differ")
        kind = item.get("kind", KIND_EQUIVALENT)
        permitted_by = item.get("permitted_by")
        if kind not in KINDS:
            raise EquivalentError(f"{where}: `kind` must be one of {', '.join(KINDS)}, got {kind!r}")
        if kind == KIND_SPEC_PERMITTED and (not isinstance(permitted_by, str) or not permitted_by.startswith("spec/protocol.md")):
            raise EquivalentError(f"{where}: a spec_permitted entry needs `permitted_by: spec/protocol.md <section>`, "
                                  "the section that permits both answers")
        if kind == KIND_EQUIVALENT and permitted_by is not None:
            raise EquivalentError(f"{where}: `permitted_by` belongs to `kind: spec_permitted` entries only")
        if "scope" in item:
            unknown = set(item) - _SCOPE_KEYS
            if unknown or item["scope"] != "function" or not isinstance(item.get("file"), str) or not isinstance(item.get("function"), str):
                raise EquivalentError(f"{where}: a scope entry has exactly `scope: function`, `file`, `function` and `reason`"
                                      + (f" (unknown keys: {', '.join(sorted(unknown))})" if unknown else ""))
            entries.append(EquivalentEntry(reason=" ".join(reason.split()), line_no=line_no, file=item["file"], function=item["function"],
                                           kind=kind, permitted_by=permitted_by))
            continue
        unknown = set(item) - _ID_KEYS
        if unknown:
            raise EquivalentError(f"{where}: unknown keys {', '.join(sorted(unknown))} (allowed: {', '.join(sorted(_ID_KEYS))})")
        mutant_id = item.get("id")
        if not isinstance(mutant_id, str) or not mutant_id:
            raise EquivalentError(f"{where}: an entry needs the mutant's `id` (or `scope: function`)")
        if mutant_id in seen:
            raise EquivalentError(f"{where}: {mutant_id} is listed twice (also line {seen[mutant_id]})")
        seen[mutant_id] = line_no
        line = item.get("line")
        entries.append(EquivalentEntry(
            reason=" ".join(reason.split()), line_no=line_no, id=mutant_id, file=item.get("file"),
            function=item.get("function"), description=item.get("description"), line=line if isinstance(line, int) else None,
            kind=kind, permitted_by=permitted_by,
        ))
    return entries


def match_equivalents(entries: Sequence[EquivalentEntry], mutants: Iterable[Mutant]) -> tuple[dict[str, EquivalentEntry], list[EquivalentEntry]]:
    """Mutant ID -> its entry, and the stale entries (matching no mutant at all)."""
    matched: dict[str, EquivalentEntry] = {}
    used: set[int] = set()
    for mutant in mutants:
        for index, entry in enumerate(entries):
            if entry.matches(mutant):
                matched.setdefault(mutant.id, entry)
                used.add(index)
    stale = [entry for index, entry in enumerate(entries) if index not in used]
    return matched, stale


def recorded_mismatches(entries: Sequence[EquivalentEntry], mutants: Iterable[Mutant]) -> list[str]:
    """Entries whose recorded place no longer matches the code: an `id` entry whose mutant is gone,
    or whose `file`, `function`, `line` or `description` (the line number and the code before and
    after) differ from the mutant's today; a scope entry whose function has no mutant. Each is a
    claim written about other code: re-read its reason, then record the place again."""
    by_id = {mutant.id: mutant for mutant in mutants}
    problems: list[str] = []
    scopes = {(m.file, m.function) for m in by_id.values()}
    for entry in entries:
        where = f"equivalent.yaml:{entry.line_no}"
        if entry.id is None:
            if not any(file == entry.file and (function == entry.function or function.startswith(f"{entry.function}."))
                       for file, function in scopes):
                problems.append(f"{where}: scope {entry.file}:{entry.function} has no mutant in today's code")
            continue
        mutant = by_id.get(entry.id)
        if mutant is None:
            problems.append(f"{where}: {entry.id} is no mutant of today's code (the code it describes changed)")
            continue
        for name, recorded, actual in (("file", entry.file, mutant.file), ("function", entry.function, mutant.function),
                                       ("line", entry.line, mutant.line), ("description", entry.description, mutant.description)):
            if recorded != actual:
                problems.append(f"{where}: {entry.id} {name} is recorded as {recorded!r}, today it is {actual!r}")
    return problems


def update_recorded_lines(path: Path, entries: Sequence[EquivalentEntry], mutants: Iterable[Mutant]) -> list[str]:
    """Rewrite, in place, the `line:` and `description:` of each `id` entry whose mutant still exists
    but moved; returns what changed ("ID: old -> new"). Entries whose mutant is gone are left alone."""
    by_id = {mutant.id: mutant for mutant in mutants}
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    changed: list[str] = []
    for entry in entries:
        mutant = by_id.get(entry.id or "")
        if mutant is None or (entry.line == mutant.line and entry.description == mutant.description):
            continue
        index = entry.line_no - 1  # the entry's first line; its keys follow until the next entry
        end = index + 1
        while end < len(lines) and not lines[end].startswith("- ") and not lines[end].startswith("#"):
            end += 1
        for at in range(index, end):
            text = lines[at]
            key = text.lstrip("- ").split(":", 1)[0]
            indent = text[: len(text) - len(text.lstrip("- "))]
            if key == "line":
                lines[at] = f"{indent}line: {mutant.line}\n"
            elif key == "description":
                escaped = mutant.description.replace("\\", "\\\\").replace('"', '\\"')
                lines[at] = f'{indent}description: "{escaped}"\n'
        changed.append(f"{entry.id} ({mutant.file} {mutant.function}): line {entry.line} -> {mutant.line}")
    path.write_text("".join(lines), encoding="utf-8")
    return changed


def yaml_stub(mutant: Mutant) -> str:
    """An equivalent.yaml entry for a mutant, its reason left to write."""
    description = mutant.description.replace('"', '\\"')
    return (f"- id: {mutant.id}\n  file: {mutant.file}\n  line: {mutant.line}\n  function: {mutant.function}\n"
            f"  description: \"{description}\"\n  reason: >-\n    WHY NO PROTOCOL ANSWER CAN DIFFER\n")


# --- results ------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class MutantResult:
    mutant: Mutant
    run: RunResult
    status: str  # killed | timeout | survived | equivalent | permitted | error
    equivalent: EquivalentEntry | None = None
    before_lines: tuple[str, ...] = ()
    after_lines: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        m = self.mutant
        data: dict[str, Any] = {
            "id": m.id, "file": m.file, "line": m.line, "col": m.col, "function": m.function, "operator": m.operator,
            "description": m.description, "occurrence": m.occurrence, "status": self.status,
            "startup": self.run.startup, "killer": self.run.killer, "detail": self.run.detail,
            "duration": round(self.run.duration, 3), "cases_run": self.run.cases_run,
            "before": list(self.before_lines), "after": list(self.after_lines),
        }
        if self.equivalent is not None:
            data["equivalent_reason"] = self.equivalent.reason
            data["equivalent_kind"] = self.equivalent.kind
            if self.equivalent.permitted_by:
                data["permitted_by"] = self.equivalent.permitted_by
        return data


def classify(mutant: Mutant, run: RunResult, equivalent: EquivalentEntry | None, source: str) -> MutantResult:
    status = run.status
    if status == SURVIVED and equivalent is not None:
        status = PERMITTED if equivalent.permitted else EQUIVALENT
    before, after = changed_lines(source, mutant)
    return MutantResult(mutant=mutant, run=run, status=status, equivalent=equivalent,
                        before_lines=tuple(before), after_lines=tuple(after))


@dataclass(kw_only=True)
class Tally:
    mutants: int = 0
    killed: int = 0
    startup: int = 0  # of the killed, before any case
    timeout: int = 0
    equivalent: int = 0
    permitted: int = 0  # survivors the protocol allows either way (spec_permitted)
    survived: int = 0
    error: int = 0

    def add(self, result: MutantResult) -> None:
        self.mutants += 1
        if result.status == KILLED:
            self.killed += 1
            self.startup += result.run.startup
        elif result.status == TIMEOUT:
            self.timeout += 1
        elif result.status == EQUIVALENT:
            self.equivalent += 1
        elif result.status == PERMITTED:
            self.permitted += 1
        elif result.status == SURVIVED:
            self.survived += 1
        else:
            self.error += 1

    @property
    def score(self) -> float | None:
        """Killed (timeouts included) over the mutants that could be killed."""
        judged = self.mutants - self.equivalent - self.permitted - self.error
        return (self.killed + self.timeout) / judged if judged else None

    def score_text(self) -> str:
        score = self.score
        return "-" if score is None else f"{100 * score:.1f}%"

    def to_json(self) -> dict[str, Any]:
        return {"mutants": self.mutants, "killed": self.killed, "killed_startup": self.startup, "timeout": self.timeout,
                "equivalent": self.equivalent, "spec_permitted": self.permitted, "survived": self.survived, "error": self.error,
                "score": None if self.score is None else round(self.score, 4)}


@dataclass(kw_only=True)
class Report:
    results: list[MutantResult]
    generated: int  # mutants generated in all target files
    selected: int  # mutants chosen to run (after --files / --sample)
    not_run: int  # selected but not started (budget)
    stale: list[EquivalentEntry]
    wrong_equivalents: list[MutantResult] = field(default_factory=list)  # listed equivalent, yet killed
    baseline_seconds: float = 0.0
    deadline: float = 0.0
    wall_seconds: float = 0.0
    jobs: int = 1
    command: str = ""
    cases: int = 0
    skipped_equivalent: int = 0  # selected, listed in equivalent.yaml, not run (--skip-equivalent)

    def tallies(self) -> tuple[dict[str, Tally], Tally]:
        per_file: dict[str, Tally] = {}
        total = Tally()
        for result in sorted(self.results, key=lambda r: r.mutant.file):
            per_file.setdefault(result.mutant.file, Tally()).add(result)
            total.add(result)
        return dict(sorted(per_file.items())), total

    def survivors(self) -> list[MutantResult]:
        return sorted((r for r in self.results if r.status == SURVIVED), key=lambda r: (r.mutant.file, r.mutant.line, r.mutant.col, r.mutant.id))

    def errors(self) -> list[MutantResult]:
        return [r for r in self.results if r.status == ERROR]

    def exit_code(self) -> int:
        return 1 if self.survivors() or self.errors() else 0

    def to_json(self) -> dict[str, Any]:
        per_file, total = self.tallies()
        return {
            "command": self.command,
            "jobs": self.jobs,
            "cases": self.cases,
            "wall_seconds": round(self.wall_seconds, 1),
            "baseline_seconds": round(self.baseline_seconds, 2),
            "mutant_deadline_seconds": round(self.deadline, 1),
            "generated": self.generated,
            "selected": self.selected,
            "not_run_budget": self.not_run,
            "skipped_equivalent": self.skipped_equivalent,
            "total": total.to_json(),
            "files": {name: tally.to_json() for name, tally in per_file.items()},
            "survivors": [r.to_json() for r in self.survivors()],
            "stale_equivalents": [{"line": e.line_no, "entry": e.label} for e in self.stale],
            "equivalent_but_killed": [r.to_json() for r in self.wrong_equivalents],
            "mutants": [r.to_json() for r in sorted(self.results, key=lambda r: (r.mutant.file, r.mutant.line, r.mutant.col, r.mutant.id))],
        }


@dataclass(kw_only=True)
class SavedRuns:
    """The runs of an earlier --json report, for --rescore."""

    runs: dict[str, RunResult]
    selected: int = 0
    not_run: int = 0
    baseline_seconds: float = 0.0
    deadline: float = 0.0
    wall_seconds: float = 0.0
    jobs: int = 1
    cases: int = 0
    command: str = ""


def load_runs(path: Path) -> SavedRuns:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("mutants"), list):
        raise ValueError(f"{path}: not a --json report of mutate.py")
    runs: dict[str, RunResult] = {}
    for item in data["mutants"]:
        status = item["status"]
        if status in (EQUIVALENT, PERMITTED):
            status = SURVIVED  # equivalence is decided again
        runs[item["id"]] = RunResult(status=status, detail=item.get("detail", ""), killer=item.get("killer"),
                                     startup=bool(item.get("startup")), duration=float(item.get("duration", 0.0)),
                                     cases_run=int(item.get("cases_run", 0)))
    return SavedRuns(runs=runs, selected=int(data.get("selected", len(runs))), not_run=int(data.get("not_run_budget", 0)),
                     baseline_seconds=float(data.get("baseline_seconds", 0.0)),
                     deadline=float(data.get("mutant_deadline_seconds", 0.0)), wall_seconds=float(data.get("wall_seconds", 0.0)),
                     jobs=int(data.get("jobs", 1)), cases=int(data.get("cases", 0)), command=str(data.get("command", "")))


def write_json(report: Report, path: Path) -> None:
    path.write_text(json.dumps(report.to_json(), indent=1) + "\n", encoding="utf-8")


def score_table(report: Report) -> list[str]:
    per_file, total = report.tallies()
    lines = [
        "| file | mutants | killed | (at startup) | timed out | equivalent | spec-permitted | survived | score |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, t in per_file.items():
        lines.append(f"| `{name}` | {t.mutants} | {t.killed} | {t.startup} | {t.timeout} | {t.equivalent} | {t.permitted} | "
                     f"{t.survived} | {t.score_text()} |")
    lines.append(f"| **total** | **{total.mutants}** | **{total.killed}** | **{total.startup}** | **{total.timeout}** | "
                 f"**{total.equivalent}** | **{total.permitted}** | **{total.survived}** | **{total.score_text()}** |")
    return lines


def render_markdown(report: Report) -> str:
    lines = [
        f"Mutants generated: {report.generated}; run: {len(report.results)}"
        + (f" (of {report.selected} selected; {report.not_run} not started: budget)" if report.not_run else "")
        + (f"; {report.skipped_equivalent} listed equivalents not run (--skip-equivalent)" if report.skipped_equivalent else "")
        + f"; {report.cases} cases; jobs {report.jobs}; wall time {_duration(report.wall_seconds)}"
        + f" (unmutated suite {report.baseline_seconds:.1f} s, per-mutant limit {report.deadline:g} s).",
        "",
        *score_table(report),
        "",
        "Score = (killed + timed out) / (mutants - equivalent - spec-permitted).",
    ]
    survivors = report.survivors()
    lines += ["", f"### Survivors ({len(survivors)})", ""]
    if not survivors:
        lines.append("None.")
    for r in survivors:
        m = r.mutant
        lines.append(f"- `{m.id}` `{m.file}:{m.line}` ({m.function}, {m.operator}): {_md_code(m.description)}")
        lines += [f"  - before: `{_md_code(line.strip())}`" for line in r.before_lines]
        lines += [f"  - after: `{_md_code(line.strip())}`" for line in r.after_lines]
    if report.stale:
        lines += ["", "### Stale equivalent.yaml entries", ""]
        lines += [f"- line {e.line_no}: {e.label}" for e in report.stale]
    return "\n".join(lines) + "\n"


def _md_code(text: str) -> str:
    return text.replace("|", "\\|")


def _duration(seconds: float) -> str:
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{seconds:.1f} s"


def render_terminal(report: Report) -> str:
    per_file, total = report.tallies()
    width = max([len("file"), *(len(name) for name in per_file)])
    out = [f"{'file':<{width}}  mutants  killed  timeout  equiv  permitted  survived  score"]
    for name, t in [*per_file.items(), ("total", total)]:
        out.append(f"{name:<{width}}  {t.mutants:>7}  {t.killed:>6}  {t.timeout:>7}  {t.equivalent:>5}  {t.permitted:>9}  "
                   f"{t.survived:>8}  {t.score_text():>6}")
    out.append(f"(killed at startup: {total.startup}; errors: {total.error})" if total.error else f"(killed at startup: {total.startup})")
    for r in report.survivors():
        m = r.mutant
        out.append("")
        out.append(f"SURVIVED {m.id}  {m.file}:{m.line}  {m.function}  [{m.operator}]  {m.description}")
        out += [f"  - {line}" for line in r.before_lines]
        out += [f"  + {line}" for line in r.after_lines]
    for r in report.errors():
        out.append(f"ERROR {r.mutant.id} {r.mutant.file}:{r.mutant.line}: {r.run.detail}")
    for r in report.wrong_equivalents:
        out.append(f"WARNING: {r.mutant.id} ({r.mutant.file}:{r.mutant.line}) is listed in equivalent.yaml but was {r.status}: {r.run.detail}")
    for entry in report.stale:
        out.append(f"STALE equivalent.yaml line {entry.line_no}: {entry.label} matches no mutant")
    if report.not_run:
        out.append(f"budget: {report.not_run} of {report.selected} selected mutants were not started")
    if report.skipped_equivalent:
        out.append(f"--skip-equivalent: {report.skipped_equivalent} mutants of the sample are listed in equivalent.yaml "
                   "and were not run (tools/mutation/guard.py fuzzes them)")
    out.append(f"{len(report.results)} mutants in {_duration(report.wall_seconds)} with {report.jobs} jobs; "
               f"unmutated suite {report.baseline_seconds:.1f} s ({report.cases} cases), per-mutant limit {report.deadline:g} s")
    return "\n".join(out)


def by_id(results: Iterable[MutantResult]) -> Mapping[str, MutantResult]:
    return {r.mutant.id: r for r in results}
