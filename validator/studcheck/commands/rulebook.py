"""`studcheck rulebook -o DIR`: build the static rulebook site from spec/ and cases/."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from studcheck.cases.load import CaseError, load_cases
from studcheck.report.load import ReportInputError, read_report
from studcheck.report.model import double_counted
from studcheck.resources import spec_dir
from studcheck.rulebook.model import build_book
from studcheck.rulebook.render import write_site
from studcheck.rulebook.results import rule_results, sources_line
from studcheck.safe_text import terminal_safe

EXIT_USAGE = 2


def register(subparsers: Any) -> None:
    book = subparsers.add_parser(
        "rulebook", help="build the rules as a static offline site (one page per chapter, every case drawn)",
        description="Write a self-contained HTML site of spec/rules/*.md: every rule with its ID as an anchor, its "
                    "sources, the options that change it and every case that cites it drawn as a hand. Exit 0, "
                    "or 2 on bad arguments or unreadable cases.")
    book.add_argument("-o", "--output", type=Path, required=True, metavar="DIR", help="where to write the site")
    book.add_argument("--cases", action="append", type=Path, metavar="PATH",
                      help="case files or directories to use instead of the bundled cases/ (repeatable)")
    book.add_argument("--report", nargs="+", type=Path, metavar="REPORT",
                      help="JSONL run reports (`studcheck run --report`): each rule shows their results per engine "
                           "(cases blamed on it, affected, passing); refused as `studcheck report` refuses them")
    book.set_defaults(handler=run_rulebook)


def run_rulebook(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    try:
        cases = load_cases(args.cases)
    except CaseError as exc:
        print(terminal_safe(f"studcheck rulebook: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    results, results_from = {}, ""
    if args.report:
        try:
            reports = [read_report(path) for path in args.report]
        except ReportInputError as exc:
            print(terminal_safe(f"studcheck rulebook: {exc}"), file=sys.stderr)
            return EXIT_USAGE
        problem = double_counted(reports)
        if problem is not None:
            print(terminal_safe(f"studcheck rulebook: {problem}"), file=sys.stderr)
            return EXIT_USAGE
        results = rule_results(reports)
        results_from = sources_line(reports, results)
    try:
        files, size = write_site(build_book(spec_dir(), cases), args.output, results, results_from)
    except OSError as exc:
        print(terminal_safe(f"studcheck rulebook: cannot write {args.output}: {exc.strerror or exc}"), file=sys.stderr)
        return EXIT_USAGE
    print(terminal_safe(f"rulebook written to {args.output / 'index.html'} ({files} files, {size / 1e6:.1f} MB, "
                        f"{time.perf_counter() - started:.1f} s)"))
    return 0
