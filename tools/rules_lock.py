"""The rules lock: a rule's text cannot change without a changelog entry naming it.

`spec/rules.lock.json` holds, for every rule ID, a hash of what the rule says (its section in
spec/rules/*.md, whitespace-normalised, without the **Sources:** paragraph, plus the behavioural
fields of its spec/rules.yaml entry: variants, refusal, retired) and how many entries of
spec/CHANGELOG.md name it. `tests/unit/test_rules_lock.py` fails, naming the rule, when the spec and
the lock differ. `python tools/rules_lock.py --update` rewrites the lock, but only when every rule
whose hash changed (or that is new) is named by more changelog entries than the lock recorded: a
change of text always leaves a dated line behind (spec/README.md, "Rule IDs").

Usage: python tools/rules_lock.py [--update] [--root DIR]   (exit 0 up to date, 1 not, 2 bad input)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
LOCK = Path("spec/rules.lock.json")
CHANGELOG = Path("spec/CHANGELOG.md")
#: a heading that carries a rule ID in backticks: ### `BRING-IN.TIE.SUIT` — title
HEADING_ID = re.compile(r"^#{1,6}\s.*?`([A-Z0-9][A-Z0-9-]*(?:\.[A-Z0-9][A-Z0-9-]*)+)`")
RULE_ID = re.compile(r"`([A-Z0-9][A-Z0-9-]*(?:\.[A-Z0-9][A-Z0-9-]*)+)`")
#: fields of a rules.yaml entry that change what an engine must do (title and sources do not)
BEHAVIOURAL_FIELDS = ("variants", "refusal", "retired")


@dataclass(frozen=True, kw_only=True)
class Difference:
    """One rule whose text or index entry no longer matches the lock."""

    rule: str
    problem: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.problem}"


def rule_sections(root: Path) -> dict[str, tuple[str, str]]:
    """{rule ID: (file, section text)}: from the heading with the ID to the next heading."""
    found: dict[str, tuple[str, str]] = {}
    for path in sorted((root / "spec" / "rules").glob("*.md")):
        current: str | None = None
        lines: list[str] = []
        in_fence = False

        def close() -> None:
            if current is not None:
                found[current] = (path.relative_to(root).as_posix(), "\n".join(lines))

        for line in path.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
            if not in_fence and line.startswith("#"):
                close()
                match = HEADING_ID.match(line)
                current, lines = (match.group(1), [line]) if match else (None, [])
            elif current is not None:
                lines.append(line)
        close()
    return found


def normalise(section: str) -> str:
    """The section's words, one space apart, without its **Sources:** paragraph (citations only)."""
    paragraphs = [" ".join(block.split()) for block in re.split(r"\n\s*\n", section)]
    return "\n".join(p for p in paragraphs if p and not p.startswith("**Sources:**"))


def index_entries(root: Path) -> dict[str, dict[str, Any]]:
    data = yaml.safe_load((root / "spec" / "rules.yaml").read_text(encoding="utf-8"))
    return {str(entry["id"]): entry for entry in data["rules"]}


def fingerprints(root: Path) -> dict[str, str]:
    """{rule ID: sha256 of its normalised text and behavioural index fields}, for every indexed rule."""
    sections = rule_sections(root)
    result: dict[str, str] = {}
    for rule_id, entry in index_entries(root).items():
        text = normalise(sections.get(rule_id, ("", ""))[1])
        fields = {name: sorted(entry[name]) if name == "variants" else entry.get(name)
                  for name in BEHAVIOURAL_FIELDS}
        payload = text + "\n" + json.dumps(fields, sort_keys=True, ensure_ascii=False)
        result[rule_id] = hashlib.sha256(payload.encode("utf-8")).hexdigest()
    return result


def changelog_counts(root: Path) -> dict[str, int]:
    """{rule ID: number of changelog entries whose subject names it}.

    An entry is a top-level bullet (`- ...`, continued by indented lines); its subject is the list of
    backticked IDs before its first "(" -- `ALLIN.X`, `ALLIN.Y` (kind): ... -- so an ID merely
    mentioned in another rule's entry does not count for it.
    """
    counts: dict[str, int] = {}
    path = root / CHANGELOG
    if not path.is_file():
        return counts
    entries: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("- "):
            entries.append(line[2:])
        elif entries and line.startswith("  ") and line.strip():
            entries[-1] += " " + line.strip()
        elif not line.strip() or line.startswith("#"):
            entries.append("")  # a blank line or a heading ends the entry
    for entry in entries:
        subject = entry.split("(", 1)[0]
        for rule_id in set(RULE_ID.findall(subject)):
            counts[rule_id] = counts.get(rule_id, 0) + 1
    return counts


def read_lock(root: Path) -> dict[str, dict[str, Any]]:
    path = root / LOCK
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    rules: dict[str, dict[str, Any]] = data["rules"]
    return rules


def differences(root: Path) -> list[Difference]:
    """Every rule whose text or behavioural fields differ from the lock, or whose entries went away."""
    lock = read_lock(root)
    current = fingerprints(root)
    counts = changelog_counts(root)
    found: list[Difference] = []
    for rule_id, digest in current.items():
        locked = lock.get(rule_id)
        if locked is None:
            found.append(Difference(rule=rule_id, problem="new rule, not in spec/rules.lock.json"))
        elif locked["sha256"] != digest:
            found.append(Difference(rule=rule_id, problem="its text or rules.yaml entry differs from "
                                                          "spec/rules.lock.json"))
        elif counts.get(rule_id, 0) < int(locked["changelog_entries"]):
            found.append(Difference(rule=rule_id, problem="spec/CHANGELOG.md has fewer entries naming it "
                                                          "than the lock recorded (never delete an entry)"))
    for rule_id in lock:
        if rule_id not in current:
            found.append(Difference(rule=rule_id, problem="removed from spec/rules.yaml: an ID is never "
                                                          "removed, retire it instead"))
    return found


def unrecorded(root: Path) -> list[str]:
    """Changed or new rules that no new changelog entry names (an --update must refuse them)."""
    lock = read_lock(root)
    counts = changelog_counts(root)
    current = fingerprints(root)
    missing: list[str] = []
    for difference in differences(root):
        locked = lock.get(difference.rule)
        before = int(locked["changelog_entries"]) if locked else 0
        if difference.rule not in current or counts.get(difference.rule, 0) <= before:
            missing.append(difference.rule)
    return missing


def write_lock(root: Path) -> None:
    counts = changelog_counts(root)
    rules = {rule_id: {"sha256": digest, "changelog_entries": counts.get(rule_id, 0)}
             for rule_id, digest in sorted(fingerprints(root).items())}
    payload = {"about": "rule ID -> hash of its text (spec/rules/*.md, without Sources) and rules.yaml "
                        "variants/refusal/retired; changelog_entries = entries of spec/CHANGELOG.md naming "
                        "it. Rewrite only with: python tools/rules_lock.py --update",
               "rules": rules}
    (root / LOCK).write_text(json.dumps(payload, indent=1, sort_keys=False) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite spec/rules.lock.json (needs changelog entries)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout (default: this one)")
    args = parser.parse_args(argv)
    root: Path = args.root
    if not (root / "spec" / "rules.yaml").is_file():
        print(f"{root}: no spec/rules.yaml here", file=sys.stderr)
        return 2
    found = differences(root)
    if not args.update:
        for difference in found:
            print(difference)
        if found:
            print(f"{len(found)} rule(s) differ from {LOCK}: add a dated entry naming each to {CHANGELOG} "
                  "(spec/README.md, 'Rule IDs'), then run: python tools/rules_lock.py --update")
            return 1
        print(f"{LOCK}: up to date ({len(fingerprints(root))} rules)")
        return 0
    missing = unrecorded(root)
    if missing:
        for rule_id in missing:
            print(f"{rule_id}: changed, but no new entry of {CHANGELOG} names it", file=sys.stderr)
        print(f"lock not written: add an entry for each rule above to {CHANGELOG} "
              "(`ID` (kind): what changed for an engine. Cases: ...)", file=sys.stderr)
        return 1
    write_lock(root)
    print(f"{LOCK}: written ({len(found)} rule(s) changed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
