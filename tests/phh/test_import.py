"""PHH import: a hand-written history, a disputed one, bad files, and export -> import of every case."""

from __future__ import annotations

from pathlib import Path

import pytest

from studcheck.cases.lint import lint_files
from studcheck.cases.load import load_case, load_cases
from studcheck.cases.model import StepKind
from studcheck.cli import main
from studcheck.phh.export import PhhRefusal, export_case
from studcheck.phh.import_ import PhhError, case_yaml, import_text
from studcheck.rules import Options

DATA = Path(__file__).resolve().parent / "data"
RAZZ = DATA / "razz-fold-on-sixth.phh"
# The history's actions as a case names them (see the comments in the file): PHH's cc and cbr
# become call/check and complete/bet by the state of the betting.
RAZZ_STEPS = [
    "2 bring_in 2", "5 complete 5", "2 call 5",  # 3rd street
    "5 bet 5", "2 call 5",  # 4th: seat 5 shows 6-5 and acts first
    "5 check", "2 check",  # 5th
    "5 bet 10", "2 fold",  # 6th
]


def _write(tmp_path: Path, text: str, name: str = "hand.phh") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_hand_written_razz(tmp_path: Path) -> None:
    data = import_text(RAZZ.read_text(encoding="utf-8"), source=str(RAZZ))
    assert data["variant"] == "razz"
    assert data["stakes"] == {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10}
    assert data["seats"] == {2: {"stack": 100, "cards": "3c 4d Kh Qc 9s Jd"},
                             5: {"stack": 100, "cards": "As 2s 5h 6d 7c 8h"}}
    assert data["options"] == {"open_pair_double": False}  # PokerKit's stud games never double on 4th
    assert [step["act"] for step in data["steps"]] == RAZZ_STEPS
    assert data["final"] == {"stacks": {2: 89, 5: 111}}
    assert data["rules"] == ["TODO"] and data["generated"] is True and data["tags"] == ["generated"]
    assert data["id"].startswith("RZ-PHH-")
    assert "hand 7" in data["title"]


def test_skeleton_loads_and_lint_names_it(tmp_path: Path) -> None:
    out = tmp_path / "razz.yaml"
    assert main(["import", str(RAZZ), "-o", str(out), "--id", "RZ-PHH-001"]) == 0
    case = load_case(out)
    assert case.id == "RZ-PHH-001" and case.generated
    assert [step.describe() for step in case.steps] == [f"act {text}" for text in RAZZ_STEPS]
    _files, problems = lint_files([out])
    assert [(p.path, p.message.split(":")[0]) for p in problems] == [(out, "rules")]
    assert "imported from a hand history" in problems[0].message and "TODO" in problems[0].message


def test_disputed_action_becomes_a_reject_step(tmp_path: Path) -> None:
    # Seat 2 (p1) acts first on 4th street, but seat 5's 6-5 is the better low: out of turn.
    text = RAZZ.read_text(encoding="utf-8").replace(
        '"p2 cbr 5 # 6-5 showing is the best low: seat 5 acts first",\n  "p1 cc",', '"p1 cc",')
    data = import_text(text, source="disputed.phh")
    assert data["steps"][-1] == {"reject": {"act": "2 check", "reason": "out_of_turn"}}
    assert [step["act"] for step in data["steps"][:-1]] == RAZZ_STEPS[:3]
    assert "final" not in data
    assert "refuses actions[7] 'p1 cc'" in data["note"]  # 0-based: 3rd street (5 lines), 4th's two deals, this one
    path = _write(tmp_path, case_yaml(data), "disputed.yaml")
    assert load_case(path).steps[-1].kind is StepKind.REJECT


@pytest.mark.parametrize(("text", "message"), [
    ("variant = \n", "not valid TOML"),
    ('variant = "NT"\n', "'NT' is not a stud variant"),
    ('variant = "F7S"\nantes = [1, 1]\n', "bring_in: missing"),
    (RAZZ.read_text(encoding="utf-8").replace('"p1 f",', '"p1 f", "d db 2c",'), "board card"),
    (RAZZ.read_text(encoding="utf-8").replace('"p1 f",', '"p3 f",'), "no player 'p3'"),
    (RAZZ.read_text(encoding="utf-8").replace("antes = [1, 1]", "antes = [1, 2]"), "one ante"),
    (RAZZ.read_text(encoding="utf-8").replace("As2s5h", "As2s5x"), "actions\\[1\\]"),
    (RAZZ.read_text(encoding="utf-8").replace("As2s5h", "As2s3c"), "dealt twice"),
])
def test_bad_files_exit_2_naming_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          text: str, message: str) -> None:
    path = _write(tmp_path, text)
    assert main(["import", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err
    with pytest.raises(PhhError, match=message):
        import_text(text, source=str(path))


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(tmp_path / "nope.phh")]) == 2
    assert "nope.phh" in capsys.readouterr().err


def test_export_then_import_gives_the_case_back(tmp_path: Path) -> None:
    """Same deck, options, seats and act steps, and the case's own final stacks, for every exportable case."""
    checked = 0
    for case in load_cases():
        try:
            text = export_case(case).text()
        except PhhRefusal:
            continue
        path = _write(tmp_path, case_yaml(import_text(text, source=f"{case.id}.phh")), "back.yaml")
        back = load_case(path)
        # an explicit deck fixes where the burns are, so the loader names burn_cards (true unless the case says)
        assert back.options == {"burn_cards": True, **case.options}, case.id
        assert back.seats == case.seats, case.id
        assert back.deck_for(back.options_with(Options())) == case.deck_for(case.options_with(Options())), case.id
        acts = [step for step in case.steps if step.kind is StepKind.ACT]
        assert [(s.seat, s.action) for s in back.steps] == [(s.seat, s.action) for s in acts], case.id
        assert all(a.amount in (None, b.amount) for a, b in zip(acts, back.steps)), case.id
        if case.final is not None and "stacks" in case.final and back.final is not None:
            assert back.final["stacks"] == case.final["stacks"], case.id
        checked += 1
    assert checked >= 300  # 372 when written; a floor so the loop cannot pass by checking nothing


def test_cli_export_and_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "phh"
    assert main(["export", "--format", "phh", str(out), "--case", "SH-HRK-002", "--case", "SH-RAK-001"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["SH-HRK-002.phh"]
    printed = capsys.readouterr().out
    assert "1 hand histories written" in printed and "SH-RAK-001: PHH cannot express it" in printed
    assert main(["export", str(out), "--case", "SH-NOPE-999"]) == 2
    assert main(["show", "SH-RAK-001", "--format", "phh"]) == 1
    assert "rake_percent=5" in capsys.readouterr().err
    assert main(["show", "SH-HRK-002", "--format", "phh"]) == 0
    assert capsys.readouterr().out == (out / "SH-HRK-002.phh").read_text(encoding="utf-8")
