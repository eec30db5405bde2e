"""Every case PHH can state, loaded by PokerKit's own PHH loader and replayed to the end.

The final stacks PokerKit reaches must be the case's `final.stacks`, which authors work out by hand
from the rules. Cases in adapters/pokerkit.xfail.yaml are left out: there PokerKit's rules differ.
"""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml

if importlib.util.find_spec("pokerkit") is None:  # imported by the tests that replay, not at collection
    pytest.skip("PokerKit is not installed: pip install 'studcheck[pokerkit]' to test PHH with it", allow_module_level=True)

from studcheck.cases.load import load_cases  # noqa: E402
from studcheck.cases.model import Case  # noqa: E402
from studcheck.phh.export import PhhRefusal, export_case  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
XFAIL = {entry["id"] for entry in yaml.safe_load((ROOT / "adapters" / "pokerkit.xfail.yaml").read_text(encoding="utf-8"))}
CASES = load_cases()


def _exportable() -> tuple[list[Case], list[Case]]:
    """Exportable cases, not xfail: with final stacks, and without (one export of each case)."""
    finished: list[Case] = []
    unfinished: list[Case] = []
    for case in CASES:
        if case.id in XFAIL:
            continue
        try:
            export_case(case)
        except PhhRefusal:
            continue
        (finished if case.final is not None and "stacks" in case.final else unfinished).append(case)
    return finished, unfinished


def replay(text: str) -> Any:
    """PokerKit's last state for a PHH text (it raises if an action does not fit its game)."""
    from pokerkit import HandHistory  # about 1.3 s, paid only by a worker that runs these tests

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns about cash-game folds
        state = None
        for state in HandHistory.loads(text):
            pass
    return state


FINISHED, OPEN = _exportable()


def test_enough_cases_round_trip() -> None:
    # A floor, not the count: 126 when this test was written; it guards against exporting nothing.
    assert len(FINISHED) >= 100


@pytest.mark.parametrize("case", FINISHED, ids=lambda case: case.id)
def test_final_stacks_through_pokerkit(case: Case) -> None:
    phh = export_case(case)
    state = replay(phh.text())
    assert case.final is not None
    stacks: dict[str, int] = case.final["stacks"]  # seat keys are "1".."8"
    seats = [str(seat) for seat in phh.fields["seats"]]
    expected = {seat: stacks[seat] for seat in seats if seat in stacks}
    got = {seat: int(state.stacks[index]) for index, seat in enumerate(seats) if seat in stacks}
    assert not state.status, "PokerKit's hand is not over"
    assert got == expected


@pytest.mark.parametrize("case", OPEN, ids=lambda case: case.id)
def test_unfinished_hands_load(case: Case) -> None:
    """Hands whose steps stop early: PokerKit takes every action (it raises on one that does not fit)."""
    replay(export_case(case).text())


def test_hand_written_history_is_valid_phh() -> None:
    """The history test_import.py imports is real PHH: PokerKit plays it to the stacks worked out in it."""
    state = replay((Path(__file__).resolve().parent / "data" / "razz-fold-on-sixth.phh").read_text(encoding="utf-8"))
    assert not state.status
    assert list(state.stacks) == [89, 111]
