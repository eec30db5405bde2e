"""The rulebook's reading of spec/ (chapters, sources, options, glossary) and its escaping, without a browser."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from studcheck.cases.load import load_case, load_cases
from studcheck.cases.model import Case
from studcheck.cli import main
from studcheck.resources import cases_dir, spec_dir
from studcheck.rulebook.markdown import Linker, Slugger, inline, render
from studcheck.rulebook.model import build_book, parse_option_rules, parse_register, register_entry
from studcheck.rulebook.render import case_script, write_site

LINKER = Linker({"04-bring-in.md": "04-bring-in.html"}, {"BRING-IN.TIE.SUIT": "04-bring-in.html#BRING-IN.TIE.SUIT"})


@pytest.fixture(scope="module")
def some_cases() -> list[Case]:
    return load_cases([cases_dir() / "stud_high" / "bring-in"])


def test_markdown_is_escaped_before_it_is_marked_up() -> None:
    html = inline('<script>alert(1)</script> **bold** `BRING-IN.TIE.SUIT` [x](javascript:alert(1)) *em*', LINKER)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<strong>bold</strong>" in html and "<em>em</em>" in html
    assert '<a href="04-bring-in.html#BRING-IN.TIE.SUIT"><code>BRING-IN.TIE.SUIT</code></a>' in html
    assert "javascript:" not in html.replace("javascript:alert(1)", "") or 'href="javascript' not in html
    assert 'href="javascript' not in html
    table = render("| a | b |\n|---|---|\n| <i>1</i> | 2 |\n\n- one\n  more\n- two\n", LINKER)
    assert "<td>&lt;i&gt;1&lt;/i&gt;</td>" in table and "<li>one more</li>" in table


def test_register_and_option_tables_are_read() -> None:
    text = (spec_dir() / "sources.md").read_text(encoding="utf-8")
    register = parse_register(text)
    assert register_entry("TDA24-17-A", register).startswith("Poker TDA Rules 2024")
    assert register_entry("WSOP-L24-146", register).startswith("Caesars Entertainment WSOP Live-Action")
    assert register_entry("sources/003", register).startswith("English article")
    options = parse_option_rules((spec_dir() / "options.md").read_text(encoding="utf-8"))
    assert options["bring_in_tie"] == ["BRING-IN.TIE.SUIT", "BRING-IN.TIE.SEAT"]
    assert "rake_cap" in options and "betting" in options


def test_the_book_has_every_rule_with_its_sources_options_and_cases(some_cases: list[Case]) -> None:
    book = build_book(spec_dir(), some_cases)
    listed = {rule["id"] for rule in yaml.safe_load((spec_dir() / "rules.yaml").read_text(encoding="utf-8"))["rules"]}
    assert set(book.rules) == listed
    rule = book.rules["BRING-IN.TIE.SUIT"]
    assert rule.chapter == "04-bring-in.html" and "suit order clubs <\ndiamonds" in rule.body
    assert {ref.tag for ref in rule.sources} >= {"sources/000", "TDA24-RP-10-E"}
    assert any(statement.source == "sources/000" for statement in rule.statements)
    (effect,) = [effect for effect in rule.options if effect.name == "bring_in_tie"]
    groups = dict(effect.cases_by_value)
    assert {case.id for case in groups["seat"]} >= {"SH-BRI-003"} and {case.id for case in groups["suit"]} >= {"SH-BRI-002"}
    assert effect.default == "suit"
    assert {case.id for case in rule.cases} == {case.id for case in some_cases if "BRING-IN.TIE.SUIT" in case.rules}
    assert ("rrp_cash", "all_cards") in dict((e.name, e.profiles) for e in book.rules["POT.ODD-CHIP.ALL-CARDS"].options)["odd_chip"]
    assert {term.term for term in book.terms} >= {"Seat", "Commitment", "Contender"}


def test_a_retired_rule_keeps_its_anchor(tmp_path: Path) -> None:
    """rules.yaml's `retired` rules are gone from the documents; their IDs must still lead somewhere."""
    spec = tmp_path / "spec"
    shutil.copytree(spec_dir(), spec)
    text = (spec / "rules.yaml").read_text(encoding="utf-8")
    text += ('  - {id: BRING-IN.OLD-WAY, title: An old rule, variants: [razz], doc: spec/rules/04-bring-in.md, '
             'sources: [STUDCHECK], retired: "2026-12-01: replaced by BRING-IN.CARD.HIGH"}\n')
    (spec / "rules.yaml").write_text(text, encoding="utf-8")
    book = build_book(spec, [])
    rule = book.rules["BRING-IN.OLD-WAY"]
    assert rule.chapter == "04-bring-in.html" and rule.retired == "2026-12-01: replaced by `BRING-IN.CARD.HIGH`"
    write_site(book, tmp_path / "site")
    page = (tmp_path / "site" / "04-bring-in.html").read_text(encoding="utf-8")
    assert 'id="BRING-IN.OLD-WAY"' in page and 'href="04-bring-in.html#BRING-IN.CARD.HIGH"' in page


def _files(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


def test_the_site_and_its_search_index(tmp_path: Path, some_cases: list[Case]) -> None:
    files, size = write_site(build_book(spec_dir(), some_cases), tmp_path)
    index = json.loads((tmp_path / "search-index.json").read_text(encoding="utf-8"))
    assert files == len(_files(tmp_path)) and size == sum(p.stat().st_size for p in _files(tmp_path))
    entries = [dict(zip(index["fields"], row, strict=True)) for row in index["entries"]]
    rules = {entry["id"]: entry["url"] for entry in entries if entry["kind"] == "rule"}
    assert rules["BRING-IN.TIE.SUIT"] == "04-bring-in.html#BRING-IN.TIE.SUIT"
    assert {entry["id"] for entry in entries if entry["kind"] == "case"} == {case.id for case in some_cases}
    page = (tmp_path / "04-bring-in.html").read_text(encoding="utf-8")
    assert page.count('id="case-SH-BRI-004"') == 1  # listed once per page, linked from every other rule citing it
    assert 'id="BRING-IN.TIE.SUIT"' in page and "<script>" not in page.replace("<script src=", "")
    # the hand is not on the page: it is cases/SH-BRI-004.js, loaded when the case is opened
    assert 'data-src="cases/SH-BRI-004.js"' in page and "pre class=\"hand\"" not in page
    drawing = (tmp_path / "cases" / "SH-BRI-004.js").read_text(encoding="utf-8")
    assert drawing.startswith('RULEBOOK_CASE("SH-BRI-004", "<pre class=\\"hand\\">SH-BRI-004 ')
    assert "The case file's comments" in drawing and "</" not in drawing


def test_a_case_id_that_is_no_file_name_gets_a_script_named_by_its_hash() -> None:
    assert case_script("SH-BRI-004") == "cases/SH-BRI-004.js"
    odd = case_script("../x y")
    assert re.fullmatch(r"cases/case-[0-9a-f]{16}\.js", odd) and odd == case_script("../x y")


def test_spec_documents_are_pages_whose_headings_keep_their_github_anchors(tmp_path: Path) -> None:
    """spec/README.md links `options.md#not-covered-deliberately-not-options`: the anchor must exist."""
    write_site(build_book(spec_dir(), []), tmp_path)
    about = (tmp_path / "about.html").read_text(encoding="utf-8")
    options = (tmp_path / "options.html").read_text(encoding="utf-8")
    assert 'id="scope-and-what-is-not-covered"' in about and 'id="not-covered-deliberately-not-options"' in options
    assert 'href="options.html#not-covered-deliberately-not-options"' in about
    assert 'id="bring_in_tie"' in options  # a heading in backticks: the backticks are dropped, as on GitHub
    slugger = Slugger()
    assert [slugger("Examples"), slugger("`rake_percent` and `rake_cap`"), slugger("Examples")] == [
        "examples", "rake_percent-and-rake_cap", "examples-1"]


def test_a_hostile_case_is_escaped_everywhere(tmp_path: Path) -> None:
    source = tmp_path / "hostile.yaml"
    source.write_text(
        'id: SH-WSP-904\ntitle: "</script><script>alert(1)</script>"\nrules: [BRING-IN.CARD.LOW]\ntags: [bring-in]\n'
        "variant: stud_high\nstakes: {ante: 1, bring_in: 2, small_bet: 5, big_bet: 10}\n# <img src=x onerror=alert(2)>\n"
        "seats:\n  1: {stack: 100, cards: Kh Qh As}\n  2: {stack: 100, cards: 9c 8c 3d}\nsteps:\n  - expect: {to_act: 2}\n",
        encoding="utf-8")
    write_site(build_book(spec_dir(), [load_case(source)]), tmp_path / "site")
    site = tmp_path / "site"
    for path in [*site.glob("*.html"), *site.glob("cases/*.js")]:  # the search index holds the title as JSON data (textContent)
        text = path.read_text(encoding="utf-8")
        assert "<script>alert" not in text and "<img" not in text, path.name
    assert "&lt;img src=x onerror=alert(2)&gt;" in (site / "cases" / "SH-WSP-904.js").read_text(encoding="utf-8")
    script = (tmp_path / "site" / "search-index.js").read_text(encoding="utf-8")
    assert "</script>" not in script and "<\\/script>" in script


def test_cli_reports_unreadable_cases_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: [\n", encoding="utf-8")
    assert main(["rulebook", "-o", str(tmp_path / "out"), "--cases", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml" in err and "Traceback" not in err
