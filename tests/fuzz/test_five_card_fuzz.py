"""Five-card stud through the fuzzer: setups use the variant's ten seats (seven-card setups keep
their eight), and written cases cite only rules that apply to five-card stud (the FIVE.* rules
where the seven-card ones of dealing, limits, the double bet and first to act do not), so lint
passes them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from planted import planted_server

from studcheck.cases.lint import lint_files
from studcheck.cases.load import rule_index
from studcheck.commands.fuzz import FuzzConfig, fuzz
from studcheck.fuzz.strategies import Capabilities, RandomChooser, draw_setup, hand_seed
from studcheck.protocol.client import EngineClient, InProcessTransport, SubprocessTransport
from studcheck.rules import Variant

ENGINES = Path(__file__).resolve().parents[1] / "engines"


def test_setups_use_each_variants_seats() -> None:
    client = EngineClient(InProcessTransport)
    caps = Capabilities.from_hello(client.start())
    most: dict[str, int] = {}
    for number in range(1, 600):
        setup = draw_setup(RandomChooser(hand_seed(11, number)), caps)
        top = max(seat for seat, _ in setup.seats)
        most[setup.variant] = max(most.get(setup.variant, 0), top)
    client.stop()
    assert most[Variant.FIVE_CARD_STUD.value] == 10
    assert all(most[variant.value] == 8 for variant in Variant if variant is not Variant.FIVE_CARD_STUD)


#: each planted bug (test_fuzz.py) and the rule its five-card case must cite among its first three
FIVE_CARD_BUGS = {"card_shift": "FIVE.STREETS", "showdown_order": "SHOWDOWN.ORDER.", "uncontested_stack": "SHOWDOWN.UNCONTESTED",
                  "side_pot": "POT.SIDE", "check_facing_bet": "BET.CHECK"}


@pytest.mark.parametrize("bug", FIVE_CARD_BUGS)
def test_planted_bugs_in_five_card_stud_give_five_card_cases(bug: str, tmp_path: Path) -> None:
    """The planted bugs of test_fuzz.py, found in five-card stud hands: the case is written (the
    awards, the deal, the order all have five-card rules), cites the bug's rule (FIVE.STREETS, not
    DEAL.STREETS, for the deal) and only rules of the variant. A shrink budget of 40 (200 before:
    the size of the hand is test_fuzz.py's claim) cites the same rules as 200 but for card_shift,
    whose longer hand leaves out ALLIN.RUNOUT (which side_pot's case cites on 10 replays)."""
    client = EngineClient(lambda: InProcessTransport(lambda: planted_server(bug)))
    config = FuzzConfig(hands=400, seed=1, variants=("five_card_stud",), out=tmp_path, replay_engine="--engine E",
                        shrink_replays=40)
    lines: list[str] = []
    assert fuzz(client, config, out=lines.append) == 1, lines
    written = [Path(line.removeprefix("wrote ")) for line in lines if line.startswith("wrote ")]
    assert len(written) == 1, lines
    _cites_five_card_rules_only(written[0])
    rules = yaml.safe_load(written[0].read_text(encoding="utf-8"))["rules"]
    assert any(rule.startswith(FIVE_CARD_BUGS[bug]) for rule in rules[:3]), rules


def _cites_five_card_rules_only(path: Path) -> None:
    index = rule_index()
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["variant"] == "five_card_stud"
    for rule in data["rules"]:
        assert Variant.FIVE_CARD_STUD in index[rule].variants, f"{path.name} cites {rule}"
    assert lint_files([path])[1] == []


def test_written_five_card_cases_cite_five_card_rules(tmp_path: Path) -> None:
    """wrong_rules.py, a real engine process, keep going: seed 5 shows its two signatures (the
    bring-in tie, the raise cap) in hands 1 and 24 (30 hands played; 300 before, which found no
    other). Shrinking is not what this tests: 10 replays (40 before) cite the same rules."""
    client = EngineClient(lambda: SubprocessTransport([sys.executable, str(ENGINES / "wrong_rules.py")]))
    config = FuzzConfig(hands=30, seed=5, variants=("five_card_stud",), out=tmp_path, replay_engine="--engine E",
                        shrink_replays=10, keep_going=True)
    lines: list[str] = []
    assert fuzz(client, config, out=lines.append) == 1, lines  # wrong_rules diverges
    written = sorted(tmp_path.glob("fs-gen-*.yaml"))
    assert len(written) == 2, lines
    for path in written:
        _cites_five_card_rules_only(path)
