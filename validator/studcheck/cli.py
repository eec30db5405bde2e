"""The `studcheck` command: parse arguments, build objects, return an exit code.

Each command group is a module of studcheck/commands/ that registers its own subcommands, so this
module stays a table of contents.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from studcheck import __version__

EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a command killed by a closed pipe


def build_parser() -> argparse.ArgumentParser:
    from studcheck.commands import cases as case_commands
    from studcheck.commands import export as phh_commands
    from studcheck.commands import fuzz as fuzz_commands
    from studcheck.commands import report as report_commands
    from studcheck.commands import rulebook as rulebook_commands
    from studcheck.commands import run as harness_commands

    parser = argparse.ArgumentParser(
        prog="studcheck",
        description="Rules, conformance suite and reference validator for stud poker: Seven Card Stud High, Razz, "
                    "Stud Hi-Lo 8-or-better and Five-Card Stud, in fixed, pot and no limit.",
    )
    parser.add_argument("--version", action="version", version=f"studcheck {__version__}")
    parser.add_argument("--no-cache", action="store_true", default=False,
                        help="read every case file afresh, not from the cache of loaded cases (also: STUDCHECK_NO_CACHE=1)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    harness_commands.register(subparsers)
    case_commands.register(subparsers)
    fuzz_commands.register(subparsers)
    report_commands.register(subparsers)
    phh_commands.register(subparsers)
    rulebook_commands.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if list(sys.argv[1:] if argv is None else argv) == ["serve"]:
        # An engine process, started once per engine (per `--jobs` worker, per mutant, per fuzz
        # worker): it imports the engine and the protocol only, not every command's modules.
        from studcheck.protocol.serve import main as serve

        return serve()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.no_cache:  # through the environment, so that worker processes and engines started from here see it too
        from studcheck.cases.cache import NO_CACHE_ENV

        os.environ[NO_CACHE_ENV] = "1"
    try:
        code: int = args.handler(args)
        sys.stdout.flush()  # a closed pipe shows up here for the last buffered lines
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `studcheck list | head`: the reader went away. Say nothing more, and keep Python from
        # complaining when it flushes stdout at exit (the documented recipe).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return code


if __name__ == "__main__":
    raise SystemExit(main())
