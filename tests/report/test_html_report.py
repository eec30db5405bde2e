"""The HTML report: exact counts per rule and column from a hand-written pair of reports, the page's
links and escaping, and the messages for bad input.

alpha.jsonl (engine alpha 1.0): stud_high SH-BRI-001 pass (TIE.SUIT, CHOICE), SH-BRI-002 fail
(TIE.SUIT), SH-BRI-003 error (CHOICE, stderr with a <script> tag); razz RZ-BRI-001 pass (CARD.HIGH),
RZ-BRI-002 n/a (TIE.SEAT), RZ-BRI-003 xfail (CARD.HIGH), RZ-XYZ-001 xpass (NOT.A.RULE, unknown);
two group lines. beta.jsonl (beta 2.0): stud_high SH-BRI-001 and SH-BRI-002 pass.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from studcheck.cli import main
from studcheck.report.load import ReportInputError, read_report
from studcheck.report.model import OTHER_CHAPTER, Model, build_model, load_rules
from studcheck.report.render import render_html

HERE = Path(__file__).resolve().parent
ZERO = {"pass": 0, "fail": 0, "error": 0, "not_applicable": 0, "xfail": 0, "xpass": 0}


def counts(**given: int) -> dict[str, int]:
    return {**ZERO, **given}


@pytest.fixture(scope="module")
def model() -> Model:
    return build_model([read_report(HERE / "alpha.jsonl"), read_report(HERE / "beta.jsonl")], load_rules())


def cells(model: Model) -> dict[tuple[str, str], dict[str, int]]:
    """(rule id, column label + variant) -> counts, for the non-empty cells."""
    return {(row.rule.id, f"{column.label} {column.variant}"): dict(cell.counts)
            for chapter in model.chapters for row in chapter.rows for column, cell in zip(model.columns, row.cells) if cell.total}


def test_columns_are_engine_and_variant_in_report_order(model: Model) -> None:
    assert [(c.engine, c.version, c.variant) for c in model.columns] == [
        ("alpha", "1.0", "stud_high"), ("alpha", "1.0", "razz"), ("beta", "2.0", "stud_high")]


def test_counts_per_cell_exactly(model: Model) -> None:
    assert cells(model) == {
        ("BRING-IN.TIE.SUIT", "alpha 1.0 stud_high"): counts(**{"pass": 1, "fail": 1}),
        ("BRING-IN.TIE.SUIT", "beta 2.0 stud_high"): counts(**{"pass": 2}),
        ("BRING-IN.CHOICE", "alpha 1.0 stud_high"): counts(**{"pass": 1, "error": 1}),
        ("BRING-IN.CHOICE", "beta 2.0 stud_high"): counts(**{"pass": 1}),
        ("BRING-IN.CARD.HIGH", "alpha 1.0 razz"): counts(**{"pass": 1, "xfail": 1}),
        ("BRING-IN.TIE.SEAT", "alpha 1.0 razz"): counts(not_applicable=1),
        ("NOT.A.RULE", "alpha 1.0 razz"): counts(xpass=1),
    }
    assert model.totals == {"c1": counts(**{"pass": 1, "fail": 1, "error": 1}),
                            "c2": counts(**{"pass": 1, "not_applicable": 1, "xfail": 1, "xpass": 1}),
                            "c3": counts(**{"pass": 2})}


def test_rows_grouped_by_chapter_in_spec_order_unknown_last(model: Model) -> None:
    assert [(chapter.doc, [row.rule.id for row in chapter.rows]) for chapter in model.chapters] == [
        ("spec/rules/04-bring-in.md", ["BRING-IN.CARD.HIGH", "BRING-IN.TIE.SUIT", "BRING-IN.TIE.SEAT", "BRING-IN.CHOICE"]),
        (OTHER_CHAPTER, ["NOT.A.RULE"])]
    assert model.chapters[0].title == "04 — The bring-in"
    assert model.chapters[0].rows[0].rule.title.startswith("Razz: the highest up card brings in")


def test_colour_classes_and_worst_case_first(model: Model) -> None:
    """alpha.jsonl was written before blame: its failing cases make the rules they cite "affected", never red."""
    row = model.chapters[0].rows[1]  # TIE.SUIT
    assert [cell.css for cell in row.cells] == ["affected", "empty", "pass"]
    assert row.cells[0].target is not None and row.cells[0].target.id == "SH-BRI-002"
    assert [cell.css for cell in model.chapters[0].rows[2].cells] == ["empty", "na", "empty"]
    assert [cell.css for cell in model.chapters[0].rows[0].cells] == ["empty", "affected", "empty"]
    assert not any(cell.css in ("fail", "xfail") for chapter in model.chapters for row in chapter.rows for cell in row.cells)


def test_detailed_cases_and_groups(model: Model) -> None:
    assert [(case.id, case.outcome, case.where) for case in model.detailed] == [  # cause by cause, then cases in none
        ("SH-BRI-003", "error", "step 1: deal"), ("SH-BRI-002", "fail", "step 3: expect: to_act 3"),
        ("RZ-BRI-003", "xfail", "step 2: expect: bring_in 5"), ("RZ-XYZ-001", "xpass", "setup")]
    assert [(group.engine, group.line["key"], [case.anchor for case in group.cases]) for group in model.groups] == [
        ("alpha 1.0", "engine error: crash <b>", ["case-c1-SH-BRI-003"]),
        ("alpha 1.0", "to_act: N instead of N+1", ["case-c1-SH-BRI-002"])]


def test_shards_of_one_engine_share_columns(tmp_path: Path) -> None:
    """alpha split in two shards (stud_high, razz) reads as alpha itself, and the page names both inputs."""
    lines = (HERE / "alpha.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    first, second = tmp_path / "shard-1.jsonl", tmp_path / "shard-2.jsonl"
    first.write_text("".join(line for line in lines if '"razz"' not in line or '"header"' in line), encoding="utf-8")
    second.write_text("".join(line for line in lines if '"kind": "case"' not in line or '"razz"' in line), encoding="utf-8")
    merged = build_model([read_report(first), read_report(second)], load_rules())
    assert len(merged.columns) == 2
    assert merged.totals["c1"] == counts(**{"pass": 1, "fail": 1, "error": 1})
    assert merged.column_sources == {"c1": (str(first),), "c2": (str(second),)}
    html = render_html(merged)
    assert f"From <code>{first}</code>" in html
    assert f'stud_high<br><small class="inputs">from {first}</small>' in html
    assert f'razz<br><small class="inputs">from {second}</small>' in html


class _Page(HTMLParser):
    """Collects ids, links, matrix rows and script bodies."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (href, class of the enclosing td)
        self.rule_rows: list[str] = []
        self.scripts = 0
        self._td = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if tag in ("td", "th"):
            self._td = found.get("class") or "" if tag == "td" else ""
        if tag == "a" and found.get("href"):
            self.links.append((str(found["href"]), self._td))
        if tag == "tr" and found.get("class") == "rule":
            self.rule_rows.append(str(found.get("id")))
        if tag == "script":
            self.scripts += 1


@pytest.fixture(scope="module")
def page(model: Model) -> tuple[str, _Page]:
    html = render_html(model)
    parser = _Page()
    parser.feed(html)
    return html, parser


def test_one_matrix_row_per_rule_with_cases(model: Model, page: tuple[str, _Page]) -> None:
    _, parsed = page
    assert parsed.rule_rows == [f"rule-{row.rule.id}" for chapter in model.chapters for row in chapter.rows]
    assert len(parsed.rule_rows) == 5


def test_affected_cells_link_to_existing_case_anchors(page: tuple[str, _Page]) -> None:
    _, parsed = page
    affected = [href for href, css in parsed.links if "cell affected" in css]
    assert affected == ["#case-c2-RZ-BRI-003", "#case-c1-SH-BRI-002", "#case-c1-SH-BRI-003"]  # RZ-XYZ-001 passed (xpass)
    assert not [href for href, css in parsed.links if "cell fail" in css]
    internal = [href for href, _ in parsed.links if href.startswith("#")]
    assert all(href[1:] in parsed.ids for href in internal)


def test_every_non_empty_cell_links_to_a_case_of_its_own(model: Model, page: tuple[str, _Page]) -> None:
    _, parsed = page
    cell_links = [href for href, css in parsed.links if css.startswith("cell ")]
    expected = [f"#{cell.target.anchor}" for chapter in model.chapters for row in chapter.rows for cell in row.cells
                if cell.target is not None]
    assert cell_links[:len(expected)] == expected and len(expected) == 7
    assert "#case-c3-SH-BRI-001" in expected  # a passing cell links into the index of all cases
    assert all(href[1:] in parsed.ids for href in expected)


def test_engine_strings_are_escaped(page: tuple[str, _Page]) -> None:
    html, parsed = page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert" not in html and "crash <b>" not in html
    assert parsed.scripts == 1  # only the page's own filter script


def test_self_contained(page: tuple[str, _Page]) -> None:
    html, _ = page
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", html)
    assert "<link" not in html


def test_command_writes_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "site"
    assert main(["report", str(HERE / "alpha.jsonl"), str(HERE / "beta.jsonl"), "-o", str(out)]) == 0
    assert (out / "index.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert capsys.readouterr().out.strip() == str(out / "index.html")


@pytest.mark.parametrize(("text", "message"), [
    ('{"kind":"case"\n', "bad.jsonl:1: not JSON"),
    ('\n["not", "an object"]\n', "bad.jsonl:2: not a report line"),
    ('{"kind":"verdict"}\n', "bad.jsonl:1: not a report line"),
    ('{"kind":"case","id":"SH-X-001"}\n', "bad.jsonl:1: not a valid case line: "),
    ("", "bad.jsonl: empty"),
])
def test_bad_input_names_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ReportInputError, match=re.escape(message)):
        read_report(bad)
    assert main(["report", str(bad), "-o", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(HERE / "alpha.jsonl"), str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "out")]) == 2
    assert f"{tmp_path / 'nope.jsonl'}: no such file" in capsys.readouterr().err


def test_same_name_and_version_with_another_command_get_own_columns(tmp_path: Path) -> None:
    """A patched build that still calls itself `alpha 1.0` must not be counted with the original."""
    patched = tmp_path / "patched.jsonl"
    patched.write_text((HERE / "alpha.jsonl").read_text(encoding="utf-8").replace('"command": "./alpha"', '"command": "./alpha-patched"'),
                       encoding="utf-8")
    both = build_model([read_report(HERE / "alpha.jsonl"), read_report(patched)], load_rules())
    assert [column.label for column in both.columns] == [
        "alpha 1.0 (./alpha)", "alpha 1.0 (./alpha)", "alpha 1.0 (./alpha-patched)", "alpha 1.0 (./alpha-patched)"]
    assert both.totals["c3"] == counts(**{"pass": 1, "fail": 1, "error": 1})


def test_a_run_cut_short_is_flagged(tmp_path: Path) -> None:
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join((HERE / "beta.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)[:-1]), encoding="utf-8")
    model = build_model([read_report(HERE / "alpha.jsonl"), read_report(cut)], load_rules())
    assert [(source.engine, source.warning) for source in model.sources] == [
        ("alpha 1.0", ""), ("beta 2.0", "no footer: the run was cut short, these counts are partial")]
    assert "no footer: the run was cut short" in render_html(model)


def test_cells_show_only_their_non_zero_counts(model: Model, page: tuple[str, _Page]) -> None:
    html, _ = page
    tie_suit = model.chapters[0].rows[1]  # alpha stud_high: SH-BRI-001 pass, SH-BRI-002 fail; beta: two passes
    assert [cell.summary for cell in tie_suit.cells] == [((1, "affected"), (1, "pass")), (), ((2, "pass"),)]
    assert '<a href="#case-c1-SH-BRI-002"><span class="n">1 affected</span> <span class="n">1 pass</span></a>' in html


def test_chapters_in_the_order_of_their_numbers(tmp_path: Path) -> None:
    """CARDS.NOTATION (00-conventions) comes after SETUP.* (01-setup) in rules.yaml, but its chapter is first."""
    two = tmp_path / "two.jsonl"
    lines = (HERE / "beta.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    two.write_text("".join(line.replace('"rules": ["BRING-IN.TIE.SUIT", "BRING-IN.CHOICE"]', '"rules": ["SETUP.DECK", "CARDS.NOTATION"]')
                           for line in lines), encoding="utf-8")
    model = build_model([read_report(two)], load_rules())
    assert [chapter.doc for chapter in model.chapters] == [
        "spec/rules/00-conventions.md", "spec/rules/01-setup-and-cards.md", "spec/rules/04-bring-in.md"]
