"""The `studcheck` command: parse arguments, build objects, return an exit code.

Each command group lives next to the code it drives and registers its own subcommands, so this
module stays a table of contents.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from studcheck import __version__


def build_parser() -> argparse.ArgumentParser:
    from studcheck.cases import commands as case_commands
    from studcheck.fuzz import commands as fuzz_commands
    from studcheck.harness import commands as harness_commands

    parser = argparse.ArgumentParser(
        prog="studcheck",
        description="Conformance suite and reference validator for Seven Card Stud, Razz and Stud Hi-Lo.",
    )
    parser.add_argument("--version", action="version", version=f"studcheck {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    harness_commands.register(subparsers)
    case_commands.register(subparsers)
    fuzz_commands.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    raise SystemExit(main())
