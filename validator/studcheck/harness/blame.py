"""Blame: the rule a failing case breaks, named by the reference engine's own explanation.

A case cites the rules it was written to test, not the rule an engine broke on the way: a hand
where the bring-in wrongly gets an option fails a burn-card case, a refusal case and a first-actor
case alike. So the rule is not read from the case. The case's transcript is replayed on the
reference engine with explanations on (`Server(explain=True)`), and the first fact that differs
decides, in this order:

1. an answer whose street, turn, community card or up/down cards differ from the reference's (the
   hand went another way there: groups.py's path divergence) -> the rules the reference gives for
   that fact (`street`, `to_act`, `community`, `up.<seat>`, `down.<seat>`);
2. a request the two answer differently: a legal action the engine refused -> why the reference
   offered it (`legal.<kind>` of the state before); an action the engine accepted that the rules
   refuse, or refused for another reason -> why the reference refused it (`reason`);
3. else the case's own failing step: the fact its main mismatch names (`legal.<kind>`, `stacks.3`,
   `result.pots[0].winners.3`, ...; a Hi-Lo half whose total differs is the half,
   `result.pots[0].high`: how the pot was split) in the reference's explanation of the last answer; a refused
   action that changed the state breaks ACTION.REFUSAL (a refusal changes nothing), whatever the
   refusal's own reason (`ok`, which follows it).

A rule that only narrows a choice leads its fact's explanation (BRING-IN.TIE.SUIT before
BRING-IN.CARD.HIGH), but it is not what an engine broke whose value is not even among the
candidates it chose from: explain.py records them as `<fact>|<rule>` (`to_act|BRING-IN.TIE.SUIT`
-> the seats the card rule leaves), and such a leading rule is dropped (`narrowed`). When only the
top of a pot- or no-limit range differs, the fact is `legal.<kind>.max` (what capped the range).

A verdict of the evaluation profile carries its blame already: the harness named the rule from the
smallest disagreeing pair while it still had the engine (spec/evaluation.md section 4).

Engine and protocol errors are no rule's: their blame is empty. So is a case the reference cannot
replay (its blame then rests on nothing the reference said, and studcheck never guesses one).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from studcheck.engine.explain import among, lookup
from studcheck.harness.compare import Mismatch, compare_state, legal_text
from studcheck.harness.runner import Outcome, Verdict
from studcheck.protocol.serve import Server

#: fields that decide the hand's path (which actions are accepted, who wins): a difference there
#: explains what follows
PATH_FIELDS = ("street", "to_act", "community")
CARD_FIELDS = ("up", "down")

Facts = Mapping[str, tuple[str, ...]]
#: the rule a refused action that changed the state breaks ("a refused action has a reason code and
#: changes nothing"); why the action was refused follows it
REFUSAL_CHANGES_NOTHING = "ACTION.REFUSAL"


@dataclass(frozen=True, kw_only=True)
class Replayed:
    """What the replay on the reference found: the earlier path divergence (None: the case's own
    failing step is the first difference) and the rules that explain the first differing fact."""

    earlier: tuple[Mismatch, ...] | None
    blame: tuple[str, ...]


def failed_like(verdict: Verdict) -> Outcome:
    """fail or error, also for an expected failure (an xfail keeps the problem of its error)."""
    if verdict.outcome is Outcome.XFAIL:
        return Outcome.ERROR if verdict.problem is not None else Outcome.FAIL
    return verdict.outcome


def replay(verdict: Verdict, step_mismatch: Mismatch | None) -> Replayed:
    """Replay the case's requests on the explaining reference; `step_mismatch` is the case's main
    mismatch (the fact its failing step names), used when nothing differs earlier."""
    if failed_like(verdict) is not Outcome.FAIL or not verdict.transcript:
        return Replayed(earlier=None, blame=())
    if verdict.blame is not None:  # named when the verdict was given (the evaluation profile's pair)
        return Replayed(earlier=None, blame=verdict.blame)
    reference = Server(explain=True)
    state_facts: Facts = {}  # the explanation of the last answer that carried a state
    refusal_facts: Facts = {}  # the explanation of the last refusal
    for entry in verdict.transcript:
        request, answer = entry.get("request"), entry.get("response")
        if not isinstance(request, Mapping) or not isinstance(answer, Mapping):
            return Replayed(earlier=None, blame=())
        try:
            expected = reference.handle(request)
        except Exception:  # the reference cannot replay this: no blame rather than a guess
            return Replayed(earlier=None, blame=())
        facts = dict(reference.explanations)
        if expected.get("ok") is True and answer.get("ok") is False:  # a legal request refused
            if request.get("type") == "act":
                return Replayed(earlier=None, blame=lookup(state_facts, f"legal.{request.get('action')}"))
            return Replayed(earlier=None, blame=lookup(facts, "ok"))
        if expected.get("ok") is False and answer.get("ok") is True:  # accepted, must be refused
            return Replayed(earlier=None, blame=lookup(facts, "reason"))
        if expected.get("ok") is False:
            if _reason(expected) != _reason(answer):
                return Replayed(earlier=None, blame=lookup(facts, "reason"))
            refusal_facts = facts
            continue  # refused alike: the state stays the last one explained
        if not isinstance(expected.get("state"), Mapping) or not isinstance(answer.get("state"), Mapping):
            continue
        found = compare_state(path_of(expected["state"]), answer["state"])
        if found:
            return Replayed(earlier=tuple(found), blame=explained(facts, found))
        state_facts = facts
    if step_mismatch is None:
        return Replayed(earlier=None, blame=())
    if verdict.step_text and verdict.step_text.startswith("reject") and step_mismatch.path not in ("ok", "reason"):
        why = lookup(refusal_facts, "ok")  # a refused action changed the state
        return Replayed(earlier=None, blame=(REFUSAL_CHANGES_NOTHING, *(rule for rule in why if rule != REFUSAL_CHANGES_NOTHING)))
    path = half_fact(fact_of(step_mismatch), verdict.mismatches)
    return Replayed(earlier=None, blame=narrowed(state_facts, path, lookup(state_facts, path), step_mismatch.actual))


_SHARE = re.compile(r"(result\.pots\[\d+\]\.(?:high|low))\.\d+")


def half_fact(path: str, mismatches: Sequence[Mismatch]) -> str:
    """A Hi-Lo share (`result.pots[0].high.3`) whose half holds another total than the reference's
    is the half's fact (`result.pots[0].high`: how the pot was split between the halves, HILO.SPLIT
    or HILO.NO-LOW); a half of the right total shared otherwise is the seat's (quartering, odd chip)."""
    match = _SHARE.fullmatch(path)
    if match is None:
        return path
    half = match.group(1) + "."
    delta = sum(_chips(m.actual) - _chips(m.expected) for m in mismatches if m.path.startswith(half))
    return match.group(1) if delta else path


def _chips(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def explained(facts: Facts, found: Sequence[Mismatch]) -> tuple[str, ...]:
    """The rules of the fact that explains the most among `found` (`fact_path`), less the leading
    narrowing rules the engine's own value rules out (`narrowed`)."""
    path = fact_path(found)
    actual = next((m.actual for m in found if m.path == path), None)
    return narrowed(facts, path, lookup(facts, path), actual)


def narrowed(facts: Facts, path: str, rules: tuple[str, ...], actual: Any) -> tuple[str, ...]:
    """Drop a leading rule that only narrows a choice (a tie rule, the all-in or folded detail) or
    names the option value that took something away (no rake) when the engine's value is not among
    the candidates it allows (`<path>|<rule>`, explain.py; `lo..hi` a range): an engine that is not
    choosing among them broke the rule that made the candidates."""
    while len(rules) > 1:
        candidates = facts.get(f"{path}|{rules[0]}")
        if candidates is None or among(actual, candidates):
            break
        rules = rules[1:]
    return rules


def _reason(answer: Mapping[str, Any]) -> Any:
    error = answer.get("error")
    return error.get("reason") if isinstance(error, Mapping) else None


def path_of(state: Mapping[str, Any]) -> dict[str, Any]:
    """The reference state's path fields as an `expect` step would name them."""
    rows = [row for row in state.get("seats") or [] if isinstance(row, Mapping)]
    path = {name: state.get(name) for name in PATH_FIELDS}
    path.update({name: {str(row.get("seat")): row.get(name) for row in rows} for name in CARD_FIELDS})
    return path


def fact_path(found: Sequence[Mismatch]) -> str:
    """The path fact that explains the most among differing ones: street, then cards, then the turn."""
    order = ("street", "up.", "down.", "community", "to_act")
    ranked = sorted(found, key=lambda m: next((i for i, p in enumerate(order) if m.path.startswith(p)), len(order)))
    return fact_of(ranked[0])


def fact_of(mismatch: Mismatch) -> str:
    """The explanation key for a mismatch: its path, a legal list narrowed to the first action kind
    that is missing, extra or listed at another amount (`legal.check`), a list or object (`result.pots`)
    to its first differing entry (`result.pots[0].eligible`)."""
    if mismatch.path == "legal" and isinstance(mismatch.expected, list) and isinstance(mismatch.actual, list):
        want = {legal_text(entry) for entry in mismatch.expected}
        got = {legal_text(entry) for entry in mismatch.actual}
        differing = [text.split()[0] for text in [*map(legal_text, mismatch.expected), *map(legal_text, mismatch.actual)]
                     if (text in want) != (text in got)]
        if differing:
            kind = differing[0]
            return f"legal.{kind}.max" if _only_max_differs(kind, want, got) else f"legal.{kind}"
    return _first_difference(mismatch.path, mismatch.expected, mismatch.actual)


def _bounds(kind: str, texts: set[str]) -> list[tuple[str, str]]:
    """The (min, max) of each range entry `kind min..max` among legal texts."""
    found = []
    for text in texts:
        words = text.split()
        if len(words) == 2 and words[0] == kind and ".." in words[1]:
            low, _, high = words[1].partition("..")
            found.append((low, high))
    return found


def _only_max_differs(kind: str, want: set[str], got: set[str]) -> bool:
    """One range of `kind` on each side, the same bottom, another top: the fact is the top
    (`legal.<kind>.max`, explain.py: what capped the range)."""
    expected, actual = _bounds(kind, want), _bounds(kind, got)
    return len(expected) == len(actual) == 1 and expected[0][0] == actual[0][0] and expected[0][1] != actual[0][1]


def _first_eligible_difference(expected: list[Any], actual: list[Any]) -> int | None:
    """The first pot whose eligible seats differ (a pot missing on one side counts), for pot lists."""
    if not all(isinstance(pot, Mapping) and "eligible" in pot for pot in [*expected, *actual]):
        return None
    for index in range(max(len(expected), len(actual))):
        want = expected[index]["eligible"] if index < len(expected) else None
        got = actual[index]["eligible"] if index < len(actual) else None
        if want != got:
            return index if index < len(expected) else None
    return None


def _first_difference(path: str, expected: Any, actual: Any) -> str:
    """The path of the first differing entry; in a pot, who is eligible before the amount (it decides it)."""
    if isinstance(expected, list) and isinstance(actual, list):
        eligible = _first_eligible_difference(expected, actual)  # a pot missing or extra: who is in it
        if eligible is not None:
            return f"{path}[{eligible}].eligible"
        index = next((i for i, (want, got) in enumerate(zip(expected, actual)) if want != got), None)
        if index is None or not isinstance(expected[index], (list, Mapping)):  # a list of seats or cards is one fact
            return path
        return _first_difference(f"{path}[{index}]", expected[index], actual[index])
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        keys = sorted(expected, key=lambda key: key != "eligible")
        key = next((key for key in keys if expected.get(key) != actual.get(key)), None)
        if key is None:
            return path
        if key in HALVES and _total(expected[key]) != _total(actual.get(key)):
            return f"{path}.{key}"  # a half of another size: how the pot was split, not one seat's share
        return _first_difference(f"{path}.{key}", expected[key], actual.get(key))
    return path


#: a Hi-Lo pot's halves (`result.pots[<i>].high|low`): seat -> chips
HALVES = ("high", "low")


def _total(half: Any) -> int | None:
    """The chips of a half (None: not a seat -> chips mapping)."""
    if not isinstance(half, Mapping) or not all(isinstance(chips, int) for chips in half.values()):
        return None
    return sum(half.values())
