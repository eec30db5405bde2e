"""Evaluation case files (spec/evaluation.md section 5): the loader, its lint, and the bundled cases.

Each bad file differs from BASE (which loads cleanly) in one thing, and the problem must be reported
at the line of that thing with a message that says what is wrong.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from studcheck.cases.evaluation import MAX_BYTES, analyse, lint_evaluation_cases, load_evaluation_cases
from studcheck.cases.lint import lint_files
from studcheck.cases.load import Problem, load_cases
from studcheck.evaluation.kinds import key_as_value, reference_key
from studcheck.evaluation.model import EvaluationCase
from studcheck.evaluation.order import Better, first_disagreement
from studcheck.resources import cases_dir

BASE = """\
id: EV-T-001
title: A test case
kind: high
rules:
  - HAND.HIGH.RANKING
order:
  - Ac Ad Ah Ks Qd
  - 7c 7d 7h Ks Qd
"""  # line 5: the rule; line 6: `order:`; lines 7 and 8: the hands; line 9: whatever is added

LOW8 = """\
id: EV-T-002
title: A low8 case
kind: low8
rules: [HAND.LOW.EIGHT]
order:
  - 5c 4d 3h 2s Ac                    # line 6: the wheel
  - 8s 7h 6d 5c 3h                    # line 7: 8-7-6-5-3
  - 8c 7d 6h 5s 4c = 8h 7s 6c 5d 4h   # line 8: 8-7-6-5-4 twice, a tie
no_low:
  - 9c 5d 4h 3s 2c                    # line 10
  - Kc Kd Qh Js Tc                    # line 11
"""


def write(folder: Path, text: str, name: str = "case.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(path: Path) -> list[tuple[int, str]]:
    """(line, message) of every problem lint finds in the one file `path`."""
    return [(problem.line, problem.message) for problem in lint_evaluation_cases([path])[1]]


def reported(path: Path, line: int, fragment: str) -> bool:
    return any(at == line and fragment in message for at, message in problems_of(path))


def test_base_loads_with_no_problem(tmp_path: Path) -> None:
    assert problems_of(write(tmp_path, BASE)) == []


def test_unknown_top_level_key(tmp_path: Path) -> None:
    path = write(tmp_path, BASE + "colour: red\n")
    assert reported(path, 9, "unknown key 'colour'"), problems_of(path)


@pytest.mark.parametrize("hand", ["10h 7d 7h Ks Qd", "Ah Kd 5"])
def test_a_card_not_in_card_notation(tmp_path: Path, hand: str) -> None:
    path = write(tmp_path, BASE.replace("7c 7d 7h Ks Qd", hand))
    assert reported(path, 8, f"{hand!r} is not a line of hands"), problems_of(path)


def test_ten_written_10_is_told_to_use_t(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("7c 7d 7h Ks Qd", "10h 7d 7h Ks Qd"))
    assert reported(path, 8, "use T for ten"), problems_of(path)


@pytest.mark.parametrize(("hand", "count"), [("7c 7d 7h Ks", 4), ("7c 7d 7h Ks Qd 2c 3c 4c", 8)])
def test_a_high_hand_of_a_card_count_the_kind_does_not_take(tmp_path: Path, hand: str, count: int) -> None:
    path = write(tmp_path, BASE.replace("7c 7d 7h Ks Qd", hand))
    assert reported(path, 8, f"a high item has 5 to 7 cards, not {count}"), problems_of(path)


def test_a_card_twice_in_one_hand(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("7c 7d 7h Ks Qd", "7c 7d 7h Ks 7c"))
    assert reported(path, 8, "a card appears twice in one hand"), problems_of(path)


def test_a_card_in_two_hands_is_fine(tmp_path: Path) -> None:
    # spec section 3: a card may appear in several items (each item is a hand of its own)
    assert problems_of(write(tmp_path, BASE.replace("7c 7d 7h Ks Qd", "7c 7d 7h Ks Qd = 7s 7d 7h Ks Qd"))) == []


def test_no_low_outside_low8(tmp_path: Path) -> None:
    path = write(tmp_path, BASE + "no_low:\n  - 9c 5d 4h 3s 2c\n")
    assert reported(path, 9, "`no_low` is for low8 cases only"), problems_of(path)


def test_exposed_boards_of_two_sizes(tmp_path: Path) -> None:
    text = (BASE.replace("kind: high", "kind: exposed_high").replace("HAND.HIGH.RANKING", "BET.FIRST-ACTOR.EXPOSED-RANKING")
            .replace("Ac Ad Ah Ks Qd", "Ac Ad").replace("7c 7d 7h Ks Qd", "7c 7d 7h"))
    path = write(tmp_path, text)
    assert reported(path, 6, "the boards of one case have one size"), problems_of(path)


def test_an_unknown_rule_id(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("  - HAND.HIGH.RANKING\n", "  - HAND.HIGH.RANKING\n  - HAND.HIGH.NOPE\n"))
    assert reported(path, 6, "unknown rule ID 'HAND.HIGH.NOPE'"), problems_of(path)


def test_a_retired_rule_id(tmp_path: Path) -> None:
    # spec/rules.yaml: POT.ODD-CHIP.BEST-FIVE has `retired:` (replaced by POT.ODD-CHIP.WINNING-FIVE)
    path = write(tmp_path, BASE.replace("  - HAND.HIGH.RANKING\n", "  - HAND.HIGH.RANKING\n  - POT.ODD-CHIP.BEST-FIVE\n"))
    assert reported(path, 6, "'POT.ODD-CHIP.BEST-FIVE' is retired"), problems_of(path)


def test_fewer_than_two_items(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("  - 7c 7d 7h Ks Qd\n", ""))
    assert reported(path, 6, "a case orders at least two items"), problems_of(path)


def test_a_file_that_is_not_a_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "- Ac Ad Ah Ks Qd\n- 7c 7d 7h Ks Qd\n")
    assert reported(path, 1, "an evaluation case file holds one YAML mapping"), problems_of(path)


def test_invalid_yaml(tmp_path: Path) -> None:
    path = write(tmp_path, "id: EV-T-001\ntitle: A test case\nkind: high: x\n")
    assert reported(path, 3, "invalid YAML"), problems_of(path)


def test_a_file_larger_than_max_bytes(tmp_path: Path) -> None:
    path = write(tmp_path, "")
    os.truncate(path, MAX_BYTES + 1)  # sparse: nothing written
    assert reported(path, 1, f"more than the {MAX_BYTES} a case file may have"), problems_of(path)


def test_a_directory_is_not_a_case_file(tmp_path: Path) -> None:
    folder = tmp_path / "case.yaml"
    folder.mkdir()
    case, found = analyse(folder)
    assert (case, found) == (None, [Problem(path=folder, line=1, message="not a regular file (a case file is a YAML text file)")])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "case.yaml"
    os.mkfifo(fifo)
    result: list[list[Problem]] = []
    reader = threading.Thread(target=lambda: result.append(lint_evaluation_cases([fifo])[1]), daemon=True)
    reader.start()
    reader.join(timeout=20)  # opening a FIFO with no writer blocks: the loader must not open it
    if reader.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # let the stuck reader go
        pytest.fail("the loader opened the FIFO and hung")
    assert result == [[Problem(path=fifo, line=1, message="not a regular file (a case file is a YAML text file)")]]


def test_two_files_with_one_id_blame_the_second(tmp_path: Path) -> None:
    first, second = write(tmp_path, BASE, "a.yaml"), write(tmp_path, BASE, "b.yaml")
    found = lint_evaluation_cases([first, second])[1]
    assert [(p.path, p.line, "EV-T-001 is also used by" in p.message) for p in found] == [(second, 1, True)]


# --- a good case --------------------------------------------------------------------------------


def loaded(path: Path) -> EvaluationCase:
    case, found = analyse(path)
    assert found == [] and case is not None, found
    return case


def test_an_earlier_line_has_a_higher_key(tmp_path: Path) -> None:
    keys = loaded(write(tmp_path, BASE)).keys
    assert keys[0] > keys[1]


def test_low8_keys_follow_the_lines_ties_equal_no_low_below_everything(tmp_path: Path) -> None:
    keys = loaded(write(tmp_path, LOW8)).keys
    assert keys[0] > keys[1] > keys[2] == keys[3] > keys[4] == keys[5]


def test_item_lines_point_at_the_yaml_lines(tmp_path: Path) -> None:
    assert loaded(write(tmp_path, LOW8)).item_lines == (6, 7, 8, 8, 10, 11)


# --- the bundled cases ----------------------------------------------------------------------------


def test_the_bundled_tree_lints_clean() -> None:
    assert lint_files()[1] == []


def test_lint_counts_the_evaluation_files() -> None:
    folder = cases_dir() / "evaluation"
    written = sorted(folder.rglob("*.yaml"))
    counted = sorted(path for path in lint_files()[0] if path.is_relative_to(folder))
    assert written and counted == written


def test_the_hand_loader_leaves_the_evaluation_folder_out() -> None:
    folder = cases_dir() / "evaluation"
    assert [case.path for case in load_cases() if case.path.is_relative_to(folder)] == []


BUNDLED = load_evaluation_cases()


@pytest.mark.parametrize("case", BUNDLED, ids=[case.id for case in BUNDLED])
def test_the_reference_passes_every_bundled_case(case: EvaluationCase) -> None:
    # the reference's keys as an engine's values (direction higher): key_as_value, as `studcheck serve`
    # answers, so that a hand with no qualifying low is null (spec section 3)
    values = [key_as_value(case.kind, reference_key(case.kind, item)) for item in case.items]
    assert first_disagreement(case.kind, case.keys, values, Better.HIGHER) is None


def test_an_id_with_a_final_line_break_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "case.yaml"
    path.write_text("id: |\n  EV-HI-991\ntitle: t\nkind: high\nrules: [HAND.HIGH.WHEEL]\norder:\n"
                    "  - 6c 5d 4c 3h 2s\n  - 5d 4c 3h 2s Ah\n", encoding="utf-8")
    case, problems = analyse(path)
    assert case is None and [(p.line, p.message[:41]) for p in problems] == [(1, "id: 'EV-HI-991\\n' is not an ID: EV-, then")]
