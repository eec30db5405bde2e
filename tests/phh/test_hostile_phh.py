"""PHH import and export on hostile input: exit 2 with the file and the problem, never a traceback;
an exported file always reads back."""

from __future__ import annotations

from pathlib import Path

import pytest

from studcheck.cases.load import load_cases
from studcheck.cli import main
from studcheck.phh import toml

RAZZ = (Path(__file__).resolve().parent / "data" / "razz-fold-on-sixth.phh").read_text(encoding="utf-8")

HOSTILE = {
    "TOML nested 100,000 deep": ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", "nesting deeper than 16 levels"),
    "a 5,000-digit integer": ("x = " + "9" * 5000 + "\n", "not valid TOML"),
    "a 40-digit integer in a stack": (RAZZ.replace("starting_stacks = [", "starting_stacks = [" + "9" * 40 + ", "),
                                      "an integer of 40 digits"),
    "variant is a list": ('variant = ["F7S"]\n', "variant: ['F7S'] is not a stud variant"),
    "variant is a table": ('variant = {a = 1}\n', "variant: {'a': 1} is not a stud variant"),
    "superscript digits in an amount": (RAZZ.replace('"p2 cbr 5"', '"p2 cbr \u00b2"', 1), "not a PHH stud action"),
    "superscript digits in a player": (RAZZ.replace('"p2 cbr 5"', '"p\u00b2 cbr 5"', 1), "no player 'p\u00b2'"),
    "Arabic-Indic digits": (RAZZ.replace('"p2 cbr 5"', '"p2 cbr \u0661"', 1), "not a PHH stud action"),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_phh_is_refused_with_exit_2(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, problem = HOSTILE[name]
    if name.startswith("superscript") or name.startswith("Arabic"):
        assert text != RAZZ, "the edit must find its place in the file"
    path = tmp_path / "hand.phh"
    path.write_text(text, encoding="utf-8")
    code = main(["import", str(path)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert str(path) in err and problem in err and "Traceback" not in err


def test_a_title_with_del_and_controls_reads_back(tmp_path: Path) -> None:
    title = "del\x7f tab\t nul\x00 esc\x1b quote\" back\\ sep\u2028 lone\ud800"
    text = toml.dumps({"title": title})
    assert toml.loads(text)["title"] == title.replace("\ud800", "\ufffd")


def test_export_onto_a_directory_in_the_way_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case_id = next(case.id for case in load_cases() if case.id.startswith("RZ-BRI"))
    (tmp_path / f"{case_id}.phh").mkdir()  # a directory where the file must go: a write error even for root
    code = main(["export", "--format", "phh", str(tmp_path), "--case", case_id])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot write {tmp_path / (case_id + '.phh')}" in err and "Traceback" not in err, err
