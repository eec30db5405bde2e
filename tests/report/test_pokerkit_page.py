"""docs/conformance/pokerkit.md says what its page (docs/conformance/pokerkit/index.html) shows: the same
expected causes, in the same order, with the same rules and numbers of cases, and the same count of
expected failures and causes. Both are regenerated together (pokerkit.md, "Reproduce"); this fails when
one is and the other is not. The page in a browser: tests/browser/test_pokerkit_page_in_chromium.py.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "conformance"


def page_causes() -> tuple[str, str, list[tuple[str, int]]]:
    text = (DOCS / "pokerkit" / "index.html").read_text(encoding="utf-8")
    summary = text[text.index('<div id="summary">'):text.index('<div class="filters"')]
    expected = summary[summary.index('<ol class="causes expected">'):]
    causes = re.findall(r'<li class="cause"><a href="#rule-([^"]+)"><code>\1</code></a>.*?— <strong>(\d+) cases?</strong>', expected)
    headline = re.sub(r"<[^>]+>", "", re.search(r'<p class="headline">(.*?)</p>', summary, re.S).group(1))  # type: ignore[union-attr]
    return html.unescape(headline), summary, [(rule, int(count)) for rule, count in causes]


def doc_causes() -> list[tuple[str, int]]:
    text = (DOCS / "pokerkit.md").read_text(encoding="utf-8")
    table = text[text.index("### The expected causes"):text.index("\n\n", text.index("| cause | rule blamed"))]
    return [(rule, int(count)) for rule, count in re.findall(r"^\| \d+ \| `([^`]+)` \| (\d+) \|", table, re.M)]


def test_the_document_lists_the_causes_the_page_opens_with() -> None:
    headline, summary, causes = page_causes()
    assert causes and doc_causes() == causes
    found = re.search(r"(\d+) expected failures in (\d+) causes", headline)
    assert found and int(found.group(2)) == len(causes) and int(found.group(1)) == sum(count for _, count in causes)
    assert f"The {found.group(1)} expected failures fall into **{found.group(2)} causes**" in (DOCS / "pokerkit.md").read_text()
    assert "in no cause" not in summary  # every expected failure is in a cause
