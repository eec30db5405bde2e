"""The end-of-run rewrite of `run --report FILE` (issue 33): the new text is built whole and moved
over the report, so that a failure on the way leaves the report as first written, never empty."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from harness_helpers import harness_main
from studcheck.harness import report

FIRST = [{"kind": "header", "n": 1}, {"kind": "case", "id": "T-1"}, {"kind": "case", "id": "T-2"}]


def _written(path: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]


def _writer(path: Path) -> report.ReportWriter:
    writer = report.ReportWriter(open(path, "w", encoding="utf-8"), path)
    for line in FIRST:
        writer.write(line)
    writer.lines[1]["cause"] = 1  # what annotate_cases adds at the end of a run
    return writer


def _leftovers(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir() if path.name != "report.jsonl")


def test_the_rewrite_replaces_the_report_and_later_lines_follow_it(tmp_path: Path) -> None:
    path = tmp_path / "report.jsonl"
    writer = _writer(path)
    os.chmod(path, 0o644)
    writer.rewrite()
    writer.write({"kind": "footer"})
    writer.close()
    assert _written(path) == [FIRST[0], {**FIRST[1], "cause": 1}, FIRST[2], {"kind": "footer"}]
    assert _leftovers(tmp_path) == []
    assert path.stat().st_mode & 0o777 == 0o644  # the report's mode, not the temporary file's 0600


@pytest.mark.parametrize("failure", ["building", "writing", "replacing"])
def test_a_failing_rewrite_leaves_the_report_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str) -> None:
    path = tmp_path / "report.jsonl"
    writer = _writer(path)

    def no_memory(lines: object) -> str:
        raise MemoryError

    def disk_full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    if failure == "building":
        monkeypatch.setattr(report, "report_text", no_memory)
    elif failure == "writing":
        opened = os.fdopen
        monkeypatch.setattr(report.os, "fdopen", lambda *args, **kwargs: _HalfWriter(opened(*args, **kwargs)))
    else:
        monkeypatch.setattr(report.os, "replace", disk_full)
    with pytest.raises((MemoryError, OSError)):
        writer.rewrite()
    writer.close()
    assert _written(path) == FIRST  # as first written: every line, whole
    assert _leftovers(tmp_path) == []  # the temporary file is gone


class _HalfWriter:
    """A file whose disk fills half way through writing the text."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def write(self, text: str) -> int:
        self.handle.write(text[: len(text) // 2])
        self.handle.flush()
        raise OSError(28, "No space left on device")

    def close(self) -> None:
        self.handle.close()


def test_a_report_to_a_pipe_keeps_its_lines(tmp_path: Path) -> None:
    read, write = os.pipe()
    stream = os.fdopen(write, "w", encoding="utf-8")
    writer = report.ReportWriter(stream, Path(f"/dev/fd/{write}"))
    writer.write(FIRST[0])
    writer.rewrite()  # cannot replace a pipe: the lines stay as first written
    writer.close()
    with os.fdopen(read, encoding="utf-8") as pipe:
        assert json.loads(pipe.read()) == FIRST[0]


def test_a_symlinked_report_stays_a_symlink(tmp_path: Path) -> None:
    real, link = tmp_path / "real.jsonl", tmp_path / "report.jsonl"
    real.touch()
    link.symlink_to(real)
    writer = _writer(link)
    writer.rewrite()
    writer.close()
    assert link.is_symlink() and _written(real)[1] == {**FIRST[1], "cause": 1}


def test_run_report_survives_a_memory_error_in_the_rewrite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`studcheck run --report FILE` whose end-of-run rewrite runs out of memory: the report keeps its
    header and every case line (the lines written as the run went), not an empty file."""
    path = tmp_path / "report.jsonl"

    def no_memory(lines: object) -> str:
        raise MemoryError

    monkeypatch.setattr(report, "report_text", no_memory)
    with pytest.raises(MemoryError):
        harness_main(["run", "--in-process", "--id", "SH-BRI-001", "--id", "RZ-BRI-001", "--no-progress",
                      "--report", str(path)])
    lines = _written(path)
    assert [line["kind"] for line in lines] == ["header", "case", "case"]
    assert {line["id"] for line in lines[1:]} == {"SH-BRI-001", "RZ-BRI-001"}
    assert _leftovers(tmp_path) == []
