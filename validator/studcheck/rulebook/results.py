"""A run report's results per rule, for the rule sections of `studcheck rulebook --report`.

Counted from the HTML report's own matrix (report/model.py): a case is blamed on a rule exactly
where the report's cell is red, affected where it cites the rule but broke another or none named,
passing where it passed. One engine's variants are added together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from studcheck.report.load import RunReport
from studcheck.report.model import build_model, load_rules


@dataclass(frozen=True, kw_only=True)
class EngineResult:
    """One engine's cases of one rule: blamed (case ID, expected failure?), affected and passing counts."""

    engine: str
    blamed: tuple[tuple[str, bool], ...]
    affected: int
    passing: int


def rule_results(reports: Sequence[RunReport]) -> dict[str, tuple[EngineResult, ...]]:
    """Rule ID -> one result per engine whose cases cite it or broke it (engines in report order)."""
    model = build_model(reports, load_rules())
    found: dict[str, tuple[EngineResult, ...]] = {}
    for chapter in model.chapters:
        for row in chapter.rows:
            blamed: dict[str, list[tuple[str, bool]]] = {}
            tally: dict[str, dict[str, int]] = {}
            for column, cell in zip(model.columns, row.cells, strict=True):
                counts = tally.setdefault(column.label, {"a": 0, "p": 0})
                cases = blamed.setdefault(column.label, [])
                for entry in cell.cases:
                    category = cell.category(entry)
                    if category in ("b", "x"):
                        cases.append((entry.id, category == "x"))
                    elif category in counts:
                        counts[category] += 1
            results = tuple(EngineResult(engine=label, blamed=tuple(sorted(blamed[label])), affected=tally[label]["a"],
                                         passing=tally[label]["p"])
                            for label in tally if blamed[label] or tally[label]["a"] or tally[label]["p"])
            if results:
                found[row.rule.id] = results
    return found


def sources_line(reports: Sequence[RunReport], results: Mapping[str, tuple[EngineResult, ...]]) -> str:
    """What the results were read from, for the site's pages: the files and the engines in them."""
    engines = list(dict.fromkeys(result.engine for rows in results.values() for result in rows))
    return f"{', '.join(report.path for report in reports)} ({', '.join(engines) or 'no engine'})"
