"""The rulebook as files: one page per chapter, an index, variants, glossary, search index, CSS, JS.

Jinja2 with autoescaping on everything; Markdown from the spec is escaped before it is marked up
(markdown.py), and case text is escaped before its cards are drawn (report/hands.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup, escape

from studcheck import __version__
from studcheck.cases.model import Case
from studcheck.cases.show import render as show_text
from studcheck.report.hands import cards_html
from studcheck.resources import data_root, spec_dir
from studcheck.rulebook.markdown import Linker, inline, plain, render
from studcheck.rulebook.model import Book, Chapter, variant_rules
from studcheck.rulebook.results import EngineResult

ASSETS = ("rulebook.css", "search.js")
#: spec documents beside the chapters that rules link to, each drawn as a page of its own
DOCS = ("options", "sources")


def environment() -> Environment:
    return Environment(loader=PackageLoader("studcheck.rulebook", "templates"),
                       autoescape=select_autoescape(default=True, default_for_string=True),
                       undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)


def relative(path: Path) -> str:
    try:
        return path.resolve().relative_to(data_root().resolve()).as_posix()
    except ValueError:
        return path.name


def hand_html(case: Case) -> Markup:
    """`studcheck show`'s drawing of the case (the reference engine plays it), cards drawn as cards."""
    text = show_text(case).replace(str(case.path), relative(case.path))
    return cards_html(text)


def comments(case: Case) -> list[tuple[int, str]]:
    """The case file's own comments (line, text), the editor's schema line left out."""
    try:
        lines = case.path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    found = []
    for number, line in enumerate(lines, start=1):
        match = re.search(r"(?:^|\s)#\s?(.*)$", line)
        if match is None or "yaml-language-server" in line:
            continue
        before = line[: match.start()]
        if before.count("'") % 2 or before.count('"') % 2:  # a '#' inside a quoted string
            continue
        found.append((number, match.group(1)))
    return found


class Site:
    def __init__(self, book: Book, results: Mapping[str, tuple[EngineResult, ...]] | None = None, results_from: str = "") -> None:
        """`results`/`results_from`: a run report's results per rule and what they were read from (`--report`)."""
        self.book = book
        self.results = results or {}
        self.results_from = results_from
        pages = {f"{chapter.name}.md": chapter.page for chapter in book.chapters}
        pages.update({f"{name}.md": f"{name}.html" for name in DOCS})
        self.linker = Linker(pages, {rule.id: rule.href for rule in book.rules.values()})
        self.env = environment()

    def md(self, text: str) -> Markup:
        return render(text, self.linker)

    def md_inline(self, text: str) -> Markup:
        return Markup(inline(text, self.linker))

    def pages(self) -> Iterator[tuple[str, str]]:
        common: dict[str, Any] = {"book": self.book, "md": self.md, "md_inline": self.md_inline, "version": __version__, "hand": hand_html,
                                  "comments": comments, "variants": variant_rules(self.book), "slug": slug,
                                  "results": self.results, "results_from": self.results_from}
        chapter_template = self.env.get_template("chapter.html.j2")
        for chapter in self.book.chapters:
            yield chapter.page, chapter_template.render(page_title=chapter.title, chapter=chapter, **common)
        doc_template = self.env.get_template("doc.html.j2")
        for name in DOCS:
            text = (spec_dir() / f"{name}.md").read_text(encoding="utf-8")
            yield f"{name}.html", doc_template.render(page_title=name, text=text, **common)
        for name in ("index", "variants", "glossary"):
            yield f"{name}.html", self.env.get_template(f"{name}.html.j2").render(page_title=name, **common)

    def search_index(self) -> list[dict[str, str]]:
        entries = []
        for chapter in self.book.chapters:
            for rule in chapter.rules:
                entries.append({"kind": "retired rule" if rule.retired else "rule", "id": rule.id, "title": rule.title, "url": rule.href,
                                "text": plain(rule.body)[:600]})
        for case_id, case in sorted(self.book.cases.items()):
            home = self.book.case_home.get(case_id)
            if home is not None:
                entries.append({"kind": "case", "id": case_id, "title": case.title, "url": f"{home}#case-{case_id}",
                                "text": " ".join(case.rules)})
        for term in self.book.terms:
            entries.append({"kind": "term", "id": term.term, "title": plain(term.definition)[:120],
                            "url": f"glossary.html#term-{slug(term.term)}", "text": ""})
        return entries


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def write_site(book: Book, directory: Path, results: Mapping[str, tuple[EngineResult, ...]] | None = None,
               results_from: str = "") -> tuple[int, int]:
    """Write every page and asset into DIR; returns (files, bytes)."""
    directory.mkdir(parents=True, exist_ok=True)
    site = Site(book, results, results_from)
    files = total = 0
    for name, html in site.pages():
        data = html.encode("utf-8")
        (directory / name).write_bytes(data)
        files, total = files + 1, total + len(data)
    index = site.search_index()
    payload = json.dumps(index, ensure_ascii=False, separators=(",", ":"))
    # file:// pages cannot fetch() a JSON file, so the same index also comes as a script
    script = "window.RULEBOOK_INDEX = " + payload.replace("</", "<\\/") + ";\n"
    for name, text in (("search-index.json", payload + "\n"), ("search-index.js", script)):
        data = text.encode("utf-8")
        (directory / name).write_bytes(data)
        files, total = files + 1, total + len(data)
    for asset in ASSETS:
        data = resources.files("studcheck.rulebook").joinpath("templates").joinpath(asset).read_bytes()
        (directory / asset).write_bytes(data)
        files, total = files + 1, total + len(data)
    return files, total


__all__ = ["Chapter", "escape", "slug", "write_site"]
