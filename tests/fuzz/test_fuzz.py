"""`studcheck fuzz`: it finds planted bugs quickly, writes cases that convict them, stays quiet on
the reference, and is deterministic per seed.

The planted-bug engines (planted.py) are the reference engine with one deliberate rule bug each.
They run in process (fast). The broken engines of tests/engines run as real subprocesses, driven by
`fuzz()` in this process; one test runs the whole command as a subprocess (`python -m studcheck
fuzz`, a subprocess engine, then `studcheck run` on the case written), and the usage errors go
through the CLI's `main` in this process.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from planted import RULE_BUGS, command, planted_server
from studcheck.cases.lint import lint_files
from studcheck.cases.load import load_case
from studcheck.cli import main
from studcheck.commands.fuzz import FuzzConfig, fuzz
from studcheck.fuzz.known import load_known
from studcheck.fuzz.play import identical, shortcut_is_sound
from studcheck.fuzz.shrink import HypothesisChooser
from studcheck.harness.runner import Outcome, Runner
from studcheck.protocol.client import EngineClient, InProcessTransport, SubprocessTransport

HANG_GUARD_S = 600  # seconds before a subprocess counts as hung: a guard, not a measurement (load cannot break it)

MAX_HANDS = 200  # every planted bug must be found within this many hands (seed 1)
#: The shrink budget of these tests (the command's default is 1000): the smallest that still leaves
#: every planted bug's case within the asserted size (<= 5 seats, <= 12 steps, its rule cited), with
#: a margin. Delta debugging does most of the work for most bugs (seed 1: 20 replays do);
#: showdown_order needs the Hypothesis pass (8 seats, 33 actions -> 2 seats, 4 actions after about
#: 100 replays; 80 leave 7 seats and 22 steps), so it also proves that pass works.
REPLAYS = 40
BUG_REPLAYS = {"showdown_order": 150}
ENGINES = Path(__file__).resolve().parents[1] / "engines"


def planted_client(bug: str) -> EngineClient:
    return EngineClient(lambda: InProcessTransport(lambda: planted_server(bug)))


def reference_client() -> EngineClient:
    return EngineClient(InProcessTransport)


def subprocess_client(*argv: str) -> EngineClient:
    """A real engine process (for the engines of tests/engines, which misbehave on the wire)."""
    return EngineClient(lambda: SubprocessTransport([sys.executable, *argv]))


def run(client: EngineClient, out: Path, *, hands: int = MAX_HANDS, seed: int = 1, replays: int = REPLAYS,
        **options: Any) -> tuple[int, list[str]]:
    lines: list[str] = []
    options.setdefault("variants", ())
    config = FuzzConfig(hands=hands, seed=seed, out=out, replay_engine="--engine ENGINE", shrink_replays=replays,
                        **options)
    code = fuzz(client, config, out=lines.append)
    return code, lines


def written(lines: list[str]) -> Path:
    paths = [line.removeprefix("wrote ") for line in lines if line.startswith("wrote ")]
    assert len(paths) == 1, lines
    return Path(paths[0])


#: what each bug must show up as: a field of the first difference and the rule of the bug, which the
#: case must cite among its first three (the rules of what the reference decided at that step, the
#: most specific first)
SIGNS = {
    "bring_in_tie": ("to_act", "BRING-IN.TIE.SUIT"),
    "max_raises": ("legal", "BET.CAP"),
    "card_shift": ("seats", "DEAL.STREETS"),
    "check_facing_bet": ("ok", "BET.CHECK"),
    "side_pot": ("pots", "POT.SIDE"),
    "bring_in_fold": ("legal", "BRING-IN.CHOICE"),
    "showdown_order": ("showdown_order", "SHOWDOWN.ORDER."),
    "uncontested_stack": ("stack", "SHOWDOWN.UNCONTESTED"),  # a stack, but the step awarded a pot
}


@pytest.mark.parametrize("bug", RULE_BUGS)
def test_planted_bug_is_found_shrunk_and_convicted(bug: str, tmp_path: Path) -> None:
    code, lines = run(planted_client(bug), tmp_path, replays=BUG_REPLAYS.get(bug, REPLAYS))
    assert code == 1, lines
    found = next(line for line in lines if line.startswith("DIVERGENCE in hand "))
    hand = int(found.split()[3])
    assert hand <= MAX_HANDS
    path = written(lines)
    field, rule = SIGNS[bug]
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert re.fullmatch(r"(SH|RZ|HL|FS)-GEN-[0-9A-F]{8}", data["id"])
    assert data["generated"] is True and "generated" in data["tags"]
    assert f"{field}" in data["title"], data["title"]
    assert any(cited.startswith(rule) for cited in data["rules"][:3]), data["rules"]
    assert len(data["deck"]) == 52 and len(data["options"]) == 11
    assert len(data["seats"]) <= 5, "shrinking should leave a small table"
    assert len(data["steps"]) <= 12, "shrinking should leave a short hand"

    _, problems = lint_files([path])
    assert problems == []
    case = load_case(path)
    buggy = planted_client(bug)
    buggy.start()
    assert Runner(buggy).run(case).outcome is Outcome.FAIL
    reference = reference_client()
    reference.start()
    assert Runner(reference).run(case).outcome is Outcome.PASS


def test_reference_against_itself_agrees(tmp_path: Path) -> None:
    """No false divergence on the reference itself: 100 hands of every variant here (300 before;
    the same claim is asserted on 240 more hands, every betting structure, in test_big_bet_fuzz.py,
    and `.ci/run` fuzzes `studcheck serve` for 2000 hands)."""
    code, lines = run(reference_client(), tmp_path, hands=100, seed=7)
    assert code == 0, lines
    assert any(line.startswith("ok: 100 hands agree") for line in lines), lines
    assert not list(tmp_path.iterdir())


def test_unsupported_setups_are_skipped_not_divergences(tmp_path: Path) -> None:
    code, lines = run(planted_client("unsupported_eight"), tmp_path, hands=60)
    assert code == 0, lines
    summary = lines[-1]
    assert summary.startswith("ok: 60 hands agree") and "refused as unsupported" in summary, summary


def test_answer_equal_but_not_identical_to_the_reference_breaks_the_schema(tmp_path: Path) -> None:
    """`folded: 0` equals `folded: false` in Python; the schema check must still see it."""
    code, lines = run(planted_client("flags_as_numbers"), tmp_path, hands=50)
    assert code == 1, lines
    assert re.match(r"ENGINE ERROR \(bad_response\) in hand \d+ of 50 \(seed 1\) at ", lines[1]), lines
    assert "breaks the protocol schema" in lines[1] and "folded" in lines[1], lines[1]
    assert re.match(r"  request: seq \d+ \(state\): \{", lines[2]), lines


def test_the_schema_still_allows_the_validation_shortcut() -> None:
    """If the protocol schema's response_state changes shape, the shortcut switches itself off (and
    this test says so, so the change is noticed)."""
    assert shortcut_is_sound()


@pytest.mark.parametrize(("a", "b", "same"), [
    ({"x": [1, True, None, "s"]}, {"x": [1, True, None, "s"]}, True),
    ({"x": 1}, {"x": True}, False),
    ({"x": 1}, {"x": 1.0}, False),
    ({"x": [1]}, {"x": [1, 2]}, False),
    ({"x": 1}, {"x": 1, "y": 2}, False),
    ({"x": {"a": False}}, {"x": {"a": 0}}, False),
])
def test_identical_is_type_for_type(a: Any, b: Any, same: bool) -> None:
    assert identical(a, b) is same and identical(b, a) is same


def test_divergence_that_does_not_reproduce_is_kept_as_found(tmp_path: Path) -> None:
    code, lines = run(planted_client("once"), tmp_path, hands=10)
    assert code == 1, lines
    assert lines[1].startswith("DIVERGENCE in hand 2 of 10 at new_hand"), lines
    assert any(line.startswith("  note: the divergence did not reproduce") for line in lines), lines
    assert any(line.startswith("  on the engine: pass") for line in lines), lines  # said, not hidden
    written(lines)


def test_state_changed_by_a_refusal_is_a_divergence(tmp_path: Path) -> None:
    """A real engine process; shrinking is not what this tests (10 replays: the case still ends on
    the refusal, whose state the harness checks)."""
    code, lines = run(subprocess_client(str(ENGINES / "sticky_refusal.py")), tmp_path, hands=50, seed=0, replays=10)
    assert code == 1, lines
    assert any("state.pot_total: reference" in line for line in lines), lines
    steps = yaml.safe_load(written(lines).read_text(encoding="utf-8"))["steps"]
    assert "reject" in steps[-1], steps  # the harness checks the state after a reject step itself


def test_same_seed_same_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both shrinking passes run within a budget of 30 replays (each uses all 30): the Hypothesis
    pass's own randomness is seeded too, or the shrunk hands would differ. The second run draws its
    choices through `data.draw` (the path for a Hypothesis without `conjecture_data`): the shortcut
    the first run takes draws the very same choices."""
    first_code, first = run(planted_client("side_pot"), tmp_path / "a", seed=5, replays=30)
    drawn: list[object] = []

    def through_data_draw(self: HypothesisChooser, data: Any) -> None:
        def draw(strategy: Any) -> Any:
            drawn.append(strategy)
            return data.draw(strategy)
        self._draw = draw

    monkeypatch.setattr(HypothesisChooser, "__init__", through_data_draw)
    second_code, second = run(planted_client("side_pot"), tmp_path / "b", seed=5, replays=30)
    assert len(drawn) > 100  # the second run's Hypothesis pass did draw through data.draw
    assert first_code == second_code == 1
    strip = [line.replace(str(tmp_path / "a"), "OUT") for line in first]
    assert strip == [line.replace(str(tmp_path / "b"), "OUT") for line in second]
    assert written(first).read_text() == written(second).read_text()


def test_seed_changes_the_hands(tmp_path: Path) -> None:
    _, five = run(reference_client(), tmp_path, hands=30, seed=5)
    _, six = run(reference_client(), tmp_path, hands=30, seed=6)
    assert five[-1].startswith("ok: 30 hands agree") and six[-1].startswith("ok: 30 hands agree")
    assert five[-1] != six[-1]  # the action counts differ: other hands were played


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "studcheck", "fuzz", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=HANG_GUARD_S)


def test_cli_subprocess_engine_divergence_and_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The one end-to-end run of the command: `python -m studcheck fuzz` on a subprocess engine (20
    replays shrink this bug to 2 seats, 2 steps), then the `replay:` line it prints, `studcheck run`
    (through the CLI's `main`, in this process), fails the engine on the case it wrote."""
    engine = command("check_facing_bet")
    done = cli("--engine", engine, "--hands", "100", "--seed", "1", "--out", "cases", "--shrink-replays", "20", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    replay = next(line for line in done.stdout.splitlines() if line.startswith("replay: "))
    argv = ["--engine", engine] + ["--cases", replay.split("--cases ", 1)[1]]
    monkeypatch.chdir(tmp_path)
    assert main(["run", *argv]) == 1, capsys.readouterr()
    assert "hands/s through the protocol" in done.stderr


def test_reference_subprocess_agrees(tmp_path: Path) -> None:
    """`studcheck serve` as the engine, a real process (driven by `fuzz()` in this process)."""
    code, lines = run(subprocess_client("-m", "studcheck", "serve"), tmp_path, hands=20, seed=0, variants=("razz",))
    assert code == 0, lines
    assert "20 hands of razz" in lines[0]


def test_engine_crash_is_reported_not_a_traceback(tmp_path: Path) -> None:
    """A real engine process that dies; `fuzz()` here (the command's own code, without starting
    Python for the CLI: test_cli_subprocess_engine_divergence_and_replay runs that)."""
    code, lines = run(subprocess_client(str(Path(__file__).resolve().parent / "planted.py"), "crash"), tmp_path,
                      hands=50, seed=0)
    stdout = "\n".join(lines)
    assert code == 1, stdout
    assert "ENGINE ERROR (crash)" in stdout
    died_on = re.search(r"segmentation fault \(core dumped\) on seq (\d+)", stdout)
    assert died_on is not None, stdout
    # Requests are pipelined: the crash is noticed at a later write or read, but the request reported
    # is the one the engine died on.
    request = re.search(r"^  request \(the first one left unanswered\): seq (\d+) \(act\): (\{.*\})$", stdout, re.M)
    assert request is not None, stdout
    assert request.group(1) == died_on.group(1) and json.loads(request.group(2))["seq"] == int(died_on.group(1))
    assert "  engine process: exit code 139" in stdout
    assert "Traceback" not in stdout


def test_failure_past_a_divergence_restarts_the_engine_and_the_search_goes_on(tmp_path: Path) -> None:
    """The fuzzer pipelines, so requests after a divergence reach the engine too; an engine failing
    on those is noted and restarted, and the divergence stays the finding (as without pipelining)."""
    known = tmp_path / "known.yaml"
    known.write_text("- signature: 'act-accepted state.pot_total *'\n  reason: planted, known\n", encoding="utf-8")
    code, lines = run(subprocess_client(str(ENGINES / "diverge_then_crash.py")), tmp_path / "cases", hands=6, seed=0,
                      keep_going=True, known=load_known(known), known_file=known)
    stdout = "\n".join(lines)
    assert code == 0, stdout
    assert "ENGINE ERROR" not in stdout
    restarts = re.search(r"note: the engine failed in (\d+) hands on requests sent past a divergence", stdout)
    assert restarts is not None and int(restarts.group(1)) >= 3, stdout  # most hands have three actions
    assert re.search(r"ok: no new divergence in 6 hands \(6 with known divergences", stdout), stdout
    # the first three, each with the hand, the request, the exit code and the engine's stderr
    note = stdout.split("note: the engine failed", 1)[1]
    assert len(re.findall(r"^  hand \d+ of 6 \(seed 0\): crash: the engine closed its output", note, re.M)) == 3, note
    assert len(re.findall(r"^    request \(the first one left unanswered\): seq \d+ \(act\): \{", note, re.M)) == 3
    assert note.count("    engine process: exit code 139") == 3
    assert note.count("      segmentation fault (core dumped)") == 3
    if int(restarts.group(1)) > 3:
        assert f"  ... and {int(restarts.group(1)) - 3} more" in note


def test_not_json_is_reported(tmp_path: Path) -> None:
    code, lines = run(subprocess_client(str(ENGINES / "not_json.py")), tmp_path, hands=5, seed=0)
    assert code == 1
    assert "ENGINE ERROR (not_json)" in lines[1] and any("DEBUG dealing cards" in line for line in lines), lines


def main_fuzz(args: Sequence[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`studcheck fuzz ARGS` through the CLI's `main`, in this process: the exit code, stdout, stderr.
    (An uncaught exception would fail the test: no traceback can reach the user unseen.)"""
    try:
        code = main(["fuzz", *args])
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(("args", "code"), [
    (["--engine", "/nonexistent/engine"], 3),
    (["--engine", "x", "--hands", "0"], 2),
    (["--hands", "5"], 2),
    (["--engine", "x", "--max-divergences", "3"], 2),  # only with --keep-going
    (["--engine", "x", "--keep-going", "--max-divergences", "0"], 2),
])
def test_cli_exit_codes(args: list[str], code: int, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    exit_code, out, err = main_fuzz(args, capsys)
    assert exit_code == code, out + err
    assert "Traceback" not in err


def test_unknown_variant_is_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--variant omaha` reaches `fuzz()` as is (the CLI passes the names through); the engine's
    hello decides, so the reference engine in process stands for `studcheck serve`."""
    code, lines = run(reference_client(), tmp_path, variants=("omaha",))
    assert code == 2, lines
    assert "omaha" in capsys.readouterr().err


# --- --keep-going and --known --------------------------------------------------------------------

TWO_BUGS = "max_raises+side_pot"
POTS_KNOWN = "- signature: '* state.pots[].amount *'\n  reason: planted side-pot bug, listed as known\n"


KeepGoing = tuple[int, list[str], list[Path]]  # exit code, lines, cases written
KEEP_GOING_HANDS = 20  # seed 1: all three signatures show by hand 9, each in more than one hand


def keep_going(tmp_path: Path, known: str | None = None, **options: Any) -> KeepGoing:
    """Two planted bugs, razz only (a signature includes the variant), a tiny shrink budget (what is
    shrunk does not matter here, only one case per signature; test_same_seed_same_output shows that
    shrinking is deterministic)."""
    known_entries: tuple[Any, ...] = ()
    if known is not None:
        (tmp_path / "known.yaml").write_text(known, encoding="utf-8")
        known_entries = load_known(tmp_path / "known.yaml")
        options["known_file"] = tmp_path / "known.yaml"
    code, lines = run(planted_client(TWO_BUGS), tmp_path / "cases", hands=KEEP_GOING_HANDS, replays=3, variants=("razz",),
                      known=known_entries, **options)
    cases = sorted((tmp_path / "cases").glob("*.yaml")) if (tmp_path / "cases").exists() else []
    return code, lines, cases


def signature_rows(lines: list[str]) -> dict[str, str]:
    """The summary table: signature -> status (`new: PATH` or `known: REASON`)."""
    start = next(i for i, line in enumerate(lines) if line.startswith("signatures: "))
    rows = {}
    for line in lines[start + 2:]:
        match = re.fullmatch(r"\s+(\d+)\s+(\d+)\s+(\S+ \S+ \S+)\s+((?:new|known): .*)", line)
        if match is None:
            break
        rows[match.group(3)] = match.group(4)
    return rows


def test_keep_going_finds_both_planted_bugs_one_case_per_signature(tmp_path: Path) -> None:
    code, lines, cases = keep_going(tmp_path, keep_going=True)
    assert code == 1, lines
    rows = signature_rows(lines)
    assert any(" state.pots[].amount " in signature for signature in rows), rows  # the side-pot bug
    assert any(" state.legal " in signature or " ok " in signature for signature in rows), rows  # the raise cap
    new = [status.removeprefix("new: ") for status in rows.values() if status.startswith("new: ")]
    assert len(new) == len(rows) == len(cases), (rows, cases)  # one case per signature, none known
    assert sorted(Path(path) for path in new) == cases
    assert sum(line.startswith("DIVERGENCE in hand ") for line in lines) == len(rows)


@pytest.fixture(scope="module")
def known_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[KeepGoing, Path]:
    """One keep-going run with the side-pot signatures known (and at most 2 new): two tests read it."""
    root = tmp_path_factory.mktemp("known")
    return keep_going(root, known=POTS_KNOWN, keep_going=True, max_divergences=2), root


def test_known_signature_is_counted_not_written(known_run: tuple[KeepGoing, Path]) -> None:
    (code, lines, cases), _ = known_run
    assert code == 1, lines
    rows = signature_rows(lines)
    known = {signature: status for signature, status in rows.items() if status.startswith("known: ")}
    assert known and all(" state.pots[].amount " in signature for signature in known), rows
    assert all(status == "known: planted side-pot bug, listed as known" for status in known.values())
    assert cases and all("-pots" not in case.name for case in cases), cases
    assert all("pots" not in yaml.safe_load(case.read_text(encoding="utf-8"))["title"] for case in cases)
    assert len(cases) == len(rows) - len(known)


def test_only_known_divergences_exit_zero(tmp_path: Path) -> None:
    everything = "- signature: '* * razz'\n  reason: every razz divergence is known here\n"
    code, lines, cases = keep_going(tmp_path, known=everything, keep_going=True)
    assert code == 0, lines
    assert cases == []
    assert lines[-1].startswith(f"ok: no new divergence in {KEEP_GOING_HANDS} hands ("), lines[-1]


def test_max_divergences_stops_early(tmp_path: Path) -> None:
    code, lines, cases = keep_going(tmp_path, keep_going=True, max_divergences=1)
    assert code == 1
    assert len(cases) == 1
    assert "(stopped after 1 new signatures)" in next(line for line in lines if line.startswith("signatures: "))


def test_keep_going_is_deterministic(known_run: tuple[KeepGoing, Path], tmp_path: Path) -> None:
    """The same run as test_known_signature_is_counted_not_written's, again: the same lines and cases."""
    first, first_root = known_run
    second = keep_going(tmp_path, known=POTS_KNOWN, keep_going=True, max_divergences=2)
    assert first[0] == second[0] == 1
    assert len(first[2]) >= 1  # how many signatures a planted bug shows depends on the engine's reasons
    assert [line.replace(str(first_root), "T") for line in first[1]] == \
           [line.replace(str(tmp_path), "T") for line in second[1]]
    assert [case.read_text() for case in first[2]] == [case.read_text() for case in second[2]]


@pytest.mark.parametrize("text", [
    "- signature: act-accepted state.legal\n  reason: two parts\n",
    "- signature: act-accepted state.legal razz\n",
    "- signature: acted state.legal razz\n  reason: unknown kind\n",
    "signature: act-accepted state.legal razz\n",
])
def test_bad_known_file_is_a_usage_error(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "known.yaml").write_text(text, encoding="utf-8")
    code, out, err = main_fuzz(["--engine", "x", "--known", "known.yaml"], capsys)
    assert code == 2, out + err
    assert "--known" in err and "Traceback" not in err
