"""A case file is refused before it is read unless it is a regular file of at most 1 MiB: a link to
/dev/zero, a FIFO and a huge file each get a problem at line 1, at once, from lint and from run."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from studcheck.cases.lint import lint_files
from studcheck.cases.load import MAX_CASE_BYTES


def hostile(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / "case.yaml"
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        with path.open("wb") as handle:
            handle.truncate(MAX_CASE_BYTES + 1)  # sparse: no disk used
    return path


@pytest.mark.parametrize(("kind", "words"), [("dev-zero", "not a regular file"), ("fifo", "not a regular file (a FIFO)"),
                                             ("huge", "more than the 1048576 a case file may have")])
def test_a_hostile_case_file_is_refused_at_once(tmp_path: Path, kind: str, words: str) -> None:
    path = hostile(tmp_path, kind)
    found: list[object] = []
    thread = threading.Thread(target=lambda: found.append(lint_files([tmp_path])[1]), daemon=True)
    thread.start()
    thread.join(60)
    assert found, f"lint hung on a {kind}"
    problems = found[0]
    assert isinstance(problems, list) and len(problems) == 1
    assert problems[0].path == path and problems[0].line == 1 and words in problems[0].message


def test_a_link_to_a_case_file_is_read(tmp_path: Path) -> None:
    from studcheck.resources import cases_dir

    source = next(cases_dir().glob("razz/*/*.yaml"))
    (tmp_path / "linked.yaml").symlink_to(source)
    assert lint_files([tmp_path])[1] == []
