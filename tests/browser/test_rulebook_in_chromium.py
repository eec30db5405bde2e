"""`studcheck rulebook` in a real browser: headless Chromium (Debian's `chromium`) driven by Playwright.

The site is built from the bundled suite plus one hostile case (HTML in its title, note and
comments). Skips when Chromium or Playwright is missing, unless STUDCHECK_REQUIRE_BROWSER=1 (CI).
"""

from __future__ import annotations

import os
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
    others = ["index.html", "variants.html", "glossary.html", "options.html", "sources.html"]
    found: dict[str, str] = {}
    overflow: dict[str, int] = {}
    for name in [*chapters, *others]:
        page = watched.open((site / name).as_uri())
        for rule_id in page.eval_on_selector_all("section.rule", "sections => sections.map(s => s.id)"):
            found[rule_id] = name
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 390:
            overflow[name] = width
    watched.close()
    assert found == rule_docs  # every rule, on the page its rules.yaml doc names, under its own ID
    assert overflow == {}
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
    page.fill("#q", text)
    return [str(href) for href in page.eval_on_selector_all("#results a", "links => links.map(a => a.getAttribute('href'))")]


def test_search_finds_a_rule_by_id_by_word_and_by_case_id(browser: Any, site: Path) -> None:
    watched = Watched(browser)
    page = watched.open((site / "index.html").as_uri())
    assert _search(page, "BRING-IN.TIE.SUIT")[0] == "04-bring-in.html#BRING-IN.TIE.SUIT"
    assert _search(page, "bring-in.tie.suit")[0] == "04-bring-in.html#BRING-IN.TIE.SUIT"
    by_word = _search(page, "odd chip")
    assert "09-pots.html#POT.ODD-CHIP.BEST-FIVE" in by_word[:5]
    by_case = _search(page, "SH-BRI-004")
    assert by_case[0].endswith("#case-SH-BRI-004")
    assert _search(page, "no such words anywhere zzqx") == []
    page.fill("#q", "SH-BRI-004")
    page.press("#q", "Enter")
    page.wait_for_load_state()
    assert page.url.endswith("#case-SH-BRI-004")
    assert page.locator("#case-SH-BRI-004").count() == 1
    assert watched.errors == [] and watched.dialogs == []
    watched.close()


def test_everything_from_a_case_file_is_shown_as_text(browser: Any, site: Path) -> None:
    watched = Watched(browser)
    page = watched.open((site / "04-bring-in.html").as_uri() + "#case-SH-WSP-903")
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    case = page.inner_text("#case-SH-WSP-903")
    assert TITLE in case and COMMENT in case and "<b>not bold</b> & <i>not italic</i>" in case
    assert page.locator("main img, main script, #case-SH-WSP-903 b:not(pre b), #case-SH-WSP-903 i").count() == 0
    assert page.locator("script").count() == 2  # the search index and the search code, nothing else
    hits = _search(page, "hostile title")
    assert hits == ["04-bring-in.html#case-SH-WSP-903"]
    assert TITLE in page.inner_text("#results")
    assert watched.dialogs == [] and watched.errors == []
    watched.close()


def test_the_print_stylesheet_hides_the_chrome_and_opens_the_hands(browser: Any, site: Path) -> None:
    """On the antes chapter: every chapter has the same stylesheet and script, and this one prints
    (31 cases) in 1.2 s where the bring-in chapter (137 cases) took 2.7 to 3.4 s."""
    watched = Watched(browser)
    page = watched.open((site / "02-antes.html").as_uri())
    page.emulate_media(media="print")
    assert page.evaluate("getComputedStyle(document.querySelector('header.top')).display") == "none"
    assert page.evaluate("getComputedStyle(document.querySelector('details.case')).display") == "block"
    assert page.evaluate("document.querySelectorAll('details:not([open])').length") > 0
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert page.evaluate("document.querySelectorAll('details:not([open])').length") == 0
    pdf = page.pdf()
    assert pdf[:4] == b"%PDF"
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
