"""Regenerate docs/images/report.png, the README's picture of the HTML report.

    python tools/report_screenshot.py [-o docs/images/report.png]

It runs PokerKit (pip install '.[pokerkit,browser]') without its expected-failure file, so its known
deviations show as failures, and the reference engine beside it, renders `studcheck report` of both
and photographs the rule x engine matrix in headless Debian chromium (apt-get install chromium).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from studcheck.cli import main as studcheck

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def build_page(work: Path) -> Path:
    """The two runs and their page, with short relative names (they are shown on the page)."""
    os.chdir(work)
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # `python` is ours
    pokerkit = "python -m studcheck.adapters.pokerkit_adapter"
    if studcheck(["run", "--engine", pokerkit, "--no-progress", "--report", "pokerkit.jsonl"]) not in (0, 1):
        raise SystemExit("the PokerKit run failed to complete (is `.[pokerkit]` installed?)")
    if studcheck(["run", "--in-process", "--no-progress", "--report", "reference.jsonl"]) != 0:
        raise SystemExit("the reference engine's run failed")
    if studcheck(["report", "pokerkit.jsonl", "reference.jsonl", "-o", "site"]) != 0:
        raise SystemExit("studcheck report failed")
    return work / "site" / "index.html"


def photograph(page: Path, target: Path, *, width: int, height: int) -> None:
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("STUDCHECK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise SystemExit("no chromium on PATH (apt-get install chromium)")
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=FLAGS)
        view = browser.new_page(viewport={"width": width, "height": height})
        view.goto(page.as_uri() + "#matrix")
        view.screenshot(path=str(target))
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "docs" / "images" / "report.png")
    parser.add_argument("--width", type=int, default=1100)
    parser.add_argument("--height", type=int, default=820)
    args = parser.parse_args()
    target = args.output.resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="studcheck-shot-") as work:
        photograph(build_page(Path(work)), target, width=args.width, height=args.height)
    print(f"{target} ({target.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
