"""Run an evaluation case on an engine of the evaluation profile (spec/evaluation.md).

One `evaluate` request carries the whole case; the answer's values are checked for order and ties
(evaluation/order.py). On a disagreement the runner, which still has the engine, makes the pair
as small as the engine's answers allow: it asks about the pair alone, then about the pair with one
card dropped from either hand, as long as some such pair still disagrees, and finally about the two
hands' best fives. The verdict then shows that pair, and the rule the reference explains it with
(evaluation/explain.py) is its blame. Engine misbehaviour is an `error`, as for hand cases.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from studcheck.cards import Card, format_cards
from studcheck.evaluation.explain import best_five, describe, explain
from studcheck.evaluation.kinds import SPECS, Kind, reference_key
from studcheck.evaluation.model import EvaluationCase
from studcheck.evaluation.order import Better, Disagreement, Qualifier, Relation, first_disagreement
from studcheck.harness.compare import Mismatch
from studcheck.harness.runner import AFTER_CASE_WAIT, AFTER_RUN_WAIT, NOT_RUN, CaseFailed, Outcome, Runner, Verdict, display_path
from studcheck.protocol.client import EngineError, Problem, Stopped
from studcheck.protocol.messages import Profile, RequestType

#: a batch at most this large is kept whole in a failing verdict's transcript; a larger one is summarised
TRANSCRIPT_ITEMS = 64
#: shrinking rounds at most (each drops one card: 7 + 7 cards reach 5 + 5 in four)
SHRINK_ROUNDS = 8

Hand = tuple[Card, ...]
Pair = tuple[Hand, Hand]
#: the kinds whose items are a player's cards, 5 to 7: a pair of them shrinks card by card
HANDS = frozenset({Kind.HIGH, Kind.RAZZ, Kind.LOW8})


@dataclass(frozen=True, kw_only=True)
class Found:
    """A disagreeing pair, the item the rules choose first (or the first of a tie) first."""

    pair: Pair
    disagreement: Disagreement
    values: tuple[Any, Any]  # the engine's values for the two, as evidence


class EvaluationRunner(Runner):
    """Runs evaluation cases one after another on one engine client (restarting it after an error).

    `last_items`: the smallest disagreeing items of the last failing case (a pair, or one low8 hand),
    for the fuzzer to write as a case."""

    last_items: tuple[Hand, ...] = ()

    def run(self, case: Any, *, last: bool = False) -> Verdict:
        assert isinstance(case, EvaluationCase)
        started = time.perf_counter()
        base = Verdict(case_id=case.id, outcome=Outcome.PASS, variant=case.kind.value,
                       file=str(case.path) if case.generated else display_path(case.path), line=case.line,
                       title=case.title, tags=case.tags, rules=case.rules)
        verdict = self._evaluate(case, base)
        if verdict.problem is None and self.client.running:
            verdict = self._after_case(case, verdict, AFTER_RUN_WAIT if last else AFTER_CASE_WAIT)
        self._previous = case.id
        return verdict.with_changes(duration=time.perf_counter() - started)

    def _not_run(self, case: Any, base: Verdict, exc: Stopped) -> Verdict:
        self._stopped = exc
        if self.client.running:
            self.client.stop(polite=False)
        return base.with_changes(outcome=Outcome.ERROR, step_text=NOT_RUN, message=f"not run: {exc.message}",
                                 problem=exc.problem.value)

    def _evaluate(self, case: EvaluationCase, base: Verdict) -> Verdict:
        unready = self._unready(case, base)
        if unready is not None:
            return unready
        info = self.client.info
        assert info is not None
        if info.profile is not Profile.EVALUATION:
            return base.with_changes(outcome=Outcome.NOT_APPLICABLE,
                                     message="the engine speaks the hands profile, not evaluation (its hello has no `profile`)")
        better = info.kinds.get(case.kind.value)
        if better not in (Better.HIGHER.value, Better.LOWER.value):
            return base.with_changes(outcome=Outcome.NOT_APPLICABLE, message=f"the engine does not evaluate {case.kind.value}")
        self.client.transcript = []
        self.client.mark_stderr()
        step_text = f"expect the order of {len(case.items)} {case.kind.value} items"
        try:
            values = self._values(case.kind, case.items, hands=case.hands)
            found = first_disagreement(case.kind, case.keys, values, Better(better), classes=case.classes)
            if found is None:
                return base
            return self._failed_pair(case, base.with_changes(step_text=step_text), found, values, Better(better))
        except CaseFailed as exc:
            return base.with_changes(outcome=Outcome.FAIL, step_text=step_text, message=exc.message,
                                     mismatches=exc.mismatches, transcript=self._kept(), blame=(),
                                     stderr=self.client.stderr_tail() if self.client.running else "")
        except Stopped as exc:
            return self._stop(base, exc)
        except EngineError as exc:
            verdict = self._error(base, exc).with_changes(transcript=self._kept())
            self._restart()
            return verdict

    def _values(self, kind: Kind, items: Sequence[Hand], *, hands: list[list[str]] | None = None) -> list[Any]:
        """The engine's values for one batch (`hands`: the items as text, if the caller has them); a
        refusal is a failure (the kind was declared), a wrong count of values a protocol error."""
        if hands is None:
            hands = [[str(card) for card in item] for item in items]
        response = self.client.request(RequestType.EVALUATE, {"kind": kind.value, "hands": hands})
        if not response["ok"]:
            error = response["error"]
            raise CaseFailed(f"the engine refused to evaluate {len(items)} {kind.value} item{'s' if len(items) != 1 else ''} "
                             f"({error['reason']}: {error['message']})", [Mismatch(path="ok", expected=True, actual=False)])
        values: list[Any] = response["values"]
        if len(values) != len(items):
            raise EngineError(Problem.BAD_RESPONSE, f"the engine answered {len(values)} values for {len(items)} items")
        return values

    def _failed_pair(self, case: EvaluationCase, base: Verdict, found: Disagreement, values: list[Any],
                     better: Better) -> Verdict:
        kind = case.kind
        line = case.item_lines[found.first]
        first = case.items[found.first]
        second: Hand | None = None
        evidence: tuple[Any, Any] = (values[found.first], None)
        best_fives_agree: bool | None = None
        if found.second is not None:
            pair = Found(pair=(first, case.items[found.second]), disagreement=found,
                         values=(values[found.first], values[found.second]))
            if self.client.running:
                pair = self._shrink(kind, pair, better)
            (first, second), found, evidence = pair.pair, pair.disagreement, pair.values
            if self.client.running:
                best_fives_agree = self._best_fives_agree(kind, first, second, better)
        elif self.client.running:
            first, evidence = self._shrink_single(kind, first, found, evidence, better)
        self.last_items = (first,) if second is None else (first, second)
        explanation = explain(kind, first, second, found, best_fives_agree=best_fives_agree)
        message = _message(kind, first, second, found, evidence, explanation.aspect)
        return base.with_changes(outcome=Outcome.FAIL, line=line, message=message,
                                 mismatches=(Mismatch(path=found.path, expected=found.expected.value, actual=_actual(found)),),
                                 transcript=self._kept(), blame=explanation.rules,
                                 stderr=self.client.stderr_tail() if self.client.running else "")

    def _ask(self, kind: Kind, pairs: Sequence[Pair], better: Better) -> list[Found | None]:
        """Each pair's disagreement, first item first (None: the engine agrees, or only a qualifier
        differs), from one batch of all the pairs' hands."""
        values = self._values(kind, [hand for pair in pairs for hand in pair])
        answers: list[Found | None] = []
        for index, (a, b) in enumerate(pairs):
            got = values[2 * index], values[2 * index + 1]
            found = first_disagreement(kind, [reference_key(kind, a), reference_key(kind, b)], list(got), better)
            if found is None or found.second is None:
                answers.append(None)
            elif found.first == 0:
                answers.append(Found(pair=(a, b), disagreement=_reindexed(found), values=got))
            else:
                answers.append(Found(pair=(b, a), disagreement=_reindexed(found), values=(got[1], got[0])))
        return answers

    def _shrink(self, kind: Kind, found: Found, better: Better) -> Found:
        """The smallest pair, dropping one card at a time while the engine still disagrees; what it
        refuses, or a pair it agrees on alone (its values depended on the batch), ends the search."""
        try:
            (alone,) = self._ask(kind, [found.pair], better)
            if alone is None:
                return found
            found = alone
            if kind not in HANDS:
                return found
            fewest = SPECS[kind].cards[0]
            for _ in range(SHRINK_ROUNDS):
                smaller = _dropped(found.pair, fewest)
                hit = next((answer for answer in self._ask(kind, smaller, better) if answer is not None), None) if smaller else None
                if hit is None:
                    break
                found = hit
            return found
        except (CaseFailed, EngineError):
            if not self.client.running:
                raise
            return found

    def _shrink_single(self, kind: Kind, hand: Hand, found: Disagreement, evidence: tuple[Any, Any],
                       better: Better) -> tuple[Hand, tuple[Any, Any]]:
        """A low8 hand whose qualifier the engine gets wrong, with cards dropped while it still does."""
        try:
            for _ in range(SHRINK_ROUNDS):
                smaller = [hand[:index] + hand[index + 1:] for index in range(len(hand))] if len(hand) > 5 else []
                if not smaller:
                    break
                values = self._values(kind, smaller)
                keys = [reference_key(kind, item) for item in smaller]
                hit = next((index for index, (key, value) in enumerate(zip(keys, values))
                            if (key == (0,)) is (found.expected is Qualifier.NO_LOW) and (value is None) is (found.actual is Qualifier.NO_LOW)),
                           None)
                if hit is None:
                    break
                hand, evidence = smaller[hit], (values[hit], None)
        except (CaseFailed, EngineError):
            if not self.client.running:
                raise
        return hand, evidence

    def _best_fives_agree(self, kind: Kind, first: Hand, second: Hand, better: Better) -> bool | None:
        """Whether the engine ranks the two hands' best fives as the rules do (None: not asked: both
        are five cards already, a hand has no qualifying low, or the engine refused)."""
        if kind not in (Kind.HIGH, Kind.RAZZ, Kind.LOW8) or (len(first) == 5 and len(second) == 5):
            return None
        fives = best_five(kind, first), best_five(kind, second)
        if fives[0] is None or fives[1] is None:
            return None
        try:
            (answer,) = self._ask(kind, [(fives[0], fives[1])], better)
        except CaseFailed:
            return None
        return answer is None

    def _kept(self) -> tuple[dict[str, Any], ...]:
        """The transcript, each batch larger than TRANSCRIPT_ITEMS summarised (a report holds evidence, not
        the exhaustive batch); the smallest exchanges, the shrinking's, stay whole."""
        kept = []
        for entry in self.client.transcript:
            request = entry.get("request") or {}
            hands = request.get("hands")
            if isinstance(hands, list) and len(hands) > TRANSCRIPT_ITEMS:
                entry = {"request": {**request, "hands": f"{len(hands)} items (left out of the report)"},
                         "response": _summary(entry.get("response"))}
            kept.append(entry)
        return tuple(kept)


def _summary(response: Any) -> Any:
    if isinstance(response, dict) and isinstance(response.get("values"), list):
        return {**response, "values": f"{len(response['values'])} values (left out of the report)"}
    return response


def _dropped(pair: Pair, fewest: int) -> list[Pair]:
    """Every pair with one card fewer in one hand (never below the kind's fewest cards)."""
    out: list[Pair] = []
    for side in (0, 1):
        hand = pair[side]
        if len(hand) <= fewest:
            continue
        for index in range(len(hand)):
            smaller = hand[:index] + hand[index + 1:]
            out.append((smaller, pair[1]) if side == 0 else (pair[0], smaller))
    return out


def _reindexed(found: Disagreement) -> Disagreement:
    return Disagreement(first=0, second=1, expected=found.expected, actual=found.actual)


def _message(kind: Kind, first: Hand, second: Hand | None, found: Disagreement, evidence: tuple[Any, Any], aspect: str) -> str:
    """What the rules say of the pair and what the engine's values said, in words a reader can check."""
    a = f"{format_cards(first)} ({describe(kind, first)})"
    if second is None:
        says = "has no qualifying low" if found.expected is Qualifier.NO_LOW else "has a qualifying low"
        value = "null" if evidence[0] is None else _value(evidence[0])
        return f"the rules say {a} {says}; the engine's value {value} says {found.actual.value} (decided by: {aspect})"
    b = f"{format_cards(second)} ({describe(kind, second)})"
    if found.expected is Relation.TIE:
        rules = f"the rules tie {a} and {b}"
    else:
        rules = f"the rules choose {a} before {b} ({SPECS[kind].chooses})"
    engine = {Relation.ABOVE: f"choose {format_cards(first)} first", Relation.TIE: "tie them",
              Relation.BELOW: f"choose {format_cards(second)} first"}[Relation(found.actual)]
    return f"{rules}; the engine's values ({_value(evidence[0])}, {_value(evidence[1])}) {engine} (decided by: {aspect})"


def _actual(found: Disagreement) -> str:
    """Two hands the rules tie are "apart" in the engine's values, whichever it put first (the batch's
    order decides that): one cause, not two."""
    return "apart" if found.expected is Relation.TIE else found.actual.value


def _value(value: Any) -> str:
    return "null" if value is None else json.dumps(value)
