"""Paths and a CLI runner shared by the harness tests (a unique module name, so it never collides with another conftest)."""

from __future__ import annotations

import argparse
import contextlib
import io
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENGINES = HERE.parent / "engines"
CASES = HERE / "cases"


def engine(name: str) -> str:
    """The --engine command for one of tests/engines/<name>.py."""
    return shlex.join([sys.executable, str(ENGINES / f"{name}.py")])


def harness_main(argv: Sequence[str]) -> int:
    """`studcheck <argv>` through the harness's own subcommands (what cli.py registers)."""
    from studcheck.commands import run as commands

    parser = argparse.ArgumentParser(prog="studcheck")
    subparsers = parser.add_subparsers(dest="command", required=True)
    commands.register(subparsers)
    args = parser.parse_args(list(argv))
    code: int = args.handler(args)
    return code


def run_quietly(*argv: str) -> tuple[int, str, str]:
    """`harness_main` with stdout and stderr captured, for module-scoped fixtures (where `capsys`
    cannot go); like the `run_harness` fixture it forbids tracebacks."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = harness_main(argv)
    assert "Traceback" not in out.getvalue() + err.getvalue(), out.getvalue() + err.getvalue()
    return code, out.getvalue(), err.getvalue()
