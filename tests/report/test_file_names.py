"""Engine- and file-controlled text as file names (issue 33): an engine name of 300 characters used
to make `run --html` exit 2 without its badge. `file_safe` bounds every such name and keeps two
texts apart by a hash of the whole."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from studcheck.cli import main
from studcheck.commands.report import write_page
from studcheck.report.load import from_lines, read_report
from studcheck.safe_text import FILE_STEM_BYTES, file_safe

HERE = Path(__file__).resolve().parent
NAMED = HERE.parent / "engines" / "named.py"
SAFE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")


@pytest.mark.parametrize("text", ["SH-BRI-004", "my-engine-1-2", "report.v2", "A" * FILE_STEM_BYTES])
def test_a_short_safe_name_stays_as_it_is(text: str) -> None:
    assert file_safe(text) == text


@pytest.mark.parametrize("text", ["x" * 300, "é" * 300, "../../etc/passwd", ".hidden", "-rf", "CON", "nul.txt", "a/b", "",
                                  "\x1b[31m\x00", "lone \ud800", "a" * 119 + "é"])
def test_any_text_gives_a_bounded_safe_name(text: str) -> None:
    name = file_safe(text)
    assert SAFE.fullmatch(name) and len(name.encode("utf-8")) <= FILE_STEM_BYTES
    assert name != text and re.search(r"-?[0-9A-F]{10}$", name)  # changed, so it carries the hash


@given(st.text(max_size=400))
def test_file_safe_is_always_a_safe_bounded_name(text: str) -> None:
    name = file_safe(text)
    assert SAFE.fullmatch(name) and len(name) <= FILE_STEM_BYTES
    assert name.split(".")[0].upper() not in {"CON", "PRN", "AUX", "NUL"}


def test_texts_that_differ_past_the_cut_or_in_replaced_characters_get_two_names() -> None:
    prefix = "p" * 200
    assert file_safe(prefix + "a") != file_safe(prefix + "b")
    assert file_safe("a/b") != file_safe("a:b") != file_safe("a-b")
    assert file_safe("a-b") == "a-b"


def _report_lines(name: str) -> list[dict[str, object]]:
    lines = [json.loads(text) for text in (HERE / "beta.jsonl").read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if line["kind"] == "header":
            line["engine"] = {**line["engine"], "name": name}
    return lines


def test_a_300_character_engine_name_gets_its_badge(tmp_path: Path) -> None:
    write_page([from_lines("long.jsonl", _report_lines("e" * 300))], tmp_path)
    badges = sorted(path.name for path in tmp_path.glob("badge-*"))
    assert len(badges) == 2 and all(len(name) <= len("badge-") + FILE_STEM_BYTES + len(".json") for name in badges)
    assert json.loads(next(tmp_path.glob("badge-*.json")).read_text(encoding="utf-8"))["message"] == "2/2 pass"


def test_two_long_names_sharing_a_200_character_prefix_get_two_badges(tmp_path: Path) -> None:
    prefix = "Engine " * 30  # 210 characters
    for name in ("first", "second"):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in _report_lines(prefix + name)), encoding="utf-8")
    write_page([read_report(tmp_path / "first.jsonl"), read_report(tmp_path / "second.jsonl")], tmp_path / "site")
    badges = sorted(path.name for path in (tmp_path / "site").glob("badge-*.svg"))
    assert len(badges) == 2 and badges[0] != badges[1]
    assert all(len(name) <= len("badge-") + FILE_STEM_BYTES + len(".svg") for name in badges)
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert all(f'id="engine-{name.removeprefix("badge-").removesuffix(".svg")}"' in html for name in badges)


def test_one_slug_twice_on_a_page_gets_two_badges(tmp_path: Path) -> None:
    """`My Engine` and `my-engine` give one slug; the second engine's badge is `-2`, never the first's file."""
    write_page([from_lines("a.jsonl", _report_lines("My Engine")), from_lines("b.jsonl", _report_lines("my-engine"))], tmp_path)
    assert sorted(path.name for path in tmp_path.glob("badge-*.svg")) == ["badge-my-engine-2-0-2.svg", "badge-my-engine-2-0.svg"]


def test_run_html_with_a_300_character_engine_name_passes_and_writes_the_badge(tmp_path: Path,
                                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Every case passes, so the exit code is 0 and the badge is there (it used to be 2, with no badge)."""
    engine = shlex.join([sys.executable, str(NAMED), "n" * 300])
    code = main(["run", "--engine", engine, "--id", "SH-BRI-001", "--jobs", "1", "--no-progress",
                 "--html", str(tmp_path / "html")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert len(list((tmp_path / "html").glob("badge-n*.svg"))) == 1
    assert main(["report", "-o", str(tmp_path / "again"), str(HERE / "beta.jsonl")]) == 0


def test_export_of_a_case_with_a_long_id_writes_bounded_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = next((HERE.parent.parent / "cases" / "stud_high").rglob("sh-bri-001-*.yaml"))
    long_id = "SH-BRI-" + "9" * 300
    case = tmp_path / "cases" / "long.yaml"
    case.parent.mkdir()
    case.write_text(source.read_text(encoding="utf-8").replace("SH-BRI-001", long_id, 1), encoding="utf-8")
    assert main(["export", "--format", "json", "--cases", str(case), str(tmp_path / "json")]) == 0
    index = json.loads((tmp_path / "json" / "index.json").read_text(encoding="utf-8"))
    assert index["cases"][0]["id"] == long_id and (tmp_path / "json" / index["cases"][0]["file"]).is_file()
    assert re.fullmatch(r"cases/[A-Z0-9-]+\.json", index["cases"][0]["file"])  # the export schema's pattern
    assert main(["export", "--format", "phh", "--cases", str(case), str(tmp_path / "phh")]) == 0
    assert [len(path.name) <= FILE_STEM_BYTES + len(".phh") for path in (tmp_path / "phh").iterdir()] == [True]
    capsys.readouterr()
