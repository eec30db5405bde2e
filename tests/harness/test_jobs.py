"""`run --jobs N` writes the reports `--jobs 1` writes; `--shard K/N` partitions; `merge` joins shards.

The identical-results tests run a part of the bundled suite through real engine processes with
N = 1, 2, 3 and compare the JSONL report, the JUnit XML and the terminal output with timing fields
taken out (`duration_ms`, `duration_s`, `started`, JUnit `time`/`timestamp`, the `in 4.09 s` of the
summary) and the transcripts' `seq` numbers counted from the case's first request: each engine
numbers the requests of its whole session, so they depend on the cases that engine ran before
(documented).

Why a part of the suite proves the claim: what `--jobs` changes is which engine runs which case
and when its verdict comes back, never how a case is judged. What can go wrong is order (of cases,
groups, not-applicable reasons, the summary's variants), an engine's state leaking into the next
case it runs (`seq`, stderr, a crash and its restart) and `--maxfail` cutting at another place. Each
subset below has every one of these: passes, failures and crashes interleaved in case order, several
groups, more than one variant, and a number of cases that neither 2 nor 3 divides, and it is large
enough (17 to 43 cases) that every engine runs many cases and some run more than others. The whole
suite through the protocol is run by `.ci/run`'s `studcheck run` step (one engine per core) and by
bench/run.py's `jobs.run` row (--jobs 1 and 2); in process by tests/test_cases.py.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness_helpers import CASES, engine, run_quietly
from test_engines import outcomes, read_report
from studcheck.harness.parallel import Shard, engines_for
from studcheck.report.load import read_report as load_for_html

TIMING = ("duration_ms", "duration_s", "started")
SUITE = Path(__file__).resolve().parents[2] / "cases"
#: every case passes on the reference: all four variants, refusals, setups refused, hi-lo splits, pot and no limit
MIXED = [str(SUITE / part) for part in ("razz/refusals", "stud_high/worked-example", "stud_hilo8/hi-lo", "five_card_stud/big-bet",
                                          "five_card_stud/pots")]
#: diverge_then_crash here: 10 passes, 4 failures, 3 crashes (each restarts the engine) interleaved, three groups, two variants
CRASHING = [str(SUITE / part) for part in ("razz/setup", "five_card_stud/bring-in")]
#: wrong_rules here: 13 failures in two groups (bring-in ties, the raise cap) among 22 passes
WRONG = [str(SUITE / part) for part in ("stud_high/bring-in", "stud_high/raise-cap")]
SCENARIOS = {
    "reference": ["--cases", *MIXED],  # `studcheck serve`, the default engine: every case passes
    "diverge_then_crash": ["--engine", engine("diverge_then_crash"), "--cases", *CRASHING],
    "wrong_rules": ["--engine", engine("wrong_rules"), "--cases", *WRONG, "--maxfail", "7"],  # stops at the 7th failure in case order
}

Run = tuple[int, list[dict[str, Any]], str, str]


def normalized(path: Path) -> list[dict[str, Any]]:
    """The report's lines (schema-checked) without their timing fields, seq numbers counted per case."""
    lines = [{key: value for key, value in line.items() if key not in TIMING} for line in read_report(path)]
    for line in lines:
        if line.get("transcript"):
            line["transcript"] = relative_seq(line["transcript"])
    return lines


def relative_seq(transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    first = transcript[0]["request"]["seq"]
    entries = []
    for entry in transcript:
        entry = {**entry, "request": {**entry["request"], "seq": entry["request"]["seq"] - first}}
        if isinstance(entry.get("response"), dict) and isinstance(entry["response"].get("seq"), int):
            entry["response"] = {**entry["response"], "seq": entry["response"]["seq"] - first}
        if isinstance(entry.get("raw"), str):
            entry["raw"] = re.sub(r'"seq":\s*(\d+)', lambda found: f'"seq": {int(found[1]) - first}', entry["raw"])
        entries.append(entry)
    return entries


def normal_junit(path: Path) -> str:
    return re.sub(r' (time|timestamp)="[^"]*"', "", path.read_text())


def normal_terminal(text: str) -> str:
    return re.sub(r" in \d+\.\d\d s", " in N s", text)


def run_jobs(where: Path, jobs: int, *argv: str) -> Run:
    report, junit = where / f"jobs{jobs}.jsonl", where / f"jobs{jobs}.xml"
    code, out, _ = run_quietly("run", "--jobs", str(jobs), "--report", str(report), "--junit", str(junit), *argv)
    return code, normalized(report), normal_junit(junit), normal_terminal(out)


@pytest.fixture(scope="module")
def one_engine(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Run]:
    """The `--jobs 1` run of each scenario, run once for the module (the thread-workers test shares it)."""
    runs: dict[str, Run] = {}

    def get(name: str) -> Run:
        if name not in runs:
            runs[name] = run_jobs(tmp_path_factory.mktemp(name), 1, *SCENARIOS[name])
        return runs[name]

    return get


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("reference", {"pass"}),
        ("diverge_then_crash", {"pass", "fail", "error"}),  # an error is a crash: stderr, then a restart
        ("wrong_rules", {"pass", "fail"}),
    ],
)
def test_jobs_write_the_reports_of_one_engine(one_engine: Callable[[str], Run], tmp_path: Path, name: str,
                                              expected: set[str]) -> None:
    first = one_engine(name)
    cases = [line for line in first[1] if line["kind"] == "case"]
    stopped = first[1][-1]["stopped"]
    selected = len(cases) + (stopped["not_run"] if stopped else 0)
    assert selected >= 17 and selected % 2 and selected % 3 and first[1][-1]["exit_code"] == first[0]
    assert {line["outcome"] for line in cases} == expected
    groups = [line for line in first[1] if line["kind"] == "group"]
    if name == "reference":
        assert len({line["variant"] for line in cases}) == 4
    elif name == "diverge_then_crash":
        assert len(groups) >= 3 and {line["problem"] for line in cases if line["outcome"] == "error"} == {"crash"}
    else:
        assert len(groups) == 2 and stopped["maxfail"] == 7 and stopped["not_run"] > 0
    for jobs in (2, 3):
        again = run_jobs(tmp_path, jobs, *SCENARIOS[name])
        assert again[0] == first[0]
        assert again[1] == first[1]  # the same lines in the same order: cases, groups, footer
        assert again[2] == first[2]
        assert again[3] == first[3]


def test_thread_workers_write_the_same_reports(one_engine: Callable[[str], Run], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Where workers cannot be forked (macOS, Windows) they are threads in the harness: the same reports."""
    monkeypatch.setattr("studcheck.harness.forked.AVAILABLE", False)
    assert run_jobs(tmp_path, 3, *SCENARIOS["diverge_then_crash"]) == one_engine("diverge_then_crash")


def test_maxfail_with_jobs_stops_where_one_engine_stops(tmp_path: Path) -> None:
    # wrong_rules fails T-BRI-001 only: with -x, one engine runs T-BRI-001 and stops (the 1st case)
    code, lines, _, out = run_jobs(tmp_path, 3, "--engine", engine("wrong_rules"), "--cases", str(CASES), "-x")
    assert code == 1
    assert [line["id"] for line in lines if line["kind"] == "case"] == ["T-BRI-001"]
    assert lines[-1]["stopped"] == {"maxfail": 1, "not_run": 4}
    assert "4 cases not run" in out


def test_engine_saying_parallel_false_runs_alone(run_harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "starts.log"
    monkeypatch.setenv("STUDCHECK_TEST_LOG", str(log))
    code, _, _ = run_harness("run", "--jobs", "3", "--engine", engine("runs_alone"), "--cases", str(CASES))
    assert code == 0
    assert len(log.read_text().splitlines()) == 1  # one engine, never restarted
    log.unlink()
    monkeypatch.setenv("STUDCHECK_TEST_PARALLEL", "1")  # the same engine without the key: three engines
    code, _, _ = run_harness("run", "--jobs", "3", "--engine", engine("runs_alone"), "--cases", str(CASES))
    assert code == 0
    assert len(log.read_text().splitlines()) == 3


def test_engines_that_cannot_start_leave_their_cases_to_the_others(run_harness, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # an engine that should have said "parallel": false: the second and third copies exit at once
    log = tmp_path / "starts.log"
    for name, value in (("STUDCHECK_TEST_LOG", str(log)), ("STUDCHECK_TEST_PARALLEL", "1"), ("STUDCHECK_TEST_EXCLUSIVE", "1")):
        monkeypatch.setenv(name, value)
    report = tmp_path / "report.jsonl"
    code, _, err = run_harness("run", "--jobs", "3", "--engine", engine("runs_alone"), "--cases", str(CASES), "--report", str(report))
    assert code == 0
    assert set(outcomes(read_report(report)).values()) == {"pass"} and len(outcomes(read_report(report))) == 5
    assert len(log.read_text().splitlines()) == 3
    assert err.count("engines could not start") == 2 and "the licence is in use by another copy" in err


def test_default_jobs_is_one_engine_per_core(run_harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "starts.log"
    monkeypatch.setenv("STUDCHECK_TEST_LOG", str(log))
    monkeypatch.setenv("STUDCHECK_TEST_PARALLEL", "1")
    monkeypatch.setattr("studcheck.commands.run.default_jobs", lambda: 2)
    assert run_harness("run", "--engine", engine("runs_alone"), "--cases", str(CASES))[0] == 0
    assert len(log.read_text().splitlines()) == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--jobs", "0"], "give at least 1 engine"),
        (["--jobs", "many"], "not a number of engines"),
        (["--shard", "4/3"], "K must be between 1 and N"),
        (["--shard", "2"], "give the shard as K/N"),
        (["--in-process", "--jobs", "2"], "for --jobs drop --in-process"),
        (["--shard", "6/6"], "no case falls in this shard (the selection has 5 cases)"),
    ],
)
def test_bad_jobs_and_shards_are_usage_errors(run_harness, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    try:
        code, _, err = run_harness("run", "--cases", str(CASES), *argv)
    except SystemExit as exc:  # argparse refuses the value itself
        code, err = int(str(exc.code)), capsys.readouterr().err
    assert code == 2
    assert message in err


def test_shard_parse_and_pick() -> None:
    cases: list[Any] = ["c1", "c2", "c3", "c4", "c5"]
    assert Shard.parse("2/3").pick(cases) == ["c2", "c5"]
    assert Shard.parse("1/2").pick(cases) == ["c1", "c3", "c5"]
    assert Shard.parse("1/1").pick(cases) == cases


def test_engines_for() -> None:
    assert engines_for(4, 549, parallel=True, in_process=False) == 4
    assert engines_for(4, 2, parallel=True, in_process=False) == 2  # never more engines than cases
    assert engines_for(4, 549, parallel=False, in_process=False) == 1
    assert engines_for(4, 549, parallel=True, in_process=True) == 1


def test_shards_run_every_nth_case_and_record_it(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # the cases in order: T-BRI-001, T-BRI-002, T-CRASH-001, T-OK-001, T-RAZ-001 (file order)
    ids = {}
    for index in (1, 2):
        report = tmp_path / f"shard{index}.jsonl"
        run_harness("run", "--cases", str(CASES), "--shard", f"{index}/2", "--report", str(report))
        lines = read_report(report)
        ids[index] = [line["id"] for line in lines if line["kind"] == "case"]
        assert lines[0]["shard"]["index"] == index and lines[0]["shard"]["count"] == 2 and lines[0]["shard"]["of"] == 5
    assert ids == {1: ["T-BRI-001", "T-CRASH-001", "T-RAZ-001"], 2: ["T-BRI-002", "T-OK-001"]}


def shard_reports(run_harness, tmp_path: Path, count: int, *argv: str) -> list[Path]:  # type: ignore[no-untyped-def]
    paths = []
    for index in range(1, count + 1):
        path = tmp_path / f"shard{index}of{count}.jsonl"
        run_harness("run", "--shard", f"{index}/{count}", "--report", str(path), *argv)
        paths.append(path)
    return paths


def test_merged_shards_are_the_report_of_one_run(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    argv = ["--engine", engine("wrong_rules"), "--cases", *WRONG, "--jobs", "1"]  # 35 cases: shards of 12, 12 and 11
    whole = tmp_path / "whole.jsonl"
    code, out, _ = run_harness("run", "--report", str(whole), *argv)
    shards = shard_reports(run_harness, tmp_path, 3, *argv)
    merged = tmp_path / "merged.jsonl"
    merged_code, merged_out, _ = run_harness("merge", *map(str, reversed(shards)), "-o", str(merged), "--junit", str(tmp_path / "m.xml"))
    assert merged_code == code == 1
    assert normalized(merged) == normalized(whole)
    # wrong_rules: bring_in_tie and max_raises, two divergences (the cap's split by the rule it breaks)
    assert len({line["key"] for line in normalized(merged) if line["kind"] == "group"}) == 2
    assert normal_terminal(merged_out).startswith(normal_terminal(out))
    assert "merged 3 shard reports" in merged_out
    html_view = load_for_html(merged)  # what `studcheck report` (the HTML page) reads
    assert html_view.header is not None and "shard" not in html_view.header and html_view.footer is not None
    assert [line["id"] for line in html_view.cases] == [line["id"] for line in read_report(whole) if line["kind"] == "case"]


def test_merge_refuses_what_is_not_one_whole_run(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """What merge reads is the reports; the engine is in process wherever it makes no difference (the
    stopped shard needs a failing engine: wrong_rules)."""
    one, two = shard_reports(run_harness, tmp_path, 2, "--cases", str(CASES), "--in-process")
    (tmp_path / "other").mkdir()
    other = shard_reports(run_harness, tmp_path / "other", 2, "--cases", str(CASES), "--variant", "stud_high", "--in-process")[1]
    stopped = tmp_path / "stopped.jsonl"
    run_harness("run", "--cases", str(CASES), "--shard", "1/2", "--engine", engine("wrong_rules"), "-x", "--report", str(stopped))
    whole = tmp_path / "whole.jsonl"
    run_harness("run", "--cases", str(CASES), "--in-process", "--report", str(whole))
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(one.read_text().splitlines()[:-1]) + "\n")  # no footer: a killed run
    out = tmp_path / "out.jsonl"
    for files, message in [
        ([one], "shard 2 of 2 missing"),
        ([one, one], "are both shard 1/2"),
        ([one, other], "the selection of cases differs"),
        ([stopped, two], "stopped early (--maxfail)"),
        ([whole, two], "its header has no shard"),
        ([cut, two], "has no footer"),
        ([tmp_path / "none.jsonl"], "no such file"),
    ]:
        code, _, err = run_harness("merge", *map(str, files), "-o", str(out))
        assert (code, message in err) == (2, True), err
    assert not out.exists()


def test_merge_dispatches_on_the_first_line(run_harness, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    census = tmp_path / "census.jsonl"
    census.write_text(json.dumps({"kind": "census"}) + "\n")
    code, _, err = run_harness("merge", str(census), "-o", str(tmp_path / "out.jsonl"))
    assert code == 2 and "kind 'census' cannot be merged (known: header)" in err


@pytest.fixture(autouse=True)
def _no_inherited_test_engine_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("STUDCHECK_TEST_LOG", "STUDCHECK_TEST_PARALLEL", "STUDCHECK_TEST_EXCLUSIVE"):
        if name in os.environ:
            monkeypatch.delenv(name)
