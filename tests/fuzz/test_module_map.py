"""The fuzzer's modules form one pipeline with no import cycle, and the module map names them all.

Every import counts: at the top, inside a function, or under `if TYPE_CHECKING` (a cycle hidden
there is still two modules that need each other to be read).
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import studcheck.fuzz

PACKAGE = Path(studcheck.fuzz.__file__).resolve().parent
PREFIX = "studcheck.fuzz."


def imports(path: Path) -> set[str]:
    """The fuzz modules `path` imports (`from studcheck.fuzz.play import X`, `from studcheck.fuzz import play`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith(PREFIX):
                found.add(node.module.removeprefix(PREFIX))
            elif node.module == "studcheck.fuzz":
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name.removeprefix(PREFIX) for alias in node.names if alias.name.startswith(PREFIX))
    return found


def graph() -> dict[str, set[str]]:
    return {path.stem: imports(path) for path in sorted(PACKAGE.glob("*.py")) if path.stem != "__init__"}


def test_the_fuzz_package_has_no_import_cycle() -> None:
    modules = graph()
    assert {"config", "play", "compare", "shrink", "write", "search", "pool", "census"} <= set(modules)
    try:
        order = list(graphlib.TopologicalSorter(modules).static_order())
    except graphlib.CycleError as exc:
        raise AssertionError(f"import cycle in studcheck.fuzz: {' -> '.join(exc.args[1])}") from None
    # the command on top, studcheck/commands/fuzz.py, is held above every package by tests/unit/test_layers.py
    assert order.index("play") < order.index("shrink") < order.index("search") < order.index("pool")


def test_the_cycle_check_sees_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("from studcheck.fuzz.b import x\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from studcheck.fuzz import a\n",
                                   encoding="utf-8")
    modules = {path.stem: imports(path) for path in tmp_path.glob("*.py")}
    assert modules == {"a": {"b"}, "b": {"a"}}
    try:
        list(graphlib.TopologicalSorter(modules).static_order())
    except graphlib.CycleError:
        return
    raise AssertionError("the cycle a <-> b was not seen")


def test_the_module_map_names_every_module() -> None:
    described = studcheck.fuzz.__doc__ or ""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "fuzzing.md").read_text(encoding="utf-8")
    for module in graph():
        assert f"{module}.py" in described, f"fuzz/__init__.py's module map does not name {module}.py"
        assert f"{module}.py" in docs, f"docs/fuzzing.md's module map does not name {module}.py"
