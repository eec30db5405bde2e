"""The case-side subcommands: lint, show, list, coverage (each returns an exit code)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from studcheck.cases.coverage import coverage, render_markdown, render_text, uncovered, unrefused
from studcheck.cases.lint import lint_files
from studcheck.cases.load import CaseError, load_case, load_cases
from studcheck.cases.model import Case
from studcheck.cases.show import render
from studcheck.resources import cases_dir
from studcheck.rules import Variant
from studcheck.safe_text import terminal_safe

_VARIANTS = [v.value for v in Variant]


def register(subparsers: Any) -> None:
    """Add `lint`, `show`, `list` and `coverage` to the `studcheck` command."""
    lint = subparsers.add_parser("lint", help="check case files (schema, cards, deck, rule IDs, tags, unique IDs)",
                                 description="Check case files; prints file:line: problem lines and a summary. "
                                             "Exit 0 if clean, 1 if there are problems.")
    lint.add_argument("paths", nargs="*", metavar="PATH", type=Path,
                      help="case files or directories (default: the bundled cases/)")
    lint.set_defaults(handler=run_lint)

    show = subparsers.add_parser("show", help="print a case as a hand history played by the reference engine",
                                 description="Print a case as a hand history. Exit 2 if the case is not found, "
                                             "1 if --format phh cannot state it.")
    show.add_argument("case", metavar="CASE", help="a case ID (e.g. SH-BRI-004) or a path to a case file")
    show.add_argument("--format", choices=["text", "phh"], default="text",
                      help="text: the hand as played by the reference engine; phh: a PHH hand history for PokerKit "
                           "(exit 1 if PHH cannot state the case)")
    _cases_option(show)
    show.set_defaults(handler=run_show)

    listing = subparsers.add_parser("list", help="list cases (ID, variant, title)",
                                    description="List cases, optionally filtered; filters combine with AND.")
    listing.add_argument("--tag", action="append", default=[], help="only cases with this tag (repeatable)")
    listing.add_argument("--variant", choices=_VARIANTS, help="only cases of this variant")
    listing.add_argument("--rule", action="append", default=[],
                         help="only cases citing this rule ID, or IDs starting with it followed by '.' (repeatable)")
    _cases_option(listing)
    listing.set_defaults(handler=run_list)

    cover = subparsers.add_parser("coverage", help="rules x cases table; exit 1 if a rule has no case",
                                  description="Count the cases citing each rule, per variant the rule applies to. "
                                              "Exit 1 if some rule has no case in a variant it applies to.")
    cover.add_argument("--variant", choices=_VARIANTS, help="only this variant")
    cover.add_argument("--format", choices=["text", "markdown"], default="text", help="output format")
    _cases_option(cover)
    cover.set_defaults(handler=run_coverage)


def _cases_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cases", action="append", type=Path, metavar="PATH",
                        help="case files or directories to use instead of the bundled cases/ (repeatable)")


def _load(paths: list[Path] | None) -> list[Case]:
    errors: list[CaseError] = []
    cases = load_cases(paths, errors=errors)
    if errors:
        print(f"warning: {len(errors)} case file(s) skipped (run `studcheck lint`):", file=sys.stderr)
        for error in errors:
            print(terminal_safe(f"  {error}"), file=sys.stderr)
    return cases


def run_lint(args: argparse.Namespace) -> int:
    files, problems = lint_files(args.paths or None)
    for problem in problems:
        print(terminal_safe(str(problem)))
    # Say which cases were read: after a non-editable `pip install .` the bundled copy is not the
    # checkout, and a contributor must not mistake a clean copy for a clean edit.
    where = "" if args.paths else f" (the bundled cases in {cases_dir()})"
    print(terminal_safe(f"{len(files)} files{where}, {len(problems)} problem{'' if len(problems) == 1 else 's'}"))
    return 1 if problems else 0


def run_show(args: argparse.Namespace) -> int:
    target = Path(args.case)
    if target.suffix in (".yaml", ".yml") or target.is_file():
        if not target.is_file():
            print(terminal_safe(f"studcheck show: no such file: {target}"), file=sys.stderr)
            return 2
        try:
            case = load_case(target)
        except CaseError as exc:
            for problem in exc.problems:
                print(terminal_safe(str(problem)), file=sys.stderr)
            return 1
    else:
        wanted = args.case.upper()
        matches = [case for case in _load(args.cases) if case.id.upper() == wanted]
        if not matches:
            print(terminal_safe(f"studcheck show: no case with id {args.case} (try `studcheck list`)"), file=sys.stderr)
            return 2
        case = matches[0]
    if args.format == "phh":
        return _show_phh(case)
    sys.stdout.write(terminal_safe(render(case)))  # a case file's title and notes may hold escapes
    return 0


def _show_phh(case: Case) -> int:
    from studcheck.phh.export import PhhRefusal, export_case

    try:
        sys.stdout.write(export_case(case).text())
    except PhhRefusal as exc:
        print(terminal_safe(f"studcheck show: {case.id} cannot be written as PHH: {exc}"), file=sys.stderr)
        return 1
    return 0


def _cites(case: Case, prefixes: list[str]) -> bool:
    return any(rule == prefix or rule.startswith(prefix + ".") for rule in case.rules for prefix in prefixes)


def run_list(args: argparse.Namespace) -> int:
    cases = _load(args.cases)
    selected = [case for case in cases
                if (not args.tag or all(tag in case.tags for tag in args.tag))
                and (args.variant is None or case.variant.value == args.variant)
                and (not args.rule or _cites(case, args.rule))]
    width = max([len(case.id) for case in selected] + [2])
    for case in sorted(selected, key=lambda c: c.id):
        print(terminal_safe(f"{case.id.ljust(width)}  {case.variant.value:<10}  {case.title}"))
    return 0


def run_coverage(args: argparse.Namespace) -> int:
    variant = Variant(args.variant) if args.variant else None
    rows = coverage(_load(args.cases))
    renderer = render_markdown if args.format == "markdown" else render_text
    sys.stdout.write(terminal_safe(renderer(rows, variant)))
    return 1 if uncovered(rows, variant) or unrefused(rows, variant) else 0
