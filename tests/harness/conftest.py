"""Helpers for the harness tests: the broken engines, the fixture cases, a CLI runner."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ENGINES = HERE.parent / "engines"
CASES = HERE / "cases"


def engine(name: str) -> str:
    """The --engine command for one of tests/engines/<name>.py."""
    return shlex.join([sys.executable, str(ENGINES / f"{name}.py")])


def harness_main(argv: Sequence[str]) -> int:
    """`studcheck <argv>` through the harness's own subcommands (what cli.py registers)."""
    from studcheck.harness import commands

    parser = argparse.ArgumentParser(prog="studcheck")
    subparsers = parser.add_subparsers(dest="command", required=True)
    commands.register(subparsers)
    args = parser.parse_args(list(argv))
    code: int = args.handler(args)
    return code


@pytest.fixture
def run_harness(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    def run(*argv: str) -> tuple[int, str, str]:
        code = harness_main(argv)
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err, out + err
        return code, out, err

    return run
