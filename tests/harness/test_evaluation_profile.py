"""The evaluation profile end to end (spec/evaluation.md): `studcheck run --profile evaluation` and
`studcheck fuzz --profile evaluation` against real subprocesses.

The planted evaluator (tests/engines/planted_evaluator.py) is written apart from studcheck.evaluate,
by brute force over the five-card subsets; each `--bug` breaks one rule, and the run must blame that
rule first. Its `--mode`s misbehave as engines do: each gets a verdict, never a traceback.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from harness_helpers import ENGINES, run_quietly
from studcheck.cases.evaluation import lint_evaluation_cases
from studcheck.resources import schema_path

REPORT = Draft202012Validator(json.loads(schema_path("report").read_text(encoding="utf-8")))

#: bug -> the rule its first cause must name (the rule it breaks, from the bug's description)
BUGS = {
    "wheel_not_straight": "HAND.HIGH.WHEEL",
    "wheel_ace_high": "HAND.HIGH.WHEEL",
    "wrap_around": "HAND.HIGH.WHEEL",
    "sixth_card_kicker": "HAND.HIGH.BEST-FIVE",
    "first_five": "HAND.HIGH.BEST-FIVE",
    "suits_break_ties": "HAND.HIGH.KICKERS",
    "flush_below_straight": "HAND.HIGH.RANKING",
    "razz_straights": "HAND.LOW.A5",
    "qualifier_nine": "HAND.LOW.EIGHT",
    "exposed_straights": "BET.FIRST-ACTOR.EXPOSED-RANKING",
    "bring_in_ace_low": "BRING-IN.CARD.LOW",
    "bring_in_no_suit": "BRING-IN.TIE.SUIT",
}


def cli(*argv: str) -> tuple[int, str, str]:
    """`studcheck <argv>` through the whole command line (fuzz is not a harness command), output captured."""
    import contextlib
    import io

    from studcheck.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    assert "Traceback" not in out.getvalue() + err.getvalue()
    return code, out.getvalue(), err.getvalue()


def planted(*flags: str) -> str:
    return shlex.join([sys.executable, str(ENGINES / "planted_evaluator.py"), *flags])


def run(tmp_path: Path, *argv: str) -> tuple[int, str, list[dict[str, Any]]]:
    report = tmp_path / "report.jsonl"
    code, out, err = run_quietly("run", "--profile", "evaluation", "--no-progress", "--jobs", "1", "--report", str(report), *argv)
    lines = [json.loads(text) for text in report.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        errors = sorted(REPORT.iter_errors(line), key=str)
        assert not errors, f"a report line breaks the schema: {errors[0].message}\n{line}"
    return code, out + err, lines


def outcomes(lines: list[dict[str, Any]]) -> dict[str, str]:
    return {line["id"]: line["outcome"] for line in lines if line["kind"] == "case"}


def test_the_reference_passes_every_case_and_the_exhaustive_mode(tmp_path: Path) -> None:
    code, out, lines = run(tmp_path, "--exhaustive")
    verdicts = outcomes(lines)
    assert code == 0, out[-2000:]
    assert set(verdicts.values()) == {"pass"}
    assert {"EV-ALL-HIGH", "EV-ALL-RAZZ", "EV-ALL-LOW8", "EV-ALL-XH4", "EV-ALL-BR"} <= set(verdicts)
    assert len(verdicts) >= 60 + 11
    assert lines[0]["engine"]["profile"] == "evaluation"


@pytest.mark.parametrize(("bug", "rule"), sorted(BUGS.items()))
def test_a_planted_bug_is_blamed_on_the_rule_it_breaks(tmp_path: Path, bug: str, rule: str) -> None:
    code, out, lines = run(tmp_path, "--engine", planted("--bug", bug))
    groups = [line for line in lines if line["kind"] == "group"]
    assert code == 1, out[-2000:]
    assert groups, out[-2000:]
    assert groups[0]["blame"][0] == rule, (groups[0]["key"], groups[0]["blame"])
    failing = [line for line in lines if line["kind"] == "case" and line["outcome"] == "fail"]
    # the verdict shows the pair (or a low8 hand) in words and the engine's values, and a replay command
    assert all("the rules" in line["message"] and "the engine's value" in line["message"] for line in failing)
    assert all("--profile evaluation" in line["replay"] for line in failing)


def test_a_correct_planted_evaluator_passes_every_case(tmp_path: Path) -> None:
    code, out, lines = run(tmp_path, "--engine", planted("--bug", "none"))
    assert code == 0, out[-2000:]
    assert set(outcomes(lines).values()) == {"pass"}


@pytest.mark.parametrize("mode", ["floats", "lower"])
def test_values_as_floats_or_lower_is_better_are_read_by_value(tmp_path: Path, mode: str) -> None:
    code, out, lines = run(tmp_path, "--engine", planted("--mode", mode))
    assert code == 0, out[-2000:]
    assert set(outcomes(lines).values()) == {"pass"}


@pytest.mark.parametrize(("mode", "outcome", "problem"), [
    ("wrong_count", "error", "bad_response"),  # a value too few: a protocol error, with evidence
    ("crash", "error", "crash"),  # exits on its second batch: that case is an error, the engine restarted
    ("refuse", "fail", None),  # refuses a batch of a kind it declared: it cannot do what it said
])
def test_a_misbehaving_evaluator_gets_a_verdict(tmp_path: Path, mode: str, outcome: str, problem: str | None) -> None:
    code, out, lines = run(tmp_path, "--engine", planted("--mode", mode))
    verdicts = [line for line in lines if line["kind"] == "case"]
    assert code == 1
    assert "Traceback" not in out
    bad = [line for line in verdicts if line["outcome"] != "pass"]
    assert bad and {line["outcome"] for line in bad} == {outcome}
    assert {line.get("problem") for line in bad} == {problem}
    if mode == "crash":  # restarted after the crash: the cases after it ran (half of them crash again)
        assert any(line["outcome"] == "pass" for line in verdicts)


def test_a_hands_engine_has_nothing_to_check_here(tmp_path: Path) -> None:
    code, out, lines = run(tmp_path, "--engine", planted("--mode", "hands"))
    assert code == 2
    assert set(outcomes(lines).values()) == {"not_applicable"}
    assert "hands profile" in next(line for line in lines if line["kind"] == "not_applicable")["reason"]


def test_kind_and_exhaustive_need_the_evaluation_profile() -> None:
    code, _, err = run_quietly("run", "--kind", "high")
    assert code == 2 and "--profile evaluation" in err
    code, _, err = run_quietly("run", "--profile", "evaluation", "--kind", "hi")
    assert code == 2 and "not a kind" in err


def test_fuzz_finds_a_planted_bug_and_writes_a_case_the_reference_passes(tmp_path: Path) -> None:
    out_dir = tmp_path / "found"
    code, out, _ = cli("fuzz", "--profile", "evaluation", "--engine", planted("--bug", "sixth_card_kicker"),
                               "--kind", "high", "--hands", "20000", "--seed", "1", "--out", str(out_dir), "--no-progress")
    assert code == 1, out
    assert "HAND.HIGH.BEST-FIVE" in out
    written = sorted(out_dir.glob("*.yaml"))
    cases, problems = lint_evaluation_cases(written)
    assert len(written) == 1 and not problems, problems
    # the smallest pair: at least one hand has six cards (a sixth card is the bug), none more than needed
    assert max(len(item) for item in cases[0].items) == 6
    code, _, lines = run(tmp_path, "--cases", str(written[0]))
    assert code == 0 and set(outcomes(lines).values()) == {"pass"}  # the reference agrees with what was written
    code, _, lines = run(tmp_path, "--cases", str(written[0]), "--engine", planted("--bug", "sixth_card_kicker"))
    assert code == 1 and next(line for line in lines if line["kind"] == "group")["blame"][0] == "HAND.HIGH.BEST-FIVE"


def test_fuzz_of_a_correct_evaluator_agrees() -> None:
    code, out, _ = cli("fuzz", "--profile", "evaluation", "--engine", planted("--bug", "none"), "--hands", "3000",
                               "--batch", "500", "--seed", "2", "--no-progress")
    assert code == 0, out
    assert "ok: 3000 items in 6 batches agree with the reference" in out


def test_fuzz_refuses_options_of_the_hands_profile() -> None:
    code, _, err = cli("fuzz", "--profile", "evaluation", "--engine", planted(), "--variant", "razz")
    assert code == 2 and "--variant is for whole hands" in err
