"""`--rulebook URL` starts hundreds of links on the page (issue 33): only http(s) addresses and
relative paths are taken; any other scheme, however a browser would still read it, is a usage error."""

from __future__ import annotations

from pathlib import Path

import pytest

from studcheck.cli import main

HERE = Path(__file__).resolve().parent
REFUSED = ["javascript:alert(1)", "data:text/html,x", "JAVASCRIPT:alert(1)", " javascript:alert(1)", "file:///etc/",
           "java\tscript:alert(1)", "\x01javascript:alert(1)", "vbscript:x", "JaVaScRiPt:alert(1)//"]


def _command(which: str, out: Path, url: str) -> list[str]:
    if which == "report":
        return ["report", str(HERE / "gamma.jsonl"), "-o", str(out), "--rulebook", url]
    return ["run", "--in-process", "--no-progress", "--id", "SH-BRI-004", "--html", str(out), "--rulebook", url]


@pytest.mark.parametrize("which", ["report", "run"])
@pytest.mark.parametrize("url", REFUSED)
def test_a_rulebook_url_of_another_scheme_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            which: str, url: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(_command(which, tmp_path / "out", url))
    err = capsys.readouterr().err
    assert stopped.value.code == 2
    assert "argument --rulebook" in err and ("http://" in err or "control characters" in err)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("url", "href"), [("https://x/y/", "https://x/y/"), ("../rulebook/", "../rulebook/"),
                                           ("HTTP://example.org/book", "HTTP://example.org/book/"),
                                           (" https://x/y/ ", "https://x/y/"), ("./v2:book/", "./v2:book/")])
def test_http_addresses_and_relative_paths_are_taken(tmp_path: Path, url: str, href: str) -> None:
    assert main(_command("report", tmp_path / "out", url)) == 0
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert f'href="{href}04-bring-in.html#BRING-IN.TIE.SUIT"' in html
