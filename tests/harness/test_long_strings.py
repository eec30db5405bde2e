"""An answer holding a string the run's own report readers would refuse is refused (issue 33).

A 2 MB string in an extra key, an error message or the engine's name used to be recorded in the
run's report (a failing case's transcript, its message, the header), which `studcheck report`,
`merge` and `rulebook --report` then refused ("a string of 2,000,000 characters"). Now the answer
is `bad_response` with its reason, and whatever the run writes, those readers read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness_helpers import CASES, engine
from studcheck import jsonio
from studcheck.cli import main
from studcheck.protocol import answers
from studcheck.protocol.client import MAX_LINE_BYTES, EngineClient, EngineError
from studcheck.protocol.messages import RequestType
from studcheck.protocol.serve import Server
from studcheck.report import load


def _check(text: bytes, kind: RequestType = RequestType.BYE) -> dict[str, Any]:
    client = EngineClient(lambda: None)  # type: ignore[arg-type, return-value]  # _check needs no engine
    return client._check(kind, text + b"\n", {}, 1)


@pytest.mark.parametrize(("chars", "accepted"), [(answers.MAX_STRING_CHARS, True), (answers.MAX_STRING_CHARS + 1, False)])
@pytest.mark.parametrize("where", ["value", "key", "in a list"])
def test_the_string_bound_sits_where_it_says(chars: int, accepted: bool, where: str) -> None:
    text = "é" * chars
    extra = {"value": {"x": text}, "key": {text: 1}, "in a list": {"x": [1, [text]]}}[where]
    line = json.dumps({"seq": 1, "ok": True, **extra}, ensure_ascii=False).encode("utf-8")
    if accepted:
        assert _check(line)["ok"] is True
    else:
        with pytest.raises(EngineError) as caught:
            _check(line)
        assert caught.value.problem.value == "bad_response"
        assert f"a string of {chars:,} characters (at most {answers.MAX_STRING_CHARS:,}" in caught.value.message


@pytest.mark.parametrize(("field", "chars", "accepted"), [("name", 1000, True), ("name", 1001, False), ("version", 1001, False)])
def test_hello_names_the_engine_in_words_a_report_header_holds(field: str, chars: int, accepted: bool) -> None:
    hello = Server().handle({"type": "hello", "seq": 1, "protocol": 1, "harness": "test"})
    hello["engine"][field] = "n" * chars
    line = json.dumps(hello).encode()
    if accepted:
        assert _check(line, RequestType.HELLO)["engine"][field] == "n" * chars
    else:
        with pytest.raises(EngineError) as caught:
            _check(line, RequestType.HELLO)
        assert f"the engine's {field} in hello is 1,001 characters long (at most 1,000" in caught.value.message


def test_the_harness_bounds_are_inside_the_readers_bounds() -> None:
    """A message may quote an answer's string repr-escaped (10 characters a character) and the
    header holds hello's name; a report line holds an answer four levels down; one answer line fits
    in a report file many times over."""
    assert answers.MAX_STRING_CHARS * 10 <= load.MAX_STRING
    assert answers.MAX_NAME_CHARS <= load.MAX_NAME
    assert answers.MAX_PROBLEM_CHARS * 10 <= load.MAX_STRING
    assert answers.MAX_DEPTH + 4 <= jsonio.MAX_DEPTH
    assert MAX_LINE_BYTES * 32 <= jsonio.MAX_FILE_BYTES


def _run(tmp_path: Path, *engine_args: str) -> tuple[int, list[dict[str, Any]], Path]:
    report = tmp_path / "report.jsonl"
    code = main(["run", "--engine", f"{engine('long_string')} {' '.join(engine_args)}", "--cases", str(CASES),
                 "--id", "T-OK-001", "--shard", "1/1", "--jobs", "1", "--no-progress", "--report", str(report)])
    lines = [json.loads(text) for text in report.read_text(encoding="utf-8").split("\n") if text]
    return code, lines, report


def _readers_read(report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(report), "-o", str(tmp_path / "site")]) == 0, capsys.readouterr().err
    assert main(["merge", str(report), "-o", str(tmp_path / "merged.jsonl")]) in (0, 1), capsys.readouterr().err
    assert (tmp_path / "merged.jsonl").exists()
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(("args", "words"), [
    # a 2 MB string in an extra key of every state (extra keys are allowed)
    (("extra", "2000000"), "a string of 2,000,000 characters (at most 100,000"),
    # ... of characters whose repr is ten characters long
    (("extra", "200000", "\U000e0001"), "a string of 200,000 characters (at most 100,000"),
    # a 2 MB error message
    (("message", "2000000"), "a string of 2,000,000 characters (at most 100,000"),
    # short strings, 3 MB of them, where the schema wants an integer: jsonschema's words quote them all
    (("schema", "3000000"), "breaks the protocol schema: state.to_act: ['xxxxxxxxxx', "),
])
def test_a_hostile_engine_s_long_strings_leave_a_report_its_readers_read(
        args: tuple[str, ...], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, report = _run(tmp_path, *args)
    assert code == 1
    case = next(line for line in lines if line["kind"] == "case")
    assert case["outcome"] == "error" and case["problem"] == "bad_response"
    assert words in case["message"]
    assert len(case["message"]) < 5000  # jsonschema quoted 3 MB (MAX_PROBLEM_CHARS: 2,000)
    assert "Traceback" not in capsys.readouterr().err
    _readers_read(report, tmp_path, capsys)


def test_an_engine_named_at_length_cannot_start_and_its_report_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, report = _run(tmp_path, "name", "2000")
    assert code == 3
    assert lines[0]["engine"] is None and lines[-1]["exit_code"] == 3
    assert "the engine's name in hello is 2,000 characters long" in capsys.readouterr().err
    assert main(["report", str(report), "-o", str(tmp_path / "site")]) == 0, capsys.readouterr().err


def test_strings_within_the_bound_are_recorded_whole_and_read_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An error message of 100,000 characters, each repr-escaped to ten, in a failing case: the
    transcript holds it whole and the readers read it."""
    code, lines, report = _run(tmp_path, "message", "100000", "\U000e0001")
    assert code == 1
    case = next(line for line in lines if line["kind"] == "case")
    assert case["outcome"] == "fail"
    messages = [entry["response"]["error"]["message"] for entry in case["transcript"]
                if isinstance(entry.get("response"), dict) and entry["response"].get("ok") is False]
    assert messages and all(message == "\U000e0001" * 100_000 for message in messages)
    _readers_read(report, tmp_path, capsys)
