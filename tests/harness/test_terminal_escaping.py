"""Text from a report, a case file or an engine reaches a terminal only through `terminal_safe`
(issue 33): `merge` printed a case line's words raw, so a report could restyle, retitle or clear the
terminal of whoever merged it. Each command that prints such text is checked with escapes in it."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from harness_helpers import CASES, engine
from studcheck.cli import main

ESCAPES = "\x1b[31mRED\x1b[0m bell:\x07 title:\x1b]0;pwned\x07 c1:\x9b2J"
CASE = next(CASES.parent.parent.parent.joinpath("cases", "stud_high").rglob("sh-bri-001-*.yaml"))


def _clean(text: str) -> bool:
    """No character a terminal acts on: C0 controls but tab and newline, DEL and C1."""
    return not [char for char in text if (ord(char) < 32 and char not in "\t\n") or 0x7f <= ord(char) <= 0x9f]


def _shown(text: str) -> bool:
    """The escapes are there, as visible text."""
    return "\\x1b[31mRED" in text and "\\x07" in text


def _hostile_shards(tmp_path: Path) -> list[Path]:
    """The two shard reports of a run with failing cases, their case lines' words replaced by escapes."""
    paths = [tmp_path / f"shard-{index}.jsonl" for index in (1, 2)]
    for index, path in enumerate(paths, start=1):
        main(["run", "--engine", engine("wrong_rules"), "--rule", "BET.CAP", "--variant", "razz", "--jobs", "1",
              "--no-progress", "--shard", f"{index}/2", "--report", str(path)])
        lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
        for line in lines:
            if line["kind"] == "case":
                line.update(title=f"title {ESCAPES}", message=f"message {ESCAPES}", step_text=f"step {ESCAPES}",
                            file=f"cases/{ESCAPES}.yaml", replay=f"replay {ESCAPES}", rules=[*line["rules"], ESCAPES])
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return paths


def test_merge_prints_a_reports_words_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shards = _hostile_shards(tmp_path)
    capsys.readouterr()
    code = main(["merge", *map(str, shards), "-o", str(tmp_path / "merged.jsonl")])
    out, err = capsys.readouterr()
    assert code == 1, err  # the engine fails its cases: the merged run fails
    assert "FAIL RZ-" in out and _shown(out) and "step \\x1b" in out and "replay \\x1b" in out
    assert _clean(out + err)
    merged = (tmp_path / "merged.jsonl").read_text(encoding="utf-8")
    assert "\\u001b[31mRED" in merged  # the report itself keeps the words exactly (JSON escapes them)


def test_report_and_rulebook_print_a_reports_words_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A report given twice is refused with a message naming a case's variant, which the report wrote."""
    report = _hostile_shards(tmp_path)[0]
    lines = [json.loads(text) for text in report.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if line["kind"] == "case":
            line["variant"] = ESCAPES
    report.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    capsys.readouterr()
    assert main(["report", str(report), str(report), "-o", str(tmp_path / "html")]) == 2
    assert main(["rulebook", "-o", str(tmp_path / "book"), "--report", str(report), str(report)]) == 2
    err = capsys.readouterr().err
    assert err.count("doubled") == 2 and _shown(err) and _clean(err)


@pytest.fixture
def hostile_case(tmp_path: Path) -> Path:
    """A case file whose title holds escapes (YAML's "\\e" and "\\a"), in a folder whose name does too."""
    folder = tmp_path / "cases\x1b[31mRED\x07"
    folder.mkdir()
    text = CASE.read_text(encoding="utf-8")
    title = text.splitlines()[1]
    (folder / "case.yaml").write_text(text.replace(title, 'title: "\\e[31mRED\\e[0m bell:\\a"'), encoding="utf-8")
    return folder


@pytest.mark.parametrize("command", [["list", "--cases"], ["show", "SH-BRI-001", "--cases"], ["coverage", "--cases"],
                                     ["run", "--in-process", "--no-progress", "--cases"]])
def test_case_commands_print_a_case_files_words_escaped(hostile_case: Path, capsys: pytest.CaptureFixture[str],
                                                        command: list[str]) -> None:
    main([*command, str(hostile_case)])
    out, err = capsys.readouterr()
    assert _clean(out + err)
    if command[0] in ("list", "show"):
        assert "\\x1b[31mRED" in out


def test_lint_prints_a_case_files_path_and_words_escaped(hostile_case: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = hostile_case / "case.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("tags: [", 'tags: ["\\e[2J", '), encoding="utf-8")
    assert main(["lint", str(hostile_case)]) == 1
    assert main(["run", "--in-process", "--no-progress", "--cases", str(hostile_case)]) == 2
    out, err = capsys.readouterr()
    assert "cases\\x1b[31mRED\\x07" in out + err and _clean(out + err)


def test_smoke_and_an_engine_that_cannot_start_print_the_engines_words_escaped(
        capsys: pytest.CaptureFixture[str]) -> None:
    main(["smoke", "--engine", engine("control_chars")])
    broken = shlex.join(["sh", "-c", r"printf '\033[31mRED\033[0m bell:\007 dying\n' >&2; exit 1"])
    assert main(["run", "--engine", broken, "--id", "SH-BRI-001", "--no-progress"]) == 3
    out, err = capsys.readouterr()
    assert "acme" in out and "\\x1b]0;pwned\\x07" in out  # the engine's name, as text
    assert "\\x1b[31mRED" in err and _clean(out + err)


def test_fuzz_prints_the_engines_words_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--engine", engine("control_chars"), "--hands", "2", "--seed", "1", "--no-progress",
                 "--out", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert "engine acme" in out and "\\x1b]0;pwned\\x07" in out and _clean(out + err)
