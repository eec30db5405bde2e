"""Five-card stud through the fuzzer: setups use the variant's ten seats (seven-card setups keep
their eight), and written cases cite only rules that apply to five-card stud (the FIVE.* rules
where the seven-card ones of dealing, limits, the double bet and first to act do not), so lint
passes them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from planted import planted_server

from studcheck.cases.lint import lint_files
from studcheck.cases.load import rule_index
from studcheck.fuzz.commands import FuzzConfig, fuzz
from studcheck.fuzz.strategies import Capabilities, RandomChooser, draw_setup, hand_seed
from studcheck.protocol.client import EngineClient, InProcessTransport
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


@pytest.mark.parametrize("bug", ["card_shift", "showdown_order", "uncontested_stack", "side_pot", "check_facing_bet"])
def test_planted_bugs_in_five_card_stud_give_five_card_cases(bug: str, tmp_path: Path) -> None:
    """The planted bugs of test_fuzz.py, found in five-card stud hands: the case is written (the
    awards, the deal, the order all have five-card rules) and cites only rules of the variant."""
    client = EngineClient(lambda: InProcessTransport(lambda: planted_server(bug)))
    config = FuzzConfig(hands=400, seed=1, variants=("five_card_stud",), out=tmp_path, replay_engine="--engine E",
                        shrink_replays=200)
    lines: list[str] = []
    assert fuzz(client, config, out=lines.append) == 1, lines
    written = [Path(line.removeprefix("wrote ")) for line in lines if line.startswith("wrote ")]
    assert len(written) == 1, lines
    _cites_five_card_rules_only(written[0])


def _cites_five_card_rules_only(path: Path) -> None:
    index = rule_index()
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["variant"] == "five_card_stud"
    for rule in data["rules"]:
        assert Variant.FIVE_CARD_STUD in index[rule].variants, f"{path.name} cites {rule}"
    assert lint_files([path])[1] == []


def test_written_five_card_cases_cite_five_card_rules(tmp_path: Path) -> None:
    engine = f"{sys.executable} {ENGINES / 'wrong_rules.py'}"
    done = subprocess.run([sys.executable, "-m", "studcheck", "fuzz", "--engine", engine, "--variant", "five_card_stud",
                           "--hands", "300", "--seed", "5", "--keep-going", "--no-progress", "--out", str(tmp_path),
                           "--shrink-replays", "40"],  # shrinking is not what this tests: less of it, the same rules cited
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr  # wrong_rules diverges
    written = sorted(tmp_path.glob("fs-gen-*.yaml"))
    assert written, done.stdout
    for path in written:
        _cites_five_card_rules_only(path)
