"""docs/examples/js: the JavaScript adapter and replay engine pass the suite through the real harness,
its planted bug fails exactly the cases it should, and the Node test runner checks an export alone.
The Node runner is a harness too: an engine that breaks the protocol in one case (tests/engines/at_case_*)
fails that case alone, and the adapter answers malformed request lines without dying.

Skips when `node` (18 or later, for node:test) is missing, unless STUDCHECK_REQUIRE_NODE=1 (CI):
then it fails.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from studcheck.cases.model import Case, StepKind
from studcheck.cli import main
from studcheck.export.write import export_cases, write_export

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "js"
ENGINES = Path(__file__).resolve().parents[1] / "engines"
BUG = "out_of_turn"


def _node() -> str:
    found = shutil.which("node") or shutil.which("nodejs")
    why = "no node on PATH (apt-get install -y nodejs)"
    if found:
        version = subprocess.run([found, "--version"], capture_output=True, text=True, check=False).stdout.strip()
        major = re.match(r"v(\d+)", version)
        if major and int(major.group(1)) >= 18:
            return found
        why = f"node {version} is older than 18 (node:test)"
    if os.environ.get("STUDCHECK_REQUIRE_NODE") == "1":
        pytest.fail(f"STUDCHECK_REQUIRE_NODE=1 but {why}")
    pytest.skip(why)


@pytest.fixture(scope="module")
def node() -> str:
    return _node()


def _engine(node: str, export: Path, *extra: str) -> str:
    return shlex.join([node, str(EXAMPLE / "engine.mjs"), str(export), *extra])


def _refuses_out_of_turn(case: Case) -> bool:
    return any(step.kind is StepKind.REJECT and step.reason == BUG for step in case.steps)


def _case_lines(report: Path) -> list[dict[str, object]]:
    lines = [json.loads(text) for text in report.read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line["kind"] == "case"]


def test_smoke_passes_against_the_js_adapter(node: str, export_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["smoke", "--engine", _engine(node, export_dir)]) == 0
    assert "smoke test passed" in capsys.readouterr().out


def test_the_whole_suite_passes_against_the_js_replay_engine(node: str, export_dir: Path, tmp_path: Path,
                                                             bundled_cases: list[Case]) -> None:
    report = tmp_path / "js.jsonl"
    assert main(["run", "--engine", _engine(node, export_dir), "--no-progress", "--report", str(report)]) == 0
    lines = _case_lines(report)
    assert sorted(str(line["id"]) for line in lines) == [case.id for case in bundled_cases]
    assert {line["outcome"] for line in lines} == {"pass"}


def test_the_planted_bug_fails_exactly_the_out_of_turn_cases(node: str, export_dir: Path, tmp_path: Path,
                                                             bundled_cases: list[Case]) -> None:
    """Answering illegal_action where out_of_turn is due (protocol.md section 4: the first reason that
    applies wins) fails every case with an out_of_turn reject step, at its first one, and no other."""
    razz = [case for case in bundled_cases if case.variant.value == "razz"]  # one variant keeps it short
    expected = {case.id: next(number for number, step in enumerate(case.steps)
                              if step.kind is StepKind.REJECT and step.reason == BUG)
                for case in razz if _refuses_out_of_turn(case)}
    assert len(expected) >= 5
    report = tmp_path / "bug.jsonl"
    code = main(["run", "--engine", _engine(node, export_dir, "--bug", BUG), "--variant", "razz", "--no-progress",
                 "--report", str(report)])
    assert code == 1
    lines = _case_lines(report)
    failed = {str(line["id"]): line for line in lines if line["outcome"] != "pass"}
    assert set(failed) == set(expected)
    assert len(lines) == len(razz)
    for case_id, line in failed.items():
        assert line["outcome"] == "fail" and line["step"] == expected[case_id], case_id
        assert line["mismatches"] == [{"path": "reason", "expected": BUG, "actual": "illegal_action"}], case_id
        # the rule broken: acting out of turn is refused as out_of_turn (BET.ORDER), not as another reason
        assert line["blame"][0] == "BET.ORDER", (case_id, line["blame"])
    groups = [json.loads(text) for text in report.read_text(encoding="utf-8").split("\n")
              if text and json.loads(text).get("kind") == "group"]
    assert groups and {group["blame"][0] for group in groups} == {"BET.ORDER"}  # every cause names the broken rule


def _node_test(node: str, export: Path, engine: str | None = None, **env_vars: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STUDCHECK_EXPORT": str(export), **env_vars}
    env.pop("STUDCHECK_ENGINE", None)
    if engine is not None:
        env["STUDCHECK_ENGINE"] = engine
    return subprocess.run([node, "--test", str(EXAMPLE / "conformance.test.mjs")], capture_output=True, text=True,
                          env=env, timeout=600, check=False)


def _count(output: str, what: str) -> int:
    found = re.search(rf"^# {what} (\d+)$", output, re.MULTILINE)
    assert found, output[-2000:]
    return int(found.group(1))


def test_node_test_checks_the_whole_export_without_python(node: str, export_dir: Path, bundled_cases: list[Case]) -> None:
    result = _node_test(node, export_dir)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert _count(result.stdout, "pass") == len(bundled_cases) + 1  # every case, and the index check
    assert _count(result.stdout, "fail") == 0


def test_node_test_names_the_cases_the_planted_bug_breaks(node: str, tmp_path: Path, bundled_cases: list[Case]) -> None:
    chosen = [case for case in bundled_cases if _refuses_out_of_turn(case)][:3]
    chosen += [case for case in bundled_cases if not _refuses_out_of_turn(case) and case.steps][:3]
    index, exported = export_cases(chosen)
    write_export(tmp_path, index, exported)
    result = _node_test(node, tmp_path, _engine(node, tmp_path, "--bug", BUG))
    assert result.returncode != 0
    failing = set(re.findall(r"^not ok \d+ - ([A-Z0-9-]+):", result.stdout, re.MULTILINE))
    assert failing == {case.id for case in chosen[:3]}
    assert "refused for the wrong reason" in result.stdout


def test_node_test_ignores_extra_keys_after_a_refusal(node: str, tmp_path: Path, bundled_cases: list[Case]) -> None:
    """protocol.md section 3: extra keys are ignored. A correct engine whose states carry a changing
    counter passes the cases that refuse actions (the runner used to compare the raw states)."""
    import sys

    chosen = [case for case in bundled_cases if any(step.kind is StepKind.REJECT for step in case.steps)][:6]
    index, exported = export_cases(chosen)
    write_export(tmp_path, index, exported)
    engine = shlex.join([sys.executable, str(Path(__file__).resolve().parents[1] / "engines" / "extra_keys_changing.py")])
    result = _node_test(node, tmp_path, engine)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert _count(result.stdout, "pass") == len(chosen) + 1


def _broken(name: str, *args: str) -> str:
    return shlex.join([sys.executable, str(ENGINES / name), *args])


def _results(output: str) -> dict[str, tuple[int, str]]:
    """Each case's test in node's TAP output: its number and, for a failure, its text ("" if it passed)."""
    found: dict[str, tuple[int, str]] = {}
    blocks = re.split(r"^(?=(?:not )?ok \d+ - )", output, flags=re.MULTILINE)
    for block in blocks:
        head = re.match(r"(not )?ok (\d+) - ([A-Z0-9-]+):", block)
        if head:
            found[head.group(3)] = (int(head.group(2)), block if head.group(1) else "")
    return found


@pytest.fixture(scope="module")
def small_export(tmp_path_factory: pytest.TempPathFactory, bundled_cases: list[Case]) -> tuple[Path, list[str]]:
    """A setup refusal between cases that send actions, exported; their IDs in the order the runner plays them."""
    refused = next(case for case in bundled_cases if case.setup_refused is not None)
    acting = [case for case in bundled_cases if any(step.kind is StepKind.ACT for step in case.steps)]
    chosen = [case for case in acting if case.id < refused.id][:4] + [refused]
    chosen += [case for case in acting if case.id > refused.id][:3]
    directory = tmp_path_factory.mktemp("small")
    index, exported = export_cases(chosen)
    write_export(directory, index, exported)
    order = [entry["id"] for entry in json.loads((directory / "index.json").read_text(encoding="utf-8"))["cases"]]
    return directory, order


def _acting_target(order: list[str], bundled_cases: list[Case]) -> str:
    """A case in the middle of the run that sends actions: cases run before it and after it."""
    refused = {case.id for case in bundled_cases if case.setup_refused is not None}
    return next(case_id for case_id in order[2:-2] if case_id not in refused)


def _assert_only(result: subprocess.CompletedProcess[str], order: list[str], failing: dict[str, list[str]]) -> None:
    """Exactly the cases of `failing` fail, each with all of its texts; every other case passes, after them too."""
    results = _results(result.stdout)
    assert sorted(results) == sorted(order), result.stdout[-3000:] + result.stderr[-3000:]
    assert {case_id for case_id, (_, text) in results.items() if text} == set(failing), result.stdout[-5000:]
    for case_id, texts in failing.items():
        for text in texts:
            assert text in results[case_id][1], (case_id, text, results[case_id][1])
    last = max(results[case_id][0] for case_id in failing)
    assert any(number > last and not text for number, text in results.values())  # the run went on after them
    assert _count(result.stdout, "pass") == len(order) - len(failing) + 1  # and the index check
    assert result.returncode != 0


BROKEN = {
    # name: (engine file, its arguments before the case ID, what the failed case must say)
    "crash": ("at_case_crash.py", [], ["the engine exited with code 3", "boom: giving up at request seq"]),
    "hang": ("at_case_hang.py", [], ["no answer within the per-request timeout of 1000 ms"]),
    "close_stdout": ("at_case_close_stdout.py", [], ["the engine closed its output (the process is still running)"]),
    "not_json": ("at_case_bad_line.py", ["not_json"], ["a line that is not JSON: DEBUG dealing fourth street"]),
    "not_object": ("at_case_bad_line.py", ["not_object"], ["a line that is not a JSON object: [{"]),
    "no_ok": ("at_case_bad_line.py", ["no_ok"], ["an answer without a boolean"]),
    "wrong_seq": ("at_case_bad_line.py", ["wrong_seq"], ["has seq 10"]),
    "huge": ("at_case_bad_line.py", ["huge"], ["a line longer than 8388608 bytes"]),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_node_runner_blames_the_one_case_where_the_engine_breaks_the_protocol(
        node: str, small_export: tuple[Path, list[str]], bundled_cases: list[Case], name: str) -> None:
    """protocol.md section 5: the case where it happens is an error saying what happened, the engine is
    restarted, and the following cases pass (the runner used to wait until its own time-out and fail them,
    or to crash). A short per-request timeout keeps the hang to a second."""
    export, order = small_export
    target = _acting_target(order, bundled_cases)
    engine, args, texts = BROKEN[name]
    result = _node_test(node, export, _broken(engine, *args, target), STUDCHECK_TIMEOUT_MS="1000")
    _assert_only(result, order, {target: texts})


def test_node_runner_fails_the_case_answered_twice(node: str, small_export: tuple[Path, list[str]],
                                                   bundled_cases: list[Case]) -> None:
    """Two answers to one new_hand: in a case that goes on, the second is there before its next request; in
    a setup refusal (one request), the runner finds it after the case's last answer. Either way that case
    fails (the runner used to take the second answer for the next one and pass every case)."""
    export, order = small_export
    target = _acting_target(order, bundled_cases)
    refused = next(case.id for case in bundled_cases if case.setup_refused is not None)
    assert order[-1] != refused
    result = _node_test(node, export, _broken("at_case_double_answer.py", target, refused))
    _assert_only(result, order, {target: ["a line nobody asked for before request seq"],
                                 refused: ["a line nobody asked for after the case's last answer"]})


def test_the_adapter_answers_malformed_and_huge_request_lines(node: str, export_dir: Path) -> None:
    """Each bad line gets a bad_request with seq null (none of them has a usable seq), and the adapter reads on."""
    lines = [b"not json", b"[1]", b"null", b'{"seq": "7", "type": "state"}', b'{"seq": -1, "type": "state"}',
             b"x" * (9 * 1024 * 1024), b'{"seq": ' + b"[" * 100_000 + b"]" * 100_000 + b', "type": "state"}',
             b'{"seq": 8, "type": "state"}', b'{"seq": 9, "type": "bye"}', b'{"seq": 10, "type": "state"}']
    result = subprocess.run([node, str(EXAMPLE / "engine.mjs"), str(export_dir)], input=b"\n".join(lines) + b"\n",
                            capture_output=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [answer["seq"] for answer in answers] == [None] * 7 + [8, 9]  # nothing after bye
    assert all(answer["error"]["reason"] == "bad_request" for answer in answers[:7])
    assert "longer than 8388608 bytes" in answers[5]["error"]["message"]
    assert answers[7]["error"]["reason"] == "no_hand" and answers[8] == {"seq": 9, "ok": True}
    assert max(len(line) for line in result.stdout.splitlines()) < 1000
