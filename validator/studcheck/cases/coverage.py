"""`studcheck coverage`: which rules have cases, per variant they apply to.

A rule that applies to a variant but has no case in that variant is a hole in the suite; the
command exits 1 while there is one, so CI keeps the suite and the rule index in step.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from studcheck.cases.load import RuleInfo, rule_index
from studcheck.cases.model import Case, StepKind
from studcheck.rules import Variant

SHORT = {Variant.STUD_HIGH: "SH", Variant.RAZZ: "RZ", Variant.STUD_HILO8: "HL", Variant.FIVE_CARD_STUD: "FS"}


@dataclass(frozen=True, kw_only=True)
class RuleCoverage:
    """The cases citing one rule, by variant; only the variants the rule applies to are keys."""

    rule: RuleInfo
    cases: dict[Variant, tuple[str, ...]]
    #: for a rule that forbids an action (or a setup): the cases with a `reject` step citing it, or
    #: setup-refusal cases citing it, by variant
    rejects: dict[Variant, tuple[str, ...]] = field(default_factory=dict)

    def missing(self) -> list[Variant]:
        return [variant for variant, ids in self.cases.items() if not ids]

    def missing_rejects(self) -> list[Variant]:
        if not self.rule.refusal:
            return []
        return [variant for variant in self.cases if not self.rejects.get(variant)]


def coverage(cases: Iterable[Case], rules: dict[str, RuleInfo] | None = None) -> list[RuleCoverage]:
    """One row per rule of spec/rules.yaml, in its order."""
    rules = rule_index() if rules is None else rules
    cited: dict[tuple[str, Variant], list[str]] = {}
    refused: dict[tuple[str, Variant], list[str]] = {}
    for case in cases:
        has_reject = case.setup_refused is not None or any(step.kind is StepKind.REJECT for step in case.steps)
        for rule_id in case.rules:
            cited.setdefault((rule_id, case.variant), []).append(case.id)
            if has_reject:
                refused.setdefault((rule_id, case.variant), []).append(case.id)
    applies = [variant for variant in Variant]
    return [RuleCoverage(rule=info,
                         cases={v: tuple(sorted(cited.get((info.id, v), []))) for v in applies if v in info.variants},
                         rejects={v: tuple(sorted(refused.get((info.id, v), []))) for v in applies if v in info.variants})
            for info in rules.values()]


def uncovered(rows: Sequence[RuleCoverage], variant: Variant | None = None) -> list[tuple[str, Variant]]:
    """(rule id, variant) pairs the rule applies to but no case tests."""
    return [(row.rule.id, missing) for row in rows for missing in row.missing()
            if variant is None or missing is variant]


def unrefused(rows: Sequence[RuleCoverage], variant: Variant | None = None) -> list[tuple[str, Variant]]:
    """(rule id, variant) pairs of a rule that forbids something but has no case refusing it.

    A `reject` step refuses an action; a setup-refusal case refuses a whole hand at new_hand.
    """
    return [(row.rule.id, missing) for row in rows for missing in row.missing_rejects()
            if variant is None or missing is variant]


def _variants(variant: Variant | None) -> list[Variant]:
    return [variant] if variant is not None else list(Variant)


def render_text(rows: Sequence[RuleCoverage], variant: Variant | None = None) -> str:
    variants = _variants(variant)
    shown = [row for row in rows if any(v in row.cases for v in variants)]
    width = max([len(row.rule.id) for row in shown] + [4])
    header = "RULE".ljust(width) + "".join(f"{SHORT[v]:>5}" for v in variants) + "  TITLE"
    lines = [header]
    for row in shown:
        cells = ""
        for v in variants:
            ids = row.cases.get(v)
            cells += f"{'-':>5}" if ids is None else (f"{len(ids):>5}" if ids else f"{'0!':>5}")
        lines.append(row.rule.id.ljust(width) + cells + "  " + row.rule.title)
    lines.append("")
    lines.append(_summary(shown, variant))
    return "\n".join(lines) + "\n"


def render_markdown(rows: Sequence[RuleCoverage], variant: Variant | None = None) -> str:
    variants = _variants(variant)
    shown = [row for row in rows if any(v in row.cases for v in variants)]
    lines = ["| Rule | " + " | ".join(v.value for v in variants) + " | Title |",
             "|---|" + "---:|" * len(variants) + "---|"]
    for row in shown:
        cells = []
        for v in variants:
            ids = row.cases.get(v)
            cells.append("–" if ids is None else (str(len(ids)) if ids else "**0**"))
        lines.append(f"| `{row.rule.id}` | " + " | ".join(cells) + f" | {row.rule.title} |")
    lines.append("")
    lines.append(_summary(shown, variant))
    return "\n".join(lines) + "\n"


def _summary(rows: Sequence[RuleCoverage], variant: Variant | None) -> str:
    holes = uncovered(rows, variant)
    applicable = sum(1 for row in rows for v in row.cases if variant is None or v is variant)
    text = f"{len(rows)} rules, {applicable - len(holes)}/{applicable} rule-variant pairs covered"
    if holes:
        text += f"; {len(holes)} without a case (marked 0! / **0**)"
    refusal_rules = [row for row in rows if row.rule.refusal]
    missing = unrefused(rows, variant)
    text += f"\n{len(refusal_rules)} rules forbid an action or a setup; "
    if missing:
        text += "no `reject` or `setup_refused` case yet for: " + ", ".join(f"{rule} ({v.value})" for rule, v in missing)
    else:
        text += "each has a `reject` or `setup_refused` case in every variant it applies to"
    return text
