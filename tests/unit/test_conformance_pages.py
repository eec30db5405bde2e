"""docs/conformance/evaluators/: the published pages are what tools/conformance/evaluators.py makes of
the committed results (generated, never edited), for at least nine libraries of two registries, each at
its pinned version.

What the libraries answer is checked where they are installed: `.ci/run` reruns every library
(`tools/conformance/evaluators.py --check`) and fails when a result differs from the one published.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "conformance" / "evaluators"


def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("evaluators_tool", ROOT / "tools" / "conformance" / "evaluators.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def committed() -> list[dict[str, Any]]:
    evaluators = tool()
    return [json.loads((OUT / library.slug / "results.json").read_text(encoding="utf-8")) for library in evaluators.libraries()]


def test_every_library_has_a_page_at_its_pinned_version() -> None:
    evaluators = tool()
    results = committed()
    pins = evaluators.pins()
    assert len(results) >= 9
    assert {result["registry"] for result in results} == {"pypi", "npm"}
    for result in results:
        assert result["version"] == pins[result["name"]], result["name"]
        declared = [kind for kind, row in result["kinds"].items() if row["declared"]]
        assert declared, result["name"]
        for kind in declared:  # every declared kind was run: the cases and the exhaustive batch
            row = result["kinds"][kind]
            assert row["pass"] + row["fail"] + row["error"] >= 2 and row["not_applicable"] == 0, (result["name"], kind)
        assert all(cause["checked"] for cause in result["causes"]), f"{result['name']}: a cause published unchecked"


def test_the_pages_are_generated_from_the_results(tmp_path: Path) -> None:
    """Rebuilding every page from the committed results gives the committed pages, byte for byte."""
    evaluators = tool()
    libraries = {library.name: library for library in evaluators.libraries()}
    results = committed()
    for result in results:  # results.json leaves the command out (a venv path): the pages show it relative
        result["command"] = libraries[result["name"]].command(evaluators.VENV)
    evaluators.write_pages(tmp_path, results, libraries)
    for name in ["README.md", "index.html", *(f"{library.slug}/README.md" for library in libraries.values())]:
        assert (tmp_path / name).read_text(encoding="utf-8") == (OUT / name).read_text(encoding="utf-8"), name


def test_the_summary_links_every_library_page() -> None:
    summary = (OUT / "index.html").read_text(encoding="utf-8")
    for library in tool().libraries():
        assert f'href="{library.slug}/index.html"' in summary
        assert (OUT / library.slug / "index.html").is_file()
