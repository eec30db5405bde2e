"""The published PokerKit page (docs/conformance/pokerkit/index.html) in headless Chromium: it opens with
PokerKit's expected causes, each naming the rule blamed and linking to its row of the matrix, as many as
its first line says, and no expected failure is left in no cause. Skips without Chromium or Playwright
unless STUDCHECK_REQUIRE_BROWSER=1 (CI).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from test_report_in_chromium import Watched, browser, screenshot_dir  # noqa: F401 - the fixture and helpers

pytestmark = pytest.mark.browser

PAGE = Path(__file__).resolve().parents[2] / "docs" / "conformance" / "pokerkit" / "index.html"
WIDTH, HEIGHT = 1280, 900


@pytest.fixture()
def pokerkit(browser: Any) -> Iterator[Watched]:  # noqa: F811 - the imported fixture
    page = Watched(browser, PAGE.as_uri(), width=WIDTH, height=HEIGHT)
    yield page
    page.page.close()


def test_the_page_opens_with_the_expected_causes_and_their_rules(pokerkit: Watched, tmp_path: Path) -> None:
    page = pokerkit.page
    headline = page.locator("#summary p.headline").first.inner_text()
    found = re.search(r"(\d+) expected failures in (\d+) causes", headline)
    assert found, headline
    failures, causes = int(found.group(1)), int(found.group(2))
    items = page.locator("#summary ol.causes.expected > li.cause")
    assert items.count() == causes > 0
    first = items.first
    assert first.is_visible() and first.bounding_box()["y"] < HEIGHT  # on the first screen
    counted = 0
    for index in range(causes):
        item = items.nth(index)
        rule = item.locator("a[href^='#rule-'] code").first
        assert rule.is_visible(), item.inner_text()
        name = rule.inner_text()
        assert re.fullmatch(r"[A-Z0-9]+(?:[.-][A-Z0-9]+)+", name), name
        assert page.locator(f"tr[id='rule-{name}']").count() == 1  # its row in the matrix
        counted += int(re.search(r"— (\d+) cases? —", item.inner_text()).group(1))  # type: ignore[union-attr]
    assert counted == failures
    assert "in no cause" not in page.locator("#summary").inner_text()
    page.screenshot(path=str(screenshot_dir(tmp_path) / "pokerkit-first-screen.png"))
    assert pokerkit.errors == [] and pokerkit.dialogs == []


def test_a_cause_links_to_the_row_of_its_rule(pokerkit: Watched) -> None:
    page = pokerkit.page
    link = page.locator("#summary ol.causes.expected > li.cause a[href^='#rule-']").first
    target = str(link.get_attribute("href"))[1:]
    link.click()
    page.wait_for_function(f"location.hash === '#{target}'")
    row = page.locator(f"tr[id='{target}']")
    box = row.bounding_box()
    assert box is not None and box["y"] + box["height"] > 0 and box["y"] < HEIGHT  # scrolled into view
    assert row.locator("td.xfail").count() >= 1  # and painted: broken (xfail)
