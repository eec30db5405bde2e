"""The `report` subcommand: JSONL run reports -> DIR/index.html (exit 0 written, 2 bad input)."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from studcheck.report.hands import histories
from studcheck.report.load import ReportInputError, RunReport, from_lines, read_report
from studcheck.report.badges import write_badges
from studcheck.report.model import build_model, double_counted, load_rules
from studcheck.report.render import write_html
from studcheck.safe_text import terminal_safe


def register(subparsers: Any) -> None:
    """Add `report` to the `studcheck` command."""
    report = subparsers.add_parser(
        "report", help="render JSONL run reports (several engines or shards) as one HTML page",
        description="Render one or more `studcheck run --report` files as DIR/index.html: per engine a bar per "
                    "variant and the causes of failure, a rule x engine/variant matrix and the failing cases. "
                    "Self-contained (opens from the file system), with badge-<engine>.svg/.json beside it. Inputs "
                    "that hold the same case of the same engine twice (a file given twice, a merged report and one "
                    "of its shards) are refused. Exit 0 written, 2 bad input.")
    report.add_argument("reports", nargs="+", metavar="REPORT", type=Path, help="JSONL report files")
    report.add_argument("-o", "--output", required=True, type=Path, metavar="DIR", help="directory for index.html")
    report.add_argument("--rulebook", metavar="URL", type=rulebook_base,
                        help="where the `studcheck rulebook` site is (a URL, or a path relative to DIR such as ../rulebook/): "
                             "every rule ID on the page links to its section there")
    report.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    try:
        reports = [read_report(path) for path in args.reports]
    except ReportInputError as error:
        print(terminal_safe(f"studcheck report: {error}"), file=sys.stderr)
        return 2
    problem = double_counted(reports)
    if problem is not None:
        print(terminal_safe(f"studcheck report: {problem}"), file=sys.stderr)
        return 2
    try:
        target = write_page(reports, args.output, rulebook=args.rulebook)
    except OSError as error:
        print(terminal_safe(f"studcheck report: cannot write {args.output}: {error}"), file=sys.stderr)
        return 2
    print(terminal_safe(str(target)))
    return 0


#: a URL's scheme, as a browser reads it (WHATWG URL: a letter, then letters, digits, `+`, `-`, `.`)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_WEB = re.compile(r"https?://", re.IGNORECASE)


def rulebook_base(text: str) -> str:
    """`--rulebook URL`: an http:// or https:// address, or a path relative to the report's DIR (no
    scheme). It starts hundreds of links, so any other scheme (`javascript:`, `data:`, `file:`) is a
    usage error, found as a browser finds it: after the spaces around it (a browser drops them), with
    control characters (a browser drops tabs and newlines inside a scheme) refused outright."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty URL; give where the rulebook site is, e.g. ../rulebook/")
    if any(ord(char) < 0x20 or 0x7f <= ord(char) <= 0x9f for char in text):
        raise argparse.ArgumentTypeError(f"{text!r}: a URL holds no control characters")
    url = text.strip()
    if _SCHEME.match(url) and not _WEB.match(url):
        raise argparse.ArgumentTypeError(
            f"{url!r}: only http:// and https:// addresses or a relative path (e.g. ../rulebook/) are links "
            f"here, not {url[:url.index(':') + 1]!r} (a relative path with a colon: start it with ./)")
    return url


def rulebook_links(base: str) -> dict[str, str]:
    """Rule ID -> `base/<chapter page>#<ID>`, the page taken from the rulebook's own mapping (rule_pages)."""
    from studcheck.resources import spec_dir
    from studcheck.rulebook.model import rule_pages

    prefix = base if base.endswith("/") else base + "/"
    return {rule: prefix + href for rule, href in rule_pages(spec_dir()).items()}


def write_run_page(lines: Sequence[Mapping[str, Any]], directory: Path, *, source: str, rulebook: str | None = None) -> Path:
    """`studcheck run --html DIR`: the page of the lines this run wrote (`source` names them on the page)."""
    return write_page([from_lines(source, lines)], directory, rulebook=rulebook)


def write_page(reports: Sequence[RunReport], directory: Path, *, rulebook: str | None = None) -> Path:
    """DIR/index.html for these reports (with the hand of every case drawn in full) and a badge per engine;
    with `rulebook` (the site's URL) every rule ID links to its section there."""
    model = build_model(reports, load_rules())
    model = replace(model, histories=histories(entry for entry in model.detailed if entry.anchor in model.full))
    target = write_html(model, directory, rulebook_links(rulebook) if rulebook is not None else None)
    write_badges(model, directory)
    return target
