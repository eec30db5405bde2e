"""Each detailed case's hand as `studcheck show` prints it, with its cards drawn as cards.

The report line names the case file and line but not the hand, so the case is looked up again: in
the file the line names (relative to the working directory or the bundled data), else in the
bundled suite by ID. A case that cannot be found gets no history, and the page says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from dataclasses import replace
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

from studcheck.cases.load import CaseError, load_case, load_cases
from studcheck.cases.model import Case
from studcheck.cases.show import render
from studcheck.report.model import CaseEntry
from studcheck.resources import data_root

#: a card token of spec/rules/00-conventions.md (CARDS.NOTATION), alone between spaces or brackets
CARD = re.compile(r"(?<![\w-])([2-9TJQKA])([cdhs])(?![\w-])")
#: suit letter -> (symbol, the class of a red card or ""): a page has thousands of cards, so the tag is short
SUITS = {"c": ("♣", ""), "d": ("♦", ' class="r"'), "h": ("♥", ' class="r"'), "s": ("♠", "")}


@lru_cache(maxsize=1)
def _bundled() -> dict[str, Case]:
    return {case.id: case for case in load_cases(errors=[])}


#: a case file is a few kB; a report line may name any path (a report is someone else's file), so
#: only a .yaml regular file up to this size is read
MAX_CASE_BYTES = 256 * 1024


def _readable_case_file(path: Path) -> bool:
    try:
        return path.suffix == ".yaml" and path.is_file() and path.stat().st_size <= MAX_CASE_BYTES
    except OSError:
        return False


def find_case(line: Mapping[str, Any]) -> Case | None:
    """The case a report line is about, or None when neither its file nor the bundled suite has it."""
    name = str(line.get("file") or "")
    for path in (Path(name), data_root() / name) if name else ():
        if _readable_case_file(path):
            try:
                case = load_case(path)
            except CaseError:
                continue
            if case.id == line["id"]:
                return case
    return _bundled().get(str(line["id"]))


#: the line put into a hand where the engine diverged; hand_html draws it as a highlighted mark
MARK = "▶ "


def step_start(case: Case, step: int, lines: list[str]) -> int:
    """The index in `lines` (the whole hand) of the first line that step `step` printed: the hand cut
    before that step and the whole hand agree up to there."""
    cut = render(replace(case, steps=case.steps[:step])).splitlines()
    start = 0
    while start < min(len(cut), len(lines)) and cut[start] == lines[start]:
        start += 1
    return start


def histories(entries: Iterable[CaseEntry]) -> dict[str, str]:
    """Anchor -> the case's hand history (show's text), with a MARK line before the step where the engine
    diverged, for the cases that can be found."""
    found: dict[str, str] = {}
    for entry in entries:
        if _is_evaluation(entry.line):
            found[entry.anchor] = _evaluation_history(entry.line)
            continue
        case = find_case(entry.line)
        if case is None:
            continue
        lines = render(case).splitlines()
        step = entry.line.get("step")
        if isinstance(step, int) and 0 <= step < len(case.steps):
            try:
                at = step_start(case, step, lines)
            except (ValueError, TypeError):  # a case the cut cannot be built from: the hand is shown unmarked
                at = -1
            if at >= 0:
                lines.insert(at, f"{MARK}the engine diverged here: {entry.where}")
        found[entry.anchor] = "\n".join(lines) + "\n"
    return found


#: the kinds of the evaluation profile (spec/evaluation.md): a report line's variant for its cases
EVALUATION_KINDS = frozenset({"high", "razz", "low8", "exposed_high", "exposed_low", "bring_in", "bring_in_razz"})


def _is_evaluation(line: Mapping[str, Any]) -> bool:
    return str(line.get("variant")) in EVALUATION_KINDS and str(line.get("id", "")).startswith("EV-")


def _evaluation_history(line: Mapping[str, Any]) -> str:
    """An evaluation case has no hand to replay: its smallest disagreeing pair, as the verdict's message
    gives it (what the rules say; what the engine's values said), one line each."""
    rules, _, engine = str(line.get("message", "")).partition("; ")
    return f"{rules}\n{MARK}{engine}\n" if engine else f"{rules}\n"


def cards_html(text: str) -> Markup:
    """Escaped text with each card token drawn as a small card, `<b>` styled by the page: rank and suit
    symbol, red for hearts and diamonds."""
    def card(match: re.Match[str]) -> str:
        symbol, red = SUITS[match.group(2)]
        return f"<b{red}>{match.group(1)}{symbol}</b>"

    html = CARD.sub(card, str(escape(text)))
    return Markup("\n".join(f'<mark class="diverged">{line}</mark>' if line.startswith(MARK) else line
                             for line in html.split("\n")))
