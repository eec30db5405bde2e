"""The page leads with the answer and never counts twice: blame in the matrix, the first screen, badges,
the refusal of double-counted inputs and the bound on the page's size.

gamma.jsonl (engine gamma 3.0, written with blame fields), worked out by hand:
stud_high SH-BRI-001 pass (TIE.SUIT, CHOICE); SH-BRI-002 fail (cites TIE.SUIT, broke TIE.SUIT) and
SH-BRI-004 fail (cites TIE.SUIT and CHOICE, broke TIE.SUIT): cause 1; SH-BRI-005 fail (cites CHOICE, broke
CARD.LOW, which it does not cite): cause 2; SH-BRI-003 error (cites CHOICE, no rule named): cause 3.
razz RZ-BRI-001 pass (CARD.HIGH); RZ-BRI-003 xfail (CARD.HIGH, broke CARD.HIGH) and RZ-BRI-004 xfail
(CARD.HIGH and TIE.SUIT, broke CARD.HIGH): cause 4; RZ-BRI-005 xfail (TIE.SEAT, broke TIE.SEAT): cause 5.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from studcheck.cli import main
from studcheck.commands.report import write_page
from studcheck.report.load import from_lines, read_report
from studcheck.report.model import Model, build_model, load_rules
from studcheck.report.render import CLIP, render_html
from studcheck.resources import data_root

HERE = Path(__file__).resolve().parent
T, C, LOW, HIGH, SEAT = ("BRING-IN.TIE.SUIT", "BRING-IN.CHOICE", "BRING-IN.CARD.LOW", "BRING-IN.CARD.HIGH",
                         "BRING-IN.TIE.SEAT")


@pytest.fixture(scope="module")
def gamma() -> Model:
    return build_model([read_report(HERE / "gamma.jsonl")], load_rules())


def categories(model: Model) -> dict[tuple[str, str], dict[str, int]]:
    """(rule, variant) -> the non-zero categories of the non-empty cells."""
    return {(row.rule.id, column.variant): {k: v for k, v in cell.categories.items() if v}
            for chapter in model.chapters for row in chapter.rows for column, cell in zip(model.columns, row.cells)
            if cell.total}


def test_red_only_where_the_rule_was_broken(gamma: Model) -> None:
    assert categories(gamma) == {
        (T, "stud_high"): {"b": 2, "p": 1}, (T, "razz"): {"a": 1},
        (C, "stud_high"): {"a": 3, "p": 1},
        (LOW, "stud_high"): {"b": 1},  # a row of its own although no case cites it: a case broke it
        (HIGH, "razz"): {"x": 2, "p": 1},
        (SEAT, "razz"): {"x": 1},
    }
    css = {(row.rule.id, column.variant): cell.css for chapter in gamma.chapters for row in chapter.rows
           for column, cell in zip(gamma.columns, row.cells) if cell.total}
    assert css == {(T, "stud_high"): "fail", (T, "razz"): "affected", (C, "stud_high"): "affected",
                   (LOW, "stud_high"): "fail", (HIGH, "razz"): "xfail", (SEAT, "razz"): "xfail"}
    tie = next(row for chapter in gamma.chapters for row in chapter.rows if row.rule.id == T)
    # broken cases first, the one drawn in full (cause 1's representative, SH-BRI-004) before SH-BRI-002
    assert tie.cells[0].target is not None and tie.cells[0].target.id == "SH-BRI-004"
    assert tie.cells[0].tokens == "2b 1b 0p"  # entry index + category, for the filters to recount


def test_first_screen_counts_causes_of_failure_and_of_expected_failure(gamma: Model) -> None:
    (engine,) = gamma.engines
    assert (engine.label, engine.slug, engine.failing, engine.applicable) == ("gamma 3.0", "gamma-3-0", 4, 9)
    assert [(g.blamed, g.count, g.representative.id if g.representative else None) for g in engine.causes] == [
        (T, 2, "SH-BRI-004"), (LOW, 1, "SH-BRI-005"), (None, 1, "SH-BRI-003")]
    assert [(g.blamed, g.count) for g in engine.expected] == [(HIGH, 2), (SEAT, 1)]
    assert [engine.causes_in(column) for column in engine.columns] == [(3, 0), (0, 2)]
    html = render_html(gamma)
    first = html[html.index('<div id="summary">'):html.index('<div class="filters"')]
    assert "<strong>4 failing cases in 3 causes</strong>; <strong>3 expected failures</strong> in 2 causes." in first
    assert '<a href="#rule-BRING-IN.TIE.SUIT"><code>BRING-IN.TIE.SUIT</code></a>' in first
    assert "<code class=\"replay\">studcheck run --engine ./gamma --id SH-BRI-004</code>" in first
    assert "no rule named (engine error)" in first and "engine error: crash &lt;b&gt;" in first
    assert first.count('<li class="cause">') == 5
    assert 'aria-label="1 pass, 3 fail, 1 error"' in first and 'aria-label="1 pass, 3 xfail"' in first
    assert 'id="rule-BRING-IN.CARD.LOW"' in html


def test_expected_failures_are_never_hidden_under_no_failing_case(tmp_path: Path) -> None:
    lines = [json.loads(text) for text in (HERE / "gamma.jsonl").read_text(encoding="utf-8").splitlines()]
    razz = [line for line in lines if line.get("variant", "razz") == "razz" and line["kind"] != "group"
            or line["kind"] == "group" and "xfail" in line["outcomes"]]
    html = render_html(build_model([from_lines("razz.jsonl", razz)], load_rules()))
    assert "No failing case — but <strong>3 expected failures</strong> in 2 causes." in html
    assert "No failing case." not in html


def test_a_report_without_blame_paints_nothing_red_and_says_why() -> None:
    html = render_html(build_model([read_report(HERE / "alpha.jsonl")], load_rules()))
    matrix = html[html.index('<table id="matrix-table">'):html.index('<h2 id="cases">')]
    assert 'class="cell fail"' not in matrix and 'class="cell affected"' in matrix
    assert "This report names no broken rule" in html
    assert "1 xfail case in no cause" in html  # alpha's xfail belongs to no group: said, not hidden


@pytest.mark.parametrize("shape", ["same file twice", "merged and a shard", "two full runs"])
def test_inputs_that_would_count_a_case_twice_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          shape: str) -> None:
    alpha = HERE / "alpha.jsonl"
    text = alpha.read_text(encoding="utf-8")
    if shape == "same file twice":
        first, second = alpha, alpha
    elif shape == "merged and a shard":  # the shard: alpha's header marked shard 1 of 2, and its stud_high cases
        first, second = alpha, tmp_path / "shard-1.jsonl"
        header, *rest = text.splitlines(keepends=True)
        shard = json.loads(header) | {"shard": {"index": 1, "count": 2, "of": 7, "selection": "abc"}}
        second.write_text(json.dumps(shard) + "\n" + "".join(line for line in rest if '"stud_high"' in line), encoding="utf-8")
    else:
        first, second = alpha, tmp_path / "again.jsonl"
        second.write_text(text.replace("2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z"), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["report", str(first), str(HERE / "beta.jsonl"), str(second), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{first} and {second}" in err and "SH-BRI-001 (stud_high)" in err and "doubled" in err
    assert ("given twice" in err) == (shape == "same file twice")
    assert not out.exists()


def test_badges_beside_the_page(tmp_path: Path) -> None:
    write_page([read_report(HERE / "gamma.jsonl"), read_report(HERE / "beta.jsonl")], tmp_path)
    assert json.loads((tmp_path / "badge-gamma-3-0.json").read_text(encoding="utf-8")) == {
        "schemaVersion": 1, "label": "studcheck", "message": "2/9 pass", "color": "red"}
    assert json.loads((tmp_path / "badge-beta-2-0.json").read_text(encoding="utf-8")) == {
        "schemaVersion": 1, "label": "studcheck", "message": "2/2 pass", "color": "brightgreen"}
    svg = ElementTree.fromstring((tmp_path / "badge-gamma-3-0.svg").read_text(encoding="utf-8"))
    texts = [node.text for node in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == ["studcheck", "2/9 pass"]


def test_only_expected_failures_make_a_yellow_badge(tmp_path: Path) -> None:
    lines = [json.loads(text) for text in (HERE / "gamma.jsonl").read_text(encoding="utf-8").splitlines()]
    write_page([from_lines("razz.jsonl", [line for line in lines if line.get("variant", "razz") == "razz"])], tmp_path)
    assert json.loads((tmp_path / "badge-gamma-3-0.json").read_text(encoding="utf-8"))["color"] == "yellow"


def test_engine_text_is_escaped_in_the_summary_and_the_badge(tmp_path: Path) -> None:
    payload = "<script>alert(1)</script>"
    text = (HERE / "gamma.jsonl").read_text(encoding="utf-8").replace('"name": "gamma"', f'"name": "{payload}"')
    text = text.replace("to_act: expected N, got N+1", f"to_act {payload}")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text, encoding="utf-8")
    write_page([read_report(bad)], tmp_path / "site")
    html = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html and html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3
    assert sorted(path.name for path in (tmp_path / "site").glob("badge-*")) == [
        "badge-script-alert-1-script-3-0.json", "badge-script-alert-1-script-3-0.svg"]


#: the bound on the page for a whole-suite run with 312 failures in one cause (bring_in_option.py's shape)
PAGE_BOUND = 1_000_000


def test_312_failures_make_a_page_well_under_a_megabyte(tmp_path: Path) -> None:
    """Every case of the suite, 312 of them failing in one cause with 20 kB of stderr each: one hand is
    drawn (the representative's), the other 311 failures are a row each, stderr is clipped."""
    files = sorted(path for path in (data_root() / "cases").glob("*/*/*.yaml") if path.parts[-3] != "evaluation")
    assert len(files) > 600
    lines: list[dict[str, object]] = [{"kind": "header", "studcheck": "0.1.0", "protocol": 1, "engine": {
        "name": "big", "version": "1", "variants": [], "options": {}}, "command": "./big", "started": "2026-12-01T00:00:00Z",
        "cases": ["cases"]}]
    failing: list[str] = []
    for number, path in enumerate(files):
        case_id = "-".join(path.name.split("-")[:3]).upper()
        line: dict[str, object] = {"kind": "case", "id": case_id, "outcome": "pass", "variant": path.parent.parent.name,
                                   "file": str(path.relative_to(data_root())), "line": 1, "title": f"the case {case_id}",
                                   "tags": ["t"], "rules": ["BRING-IN.CALLED-ROUND-ENDS", "BET.ROUND-END"], "duration_ms": 1.0}
        if number % 2 == 0 and len(failing) < 312:
            failing.append(case_id)
            line |= {"outcome": "fail", "step": 0, "step_text": "expect street", "message": "the state differs",
                     "mismatches": [{"path": "street", "expected": "fourth", "actual": "third"}], "problem": None,
                     "evidence": None, "stderr": "x" * 20_000, "options": {}, "xfail_reason": None,
                     "replay": f"studcheck run --engine ./big --id {case_id}", "transcript": [],
                     "blame": ["BRING-IN.CALLED-ROUND-ENDS"], "cause": 1}
        lines.append(line)
    lines.append({"kind": "group", "rank": 1, "key": "street: expected 'fourth', got 'third'", "cause": "state",
                  "field": "street", "shape": "expected 'fourth', got 'third'", "action": None, "count": 312,
                  "outcomes": {"fail": 312}, "variants": {}, "cases": failing, "representative": failing[0],
                  "replay": f"studcheck run --engine ./big --id {failing[0]}", "rules": [], "forms": [],
                  "blame": ["BRING-IN.CALLED-ROUND-ENDS"]})
    page = write_page([from_lines("big.jsonl", lines)], tmp_path)
    html = page.read_text(encoding="utf-8")
    assert len(failing) == 312
    assert len(html.encode("utf-8")) < PAGE_BOUND
    assert html.count('<pre class="hand">') == 1 and html.count('<section class="case compact fail"') == 311
    assert html.count("x" * CLIP) == 1 and "x" * (CLIP + 1) not in html  # the representative's stderr, clipped
    assert "18,000 more characters omitted on this page" in html
    assert "The other 311 cases are one row each" in html
    assert not re.search(r"<details class=\"hand\" open", html)  # hands folded
