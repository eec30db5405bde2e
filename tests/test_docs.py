"""Every `studcheck ...` command shown in the docs is one the command line accepts.

Documentation drifts: an option renamed or removed leaves a command that fails for the reader who
copies it. This parses each documented command with studcheck's own argument parser (running them
would need the readers' engines); a sample output in the docs is checked where it is produced.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from studcheck.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "cases" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"```(?:sh|bash|console)\n(.*?)```", re.S)


def documented_commands() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for path in DOCS:
        for block in FENCE.findall(path.read_text(encoding="utf-8")):
            text = block.replace("\\\n", " ")
            for line in text.splitlines():
                line = line.strip().removeprefix("$ ")
                for command in line.split("&&"):
                    words = shlex.split(command, comments=True)
                    while words and "=" in words[0] and not words[0].startswith("-"):
                        words = words[1:]  # VAR=value prefixes
                    words = [word.strip("[]") for word in words]  # synopsis notation: [--variant razz]
                    if words and Path(words[0]).name == "studcheck":
                        found.append((f"{path.relative_to(ROOT)}: {command.strip()}", shlex.join(words[1:])))
    return found


COMMANDS = documented_commands()


def test_the_docs_show_commands() -> None:
    assert len(COMMANDS) >= 20, COMMANDS


@pytest.mark.parametrize(("where", "arguments"), COMMANDS, ids=[where for where, _ in COMMANDS])
def test_documented_command_parses(where: str, arguments: str) -> None:
    words = shlex.split(arguments)
    if words and words[0] in ("--version", "--help", "-h"):
        return
    try:
        build_parser().parse_args(words)
    except SystemExit as exc:
        pytest.fail(f"{where}: the command line refuses it (exit {exc.code})")
