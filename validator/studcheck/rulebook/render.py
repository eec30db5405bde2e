"""The rulebook as files: one page per chapter, an index, variants, glossary, search index, CSS, JS.

A chapter page carries the rules and a folded line per case; each case's drawing is a small script
of its own (cases/<ID>.js) that the page loads when the case is opened, and the search index one
that it loads when the search box is first used: a phone pays for the rules, not for every hand.

Jinja2 with autoescaping on everything; Markdown from the spec is escaped before it is marked up
(markdown.py), and case text is escaped before its cards are drawn (report/hands.py).
"""

from __future__ import annotations

import hashlib
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
from studcheck.rulebook.markdown import Linker, Slugger, inline, render, slug
from studcheck.rulebook.model import Book, Chapter, variant_rules
from studcheck.rulebook.results import EngineResult
from studcheck.rulebook.search import index_files

ASSETS = ("rulebook.css", "book.js", "search.js")
#: spec documents beside the chapters that rules link to, each drawn as a page of its own: document -> (page, title)
DOCS = {"README": ("about", "About the spec: scope and what is not covered"), "options": ("options", "Options"),
        "sources": ("sources", "Sources")}
#: where the case drawings go, one script per case
CASES_DIR = "cases"
#: the most blamed cases a rule's results list by ID (`--report`); the rest are counted ("and N more")
BLAMED_SHOWN = 12
#: the most cases an option's side-by-side lists per value (`betting: fixed_limit` is most of the suite)
LISTED_PER_VALUE = 20


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


def case_script(case_id: str) -> str:
    """The drawing's script, named by the case ID when it is a plain file name, else by its hash."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{0,80}", case_id):
        return f"{CASES_DIR}/{case_id}.js"
    return f"{CASES_DIR}/case-{hashlib.sha256(case_id.encode('utf-8')).hexdigest()[:16]}.js"


def script_call(function: str, *args: str) -> str:
    """`function("arg", ...);` with each argument a JSON string ("</" written "<\\/" all the same)."""
    return f"{function}(" + ", ".join(json.dumps(arg, ensure_ascii=False).replace("</", "<\\/") for arg in args) + ");\n"


class Site:
    def __init__(self, book: Book, results: Mapping[str, tuple[EngineResult, ...]] | None = None, results_from: str = "") -> None:
        """`results`/`results_from`: a run report's results per rule and what they were read from (`--report`)."""
        self.book = book
        self.results = results or {}
        self.results_from = results_from
        pages = {f"{chapter.name}.md": chapter.page for chapter in book.chapters}
        pages.update({f"{name}.md": f"{page}.html" for name, (page, _title) in DOCS.items()})
        self.linker = Linker(pages, {rule.id: rule.href for rule in book.rules.values()})
        self.env = environment()

    def md(self, text: str) -> Markup:
        return render(text, self.linker)

    def md_inline(self, text: str) -> Markup:
        return Markup(inline(text, self.linker))

    def md_doc(self, text: str) -> Markup:
        """A spec document: its headings carry GitHub's anchors, so that `options.md#not-covered-...` lands."""
        slugger = Slugger()
        return render(text, self.linker, heading=lambda level, title: (
            f'<h{level} id="{escape(slugger(title))}">{inline(title, self.linker)}</h{level}>'))

    def docs(self) -> dict[str, str]:
        """Page name -> the Markdown of the spec document drawn as that page."""
        return {f"{page}.html": (spec_dir() / f"{name}.md").read_text(encoding="utf-8") for name, (page, _title) in DOCS.items()}

    def pages(self) -> Iterator[tuple[str, str]]:
        common: dict[str, Any] = {"book": self.book, "md": self.md, "md_inline": self.md_inline, "version": __version__, "hand": hand_html,
                                  "comments": comments, "variants": variant_rules(self.book), "slug": slug,
                                  "results": self.results, "results_from": self.results_from, "case_script": case_script,
                                  "blamed_shown": BLAMED_SHOWN, "listed_per_value": LISTED_PER_VALUE}
        chapter_template = self.env.get_template("chapter.html.j2")
        for chapter in self.book.chapters:
            yield chapter.page, chapter_template.render(page_title=chapter.title, chapter=chapter, **common)
        doc_template = self.env.get_template("doc.html.j2")
        for name, (page, title) in DOCS.items():
            text = (spec_dir() / f"{name}.md").read_text(encoding="utf-8")
            yield f"{page}.html", doc_template.render(page_title=title, text=text, md_doc=self.md_doc, **common)
        for name in ("index", "variants", "glossary"):
            yield f"{name}.html", self.env.get_template(f"{name}.html.j2").render(page_title=name, **common)

    def case_scripts(self) -> Iterator[tuple[str, str]]:
        """(file, script) per case drawn on some page: the hand and the case file's comments."""
        template = self.env.get_template("case.html.j2")
        for case_id in sorted(self.book.case_home):
            case = self.book.cases[case_id]
            html = template.render(case=case, hand=hand_html, comments=comments)
            yield case_script(case_id), script_call("RULEBOOK_CASE", case_id, html)


def write_site(book: Book, directory: Path, results: Mapping[str, tuple[EngineResult, ...]] | None = None,
               results_from: str = "") -> tuple[int, int]:
    """Write every page, case drawing and asset into DIR; returns (files, bytes)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / CASES_DIR).mkdir(exist_ok=True)
    site = Site(book, results, results_from)
    files = total = 0

    def write(name: str, data: bytes) -> None:
        nonlocal files, total
        (directory / name).write_bytes(data)
        files, total = files + 1, total + len(data)

    for name, html in site.pages():
        write(name, html.encode("utf-8"))
    for name, script in site.case_scripts():
        write(name, script.encode("utf-8"))
    for name, text in index_files(book, site.docs()).items():
        write(name, text.encode("utf-8"))
    for asset in ASSETS:
        write(asset, resources.files("studcheck.rulebook").joinpath("templates").joinpath(asset).read_bytes())
    return files, total


__all__ = ["Chapter", "escape", "slug", "write_site"]
