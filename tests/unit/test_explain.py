"""The reference engine explains itself: every fact a case asserts carries the rule that decided it.

The coverage test replays every bundled case in process on `Server(explain=True)` (through the
harness's own Runner, so the requests are built exactly as for a real run) and asks, for each rule in
spec/rules.yaml, for one case citing that rule in which some asserted fact (an `expect` key, a
`reject`'s reason, the `final`) is explained with that rule first.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from studcheck.cards import parse_cards
from studcheck.cases.deck import build_deck
from studcheck.cases.load import load_cases, rule_index
from studcheck.cases.model import Case, StepKind
from studcheck.engine import Hand, explain, state
from studcheck.engine.explain import Notes, lookup
from studcheck.harness.blame import narrowed
from studcheck.harness.runner import Outcome, Runner
from studcheck.protocol.client import EngineClient, InProcessTransport
from studcheck.protocol.serve import Server
from studcheck.rules import Options, Variant

#: a mypyc-compiled engine (setup.py COMPILED_MODULES) allows no interpreted subclass of Hand and
#: calls explain.py's functions directly, past any patch of the module's attributes
COMPILED = not state.__file__ or not state.__file__.endswith(".py")

#: rules no bundled case can show explained first, each with its reason (none today: a new entry
#: must be argued here)
UNEXPLAINED: dict[str, str] = {}

Explained = tuple[dict[str, Any], dict[str, Any], dict[str, tuple[str, ...]]]


class Recording(Server):
    """The reference with explanations, keeping (request, answer, explanations) of every request."""

    def __init__(self) -> None:
        super().__init__(explain=True)
        self.log: list[Explained] = []

    def handle(self, request: Mapping[str, Any]) -> dict[str, Any]:
        response = super().handle(request)
        self.log.append((dict(request), response, dict(self.explanations)))
        return response


def _final_paths(final: Mapping[str, Any], prefix: str = "result") -> list[str]:
    """The fact paths a `final` (or an expected `result`) asserts, in compare.py's syntax."""
    paths: list[str] = []
    for key, value in final.items():
        path = f"{prefix}.{key}"
        paths.append(path)
        if key == "pots":
            for index, pot in enumerate(value):
                for name, part in pot.items():
                    paths.append(f"{path}[{index}].{name}")
                    if name in ("winners", "high", "low"):
                        paths += [f"{path}[{index}].{name}.{seat}" for seat in part]
        elif key in ("returned", "stacks"):
            paths += [f"{path}.{seat}" for seat in value]
    return paths


def _expect_paths(expect: Mapping[str, Any], facts: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The fact paths an `expect` step asserts; a legal list asserts each kind offered or explained absent."""
    paths: list[str] = []
    for key, value in expect.items():
        if key in ("stacks", "committed", "up", "down"):
            paths += [f"{key}.{seat}" for seat in value]
        elif key == "legal":
            paths += ["legal"] + [fact for fact in facts if fact.startswith("legal.")]
        elif key == "result":
            paths += _final_paths(value)
        else:
            paths.append(key)
    return paths


def replay(case: Case) -> tuple[Outcome, list[tuple[str, tuple[str, ...]]], list[Explained]]:
    """Run `case` on the explaining reference; every asserted fact with its explanation."""
    server = Recording()
    client = EngineClient(lambda: InProcessTransport(lambda: server), validate=False)
    verdict = Runner(client).run(case)
    log = [entry for entry in server.log if entry[0].get("type") != "hello"]
    seen: list[tuple[str, tuple[str, ...]]] = []
    if case.setup_refused is not None:
        return verdict.outcome, [(path, lookup(log[0][2], path)) for path in ("ok", "reason")], server.log
    position = 0
    current = log[0][2]
    for step in case.steps:
        if step.kind is StepKind.EXPECT:
            seen += [(path, lookup(current, path)) for path in _expect_paths(step.expect or {}, current)]
            continue
        position += 1
        if step.kind is StepKind.REJECT:  # the reason, and that the state did not change
            seen += [(path, lookup(log[position][2], path)) for path in ("reason", "state")]
            position += 1  # the state request that checks nothing changed
        current = log[position][2]
    if case.final:
        seen += [(path, lookup(current, path)) for path in _final_paths(case.final)]
    return verdict.outcome, seen, server.log


@pytest.fixture(scope="module")
def replays() -> dict[str, tuple[Case, Outcome, list[tuple[str, tuple[str, ...]]], list[Explained]]]:
    return {case.id: (case, *replay(case)) for case in load_cases()}


def test_every_rule_explains_a_fact_of_a_case_citing_it(replays: Mapping[str, Any]) -> None:
    first: dict[str, list[str]] = defaultdict(list)
    for case, _, seen, _ in replays.values():
        for path, rules in seen:
            if rules and rules[0] in case.rules:
                first[rules[0]].append(f"{case.id} {path}")
    unexplained = {rule for rule in rule_index() if not first.get(rule)}
    assert unexplained == set(UNEXPLAINED)
    assert len(first) == len(rule_index()) - len(UNEXPLAINED)


def test_explanations_name_only_rules_of_the_hands_variant(replays: Mapping[str, Any]) -> None:
    index = rule_index()
    wrong: set[tuple[str, str]] = set()
    named: set[str] = set()
    candidates: set[str] = set()
    for case, _, _, log in replays.values():
        for _, _, facts in log:
            for fact, rules in facts.items():
                if "|" in fact:  # `to_act|<rule>`: the seats a narrowing rule chose among (amounts: `lo..hi`), not rules
                    assert fact.split("|")[1] in index and all(re.fullmatch(r"\d+(\.\.\d+)?", value) for value in rules), (fact, rules)
                    candidates.add(fact)
                    continue
                named.update(rules)
                wrong |= {(case.variant.value, rule) for rule in rules if rule not in index or case.variant not in index[rule].variants}
    assert named and wrong == set() and candidates


def test_explanations_change_no_answer(replays: Mapping[str, Any]) -> None:
    assert {case_id for case_id, (_, outcome, _, _) in replays.items() if outcome is not Outcome.PASS} == set()
    for _, _, _, log in list(replays.values())[::10]:
        plain = Server()
        for request, response, _ in log:
            assert plain.handle(request) == response


def test_a_refusal_is_explained_with_action_refusal_last(replays: Mapping[str, Any]) -> None:
    refusals = [facts for _, _, _, log in replays.values() for _, response, facts in log if not response.get("ok")]
    assert refusals
    assert all(facts["reason"][-1] == "ACTION.REFUSAL" and facts["ok"] == facts["reason"] for facts in refusals)
    assert all(facts["to_act"] == ("ACTION.REFUSAL",) for facts in refusals if "state" in facts)


# --- scenarios from the rules text ----------------------------------------------------------------


def _new_hand(seat_cards: Mapping[int, str], *, variant: Variant = Variant.STUD_HIGH, stacks: int = 100,
              options: Mapping[str, Any] | None = None, stakes: Mapping[str, int] | None = None) -> dict[str, Any]:
    cards = {seat: tuple(parse_cards(text)) for seat, text in seat_cards.items()}
    opts = {**Options().to_json(), **(options or {})}
    deck = build_deck(cards, (), burn_cards=opts["burn_cards"], variant=variant)
    return {
        "type": "new_hand", "seq": 1, "variant": variant.value, "options": opts,
        "stakes": dict(stakes or {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10}),
        "seats": [{"seat": seat, "stack": stacks} for seat in seat_cards], "deck": [str(c) for c in deck], "remade_stub": None,
        "label": "explain",
    }


def _act(server: Server, seat: int, action: str, amount: int | None = None) -> dict[str, Any]:
    request: dict[str, Any] = {"type": "act", "seq": 2, "seat": seat, "action": action}
    if amount is not None:
        request["amount"] = amount
    return server.handle(request)


def test_everyone_calls_the_bring_in_the_round_ends_by_called_round_ends() -> None:
    # 04-bring-in.md, BRING-IN.CALLED-ROUND-ENDS: seat 2 brings in, 3 and 1 call: fourth street, no option.
    server = Server(explain=True)
    assert server.handle(_new_hand({1: "Ah Kh 9c 5d", 2: "Qd Jd 2c 6h", 3: "8s 7s 4d 3c"}))["ok"]
    assert server.explanations["to_act"][0] == "BRING-IN.CARD.LOW"
    _act(server, 2, "bring_in", 2)
    _act(server, 3, "call")
    state = _act(server, 1, "call")["state"]
    assert state["street"] == "fourth"
    assert server.explanations["street"] == ("BRING-IN.CALLED-ROUND-ENDS", "BET.ROUND-END")
    # the new street's first actor is this street's rules only (why the round ended is `street`'s)
    assert server.explanations["to_act"][0] == "BET.FIRST-ACTOR.HIGH"
    assert "BRING-IN.CALLED-ROUND-ENDS" not in server.explanations["to_act"]
    assert server.explanations["up.1"] == ("DEAL.BURN", "DEAL.STREETS")


def test_a_capped_round_explains_the_missing_raise_by_the_cap() -> None:
    # 05-betting.md, BET.CAP: a bet and max_raises (3) raises; then no raise is offered or accepted.
    server = Server(explain=True)
    server.handle(_new_hand({1: "Ah Kh 9c", 2: "Qd Jd 2c", 3: "8s 7s 4d"}))
    _act(server, 2, "bring_in", 2)
    for seat, action, amount in ((3, "complete", 5), (1, "raise", 10), (2, "raise", 15), (3, "raise", 20)):
        assert _act(server, seat, action, amount)["ok"]
    assert "raise" not in {entry["action"] for entry in server.handle({"type": "state", "seq": 3})["state"]["legal"]}
    assert server.explanations["legal.raise"] == ("BET.CAP", "BRING-IN.COMPLETION-NOT-RAISE")
    assert _act(server, 1, "raise", 25)["error"]["reason"] == "raise_cap_reached"
    assert server.explanations["reason"] == ("BET.CAP", "BRING-IN.COMPLETION-NOT-RAISE", "ACTION.REFUSAL")


def test_an_absence_is_explained_by_the_option_value_that_took_it_away() -> None:
    # 03-dealing.md, DEAL.BURN with burn_cards false: the fourth-street card comes without a burn.
    server = Server(explain=True)
    server.handle(_new_hand({1: "Ah Kh 9c 5d", 2: "Qd Jd 2c 6h", 3: "8s 7s 4d 3c"}, options={"burn_cards": False}))
    _act(server, 2, "bring_in", 2)
    _act(server, 3, "call")
    assert _act(server, 1, "call")["state"]["street"] == "fourth"
    assert server.explanations["up.1"] == ("DEAL.BURN", "DEAL.STREETS")
    # 05-betting.md, BET.CAP.HEADS-UP: two players under `capped`: the value in force kept the cap.
    server.handle(_new_hand({1: "Ah Kh 9c", 2: "Qd Jd 2c"}))
    _act(server, 2, "bring_in", 2)
    for seat, action, amount in ((1, "complete", 5), (2, "raise", 10), (1, "raise", 15), (2, "raise", 20)):
        assert _act(server, seat, action, amount)["ok"]
    assert server.explanations["legal.raise"] == ("BET.CAP.HEADS-UP", "BET.CAP", "BRING-IN.COMPLETION-NOT-RAISE")


def test_a_pot_nothing_was_raked_from_is_explained_by_the_rake_rules_for_less() -> None:
    # 12-rake.md: no rake (rake_percent 0), or none on third street (RAKE.NO-THIRD-STREET): the main
    # pot's amount is theirs when an engine shows less, POT.SIDE's when it shows more.
    for options, first in (({}, ("RAKE.PERCENT",)), ({"rake_percent": 5}, ("RAKE.NO-THIRD-STREET", "RAKE.PERCENT"))):
        server = Server(explain=True)
        server.handle(_new_hand({1: "Ah Kh 9c", 2: "Qd Jd 2c", 3: "8s 7s 4d"}, options=options))
        _act(server, 2, "bring_in", 2)
        _act(server, 3, "fold")
        result = _act(server, 1, "fold")["state"]["result"]
        amount, facts = result["pots"][0]["amount"], server.explanations
        rules = facts["result.pots[0].amount"]
        assert (result["rake"], rules) == (0, (*first, "POT.SIDE"))
        assert narrowed(facts, "result.pots[0].amount", rules, amount - 1) == rules
        assert narrowed(facts, "result.pots[0].amount", rules, amount + 1) == ("POT.SIDE",)


def test_the_wager_after_an_all_in_names_what_the_all_in_reopened() -> None:
    # 07-all-in.md, bring-in 1, small bet 5. ALLIN.HALF-BET.FULL: seat 3 all-in to 4 (2 x 4 >= 5) is
    # the completion: the next raise is to 9, and the bring-in, who acted, may raise again.
    stakes = {"ante": 1, "bring_in": 1, "small_bet": 5, "big_bet": 10}
    cards = {1: "Ah Kh 9c", 2: "Qd Jd 2c", 3: "8s 7s 4d", 4: "Ts 9s 6d"}
    server = Server(explain=True)
    request = _new_hand(cards, stakes=stakes)
    request["seats"][2]["stack"] = 5
    server.handle(request)
    _act(server, 2, "bring_in", 1)
    assert _act(server, 3, "complete", 4)["ok"]
    assert server.explanations["legal.raise"][0] == "ALLIN.HALF-BET.FULL"
    _act(server, 4, "call")
    _act(server, 1, "call")
    assert {"action": "raise", "amount": 9} in server.handle({"type": "state", "seq": 3})["state"]["legal"]
    assert server.explanations["legal.raise"][0] == "ALLIN.HALF-BET.FULL"
    # ALLIN.HALF-BET.SHORT: all-in to 2 (2 x 2 < 5): seat 4 completes to 5, the bring-in may only call.
    request["seats"][2]["stack"] = 3
    server.handle(request)
    _act(server, 2, "bring_in", 1)
    assert _act(server, 3, "complete", 2)["ok"]
    assert server.explanations["legal.complete"][0] == "ALLIN.HALF-BET.SHORT"
    _act(server, 4, "call")
    _act(server, 1, "call")
    assert server.explanations["legal.complete"] == ("ALLIN.HALF-BET.SHORT",)
    assert _act(server, 2, "complete", 5)["error"]["reason"] == "betting_not_reopened"
    assert server.explanations["reason"] == ("ALLIN.HALF-BET.SHORT", "ACTION.REFUSAL")


def test_a_first_actor_tie_broken_by_suit() -> None:
    # 06-first-to-act.md, BET.FIRST-ACTOR.TIE.SUIT: Kd 7c against Kh 7s: the Kh leads.
    server = Server(explain=True)
    server.handle(_new_hand({1: "2c 3c Kd 7c", 2: "2d 3d Kh 7s", 3: "4h 5h 2s 9d"}, options={"first_actor_tie": "suit"}))
    _act(server, 3, "bring_in", 2)
    _act(server, 1, "call")
    state = _act(server, 2, "call")["state"]
    assert (state["street"], state["to_act"]) == ("fourth", 2)
    assert server.explanations["to_act"][0] == "BET.FIRST-ACTOR.TIE.SUIT"


def test_a_tie_rule_records_the_seats_it_chose_among() -> None:
    # 04-bring-in.md, BRING-IN.TIE.SUIT: Razz doors Qd, Qs, 4c: the queens tie, the Qs (seat 2) brings
    # in. The tie rule leads, with the tied seats: an engine naming seat 3 did not break the tie rule.
    server = Server(explain=True)
    server.handle(_new_hand({1: "2c 3c Qd", 2: "2d 3d Qs", 3: "5h 6h 4c"}, variant=Variant.RAZZ))
    assert server.explanations["to_act"] == ("BRING-IN.TIE.SUIT", "BRING-IN.CARD.HIGH")
    assert server.explanations["to_act|BRING-IN.TIE.SUIT"] == ("1", "2")
    rules = server.explanations["to_act"]
    assert narrowed(server.explanations, "to_act", rules, 3) == ("BRING-IN.CARD.HIGH",)
    assert narrowed(server.explanations, "to_act", rules, 1) == rules
    _act(server, 2, "bring_in", 2)
    assert "to_act|BRING-IN.TIE.SUIT" not in server.explanations  # gone with the fact it narrowed


def test_refusals_name_the_rule_that_forbids_them_first() -> None:
    server = Server(explain=True)
    server.handle(_new_hand({1: "Ah Kh 9c", 2: "Qd Jd 2c", 3: "8s 7s 4d"}))
    assert _act(server, 1, "call")["error"]["reason"] == "out_of_turn"
    assert server.explanations["reason"] == ("BET.ORDER", "ACTION.REFUSAL")
    assert _act(server, 2, "fold")["error"]["reason"] == "illegal_action"
    assert server.explanations["reason"] == ("BRING-IN.CHOICE", "ACTION.REFUSAL")
    _act(server, 2, "bring_in", 2)
    assert _act(server, 3, "complete", 7)["error"]["reason"] == "invalid_amount"
    assert server.explanations["reason"][0] == "BRING-IN.FACING"
    _act(server, 3, "complete", 5)
    assert _act(server, 1, "check")["error"]["reason"] == "illegal_action"
    assert server.explanations["reason"] == ("BET.CHECK", "ACTION.REFUSAL")
    assert server.handle({"type": "new_hand", "seq": 9, "variant": "stud_high"})["ok"] is False
    assert server.explanations["ok"][-1] == "ACTION.REFUSAL"


@pytest.mark.skipif(COMPILED, reason="a compiled Hand allows no interpreted subclass")
def test_an_interpreted_subclass_of_hand_explains_too() -> None:
    class Sub(Hand):  # like tests/engines/bring_in_option.py: a Hand subclass in interpreted code
        pass

    server = Server(Sub, explain=True)
    assert server.handle(_new_hand({1: "Ah Kh 9c", 2: "Qd Jd 2c"}))["ok"]
    assert server.explanations["to_act"] == ("BRING-IN.CARD.LOW",)


def test_without_explain_nothing_is_collected() -> None:
    server = Server()
    server.handle(_new_hand({1: "Ah Kh 9c", 2: "Qd Jd 2c"}))
    assert server.explanations == {}


# --- lookup -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("result.pots[0].winners.3", ("W3",)),
        ("result.pots[0].winners.4", ("W",)),
        ("result.pots[0].amount", ("P0",)),
        ("result.pots[1].amount", ("P",)),
        ("result.rake", ("R",)),
        ("legal.raise", ("L",)),
        ("stacks.2", ()),
    ],
)
def test_lookup_falls_back_to_ever_shorter_prefixes(path: str, expected: Sequence[str]) -> None:
    notes = Notes()
    notes.add("result", "R")
    notes.add("result.pots", "P")
    notes.add("result.pots[0]", "P0")
    notes.add("result.pots[0].winners", "W")
    notes.add("result.pots[0].winners.3", "W3")
    notes.add("legal", "L")
    assert lookup(notes.facts(), path) == tuple(expected)


def test_notes_replace_and_clear_by_prefix() -> None:
    notes = Notes()
    notes.add("legal", "A")
    notes.add("legal.raise", "B", "C")
    notes.add("legal.raise", "D")
    notes.add("legality", "E")
    assert notes.facts()["legal.raise"] == ("D",)
    notes.clear_prefix("legal")
    assert notes.facts() == {"legality": ("E",)}


def test_a_hand_without_a_collector_records_nothing(monkeypatch: pytest.MonkeyPatch, replays: Mapping[str, Any]) -> None:
    # Every recording point is behind `if self._notes is not None`: count the calls that get through.
    if COMPILED:
        pytest.skip("compiled engine: its calls do not go through the module attributes patched here")
    calls: list[str] = []
    for name in [name for name in vars(explain) if name.startswith("note_") or name in ("refusal_of", "runout_rules")]:
        original = getattr(explain, name)
        monkeypatch.setattr(explain, name, lambda *args, _name=name, _original=original, **kw: calls.append(_name) or _original(*args, **kw))
    for _, _, _, log in list(replays.values())[:50]:
        plain = Server()
        for request, _, _ in log:
            plain.handle(request)
    assert calls == []
    explaining = Server(explain=True)
    for request, _, _ in next(iter(replays.values()))[3]:
        explaining.handle(request)
    assert calls  # the same patch sees the calls of a hand that has a collector


def test_three_deviations_of_a_third_party_engine_are_blamed_on_the_rules_they_break(replays: Mapping[str, Any]) -> None:
    """What PokerKit 0.7.7 does in three cases, each blamed on the rule the case's comment says it breaks."""
    def facts(case_id: str, index: int) -> dict[str, tuple[str, ...]]:
        log = [entry for entry in replays[case_id][3] if entry[0].get("type") != "hello"]
        return log[index][2]

    # SH-SHD-010 (08-showdown.md): the others mucked; the last contender wins without being asked
    # (SHOWDOWN.UNCONTESTED), so an engine still at the showdown, asking him, broke that rule
    assert lookup(facts("SH-SHD-010", -1), "street")[0] == "SHOWDOWN.UNCONTESTED"
    # SH-ANT-005 (02-antes.md): seat 1 antes its whole 3, seat 2 antes 5, stack 95; the 2 only seat 2
    # paid stays in until the end (ANTE.ALL-IN). Given back at the ante (97), that rule is broken;
    # a stack below 95 is a wrong ante (ANTE.DEAD)
    after_antes = facts("SH-ANT-005", 0)
    rules = lookup(after_antes, "stacks.2")
    assert rules == ("ANTE.ALL-IN", "ANTE.DEAD")
    assert narrowed(after_antes, "stacks.2", rules, 97) == rules
    assert narrowed(after_antes, "stacks.2", rules, 94) == ("ANTE.DEAD",)
    # SH-RAK-031 (09-pots.md, 12-rake.md): 1 chip left after the rake for two tied straights; it goes
    # to seat 2 (6s over 6h), seat 1 is not listed. Seat 1 listed with 0 breaks POT.NO-ZERO-SHARE;
    # given the chip, the odd-chip rule
    final = facts("SH-RAK-031", -1)
    path = "result.pots[0].winners.1"
    rules = lookup(final, path)
    assert rules[:2] == ("POT.NO-ZERO-SHARE", "POT.ODD-CHIP.WINNING-FIVE")
    assert narrowed(final, path, rules, 0)[0] == "POT.NO-ZERO-SHARE"
    assert narrowed(final, path, rules, 1)[0] == "POT.ODD-CHIP.WINNING-FIVE"
    assert lookup(final, "result.stacks.1")[0] == "POT.ODD-CHIP.WINNING-FIVE"
