"""`studcheck rulebook --report`: each rule's results per engine, counted by hand from tests/report/*.jsonl.

gamma.jsonl (gamma 3.0): SH-BRI-001 pass (TIE.SUIT, CHOICE); SH-BRI-002 fail (TIE.SUIT; blamed TIE.SUIT);
SH-BRI-004 fail (TIE.SUIT, CHOICE; blamed TIE.SUIT); SH-BRI-005 fail (CHOICE; blamed CARD.LOW);
SH-BRI-003 error (CHOICE; no rule named); RZ-BRI-001 pass (CARD.HIGH); RZ-BRI-003 xfail (CARD.HIGH; blamed
CARD.HIGH); RZ-BRI-004 xfail (CARD.HIGH, TIE.SUIT; blamed CARD.HIGH); RZ-BRI-005 xfail (TIE.SEAT; blamed
TIE.SEAT). beta.jsonl (beta 2.0): SH-BRI-001 and SH-BRI-002 pass.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from studcheck.cli import main
from studcheck.report.load import read_report
from studcheck.resources import cases_dir
from studcheck.rulebook.render import BLAMED_SHOWN
from studcheck.rulebook.results import EngineResult, rule_results

REPORTS = Path(__file__).resolve().parent.parent / "report"
GAMMA, BETA = REPORTS / "gamma.jsonl", REPORTS / "beta.jsonl"


def result(engine: str, blamed: tuple[tuple[str, bool], ...] = (), affected: int = 0, passing: int = 0) -> EngineResult:
    return EngineResult(engine=engine, blamed=blamed, affected=affected, passing=passing)


def test_results_per_rule_and_engine_by_hand() -> None:
    found = rule_results([read_report(GAMMA), read_report(BETA)])
    assert found == {
        "BRING-IN.TIE.SUIT": (result("gamma 3.0", (("SH-BRI-002", False), ("SH-BRI-004", False)), affected=1, passing=1),
                              result("beta 2.0", passing=2)),
        "BRING-IN.CHOICE": (result("gamma 3.0", affected=3, passing=1), result("beta 2.0", passing=1)),
        "BRING-IN.CARD.LOW": (result("gamma 3.0", (("SH-BRI-005", False),)),),
        "BRING-IN.CARD.HIGH": (result("gamma 3.0", (("RZ-BRI-003", True), ("RZ-BRI-004", True)), passing=1),),
        "BRING-IN.TIE.SEAT": (result("gamma 3.0", (("RZ-BRI-005", True),)),),
    }


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("book")
    header, *rest = GAMMA.read_text(encoding="utf-8").splitlines()
    line = json.loads(header)
    line["engine"]["name"] = "<script>alert(1)</script>"  # an engine's name is shown as text
    (root / "hostile.jsonl").write_text("\n".join([json.dumps(line), *rest]) + "\n", encoding="utf-8")
    assert main(["rulebook", "-o", str(root / "site"), "--cases", str(cases_dir() / "stud_high" / "bring-in"),
                 "--report", str(root / "hostile.jsonl"), str(BETA)]) == 0
    return root / "site"


def section(site: Path, page: str, rule: str) -> str:
    html = (site / page).read_text(encoding="utf-8")
    start = html.index(f'<section class="rule" id="{rule}">')
    return html[start:html.index("</section>", start)]


def rows(text: str) -> list[tuple[str, ...]]:
    """The results table: (engine, blamed, affected, passing) rows, each followed by its ("Blamed: ...",) row."""
    found: list[tuple[str, ...]] = []
    table = text[text.index('<div class="results">'):]
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table[:table.index("</table>")], re.DOTALL):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)
        if cells:
            found.append(tuple(" ".join(cell.split()) for cell in cells))
    return found


def test_the_rule_section_shows_the_counts_and_links_the_blamed_cases(site: Path) -> None:
    text = section(site, "04-bring-in.html", "BRING-IN.TIE.SUIT")
    assert rows(text) == [
        ("&lt;script&gt;alert(1)&lt;/script&gt; 3.0", "2", "1", "1"),
        ('Blamed: <span><a href="04-bring-in.html#case-SH-BRI-002">SH-BRI-002</a>,</span> '
         '<span><a href="04-bring-in.html#case-SH-BRI-004">SH-BRI-004</a></span>',),
        ("beta 2.0", "0", "0", "2"),
    ]
    assert "<script>alert" not in text and "more</span>" not in text
    assert "No case in the report cites this rule." in section(site, "05-betting.html", "BET.DOUBLE.OPEN-PAIR")


def many_blamed(path: Path, count: int) -> list[str]:
    """A report of gamma's in which `count` cases (SH-MNY-001, ...) all fail, blamed on BRING-IN.TIE.SUIT (a run
    killed before its footer): the IDs, in order."""
    header, *lines = [json.loads(line) for line in GAMMA.read_text(encoding="utf-8").splitlines()]
    failing = next(line for line in lines if line.get("id") == "SH-BRI-002")
    ids = [f"SH-MNY-{number:03d}" for number in range(1, count + 1)]
    out = [header] + [dict(failing, id=case_id, title=f"title of {case_id}") for case_id in ids]
    path.write_text("\n".join(json.dumps(line) for line in out) + "\n", encoding="utf-8")
    return ids


def test_a_long_list_of_blamed_cases_is_cut_with_a_count(tmp_path: Path) -> None:
    """335 cases blamed on one rule named every one of them (and squeezed the table's columns)."""
    ids = many_blamed(tmp_path / "many.jsonl", 335)
    assert main(["rulebook", "-o", str(tmp_path / "site"), "--cases", str(cases_dir() / "stud_high" / "bring-in"),
                 "--report", str(tmp_path / "many.jsonl")]) == 0
    text = section(tmp_path / "site", "04-bring-in.html", "BRING-IN.TIE.SUIT")
    (counts, named) = rows(text)
    assert counts == ("gamma 3.0", "335", "0", "0")
    shown = re.findall(r"<span>(?:<a [^>]*>)?([A-Z]{2}-[A-Z]{3}-\d{3})", named[0])
    assert shown == ids[:BLAMED_SHOWN] and named[0].endswith('<span class="more">and 323 more</span>')
    assert "The first 12 cases blamed per engine are named" in text


def test_without_reports_no_results_are_shown(tmp_path: Path) -> None:
    assert main(["rulebook", "-o", str(tmp_path), "--cases", str(cases_dir() / "stud_high" / "bring-in" / "sh-bri-004-bring-in-may-not-fold-or-check.yaml")]) == 0
    assert 'class="results"' not in (tmp_path / "04-bring-in.html").read_text(encoding="utf-8")


def test_reports_are_refused_as_report_refuses_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    some = str(cases_dir() / "stud_high" / "bring-in" / "sh-bri-004-bring-in-may-not-fold-or-check.yaml")
    assert main(["rulebook", "-o", str(tmp_path / "a"), "--cases", some, "--report", str(GAMMA), str(GAMMA)]) == 2
    err = capsys.readouterr().err
    assert "is given twice" in err and "Traceback" not in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "case"\n', encoding="utf-8")
    assert main(["rulebook", "-o", str(tmp_path / "b"), "--cases", some, "--report", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"studcheck rulebook: {bad}:1") and "Traceback" not in err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
