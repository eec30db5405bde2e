"""Tests of the mutation-testing tool (tools/mutation): operators, the mutant copy the engine
subprocess imports, killed / equivalent classification, and equivalent.yaml matching."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "mutation"
sys.path.insert(0, str(TOOL))

import engine_run  # noqa: E402
import mutate  # noqa: E402
import mutants  # noqa: E402
import results  # noqa: E402

PACKAGE = REPO / "validator" / "studcheck"

SNIPPET = textwrap.dedent('''\
    """Module docstring: never mutated."""
    from __future__ import annotations

    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        LIMIT = 99

    Alias = list[int | None]
    SIZE = 8


    class Box:
        """Docstring."""

        __slots__ = ("a", "b")
        count: int = 0

        def full(self, n: int) -> bool:
            return n >= SIZE and not self.empty


    def pick(values: list[int], flag: bool, extra: int | None = None) -> int | None:
        """Docstring."""
        total = 0
        for value in values:
            if value < 3:
                total += value * 2
        if flag:
            total = min(total, 10)
        if total == 0:
            raise ValueError(f"nothing in {values} above {SIZE + 1}")
        print(f"total {total + 1}")
        return total or None
''')


def _by_change(found: list[mutants.Mutant]) -> set[tuple[str, str, str]]:
    return {(m.operator, m.before, m.after) for m in found}


def test_operators_on_a_snippet() -> None:
    found = mutants.generate_source(SNIPPET, "engine/snippet.py")
    changes = _by_change(found)
    expected = {
        ("cmp", "n >= SIZE", "n > SIZE"),
        ("cmp", "n >= SIZE", "n < SIZE"),
        ("not", "not self.empty", "self.empty"),
        ("boolop", "n >= SIZE and not self.empty", "n >= SIZE or not self.empty"),
        ("return-not", "n >= SIZE and not self.empty", "not (n >= SIZE and not self.empty)"),
        ("int", "0", "1"),  # the class attribute default
        ("int", "8", "9"),  # SIZE
        ("cmp", "value < 3", "value <= 3"),
        ("cmp", "value < 3", "value >= 3"),
        ("int", "value < 3", "value < 4"),
        ("augassign", "total += value * 2", "total -= value * 2"),
        ("arith", "value * 2", "value // 2"),
        ("cond", "flag", "not (flag)"),
        ("minmax", "min(total, 10)", "max(total, 10)"),
        ("int", "min(total, 10)", "min(total, 11)"),
        ("cmp", "total == 0", "total != 0"),
        ("stmt", 'raise ValueError(f"nothing in {values} above {SIZE + 1}")', "pass"),
        ("stmt", "total = 0", "pass"),
        ("stmt", "total = min(total, 10)", "pass"),
        ("return-none", "total or None", "None"),
        ("boolop", "total or None", "total and None"),
    }
    assert expected <= changes, sorted(expected - changes)
    # Never mutated: docstrings, TYPE_CHECKING code, type aliases and annotations, __slots__,
    # message text (f-strings, the raise's message, a call with only message arguments), the final return.
    texts = " ".join(f"{m.before} {m.after}" for m in found)
    assert "99" not in texts and "100" not in texts
    assert not any(m.function == "Alias" for m in found)
    assert not any("__slots__" in m.before or m.function == "Box.__slots__" for m in found)
    assert not any("SIZE + 1" in m.before and m.operator != "stmt" for m in found)
    assert not any(m.before.startswith("print(") for m in found)
    assert not any(m.operator == "stmt" and m.before.startswith("return total") for m in found)
    # Every mutant applies cleanly, changes the program, and has a unique ID.
    for m in found:
        assert mutants.check_mutant(SNIPPET, m) is None, m
    assert len({m.id for m in found}) == len(found)
    # The class-level default is keyed by its name.
    assert any(m.function == "Box.count" for m in found)


def test_operator_edits_are_minimal() -> None:
    found = mutants.generate_source("def f(a, b):\n    return (a  <  b) + 1  # keep\n", "x.py")
    swap = next(m for m in found if m.operator == "cmp" and m.after == "a <= b")
    before, after = mutants.changed_lines("def f(a, b):\n    return (a  <  b) + 1  # keep\n", swap)
    assert before == ["    return (a  <  b) + 1  # keep"]
    assert after == ["    return (a  <=  b) + 1  # keep"]
    assert swap.description == "line 2: `a < b` -> `a <= b`"


def test_ids_survive_unrelated_edits() -> None:
    found = {m.id: m for m in mutants.generate_source(SNIPPET, "engine/snippet.py")}
    edited = SNIPPET.replace("class Box:", "def added(x: int) -> int:\n    return x + 1\n\n\nclass Box:")
    edited = edited.replace("print(f\"total", "total = total\n    print(f\"total")  # in the same function, elsewhere
    again = {m.id: m for m in mutants.generate_source(edited, "engine/snippet.py")}
    moved = [m for i, m in found.items() if i in again and again[i].line != m.line]
    assert moved, "the edit should have moved lines"
    assert set(found) <= set(again)


def test_equivalent_matching_and_stale(tmp_path: Path) -> None:
    found = mutants.generate_source(SNIPPET, "engine/snippet.py")
    target = next(m for m in found if m.operator == "minmax")
    path = tmp_path / "equivalent.yaml"
    path.write_text(textwrap.dedent(f"""\
        - id: {target.id}
          file: engine/snippet.py
          line: {target.line}
          description: "{target.description}"
          reason: because
        - id: snippet-0000000000
          file: engine/snippet.py
          line: 3
          reason: a mutant that no longer exists
        - scope: function
          file: engine/snippet.py
          function: Box
          reason: the whole class
        - scope: function
          file: engine/snippet.py
          function: gone
          reason: removed
    """))
    entries = results.load_equivalents(path)
    matched, stale = results.match_equivalents(entries, found)
    assert matched[target.id].reason == "because"
    assert {m.id for m in found if m.function.startswith("Box")} <= set(matched)
    assert [e.id or e.function for e in stale] == ["snippet-0000000000", "gone"]
    assert stale[0].line_no == 6


@pytest.mark.parametrize("text, message", [
    ("- id: x\n", "reason"),
    ("- id: x\n  reason: r\n- id: x\n  reason: r\n", "listed twice"),
    ("- id: x\n  reason: r\n  colour: red\n", "unknown keys"),
    ("id: x\n", "list"),
])
def test_bad_equivalent_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "equivalent.yaml"
    path.write_text(text)
    with pytest.raises(results.EquivalentError, match=message):
        results.load_equivalents(path)
    assert mutate.main(["--equivalent", str(path), "--files", "engine/errors.py", "--quiet"]) == 2


def test_the_engine_subprocess_imports_the_mutated_copy(tmp_path: Path) -> None:
    template = engine_run.snapshot_package(PACKAGE, tmp_path / "template")
    found = mutants.generate(template / "studcheck", ["engine/betting.py"])
    mutant = next(m for m in found if m.function == "count_bettors" and m.operator == "cmp")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    workdir = engine_run.make_mutant_copy(template, scratch, mutant)
    probe = "import inspect, studcheck.engine.betting as b; print(b.__file__); print(inspect.getsource(b.count_bettors))"
    out = subprocess.run(engine_run.engine_command(workdir, ["-c", probe]), capture_output=True, text=True, check=True,
                         cwd=REPO / "validator").stdout  # even from validator/, where the original package lies
    assert out.splitlines()[0] == str(workdir / "studcheck" / "engine" / "betting.py")
    assert mutant.after in " ".join(out.split())
    # And through the protocol: the handshake comes from the copy.
    init = workdir / "studcheck" / "__init__.py"
    init.write_text(init.read_text().replace('__version__ = "', '__version__ = "9.9.9-mutant+'))
    client = engine_run.EngineClient(lambda: engine_run.SubprocessTransport(engine_run.engine_command(workdir)))
    try:
        info = client.start()
    finally:
        client.stop(polite=False)
    assert info.version.startswith("9.9.9-mutant+")


def _small_suite(tmp_path: Path) -> Path:
    cases = tmp_path / "cases"
    cases.mkdir()
    for path in sorted((REPO / "cases" / "stud_high" / "betting").glob("*.yaml"))[:2]:
        shutil.copy(path, cases / path.name)
    return cases


def test_killed_and_equivalent(tmp_path: Path) -> None:
    everything = mutants.generate(PACKAGE)
    # Obviously killable: the hand never gets a street, so the first new_hand crashes the engine.
    killable = next(m for m in everything if m.function == "Hand.__init__" and m.operator == "stmt" and m.before == "self.street = layout.streets[0]")
    # Equivalent: the event log is not part of any protocol answer.
    quiet = next(m for m in everything if m.function == "Hand.apply" and m.operator == "stmt" and m.before.startswith("self.events.append("))
    equivalent = tmp_path / "equivalent.yaml"
    equivalent.write_text(f"- id: {quiet.id}\n  file: {quiet.file}\n  reason: Hand.events is never in a protocol answer\n")
    cases = _small_suite(tmp_path)
    out = tmp_path / "out.json"
    common = ["--cases", str(cases), "--id", killable.id, "--id", quiet.id, "--jobs", "1", "--quiet"]
    code = mutate.main([*common, "--equivalent", str(equivalent), "--json", str(out), "--markdown", str(tmp_path / "m.md")])
    data = json.loads(out.read_text())
    status = {m["id"]: m for m in data["mutants"]}
    assert status[killable.id]["status"] == "killed" and status[killable.id]["killer"] is not None
    assert status[quiet.id]["status"] == "equivalent"
    assert code == 0
    assert data["total"]["killed"] == 1 and data["total"]["equivalent"] == 1 and data["total"]["survived"] == 0
    assert "| **total** | **2** |" in (tmp_path / "m.md").read_text()
    # Without its entry the same mutant is a survivor, and the exit code says so.
    code = mutate.main([*common, "--id", quiet.id, "--equivalent", str(tmp_path / "none.yaml"), "--json", str(out)])
    data = json.loads(out.read_text())
    assert code == 1
    assert [s["id"] for s in data["survivors"]] == [quiet.id]
    survivor = data["survivors"][0]
    assert survivor["before"][0].strip().startswith("self.events.append(") and survivor["after"][0].strip() == "pass"
    # --rescore classifies the saved runs again with another equivalent.yaml, running nothing.
    again = tmp_path / "again.json"
    assert mutate.main(["--rescore", str(out), "--equivalent", str(equivalent), "--json", str(again)]) == 0
    rescored = {m["id"]: m["status"] for m in json.loads(again.read_text())["mutants"]}
    assert rescored == {killable.id: "killed", quiet.id: "equivalent"}


def test_startup_crash_counts_as_killed(tmp_path: Path) -> None:
    everything = mutants.generate(PACKAGE, ["rules.py"])
    # MAX_RAISES_VALUES (3, 4) -> (2, 4): the default max_raises 3 is refused when PROFILES is built at import.
    broken = next(m for m in everything if m.function == "MAX_RAISES_VALUES" and m.after == "(2, 4)")
    root = tmp_path / "run"
    root.mkdir()
    template = engine_run.snapshot_package(PACKAGE, root / "template")
    (root / "scratch").mkdir()
    config = engine_run.RunConfig(template=str(template), cases=str(_small_suite(tmp_path)), scratch=str(root / "scratch"), deadline=30)
    result = engine_run.run_mutant(broken, config)
    assert result.status == "killed" and result.startup, result
    assert "startup" in result.detail
    assert not list((root / "scratch").iterdir()), "the mutant copy is removed"


# --- equivalent.yaml cannot lie: recorded places, spec_permitted, the fuzzing guard ---------------

import guard  # noqa: E402

EQUIVALENT = TOOL / "equivalent.yaml"


@pytest.fixture(scope="module")
def engine_mutants() -> list[mutants.Mutant]:
    return mutants.generate(PACKAGE)


def test_every_equivalent_entry_matches_todays_code(engine_mutants: list[mutants.Mutant]) -> None:
    """An entry is a claim about one line of code: when the code moves or changes, it must be read again.
    Fix: `python tools/mutation/mutate.py --check-equivalent --update-lines`, then re-read the reasons it lists."""
    entries = results.load_equivalents(EQUIVALENT)
    assert results.recorded_mismatches(entries, engine_mutants) == []


def test_a_moved_entry_is_reported_and_can_be_recorded_again(tmp_path: Path) -> None:
    found = mutants.generate_source(SNIPPET, "engine/snippet.py")
    target = next(m for m in found if m.operator == "minmax")
    path = tmp_path / "equivalent.yaml"
    path.write_text(textwrap.dedent(f"""\
        - id: {target.id}
          file: engine/snippet.py
          line: {target.line + 7}
          function: {target.function}
          description: "line {target.line + 7}: `min(total, 10)` -> `max(total, 10)`"
          reason: because
        - id: snippet-0000000000
          file: engine/snippet.py
          line: 3
          reason: a mutant that no longer exists
    """))
    problems = results.recorded_mismatches(results.load_equivalents(path), found)
    assert any(f"line is recorded as {target.line + 7}, today it is {target.line}" in p for p in problems)
    assert any("description is recorded" in p for p in problems)
    assert any("snippet-0000000000 is no mutant of today's code" in p for p in problems)
    changed = results.update_recorded_lines(path, results.load_equivalents(path), found)
    assert changed == [f"{target.id} (engine/snippet.py {target.function}): line {target.line + 7} -> {target.line}"]
    again = results.load_equivalents(path)
    assert again[0].line == target.line and again[0].description == target.description and again[0].reason == "because"
    assert [p for p in results.recorded_mismatches(again, found) if target.id in p] == []


@pytest.mark.parametrize("text, message", [
    ("- id: x\n  kind: maybe\n  reason: r\n", "kind"),
    ("- id: x\n  kind: spec_permitted\n  reason: r\n", "permitted_by"),
    ("- id: x\n  kind: spec_permitted\n  permitted_by: the rules\n  reason: r\n", "permitted_by"),
    ("- id: x\n  permitted_by: spec/protocol.md 2.2\n  reason: r\n", "spec_permitted` entries only"),
])
def test_bad_spec_permitted_entry(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "equivalent.yaml"
    path.write_text(text)
    with pytest.raises(results.EquivalentError, match=message):
        results.load_equivalents(path)


def test_spec_permitted_entries_name_a_protocol_section() -> None:
    """The .0 mutants are not equivalent (the answer differs): each names the protocol section that permits both."""
    entries = [e for e in results.load_equivalents(EQUIVALENT) if e.permitted]
    assert entries, "the .0 entries are spec_permitted"
    headings = {line.split()[1] for line in (REPO / "spec" / "protocol.md").read_text().splitlines() if line.startswith("### ")}
    for entry in entries:
        assert entry.permitted_by is not None
        section = entry.permitted_by.split()[1]
        assert section in headings, f"equivalent.yaml:{entry.line_no}: no section {section} in spec/protocol.md"


def test_spec_permitted_survivors_are_counted_apart() -> None:
    found = mutants.generate_source(SNIPPET, "engine/snippet.py")
    a, b, c = found[0], found[1], found[2]
    survived = engine_run.RunResult(status=engine_run.SURVIVED)
    killed = engine_run.RunResult(status=engine_run.KILLED, killer="X")
    permitted = results.EquivalentEntry(reason="r", line_no=1, id=a.id, kind=results.KIND_SPEC_PERMITTED,
                                        permitted_by="spec/protocol.md 2.2")
    equivalent = results.EquivalentEntry(reason="r", line_no=2, id=b.id)
    report = results.Report(results=[results.classify(a, survived, permitted, SNIPPET),
                                     results.classify(b, survived, equivalent, SNIPPET),
                                     results.classify(c, killed, None, SNIPPET)],
                            generated=3, selected=3, not_run=0, stale=[])
    _, total = report.tallies()
    assert (total.permitted, total.equivalent, total.killed, total.survived) == (1, 1, 1, 0)
    assert total.score == 1.0  # killed / (mutants - equivalent - spec-permitted)
    assert report.exit_code() == 0
    assert report.to_json()["total"]["spec_permitted"] == 1
    assert "| spec-permitted |" in results.render_markdown(report)


def test_the_guard_fuzzes_a_listed_mutant_against_the_reference(tmp_path: Path, engine_mutants: list[mutants.Mutant]) -> None:
    """A mutant that changes an answer diverges (with the hand and the difference); one that only
    changes the internal event log agrees with the reference on every hand of every variant and structure."""
    loud = next(m for m in engine_mutants if m.function == "Hand._post_antes" and m.operator == "stmt"
                and m.before == "seat.stack -= amount")
    quiet = next(m for m in engine_mutants if m.function == "Hand.apply" and m.operator == "stmt"
                 and m.before.startswith("self.events.append("))
    equivalent = tmp_path / "equivalent.yaml"
    equivalent.write_text(f"- id: {loud.id}\n  reason: wrong on purpose\n- id: {quiet.id}\n  reason: events are internal\n")
    out = tmp_path / "guard.json"
    code = guard.main(["--equivalent", str(equivalent), "--hands", "1", "--seed", "3", "--jobs", "1", "--quiet",
                       "--json", str(out)])
    data = json.loads(out.read_text())
    status = {r["id"]: r for r in data["results"]}
    assert code == 1
    assert data["listed"] == 2 and data["selected"] == 2
    assert status[loud.id]["status"] == "diverged" and status[loud.id]["hand"] == 1
    assert status[loud.id]["detail"].startswith("new_hand")  # the antes are never taken: the first state differs
    assert status[quiet.id]["status"] == "held" and status[quiet.id]["hands"] == len(guard.COMBOS)
    assert {combo.split("/")[1] for combo in data["combinations"]} == {"fixed_limit", "pot_limit", "no_limit"}
    assert len({combo.split("/")[0] for combo in data["combinations"]}) == 4


def test_check_equivalent_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    package = tmp_path / "pkg"
    (package / "engine").mkdir(parents=True)
    (package / "engine" / "snippet.py").write_text(SNIPPET)
    target = next(m for m in mutants.generate_source(SNIPPET, "engine/snippet.py") if m.operator == "minmax")
    path = tmp_path / "equivalent.yaml"
    path.write_text(f'- id: {target.id}\n  file: engine/snippet.py\n  line: 1\n  function: {target.function}\n'
                    f'  description: "old"\n  reason: because\n')
    common = ["--check-equivalent", "--package", str(package), "--equivalent", str(path)]
    assert mutate.main(common) == 1
    assert "line is recorded as 1" in capsys.readouterr().out
    assert mutate.main([*common, "--update-lines"]) == 0
    assert f"updated {target.id}" in capsys.readouterr().out
    assert mutate.main(common) == 0
    assert mutate.main(["--update-lines", "--package", str(package)]) == 2  # needs --check-equivalent


def test_skip_equivalent_runs_only_the_mutants_the_suite_must_kill(tmp_path: Path) -> None:
    """CI's sample: a listed equivalent survives the whole suite by design (the costliest mutants to
    run); --skip-equivalent leaves it out and says so, and an unlisted survivor still fails."""
    everything = mutants.generate(PACKAGE)
    killable = next(m for m in everything if m.function == "Hand.__init__" and m.operator == "stmt" and m.before == "self.street = layout.streets[0]")
    quiet = next(m for m in everything if m.function == "Hand.apply" and m.operator == "stmt" and m.before.startswith("self.events.append("))
    equivalent = tmp_path / "equivalent.yaml"
    equivalent.write_text(f"- id: {quiet.id}\n  file: {quiet.file}\n  reason: Hand.events is never in a protocol answer\n")
    out = tmp_path / "out.json"
    common = ["--cases", str(_small_suite(tmp_path)), "--id", killable.id, "--id", quiet.id, "--jobs", "1", "--quiet",
              "--skip-equivalent", "--json", str(out)]
    assert mutate.main([*common, "--equivalent", str(equivalent)]) == 0
    data = json.loads(out.read_text())
    assert [m["id"] for m in data["mutants"]] == [killable.id] and data["skipped_equivalent"] == 1
    # Not listed, the same mutant runs and survives: the flag skips only what equivalent.yaml explains.
    assert mutate.main([*common, "--equivalent", str(tmp_path / "none.yaml")]) == 1
    data = json.loads(out.read_text())
    assert [s["id"] for s in data["survivors"]] == [quiet.id] and data["skipped_equivalent"] == 0


def test_changed_first_puts_mutants_of_changed_lines_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--changed-first`: every mutant on a changed line first, then the sample's draw of the others,
    the sample's size kept."""
    import argparse

    package = PACKAGE.resolve()
    everything = mutants.generate(package)
    files = mutants.target_files(package)
    target = everything[len(everything) // 2]
    monkeypatch.setattr(mutate, "changed_lines", lambda revision, pkg, names: {target.file: {target.line}})
    args = argparse.Namespace(files=None, operator=None, ids=None, sample=20, seed=1, changed_first="recorded", package=package)
    chosen = mutate._select(everything, args, files)
    on_line = [m for m in everything if m.file == target.file and m.line <= target.line <= m.end_line]
    assert on_line and chosen[:len(on_line)] == on_line and len(chosen) == 20
    assert not any(m in on_line for m in chosen[len(on_line):])


def test_changed_lines_reads_git_diff() -> None:
    first = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=REPO, capture_output=True, text=True,
                           check=True).stdout.split()[-1]
    lines = mutate.changed_lines(first, PACKAGE.resolve(), ["engine/dealing.py"])
    assert len(lines["engine/dealing.py"]) > 20  # written since the first commit
    assert (mutate.HERE / "last-full-run.txt").read_text(encoding="utf-8").split()[0]  # the recorded base exists
