"""Late options (protocol.md 2.1-2.2): an engine written for protocol v1, which knows nothing of
`betting`, keeps receiving exactly the v1 messages and keeps passing what it passed; big-bet cases
are not applicable to it, never failed."""

from __future__ import annotations

from typing import Any

import pytest

from studcheck.cases import load_cases
from studcheck.harness.runner import NotApplicable, Outcome, Runner, choose_options, new_hand_fields
from studcheck.protocol.client import EngineClient, InProcessTransport
from studcheck.protocol.messages import EngineInfo
from studcheck.protocol.serve import Server

#: The options of protocol v1, written out (not derived from the code under test).
V1_OPTIONS = {"bring_in_tie", "first_actor_tie", "open_pair_double", "max_raises", "heads_up", "burn_cards",
              "short_stub", "odd_chip", "showdown_unbet", "rake_percent", "rake_cap"}
#: The keys of a v1 new_hand request and of a v1 legal-action entry.
V1_NEW_HAND = {"type", "seq", "variant", "options", "stakes", "seats", "deck", "remade_stub", "label"}
V1_LEGAL = {"action", "amount"}

CASES = load_cases()


def _big_bet(case: Any) -> bool:
    return case.options.get("betting", "fixed_limit") != "fixed_limit"


#: The options added after v1 and their defaults, written out (not derived from the code under test).
LATE_DEFAULTS = {"betting": "fixed_limit", "big_bet_bring_in": "open", "rake_third_street": False}


def _late(case: Any) -> bool:
    """The case names an option added after v1 at a value other than its default."""
    return any(name in case.options and case.options[name] != default for name, default in LATE_DEFAULTS.items())


class V1Server:
    """The reference engine, with a hello as an engine written before `betting` existed would send
    (or with `betting` declared as `declared`); it records every request and every state."""

    def __init__(self, declared: list[str] | None = None) -> None:
        self.server = Server()
        self.declared = declared
        self.requests: list[dict[str, Any]] = []
        self.states: list[dict[str, Any]] = []

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(request)
        response = self.server.handle(request)
        if request.get("type") == "hello":
            for name in LATE_DEFAULTS:
                del response["options"][name]
            if self.declared is not None:
                response["options"]["betting"] = self.declared
        if "state" in response:
            self.states.append(response["state"])
        return response


def test_the_suite_has_big_bet_cases_and_fixed_limit_cases() -> None:
    big = [case for case in CASES if _big_bet(case)]
    assert len(big) >= 40
    assert {case.variant.value for case in big} == {"stud_high", "razz", "stud_hilo8", "five_card_stud"}
    assert len(CASES) - len(big) >= 400


def test_an_absent_late_option_means_its_default_only() -> None:
    info = EngineInfo(name="v1", version="1", variants=("stud_high",), options={"max_raises": [3]})
    assert info.supports("betting", "fixed_limit")
    assert not info.supports("betting", "pot_limit")
    assert info.supported_values("betting") == ["fixed_limit"]
    declared = EngineInfo(name="big", version="1", variants=("stud_high",), options={"betting": ["fixed_limit", "no_limit"]})
    assert declared.supports("betting", "no_limit") and not declared.supports("betting", "pot_limit")


#: every case that names a late option, and every 10th of the others: for the engine that declares
#: `betting: [fixed_limit]`, whose only difference from the one that leaves `betting` out is that line
#: of its hello (the latter runs the whole suite)
SOME = [case for number, case in enumerate(CASES) if _late(case) or number % 10 == 0]


@pytest.mark.parametrize("declared", [None, ["fixed_limit"]], ids=["betting-absent", "fixed-limit-only"])
def test_a_fixed_limit_engine_gets_v1_messages_and_passes_what_it_passed(declared: list[str] | None) -> None:
    cases = CASES if declared is None else SOME
    engine = V1Server(declared)
    client = EngineClient(lambda: InProcessTransport(lambda: engine))
    client.start()
    runner = Runner(client)
    try:
        verdicts = {case.id: runner.run(case).outcome for case in cases}
    finally:
        client.stop()
    for case in cases:
        expected = Outcome.NOT_APPLICABLE if _late(case) else Outcome.PASS
        assert verdicts[case.id] is expected, case.id
    hands = [request for request in engine.requests if request["type"] == "new_hand"]
    assert len(hands) == sum(1 for case in cases if not _late(case)) > 50
    for request in hands:
        assert set(request) == V1_NEW_HAND
        assert set(request["options"]) == V1_OPTIONS, request["label"]
    entries = [entry for state in engine.states for entry in state["legal"]]
    assert entries and all(set(entry) <= V1_LEGAL for entry in entries)


def test_big_bet_options_go_out_only_to_an_engine_that_declared_them() -> None:
    case = next(case for case in CASES if case.options.get("betting") == "pot_limit")
    fixed = EngineInfo(name="v1", version="1", variants=("stud_high", "razz", "stud_hilo8", "five_card_stud"),
                       options={name: [value] for name, value in {"bring_in_tie": "suit", "first_actor_tie": "seat",
                                                                  "open_pair_double": True, "max_raises": 3,
                                                                  "heads_up": "capped", "burn_cards": True,
                                                                  "short_stub": "remake", "odd_chip": "best_five",
                                                                  "showdown_unbet": "first_actor", "rake_percent": 0,
                                                                  "rake_cap": 0}.items()})
    with pytest.raises(NotApplicable, match="betting=pot_limit"):
        choose_options(case, fixed)
    big = EngineInfo(name="big", version="1", variants=fixed.variants, options={**fixed.options, "betting": ["pot_limit"]})
    options = choose_options(case, big)
    assert options["betting"] == "pot_limit"
    assert new_hand_fields(case, options)["options"]["betting"] == "pot_limit"
    # A fixed-limit case still goes out without `betting` to an engine that plays both.
    plain = next(case for case in CASES if not case.options and case.new_hand is None)
    both = EngineInfo(name="both", version="1", variants=fixed.variants,
                      options={**fixed.options, "betting": ["fixed_limit", "pot_limit"]})
    assert set(choose_options(plain, both)) == V1_OPTIONS


def test_big_bet_cases_pass_on_the_reference_through_the_protocol() -> None:
    client = EngineClient(InProcessTransport)
    client.start()
    runner = Runner(client)
    try:
        verdicts = [runner.run(case) for case in CASES if _big_bet(case)]
    finally:
        client.stop()
    failed = [(verdict.case_id, verdict.message) for verdict in verdicts if verdict.outcome is not Outcome.PASS]
    assert not failed


@pytest.mark.parametrize(("declared", "ranges"), [(None, []), (["fixed_limit", "pot_limit"], ["4..9"]),
                                                  (["no_limit", "pot_limit"], ["4..9", "4..99"])])
def test_smoke_checks_a_range_only_for_the_structures_an_engine_declares(declared: list[str] | None,
                                                                         ranges: list[str]) -> None:
    from studcheck.harness.smoke import run_smoke

    engine = V1Server(declared)
    result = run_smoke(EngineClient(lambda: InProcessTransport(lambda: engine)), lambda text: None)
    assert result.ok
    assert [line.split("raise to ")[1].split(":")[0] for line in result.lines if "may raise to" in line] == ranges
    first = next(request for request in engine.requests if request.get("label") == "SMOKE-1")
    assert set(first["options"]) == V1_OPTIONS


def test_smoke_fails_an_engine_whose_range_is_wrong() -> None:
    from studcheck.harness.smoke import run_smoke

    class Narrow(V1Server):
        def handle(self, request: dict[str, Any]) -> dict[str, Any]:
            response = super().handle(request)
            for entry in (response.get("state") or {}).get("legal", []):
                if "max" in entry:
                    entry["max"] -= 1  # the pot counted without the bring-in, say
            return response

    result = run_smoke(EngineClient(lambda: InProcessTransport(lambda: Narrow(["pot_limit"]))), lambda text: None)
    assert not result.ok
    assert any(line.startswith("FAILED the next player may raise to 4..9") for line in result.lines)


def test_a_case_that_does_not_name_a_late_option_is_played_at_its_default_whatever_the_profile() -> None:
    from studcheck.rules import Betting, Options

    plain = next(case for case in CASES if not case.options and case.new_hand is None)
    everything = EngineInfo(name="ref", version="1", variants=("stud_high", "razz", "stud_hilo8"),
                            options=Server().handle({"type": "hello", "seq": 1, "protocol": 1, "harness": "t"})["options"])
    assert "betting" not in choose_options(plain, everything, Options(betting=Betting.NO_LIMIT))
    only_big = EngineInfo(name="big", version="1", variants=everything.variants,
                          options={**everything.options, "betting": ["pot_limit"]})
    with pytest.raises(NotApplicable, match="betting=fixed_limit"):
        choose_options(plain, only_big)


@pytest.mark.parametrize(("option", "value"), [("big_bet_bring_in", "forced"), ("rake_third_street", True)])
def test_later_late_options_go_out_only_off_their_default_and_only_to_engines_that_declared_them(
        option: str, value: Any) -> None:
    case = next(case for case in CASES if case.options.get(option) == value)
    everything = EngineInfo(name="ref", version="1", variants=("stud_high", "razz", "stud_hilo8", "five_card_stud"),
                            options=Server().handle({"type": "hello", "seq": 1, "protocol": 1, "harness": "t"})["options"])
    assert choose_options(case, everything)[option] == value
    without = EngineInfo(name="v1", version="1", variants=everything.variants,
                         options={name: values for name, values in everything.options.items() if name != option})
    assert without.supported_values(option) == [LATE_DEFAULTS[option]]
    with pytest.raises(NotApplicable, match=option):
        choose_options(case, without)
    # A case that does not name the option never sends it, even to an engine that declares both values.
    plain = next(case for case in CASES if not case.options and case.new_hand is None)
    assert option not in choose_options(plain, everything)
