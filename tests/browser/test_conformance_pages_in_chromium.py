"""The published evaluator pages (docs/conformance/evaluators/) in headless Chromium, desktop and phone.

The summary table must be readable on a phone (the table scrolls inside its box, the page does not),
link every library's page, and each page must load without errors. Skips without Chromium or
Playwright unless STUDCHECK_REQUIRE_BROWSER=1 (CI).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from test_report_in_chromium import Watched, browser, screenshot_dir  # noqa: F401 - the fixture and helpers

pytestmark = pytest.mark.browser

SUMMARY = Path(__file__).resolve().parents[2] / "docs" / "conformance" / "evaluators" / "index.html"


@pytest.fixture()
def summary(browser: Any) -> Iterator[Watched]:  # noqa: F811 - the imported fixture
    page = Watched(browser, SUMMARY.as_uri())
    yield page
    page.page.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_summary_fits_desktop_and_phone(browser: Any, width: int, tmp_path: Path) -> None:  # noqa: F811
    view = Watched(browser, SUMMARY.as_uri(), width=width, height=844)
    try:
        page = view.page
        widths = page.evaluate("[document.documentElement.scrollWidth, document.body.scrollWidth, innerWidth]")
        assert max(widths[:2]) <= widths[2] == width  # the page never scrolls sideways; the table's box may
        rows = page.locator("#summary tbody tr")
        assert rows.count() >= 9
        first = rows.first.locator("td").first
        assert first.is_visible() and first.bounding_box()["y"] < 844  # the first library is on the first screen
        page.screenshot(path=str(screenshot_dir(tmp_path) / f"evaluators-{width}.png"))
        assert view.errors == [] and view.dialogs == []
    finally:
        view.page.close()


def test_every_library_link_opens_its_report(summary: Watched, browser: Any) -> None:  # noqa: F811
    page = summary.page
    links = page.locator("#summary tbody a")
    names = [links.nth(index).inner_text() for index in range(links.count())]
    assert len(names) >= 9
    for index, name in enumerate(names):
        target = browser.new_page()
        try:
            target.goto(SUMMARY.parent.joinpath(links.nth(index).get_attribute("href") or "").as_uri())
            assert target.title() == "studcheck conformance report"
            library, version = name.rsplit(" ", 1)
            heading = target.locator("#summary").first.inner_text()
            assert library in heading and version in heading, (name, heading[:200])
        finally:
            target.close()
    assert summary.errors == []
