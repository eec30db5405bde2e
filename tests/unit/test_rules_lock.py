"""A rule's text cannot change without a changelog entry naming it (spec/rules.lock.json).

A rule ID never changes meaning (spec/README.md, "Rule IDs"): a change of behaviour gets a new ID, and
every change of a rule's text, even a clarification, leaves a dated line in spec/CHANGELOG.md. The
lock holds a hash of every rule; these tests fail, naming the rule, when the spec and the lock
differ, and check that tools/rules_lock.py refuses to rewrite the lock for a silent edit.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import rules_lock  # noqa: E402  (tools/ is not a package)

from studcheck.cases.coverage import coverage  # noqa: E402
from studcheck.cases.load import retired_rules  # noqa: E402


def test_every_rule_matches_the_lock() -> None:
    found = rules_lock.differences(ROOT)
    assert not found, (
        "rules changed without a changelog entry:\n" + "\n".join(f"  {d}" for d in found)
        + "\nAdd a dated entry naming each rule to spec/CHANGELOG.md (new ID for a change of behaviour, "
          "spec/README.md 'Rule IDs'), then run: python tools/rules_lock.py --update")


@pytest.fixture
def spec_copy(tmp_path: Path) -> Path:
    """A checkout with only spec/ in it: rules, index, changelog and lock."""
    shutil.copytree(ROOT / "spec", tmp_path / "spec")
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


CHECK_SENTENCE = "A check facing a wager MUST be refused with `illegal_action`."


def test_a_silent_edit_fails_naming_the_rule_and_update_refuses_it(spec_copy: Path) -> None:
    lock_before = (spec_copy / "spec" / "rules.lock.json").read_text(encoding="utf-8")
    _edit(spec_copy / "spec" / "rules" / "05-betting.md", CHECK_SENTENCE,
          "A check facing a wager MAY be accepted.")
    assert [d.rule for d in rules_lock.differences(spec_copy)] == ["BET.CHECK"]
    assert rules_lock.main(["--root", str(spec_copy)]) == 1
    assert rules_lock.main(["--update", "--root", str(spec_copy)]) == 1
    assert (spec_copy / "spec" / "rules.lock.json").read_text(encoding="utf-8") == lock_before


def test_an_entry_that_only_mentions_the_rule_does_not_record_it(spec_copy: Path) -> None:
    _edit(spec_copy / "spec" / "rules" / "05-betting.md", CHECK_SENTENCE, "A check facing a wager is fine.")
    _edit(spec_copy / "spec" / "CHANGELOG.md", "## 2026-12-01\n",
          "## 2099-01-01\n\n- `BET.FOLD` (changed text, same behaviour): unlike `BET.CHECK`. Cases: none.\n\n"
          "## 2026-12-01\n")
    assert rules_lock.unrecorded(spec_copy) == ["BET.CHECK"]


def test_an_edit_with_a_changelog_entry_updates_the_lock(spec_copy: Path) -> None:
    _edit(spec_copy / "spec" / "rules" / "05-betting.md", CHECK_SENTENCE,
          "A check facing a wager MUST be refused (`illegal_action`).")
    _edit(spec_copy / "spec" / "CHANGELOG.md", "## 2026-12-01\n",
          "## 2099-01-01\n\n- `BET.CHECK` (changed text, same behaviour): reworded. Cases: none.\n\n"
          "## 2026-12-01\n")
    assert rules_lock.main(["--update", "--root", str(spec_copy)]) == 0
    assert rules_lock.differences(spec_copy) == []


def test_index_fields_count_but_sources_do_not(spec_copy: Path) -> None:
    index = spec_copy / "spec" / "rules.yaml"
    _edit(index, "{id: BET.LIMITS, title: Small bet on third and fourth street; big bet on fifth to seventh, "
                 "variants: [stud_high, razz, stud_hilo8]",
          "{id: BET.LIMITS, title: Small bet on third and fourth street; big bet on fifth to seventh, "
          "variants: [stud_high, razz]")
    _edit(spec_copy / "spec" / "rules" / "05-betting.md", "**Sources:** `sources/003`",
          "**Sources:** `sources/003` (a citation added)")
    assert [d.rule for d in rules_lock.differences(spec_copy)] == ["BET.LIMITS"]


def test_a_removed_rule_is_named(spec_copy: Path) -> None:
    index = spec_copy / "spec" / "rules.yaml"
    lines = index.read_text(encoding="utf-8").splitlines(keepends=True)
    index.write_text("".join(line for line in lines if "{id: HILO.SCOOP," not in line), encoding="utf-8")
    found = rules_lock.differences(spec_copy)
    assert [d.rule for d in found] == ["HILO.SCOOP"] and "retire it instead" in found[0].problem


def test_a_deleted_changelog_entry_is_named(spec_copy: Path) -> None:
    _edit(spec_copy / "spec" / "CHANGELOG.md", "- `POT.SIDE` (changed text, same behaviour)",
          "- POT.SIDE (changed text, same behaviour)")
    assert [d.rule for d in rules_lock.differences(spec_copy)] == ["POT.SIDE"]


def test_a_retired_rule_is_in_the_lock_but_not_asked_for_by_coverage() -> None:
    retired = set(retired_rules())
    assert {"ALLIN.CUMULATIVE", "BIGBET.BRING-IN", "POT.ODD-CHIP.BEST-FIVE"} <= retired
    assert retired <= set(rules_lock.fingerprints(ROOT))  # a retired ID stays locked: never reused
    rows = coverage([])  # no case at all: every rule in force is a row with nothing citing it
    assert not {row.rule.id for row in rows} & retired
    # citing a retired rule is a lint problem: tests/bad_cases/retired_rule.yaml, test_lint.py


def test_every_changelog_entry_lists_its_cases() -> None:
    """spec/CHANGELOG.md: each entry says what changed for an engine and lists the cases it touches
    ("Cases: none change." when none do), so a reader can go from a rule's change to its scenarios."""
    text = (ROOT / "spec" / "CHANGELOG.md").read_text(encoding="utf-8")
    entries: list[str] = []
    for line in text.splitlines():
        if line.startswith("- `"):
            entries.append(line)
        elif entries and entries[-1] and line.startswith("  ") and line.strip():
            entries[-1] += " " + line.strip()
        elif not line.strip() or line.startswith(("#", "- ")):
            entries.append("")  # a blank line, a heading or another list ends the entry
    missing = [entry[:90] for entry in entries if entry and "Cases:" not in entry]
    assert not missing, "changelog entries without 'Cases:':\n" + "\n".join(missing)
