"""The rule index (spec/rules.yaml) and the rule documents (spec/rules/*.md) must agree.

Cases and reports cite rule IDs; an ID without a normative section, a section without an index
entry, or a duplicated ID would make a citation ambiguous or dangling.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec"
RULES_DIR = SPEC / "rules"

#: Dot-separated upper-case words; hyphens are allowed inside every word (the topic `BRING-IN`
#: has one), but a word may not start with a hyphen.
ID_PATTERN = re.compile(r"^[A-Z0-9][A-Z0-9-]*(\.[A-Z0-9][A-Z0-9-]*)+$")
#: A Markdown heading whose text carries a rule ID in backticks.
HEADING_ID = re.compile(r"^#{1,6}\s.*?`([A-Z0-9][A-Z0-9-]*(?:\.[A-Z0-9][A-Z0-9-]*)+)`")
VARIANTS = {"stud_high", "razz", "stud_hilo8", "five_card_stud"}


def _all_entries() -> list[dict[str, Any]]:
    data = yaml.safe_load((SPEC / "rules.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict) and isinstance(data.get("rules"), list)
    entries: list[dict[str, Any]] = data["rules"]
    return entries


def _index() -> list[dict[str, Any]]:
    """The rules in force (a retired entry keeps its ID reserved but has no section)."""
    return [entry for entry in _all_entries() if "retired" not in entry]


def test_retired_entries_name_a_date_and_have_no_section() -> None:
    retired = [entry for entry in _all_entries() if "retired" in entry]
    headings = {rule_id for rule_id, _ in _heading_ids()}
    for entry in retired:
        assert re.match(r"^\d{4}-\d{2}-\d{2}: ", str(entry["retired"])), entry
        assert entry["id"] not in headings, f"{entry['id']} is retired but still has a section"
        for replacement in re.findall(r"replaced by ([A-Z0-9.-]+[A-Z0-9])", str(entry["retired"])):
            assert _in_force(replacement), f"{entry['id']}: {replacement} is neither in force nor replaced by a rule in force"


def _in_force(rule_id: str) -> bool:
    """In force, or retired later for rules that are (BIGBET.BRING-IN -> .OPEN -> .OPEN-ANY)."""
    entry = next((e for e in _all_entries() if e["id"] == rule_id), None)
    if entry is None:
        return False
    if "retired" not in entry:
        return True
    later = re.findall(r"replaced by ([A-Z0-9.-]+[A-Z0-9])", str(entry["retired"]))
    return bool(later) and all(_in_force(rule) for rule in later)


def _heading_ids() -> list[tuple[str, Path]]:
    """Every (rule ID, file) pair found in a heading of spec/rules/*.md, in file order."""
    found: list[tuple[str, Path]] = []
    in_fence = False
    for path in sorted(RULES_DIR.glob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
                continue
            match = None if in_fence else HEADING_ID.match(line)
            if match:
                found.append((match.group(1), path))
    return found


def test_index_entries_have_the_expected_shape() -> None:
    entries = _index()
    assert len(entries) > 0
    for entry in entries:
        assert {"id", "title", "variants", "doc", "sources"} <= set(entry) <= {
            "id", "title", "variants", "doc", "sources", "refusal", "retired"}, entry
        assert entry.get("refusal", False) in (True, False), entry
        assert isinstance(entry["title"], str) and entry["title"].strip(), entry
        assert entry["variants"] and set(entry["variants"]) <= VARIANTS, entry
        assert isinstance(entry["sources"], list) and entry["sources"], entry
        assert all(isinstance(tag, str) and tag for tag in entry["sources"]), entry


def test_ids_are_unique_and_well_formed() -> None:
    ids = [entry["id"] for entry in _all_entries()]
    duplicates = [rule_id for rule_id, count in Counter(ids).items() if count > 1]
    assert duplicates == []
    malformed = [rule_id for rule_id in ids if not ID_PATTERN.match(rule_id)]
    assert malformed == []


def test_every_doc_path_exists_and_is_a_rules_document() -> None:
    for entry in _index():
        doc = ROOT / entry["doc"]
        assert doc.is_file(), f"{entry['id']}: {entry['doc']} does not exist"
        assert doc.parent == RULES_DIR and doc.suffix == ".md", entry


def test_every_index_id_has_exactly_one_heading_in_its_doc() -> None:
    headings = _heading_ids()
    files_by_id: dict[str, list[Path]] = {}
    for rule_id, path in headings:
        files_by_id.setdefault(rule_id, []).append(path)
    for entry in _index():
        paths = files_by_id.get(entry["id"], [])
        assert len(paths) == 1, f"{entry['id']}: {len(paths)} headings ({[p.name for p in paths]})"
        assert paths[0] == ROOT / entry["doc"], f"{entry['id']}: heading in {paths[0].name}, doc says {entry['doc']}"


def test_every_heading_id_is_in_the_index() -> None:
    indexed = {entry["id"] for entry in _index()}
    stray = sorted({rule_id for rule_id, _ in _heading_ids()} - indexed)
    assert stray == []


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("BRING-IN.TIE.SUIT", True),
        ("POT.ODD-CHIP.BEST-FIVE", True),
        ("SETUP", False),
        ("setup.players", False),
        ("BET..CAP", False),
        ("BET.-CAP", False),
        ("BET.CAP.", False),
    ],
)
def test_id_pattern_itself(text: str, ok: bool) -> None:
    """Guards the checker: a pattern that accepted everything would make the tests above vacuous."""
    assert bool(ID_PATTERN.match(text)) is ok


def test_heading_pattern_finds_ids_only_in_headings() -> None:
    assert HEADING_ID.match("### `BET.CAP` — A bet and raises") is not None
    assert HEADING_ID.match("See `BET.CAP` for the cap.") is None
    assert HEADING_ID.match("### Terms") is None
