"""The rulebook built from the whole bundled suite: what its search index holds, and what a chapter page weighs.

How the index ranks is tested in Chromium (tests/browser/test_rulebook_in_chromium.py); here, that the
index has every entry the questions need and that the hand-written synonyms lead somewhere.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from studcheck.cli import main
from studcheck.rulebook.synonyms import SYNONYMS

#: the most a chapter page may weigh when opened: its HTML and every script and stylesheet it loads. Before
#: the hands were drawn on demand and the search index loaded on first use, 05-betting.html was 882,243 bytes
#: of HTML plus 253,195 of scripts and CSS (the index, 247,376, on every page), and the lightest chapter,
#: 00-conventions.html, 288,664 in all; now 05-betting.html is about 170,000 in all and 00-conventions 36,000.
CHAPTER_BYTES = 200 * 1024


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rulebook") / "site"
    assert main(["rulebook", "-o", str(root)]) == 0
    return root


@pytest.fixture(scope="module")
def entries(site: Path) -> list[dict[str, str]]:
    index = json.loads((site / "search-index.json").read_text(encoding="utf-8"))
    return [dict(zip(index["fields"], row, strict=True)) for row in index["entries"]]


def loaded_at_open(site: Path, page: Path) -> dict[str, int]:
    """The files a page loads when opened (itself, its stylesheets and scripts) and their sizes."""
    html = page.read_text(encoding="utf-8")
    names = [page.name, *re.findall(r'<link rel="stylesheet" href="([^"]+)"', html), *re.findall(r'<script src="([^"]+)"', html)]
    return {name: (site / name).stat().st_size for name in names}


def test_every_chapter_page_is_light(site: Path) -> None:
    weights = {page.name: loaded_at_open(site, page) for page in sorted(site.glob("[0-9][0-9]-*.html"))}
    assert len(weights) >= 17
    heavy = {name: sum(files.values()) for name, files in weights.items() if sum(files.values()) > CHAPTER_BYTES}
    assert heavy == {}
    assert all("search-index.js" not in files for files in weights.values())  # loaded when the search is used
    assert not [name for name in weights if 'class="hand"' in (site / name).read_text(encoding="utf-8")]  # drawn on demand


def test_every_synonym_leads_to_an_entry_of_the_index(entries: list[dict[str, str]]) -> None:
    """A renamed rule or a reworded "not covered" topic would silently turn a synonym into nothing."""
    ids = {entry["id"] for entry in entries}
    missing = {target for synonym in SYNONYMS for target in synonym.targets if target not in ids}
    assert missing == set()
    phrases = [phrase for synonym in SYNONYMS for phrase in synonym.phrases]
    assert len(phrases) == len(set(phrases)) and all(phrase == phrase.lower().strip() for phrase in phrases)
    assert all(synonym.targets or synonym.words for synonym in SYNONYMS)


def test_what_the_spec_does_not_cover_is_in_the_index(entries: list[dict[str, str]]) -> None:
    not_covered = {entry["id"]: entry["url"] for entry in entries if entry["kind"] == "not covered"}
    assert not_covered["Kill pots"] == "about.html#scope-and-what-is-not-covered"
    assert not_covered["Exposed down cards on the initial deal"] == "options.html#not-covered-deliberately-not-options"
    exposed = next(entry for entry in entries if entry["id"] == "Exposed down cards on the initial deal")
    assert "misdeal" in exposed["text"]


def test_every_entry_lands_on_an_anchor_that_exists(site: Path, entries: list[dict[str, str]]) -> None:
    anchors: dict[str, set[str]] = {}
    for entry in entries:
        page, _, anchor = entry["url"].partition("#")
        if page not in anchors:
            anchors[page] = set(re.findall(r' id="([^"]+)"', (site / page).read_text(encoding="utf-8")))
        assert anchor in anchors[page], entry
    kinds = {entry["kind"] for entry in entries}
    assert kinds >= {"rule", "case", "term", "section", "not covered"}
