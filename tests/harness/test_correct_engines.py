"""Correct engines that look unusual pass: the harness compares what the protocol defines, by value.

Each engine here is the reference engine behind a filter that changes only what the protocol leaves
open, so any failure is the harness's (a false verdict, the one thing studcheck must never give):
- extra_keys_changing: extra keys in the state (top level, seat rows, pots, result) that change on
  every answer: protocol.md section 3 says they are allowed and ignored, after a refusal too;
- float_numbers: every whole number written as a float (`"seat": 2.0`), which JSON Schema counts
  as an integer and the harness reads as one.
"""

from __future__ import annotations

import io
import json
import contextlib
from pathlib import Path

import pytest

from harness_helpers import engine, run_quietly
from studcheck.harness.compare import canonical_state, diff_json
from studcheck.protocol.answers import number as _number

CORRECT = ["extra_keys_changing", "float_numbers"]


@pytest.mark.parametrize("name", CORRECT)
def test_every_bundled_case_passes(name: str, tmp_path: Path) -> None:
    report = tmp_path / "report.jsonl"
    code, out, _ = run_quietly("run", "--engine", engine(name), "--report", str(report), "--no-progress", "--jobs", "1")
    lines = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    verdicts = {line["id"]: line["outcome"] for line in lines if line["kind"] == "case"}
    assert len(verdicts) > 700
    assert {verdict for verdict in verdicts.values()} == {"pass"}, [(i, v) for i, v in verdicts.items() if v != "pass"][:5]
    assert code == 0, out[-2000:]


@pytest.mark.parametrize("name", CORRECT)
def test_fuzz_and_smoke_agree(name: str, tmp_path: Path) -> None:
    from studcheck.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        fuzzed = main(["fuzz", "--engine", engine(name), "--hands", "60", "--seed", "2", "--no-progress",
                       "--out", str(tmp_path / "fuzz")])
        smoked = main(["smoke", "--engine", engine(name)])
    assert "Traceback" not in out.getvalue()
    assert (fuzzed, smoked) == (0, 0), out.getvalue()[-3000:]


def test_a_whole_float_is_read_as_the_integer() -> None:
    assert [_number(text) for text in ("2.0", "1e2", "-0.0", "100.00")] == [2, 100, 0, 100]
    assert all(type(_number(text)) is int for text in ("2.0", "1e2"))
    assert type(_number("2.5")) is float
    # past 2**53 a float does not hold every integer: it stays a float (and the schema's bounds judge it)
    assert type(_number("1e30")) is float
    assert _number("9007199254740992.0") == 2**53


def test_canonical_state_ignores_extra_keys_and_legal_order() -> None:
    row = {"seat": 1, "stack": 99, "committed": 0, "folded": False, "all_in": False, "up": ["Kh"], "down": ["Ah", "As"],
           "shown": False, "mucked": False}
    other = {**row, "seat": 2, "up": ["2c"]}
    before = {"street": "third", "to_act": 2, "legal": [{"action": "fold"}, {"action": "call", "amount": 2}],
              "seats": [row, other], "community": None, "pots": [{"amount": 2, "eligible": [2, 1]}],
              "pot_total": 2, "result": None}
    after = {**before, "tick": 5, "legal": list(reversed(before["legal"])), "seats": [{**other, "debug": 1}, row],
             "pots": [{"amount": 2, "eligible": [1, 2], "note": "x"}]}
    assert diff_json(canonical_state(before), canonical_state(after)) == []
    # what the protocol defines still counts
    moved = {**after, "seats": [{**other, "stack": 98}, row]}
    assert [item.path for item in diff_json(canonical_state(before), canonical_state(moved))] == ["seats[1].stack"]


@pytest.mark.parametrize(("text", "words"), [
    (b'{"seq": 1, "ok": true, "x": NaN}', "not JSON"), (b'{"seq": 1, "ok": true, "x": -Infinity}', "not JSON"),
    (b'{"seq": 1, "ok": true, "x": 1' + b"0" * 40 + b"}", "an integer of 41 digits"),
    (b'{"seq": 1, "ok": true, "x": 1e400}', "out of range"),
    (b'{"seq": 1, "ok": true, "x": ' + b"[" * 60 + b"]" * 60 + b"}", "nested more than 48 levels"),
])
def test_an_answer_no_report_reader_would_take_back_is_refused(text: bytes, words: str) -> None:
    """NaN, Infinity, a 41-digit integer, 1e400, nesting past what a report line can hold: the harness
    refuses the answer (an error verdict) instead of writing a report its own readers reject."""
    from studcheck.protocol.client import EngineClient, EngineError
    from studcheck.protocol.messages import RequestType

    client = EngineClient(lambda: None)  # type: ignore[arg-type, return-value]  # _check needs no engine
    with pytest.raises(EngineError) as caught:
        client._check(RequestType.BYE, text + b"\n", {}, 1)
    assert words in caught.value.message


@pytest.mark.parametrize(("extra", "accepted"), [
    (b"[" * 47 + b"]" * 47, True), (b"[" * 48 + b"]" * 48, False),  # the answer object is level 1: 48 levels in all, then 49
    (b"1" * 30, True), (b"1" * 31, False),  # the report readers take integers of up to 30 digits
])
def test_the_bounds_sit_where_the_report_readers_are(extra: bytes, accepted: bool) -> None:
    from studcheck.protocol.client import EngineClient, EngineError
    from studcheck.protocol.messages import RequestType

    client = EngineClient(lambda: None)  # type: ignore[arg-type, return-value]  # _check needs no engine
    text = b'{"seq": 1, "ok": true, "x": ' + extra + b"}\n"
    if accepted:
        assert client._check(RequestType.BYE, text, {}, 1)["ok"] is True
    else:
        with pytest.raises(EngineError):
            client._check(RequestType.BYE, text, {}, 1)
