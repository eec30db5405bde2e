"""Regenerate docs/images/rulebook.png, docs/rulebook.md's picture of one rule page of the rulebook site.

    python tools/rulebook_screenshot.py [-o docs/images/rulebook.png]

It builds `studcheck rulebook` from the bundled spec and cases and photographs the section of
BET.DOUBLE.OPEN-PAIR (its text, then the option that changes it with the cases of each value side by
side) in headless Debian chromium (apt-get install chromium; pip install '.[browser]').
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from studcheck.cli import main as studcheck

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
RULE = "BET.DOUBLE.OPEN-PAIR"
PAGE = "05-betting.html"


def photograph(site: Path, target: Path, *, width: int, height: int) -> None:
    """The rule's section from its heading down (the page's margins left out), at most `height` pixels of it."""
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("STUDCHECK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise SystemExit("no chromium on PATH (apt-get install chromium)")
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=FLAGS)
        view = browser.new_page(viewport={"width": width, "height": height})
        view.goto((site / PAGE).as_uri() + "#" + RULE)
        box = view.locator(f"section[id='{RULE}']").bounding_box()
        if box is None:
            raise SystemExit(f"{RULE} is not on {PAGE}")
        top = max(0.0, box["y"] - 8)
        view.screenshot(path=str(target), full_page=True,
                        clip={"x": max(0.0, box["x"] - 12), "y": top + view.evaluate("window.scrollY"), "width": min(width, box["width"] + 24),
                              "height": min(height, box["height"] + 16)})
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "images" / "rulebook.png")
    parser.add_argument("--width", type=int, default=1000)
    parser.add_argument("--height", type=int, default=1080)
    args = parser.parse_args()
    target = args.output.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="studcheck-book-") as work:
        site = Path(work) / "rulebook"
        if studcheck(["rulebook", "-o", str(site)]) != 0:
            raise SystemExit("studcheck rulebook failed")
        photograph(site, target, width=args.width, height=args.height)
    print(f"{target} ({target.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
