"""No package imports a layer above it (DESIGN: one layer of commands), read from the source with ast.

Every import counts: at the top, inside a function, or under `if TYPE_CHECKING`. A package may use
its own modules and any lower layer; two packages of one layer stay independent of each other.
Commands sit on top: `studcheck.commands`, `cli`, `pytest_plugin`, and the command modules that
still live beside their packages (COMMAND_MODULES, to move into studcheck/commands/).
"""

from __future__ import annotations

import ast
from pathlib import Path

import studcheck

ROOT = Path(studcheck.__file__).resolve().parent
#: lowest first; a name is a subpackage or a top-level module of studcheck
LAYERS: list[set[str]] = [
    {"studcheck", "cards", "resources", "jsonio", "safe_text"},
    {"rules", "evaluate", "schemacheck"},
    {"engine", "evaluation"},
    {"protocol"},
    {"cases"},
    {"harness", "adapters"},
    {"phh", "fuzz", "report", "export"},
    {"rulebook"},
    {"commands", "cli", "pytest_plugin", "pytest_items", "__main__"},
]
#: command modules not yet moved into studcheck/commands/ (others were editing their packages)
COMMAND_MODULES = {"harness/commands.py", "report/commands.py", "fuzz/commands.py"}
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
TOP = len(LAYERS) - 1


def unit_of(relative: Path) -> str:
    """`cases/load.py` -> `cases`; `cli.py` -> `cli`; `__init__.py` -> `studcheck`."""
    if len(relative.parts) > 1:
        return relative.parts[0]
    return "studcheck" if relative.stem == "__init__" else relative.stem


def imported_units(source: str) -> set[str]:
    """The studcheck packages or top-level modules a module imports (anywhere in it)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "studcheck":
                names = [f"studcheck.{alias.name}" for alias in node.names]
            else:
                names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] != "studcheck":
                continue
            unit = parts[1] if len(parts) > 1 else "studcheck"
            found.add(unit if unit in RANK else "studcheck")  # `from studcheck import __version__`
    return found


def violations(relative: Path, source: str) -> list[str]:
    unit = unit_of(relative)
    rank = TOP if relative.as_posix() in COMMAND_MODULES else RANK[unit]
    if rank == TOP:  # commands build objects from every layer, and cli gathers the commands
        return []
    bad = {target for target in imported_units(source) if target != unit and RANK[target] >= rank}
    return [f"{relative}: imports studcheck.{target} (layer {RANK[target]}, not below its own {rank})" for target in sorted(bad)]


def test_every_package_is_placed_in_a_layer() -> None:
    units = {unit_of(path.relative_to(ROOT)) for path in ROOT.rglob("*.py") if "_data" not in path.parts}
    assert units - set(RANK) == set()


def test_no_package_imports_a_layer_above_it() -> None:
    found: list[str] = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if "_data" in relative.parts:
            continue
        found.extend(violations(relative, path.read_text(encoding="utf-8")))
    assert found == []


def test_the_checker_sees_a_hidden_upward_import() -> None:
    """The check itself: an import inside a function, and one under TYPE_CHECKING, both count."""
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from studcheck.harness.runner import Verdict\n"
              "def f():\n    from studcheck import report\n    import studcheck.commands.cases\n")
    assert violations(Path("cases/model.py"), source) == [
        "cases/model.py: imports studcheck.commands (layer 8, not below its own 4)",
        "cases/model.py: imports studcheck.harness (layer 5, not below its own 4)",
        "cases/model.py: imports studcheck.report (layer 6, not below its own 4)",
    ]
    assert violations(Path("phh/export.py"), "from studcheck.fuzz.census import merge_censuses\n") == [
        "phh/export.py: imports studcheck.fuzz (layer 6, not below its own 6)"]
    assert violations(Path("commands/merge.py"), "from studcheck.fuzz.census import merge_censuses\n") == []
