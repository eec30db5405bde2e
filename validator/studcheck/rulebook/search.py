"""The search index: every rule, case, glossary term and section of the site, and the synonym table.

Written once as `search-index.js` (a file:// page cannot fetch() JSON, so it is a script the page
loads the first time the search box is used) and as `search-index.json` for tools. The ranking is
templates/search.js's: rule IDs and titles weigh more than body text, typos are tolerated, and the
hand-written synonyms (synonyms.py) lead trade words to the rules they mean.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from studcheck.rulebook.markdown import Slugger, plain, sections, slug
from studcheck.rulebook.model import Book
from studcheck.rulebook.synonyms import table

FIELDS = ("kind", "id", "title", "url", "text")
#: a long section (the statement tables of sources.md) is searched by its first words only
SECTION_TEXT = 1500


def not_covered(body: str) -> Iterator[tuple[str, str, str]]:
    """(topic, title, text) of what a "not covered" section leaves out: its table rows, its bold-led items."""
    for line in body.splitlines():
        if line.startswith("|") and not line.startswith(("|---", "| Topic")):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) >= 3:
                yield plain(cells[0]), plain(cells[2]), plain(cells[1])
    for match in re.finditer(r"^- \*\*([^*]+)\*\*([^\n]*(?:\n  [^\n]*)*)", body, re.MULTILINE):
        text = plain(match.group(2))
        yield match.group(1).strip().rstrip(".:"), text[:160], text


def doc_entries(page: str, text: str) -> Iterator[dict[str, str]]:
    """A spec document drawn as a page: one entry per section, and one per thing a "not covered" section names."""
    slugger = Slugger()
    for _level, title, body in sections(text):
        anchor = slugger(title)
        url = f"{page}#{anchor}"
        yield {"kind": "section", "id": plain(title), "title": page, "url": url, "text": plain(body)[:SECTION_TEXT]}
        if "not covered" in title.lower():
            for topic, why, said in not_covered(body):
                yield {"kind": "not covered", "id": topic, "title": why, "url": url, "text": said}


def entries(book: Book, docs: dict[str, str]) -> list[dict[str, str]]:
    """Every entry of the index. `docs`: page name -> the Markdown of a spec document drawn as that page."""
    found: list[dict[str, str]] = []
    for chapter in book.chapters:
        for section in chapter.sections:
            rule = section.rule
            if rule is not None:
                found.append({"kind": "retired rule" if rule.retired else "rule", "id": rule.id, "title": rule.title,
                              "url": rule.href, "text": plain(rule.retired or rule.body)})
            else:
                found.append({"kind": "section", "id": plain(section.heading), "title": chapter.title,
                              "url": f"{chapter.page}#{section.anchor}", "text": plain(section.body)[:SECTION_TEXT]})
    for case_id, case in sorted(book.cases.items()):
        home = book.case_home.get(case_id)
        if home is not None:
            found.append({"kind": "case", "id": case_id, "title": case.title, "url": f"{home}#case-{case_id}",
                          "text": " ".join(case.rules)})
    for term in book.terms:
        found.append({"kind": "term", "id": term.term, "title": plain(term.definition)[:160],
                      "url": f"glossary.html#term-{slug(term.term)}", "text": plain(term.definition)})
    for page, text in docs.items():
        found.extend(doc_entries(page, text))
    return found


def index(book: Book, docs: dict[str, str]) -> dict[str, object]:
    """The index as the page reads it: the entries as rows of FIELDS (smaller than objects), and the synonyms."""
    rows = [[entry[field] for field in FIELDS] for entry in entries(book, docs)]
    return {"fields": list(FIELDS), "entries": rows, "synonyms": table()}


def index_files(book: Book, docs: dict[str, str]) -> dict[str, str]:
    """search-index.json and search-index.js (the same index as a script that sets window.RULEBOOK_INDEX)."""
    payload = json.dumps(index(book, docs), ensure_ascii=False, separators=(",", ":"))
    script = "window.RULEBOOK_INDEX = " + payload.replace("</", "<\\/") + ";\n"
    return {"search-index.json": payload + "\n", "search-index.js": script}
