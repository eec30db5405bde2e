"""Case paths are shown relative to the cases folder in every output (terminal, JSONL, JUnit, HTML,
`studcheck show`): a bundled case as `cases/<variant>/...` wherever studcheck is installed and whatever the
working directory (an installed wheel's cases sit in site-packages: an absolute path there tells a
reader nothing), a case of one's own `--cases` folder relative to the working directory when under it,
else as named.

The bundled suite of this checkout is outside the working directory each test moves to, which is where
an installed wheel's suite is too.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness_helpers import engine
from studcheck.cases.show import shown_path
from studcheck.cli import main
from studcheck.harness.runner import _display_path, display_path
from studcheck.resources import cases_dir, data_root

#: a Razz case tests/engines/bring_in_option.py fails (the bring-in gets an option when all call)
FAILING = "RZ-BRI-007"


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(argv))
    return code, out.getvalue()


def test_a_bundled_case_is_shown_under_cases_wherever_it_is_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    installed = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "studcheck" / "_data" / "cases"
    (installed / "razz" / "bring-in").mkdir(parents=True)
    case = installed / "razz" / "bring-in" / "rz-bri-001-x.yaml"
    case.write_text("id: RZ-BRI-001\n", encoding="utf-8")
    monkeypatch.setattr("studcheck.cases.show.cases_dir", lambda: installed)
    for cwd in (tmp_path, tmp_path / "venv", Path("/")):
        assert shown_path(case, str(cwd)) == "cases/razz/bring-in/rz-bri-001-x.yaml"
    mine = tmp_path / "work" / "mine" / "a.yaml"
    assert shown_path(mine, str(tmp_path / "work")) == "mine/a.yaml"  # your own folder: relative to where you are
    assert shown_path(mine, str(tmp_path / "other")) == str(mine)  # else as you named it
    assert shown_path("../mine/a.yaml", str(tmp_path / "other")) == "../mine/a.yaml"


def test_display_path_is_the_shown_path() -> None:
    _display_path.cache_clear()
    case = next(cases_dir().glob("razz/bring-in/*.yaml"))
    assert display_path(case) == f"cases/razz/bring-in/{case.name}"


def test_every_output_of_a_run_elsewhere_names_bundled_cases_under_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = run("run", "--engine", engine("bring_in_option"), "--id", FAILING, "--id", "RZ-BRI-001", "--no-progress",
                    "--report", "r.jsonl", "--junit", "r.xml", "--html", "site")
    assert code == 1
    cases = [json.loads(text) for text in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    files = {line["id"]: line["file"] for line in cases if line["kind"] == "case"}
    assert set(files) == {FAILING, "RZ-BRI-001"} and all(file.startswith("cases/razz/bring-in/") for file in files.values())
    assert all((data_root() / file).is_file() for file in files.values())  # the reader finds them again
    where = files[FAILING]
    assert f"  at {where}:" in out and str(cases_dir()) not in out
    details = [element.text or "" for element in ET.parse(tmp_path / "r.xml").getroot().iter("failure")]
    assert details and details[0].startswith(f"{where}:")
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert f"<code>{where}:" in html and str(cases_dir()) not in html
    assert f"  file     {where}:" in html  # the hand as `studcheck show` prints it


def test_show_names_a_bundled_case_under_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = run("show", FAILING)
    assert code == 0
    line = next(text for text in out.splitlines() if text.startswith("  file     "))
    assert line.startswith("  file     cases/razz/bring-in/rz-bri-007-") and str(cases_dir()) not in out


def test_your_own_cases_folder_is_shown_as_you_named_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = next(cases_dir().glob("razz/bring-in/rz-bri-007-*.yaml"))
    (tmp_path / "project" / "mine").mkdir(parents=True)
    shutil.copy(source, tmp_path / "project" / "mine" / source.name)
    monkeypatch.chdir(tmp_path / "project")
    for named in ("mine", str(tmp_path / "project" / "mine")):  # relative or absolute, under the working directory
        code, out = run("run", "--engine", engine("bring_in_option"), "--cases", named, "--no-progress", "--report", "r.jsonl")
        (case,) = [json.loads(text) for text in Path("r.jsonl").read_text(encoding="utf-8").splitlines()
                   if json.loads(text)["kind"] == "case"]
        assert code == 1 and case["file"] == f"mine/{source.name}" and f"  at mine/{source.name}:" in out
    code, out = run("show", "--cases", "mine", FAILING)
    assert code == 0 and f"  file     mine/{source.name}:" in out
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # the folder is not under the working directory now: as named
    code, out = run("run", "--engine", engine("bring_in_option"), "--cases", str(tmp_path / "project" / "mine"), "--no-progress")
    assert code == 1 and f"  at {tmp_path / 'project' / 'mine' / source.name}:" in out
