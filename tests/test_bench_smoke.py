"""bench/run.py works end to end on tiny sizes (speed is never asserted, only that it runs and checks).

Skipped without PokerKit (`pip install -e '.[pokerkit]'`), which the benchmark compares against.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

if importlib.util.find_spec("pokerkit") is None:  # found, not imported (bench imports it when it runs)
    pytest.skip("PokerKit is not installed: pip install 'studcheck[pokerkit]'", allow_module_level=True)

BENCH = Path(__file__).resolve().parent.parent / "bench"
HARNESS_CASES = Path(__file__).resolve().parent / "harness" / "cases"


def _load_run() -> ModuleType:
    spec = importlib.util.spec_from_file_location("studcheck_bench_run", BENCH / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_quick_path_on_tiny_sizes(tmp_path: Path) -> None:
    run = _load_run()
    from bench_commands import CommandConfig
    from bench_evaluation import EvalConfig
    from bench_hands import HandConfig

    config = run.Config(
        evaluation=EvalConfig(hands=300, pokerkit_hands=60, repeat=1, seed=7, fill=500),
        hands=HandConfig(studcheck_hands=6, pokerkit_hands=3, repeat=1, seed=7),
        # the harness's five cases: the rows' plumbing (runs, exit codes, reports) is the same for five cases
        # as for 714, and the whole suite through the protocol is `.ci/run`'s `studcheck run` step
        commands=CommandConfig(repeat=1, fuzz_hands=3, suite_args=("--cases", str(HARNESS_CASES))),
    )
    out = tmp_path / "bench.json"
    assert run.run(config, quick=True, json_path=out, progress=False) == 0
    rows = {row["key"]: row for row in json.loads(out.read_text(encoding="utf-8"))["rows"]}
    assert {"eval.high", "eval.razz", "eval.low8", "suite", "fuzz", "jobs.run", "jobs.fuzz"} <= set(rows)
    assert {f"hands.{w}.{v}" for w in ("random", "nofold") for v in ("stud_high", "razz", "stud_hilo8")} <= set(rows)
    for kind in ("high", "razz", "low8"):
        assert rows[f"eval.{kind}"]["extra"]["disagreements"] == 0
        assert rows[f"eval.{kind}"]["extra"]["pairs"] == 59
        assert rows[f"eval.{kind}"]["extra"]["fill_multisets"] == 500
    # With nobody folding, all six players reach showdown and each shows once.
    assert rows["hands.nofold.razz"]["extra"]["studcheck_showdown_actions_per_hand"] == 6
    assert rows["suite"]["extra"]["exit_codes"] == {"in_process": 0, "protocol": 0}
    assert rows["jobs.run"]["verdict"] != "WRONG" and rows["jobs.fuzz"]["verdict"] != "WRONG"
    assert rows["fuzz"]["other"] == rows["fuzz"]["extra"]["fuzzer_alone_hands_per_s"]  # row 4's ratio is to the ceiling
    # The ceilings that put the targets in context are measured, not assumed.
    assert rows["fuzz"]["extra"]["exit_code"] == 0 and rows["fuzz"]["extra"]["fuzzer_alone_hands_per_s"] > 0
    # the protocol runs and the fuzzer-alone replays alternate: twice fuzz_repeat rounds by default
    assert rows["fuzz"]["extra"]["rounds"] == 2 and "best of 2 rounds" in rows["fuzz"]["note"]
    assert all(rows[f"hands.random.{v}"]["extra"].get("no_op_engine_hands_per_s", 0) > 0
               for v in ("stud_high", "razz", "stud_hilo8")) or rows["hands.random.razz"]["other"] is None


def test_winner_cross_check_catches_a_wrong_evaluator() -> None:
    _load_run()
    from bench_evaluation import disagreements

    # Values 1 < 2 > 0 against a library that ranks the other way round on the first pair.
    assert disagreements([1, 2, 0], [5, 3, 1]) == 1
    assert disagreements([1, 2, None], [5, 9, None]) == 0  # None = no qualifying low, loses to any hand
    assert disagreements([None, 3], [4, 3]) == 1
