"""The parts of the page beyond the counts: the rule text, hands drawn with cards, the tag filter and
`studcheck run --html`. Expected values come from the spec and case files by hand, not from the code.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from studcheck.cli import main
from studcheck.report.hands import cards_html, find_case, histories
from studcheck.report.load import read_report
from studcheck.report.model import CaseEntry, Column, build_model, load_rules, rule_texts
from studcheck.report.render import render_html, rule_html

HERE = Path(__file__).resolve().parent
ENGINES = HERE.parent / "engines"


def test_rule_text_is_the_paragraphs_under_its_heading_without_sources(tmp_path: Path) -> None:
    doc = tmp_path / "09-x.md"
    doc.write_text("# 09 — X\n\nIntro.\n\n### `X.ONE` — first\n\nOne MUST hold.\n\n**Applies to:** razz.\n\n"
                   "**Sources:** long list.\n\n**Example:** seat 2.\n\n## Other\n\nNot a rule.\n\n### `X.TWO` — second\n\nTwo.\n",
                   encoding="utf-8")
    assert rule_texts(doc) == {"X.ONE": "One MUST hold.\n\n**Applies to:** razz.\n\n**Example:** seat 2.", "X.TWO": "Two."}
    assert rule_texts(tmp_path / "missing.md") == {}


def test_every_rule_of_the_spec_has_its_text() -> None:
    rules = load_rules()
    assert all(rule.text for rule in rules.values())
    high = rules["BRING-IN.CARD.HIGH"].text
    assert high.startswith("In Razz, the seat whose door card has the highest rank")
    assert "**Sources:**" not in high


def test_rule_markdown_is_escaped_then_marked_up() -> None:
    assert str(rule_html("A `<x>` is **bold** & fine\n\nnext")) == (
        "<p>A <code>&lt;x&gt;</code> is <strong>bold</strong> &amp; fine</p>\n<p>next</p>")


def test_cards_are_drawn_as_cards_and_the_rest_escaped() -> None:
    assert str(cards_html("seat 1  [Kh 9c] As Qd <b>Ts</b> Asia 10s")) == (
        'seat 1  [<b class="r">K♥</b> <b>9♣</b>] <b>A♠</b> <b class="r">Q♦</b> &lt;b&gt;<b>T♠</b>&lt;/b&gt; Asia 10s')


def test_a_case_is_found_by_its_file_else_by_id_in_the_bundled_suite(tmp_path: Path) -> None:
    by_file = find_case({"id": "RZ-BRI-001", "file": "cases/razz/bring-in/rz-bri-001-ace-door-never-brings-in.yaml"})
    by_id = find_case({"id": "RZ-BRI-001", "file": "elsewhere/rz-bri-001.yaml"})
    assert by_file is not None and by_id is not None and by_file.id == by_id.id == "RZ-BRI-001"
    assert find_case({"id": "RZ-NOPE-001", "file": "cases/nope.yaml"}) is None
    found = histories([entry("RZ-BRI-001"), entry("RZ-NOPE-001")])
    assert list(found) == ["a-RZ-BRI-001"]
    # the case file deals seat 1 2h 3h As (two down, one up) and seat 2 brings in 2 (the Qd)
    assert "seat 1  [2h 3h] As" in found["a-RZ-BRI-001"] and "seat 2 brings in 2" in found["a-RZ-BRI-001"]


def entry(case_id: str, **line: object) -> CaseEntry:
    column = Column(key="c1", engine="e", version="1", variant="razz", label="e 1")
    return CaseEntry(anchor=f"a-{case_id}", column=column, line={"id": case_id, "file": "", "outcome": "fail", **line}, source="r")


def test_the_hand_marks_the_step_where_the_engine_diverged() -> None:
    """RZ-BRI-001's steps (cases/razz/bring-in/rz-bri-001-*.yaml): step 1 expects seat 2 to act with bring_in 2
    or complete 5, step 2 is seat 2's bring-in. Diverging at step 2 puts the mark after the expect line and
    before seat 2's bring-in; the mark is drawn as a <mark>, the rest as before."""
    text = histories([entry("RZ-BRI-001", step=1, step_text="act: seat 2 bring_in 2")])["a-RZ-BRI-001"]
    lines = text.splitlines()
    at = lines.index("▶ the engine diverged here: step 2: act: seat 2 bring_in 2")
    assert lines[at - 1].lstrip().startswith("· expect street third, to_act 2") and "seat 2 brings in 2" in lines[at + 1]
    assert sum(line.startswith("▶") for line in lines) == 1
    assert '<mark class="diverged">▶ the engine diverged here: step 2: act: seat 2 bring_in 2</mark>' in str(cards_html(text))


def test_tags_filter_lists_the_tags_of_the_cases(tmp_path: Path) -> None:
    tagged = tmp_path / "tagged.jsonl"
    text = (HERE / "alpha.jsonl").read_text(encoding="utf-8")
    tagged.write_text(text.replace('"id": "SH-BRI-002", "outcome": "fail", "variant": "stud_high", '
                                   '"file": "cases/sh-bri-002.yaml", "line": 1, "title": "title of SH-BRI-002", "tags": []',
                                   '"id": "SH-BRI-002", "outcome": "fail", "variant": "stud_high", '
                                   '"file": "cases/sh-bri-002.yaml", "line": 1, "title": "title of SH-BRI-002", '
                                   '"tags": ["tie", "bring-in"]'), encoding="utf-8")
    model = build_model([read_report(tagged)], load_rules())
    assert model.tags == ("bring-in", "tie")
    html = render_html(model)
    assert '<option value="bring-in">bring-in</option>' in html
    assert 'id="case-c1-SH-BRI-002" data-variant="stud_high" data-outcome="fail" data-tags="tie bring-in"' in html


def test_case_sections_link_rules_to_their_text_and_say_when_the_hand_is_missing() -> None:
    html = render_html(build_model([read_report(HERE / "alpha.jsonl")], load_rules()))
    assert '<a href="#text-BRING-IN.TIE.SUIT">BRING-IN.TIE.SUIT</a>' in html
    assert 'id="text-BRING-IN.TIE.SUIT"' in html and 'id="text-NOT.A.RULE"' in html
    assert "No hand history: the case file <code>cases/sh-bri-002.yaml</code> was not found" in html


def test_run_html_writes_the_page_of_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """RZ-BRI-001 (razz): this engine plays razz by Stud High's bring-in, so the lowest door card (seat 4's
    4c) brings in instead of seat 2's Qd: fail at step 1, to_act 2 expected, 4 actual. SH-BRI-001 passes."""
    site, report = tmp_path / "site", tmp_path / "run.jsonl"
    engine = shlex.join([sys.executable, str(ENGINES / "script_in_stderr.py")])
    code = main(["run", "--engine", engine, "--id", "RZ-BRI-001", "--id", "SH-BRI-001", "--no-progress",
                 "--report", str(report), "--html", str(site)])
    assert code == 1
    assert str(site / "index.html") in capsys.readouterr().out
    html = (site / "index.html").read_text(encoding="utf-8")
    section = re.search(r'<section class="case fail" id="case-c1-RZ-BRI-001".*?</section>', html, re.S)
    assert section is not None
    assert "Diverged at step 1: expect legal, pot_total, stacks, street, to_act" in section.group(0)
    assert "<tr><td><code>to_act</code></td><td><code>2</code></td><td><code>4</code></td></tr>" in section.group(0)
    assert "<b>A♠</b>" in section.group(0)
    assert "hand RZ-BRI-001: &lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in section.group(0)
    assert "<script>alert" not in html
    assert [json.loads(line)["kind"] for line in report.read_text(encoding="utf-8").splitlines()][0] == "header"
    assert html.count('<section class="case ') == 1  # the passing case is in the index only
