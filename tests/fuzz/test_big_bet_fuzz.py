"""Pot limit and no limit through the fuzzer: `betting` is drawn from what hello declares (a late
option: left out means fixed limit only, and a fixed-limit setup leaves it out of new_hand), legal
moves take a range's lowest amount, its highest and ones in between, and illegal moves go just
outside the range or name no amount (the reference refuses them all with invalid_amount)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from planted import planted_server
from studcheck.cases.lint import lint_files
from studcheck.cases.load import load_case
from studcheck.commands.fuzz import FuzzConfig, fuzz
from studcheck.harness.runner import Outcome, Runner

from studcheck.fuzz.play import ExchangeKind, HandRecord, Table
from studcheck.fuzz.strategies import Capabilities, RandomChooser, draw_setup, hand_seed
from studcheck.protocol.client import EngineClient, InProcessTransport
from studcheck.protocol.messages import EngineInfo
from studcheck.protocol.serve import Server

HANDS = 240


def _reference_info() -> EngineInfo:
    return EngineInfo.from_response(Server().handle({"type": "hello", "seq": 1, "protocol": 1, "harness": "test"}))


def test_betting_is_drawn_from_hello_and_absent_means_fixed_limit() -> None:
    info = _reference_info()
    assert Capabilities.from_hello(info).options["betting"] == ("fixed_limit", "no_limit", "pot_limit")
    v1_options = {name: value for name, value in info.options.items()
                  if name not in ("betting", "big_bet_bring_in", "rake_third_street")}
    v1 = EngineInfo(name="v1", version="1", variants=info.variants, options=v1_options)
    caps = Capabilities.from_hello(v1)
    assert caps.options["betting"] == ("fixed_limit",)
    setups = [draw_setup(RandomChooser(hand_seed(1, number)), caps) for number in range(1, 60)]
    assert all("betting" not in setup.options for setup in setups)  # v1 engines get v1 messages
    assert all(not {"big_bet_bring_in", "rake_third_street"} & set(setup.options) for setup in setups)


def test_later_late_options_are_drawn_when_hello_declares_them_and_sent_only_off_their_default() -> None:
    caps = Capabilities.from_hello(_reference_info())
    assert caps.options["big_bet_bring_in"] == ("open", "forced")
    assert caps.options["rake_third_street"] == (False, True)
    setups = [draw_setup(RandomChooser(hand_seed(2, number)), caps) for number in range(1, 120)]
    assert Counter(setup.options.get("big_bet_bring_in") for setup in setups).keys() == {None, "forced"}
    assert Counter(setup.options.get("rake_third_street") for setup in setups).keys() == {None, True}


def _range_moves(record: HandRecord) -> list[tuple[Mapping[str, Any], int | None, bool, str | None]]:
    """(range entry, amount sent, accepted, refusal reason) for every move on a ranged entry."""
    out = []
    state: Mapping[str, Any] = {}
    for exchange in record.exchanges:
        move = exchange.move
        if exchange.kind == ExchangeKind.ACT and move is not None and move.seat == state.get("to_act"):
            entries = [entry for entry in state.get("legal") or [] if entry["action"] == move.action and "max" in entry]
            for entry in entries:
                reason = (exchange.reference.get("error") or {}).get("reason")
                out.append((entry, move.amount, bool(exchange.reference.get("ok")), reason))
        if exchange.reference.get("ok") and "state" in exchange.reference:
            state = exchange.reference["state"]
    return out


def test_big_bet_hands_reach_the_range_bounds_and_the_reference_agrees_with_itself() -> None:
    client = EngineClient(InProcessTransport)
    caps = Capabilities.from_hello(client.start())
    table = Table(client)
    seen: Counter[tuple[str, str]] = Counter()
    for number in range(1, HANDS + 1):
        choose = RandomChooser(hand_seed(5, number))
        setup = draw_setup(choose, caps)
        record = table.play(setup, choose)
        assert record.divergence is None and record.failure is None, number
        betting = str(setup.options.get("betting", "fixed_limit"))
        for entry, amount, accepted, reason in _range_moves(record):
            assert betting != "fixed_limit"
            low, high = entry["min"], entry["max"]
            if accepted:
                assert amount is not None and low <= amount <= high
                seen[(betting, "min" if amount == low else "max" if amount == high else "between")] += 1
            elif amount is None or amount in (low - 1, high + 1):
                assert reason == "invalid_amount", (number, entry, amount, reason)
                seen[(betting, "none" if amount is None else "below" if amount == low - 1 else "above")] += 1
    client.stop()
    for betting in ("pot_limit", "no_limit"):
        for where in ("min", "max", "between", "below", "above", "none"):
            assert seen[(betting, where)] > 0, (betting, where, seen)


def test_a_planted_pot_limit_bug_is_found_and_its_case_states_ranges(tmp_path: Path) -> None:
    """An engine whose pot-limit ranges stop a chip short: the fuzzer finds it, and the case it
    writes names `betting`, states the legal ranges as `raise A..B`, and convicts the engine. (A
    shrink budget of 40, 200 before: seed 1's hand 1 shrinks to 2 seats and 1 action, citing the same
    BIGBET rules, from 20 replays on.)"""
    buggy = EngineClient(lambda: InProcessTransport(lambda: planted_server("pot_max_short")))
    config = FuzzConfig(hands=200, seed=1, variants=(), out=tmp_path, replay_engine="--engine E", shrink_replays=40)
    lines: list[str] = []
    assert fuzz(buggy, config, out=lines.append) == 1, lines
    written = [Path(line.removeprefix("wrote ")) for line in lines if line.startswith("wrote ")]
    assert len(written) == 1, lines
    data = yaml.safe_load(written[0].read_text(encoding="utf-8"))
    assert data["options"].get("betting") in ("pot_limit", "no_limit")
    assert "legal" in data["title"], data["title"]
    assert all(not rule.startswith(("ALLIN.HALF-BET", "BET.FIXED-AMOUNT", "BET.CAP")) for rule in data["rules"]), data["rules"]
    assert any(rule.startswith("BIGBET.") for rule in data["rules"][:3]), data["rules"]
    ranges = [entry for step in data["steps"] if "expect" in step for entry in step["expect"].get("legal", [])
              if ".." in str(entry)]
    assert ranges, data["steps"]
    assert lint_files([written[0]])[1] == []
    case = load_case(written[0])
    buggy.start()
    assert Runner(buggy).run(case).outcome is Outcome.FAIL
    reference = EngineClient(InProcessTransport)
    reference.start()
    assert Runner(reference).run(case).outcome is Outcome.PASS
