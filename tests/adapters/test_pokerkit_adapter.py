"""The PokerKit adapter plays the suite through the real harness, and its expected-failure file holds.

Skipped where PokerKit is not installed (`pip install 'studcheck[pokerkit]'`); CI installs it.
The verdicts asserted here are the rules' (the cases encode them) and PokerKit's documented
deviations (adapters/pokerkit.xfail.yaml, docs/conformance/pokerkit.md), never the adapter's output.
"""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

if importlib.util.find_spec("pokerkit") is None:  # found, not imported: the adapter runs in its own process
    pytest.skip("PokerKit is not installed: pip install 'studcheck[pokerkit]' to test its adapter", allow_module_level=True)

from studcheck.cases.load import load_cases  # noqa: E402
from studcheck.harness.runner import Outcome, Runner  # noqa: E402
from studcheck.harness.xfail import load_xfail  # noqa: E402
from studcheck.protocol.client import EngineClient, SubprocessTransport  # noqa: E402

HANG_GUARD_S = 600  # seconds before a subprocess counts as hung: a guard, not a measurement (load cannot break it)

ROOT = Path(__file__).resolve().parents[2]
XFAIL = ROOT / "adapters" / "pokerkit.xfail.yaml"
ARGV = [sys.executable, "-m", "studcheck.adapters.pokerkit_adapter"]
BY_ID = {case.id: case for case in load_cases()}

# Rules PokerKit follows, across the three variants: dealing, bring-in, completion, limits, cap,
# first to act, all-in side pots, hand ranking, hi-lo split, showdown order, refusals.
CONFORMING = [
    "SH-DEA-001", "SH-BRI-001", "SH-BRI-004", "SH-CMP-001", "SH-LIM-002", "SH-CAP-001", "SH-FAC-003",
    "SH-HRK-001", "SH-SHD-001", "SH-SID-003", "SH-REF-001", "SH-WEX-001",
    "RZ-BRI-002", "RZ-FAC-002", "RZ-LOW-001", "RZ-ALL-001", "RZ-REF-003",
    "HL-HLO-001", "HL-HLO-007", "HL-FAC-004", "HL-SHD-001", "HL-CAP-002",
]
# Documented PokerKit deviations: these must keep failing (or the expected-failure file is stale).
DEVIATING = ["SH-HLF-002", "SH-ODD-003", "SH-SHD-008", "RZ-BRI-010", "HL-RAK-002"]


@pytest.fixture(scope="module")
def runner() -> Iterator[Runner]:
    client = EngineClient(lambda: SubprocessTransport(ARGV), timeout=20.0)
    client.start()
    yield Runner(client)
    client.stop()


def test_hello_declares_what_pokerkit_supports(runner: Runner) -> None:
    info = runner.client.info
    assert info is not None
    assert set(info.variants) == {"stud_high", "razz", "stud_hilo8"}
    # PokerKit's fixed bets, position ties and suit bring-in ties (spec/options.md values it lacks are absent).
    assert info.supported_values("open_pair_double") == [False]
    assert info.supported_values("heads_up") == ["capped"]
    assert info.supported_values("bring_in_tie") == ["suit"]
    assert info.supported_values("first_actor_tie") == ["seat"]
    assert info.supported_values("showdown_unbet") == ["first_actor"]


@pytest.mark.parametrize("case_id", CONFORMING)
def test_pokerkit_follows_the_rule(runner: Runner, case_id: str) -> None:
    verdict = runner.run(BY_ID[case_id])
    assert verdict.outcome is Outcome.PASS, (verdict.message, verdict.mismatches)


@pytest.mark.parametrize("case_id", DEVIATING)
def test_pokerkit_deviation_is_still_seen(runner: Runner, case_id: str) -> None:
    verdict = runner.run(BY_ID[case_id])
    assert verdict.outcome is Outcome.FAIL, verdict.message


def test_every_expected_failure_names_a_case() -> None:
    entries = load_xfail(XFAIL, BY_ID)
    assert set(DEVIATING) <= set(entries)
    assert not set(CONFORMING) & set(entries)


def _studcheck(argv: Sequence[str]) -> int:
    from studcheck.commands import run as commands

    parser = argparse.ArgumentParser(prog="studcheck")
    commands.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    code: int = args.handler(args)
    return code


def test_whole_suite_passes_with_the_expected_failure_file(capsys: pytest.CaptureFixture[str]) -> None:
    """The whole suite (about 3 s through the adapter): every applicable case passes or is a listed deviation."""
    code = _studcheck(["run", "--no-progress", "--engine", shlex.join(ARGV), "--xfail", str(XFAIL)])
    out = capsys.readouterr().out
    assert code == 0, out
    total = next(line.split() for line in out.splitlines() if line.startswith("total"))
    passed, failed, errors, _not_applicable, xfailed, xpassed = map(int, total[1:7])
    assert (failed, errors, xpassed) == (0, 0, 0), out
    assert xfailed == len(load_xfail(XFAIL, BY_ID)) and passed > 0


def test_adapter_imports_without_pokerkit() -> None:
    """studcheck must work without PokerKit: the adapter imports it only inside a hand."""
    code = (
        "import sys; sys.modules['pokerkit'] = None\n"
        "from studcheck.adapters import pokerkit_adapter as a\n"
        "r = a.Session().answer({'type': 'hello', 'seq': 1, 'protocol': 1})\n"
        "assert r['ok'] and r['variants'] == ['stud_high', 'razz', 'stud_hilo8'], r\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=HANG_GUARD_S)


@pytest.mark.parametrize(
    ("variant", "preset"),
    [("stud_high", "FixedLimitSevenCardStud"), ("razz", "FixedLimitRazz"),
     ("stud_hilo8", "FixedLimitSevenCardStudHighLowSplitEightOrBetter")],
)
def test_default_options_build_pokerkits_own_game(variant: str, preset: str) -> None:
    """With burns and max_raises 3 the adapter's State is PokerKit's preset game, not a variant of it."""
    import pokerkit

    from studcheck.adapters.pokerkit_adapter import PokerKitHand
    from studcheck.cards import FULL_DECK
    from studcheck.rules import Options

    hand = PokerKitHand({
        "variant": variant, "options": Options().to_json() | {"open_pair_double": False},
        "stakes": {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10},
        "seats": [{"seat": 1, "stack": 100}, {"seat": 4, "stack": 100}], "deck": [str(card) for card in FULL_DECK],
    })
    game = getattr(pokerkit, preset).create_state((), True, 1, 2, 5, 10, 100, 2)
    assert hand.state.streets == game.streets
    assert (hand.state.deck, hand.state.hand_types, hand.state.betting_structure) == (game.deck, game.hand_types, game.betting_structure)
