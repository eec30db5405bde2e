"""Every reader of a file studcheck writes is total: a value, or exit 2 with file, line and problem.

The hostile inputs are the ones a user's CI met: strings holding U+2028/U+2029/U+0085 (which
studcheck writes unescaped), deep nesting, a 5,000-digit integer, a lone surrogate, NaN, and fuzz
censuses with a field missing, of the wrong type, negative, or a shard index past the count.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from studcheck import jsonio
from studcheck.cli import main

SEPARATORS = "\u2028 \u2029 \u0085 \x1c \x1d \x1e"


@pytest.fixture(scope="module")
def report_lines(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """A real run's report (a few cases of the reference engine, in process; one shard of one, so merge reads it too)."""
    path = tmp_path_factory.mktemp("run") / "report.jsonl"
    assert main(["run", "--in-process", "--rule", "BET.CAP", "--variant", "razz", "--jobs", "1", "--no-progress",
                 "--shard", "1/1", "--report", str(path)]) == 0
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def test_line_separators_inside_strings_do_not_split_a_line(report_lines: list[dict[str, Any]], tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    lines = [dict(line) for line in report_lines]
    lines[0]["engine"] = {**lines[0]["engine"], "name": f"acme {SEPARATORS}"}
    lines[1]["title"] = f"title {SEPARATORS}"
    path = _write(tmp_path / "report.jsonl", lines)
    assert main(["report", str(path), "-o", str(tmp_path / "site")]) == 0, capsys.readouterr().err
    assert main(["merge", str(path), "-o", str(tmp_path / "merged.jsonl")]) == 0, capsys.readouterr().err
    merged = [json.loads(text) for text in (tmp_path / "merged.jsonl").read_text(encoding="utf-8").split("\n") if text]
    assert merged[0]["engine"]["name"] == f"acme {SEPARATORS}"


HOSTILE_LINES = {
    "deep nesting": '{"kind": "case", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "a 5000-digit integer": '{"kind": "case", "duration_ms": ' + "9" * 5000 + "}",
    "a lone surrogate": '{"kind": "case", "title": "\\ud800"}',
    "NaN": '{"kind": "case", "duration_ms": NaN}',
    "Infinity": '{"kind": "case", "duration_ms": -Infinity}',
    "a float out of range": '{"kind": "case", "duration_ms": 1e400}',
}
PROBLEMS = {
    "deep nesting": "nested more than 64 levels deep",
    "a 5000-digit integer": "an integer of 5000 digits",
    "a lone surrogate": "a string holds a lone surrogate",
    "NaN": "NaN is not a JSON number",
    "Infinity": "-Infinity is not a JSON number",
    "a float out of range": "the number 1e400 is out of range",
}


@pytest.mark.parametrize("name", HOSTILE_LINES)
@pytest.mark.parametrize("command", ["report", "merge"])
def test_hostile_report_lines_are_refused_with_file_and_line(name: str, command: str, report_lines: list[dict[str, Any]],
                                                            tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "report.jsonl"
    text = json.dumps(report_lines[0]) + "\n" + HOSTILE_LINES[name] + "\n"
    path.write_text(text, encoding="utf-8")
    code = main([command, str(path), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{path}:2: {PROBLEMS[name]}" in err and "Traceback" not in err


def test_a_report_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text("x" * 2000, encoding="utf-8")
    with pytest.raises(jsonio.InputError, match="2000 bytes, more than the 1000"):
        jsonio.read_text(path, limit=1000)


def test_lines_split_on_newline_only() -> None:
    assert list(jsonio.lines('{"a": "x\u2028y"}\r\n\n  \n{"b": 1}')) == [(1, '{"a": "x\u2028y"}'), (4, '{"b": 1}')]


def _census(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": "studcheck-fuzz-census", "version": 1, "engine": "e", "seed": 1, "variants": [],
        "shards": {"count": 2, "indexes": [1]}, "last_hand": 10, "complete": True, "hands": 5, "actions": 40,
        "refused": 2, "skipped": 0, "past_failures": 0, "divergent_hands": 0, "signatures": [],
    }
    for key, value in changes.items():
        if value is None and key in data:
            del data[key]
        else:
            data[key] = value
    return data


BAD_CENSUSES = {
    "a field missing": (_census(hands=None), "'hands' is a required property"),
    "a wrong type": (_census(hands="five"), "hands: 'five' is not of type 'integer'"),
    "a negative count": (_census(hands=-5), "hands: -5 is less than the minimum of 0"),
    "shard 9 of 2": (_census(shards={"count": 2, "indexes": [9]}), "shard 9 of 2"),
    "shards not a mapping": (_census(shards=[1, 2]), "shards: [1, 2] is not of type 'object'"),
    "a signature without hands": (_census(signatures=[{"signature": "s", "first": 1, "known": None, "case": None}]),
                                  "'hands' is a required property"),
}


@pytest.mark.parametrize("name", BAD_CENSUSES)
def test_a_bad_census_is_refused_by_merge(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, problem = BAD_CENSUSES[name]
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_census(shards={"count": 2, "indexes": [2]})), encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    code = main(["merge", str(good), str(bad), "-o", str(tmp_path / "out.json")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert problem in err and str(bad) in err and "Traceback" not in err


def test_two_good_censuses_still_merge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = []
    for index in (1, 2):
        path = tmp_path / f"{index}.json"
        path.write_text(json.dumps(_census(shards={"count": 2, "indexes": [index]})), encoding="utf-8")
        paths.append(str(path))
    assert main(["merge", *paths, "-o", str(tmp_path / "out.json")]) == 0, capsys.readouterr().err
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["hands"] == 10


@pytest.fixture(scope="module")
def shard_files(tmp_path_factory: pytest.TempPathFactory) -> list[list[dict[str, Any]]]:
    """Both shards of one run (reference engine, in process), as report lines."""
    folder = tmp_path_factory.mktemp("shards")
    shards = []
    for index in (1, 2):
        path = folder / f"{index}.jsonl"
        assert main(["run", "--in-process", "--rule", "BET.CAP", "--variant", "razz", "--jobs", "1", "--no-progress",
                     "--shard", f"{index}/2", "--report", str(path)]) == 0
        shards.append([json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line])
    return shards


def _edit_verdict(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    edited = [dict(line) for line in lines]
    case = next(line for line in edited if line["kind"] == "case")
    case["outcome"] = "fail"
    case.update(step=0, step_text="x", message="m", mismatches=[], problem=None, evidence=None, stderr="", options={},
                xfail_reason=None, replay="r", transcript=[])
    return edited


def _duplicate_case(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    cases = [index for index, line in enumerate(lines) if line["kind"] == "case"]
    edited = [dict(line) for line in lines]
    edited[cases[1]] = dict(edited[cases[0]])
    return edited


def _shard_past_count(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    edited = [dict(line) for line in lines]
    edited[0] = {**edited[0], "shard": {**edited[0]["shard"], "index": 4, "count": 3}}
    return edited


def _two_footers(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [*lines, lines[-1]]


SHARD_EDITS = {
    "a fail edited to pass": (_edit_verdict, "its case lines do not add up to its footer (fail 0 in the footer, 1 case lines"),
    "a case line copied over another": (_duplicate_case, "is reported twice in"),
    "shard 4/3": (_shard_past_count, "shard 4/3: a shard index runs from 1 to the count"),
    "two footers": (_two_footers, "a second footer line (the first is line"),
}


@pytest.mark.parametrize("name", SHARD_EDITS)
def test_merge_refuses_a_shard_that_does_not_add_up(name: str, shard_files: list[list[dict[str, Any]]], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    edit, problem = SHARD_EDITS[name]
    first = _write(tmp_path / "1.jsonl", edit(shard_files[0]))
    second = _write(tmp_path / "2.jsonl", shard_files[1])
    code = main(["merge", str(first), str(second), "-o", str(tmp_path / "out.jsonl")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert problem in err and "Traceback" not in err
    assert not (tmp_path / "out.jsonl").exists()


def test_untouched_shards_still_merge(shard_files: list[list[dict[str, Any]]], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(_write(tmp_path / f"{index}.jsonl", lines)) for index, lines in enumerate(shard_files, start=1)]
    assert main(["merge", *paths, "-o", str(tmp_path / "out.jsonl")]) == 0, capsys.readouterr().err


def test_report_refuses_two_runs_concatenated_in_one_file(shard_files: list[list[dict[str, Any]]], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "two.jsonl", [*shard_files[0], *shard_files[1]])
    code = main(["report", str(path), "-o", str(tmp_path / "site")])
    err = capsys.readouterr().err
    assert code == 2 and f"{path}:{len(shard_files[0]) + 1}: a second header line (the first is line 1)" in err, err


@pytest.mark.parametrize(("field", "size", "problem"), [("title", 50_000_000, "title: a string of 50,000,000 characters"),
                                                        ("stderr", 2_000_000, "a string of 2,000,000 characters")])
def test_report_refuses_strings_no_run_writes(field: str, size: int, problem: str, report_lines: list[dict[str, Any]],
                                              tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [dict(line) for line in report_lines]
    lines[1][field] = "x" * size
    path = _write(tmp_path / "report.jsonl", lines)
    code = main(["report", str(path), "-o", str(tmp_path / "site")])
    err = capsys.readouterr().err
    assert code == 2 and f"{path}:2: {problem}" in err, err[:500]
    assert not (tmp_path / "site").exists()


def test_report_reads_no_case_file_but_a_small_yaml_one(tmp_path: Path) -> None:
    from studcheck.report.hands import find_case

    big = tmp_path / "big.yaml"
    with open(big, "wb") as handle:
        handle.truncate(2 * 1024 * 1024 * 1024)  # 2 GB of nothing, sparse: no disk used
    assert find_case({"file": str(big), "id": "NOT-BUNDLED-1"}) is None
    assert find_case({"file": "/dev/zero", "id": "NOT-BUNDLED-1"}) is None
    bundled = find_case({"file": "/dev/zero", "id": "RZ-BRI-001"})
    assert bundled is not None and bundled.id == "RZ-BRI-001"  # found in the bundled suite instead
