"""The HTML report in a real browser: headless Chromium (Debian's `chromium`) driven by Playwright.

The page comes from a real run of tests/engines/script_in_stderr.py, which calls itself
`<script>alert(1)</script>`, writes that to stderr in every hand and gets razz's bring-in wrong. Skips
when Chromium or Playwright is missing, unless STUDCHECK_REQUIRE_BROWSER=1 (CI): then it fails.
Screenshots go to STUDCHECK_SCREENSHOT_DIR (default: pytest's tmp dir).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from studcheck.cli import main

ENGINE = Path(__file__).resolve().parent.parent / "engines" / "script_in_stderr.py"
PAYLOAD = "<script>alert(1)</script>"
#: without the background-networking flags Chromium's connections are refused by a closed network and logged
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


pytestmark = pytest.mark.browser  # opt-in: `pytest -m browser` (pyproject.toml)


def _unavailable(why: str) -> None:
    if os.environ.get("STUDCHECK_REQUIRE_BROWSER") == "1":
        pytest.fail(f"STUDCHECK_REQUIRE_BROWSER=1 but {why}")
    pytest.skip(why)


def chromium_path() -> str:
    found = os.environ.get("STUDCHECK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        _unavailable("no chromium on PATH (apt-get install chromium)")
    return str(found)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """index.html from `studcheck run --report` then `studcheck report` (with the reference engine's run
    beside it), and the broken engine's case lines."""
    root = tmp_path_factory.mktemp("site")
    report = root / "run.jsonl"
    engine = shlex.join([sys.executable, str(ENGINE)])
    assert main(["run", "--engine", engine, "--tag", "bring-in", "--no-progress", "--report", str(report)]) == 1
    reference = root / "reference.jsonl"  # a second engine: six columns, wider than a phone
    assert main(["run", "--in-process", "--tag", "bring-in", "--no-progress", "--report", str(reference)]) == 0
    lines = [json.loads(text) for text in report.read_text(encoding="utf-8").splitlines()]
    report.write_text("".join(json.dumps(blamed(line)) + "\n" for line in lines), encoding="utf-8")
    assert main(["report", str(report), str(reference), "-o", str(root / "site")]) == 0
    return root / "site" / "index.html", [blamed(line) for line in lines if line["kind"] == "case"]


def blamed(line: dict[str, Any]) -> dict[str, Any]:
    """The line as a report with blame fields says it (the harness writes them; a report without them gets
    them here): this engine brings in razz by Stud High's rule, so what it breaks is BRING-IN.CARD.HIGH."""
    if line["kind"] == "group" or line["kind"] == "case" and line["outcome"] in ("fail", "error", "xfail"):
        return {"blame": ["BRING-IN.CARD.HIGH"], **line}
    return line


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install '.[browser]')")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable, args=FLAGS)
        yield launched
        launched.close()


class Watched:
    """A page and everything it said: console messages of type error, uncaught exceptions, dialogs."""

    def __init__(self, browser: Any, url: str, *, width: int = 1280, height: int = 900) -> None:
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("dialog", self._dialog)
        self.page.goto(url)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()


@pytest.fixture()
def watched(browser: Any, site: tuple[Path, list[dict[str, Any]]]) -> Iterator[Watched]:
    page = Watched(browser, site[0].as_uri())
    yield page
    page.page.close()


def screenshot_dir(tmp_path: Path) -> Path:
    directory = Path(os.environ.get("STUDCHECK_SCREENSHOT_DIR") or tmp_path)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


def test_loads_without_console_errors(watched: Watched, tmp_path: Path) -> None:
    watched.page.wait_for_load_state("load")
    assert watched.page.title() == "studcheck conformance report"
    assert watched.errors == [] and watched.dialogs == []
    watched.page.screenshot(path=str(screenshot_dir(tmp_path) / "report-desktop.png"))


def test_one_matrix_row_per_rule_with_cases(watched: Watched, site: tuple[Path, list[dict[str, Any]]]) -> None:
    cited = {rule for line in site[1] for rule in line["rules"]}
    rows = watched.page.locator("#matrix-table tr.rule")
    assert rows.count() == len(cited) > 5
    assert {rows.nth(index).get_attribute("id") for index in range(rows.count())} == {f"rule-{rule}" for rule in cited}


def test_a_failing_cell_leads_to_expected_against_actual(watched: Watched) -> None:
    page = watched.page
    cells = page.locator("#matrix-table td.cell.fail a")
    assert cells.count() >= 1
    full = set(page.eval_on_selector_all("section.case:not(.compact)", "nodes => nodes.map(node => '#' + node.id)"))
    cell = next(cells.nth(index) for index in range(cells.count()) if cells.nth(index).get_attribute("href") in full)
    target = str(cell.get_attribute("href"))
    cell.click()
    assert page.evaluate("location.hash") == target
    section = page.locator(f"section[id='{target[1:]}']")
    assert section.is_visible() and section.get_attribute("data-outcome") == "fail"
    assert section.evaluate("node => { const box = node.getBoundingClientRect(); return box.top >= -1 && box.top < innerHeight; }")
    header = section.locator("table.mismatches tr").first.inner_text().split()
    assert header == ["field", "expected", "actual"]
    assert section.locator("table.mismatches tr").count() >= 2
    assert section.locator("pre.hand b").count() >= 6  # the hand, drawn as cards: at least two seats of three
    assert not section.locator("pre.hand").is_visible()  # folded until asked for
    section.locator("details.hand summary").click()
    assert section.locator("pre.hand").is_visible() and section.locator("pre.hand mark.diverged").is_visible()
    assert watched.errors == []


def test_engine_strings_show_as_text_and_never_run(watched: Watched) -> None:
    page = watched.page
    assert PAYLOAD in page.locator("#matrix-table th.col").first.inner_text()
    stderr = page.locator("section.case pre", has_text="hand ").first.inner_text()
    assert PAYLOAD in stderr and "<b>bold</b>" in stderr
    assert page.locator("script").count() == 1  # the page's own filter script only
    page.locator("section.case a[href^='#text-']").first.click()  # move around: nothing may fire
    assert watched.dialogs == [] and watched.errors == []


def test_filters_hide_and_show_without_a_server(watched: Watched) -> None:
    page = watched.page
    razz = page.locator("section.case[data-variant='razz']").first
    assert razz.is_visible()
    page.locator("input.variant-filter[value='razz']").uncheck()
    assert not razz.is_visible()
    page.locator("input.variant-filter[value='razz']").check()
    page.select_option("#tag-filter", "all-in")
    shown = page.locator("section.case:visible")
    tags = [str(shown.nth(index).get_attribute("data-tags")).split() for index in range(shown.count())]
    assert all("all-in" in found for found in tags)
    assert page.locator("section.case").count() > len(tags)
    assert watched.errors == []


@pytest.mark.parametrize("width", [1280, 390])
def test_no_horizontal_overflow(browser: Any, site: tuple[Path, list[dict[str, Any]]], tmp_path: Path, width: int) -> None:
    phone = Watched(browser, site[0].as_uri(), width=width, height=844)
    try:
        widths = phone.page.evaluate("[document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]")
        assert max(widths[:2]) <= widths[2] == width
        phone.page.screenshot(path=str(screenshot_dir(tmp_path) / f"report-{width}.png"))
        assert phone.errors == []
    finally:
        phone.page.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_first_screen_shows_bars_and_causes(browser: Any, site: tuple[Path, list[dict[str, Any]]], width: int) -> None:
    view = Watched(browser, site[0].as_uri(), width=width, height=844)
    try:
        page = view.page
        first_bar = page.locator("#summary div.bar").first
        assert first_bar.is_visible() and first_bar.bounding_box()["y"] < 844  # on the first screen, no scrolling
        assert page.locator("#summary div.bar").count() == 8  # two engines, four variants each
        cause = page.locator("#summary li.cause").first
        assert cause.is_visible() and "BRING-IN.CARD.HIGH" in cause.inner_text()
        assert "failing case" in page.locator("#summary p.headline").first.inner_text()
        cause.locator("a[href^='#rule-']").click()
        assert page.locator("tr[id='rule-BRING-IN.CARD.HIGH'] td.cell.fail").count() >= 1
        assert view.errors == []
    finally:
        page.close()


def test_rule_column_and_header_stay_in_view_when_the_matrix_scrolls_at_phone_width(
        browser: Any, site: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    view = Watched(browser, site[0].as_uri() + "#matrix", width=390, height=844)
    try:
        page = view.page
        box = page.locator("div.matrix")
        assert box.evaluate("node => node.scrollWidth > node.clientWidth + 300")  # six columns: wider than a phone
        rule = page.locator("#matrix-table tr.rule th.rule").nth(3)
        rule.scroll_into_view_if_needed()
        before = rule.bounding_box()
        box.evaluate("node => { node.scrollLeft = node.scrollWidth; }")
        page.wait_for_timeout(50)
        after, frame = rule.bounding_box(), box.bounding_box()
        assert box.evaluate("node => node.scrollLeft") > 300
        assert abs(after["x"] - before["x"]) < 1 and after["x"] >= frame["x"] - 1  # still at the left edge
        box.evaluate("node => { node.scrollTop = node.scrollHeight / 2; }")
        page.wait_for_timeout(50)
        header = page.locator("#matrix-table thead th.col").last.bounding_box()
        assert abs(header["y"] - frame["y"]) < 3  # the header row sticks to the top of the scrolled matrix
        found = page.evaluate("""([x, y]) => { const th = document.elementFromPoint(x, y).closest('th');
                                               return th ? [th.className, th.parentNode.className] : null; }""",
                              [frame["x"] + 5, frame["y"] + frame["height"] / 2])
        assert found in (["rule", "rule"], ["", "chapter"])  # a rule's (or chapter's) name, not a cell scrolled under it
        page.screenshot(path=str(screenshot_dir(tmp_path) / "report-phone-matrix.png"))
        assert view.errors == []
    finally:
        page.close()


def test_filters_apply_to_the_matrix_cells(watched: Watched) -> None:
    page = watched.page
    razz = page.locator("#matrix-table td.cell.fail[data-variant='razz']").first
    assert razz.is_visible() and "broken" in razz.inner_text()
    page.locator("input.variant-filter[value='razz']").uncheck()
    assert not razz.is_visible() and not page.locator("#matrix-table th.col[data-variant='razz']").first.is_visible()
    page.locator("input.variant-filter[value='razz']").check()
    for outcome in ("fail", "error"):  # without failing cases no cell is red and none says "broken"
        page.locator(f"input.outcome-filter[value='{outcome}']").uncheck()
    assert page.locator("#matrix-table td.cell.fail").count() == 0
    assert "broken" not in page.locator("#matrix-table tbody").inner_text()
    page.locator("input.outcome-filter[value='fail']").check()
    page.locator("input.outcome-filter[value='error']").check()
    rows = page.locator("#matrix-table tr.rule")
    every = sum(rows.nth(index).is_visible() for index in range(rows.count()))
    page.locator("#problems-only").check()
    shown = [rows.nth(index) for index in range(rows.count()) if rows.nth(index).is_visible()]
    assert 0 < len(shown) < every
    assert all(row.locator("td.cell.fail, td.cell.xfail, td.cell.affected").count() > 0 for row in shown)
    page.locator("#problems-only").uncheck()
    page.select_option("#tag-filter", "all-in")  # cells recount: only the all-in cases
    numbers = [int(n) for n in re.findall(r"(\d+) (?:broken|affected|pass|n/a)", page.locator("#matrix-table tbody").inner_text())]
    page.select_option("#tag-filter", "")
    again = [int(n) for n in re.findall(r"(\d+) (?:broken|affected|pass|n/a)", page.locator("#matrix-table tbody").inner_text())]
    assert sum(numbers) < sum(again)
    assert watched.errors == []


def test_page_size_and_folded_hands(watched: Watched, site: tuple[Path, list[dict[str, Any]]]) -> None:
    page = watched.page
    assert site[0].stat().st_size < 1_000_000
    hands = page.locator("details.hand")
    assert hands.count() >= 1 and all(not hands.nth(index).evaluate("node => node.open") for index in range(hands.count()))
    assert not page.locator("pre.hand").first.is_visible()
