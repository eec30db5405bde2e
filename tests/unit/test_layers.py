"""No package imports a layer above it (DESIGN: one layer of commands), and no studcheck module
imports itself round a cycle: read from the source with ast.

Every import counts: at the top, inside a function, or under `if TYPE_CHECKING` (a cycle hidden
there is still two modules that need each other to be read). A package may use its own modules and
any lower layer; two packages of one layer stay independent of each other. Commands sit on top:
`studcheck.commands` (every subcommand's module), `cli`, `pytest_plugin`, `pytest_items`, `__main__`.
"""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Mapping
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
    rank = RANK[unit]
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


def module_name(relative: Path) -> str:
    """`engine/state.py` -> `studcheck.engine.state`; `engine/__init__.py` -> `studcheck.engine`."""
    parts = ["studcheck", *relative.with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(name: str, source: str, known: set[str], *, package: bool = False) -> set[str]:
    """The studcheck modules (of `known`) a module imports anywhere in it: `from studcheck.a import b`
    is the module `studcheck.a.b` if there is one, else `studcheck.a`; relative imports resolved.
    `package`: the source is an `__init__.py` (its own name is the base of a relative import)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".") if package else name.split(".")[:-1]
                base = ".".join([*parts[:len(parts) - node.level + 1], *([node.module] if node.module else [])])
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if target in known else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {target for target in found if target in known and target != name}


def module_graph(sources: Mapping[Path, str]) -> dict[str, set[str]]:
    """Module -> the studcheck modules it imports, for sources keyed by their path inside studcheck/."""
    names = {module_name(relative): relative for relative in sources}
    return {name: imported_modules(name, sources[relative], set(names), package=relative.name == "__init__.py")
            for name, relative in names.items()}


def cycle(graph: Mapping[str, set[str]]) -> list[str]:
    """One import cycle of the graph (`a -> b -> a`), or [] if there is none."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return []


def test_no_studcheck_module_imports_itself_round_a_cycle() -> None:
    sources = {path.relative_to(ROOT): path.read_text(encoding="utf-8") for path in sorted(ROOT.rglob("*.py"))
               if "_data" not in path.relative_to(ROOT).parts}
    graph = module_graph(sources)
    assert len(graph) == len(sources) and graph["studcheck.commands.run"] >= {"studcheck.harness.report"}
    found = cycle(graph)
    assert found == [], f"import cycle: {' -> '.join(found)}"


def test_the_cycle_check_sees_a_hidden_cycle() -> None:
    """An import inside a function, one under TYPE_CHECKING and a relative one all make edges."""
    sources = {
        Path("a.py"): "def f():\n    from studcheck.pkg import b\n",
        Path("pkg/__init__.py"): "",
        Path("pkg/b.py"): "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import X\n",
        Path("pkg/c.py"): "import studcheck.a\nfrom studcheck import cards\n",
    }
    graph = module_graph(sources)
    assert graph == {"studcheck.a": {"studcheck.pkg.b"}, "studcheck.pkg": set(), "studcheck.pkg.b": {"studcheck.pkg.c"},
                     "studcheck.pkg.c": {"studcheck.a"}}
    assert sorted(cycle(graph)[:-1]) == ["studcheck.a", "studcheck.pkg.b", "studcheck.pkg.c"]
    del sources[Path("pkg/c.py")]
    assert cycle(module_graph(sources)) == []
