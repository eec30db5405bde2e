"""docs/examples/js: the JavaScript adapter and replay engine pass the suite through the real harness,
its planted bug fails exactly the cases it should, and the Node test runner checks an export alone.

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
from pathlib import Path

import pytest

from studcheck.cases.model import Case, StepKind
from studcheck.cli import main
from studcheck.export.write import export_cases, write_export

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "js"
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


def _node_test(node: str, export: Path, engine: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "STUDCHECK_EXPORT": str(export)}
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
