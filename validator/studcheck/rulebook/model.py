"""What the rulebook shows, read from spec/ and cases/: chapters, rules, sources, options, cases.

Everything is read from the product's own files (spec/rules/*.md, rules.yaml, sources.md,
options.md, the loaded cases); templates only draw it.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from studcheck.cases.model import Case
from studcheck.export.write import every_option
from studcheck.rulebook.markdown import Slugger
from studcheck.rules import PROFILES, Options, Variant

RULE_HEADING = re.compile(r"^(#{2,4}) `([A-Z0-9][A-Z0-9.-]*)` — (.*)$")
#: a section heading that carries a rule ID: "`BRING-IN.TIE.SUIT` — Equal bring-in cards ..."
RULE_SECTION = re.compile(r"^`([A-Z0-9][A-Z0-9.-]*)` — (.*)$")
_TAG = re.compile(r"`([^`]+)`")


@dataclass(frozen=True, kw_only=True)
class Statement:
    """One row of sources.md's statement tables: a source text's words mapped to rules."""

    source: str
    number: str
    text: str
    note: str


@dataclass(frozen=True, kw_only=True)
class SourceRef:
    """A source tag a rule cites and the register's line on where it comes from."""

    tag: str
    source: str


@dataclass(frozen=True, kw_only=True)
class OptionEffect:
    """An option that changes a rule: its values, default, the profiles that set it, and the cases per value."""

    name: str
    values: tuple[str, ...]
    default: str
    profiles: tuple[tuple[str, str], ...]
    cases_by_value: tuple[tuple[str, tuple[Case, ...]], ...]


@dataclass(kw_only=True)
class Rule:
    id: str
    title: str
    chapter: str
    body: str
    variants: tuple[str, ...]
    refusal: bool
    sources: tuple[SourceRef, ...] = ()
    statements: tuple[Statement, ...] = ()
    options: tuple[OptionEffect, ...] = ()
    cases: tuple[Case, ...] = ()
    #: why and when the rule was retired (rules.yaml `retired`); its ID and anchor stay, its text is gone
    retired: str | None = None

    @property
    def href(self) -> str:
        return f"{self.chapter}#{self.id}"


@dataclass(kw_only=True)
class Section:
    """A part of a chapter: prose under a heading, or one rule."""

    heading: str
    level: int
    body: str
    rule: Rule | None = None
    #: the anchor of a prose section (GitHub's slug of its heading); a rule's anchor is its ID
    anchor: str = ""


@dataclass(kw_only=True)
class Chapter:
    name: str  # "04-bring-in"
    title: str
    intro: str
    sections: list[Section] = field(default_factory=list)

    @property
    def page(self) -> str:
        return f"{self.name}.html"

    @property
    def rules(self) -> list[Rule]:
        return [section.rule for section in self.sections if section.rule is not None]

    @property
    def case_ids(self) -> set[str]:
        """The cases this page lists (each once, under the first of its rules that cites it)."""
        return {case.id for rule in self.rules for case in rule.cases}


@dataclass(frozen=True, kw_only=True)
class Term:
    term: str
    definition: str
    chapter: Chapter


@dataclass(kw_only=True)
class Book:
    chapters: list[Chapter]
    rules: dict[str, Rule]
    terms: list[Term]
    cases: dict[str, Case]
    #: case ID -> the page whose drawing of it is the canonical one (its first citing rule's chapter)
    case_home: dict[str, str]
    profiles: dict[str, dict[str, Any]]


def parse_chapter(path: Path) -> Chapter:
    lines = path.read_text(encoding="utf-8").splitlines()
    title = next((line[2:].strip() for line in lines if line.startswith("# ")), path.stem)
    chapter = Chapter(name=path.stem, title=title, intro="")
    current: Section | None = None
    buffer: list[str] = []
    intro: list[str] = []
    started = False
    for line in lines:
        if line.startswith("# ") and not started:
            started = True
            continue
        heading = re.match(r"^(#{2,3}) (.*)$", line)
        if heading:
            if current is not None:
                current.body = "\n".join(buffer).strip()
                chapter.sections.append(current)
            elif buffer:
                intro = buffer
            buffer = []
            current = Section(heading=heading.group(2), level=len(heading.group(1)), body="")
            continue
        buffer.append(line)
    if current is not None:
        current.body = "\n".join(buffer).strip()
        chapter.sections.append(current)
    else:
        intro = buffer
    chapter.intro = "\n".join(intro).strip()
    slugger = Slugger()
    for section in chapter.sections:
        if not RULE_SECTION.match(section.heading):
            section.anchor = slugger(section.heading)
    return chapter


def parse_statements(text: str) -> dict[str, list[Statement]]:
    """sources.md's statement tables: rule ID -> the statements mapped to it."""
    by_rule: dict[str, list[Statement]] = {}
    source = None
    for line in text.splitlines():
        heading = re.match(r"^### `([^`]+)`", line)
        if heading:
            source = heading.group(1)
            continue
        if line.startswith("## "):
            source = None
        if source is None or not line.startswith("|") or line.startswith(("| #", "|---")):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3:
            continue
        statement = Statement(source=source, number=cells[0], text=cells[1], note=cells[3] if len(cells) > 3 else "")
        for rule in _TAG.findall(cells[2]):
            by_rule.setdefault(rule, []).append(statement)
    return by_rule


def parse_register(text: str) -> list[tuple[tuple[str, ...], str]]:
    """The source register: (tag patterns, "source — how to cite") per row."""
    rows: list[tuple[tuple[str, ...], str]] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = line.strip() == "## Source register"
            continue
        if not inside or not line.startswith("|") or line.startswith(("| Tag", "|---")):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        tags = tuple(re.sub(r"<[^>]+>.*$", "", tag).rstrip("-") for tag in _TAG.findall(cells[0]))
        rows.append((tags, cells[1]))
    return rows


def register_entry(tag: str, register: Sequence[tuple[tuple[str, ...], str]]) -> str:
    best, found = -1, ""
    for tags, source in register:
        for pattern in tags:
            if tag == pattern or tag.startswith(pattern + "-"):
                if len(pattern) > best:
                    best, found = len(pattern), source
    return found


def parse_option_rules(text: str) -> dict[str, list[str]]:
    """options.md's summary table: option -> the rule ID patterns it changes."""
    effects: dict[str, list[str]] = {}
    inside = False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = line.strip() == "## Summary"
            continue
        match = re.match(r"^\| `([a-z_]+)`(?: \(late\))? \|", line)
        if inside and match:
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            effects[match.group(1)] = [tag for tag in _TAG.findall(cells[3]) if re.match(r"^[A-Z]", tag)]
    return effects


def _json_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _option_value(options: Options, name: str) -> str:
    value = getattr(options, name)
    return _json_value(value.value if hasattr(value, "value") else value)


def option_effects(rule_id: str, citing: dict[str, list[Case]], option_rules: dict[str, list[str]]) -> tuple[OptionEffect, ...]:
    """The options that change `rule_id`; each with the cases of every rule it changes, grouped by value.

    Grouping the cases of all the rules one option changes puts BRING-IN.TIE.SUIT's cases beside
    BRING-IN.TIE.SEAT's: the same question answered under each value.
    """
    from studcheck.rules import option_values

    defaults = every_option(Options())
    values = option_values()
    effects = []
    for name, patterns in option_rules.items():
        if not any(fnmatch.fnmatchcase(rule_id, pattern) for pattern in patterns):
            continue
        default = _json_value(defaults[name])
        profiles = tuple((profile, _option_value(options, name)) for profile, options in PROFILES.items()
                         if _option_value(options, name) != default)
        changed = [other for other in citing if any(fnmatch.fnmatchcase(other, pattern) for pattern in patterns)]
        seen: dict[str, Case] = {}
        for other in changed:
            for case in citing[other]:
                seen.setdefault(case.id, case)
        groups: dict[str, list[Case]] = {}
        for case_id in sorted(seen):
            case = seen[case_id]
            groups.setdefault(_json_value(case.options.get(name, defaults[name])), []).append(case)
        effects.append(OptionEffect(name=name, values=tuple(_json_value(v) for v in values.get(name, [])), default=default,
                                    profiles=profiles,
                                    cases_by_value=tuple((value, tuple(group)) for value, group in sorted(groups.items()))))
    return tuple(effects)


def build_book(spec: Path, cases: Sequence[Case]) -> Book:
    index = yaml.safe_load((spec / "rules.yaml").read_text(encoding="utf-8"))["rules"]
    info = {entry["id"]: entry for entry in index}
    sources_text = (spec / "sources.md").read_text(encoding="utf-8")
    statements = parse_statements(sources_text)
    register = parse_register(sources_text)
    option_rules = parse_option_rules((spec / "options.md").read_text(encoding="utf-8"))
    citing: dict[str, list[Case]] = {}
    for case in sorted(cases, key=lambda c: c.id):
        for rule_id in case.rules:
            citing.setdefault(rule_id, []).append(case)
    chapters = [parse_chapter(path) for path in sorted((spec / "rules").glob("*.md"))]
    rules: dict[str, Rule] = {}
    terms: list[Term] = []
    for chapter in chapters:
        for section in chapter.sections:
            match = RULE_SECTION.match(section.heading)
            if match is None:
                terms.extend(_terms(section.body, chapter))
                continue
            rule_id = match.group(1)
            entry = info.get(rule_id, {})
            rule_cases = tuple(citing.get(rule_id, ()))
            section.rule = Rule(
                id=rule_id, title=match.group(2), chapter=chapter.page, body=section.body,
                variants=tuple(entry.get("variants", ())), refusal=bool(entry.get("refusal", False)),
                sources=tuple(SourceRef(tag=tag, source=register_entry(tag, register)) for tag in entry.get("sources", ())),
                statements=tuple(statements.get(rule_id, ())), cases=rule_cases,
                options=option_effects(rule_id, citing, option_rules))
            rules[rule_id] = section.rule
        terms.extend(_terms(chapter.intro, chapter))
    by_page = {chapter.name: chapter for chapter in chapters}
    for entry in index:  # a retired rule keeps its permalink: a section saying what replaced it
        home_chapter = by_page.get(Path(str(entry.get("doc", ""))).stem)
        if entry["id"] in rules or home_chapter is None:
            continue
        note = re.sub(r"(?<![`\w])([A-Z][A-Z0-9-]*(?:\.[A-Z0-9-]+)+)(?![`\w])",
                      lambda m: f"`{m.group(1)}`" if m.group(1) in info else m.group(0),
                      str(entry.get("retired") or "not in the rule documents"))
        rule = Rule(id=entry["id"], title=str(entry.get("title", "")), chapter=home_chapter.page, body="",
                    variants=tuple(entry.get("variants", ())), refusal=bool(entry.get("refusal", False)),
                    sources=tuple(SourceRef(tag=tag, source=register_entry(tag, register)) for tag in entry.get("sources", ())),
                    cases=tuple(citing.get(entry["id"], ())), retired=note)
        home_chapter.sections.append(Section(heading=f"`{rule.id}` — {rule.title}", level=3, body="", rule=rule))
        rules[rule.id] = rule
    home: dict[str, str] = {}
    for chapter in chapters:
        for rule in chapter.rules:
            for case in rule.cases:
                home.setdefault(case.id, chapter.page)
    profiles = {name: {key: _json_value(value) for key, value in every_option(options).items()}
                for name, options in PROFILES.items()}
    return Book(chapters=chapters, rules=rules, terms=sorted(terms, key=lambda t: t.term.lower()),
                cases={case.id: case for case in cases}, case_home=home, profiles=profiles)


def rule_pages(spec: Path) -> dict[str, str]:
    """Rule ID -> its permalink in the site, `<chapter page>#<ID>` (retired rules too), as the pages write it.

    Read from the same book the site is built from (without cases), so that a link from elsewhere (the
    HTML report's `--rulebook`) lands where the rule is, never on a second copy of the mapping.
    """
    return {rule.id: rule.href for rule in build_book(spec, ()).rules.values()}


def _terms(body: str, chapter: Chapter) -> list[Term]:
    """Glossary entries: list items that open with a **bold term**."""
    found = []
    for match in re.finditer(r"^- (?:\*\*([^*]+)\*\*|([A-Z][\w-]*) \*\*([^*]+)\*\*)([^\n]*(?:\n  [^\n]*)*)", body, re.MULTILINE):
        term = match.group(1) or match.group(3)
        found.append(Term(term=term.strip().rstrip(":"), definition=match.group(0)[2:].strip(), chapter=chapter))
    return found


def variant_rules(book: Book) -> dict[str, list[Rule]]:
    return {variant.value: [rule for rule in book.rules.values() if variant.value in rule.variants] for variant in Variant}
