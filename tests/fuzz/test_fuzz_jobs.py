"""`studcheck fuzz --jobs N`, `--shard K/N`, `--duration` and the census: the same seed gives the same
output, census and case files for every N; shards partition the hands and their censuses merge into
the whole run's; a duration ends the run normally.

The engines are real subprocesses (a worker starts its own engine from the client's transport
factory, which must pickle): planted rule bugs and a crash (planted.py).
"""

from __future__ import annotations

import functools
import json
import pickle
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planted import command
from studcheck.cli import main
from studcheck.fuzz.census import CENSUS_FORMAT, CensusError, merge_censuses, read_census
from studcheck.commands.fuzz import FuzzConfig, fuzz
from studcheck.fuzz.config import Shard, hand_numbers
from studcheck.fuzz.known import Known
from studcheck.fuzz.report import Display
from studcheck.protocol.client import EngineClient, EngineError, InProcessTransport, Problem, SubprocessTransport

HANG_GUARD_S = 600  # seconds before a subprocess counts as hung: a guard, not a measurement (load cannot break it)

ENGINES = Path(__file__).resolve().parents[1] / "engines"
PLANTED = command("max_raises+side_pot")  # two bugs: several signatures in the first hands of seed 1
#: The same two bugs and a crash that depends on the hand alone (a raise on fifth street). Seed 1, 10
#: hands: divergences in 4 variants (hands 1, 3, 5, 7; 7 divergent hands in all, so signatures
#: recur), the crash (hand 8: an error finding and its reproducer), failures while shrinking and past
#: a divergence (engine restarts): the whole of what a worker can report, in one run.
PLANTED_AND_CRASH = command("max_raises+side_pot+fifth_raise_crash")
EVERYTHING_KNOWN = (Known(kind="*", path="*", variant="*", reason="census"),)


def subprocess_client(engine: str) -> EngineClient:
    return EngineClient(functools.partial(SubprocessTransport, shlex.split(engine)))


def run(client: EngineClient, out: Path, **options: Any) -> tuple[int, list[str]]:
    lines: list[str] = []
    options.setdefault("variants", ())
    options.setdefault("seed", 1)
    config = FuzzConfig(out=out / "cases", replay_engine="--engine ENGINE", census=out / "census.json", **options)
    code = fuzz(client, config, out=lines.append)
    return code, lines


def outputs(root: Path) -> tuple[str, str, dict[str, bytes]]:
    """stdout, the census and every case file, with the run's directory written as ROOT.

    The one thing that depends on the worker is the `seq` of a request an engine failed on: seq
    numbers count the requests one engine process was sent, and each worker has its own.
    """
    def plain(text: str) -> str:
        return re.sub(r'(seq |"seq": )\d+', r"\1N", text.replace(str(root), "ROOT"))
    cases = {path.name: path.read_bytes() for path in sorted((root / "cases").glob("*.yaml"))}
    return (plain((root / "stdout").read_text(encoding="utf-8")),
            plain((root / "census.json").read_text(encoding="utf-8")), cases)


def test_every_number_of_workers_gives_the_same_results(tmp_path: Path) -> None:
    """--jobs 1 and --jobs 3 on 10 hands (3 workers: 4, 3 and 3 hands, an uneven split; --jobs 2 is
    compared with 1 in the next test): the same stdout, census and case files, with several
    divergence signatures shrunk and written, a crash written as it happened, and engine restarts.
    Shrinking is deterministic whoever does it; 5 replays are enough to show that."""
    results = []
    for jobs in (1, 3):
        root = tmp_path / f"jobs{jobs}"
        code, lines = run(subprocess_client(PLANTED_AND_CRASH), root, hands=10, jobs=jobs, keep_going=True,
                          shrink_replays=5)
        assert code == 1, lines
        (root / "stdout").write_text("\n".join(lines) + "\n", encoding="utf-8")
        results.append(outputs(root))
    stdout, census, cases = results[0]
    assert stdout.count("DIVERGENCE in hand ") >= 3 and "ENGINE ERROR (crash) in hand " in stdout, stdout
    assert "replayed while shrinking" in stdout and "on requests sent past a divergence" in stdout, stdout
    assert len(cases) == stdout.count("\nwrote ROOT/cases/"), stdout  # each finding written, so compared
    for other in results[1:]:
        assert other[0] == stdout
        assert other[1] == census
        assert other[2] == cases


def test_the_first_new_divergence_stops_every_number_of_workers_at_the_same_hand(tmp_path: Path) -> None:
    found = []
    for jobs in (1, 2):
        code, lines = run(subprocess_client(PLANTED), tmp_path / f"jobs{jobs}", hands=30, jobs=jobs, shrink_replays=5)
        assert code == 1, lines
        found.append([line for line in lines if not line.startswith(("wrote ", "replay: "))])
        census = read_census(tmp_path / f"jobs{jobs}" / "census.json")
        assert census["complete"] is False and census["hands"] == 1, census  # seed 1 diverges in hand 1
    assert found[0] == found[1]


def test_shards_partition_the_hands() -> None:
    whole = list(range(1, 101))
    shards = [list(hand_numbers(100, Shard(index=k, count=3))) for k in (1, 2, 3)]
    assert sorted(sum(shards, [])) == whole
    assert shards[1][:3] == [2, 5, 8]  # interleaved: hand k is in shard ((k - 1) % 3) + 1
    workers = [list(hand_numbers(100, Shard(index=2, count=3), worker=w, workers=2)) for w in (0, 1)]
    assert sorted(sum(workers, [])) == shards[1] and workers[0][:2] == [2, 8] and workers[1][:2] == [5, 11]


@pytest.mark.parametrize("text", ["0/2", "3/2", "2", "a/b", "1/0"])
def test_a_bad_shard_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="shard|between"):
        Shard.parse(text)


def planted_in_process(bug: str) -> EngineClient:
    from planted import planted_server

    return EngineClient(lambda: InProcessTransport(lambda: planted_server(bug)))


def test_the_shards_censuses_merge_into_the_whole_runs(tmp_path: Path) -> None:
    """A census run (`'* * *'` known: count every divergence, shrink nothing) over 30 hands (9 signatures
    of seed 1), whole and in 3 shards."""
    options: dict[str, Any] = {"hands": 30, "keep_going": True, "known": EVERYTHING_KNOWN}
    code, _ = run(planted_in_process("max_raises+side_pot"), tmp_path / "whole", **options)
    assert code == 0
    for k in (1, 2, 3):
        code, lines = run(planted_in_process("max_raises+side_pot"), tmp_path / f"shard{k}", shard=Shard(index=k, count=3),
                          **options)
        assert code == 0 and "(shard" in lines[0], lines
    whole = read_census(tmp_path / "whole" / "census.json")
    merged = merge_censuses([tmp_path / f"shard{k}" / "census.json" for k in (3, 1, 2)])
    assert whole["format"] == merged["format"] == CENSUS_FORMAT
    assert merged["shards"] == {"count": 3, "indexes": [1, 2, 3]}
    assert whole["shards"] == {"count": 1, "indexes": [1]}
    for key in ("hands", "actions", "refused", "skipped", "divergent_hands", "signatures", "complete", "seed"):
        assert merged[key] == whole[key], key
    assert whole["hands"] == 30 and len(whole["signatures"]) >= 3


def test_merging_refuses_censuses_of_different_runs(tmp_path: Path) -> None:
    base = {"format": CENSUS_FORMAT, "version": 1, "engine": "e 1", "seed": 1, "variants": ["razz"],
            "shards": {"count": 2, "indexes": [1]}, "last_hand": 10, "complete": True, "hands": 5, "actions": 9,
            "refused": 1, "skipped": 0, "past_failures": 0, "divergent_hands": 0, "signatures": []}
    paths = {}
    for name, change in {"one": {}, "same": {}, "seed": {"seed": 2},
                         "other": {"shards": {"count": 2, "indexes": [2]}}}.items():
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps({**base, **change}), encoding="utf-8")
    (tmp_path / "not.json").write_text("{\"format\": \"something\"}", encoding="utf-8")
    with pytest.raises(CensusError, match="merged twice"):
        merge_censuses([paths["one"], paths["same"]])
    with pytest.raises(CensusError, match="seed"):
        merge_censuses([paths["one"], paths["seed"]])
    with pytest.raises(CensusError, match="not a studcheck fuzz census"):
        merge_censuses([tmp_path / "not.json"])
    merged = merge_censuses([paths["one"], paths["other"]])
    assert merged["hands"] == 10 and merged["actions"] == 18 and merged["shards"]["indexes"] == [1, 2]


def test_a_duration_ends_the_run_normally(tmp_path: Path) -> None:
    from studcheck.fuzz.config import UNBOUNDED

    code, lines = run(EngineClient(InProcessTransport), tmp_path, hands=UNBOUNDED, duration=1.0)
    assert code == 0, lines
    assert lines[0].startswith("studcheck fuzz: engine studcheck-reference") and "hands for 1 s of" in lines[0]
    played = read_census(tmp_path / "census.json")["hands"]
    assert played > 0
    assert f"--duration (1 s) passed: {played} hands played" in lines
    assert lines[-2].startswith(f"ok: {played} hands agree"), lines


def test_progress_lines_say_rate_divergences_elapsed_and_left() -> None:
    now = [100.0]
    said: list[str] = []
    display = Display(400, lines=True, clock=lambda: now[0], say=said.append)

    def hands(count: int) -> None:
        for _ in range(count):
            now[0] += 0.0625  # 16 hands/s (a binary fraction: the sums are exact)
            display.callbacks().hand_done(None)  # type: ignore[arg-type]

    hands(159)
    assert said == []  # 9.94 s: a line every 10 s
    hands(1)
    display.found()
    hands(160)
    assert said == ["fuzz: 160 of 400 hands, 16.0 hands/s, 0 new divergences, elapsed 10s, left 15s",  # 240 / 16
                    "fuzz: 320 of 400 hands, 16.0 hands/s, 1 new divergence, elapsed 20s, left 5s"]  # 80 / 16


def test_engine_errors_survive_pickling_to_the_parent() -> None:
    error = EngineError(Problem.CRASH, "the engine closed its output (exit code 134)", line="x", stderr="boom")
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.problem, copy.message, copy.line, copy.stderr) == (
        EngineError, Problem.CRASH, error.message, "x", "boom")


def test_workers_need_an_engine_they_can_start_themselves(tmp_path: Path) -> None:
    code, lines = run(EngineClient(lambda: InProcessTransport()), tmp_path, hands=5, jobs=2)
    assert code == 2
    assert lines[-1].startswith("studcheck fuzz: --jobs 2: the engine's transport cannot be sent to a worker process")


class DiesInWorkers:
    """The reference engine in the parent; in a worker process, the worker dies on the spot (exit 3)."""

    def __call__(self) -> InProcessTransport:
        import multiprocessing
        import os

        if multiprocessing.parent_process() is not None:
            os._exit(3)
        return InProcessTransport()


def test_a_worker_that_dies_stops_the_run_with_a_verdict_not_a_hang(tmp_path: Path) -> None:
    code, lines = run(EngineClient(DiesInWorkers()), tmp_path, hands=5, jobs=2)
    assert code == 1, lines
    assert lines[1].startswith("ENGINE ERROR (crash) in hand 1 of 5 (seed 1): fuzz worker 1 ended without playing "
                               "the hand (exit code 3;"), lines


@pytest.mark.parametrize(("args", "message"), [(["--jobs", "0"], "--jobs"), (["--shard", "3/2"], "K must be between 1 and N"),
                                               (["--duration", "soon"], "is not a duration")])
def test_bad_jobs_shard_or_duration_is_a_usage_error(args: list[str], message: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the CLI's `main` in this process (argparse's and run_fuzz's checks; no engine starts)."""
    monkeypatch.chdir(tmp_path)
    assert main_exit_code(["fuzz", "--engine", "true", *args]) == 2
    assert message in capsys.readouterr().err


def _census(path: Path, **change: Any) -> Path:
    base = {"format": CENSUS_FORMAT, "version": 1, "engine": "e 1", "seed": 1, "variants": ["razz"],
            "shards": {"count": 3, "indexes": [1]}, "last_hand": 12, "complete": True, "hands": 4, "actions": 9,
            "refused": 1, "skipped": 0, "past_failures": 0, "divergent_hands": 1,
            "signatures": [{"signature": "act-accepted state.legal razz", "hands": 1, "first": 4, "known": None,
                            "case": "a.yaml"}]}
    path.write_text(json.dumps({**base, **change}), encoding="utf-8")
    return path


def test_studcheck_merge_joins_fuzz_censuses(tmp_path: Path) -> None:
    """`studcheck merge` on censuses: the whole campaign's census, and the shards it still lacks named."""
    one = _census(tmp_path / "one.json")
    two = _census(tmp_path / "two.json", shards={"count": 3, "indexes": [2]}, hands=5, divergent_hands=2,
                  signatures=[{"signature": "act-accepted state.legal razz", "hands": 2, "first": 2, "known": None,
                               "case": "b.yaml"}])
    done = subprocess.run([sys.executable, "-m", "studcheck", "merge", str(two), str(one), "-o", str(tmp_path / "all.json")],
                          capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 0, done.stderr
    assert "9 hands, 1 signature, shards 1, 2 of 3 (missing: 3)" in done.stdout
    merged = read_census(tmp_path / "all.json")
    assert merged["hands"] == 9 and merged["divergent_hands"] == 3
    assert merged["signatures"] == [{"signature": "act-accepted state.legal razz", "hands": 3, "first": 2, "known": None,
                                     "case": "b.yaml"}]


def main_exit_code(argv: list[str]) -> int:
    """`studcheck ARGV` through the CLI's `main` in this process; argparse's usage errors exit 2."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2


@pytest.mark.parametrize(("extra", "message"), [
    (["--junit", "x.xml"], "--junit is for run reports"),
    (["REPORT"], "some files are fuzz censuses and some are not"),
    (["SAME"], "shard 1 is merged twice"),
])
def test_studcheck_merge_refuses_bad_census_sets(extra: list[str], message: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Through the CLI's `main` in this process (test_studcheck_merge_joins_fuzz_censuses runs the command)."""
    one = _census(tmp_path / "one.json")
    report = tmp_path / "run.jsonl"
    report.write_text('{"kind": "header"}\n', encoding="utf-8")
    paths = {"REPORT": str(report), "SAME": str(_census(tmp_path / "same.json"))}
    args = [paths.get(item, item) for item in extra]
    code = main_exit_code(["merge", str(one), *args, "-o", str(tmp_path / "all.json")])
    err = capsys.readouterr().err
    assert code == 2 and message in err, err
