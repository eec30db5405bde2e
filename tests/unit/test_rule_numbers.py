"""The numbers in the rules' text agree with the engine.

Every rule section of spec/rules/*.md is scanned (its normative text: what comes before
`**Applies to:**`) for numbers: digits, number words (one to ten, twice, half, double), the words
of arithmetic (plus, minus, times) and the arithmetic of code spans (`bring_in + 1`, `2 × (T − L) >= U`). Each number must lie inside a
fragment of the text that either

- a check of rule_number_checks.py or rule_number_checks_betting.py verifies (the check sets the engine at the boundary the
  fragment states and asserts its behaviour on both sides), or
- ALLOWED below explains (a number that is no threshold: a pronoun "one", a rationale, a count
  another check or test pins; each entry gives its reason).

Both lists quote the text, and every quoted fragment must still occur in it. So a number added to a
rule without a check fails `test_every_number_is_checked_or_explained`; a number changed in the
text fails `test_every_quoted_fragment_is_in_the_text` (the check quotes the old one) until the
check is moved to the new number, and then fails `test_check` if the engine disagrees; a change in
the engine fails `test_check`. This is what would have caught a stub called short with "fewer cards
than live players plus the burn" while the engine counts one card more, or a smallest opening bet of
"twice the bring-in" while the engine offers one chip above it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
import yaml

import rule_number_checks_betting  # noqa: F401  (registers the betting checks)
from rule_number_checks import CHECKS, Check

ROOT = Path(__file__).resolve().parents[2]
RULES_DIR = ROOT / "spec" / "rules"

# --- the scanner ------------------------------------------------------------------------------------

HEADING = re.compile(r"^### `([A-Z0-9][A-Z0-9.-]*)` — ", re.M)
#: Number words, and the words of arithmetic in prose ("the live players plus the burn" is a count
#: even without a digit: the drift this test was written for was one).
NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|twice|half|double|plus|minus|times"
#: A number in prose: digits or a number word, not part of a longer word or of a hyphenated name
#: ("five-card stud", "half-bet rule", "RP-10-H", "5-4-3-2-A" are names, not numbers).
PROSE_NUMBER = re.compile(rf"(?i)(?<![\w.-])(?:\d+|{NUMBER_WORDS})(?![\w-])")
CODE_SPAN = re.compile(r"`([^`]*)`")
#: A code span is a number when it holds a digit, an arithmetic or comparison sign, or a range.
ARITHMETIC = re.compile(r"\d|[+×\-*/%<>=]|\.\.")
#: Code spans that hold digits or signs but are names: rule IDs (`HAND.LOW.A5`, `BET.FIRST-ACTOR.TIE.*`),
#: source tags (`WIKI-5`), file names (`spec/protocol.md`) and cards (`2c`, `2c 2d … Ah As`).
NAME_SPANS = (
    re.compile(r"^[A-Z0-9][A-Z0-9-]*(\.[A-Z0-9*][A-Z0-9*-]*)+$"),
    re.compile(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$"),
    re.compile(r"\.md$"),
    re.compile(r"^(?:(?:[2-9TJQKA][cdhs]|…) ?)+$"),
)
#: Words with a number in them that are not numbers of the game, everywhere, each with its reason.
NOT_NUMBERS: dict[str, str] = {
    r"\b(?:one|two) pair\b|\b(?:three|four) of a kind\b":
        "names of hand categories (their order is tested by test_evaluate.py and the evaluation cases)",
    r"(?i)(?:(?<=high )|(?<=low ))half\b|\bhalf\b(?! (?:a|the|of)\b)":
        "'half' not followed by a quantity is a Hi-Lo half, a part of a pot; its size is the `amount // 2` of HILO.SPLIT, checked",
    r"\b(?:Raising|No-Limit|RRP-STUD|Rule) \d+":
        "the number of a section of a source (spec/sources.md), not a number of the game",
    r"\bdouble bet\b": "the name of the open-pair option's bet (BET.DOUBLE.*)",
}


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class RuleText:
    rule: str
    text: str  # the normative text on one line: spaces collapsed, backticks and ** removed, − as -
    mentions: tuple[Mention, ...]

    def context(self, mention: Mention) -> str:
        return "…" + self.text[max(0, mention.start - 50) : mention.end + 30] + "…"


def plain(markdown: str) -> tuple[str, list[tuple[int, int]]]:
    """The text on one line without Markdown, and where its code spans were."""
    markdown = re.sub(r"(?m)^(\s*)\d+\. ", r"\1- ", markdown)  # the numbering of a list is no number
    markdown = " ".join(markdown.replace("**", "").replace("−", "-").split())
    text, spans, last = "", [], 0
    for match in CODE_SPAN.finditer(markdown):
        text += markdown[last : match.start()]
        spans.append((len(text), len(text) + len(match.group(1))))
        text += match.group(1)
        last = match.end()
    return text + markdown[last:], spans


def find_mentions(text: str, code: list[tuple[int, int]]) -> tuple[Mention, ...]:
    found = [Mention(a, b, text[a:b]) for a, b in code
             if ARITHMETIC.search(text[a:b]) and not any(name.search(text[a:b]) for name in NAME_SPANS)]
    excluded = code + [m.span() for pattern in NOT_NUMBERS for m in re.finditer(pattern, text)]
    for match in PROSE_NUMBER.finditer(text):
        if not any(a <= match.start() < b for a, b in excluded):
            found.append(Mention(match.start(), match.end(), match.group()))
    return tuple(sorted(found, key=lambda m: m.start))


@cache
def rule_texts() -> dict[str, RuleText]:
    texts: dict[str, RuleText] = {}
    for path in sorted(RULES_DIR.glob("*.md")):
        document = path.read_text(encoding="utf-8")
        for heading in HEADING.finditer(document):
            body = document[document.index("\n", heading.start()) :]
            end = re.search(r"^#", body[1:], re.M)  # the next heading of any level ends the section
            body = body if end is None else body[: end.start() + 1]
            assert "**Applies to:**" in body, f"{heading.group(1)}: no **Applies to:** line ends the normative text"
            text, code = plain(body.split("**Applies to:**")[0])
            texts[heading.group(1)] = RuleText(heading.group(1), text, find_mentions(text, code))
    return texts


def occurrences(text: str, fragment: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(re.escape(" ".join(fragment.split())), text)]


# --- numbers that are not thresholds -------------------------------------------------------------------

PRONOUN = "'one' stands for a noun named just before it (a pronoun), not a count"
FROM_A_LIST = "'one of' picks from a list; the list is what the rule states"
RATIONALE = "a reason given for the rule, not a rule"
FIVE_CARDS = "the five cards of a poker hand: HAND.HIGH.BEST-FIVE's check ('any five of his seven cards') pins the count"
ANY_TWO = "'two' as in 'any two': every pair of hands or boards compared"

#: rule -> {fragment of its normative text: why the numbers in it are not checked against the engine}
ALLOWED: dict[str, dict[str, str]] = {
    "CARDS.NOTATION": {"One spelling per card makes every deck": RATIONALE},
    "SETUP.STAKES": {"The stakes are four whole numbers": "the four fields of Stakes and of the protocol's stakes object"},
    "BRING-IN.TIE.SEAT": {"the one of those seats": PRONOUN},
    "BET.ORDER": {"Exactly one seat is to_act": "the state has a single `to_act` field (protocol schema)"},
    "BET.FIRST-ACTOR.EXPOSED-RANKING": {"Two boards are tied": ANY_TWO},
    "BET.FIRST-ACTOR.TIE.SUIT": {"no card appears twice": "the deck holds each card once (SETUP.DECK's check)"},
    "ALLIN.RUNOUT": {"dealt one after another": "an idiom: in sequence"},
    "SHOWDOWN.ORDER.AGGRESSOR": {"the player who made the last one": PRONOUN},
    "SHOWDOWN.MUCK": {"one show reveals the hand for both halves": "a single action, where no count can differ"},
    "POT.ODD-CHIP.WINNING-FIVE": {
        "take the five cards that make his winning hand": FIVE_CARDS,
        "When two winners' highest card is the same card": ANY_TWO,
        "and so on down the five": FIVE_CARDS,
        "If several choices of five cards": FIVE_CARDS,
        "going down the five cards is the natural": RATIONALE,
        "because two winners' fives differ in at least one of their own cards": RATIONALE,
        "the cards of the five, not the hand": FIVE_CARDS,
    },
    "POT.ODD-CHIP.ALL-CARDS": {
        "(up to seven;": "the cards of a seven-card stud hand: DEAL.STREETS's check pins the count",
        "not only the five that make his hand": FIVE_CARDS},
    "HAND.HIGH.BEST-FIVE": {"if there is one": PRONOUN},
    "HAND.HIGH.RANKING": {"any hand of a lower one": PRONOUN},
    "HAND.HIGH.KICKERS": {"Two high hands of the same category": ANY_TWO},
    "HILO.SCOOP": {"the same five cards": FIVE_CARDS},
    "ACTION.REFUSAL": {
        "exactly one reason code": "a refusal is an IllegalAction, which holds a single Reason (engine API, protocol schema)",
        "the seat is not one of the hand's occupied seats": FROM_A_LIST,
        "the amount is not one of its legal amounts": FROM_A_LIST,
        "this check as one algorithm": "a single description, where no count can differ",
    },
    "FIVE.OPEN-PAIR": {"with one value for the hand": "an option has one value per hand (the protocol's new_hand)"},
    "FIVE.HAND": {"when there is one": PRONOUN},
    "BIGBET.BRING-IN.OPEN-ANY": {"one name for one wager": RATIONALE},
}


# --- the tests -----------------------------------------------------------------------------------------


def _in_force() -> set[str]:
    entries = yaml.safe_load((ROOT / "spec" / "rules.yaml").read_text(encoding="utf-8"))["rules"]
    return {entry["id"] for entry in entries if "retired" not in entry}


def test_every_rule_in_force_is_scanned_and_nothing_else() -> None:
    assert set(rule_texts()) == _in_force()


def test_the_scanner_finds_numbers_and_skips_names() -> None:
    text, code = plain("Seat 1 and `bring_in + 1`, twice; `HAND.LOW.A5`, `2c`, five-card stud, two pair, the high half the ace,\n"
                       "2. half a unit, RRP-STUD 2, `fold`, live players plus the burn.")
    assert [m.text for m in find_mentions(text, code)] == ["1", "bring_in + 1", "twice", "half", "plus"]


def test_the_registry_names_only_rules_in_force() -> None:
    assert set(CHECKS) | set(ALLOWED) <= _in_force()


@pytest.mark.parametrize("rule", sorted(_in_force()))
def test_every_number_is_checked_or_explained(rule: str) -> None:
    rule_text = rule_texts()[rule]
    fragments = [number for check in CHECKS.get(rule, []) for number in check.numbers] + list(ALLOWED.get(rule, {}))
    covered = [span for fragment in fragments for span in occurrences(rule_text.text, fragment)]
    loose = [m for m in rule_text.mentions if not any(a <= m.start and m.end <= b for a, b in covered)]
    assert not loose, (
        f"{rule}: numbers in the text that no check verifies and ALLOWED does not explain "
        "(add a check to rule_number_checks.py quoting the words around it, or an ALLOWED entry with its reason):\n"
        + "\n".join(f"  {m.text!r} in {rule_text.context(m)}" for m in loose))


@pytest.mark.parametrize("rule", sorted(set(CHECKS) | set(ALLOWED)))
def test_every_quoted_fragment_is_in_the_text(rule: str) -> None:
    rule_text = rule_texts()[rule]
    quoted = [(f"check {check.probe.__name__}", n) for check in CHECKS.get(rule, []) for n in check.numbers]
    quoted += [("ALLOWED", fragment) for fragment in ALLOWED.get(rule, {})]
    for source, fragment in quoted:
        spans = occurrences(rule_text.text, fragment)
        assert spans, f"{rule}: {source} quotes {fragment!r}, which is no longer in the rule's text: was a number changed?"
        assert any(a <= m.start and m.end <= b for a, b in spans for m in rule_text.mentions), (
            f"{rule}: {source} quotes {fragment!r}, which holds no number")


def _all_checks() -> list[Check]:
    unique: dict[int, Check] = {}
    for checks in CHECKS.values():
        for check in checks:
            unique.setdefault(id(check.probe), check)
    return list(unique.values())


@pytest.mark.parametrize("check", _all_checks(), ids=lambda check: check.probe.__name__)
def test_check(check: Check) -> None:
    check.probe()
