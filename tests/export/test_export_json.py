"""`studcheck export --format json`: the schema, the round trip to the case model, the golden transcripts."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from studcheck.cases.model import Case, StepKind
from studcheck.cli import main
from studcheck.export.read import ExportError, read_case, read_export, schema_problem
from studcheck.export.write import case_json
from studcheck.harness.compare import compare_state
from studcheck.protocol.messages import response_kind, schema_problem as protocol_problem, RequestType


def _documents(export_dir: Path) -> list[dict[str, Any]]:
    index = json.loads((export_dir / "index.json").read_text(encoding="utf-8"))
    return [json.loads((export_dir / entry["file"]).read_text(encoding="utf-8")) for entry in index["cases"]]


def test_every_case_round_trips_to_the_loaded_yaml_case(export_dir: Path, bundled_cases: list[Case]) -> None:
    back = read_export(export_dir)
    assert [case.id for case in back] == [case.id for case in bundled_cases]
    different = [case.id for case, again in zip(bundled_cases, back) if case != again]
    assert different == []


def test_every_document_matches_the_export_schema(export_dir: Path) -> None:
    index = json.loads((export_dir / "index.json").read_text(encoding="utf-8"))
    assert schema_problem("index", index) is None
    assert len(index["cases"]) > 600
    problems = [(doc["id"], schema_problem("case", doc)) for doc in _documents(export_dir)]
    assert [item for item in problems if item[1] is not None] == []


def test_a_known_case_reads_as_written(export_dir: Path) -> None:
    """SH-BRI-001 by hand: four seats of 100, default options filled in, the bring-in step and its answer."""
    doc = json.loads((export_dir / "cases" / "SH-BRI-001.json").read_text(encoding="utf-8"))
    assert doc["file"] == "cases/stud_high/bring-in/sh-bri-001-ace-door-never-brings-in.yaml"
    assert doc["options_named"] == {}
    assert doc["options"]["bring_in_tie"] == "suit" and doc["options"]["betting"] == "fixed_limit"
    assert doc["seats"] == [{"seat": n, "stack": 100} for n in (1, 2, 3, 4)]
    assert doc["deck"][:12] == ["Kh", "9c", "Jd", "7s", "Qh", "8c", "Td", "6s", "As", "3d", "Kc", "4c"]
    first, second = doc["transcript"][:2]
    assert first["step"] is None and first["request"]["type"] == "new_hand" and first["request"]["seq"] == 2
    assert first["request"]["label"] == "SH-BRI-001" and "betting" not in first["request"]["options"]
    assert first["response"]["state"]["to_act"] == 2
    assert second["request"] == {"type": "act", "seq": 3, "seat": 2, "action": "bring_in", "amount": 2}
    assert second["step"] == 1 and second["response"]["ok"] is True


def test_transcripts_follow_the_steps_and_satisfy_every_expectation(export_dir: Path) -> None:
    """Each act/reject step owns its request(s); each expect step holds against the last state answered."""
    broken: list[str] = []
    for doc in _documents(export_dir):
        transcript = doc["transcript"]
        first = transcript[0]["request"]
        if first["type"] != "new_hand" or first["label"] != doc["id"]:
            broken.append(f"{doc['id']}: does not start with its new_hand")
        seqs = [entry["request"]["seq"] for entry in transcript]
        if seqs != list(range(2, 2 + len(transcript))) or any(e["response"]["seq"] != e["request"]["seq"] for e in transcript):
            broken.append(f"{doc['id']}: seq numbers")
        for entry in transcript:
            request, response = entry["request"], entry["response"]
            problem = protocol_problem(response_kind(RequestType(request["type"]), response).value, response)
            if problem is not None and doc["setup_refused"] is None:
                broken.append(f"{doc['id']}: {problem}")
        by_step: dict[int, list[dict[str, Any]]] = {}
        for entry in transcript[1:]:
            by_step.setdefault(entry["step"], []).append(entry)
        state = transcript[0]["response"].get("state")
        for number, step in enumerate(doc["steps"]):
            sent = by_step.get(number, [])
            if step["kind"] == StepKind.EXPECT.value:
                if sent or compare_state(step["expect"], state):
                    broken.append(f"{doc['id']} step {number}: expectation")
                continue
            act = sent[0]["request"] if sent else {}
            if (act.get("type"), act.get("seat"), act.get("action"), act.get("amount")) != (
                    "act", step["seat"], step["action"], step["amount"]):
                broken.append(f"{doc['id']} step {number}: request {act}")
            if step["kind"] == StepKind.ACT.value:
                state = sent[0]["response"]["state"]
            elif sent[0]["response"]["error"]["reason"] != step["reason"] or sent[1]["request"]["type"] != "state":
                broken.append(f"{doc['id']} step {number}: refusal")
        if doc["final"] is not None and state["result"] is None:
            broken.append(f"{doc['id']}: the hand never finished")
    assert broken == []


def test_case_json_of_the_read_back_case_is_the_document(export_dir: Path) -> None:
    for name in ("SH-BRI-001.json", "HL-STB-001.json"):
        path = export_dir / "cases" / name
        if not path.exists():
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        again = case_json(read_case(path))
        assert again == {key: value for key, value in doc.items() if key != "transcript"}


def test_index_lists_sorted_ids_and_the_hello(export_dir: Path) -> None:
    index = json.loads((export_dir / "index.json").read_text(encoding="utf-8"))
    ids = [entry["id"] for entry in index["cases"]]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert index["hello"]["request"]["type"] == "hello" and index["hello"]["request"]["seq"] == 1
    assert index["hello"]["response"]["engine"]["name"] == "studcheck-reference"
    assert index["profile"] == "source_texts" and index["defaults"]["max_raises"] == 3


def test_the_reader_refuses_a_damaged_export(tmp_path: Path, export_dir: Path) -> None:
    original = (export_dir / "cases" / "SH-BRI-001.json").read_text(encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(original.replace('"Kh"', '"KH"', 1), encoding="utf-8")
    with pytest.raises(ExportError, match=r"bad\.json: deck\[0\]"):
        read_case(bad)
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ExportError, match=r"bad\.json: line 1: not JSON"):
        read_case(bad)
    copy = tmp_path / "copy"
    (copy / "cases").mkdir(parents=True)
    (copy / "index.json").write_text((export_dir / "index.json").read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(ExportError, match="cannot read"):
        read_export(copy)
    (copy / "cases" / "FS-ALL-001.json").write_text(original, encoding="utf-8")
    with pytest.raises(ExportError, match="sha256 differs"):
        read_export(copy)


def test_cli_exports_selected_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str], bundled_cases: list[Case]) -> None:
    files = [str(case.path) for case in bundled_cases if case.id in ("SH-BRI-001", "RZ-BRI-001", "SH-BRI-002")]
    sources = [arg for path in files for arg in ("--cases", path)]
    assert main(["export", "--format", "json", str(tmp_path / "out"), *sources, "--case", "SH-BRI-001", "--case", "RZ-BRI-001"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 cases written to ")
    assert sorted(p.name for p in (tmp_path / "out" / "cases").iterdir()) == ["RZ-BRI-001.json", "SH-BRI-001.json"]
    assert [case.id for case in read_export(tmp_path / "out")] == ["RZ-BRI-001", "SH-BRI-001"]


def test_cli_refuses_to_export_a_case_the_reference_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A golden transcript must come from a passing run: a wrong expectation stops the export, nothing written."""
    case = tmp_path / "wrong.yaml"
    case.write_text(
        "id: SH-WSP-901\ntitle: wrong on purpose\nrules: [BRING-IN.CARD.LOW]\ntags: [bring-in]\nvariant: stud_high\n"
        "stakes: {ante: 1, bring_in: 2, small_bet: 5, big_bet: 10}\n"
        "seats:\n  1: {stack: 100, cards: Kh Qh As}\n  2: {stack: 100, cards: 9c 8c 3d}\n"
        "steps:\n  - expect: {to_act: 1}\n", encoding="utf-8")
    assert main(["export", "--format", "json", str(tmp_path / "out"), "--cases", str(case)]) == 1
    assert "SH-WSP-901: the reference engine's verdict is fail" in capsys.readouterr().err
    assert not (tmp_path / "out" / "index.json").exists()


@pytest.mark.parametrize("obstacle", ["read-only", "file-in-the-way"])
def test_a_write_error_is_a_reason_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str], obstacle: str) -> None:
    target = tmp_path / "export"
    target.mkdir()
    if obstacle == "read-only":
        (target / "cases").mkdir()
        (target / "cases").chmod(0o500)
        if os.access(target / "cases", os.W_OK):  # root writes anyway: put a directory where a file must go
            (target / "cases").chmod(0o700)
            (target / "cases" / "SH-WEX-001.json").mkdir()
    else:
        (target / "cases").write_text("a file where the cases folder must be")
    try:
        code = main(["export", "--format", "json", str(target), "--case", "SH-WEX-001"])
    finally:
        if (target / "cases").is_dir():
            (target / "cases").chmod(0o700)
    err = capsys.readouterr().err
    assert code == 2 and "studcheck export: cannot write" in err and "Traceback" not in err
