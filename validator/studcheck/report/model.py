"""The report model: counts per rule and per engine/variant column, the failing cases, the causes.

Pure functions from parsed JSONL reports (load.py) and the rule index, so the numbers on the page
are tested without rendering anything. Shards of one engine (same name and version) merge into the
same columns; different engines or versions get their own.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from studcheck.report.load import RunReport
from studcheck.resources import data_root, spec_dir

#: outcomes in the order of the report's tables
OUTCOMES = ("pass", "fail", "error", "not_applicable", "xfail", "xpass")
#: outcomes that get a section of their own on the page (expected vs actual, stderr, replay)
DETAILED = frozenset({"fail", "error", "xpass", "xfail"})
#: the most telling case of a cell first: it is the one the cell links to
SEVERITY = ("error", "fail", "xpass", "xfail", "pass", "not_applicable")
OTHER_CHAPTER = "other rule IDs (not in spec/rules.yaml)"


@dataclass(frozen=True, kw_only=True)
class RuleEntry:
    """A rule of spec/rules.yaml with the chapter (doc file) that states it."""

    id: str
    title: str
    doc: str
    text: str = ""  # the normative paragraphs under the rule's heading in `doc` (the page is self-contained)


@dataclass(frozen=True, kw_only=True)
class Column:
    """One engine (name and version from the header) in one variant."""

    key: str  # used in anchors and data attributes: c1, c2, ...
    engine: str
    version: str
    variant: str
    label: str  # name and version; with the command when two engines share them


@dataclass(frozen=True, kw_only=True)
class CaseEntry:
    """One case line of one column, with its anchor on the page."""

    anchor: str
    column: Column
    line: Mapping[str, Any]
    source: str  # the report file it came from

    @property
    def id(self) -> str:
        return str(self.line["id"])

    @property
    def outcome(self) -> str:
        return str(self.line["outcome"])

    @property
    def where(self) -> str:
        """The step where the engine diverged, as the case file states it."""
        step, text = self.line.get("step"), self.line.get("step_text")
        if step is not None:
            return f"step {int(step) + 1}: {text}" if text else f"step {int(step) + 1}"
        return str(text or "setup")


@dataclass(frozen=True, kw_only=True)
class Cell:
    """The cases of one column citing one rule: counts per outcome, worst case first."""

    counts: Mapping[str, int]
    cases: tuple[CaseEntry, ...]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def summary(self) -> tuple[tuple[int, str], ...]:
        """The non-zero counts as (count, outcome), in the legend's order: a wide matrix stays readable."""
        return tuple((self.counts[outcome], outcome) for outcome in OUTCOMES if self.counts[outcome])

    @property
    def css(self) -> str:
        """Colour class: any failing case makes the cell fail; only n/a is grey; none is empty."""
        if not self.total:
            return "empty"
        if self.counts["fail"] or self.counts["error"] or self.counts["xpass"]:
            return "fail"
        if self.counts["xfail"]:
            return "xfail"
        return "pass" if self.counts["pass"] else "na"

    @property
    def target(self) -> CaseEntry | None:
        """The case the cell links to: the worst one."""
        return self.cases[0] if self.cases else None


@dataclass(frozen=True, kw_only=True)
class RuleRow:
    rule: RuleEntry
    cells: tuple[Cell, ...]  # aligned with Model.columns


@dataclass(frozen=True, kw_only=True)
class Chapter:
    doc: str
    title: str
    rows: tuple[RuleRow, ...]


@dataclass(frozen=True, kw_only=True)
class GroupEntry:
    """A cause of failure of one engine (a `group` line), with links to the cases it covers."""

    engine: str
    line: Mapping[str, Any]
    cases: tuple[CaseEntry, ...]


@dataclass(frozen=True, kw_only=True)
class Source:
    """One input report: which engine, when, and whether the run finished (a killed run has no footer)."""

    path: str
    engine: str
    started: str
    warning: str  # "" for a complete run; else why its counts are partial


@dataclass(frozen=True, kw_only=True)
class Model:
    sources: tuple[Source, ...]
    columns: tuple[Column, ...]
    chapters: tuple[Chapter, ...]
    entries: tuple[CaseEntry, ...]  # every case, in report order (the index at the bottom of the page)
    detailed: tuple[CaseEntry, ...]  # the cases with a section of their own, by column then run order
    groups: tuple[GroupEntry, ...]
    not_applicable: tuple[tuple[str, Mapping[str, Any]], ...]  # (engine label, not_applicable line)
    totals: Mapping[str, Mapping[str, int]]  # column key -> counts of all its cases
    histories: Mapping[str, str]  # case ID -> its hand as `studcheck show` prints it (detailed cases that were found)

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(sorted({column.variant for column in self.columns}))

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(sorted({str(tag) for entry in self.entries for tag in entry.line.get("tags") or []}))

    @property
    def cited_rules(self) -> tuple[RuleEntry, ...]:
        """The rules with a matrix row, in its order: the page states their text once, cases link to it."""
        return tuple(row.rule for chapter in self.chapters for row in chapter.rows)


def load_rules(spec: Path | None = None) -> dict[str, RuleEntry]:
    """spec/rules.yaml as {rule id: RuleEntry}, in file order (with the doc file, which rule_index drops)."""
    spec = spec or spec_dir()
    data = yaml.safe_load((spec / "rules.yaml").read_text(encoding="utf-8"))
    texts: dict[str, dict[str, str]] = {}
    data["rules"] = [entry for entry in data["rules"] if "retired" not in entry]  # no text, never cited
    for entry in data["rules"]:
        doc = str(entry.get("doc", ""))
        if doc not in texts:
            texts[doc] = rule_texts(spec.parent / doc) if doc else {}
    return {str(entry["id"]): RuleEntry(id=str(entry["id"]), title=str(entry["title"]), doc=str(entry.get("doc", "")),
                                        text=texts[str(entry.get("doc", ""))].get(str(entry["id"]), ""))
            for entry in data["rules"]}


#: a rule's heading in spec/rules/*.md: ### `BRING-IN.CARD.LOW` — title
RULE_HEADING = re.compile(r"^#{2,4} `([A-Z0-9][A-Z0-9.-]*)`")


def rule_texts(path: Path) -> dict[str, str]:
    """{rule id: its paragraphs} of one rules file: from its heading to the next heading, without the sources."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for text in lines:
        if text.startswith("#"):
            match = RULE_HEADING.match(text)
            current = found.setdefault(match.group(1), []) if match else None
        elif current is not None:
            current.append(text)
    return {rule: _without_sources("\n".join(body).strip()) for rule, body in found.items()}


def _without_sources(text: str) -> str:
    """The paragraphs a reader needs to judge a case; the sources are long and stay in the spec."""
    return "\n\n".join(part for part in text.split("\n\n") if not part.startswith("**Sources:**"))


def chapter_title(doc: str, root: Path | None = None) -> str:
    """The first heading of the doc file (`04 — The bring-in`), else the file name."""
    path = (root or data_root()) / doc
    try:
        for text in path.read_text(encoding="utf-8").splitlines():
            if text.startswith("# "):
                return text[2:].strip()
    except OSError:
        pass
    return Path(doc).stem or doc


def engine_of(report: RunReport) -> tuple[str, str, str]:
    """(name, version, command) from the header; a report without one is named by its file.

    The command tells apart two builds that give the same name and version (a patched engine next
    to the original); shards of one run have the same command and so share their columns.
    """
    header = report.header or {}
    engine = header.get("engine") or {}
    name = str(engine.get("name") or f"unknown engine ({Path(report.path).name})")
    return name, str(engine.get("version") or ""), str(header.get("command") or "")


def engine_labels(reports: Sequence[RunReport]) -> dict[str, str]:
    """Report path -> its engine's label: name and version, plus the command if that is ambiguous."""
    identities = {report.path: engine_of(report) for report in reports}
    commands: dict[tuple[str, str], set[str]] = {}
    for name, version, command in identities.values():
        commands.setdefault((name, version), set()).add(command)
    return {path: f"{name} {version}".strip() + (f" ({command})" if len(commands[(name, version)]) > 1 else "")
            for path, (name, version, command) in identities.items()}


def _anchor(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", text)


def build_model(reports: Sequence[RunReport], rules: Mapping[str, RuleEntry],
                titles: Mapping[str, str] | None = None, histories: Mapping[str, str] | None = None) -> Model:
    """The whole page's data. `titles`: chapter titles by doc file (default: read from the docs);
    `histories`: hand histories by case ID (hands.histories; none in the unit tests)."""
    columns: dict[tuple[str, str], Column] = {}
    entries: list[CaseEntry] = []
    anchors: Counter[str] = Counter()
    labels = engine_labels(reports)
    for report in reports:
        name, version, _ = engine_of(report)
        for line in report.cases:
            key = (labels[report.path], str(line["variant"]))
            column = columns.setdefault(key, Column(key=f"c{len(columns) + 1}", engine=name, version=version,
                                                    variant=key[1], label=key[0]))
            anchor = _anchor(f"case-{column.key}-{line['id']}")
            anchors[anchor] += 1
            entries.append(CaseEntry(anchor=anchor if anchors[anchor] == 1 else f"{anchor}-{anchors[anchor]}",
                                     column=column, line=line, source=report.path))
    ordered = tuple(columns.values())
    return Model(sources=tuple(source(report, labels[report.path]) for report in reports), columns=ordered,
                 chapters=chapters(entries, ordered, rules, titles),
                 entries=tuple(entries),
                 detailed=tuple(sorted((e for e in entries if e.outcome in DETAILED), key=lambda e: int(e.column.key[1:]))),
                 groups=tuple(group_entries(reports, entries, labels)),
                 not_applicable=tuple((labels[report.path], line) for report in reports for line in report.not_applicable),
                 totals={column.key: count([e for e in entries if e.column is column]) for column in ordered},
                 histories=dict(histories or {}))


def source(report: RunReport, engine: str) -> Source:
    footer = report.footer
    if footer is None:
        warning = "no footer: the run was cut short, these counts are partial"
    elif footer.get("interrupted"):
        warning = f"interrupted by {footer['interrupted']}: cases after it were not run"
    elif footer.get("stopped"):
        stopped = footer["stopped"]
        warning = f"stopped early (--maxfail {stopped['maxfail']}): {stopped['not_run']} cases not run"
    else:
        warning = ""
    return Source(path=report.path, engine=engine, started=str((report.header or {}).get("started") or ""), warning=warning)


def count(entries: Iterable[CaseEntry]) -> dict[str, int]:
    tally = Counter(entry.outcome for entry in entries)
    return {outcome: tally.get(outcome, 0) for outcome in OUTCOMES}


def make_cell(entries: Sequence[CaseEntry]) -> Cell:
    worst = sorted(entries, key=lambda entry: SEVERITY.index(entry.outcome) if entry.outcome in SEVERITY else len(SEVERITY))
    return Cell(counts=count(entries), cases=tuple(worst))


def chapters(entries: Sequence[CaseEntry], columns: Sequence[Column], rules: Mapping[str, RuleEntry],
             titles: Mapping[str, str] | None = None) -> tuple[Chapter, ...]:
    """Rows for the rules cited by some case, grouped by doc file in file-name order (the chapters' numbers),
    in spec order within one; unknown IDs last."""
    citing: dict[str, list[CaseEntry]] = {}
    for entry in entries:
        for rule in entry.line.get("rules") or []:
            citing.setdefault(str(rule), []).append(entry)
    known = [rule for rule in rules.values() if rule.id in citing]
    unknown = [RuleEntry(id=rule, title="", doc=OTHER_CHAPTER) for rule in sorted(citing) if rule not in rules]
    docs: dict[str, list[RuleRow]] = {}
    for rule in [*known, *unknown]:
        cells = tuple(make_cell([e for e in citing[rule.id] if e.column is column]) for column in columns)
        docs.setdefault(rule.doc, []).append(RuleRow(rule=rule, cells=cells))
    titles = titles or {}
    ordered = sorted(docs.items(), key=lambda item: (item[0] == OTHER_CHAPTER, item[0]))  # 00-, 01-, ... then unknown IDs
    return tuple(Chapter(doc=doc, title=titles.get(doc) or (doc if doc == OTHER_CHAPTER else chapter_title(doc)), rows=tuple(rows))
                 for doc, rows in ordered)


def group_entries(reports: Sequence[RunReport], entries: Sequence[CaseEntry], labels: Mapping[str, str]) -> list[GroupEntry]:
    """Each report's causes of failure, largest first across reports, linked to that report's cases."""
    found: list[GroupEntry] = []
    for report in reports:
        mine = {entry.id: entry for entry in entries if entry.source == report.path}
        for line in report.groups:
            linked = tuple(mine[case_id] for case_id in line.get("cases", []) if case_id in mine)
            found.append(GroupEntry(engine=labels[report.path], line=line, cases=linked))
    return sorted(found, key=lambda group: -int(group.line.get("count", 0)))
