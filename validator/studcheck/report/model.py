"""The report model: counts per rule and per engine/variant column, the failing cases, the causes.

Pure functions from parsed JSONL reports (load.py) and the rule index, so the numbers on the page
are tested without rendering anything. Shards of one engine (same name and version) merge into the
same columns; different engines or versions get their own.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from studcheck.report.load import RunReport
from studcheck.resources import data_root, spec_dir
from studcheck.safe_text import file_safe

#: outcomes in the order of the report's tables
OUTCOMES = ("pass", "fail", "error", "not_applicable", "xfail", "xpass")
#: outcomes that get a section of their own on the page (expected vs actual, stderr, replay)
DETAILED = frozenset({"fail", "error", "xpass", "xfail"})
#: the most telling case of a cell first: it is the one the cell links to
SEVERITY = ("error", "fail", "xpass", "xfail", "pass", "not_applicable")
#: outcomes whose case names a broken rule (blame) when the report has blame fields
BLAMEABLE = frozenset({"fail", "error", "xfail"})
#: a cell's category of a case, as the page's script reads it from data-k: b blamed (the rule broken here),
#: x blamed but expected (xfail), a affected (not passing, cites the rule, broke another or none named),
#: p pass (and xpass), n not applicable
CATEGORIES = ("b", "x", "a", "p", "n")
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
    index: int = 0  # position in Model.entries: the matrix cells name their cases by it (the filters recount them)

    @property
    def id(self) -> str:
        return str(self.line["id"])

    @property
    def outcome(self) -> str:
        return str(self.line["outcome"])

    @property
    def blamed(self) -> str | None:
        """The rule this case's engine broke (blame[0]: the rule the reference applied to the first fact that
        differs), for a failing or expected-failing case of a report that blames; else None."""
        blame = self.line.get("blame") or []
        return str(blame[0]) if blame and self.outcome in BLAMEABLE else None

    @property
    def where(self) -> str:
        """The step where the engine diverged, as the case file states it."""
        step, text = self.line.get("step"), self.line.get("step_text")
        if step is not None:
            return f"step {int(step) + 1}: {text}" if text else f"step {int(step) + 1}"
        return str(text or "setup")


@dataclass(frozen=True, kw_only=True)
class Cell:
    """The cases of one column citing one rule: counts per outcome and per category, worst case first.

    Red means BLAMED: a failing case's first differing fact was decided by this rule. A case that only
    cites the rule (it failed on another rule, or its report names no blame) is "affected", not red.
    """

    rule: str
    counts: Mapping[str, int]
    cases: tuple[CaseEntry, ...]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def category(self, entry: CaseEntry) -> str:
        if entry.outcome in ("pass", "xpass"):  # an unexpected pass followed the rule: its stale xfail entry is said elsewhere
            return "p"
        if entry.outcome == "not_applicable":
            return "n"
        if entry.blamed == self.rule:
            return "x" if entry.outcome == "xfail" else "b"
        return "a"

    @property
    def categories(self) -> Mapping[str, int]:
        tally = Counter(self.category(entry) for entry in self.cases)
        return {category: tally.get(category, 0) for category in CATEGORIES}

    @property
    def tokens(self) -> str:
        """data-k: `<index><category>` per case, for the filters to recount the cell in the browser."""
        return " ".join(f"{entry.index}{self.category(entry)}" for entry in self.cases)

    @property
    def summary(self) -> tuple[tuple[int, str], ...]:
        """The non-zero categories as (count, word), the broken rule first: a wide matrix stays readable."""
        tally = self.categories
        return tuple((tally[category], WORDS[category]) for category in CATEGORIES if tally[category])

    @property
    def css(self) -> str:
        """Colour class: red only where the rule is blamed; calm "affected" where cases only cite it."""
        tally = self.categories
        for category, css in (("b", "fail"), ("x", "xfail"), ("a", "affected"), ("p", "pass"), ("n", "na")):
            if tally[category]:
                return css
        return "empty"

    @property
    def problem(self) -> bool:
        """A cell of a rule with problems: some case blamed on it or affected (the "only problems" filter)."""
        tally = self.categories
        return bool(tally["b"] or tally["x"] or tally["a"])

    @property
    def target(self) -> CaseEntry | None:
        """The case the cell links to: a case blamed here first, then the worst."""
        return self.cases[0] if self.cases else None


#: what a cell says of each category
WORDS = {"b": "broken", "x": "broken (xfail)", "a": "affected", "p": "pass", "n": "n/a"}


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
class WayEntry:
    """One way a cause showed (a street, a request): its first difference there and its cases."""

    key: str
    cases: tuple[CaseEntry, ...]
    representative: CaseEntry | None

    @property
    def count(self) -> int:
        return len(self.cases)


@dataclass(frozen=True, kw_only=True)
class GroupEntry:
    """A cause of failure of one engine (a `group` line), with links to the cases it covers."""

    engine: str
    line: Mapping[str, Any]
    cases: tuple[CaseEntry, ...]

    @property
    def expected(self) -> bool:
        """A cause of expected failures: marked so, or (a report without the mark) all its cases xfail."""
        if "expected" in self.line:
            return bool(self.line["expected"])
        outcomes = self.line.get("outcomes") or {}
        return bool(outcomes) and set(outcomes) <= {"xfail"}

    @cached_property
    def ways(self) -> tuple[WayEntry, ...]:
        """The ways one cause showed (`ways` of the group line), largest first; () when it showed one way."""
        by_id = {case.id: case for case in self.cases}
        found = []
        for way in self.line.get("ways") or []:
            cases = tuple(by_id[case_id] for case_id in way.get("cases", []) if case_id in by_id)
            found.append(WayEntry(key=str(way.get("key", "")), cases=cases,
                                  representative=by_id.get(str(way.get("representative")), cases[0] if cases else None)))
        return tuple(found)

    def way_of(self, case: CaseEntry) -> WayEntry | None:
        """The way this case of the cause showed it, when the cause showed in several."""
        return next((way for way in self.ways if any(entry is case for entry in way.cases)), None)

    @property
    def blamed(self) -> str | None:
        """The rule the engine broke (the group's blame, else its representative's); None in older reports."""
        blame = self.line.get("blame") or []
        if blame:
            return str(blame[0])
        representative = self.representative
        return representative.blamed if representative is not None else None

    @property
    def representative(self) -> CaseEntry | None:
        wanted = self.line.get("representative")
        return next((case for case in self.cases if case.id == wanted), self.cases[0] if self.cases else None)

    @property
    def count(self) -> int:
        return int(self.line.get("count") or len(self.cases))


@dataclass(frozen=True, kw_only=True)
class Source:
    """One input report: which engine, when, and whether the run finished (a killed run has no footer)."""

    path: str
    engine: str
    started: str
    warning: str  # "" for a complete run; else why its counts are partial
    shard: str = ""  # "shard 2 of 4" for `run --shard`
    blame: bool = False  # its lines name the rule broken (newer reports); else cells show "affected" only


@dataclass(frozen=True, kw_only=True)
class EngineSummary:
    """The first screen for one engine: a bar per variant, its causes of failure and of expected failure."""

    label: str
    slug: str  # in file names (badge-<slug>.svg) and anchors
    sources: tuple[Source, ...]
    columns: tuple[Column, ...]
    totals: Mapping[str, int]  # over all its variants
    causes: tuple[GroupEntry, ...]  # fail/error causes, largest first
    expected: tuple[GroupEntry, ...]  # xfail causes, largest first
    ungrouped: Mapping[str, int]  # non-passing cases in no cause, by outcome (older reports' xfails; xpass)

    @property
    def failing(self) -> int:
        return self.totals["fail"] + self.totals["error"]

    @property
    def applicable(self) -> int:
        return sum(self.totals.values()) - self.totals["not_applicable"]

    @property
    def blame(self) -> bool:
        return all(source.blame for source in self.sources)

    def causes_in(self, column: Column) -> tuple[int, int]:
        """(failing causes, expected-failure causes) with a case in this column's variant."""
        def touches(group: GroupEntry) -> bool:
            return column.variant in (group.line.get("variants") or {}) or any(c.column is column for c in group.cases)

        return sum(map(touches, self.causes)), sum(map(touches, self.expected))


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
    histories: Mapping[str, str]  # anchor -> its hand as `studcheck show` prints it, the divergence marked (full cases found)
    engines: tuple[EngineSummary, ...] = ()
    full: frozenset[str] = frozenset()  # anchors of the detailed cases drawn in full (hand, stderr); the rest get one row
    column_sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # column key -> input files forming it
    cause_of: Mapping[str, GroupEntry] = field(default_factory=dict)  # anchor -> the cause (group) it belongs to

    @property
    def compact(self) -> int:
        return len(self.detailed) - len(self.full)

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


def double_counted(reports: Sequence[RunReport]) -> str | None:
    """Why these reports would count some case twice, or None.

    Two inputs of the same engine (name, version and command) that both hold a case of one variant
    would add its outcome twice to one column: a run given twice, a merged report beside one of its
    shards, two full runs of one engine. The page is refused rather than doubled.
    """
    seen: dict[tuple[str, str, str, str, str], int] = {}
    for number, report in enumerate(reports):
        identity = engine_of(report)
        for line in report.cases:
            key = (*identity, str(line["variant"]), str(line["id"]))
            if seen.setdefault(key, number) != number:
                first = reports[seen[key]].path
                name = f"{identity[0]} {identity[1]}".strip()
                same = "is given twice" if Path(first).resolve() == Path(report.path).resolve() else "are both given"
                return (f"{first} and {report.path} {same} and both hold case {line['id']} ({line['variant']}) of "
                        f"engine {name} ({identity[2] or 'no command'}): its counts would be doubled. Give each run "
                        f"once: either the merged report or its shards (`studcheck merge` joins shards), not both.")
    return None


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


#: detailed cases outside any cause drawn in full per engine; the rest get one row each (the page stays small)
UNGROUPED_FULL = 20


def build_model(reports: Sequence[RunReport], rules: Mapping[str, RuleEntry],
                titles: Mapping[str, str] | None = None, histories: Mapping[str, str] | None = None) -> Model:
    """The whole page's data. `titles`: chapter titles by doc file (default: read from the docs);
    `histories`: hand histories by anchor (hands.histories; none in the unit tests)."""
    columns: dict[tuple[str, str], Column] = {}
    column_sources: dict[str, list[str]] = {}
    entries: list[CaseEntry] = []
    anchors: Counter[str] = Counter()
    labels = engine_labels(reports)
    for report in reports:
        name, version, _ = engine_of(report)
        for line in report.cases:
            key = (labels[report.path], str(line["variant"]))
            column = columns.setdefault(key, Column(key=f"c{len(columns) + 1}", engine=name, version=version,
                                                    variant=key[1], label=key[0]))
            if report.path not in column_sources.setdefault(column.key, []):
                column_sources[column.key].append(report.path)
            anchor = _anchor(f"case-{column.key}-{line['id']}")
            anchors[anchor] += 1
            entries.append(CaseEntry(anchor=anchor if anchors[anchor] == 1 else f"{anchor}-{anchors[anchor]}",
                                     column=column, line=line, source=report.path, index=len(entries)))
    ordered = tuple(columns.values())
    sources = tuple(source(report, labels[report.path]) for report in reports)
    groups = tuple(group_entries(reports, entries, labels))
    cause_of = {case.anchor: group for group in groups for case in group.cases}
    full = full_cases([e for e in entries if e.outcome in DETAILED], groups)
    rank = {id(group): number for number, group in enumerate(sorted(groups, key=lambda g: g.expected))}

    first_column = {column.label: int(column.key[1:]) for column in reversed(columns.values())}

    def order(entry: CaseEntry) -> tuple[int, int, bool, int, int]:
        """By engine, then cause by cause (failures before expected ones; none last), its drawn case first."""
        group = cause_of.get(entry.anchor)
        return (first_column[entry.column.label], rank[id(group)] if group else len(rank), entry.anchor not in full,
                int(entry.column.key[1:]), entry.index)

    detailed = tuple(sorted((e for e in entries if e.outcome in DETAILED), key=order))
    return Model(sources=sources, columns=ordered,
                 chapters=chapters(entries, ordered, rules, titles, full),
                 entries=tuple(entries), detailed=detailed, groups=groups,
                 not_applicable=tuple((labels[report.path], line) for report in reports for line in report.not_applicable),
                 totals={column.key: count([e for e in entries if e.column is column]) for column in ordered},
                 histories=dict(histories or {}),
                 engines=engine_summaries(sources, ordered, entries, groups),
                 full=full, cause_of=cause_of,
                 column_sources={key: tuple(paths) for key, paths in column_sources.items()})


def full_cases(detailed: Sequence[CaseEntry], groups: Sequence[GroupEntry]) -> frozenset[str]:
    """Anchors drawn in full: each cause's representative, and the first UNGROUPED_FULL detailed cases of an
    engine that belong to no cause (an older report's xfails, an xpass)."""
    grouped = {case.anchor for group in groups for case in group.cases}
    full = {group.representative.anchor for group in groups if group.representative is not None}
    drawn: Counter[str] = Counter()
    for entry in detailed:
        if entry.anchor not in grouped and drawn[entry.column.label] < UNGROUPED_FULL:
            drawn[entry.column.label] += 1
            full.add(entry.anchor)
    return frozenset(full)


def slug(label: str) -> str:
    """An engine label as the badge's file name and the page's anchor say it (`badge-<slug>.svg`):
    in lower case, runs of other characters as `-` (docs/report.md), bounded by `file_safe` (a
    long name is cut and ends in a hash of the whole, so the file can be written)."""
    return file_safe(re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") or "engine")


def engine_summaries(sources: Sequence[Source], columns: Sequence[Column], entries: Sequence[CaseEntry],
                     groups: Sequence[GroupEntry]) -> tuple[EngineSummary, ...]:
    """One summary per engine label, in column order; slugs made unique."""
    labels = list(dict.fromkeys(column.label for column in columns))
    labels += [source.engine for source in sources if source.engine not in labels]  # a run with no case line
    taken: set[str] = set()
    found = []
    for label in labels:
        mine = [entry for entry in entries if entry.column.label == label]
        causes = sorted((g for g in groups if g.engine == label), key=lambda g: -g.count)
        grouped = {case.anchor for group in causes for case in group.cases}
        ungrouped = Counter(e.outcome for e in mine if e.outcome in DETAILED and e.anchor not in grouped)
        found.append(EngineSummary(
            label=label, slug=_unique(slug(label), taken),
            sources=tuple(s for s in sources if s.engine == label),
            columns=tuple(c for c in columns if c.label == label), totals=count(mine),
            causes=tuple(g for g in causes if not g.expected), expected=tuple(g for g in causes if g.expected),
            ungrouped={outcome: ungrouped[outcome] for outcome in OUTCOMES if ungrouped[outcome]}))
    return tuple(found)


def _unique(base: str, taken: set[str]) -> str:
    """`base`, or `base-2`, `base-3` ... the first no other engine of the page has (two labels can
    give one slug: `My Engine` and `my-engine`); added to `taken`."""
    name, number = base, 1
    while name in taken:
        number += 1
        name = file_safe(f"{base}-{number}")
    taken.add(name)
    return name


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
    shard = (report.header or {}).get("shard") or {}
    lines = [*report.cases, *report.groups]
    return Source(path=report.path, engine=engine, started=str((report.header or {}).get("started") or ""), warning=warning,
                  shard=f"shard {shard['index']} of {shard['count']}" if shard else "",
                  blame=any("blame" in line for line in lines))


def count(entries: Iterable[CaseEntry]) -> dict[str, int]:
    tally = Counter(entry.outcome for entry in entries)
    return {outcome: tally.get(outcome, 0) for outcome in OUTCOMES}


def make_cell(rule: str, entries: Sequence[CaseEntry], full: frozenset[str] = frozenset()) -> Cell:
    """Cases blamed on the rule first, then the worst outcome, then those drawn in full (the link lands on a hand)."""
    def rank(entry: CaseEntry) -> tuple[bool, int, bool]:
        return (entry.blamed != rule, SEVERITY.index(entry.outcome) if entry.outcome in SEVERITY else len(SEVERITY),
                entry.anchor not in full)

    return Cell(rule=rule, counts=count(entries), cases=tuple(sorted(entries, key=rank)))


def chapters(entries: Sequence[CaseEntry], columns: Sequence[Column], rules: Mapping[str, RuleEntry],
             titles: Mapping[str, str] | None = None, full: frozenset[str] = frozenset()) -> tuple[Chapter, ...]:
    """Rows for the rules cited by some case, grouped by doc file in file-name order (the chapters' numbers),
    in spec order within one; unknown IDs last."""
    citing: dict[str, list[CaseEntry]] = {}
    for entry in entries:  # a case counts under the rules it cites and under the rule it broke (blame may name another)
        for rule_id in dict.fromkeys([*map(str, entry.line.get("rules") or []), *([entry.blamed] if entry.blamed else [])]):
            citing.setdefault(rule_id, []).append(entry)
    known = [rule for rule in rules.values() if rule.id in citing]
    unknown = [RuleEntry(id=rule, title="", doc=OTHER_CHAPTER) for rule in sorted(citing) if rule not in rules]
    docs: dict[str, list[RuleRow]] = {}
    for rule in [*known, *unknown]:
        cells = tuple(make_cell(rule.id, [e for e in citing[rule.id] if e.column is column], full) for column in columns)
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
