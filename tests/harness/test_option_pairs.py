"""Every value of every option can lead a blame: for each option of spec/options.md and each ordered
pair (asked, played) of its values, an engine that declares only `asked` but plays `played` must
have its first cause blamed on one of that option's rules (spec/options.md, "Rules it changes").

The engine is the reference behind a proxy (`Proxy`): its hello declares every value of every
other option, as the reference does, and only `asked` for this one; its new_hand plays `played`
whatever the case asked for. Either direction matters: the value that adds something (a burn, a
rake, a raise past the cap) and the value that takes it away, whose absence must be explained by
the option value that removed it (engine/explain.py), not by the general rule.

Cost: each pair runs the proxy once over the cases that apply to it, in process, and only the
cases where it answers some request differently from the reference go through the Runner and
blame (test_blame.py's `verdicts` shortcut: a verdict is a function of the case and the answers'
bytes). A pair whose asked value is not the default is applicable to few cases.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import cache
from typing import Any

import pytest

from studcheck.cases.load import load_cases
from studcheck.cases.model import Case
from studcheck.harness.groups import Grouping, group_verdicts
from studcheck.harness.runner import NotApplicable, Runner, Verdict, choose_options
from studcheck.protocol.client import EngineClient, InProcessTransport
from studcheck.protocol.messages import EngineInfo, encode
from studcheck.protocol.serve import Server
from studcheck.rules import LATE_OPTIONS, option_values
from test_blame import Reference, _rules, _summary, record_reference, rule_ids, summary

#: the values paired for each option: every value, except for the open integers (rake_percent: none
#: and 5%; rake_cap: none and a cap of 2 chips, which a 5% rake of the bundled pots passes)
INTEGER_VALUES: dict[str, tuple[int, ...]] = {"rake_percent": (0, 5), "rake_cap": (0, 2)}


def changed_rules(option: str) -> set[str]:
    """Every rule spec/options.md's summary says the option changes: the rule IDs of its row (`BIGBET.*`
    expanded), those it turns off included, and for "the completion" the rules that name it (a
    fixed-limit rule, spec/rules/16-betting-structures.md)."""
    row = next(line for line in _summary().splitlines() if re.match(rf"\| `{option}`(?: \(late\))? \|", line))
    changes = row.strip().strip("|").split("|")[3]
    patterns = re.findall(r"`([A-Z][A-Z0-9.*-]+)`", changes)
    rules = {rule for rule in rule_ids() for pattern in patterns if fnmatch(rule, pattern)}
    if "the completion" in changes:
        rules |= {rule["id"] for rule in _rules() if "complet" in rule["title"].lower()}
    return rules


def values_of(option: str) -> tuple[Any, ...]:
    return INTEGER_VALUES.get(option) or tuple(option_values()[option])


PAIRS = [(option, asked, played) for option in option_values() for asked in values_of(option)
         for played in values_of(option) if asked != played]


class Proxy(Server):
    """The reference, declaring only `asked` for `option` and playing `played` in every hand."""

    def __init__(self, option: str, asked: Any, played: Any) -> None:
        super().__init__()
        self.option, self.asked, self.played = option, asked, played

    def _hello(self, seq: Any, request: Mapping[str, Any]) -> dict[str, Any]:
        answer = super()._hello(seq, request)
        answer["options"] = {**answer["options"], self.option: [self.asked]}
        return answer

    def _new_hand(self, seq: Any, request: Mapping[str, Any]) -> dict[str, Any]:
        options = {**request["options"], self.option: self.played}
        return super()._new_hand(seq, {**request, "options": options})


@cache
def reference() -> Reference:
    """The reference's run over the bundled suite (once per process: test_blame.py's too)."""
    return record_reference(load_cases())


@dataclass(frozen=True, kw_only=True)
class PairRun:
    applicable: int  # cases the proxy's hello lets run
    grouping: Grouping


def run_pair(option: str, asked: Any, played: Any, ref: Reference) -> PairRun:
    """The proxy's causes over the cases that apply to it."""
    proxy = Proxy(option, asked, played)
    info = EngineInfo.from_response(proxy.handle({**ref.hello[0]}))
    differing: list[Case] = []
    applicable = 0
    for case, _, exchanges in ref.runs:
        try:
            chosen = choose_options(case, info)
        except NotApplicable:
            continue
        applicable += 1
        if not answers_alike(proxy, exchanges, chosen):
            differing.append(case)
    client = EngineClient(lambda: InProcessTransport(lambda: Proxy(option, asked, played)), validate=False)
    client.start()
    try:
        runner = Runner(client)
        verdicts: list[Verdict] = [runner.run(case) for case in differing]
    finally:
        client.stop()
    return PairRun(applicable=applicable, grouping=group_verdicts(verdicts))


def answers_alike(server: Server, exchanges: Sequence[tuple[dict[str, Any], bytes]], chosen: Mapping[str, Any]) -> bool:
    """The server answers the reference's requests for a case, with the options the Runner would
    send this engine, with the reference's very bytes (so the Runner would pass it)."""
    for request, answer in exchanges:
        if request.get("type") == "new_hand":
            request = {**request, "options": dict(chosen)}
        try:
            if encode(server.handle(request)) != answer:
                return False
        except Exception:  # a crash differs: the Runner reports it
            return False
    return True


def first_blame(run: PairRun) -> str | None:
    groups = run.grouping.groups
    return groups[0].blame[0] if groups and groups[0].blame else None


@pytest.mark.parametrize(("option", "asked", "played"), PAIRS, ids=[f"{o}-{a}-as-{p}" for o, a, p in PAIRS])
def test_the_first_cause_is_one_of_the_options_rules(option: str, asked: Any, played: Any) -> None:
    run = run_pair(option, asked, played, reference())
    assert run.grouping.groups, (
        f"{option}: no bundled case tells {asked} (asked) from {played} (played) among the {run.applicable} "
        "that apply: add one (cases/README.md)")
    assert first_blame(run) in changed_rules(option), summary(run.grouping)


def test_every_option_is_paired() -> None:
    assert {option for option, _, _ in PAIRS} == set(option_values())
    assert set(LATE_OPTIONS) <= {option for option, _, _ in PAIRS}
    assert len(PAIRS) == 36


def test_the_rules_an_option_changes_are_read() -> None:
    assert changed_rules("heads_up") == {"BET.CAP.HEADS-UP"}
    assert changed_rules("rake_cap") == {"RAKE.PERCENT"}
    betting = changed_rules("betting")
    assert {"BIGBET.POT-MAX", "BET.LIMITS", "BET.CAP.HEADS-UP", "ALLIN.HALF-BET.FULL", "BRING-IN.CHOICE"} <= betting
    assert not betting & {"BET.ORDER", "BET.CHECK", "ALLIN.CALL-SHORT", "BRING-IN.CARD.LOW"}


def test_a_rake_taken_where_none_is_due_is_blamed_on_the_rake_rules_in_every_cause() -> None:
    """Not only the first cause: the cases that assert only the final stacks of a hand won without a
    showdown too (a winner short by less than the pot; they were blamed on SHOWDOWN.UNCONTESTED)."""
    run = run_pair("rake_percent", 0, 5, reference())
    blamed = {group.blame[0] if group.blame else None for group in run.grouping.groups}
    assert blamed and blamed <= changed_rules("rake_percent"), summary(run.grouping)
