"""`studcheck report|run --rulebook URL`: every rule ID on the page links to its section in the rulebook site.

The expected pages are read here from spec/rules.yaml (a rule's `doc` is its chapter page), not from
the rulebook's own mapping that the command uses.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from studcheck.cli import main
from studcheck.commands.report import rulebook_links
from studcheck.report.load import read_report
from studcheck.report.model import Model, build_model, load_rules
from studcheck.report.render import render_html
from studcheck.resources import spec_dir

HERE = Path(__file__).resolve().parent
BOOK_LINK = re.compile(r'<a class="book" href="([^"]*)"')


@pytest.fixture(scope="module")
def model() -> Model:
    return build_model([read_report(HERE / "gamma.jsonl")], load_rules())


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    rules = yaml.safe_load((spec_dir() / "rules.yaml").read_text(encoding="utf-8"))["rules"]
    return {rule["id"]: Path(rule["doc"]).stem + ".html" for rule in rules}


def matrix_row(html: str, rule: str) -> str:
    start = html.index(f'<tr class="rule" id="rule-{rule}">')
    return html[start:html.index("</th>", start)]


def test_without_the_flag_nothing_links_out(model: Model) -> None:
    html = render_html(model)
    assert 'class="book"' not in html and "in the rulebook" not in html
    assert render_html(model, {}) == html


def test_every_rule_id_links_to_its_chapter_page_and_anchor(model: Model, pages: dict[str, str]) -> None:
    links = rulebook_links("../rulebook")  # no trailing slash: one is added
    assert links["BRING-IN.TIE.SUIT"] == "../rulebook/" + pages["BRING-IN.TIE.SUIT"] + "#BRING-IN.TIE.SUIT"
    assert {rule: href.split("/", 2)[2].split("#")[0] for rule, href in links.items()} == pages
    html = render_html(model, links)
    for rule in ("BRING-IN.TIE.SUIT", "BRING-IN.CHOICE", "BRING-IN.CARD.HIGH", "BRING-IN.CARD.LOW", "BRING-IN.TIE.SEAT"):
        assert BOOK_LINK.findall(matrix_row(html, rule)) == [f"../rulebook/{pages[rule]}#{rule}"]
    causes = html[html.index('<ol class="causes failing">'):]
    causes = causes[:causes.index("</ol>")]
    # gamma's failing causes blame BRING-IN.TIE.SUIT (2 cases) and BRING-IN.CARD.LOW (1); the error names none
    assert BOOK_LINK.findall(causes) == [f"../rulebook/{pages['BRING-IN.TIE.SUIT']}#BRING-IN.TIE.SUIT",
                                         f"../rulebook/{pages['BRING-IN.CARD.LOW']}#BRING-IN.CARD.LOW"]


def test_the_url_is_escaped_in_the_attribute(model: Model) -> None:
    html = render_html(model, rulebook_links('x"><script>alert(1)</script>&y/'))
    assert "<script>alert(1)" not in html
    assert 'href="x&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;y/04-bring-in.html#BRING-IN.TIE.SUIT"' in html


def test_report_command_writes_the_links(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(HERE / "gamma.jsonl"), "-o", str(tmp_path / "report"), "--rulebook", "../rulebook/"]) == 0
    html = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert 'href="../rulebook/04-bring-in.html#BRING-IN.TIE.SUIT"' in html
    with pytest.raises(SystemExit) as stopped:
        main(["report", str(HERE / "gamma.jsonl"), "-o", str(tmp_path / "other"), "--rulebook", ""])
    assert stopped.value.code == 2 and "empty URL" in capsys.readouterr().err


def test_run_html_writes_the_links(tmp_path: Path) -> None:
    code = main(["run", "--in-process", "--no-progress", "--id", "SH-BRI-004", "--html", str(tmp_path / "run"),
                 "--rulebook", "https://example.org/book/"])
    assert code == 0
    html = (tmp_path / "run" / "index.html").read_text(encoding="utf-8")
    assert 'href="https://example.org/book/04-bring-in.html#BRING-IN.CHOICE"' in html  # the case cites it
