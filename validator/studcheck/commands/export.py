"""`studcheck export --format phh|json DIR` and `studcheck import FILE.phh` (each returns an exit code)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from studcheck.cases.load import CaseError, load_cases
from studcheck.cases.model import Case
from studcheck.export.write import ExportFailure, export_cases, write_export
from studcheck.phh.export import PhhRefusal, export_case
from studcheck.phh.import_ import PhhError, case_yaml, import_text
from studcheck.safe_text import file_safe

EXIT_USAGE = 2
EXIT_FAILED = 1


def register(subparsers: Any) -> None:
    """Add `export` and `import` to the `studcheck` command."""
    export = subparsers.add_parser(
        "export", help="write cases as PHH hand histories (PokerKit's format) or as JSON with golden transcripts",
        description="--format phh: write each case as DIR/<ID>.phh; cases PHH cannot state are listed with the reason. "
                    "--format json: write DIR/index.json and DIR/cases/<ID>.json, every case with the reference "
                    "engine's golden transcript (spec/export.md). Exit 0, 1 if the reference engine fails a case "
                    "(json), or 2 on bad arguments.")
    export.add_argument("directory", metavar="DIR", type=Path, help="where to write the .phh files (created if missing)")
    export.add_argument("--format", choices=["phh", "json"], default="phh",
                        help="phh: PHH hand histories; json: the suite as language-neutral data (spec/export.md)")
    export.add_argument("--case", action="append", default=[], metavar="ID", help="only this case (repeatable)")
    export.add_argument("--cases", action="append", type=Path, metavar="PATH",
                        help="case files or directories to use instead of the bundled cases/ (repeatable)")
    export.set_defaults(handler=run_export)

    imported = subparsers.add_parser(
        "import", help="turn a PHH hand history into a case skeleton (lint then asks for its rule IDs)",
        description="Print (or write) a case skeleton for a PHH hand: deck, seats, stakes, the actions as steps and "
                    "the final stacks. Exit 0, or 2 if the file cannot be read as a stud hand.")
    imported.add_argument("file", metavar="FILE", type=Path, help="a .phh file (variant F7S, F7S/8 or FR)")
    imported.add_argument("-o", "--output", type=Path, metavar="OUT", help="write the case here instead of stdout")
    imported.add_argument("--id", dest="case_id", metavar="ID",
                          help="the case ID (default: <SH|RZ|HL>-PHH-<hash of the file>)")
    imported.set_defaults(handler=run_import)


def run_export(args: argparse.Namespace) -> int:
    try:
        cases = load_cases(args.cases)
    except CaseError as exc:
        print(f"studcheck export: {exc}", file=sys.stderr)
        return EXIT_USAGE
    selected = _select(cases, args.case)
    if selected is None:
        return EXIT_USAGE
    directory: Path = args.directory
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"studcheck export: cannot create {directory}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        return run_json_export(directory, selected)
    refused: list[tuple[str, str]] = []
    written = 0
    for case in sorted(selected, key=lambda c: c.id):
        try:
            text = export_case(case).text()
        except PhhRefusal as exc:
            refused.append((case.id, str(exc)))
            continue
        target = directory / f"{file_safe(case.id)}.phh"  # an ID too long for a file name is cut and hashed
        try:
            target.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"studcheck export: cannot write {target}: {exc.strerror or exc} "
                  f"({written} written before it)", file=sys.stderr)
            return EXIT_USAGE
        written += 1
    print(f"{written} hand histories written to {directory}, {len(refused)} cases not exported")
    for case_id, reason in refused:
        print(f"  {case_id}: {reason}")
    return 0


def run_json_export(directory: Path, cases: Sequence[Case]) -> int:
    """Write DIR/index.json and DIR/cases/<ID>.json (spec/export.md); exit 1 if the reference engine fails a case."""
    started = time.perf_counter()
    try:
        index, exported = export_cases(cases)
    except ExportFailure as exc:
        print(f"studcheck export: {exc} (nothing written: a golden transcript must come from a passing run)",
              file=sys.stderr)
        return EXIT_FAILED
    try:
        size = write_export(directory, index, exported)
    except OSError as exc:  # read-only, a file in the way, disk full: a reason, not a traceback
        where = exc.filename or directory
        print(f"studcheck export: cannot write {where}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{len(exported)} cases written to {directory} as JSON (index.json, cases/<ID>.json; "
          f"{size / 1e6:.1f} MB in {time.perf_counter() - started:.1f} s)")
    return 0


def _select(cases: list[Case], wanted: list[str]) -> list[Case] | None:
    if not wanted:
        return cases
    by_id = {case.id.upper(): case for case in cases}
    missing = [case_id for case_id in wanted if case_id.upper() not in by_id]
    if missing:
        print(f"studcheck export: no case with id {', '.join(missing)} (try `studcheck list`)", file=sys.stderr)
        return None
    return [by_id[case_id.upper()] for case_id in dict.fromkeys(wanted)]


def run_import(args: argparse.Namespace) -> int:
    path: Path = args.file
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"studcheck import: cannot read {path}: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        case = import_text(text, source=str(path), case_id=args.case_id)
    except PhhError as exc:
        print(f"studcheck import: {exc}", file=sys.stderr)
        return EXIT_USAGE
    output = case_yaml(case)
    if args.output is None:
        sys.stdout.write(output)
        return 0
    try:
        args.output.write_text(output, encoding="utf-8")
    except OSError as exc:
        print(f"studcheck import: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"wrote {args.output} ({case['id']}, {len(case['steps'])} steps); `studcheck lint {args.output}` says "
          "what it needs before it joins the suite", file=sys.stderr)
    return 0
