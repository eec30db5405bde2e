"""`studcheck rulebook` in a real browser: headless Chromium (Debian's `chromium`) driven by Playwright.

The site is built from the bundled suite plus one hostile case (HTML in its title, note and
comments). Skips when Chromium or Playwright is missing, unless STUDCHECK_REQUIRE_BROWSER=1 (CI).
Tried as a tournament director would: questions in the words of the trade, a chapter printed, a
link to a case followed, the results of a run with hundreds of failures read on a phone.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from studcheck.cli import main
from studcheck.resources import cases_dir, spec_dir

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
TITLE = "<script>alert(1)</script> a hostile title"
COMMENT = "<img src=x onerror=alert(2)> a hostile comment"
HOSTILE = f"""id: SH-WSP-903
title: "{TITLE}"
rules: [BRING-IN.CARD.LOW]
tags: [bring-in]
variant: stud_high
note: "<b>not bold</b> & <i>not italic</i>"
stakes: {{ante: 1, bring_in: 2, small_bet: 5, big_bet: 10}}
# {COMMENT}
seats:
  1: {{stack: 100, cards: Kh Qh As}}
  2: {{stack: 100, cards: 9c 8c 3d}}
steps:
  - expect: {{to_act: 2}}
"""


pytestmark = pytest.mark.browser  # opt-in: `pytest -m browser` (pyproject.toml)


def _unavailable(why: str) -> None:
    if os.environ.get("STUDCHECK_REQUIRE_BROWSER") == "1":
        pytest.fail(f"STUDCHECK_REQUIRE_BROWSER=1 but {why}")
    pytest.skip(why)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = os.environ.get("STUDCHECK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not executable:
        _unavailable("no chromium on PATH (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install '.[browser]')")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rulebook")
    hostile = root / "hostile.yaml"
    hostile.write_text(HOSTILE, encoding="utf-8")
    assert main(["rulebook", "-o", str(root / "site"), "--cases", str(cases_dir()), "--cases", str(hostile)]) == 0
    return root / "site"


@pytest.fixture(scope="module")
def rule_docs() -> dict[str, str]:
    """rules.yaml: rule ID -> the page its chapter becomes (the permalink every reader may keep)."""
    rules = yaml.safe_load((spec_dir() / "rules.yaml").read_text(encoding="utf-8"))["rules"]
    return {rule["id"]: Path(rule["doc"]).stem + ".html" for rule in rules}


class Watched:
    def __init__(self, browser: Any, *, width: int = 1280, height: int = 900) -> None:
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))

    def open(self, url: str) -> Any:
        self.page.goto(url)
        return self.page

    def close(self) -> None:
        self.page.close()


def test_every_rule_is_reachable_at_its_permanent_anchor_and_every_page_fits_a_phone(
        browser: Any, site: Path, rule_docs: dict[str, str]) -> None:
    watched = Watched(browser, width=390, height=800)
    page = watched.open((site / "index.html").as_uri())
    chapters = page.eval_on_selector_all("ol.chapters a", "links => links.map(a => a.getAttribute('href'))")
    others = ["index.html", "variants.html", "glossary.html", "options.html", "sources.html", "about.html"]
    found: dict[str, str] = {}
    overflow: dict[str, int] = {}
    drawn: list[str] = []  # a case's drawing is the same file on every page: each is opened on one page
    for name in [*chapters, *others]:
        page = watched.open((site / name).as_uri())
        for rule_id in page.eval_on_selector_all("section.rule", "sections => sections.map(s => s.id)"):
            found[rule_id] = name
        drawn += page.evaluate("""drawn => Array.from(document.querySelectorAll('details')).filter(d => !drawn.includes(d.id))
                                  .map(d => { d.open = true; return d.id; }).filter(id => id.startsWith('case-'))""", drawn)
        page.wait_for_function("document.querySelectorAll('details.case[open]:not([data-drawn])').length === 0")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 390:
            overflow[name] = width
    watched.close()
    assert found == rule_docs  # every rule, on the page its rules.yaml doc names, under its own ID
    assert overflow == {}
    assert len(drawn) == len(set(drawn)) > 700
    assert watched.errors == [] and watched.dialogs == []


def test_a_deep_link_lands_on_its_rule(browser: Any, site: Path) -> None:
    watched = Watched(browser)
    page = watched.open((site / "09-pots.html").as_uri() + "#POT.ODD-CHIP.BEST-FIVE")
    top = page.evaluate("document.getElementById('POT.ODD-CHIP.BEST-FIVE').getBoundingClientRect().top")
    assert 0 <= top < 900
    assert page.inner_text("#POT\\.ODD-CHIP\\.BEST-FIVE h3").startswith("§ POT.ODD-CHIP.BEST-FIVE")
    assert watched.errors == []
    watched.close()


def _search(page: Any, text: str) -> list[str]:
    """The links the search box lists for `text`, once the index has come (it is loaded on first use)."""
    page.fill("#q", text)
    page.wait_for_selector(f"#results[data-ready][data-query={json.dumps(text)}]", state="attached")
    return [str(href) for href in page.eval_on_selector_all("#results a", "links => links.map(a => a.getAttribute('href'))")]


def test_search_finds_a_rule_by_id_by_word_and_by_case_id(browser: Any, site: Path) -> None:
    watched = Watched(browser)
    page = watched.open((site / "index.html").as_uri())
    assert page.evaluate("window.RULEBOOK_INDEX") is None and page.locator("script[src='search-index.js']").count() == 0
    assert _search(page, "BRING-IN.TIE.SUIT")[0] == "04-bring-in.html#BRING-IN.TIE.SUIT"
    assert _search(page, "bring-in.tie.suit")[0] == "04-bring-in.html#BRING-IN.TIE.SUIT"
    by_word = _search(page, "odd chip")
    assert "09-pots.html#POT.ODD-CHIP.WINNING-FIVE" in by_word[:3]
    by_case = _search(page, "SH-BRI-004")
    assert by_case[0].endswith("#case-SH-BRI-004")
    assert _search(page, "zzqx qqvvk") == []
    assert "Not covered" in page.inner_text("#results")  # nothing found points to what the spec leaves out
    page.fill("#q", "SH-BRI-004")
    page.press("#q", "Enter")
    page.wait_for_selector("#case-SH-BRI-004[open][data-drawn] pre.hand")  # the case lands opened and drawn
    assert page.url.endswith("04-bring-in.html#case-SH-BRI-004")
    assert page.locator("#case-SH-BRI-004").count() == 1
    top = page.evaluate("document.getElementById('case-SH-BRI-004').getBoundingClientRect().top")
    assert 0 <= top < 900
    assert watched.errors == [] and watched.dialogs == []
    watched.close()


#: a question in a tournament director's words -> the rules (or the "not covered" place) it must find first.
#: Before: literal words, all of them needed; "razz kings", "five-card open pair" and "misdeal" found
#: nothing, "bring-in tie" ranked SETUP.STAKES first.
QUESTIONS = {
    "razz kings": {"04-bring-in.html#BRING-IN.TIE.SUIT", "04-bring-in.html#BRING-IN.CARD.HIGH"},
    "five-card open pair": {"15-five-card-stud.html#FIVE.OPEN-PAIR"},
    "bring-in tie": {"04-bring-in.html#BRING-IN.TIE.SUIT", "04-bring-in.html#BRING-IN.TIE.SEAT"},
    "misdeal": {"options.html#not-covered-deliberately-not-options", "about.html#scope-and-what-is-not-covered"},
    "low card": {"04-bring-in.html#BRING-IN.CARD.LOW"},
    "door card": {"03-dealing.html#DEAL.THIRD", "04-bring-in.html#BRING-IN.CARD.LOW"},
    "high hand showing": {"06-first-to-act.html#BET.FIRST-ACTOR.HIGH"},
    "kill": {"about.html#scope-and-what-is-not-covered"},
    "remake": {"03-dealing.html#DEAL.SHORT-STUB.REMAKE"},
    "quarter": {"11-hi-lo.html#HILO.QUARTER.EVEN"},
    "quartering": {"11-hi-lo.html#HILO.QUARTER.EVEN"},
    "brng in": {"04-bring-in.html#BRING-IN.CARD.LOW", "04-bring-in.html#BRING-IN.CARD.HIGH"},
    "quater": {"11-hi-lo.html#HILO.QUARTER.EVEN"},
    "who acts first on fourth street": {"06-first-to-act.html#BET.FIRST-ACTOR.HIGH"},
    "what if the deck runs out": {"03-dealing.html#DEAL.SHORT-STUB.REMAKE"},
    "string bet": {"options.html#not-covered-deliberately-not-options"},
}


def test_questions_in_the_words_of_the_trade_find_their_rule_first(browser: Any, site: Path) -> None:
    watched = Watched(browser)
    page = watched.open((site / "02-antes.html").as_uri())
    first = {question: (_search(page, question) or ["nothing"])[0] for question in QUESTIONS}
    assert {q: hit for q, hit in first.items() if hit not in QUESTIONS[q]} == {}
    assert watched.errors == [] and watched.dialogs == []
    watched.close()


def test_a_link_to_a_case_opens_it(browser: Any, site: Path) -> None:
    """From another page (an option's list of cases), on the same page ("drawn above"), and typed as an address."""
    watched = Watched(browser)
    page = watched.open((site / "04-bring-in.html").as_uri())
    assert page.locator("details.case[data-drawn]").count() == 0  # nothing drawn up front
    assert page.locator("details.case").count() > 100
    seen = page.locator("p.seealso a[href^='#case-']").first
    target = str(seen.get_attribute("href"))[1:]
    seen.click()
    page.wait_for_selector(f"details[id='{target}'][open][data-drawn] pre.hand")
    page.evaluate(f"document.getElementById('{target}').open = false")
    seen.click()  # the same address again: no hashchange, it opens all the same
    page.wait_for_selector(f"details[id='{target}'][open]")
    other = page.locator("main a[href*='.html#case-']:not([href^='04-bring-in.html'])").first
    href = str(other.get_attribute("href"))
    other.click()
    page.wait_for_load_state()
    case_id = href.split("#")[1]
    page.wait_for_selector(f"details[id='{case_id}'][open][data-drawn] pre.hand")
    assert page.url.endswith(href)
    assert page.locator("details.case[data-drawn]").count() == 1  # that one only
    assert watched.errors == [] and watched.dialogs == []
    watched.close()


def test_everything_from_a_case_file_is_shown_as_text(browser: Any, site: Path) -> None:
    watched = Watched(browser)
    page = watched.open((site / "04-bring-in.html").as_uri() + "#case-SH-WSP-903")
    page.wait_for_selector("#case-SH-WSP-903[data-drawn] pre.hand")
    case = page.inner_text("#case-SH-WSP-903")
    assert TITLE in case and COMMENT in case and "<b>not bold</b> & <i>not italic</i>" in case
    assert page.locator("main img, main script, #case-SH-WSP-903 b:not(pre b), #case-SH-WSP-903 i").count() == 0
    hits = _search(page, "hostile title")
    assert hits[0] == "04-bring-in.html#case-SH-WSP-903"
    assert TITLE in page.inner_text("#results")
    scripts = page.eval_on_selector_all("script", "all => all.map(s => s.getAttribute('src'))")
    assert sorted(scripts) == ["book.js", "cases/SH-WSP-903.js", "search-index.js", "search.js"]  # the site's own, none inline
    assert watched.dialogs == [] and watched.errors == []
    watched.close()


def _pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


def test_a_chapter_prints_its_rules_and_the_examples_on_request(browser: Any, site: Path) -> None:
    """Before: every hand printed, the table of contents alone on page 1: the antes chapter (2 rules, 31 cases)
    was 42 A4 pages, the bring-in chapter 172. Now 2 and 6 pages of rules; with the examples ticked the antes
    chapter is 41."""
    watched = Watched(browser, width=794)  # A4's width at 96 dpi
    page = watched.open((site / "02-antes.html").as_uri())
    page.emulate_media(media="print")
    for hidden in ("header.top", "nav.toc", ".printing", "div.examples", "footer"):
        assert page.evaluate(f"getComputedStyle(document.querySelector('{hidden}')).display") == "none", hidden
    first_rule = page.evaluate("document.querySelector('section.rule').getBoundingClientRect().top")
    assert first_rule < 400  # the first rule starts near the top of page 1 (no page of contents before it)
    rules_only = _pages(page.pdf(format="A4"))
    assert 1 <= rules_only <= 4
    page.emulate_media(media="screen")
    page.check("#print-examples")
    page.wait_for_selector("body[data-examples=ready]", state="attached")
    assert page.locator("details.case:not([open]), details.case:not([data-drawn])").count() == 0
    page.emulate_media(media="print")
    assert page.evaluate("getComputedStyle(document.querySelector('div.examples')).display") == "block"
    with_examples = _pages(page.pdf(format="A4"))
    assert with_examples > 5 * rules_only
    page.emulate_media(media="screen")  # (page.pdf prints with the page's emulated media: set print again)
    page.uncheck("#print-examples")
    page.emulate_media(media="print")
    assert _pages(page.pdf(format="A4")) == rules_only
    page = watched.open((site / "04-bring-in.html").as_uri())
    page.emulate_media(media="print")
    assert _pages(page.pdf(format="A4")) <= 12  # the longest chapter of rules a director prints most
    assert watched.errors == [] and watched.dialogs == []
    watched.close()


def test_a_red_cell_s_rule_link_opens_the_rulebook_at_the_rule(browser: Any, site: Path) -> None:
    """Both sites in one directory (report/ beside site/): the report's --rulebook link lands on the rule."""
    gamma = Path(__file__).resolve().parent.parent / "report" / "gamma.jsonl"
    report = site.parent / "report"
    assert main(["report", str(gamma), "-o", str(report), "--rulebook", "../site/"]) == 0
    watched = Watched(browser)
    page = watched.open((report / "index.html").as_uri())
    red_rows = page.eval_on_selector_all("#matrix-table td.cell.fail", "cells => cells.map(c => c.closest('tr').id)")
    assert sorted(set(red_rows)) == ["rule-BRING-IN.CARD.LOW", "rule-BRING-IN.TIE.SUIT"]  # gamma's blamed failures
    for rule_id in ("BRING-IN.CARD.LOW", "BRING-IN.TIE.SUIT"):
        page = watched.open((report / "index.html").as_uri())
        page.locator(f"#matrix-table tr[id='rule-{rule_id}'] th.rule a.book").click()
        page.wait_for_load_state()
        assert page.url == (site / "04-bring-in.html").as_uri() + "#" + rule_id
        top = page.evaluate(f"document.getElementById('{rule_id}').getBoundingClientRect().top")
        assert 0 <= top < 900
        assert page.inner_text(f"section[id='{rule_id}'] h3").startswith(f"§ {rule_id}")
    assert watched.errors == [] and watched.dialogs == []
    watched.close()


def test_a_rule_blamed_for_hundreds_of_cases_keeps_its_results_readable(browser: Any, tmp_path: Path) -> None:
    """`rulebook --report` with 335 cases blamed on BRING-IN.TIE.SUIT: the list named every case and the other
    columns were squeezed to one letter per line (26 to 32 px at 390 and 1280 px wide). Now 12 are named,
    "and 323 more", and no cell is narrower than four digits, on a desktop and on a phone."""
    gamma = Path(__file__).resolve().parent.parent / "report" / "gamma.jsonl"
    header, *lines = [json.loads(line) for line in gamma.read_text(encoding="utf-8").splitlines()]
    failing = next(line for line in lines if line.get("id") == "SH-BRI-002")
    report = tmp_path / "many.jsonl"
    report.write_text("\n".join(json.dumps(line) for line in [header, *(dict(failing, id=f"SH-MNY-{n:03d}") for n in range(1, 336))]),
                      encoding="utf-8")
    one_case = next((cases_dir() / "stud_high" / "bring-in").glob("sh-bri-004-*.yaml"))  # the page of rules is what counts
    assert main(["rulebook", "-o", str(tmp_path / "site"), "--cases", str(one_case), "--report", str(report)]) == 0
    for width in (1280, 390):
        watched = Watched(browser, width=width)
        page = watched.open((tmp_path / "site" / "04-bring-in.html").as_uri() + "#BRING-IN.TIE.SUIT")
        results = page.locator("section[id='BRING-IN.TIE.SUIT'] .results")
        assert "and 323 more" in results.inner_text()
        assert results.locator("tr.ids span").count() == 13  # 12 named, then the count
        narrowest = results.evaluate("""box => {
            const probe = document.createElement('span');
            probe.textContent = '0000';
            box.querySelector('td').appendChild(probe);
            const digits = probe.getBoundingClientRect().width;
            probe.remove();
            return Math.min(...Array.from(box.querySelectorAll('th, td')).map(c => c.getBoundingClientRect().width)) / digits;
        }""")
        assert narrowest >= 1, width
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert watched.errors == [] and watched.dialogs == []
        watched.close()

