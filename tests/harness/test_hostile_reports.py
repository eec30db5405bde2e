"""Reports survive hostile engine text (issue: a colour escape in stderr used to crash the JUnit
writer, and with it every report after it), and one writer's failure loses no other report."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from harness_helpers import engine, harness_main
from studcheck.harness.junit import junit_xml
from studcheck.safe_text import markdown_inline, terminal_safe, xml_safe

HOSTILE = "\x1b[31mERROR\x1b[0m nul:\x00 bell:\x07 sep:\u2028 lone:\ud800 ok"


def test_xml_safe_escapes_what_xml_forbids_and_keeps_the_rest() -> None:
    assert xml_safe(HOSTILE) == "\\x1b[31mERROR\\x1b[0m nul:\\x00 bell:\\x07 sep:\u2028 lone:\\ud800 ok"
    assert xml_safe("tab\tnew\nline é ♠") == "tab\tnew\nline é ♠"


def test_terminal_safe_leaves_no_control_sequence() -> None:
    shown = terminal_safe(HOSTILE + " title:\x1b]0;x\x07 c1:\x9b2J del:\x7f")
    assert not any(ord(char) < 32 and char not in "\t\n" for char in shown)
    assert "\x7f" not in shown and "\x9b" not in shown and "\u2028" not in shown
    assert shown.startswith("\\x1b[31mERROR")


def test_markdown_inline_cannot_open_a_comment_or_a_line() -> None:
    text = markdown_inline("acme\n<!-- | x")
    assert "\n" not in text and "<" not in text and "|" not in text.replace("\\|", "")
    assert text == "acme &lt;!-- \\| x"


def _line(**fields: object) -> dict[str, object]:
    return {"kind": "case", "id": "T-1", "variant": "razz", "outcome": "fail", "duration_ms": 1.0, "file": "f.yaml",
            "line": 3, "message": HOSTILE, "stderr": HOSTILE, "mismatches": [{"path": "to_act", "expected": 1, "actual": HOSTILE}],
            **fields}


def test_junit_with_forbidden_characters_is_well_formed(tmp_path: Path) -> None:
    header = {"kind": "header", "engine": {"name": HOSTILE, "version": "1"}, "studcheck": "x"}
    path = tmp_path / "junit.xml"
    junit_xml([header, _line(), {"kind": "footer"}]).write(str(path))
    root = ElementTree.parse(path).getroot()  # raises on a character XML forbids
    case = root.find(".//testcase")
    assert case is not None and case.find("system-err") is not None
    assert "\\x1b[31mERROR" in (case.find("system-err").text or "")  # type: ignore[union-attr]


def test_a_run_against_an_engine_with_hostile_stderr_writes_every_report(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    paths = {name: tmp_path / name for name in ("report.jsonl", "junit.xml", "summary.md")}
    code = harness_main(["run", "--engine", engine("control_chars"), "--rule", "BET.CAP", "--variant", "razz",
                         "--jobs", "1", "--no-progress", "--report", str(paths["report.jsonl"]),
                         "--junit", str(paths["junit.xml"]), "--markdown", str(paths["summary.md"]),
                         "--html", str(tmp_path / "html")])
    out = capsys.readouterr().out
    assert code == 1
    # the terminal shows the engine's escapes as text: nothing can restyle, retitle or clear it
    assert not [char for char in out if (ord(char) < 32 and char not in "\t\n") or 0x7f <= ord(char) <= 0x9f
                or char in "\u2028\u2029"]
    assert "\\x1b[31mERROR" in out and "\\x1b[2J" in out
    summary = paths["summary.md"].read_text(encoding="utf-8")
    heading = summary.splitlines()[0]
    assert heading.startswith("## studcheck") and "acme &lt;!--" in heading  # the name cannot open a comment
    assert "<!--" not in summary and "\x1b" not in summary
    ElementTree.parse(paths["junit.xml"])
    assert (tmp_path / "html" / "index.html").stat().st_size > 0
    lines = [json.loads(text) for text in paths["report.jsonl"].read_text(encoding="utf-8").split("\n") if text]
    failing = [line for line in lines if line.get("kind") == "case" and line["outcome"] == "fail"]
    assert failing and "\x1b[31mERROR" in failing[0]["stderr"]  # the JSONL keeps the engine's words exactly


def test_a_writer_that_fails_loses_no_other_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the HTML directory should go", encoding="utf-8")
    junit = tmp_path / "junit.xml"
    summary = tmp_path / "summary.md"
    code = harness_main(["run", "--in-process", "--rule", "BET.CAP", "--variant", "razz", "--jobs", "1", "--no-progress",
                         "--html", str(blocked / "html"), "--junit", str(junit), "--markdown", str(summary)])
    err = capsys.readouterr().err
    assert code == 2, err  # every case passed, but a report CI asked for is missing
    assert "the HTML report could not be written" in err and "Traceback" not in err
    ElementTree.parse(junit)
    assert summary.read_text(encoding="utf-8").startswith("## studcheck")
