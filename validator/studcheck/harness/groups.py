"""Failing cases grouped by their first divergence, so one early deviation reads as one cause.

An engine that gets one early rule wrong (say, the bring-in gets an option when everyone calls)
fails every case that passes through that spot, each at a different step with different seats and
amounts. The group key says what went wrong without the case-specific parts:

- the kind of divergence (`Cause`): a state or the end of the hand differs, a legal action was
  refused, an action that must be refused was accepted or refused for the wrong reason, a refused
  action changed the state, or the engine broke the protocol;
- the differing field, indexes and seats dropped (`pots[1].amount` -> `pots[].amount`,
  `result.pots[0].winners.3` -> `result.pots[].winners.*`); of several, the one that explains the
  most (street, then the cards, then whose turn, then the legal actions, else the case's first);
- the shape of expected against actual, with the numbers that vary from case to case taken out
  (seats and chip amounts become N, an off-by-one stays N+1, cards become "other cards"), but the
  values that name the cause kept (streets, reasons, action names).

A refused action is usually not the first divergence: the engine went another way earlier and the
case only noticed when its next action was refused. So a failing case's transcript is replayed on
the reference engine (the same requests, in process), and the first answer whose street, turn or
cards differ from the reference's is the divergence, when it comes before the one the case
reported. Only these count: they decide the hand's path (which actions are accepted, who wins), so
a difference there explains what follows; a wrong chip count or legal list changes no path, and
counting it would file unrelated failures under a harmless early difference.

The same replay, on the reference with its explanations (harness/blame.py), names the rule the
first differing fact breaks: the case's `blame`. A group is one divergence AND one blamed rule, so
two broken rules that happen to show the same way are never merged, and each group leads with its
rule; the rules the cases cite are only context. Expected failures (xfail) are grouped the same way,
apart from the failures.

One fix, one entry: groups that blame the same rule with the same kind of divergence on the same
field, and differ only in where the same wrong answer showed (the street, the request: `check` or
`call` refused for the same wrong reason; the hand left on `fourth` or on `sixth` street where the
rules end it), are one cause with several `ways` it showed, each kept with its cases. Seats and
amounts are already out of the key. A cause's example is the quickest case that cites its blamed
rule, when one does: it shows the rule at work.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from studcheck.harness.blame import failed_like, replay
from studcheck.harness.compare import Mismatch, legal_text
from studcheck.harness.runner import Outcome, Verdict

#: outcomes that are grouped: the ones a divergence explains
GROUPED = frozenset({Outcome.FAIL, Outcome.ERROR})
#: errors that are the run's, not the engine's (a signal or --deadline stopped it): no cause of failure
STOPPED_PROBLEMS = frozenset({"interrupted", "deadline"})
#: a differing field explains more the earlier it is here; the rest keep the case's order. At the
#: end of a hand the rake decides the pots' amounts, and the amounts what each winner gets.
PRIORITY = ("ok", "reason", "street", "up.*", "down.*", "community", "to_act", "legal",
            "result.rake", "result.pots", "result.pots[].amount", "result.pots[].eligible", "result.returned.*")
SEAT_FIELDS = frozenset({"to_act", "folded", "all_in", "shown", "mucked", "pots[].eligible", "result.showdown_order"})
#: refusal reasons about the turn or the hand, not the action: the action is left out of the key
TURN_REASONS = frozenset({"out_of_turn", "hand_over", "unknown_seat", "no_hand"})
_CARD = re.compile(r"^(?:[2-9TJQKA][cdhs])$")
#: the betting streets, in order, as a shape quotes them: where a wrong answer showed, not what it was
STREETS = ("second", "third", "fourth", "fifth", "sixth", "seventh")
_STREET = re.compile(r"'(" + "|".join(STREETS) + r")'")


class Cause(str, Enum):
    """What kind of divergence a failing case showed first."""

    STATE = "state"  # the state differs from the case (or from the reference, first)
    FINAL = "final"  # the end of the hand differs
    REFUSED = "refused"  # a legal action or a valid setup was refused
    ACCEPTED = "accepted"  # an action or a setup the rules forbid was accepted
    WRONG_REASON = "wrong_reason"  # refused, but for another reason than the rules give
    CHANGED = "changed"  # a refused action changed the state
    ERROR = "error"  # the engine broke the protocol


@dataclass(frozen=True, kw_only=True)
class Divergence:
    """One case's first divergence with the case-specific parts taken out: the group key."""

    cause: Cause
    field: str
    shape: str
    action: str | None = None  # the refused or accepted action (None: not part of the cause)

    @property
    def key(self) -> str:
        return _KEY_FORMS[self.cause](self)

    @property
    def text(self) -> str:
        """The key to print after a rule ID: `street expected 'fourth', got 'third'` (no second colon)."""
        if self.cause in (Cause.STATE, Cause.FINAL) and self.field:
            return f"{self.field} {self.shape}"
        return self.key

    def to_json(self) -> dict[str, Any]:
        return {"cause": self.cause.value, "field": self.field, "shape": self.shape, "action": self.action}


def _difference(divergence: Divergence) -> str:
    return f"{divergence.field}: {divergence.shape}" if divergence.field else divergence.shape


_KEY_FORMS: dict[Cause, Callable[[Divergence], str]] = {
    Cause.STATE: _difference,
    Cause.FINAL: _difference,
    Cause.REFUSED: lambda d: f"a valid {d.action} refused: {d.shape}" if d.action == "new_hand"
    else f"a legal {d.action or 'action'} refused: {d.shape}",
    Cause.ACCEPTED: lambda d: f"{d.action or 'an action'} accepted, must be refused: {d.shape}",
    Cause.WRONG_REASON: lambda d: f"{d.action or 'an action'} refused for the wrong reason: {d.shape}",
    Cause.CHANGED: lambda d: f"a refused action changed the state: {_difference(d)}" if d.field else d.shape,
    Cause.ERROR: lambda d: f"engine error: {d.shape}",
}


@dataclass(frozen=True, kw_only=True)
class Blamed:
    """One failing case: its divergence as it reported it, the first one (the replay's), and the
    rules that explain the first differing fact, most specific first (empty: no rule's)."""

    seen: Divergence
    root: Divergence
    blame: tuple[str, ...]

    @property
    def follows(self) -> bool:
        """The case reported a later consequence of its root divergence, not the divergence itself."""
        return self.seen.key != self.root.key


def example(verdicts: Sequence[Verdict], rule: str | None) -> Verdict:
    """The case to show for a cause: of those citing its blamed rule (if any does), the one that reaches
    the divergence in the fewest requests (the quickest to debug); else the quickest of all."""
    citing = [verdict for verdict in verdicts if rule is not None and rule in verdict.rules]
    return min(citing or verdicts, key=lambda verdict: len(verdict.transcript))


@dataclass(frozen=True, kw_only=True)
class Way:
    """One way a cause showed: its first divergence there (which street, which request) and its cases."""

    divergence: Divergence
    verdicts: tuple[Verdict, ...]  # in run order

    @property
    def key(self) -> str:
        return self.divergence.key

    @property
    def count(self) -> int:
        return len(self.verdicts)


@dataclass(frozen=True, kw_only=True)
class Group:
    """Failing cases with the same first divergence and blamed rule; `forms` is how they showed it,
    when that varies; `ways`, when there are several, the places the same wrong answer showed in."""

    divergence: Divergence
    verdicts: tuple[Verdict, ...]  # in run order
    forms: tuple[tuple[str, int], ...] = ()  # (key of what the cases reported, count), most first; () = the key
    blame: tuple[str, ...] = ()  # the rules broken, most specific first (the cases' most common list)
    ways: tuple[Way, ...] = ()  # largest first; () = one way, the group's own divergence

    @property
    def key(self) -> str:
        return self.divergence.key

    @property
    def rule(self) -> str | None:
        """The blamed rule (None: an engine error, or nothing the reference could explain)."""
        return self.blame[0] if self.blame else None

    @property
    def title(self) -> str:
        """`BRING-IN.CALLED-ROUND-ENDS: street expected 'fourth', got 'third'`: the rule leads."""
        return f"{self.rule}: {self.divergence.text}" if self.rule else self.divergence.text

    @property
    def count(self) -> int:
        return len(self.verdicts)

    @property
    def representative(self) -> Verdict:
        """The example: the quickest case citing the blamed rule, else the quickest (`example`)."""
        return example(self.verdicts, self.rule)

    def way_of(self, case_id: str) -> Way | None:
        """The way the case showed the cause in, when the cause showed in several."""
        return next((way for way in self.ways if any(verdict.case_id == case_id for verdict in way.verdicts)), None)

    def where(self, way: Way) -> str:
        """What sets one way apart from the cause's other ways: the request (`call`), the street that varies
        (`'fourth'`), both; else its key."""
        parts = [way.divergence.action] if self.divergence.action is None and way.divergence.action else []
        slots = list(zip(*(_STREET.findall(other.divergence.shape) for other in self.ways)))
        mine = _STREET.findall(way.divergence.shape)
        parts += [f"'{street}'" for street, values in zip(mine, slots) if len(set(values)) > 1]
        return ", ".join(parts) or way.key

    def rules(self, cited: Mapping[str, int]) -> list[RuleShare]:
        """The rules its cases cite, those the cause hits hardest first.

        `cited`: how many applicable cases of the run cite each rule. A rule ranks by its cases here
        times the share of all its cases that are here: a rule most of whose cases fail this way, in
        many cases, is where to read first; a rule cited all over the suite ranks low unless most of
        its cases fail this way too.
        """
        tally = Counter(rule for verdict in self.verdicts for rule in verdict.rules)
        shares = [RuleShare(rule=rule, cases=number, of=max(cited.get(rule, 0), number)) for rule, number in tally.items()]
        return sorted(shares, key=lambda share: (-share.cases * share.cases / share.of, share.rule))


@dataclass(frozen=True, kw_only=True)
class RuleShare:
    """A rule a group's cases cite: `cases` of them, of `of` cases in the run that cite it."""

    rule: str
    cases: int
    of: int


@dataclass(frozen=True, kw_only=True)
class NotApplicable:
    """Cases not applicable for the same reason."""

    reason: str
    case_ids: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Grouping:
    groups: tuple[Group, ...]  # failures (fail, error), largest first
    not_applicable: tuple[NotApplicable, ...]  # largest first
    cited: Mapping[str, int]  # rule ID -> applicable cases of the run that cite it
    expected: tuple[Group, ...] = ()  # expected failures (xfail), grouped the same way, largest first
    blamed: Mapping[str, Blamed] = field(default_factory=dict)  # case ID -> its blame (grouped cases)

    def rules(self, group: Group) -> list[RuleShare]:
        return group.rules(self.cited)

    def group_of(self, case_id: str) -> Group | None:
        return next((group for group in self.groups if any(v.case_id == case_id for v in group.verdicts)), None)

    def cause_of(self, case_id: str) -> int | None:
        """The rank (1 = largest) of the failure cause the case is in."""
        return _rank(self.groups, case_id)

    def expected_cause_of(self, case_id: str) -> int | None:
        """The rank of the expected-failure cause the case is in."""
        return _rank(self.expected, case_id)


def _rank(groups: Sequence[Group], case_id: str) -> int | None:
    return next((rank for rank, group in enumerate(groups, start=1) if any(v.case_id == case_id for v in group.verdicts)), None)


def blame_verdict(verdict: Verdict) -> Blamed:
    """A failing (or expected-to-fail) case's divergence, root divergence and blamed rules."""
    seen = case_divergence(verdict)
    main = main_mismatch(verdict.mismatches) if verdict.mismatches and failed_like(verdict) is Outcome.FAIL else None
    replayed = replay(verdict, main)
    root = seen
    if replayed.earlier:
        field_, shape_ = main_difference(replayed.earlier)
        root = Divergence(cause=Cause.STATE, field=field_, shape=shape_)
    return Blamed(seen=seen, root=root, blame=replayed.blame)


def group_verdicts(verdicts: Iterable[Verdict]) -> Grouping:
    """Failing cases by first divergence and blamed rule, expected failures the same way apart,
    not-applicable ones by reason; largest first, then run order."""
    failing = _Tally()
    expected = _Tally()
    blamed: dict[str, Blamed] = {}
    skipped: dict[str, list[str]] = {}
    cited: Counter[str] = Counter()
    for verdict in verdicts:
        if verdict.outcome is not Outcome.NOT_APPLICABLE:  # a case the engine declared out of scope tells nothing
            cited.update(verdict.rules)
        if verdict.outcome is Outcome.NOT_APPLICABLE:
            skipped.setdefault(verdict.message, []).append(verdict.case_id)
        elif verdict.outcome in GROUPED and verdict.problem not in STOPPED_PROBLEMS:
            blamed[verdict.case_id] = failing.add(verdict)
        elif verdict.outcome is Outcome.XFAIL and verdict.problem not in STOPPED_PROBLEMS:
            blamed[verdict.case_id] = expected.add(verdict)
    return Grouping(
        groups=failing.groups(),
        not_applicable=tuple(sorted((NotApplicable(reason=reason, case_ids=tuple(ids)) for reason, ids in skipped.items()),
                                    key=lambda entry: -len(entry.case_ids))),
        cited=dict(cited),
        expected=expected.groups(),
        blamed=blamed,
    )


class _Tally:
    """Cases by (root divergence, blamed rule), with how they reported it and their blame lists; then
    the groups of one blamed rule that differ only in where they showed, as one cause (`fix_key`)."""

    def __init__(self) -> None:
        self.members: dict[tuple[Divergence, str | None], list[tuple[int, Verdict]]] = {}
        self.reported: dict[tuple[Divergence, str | None], Counter[str]] = {}
        self.blames: dict[tuple[Divergence, str | None], Counter[tuple[str, ...]]] = {}
        self.added = 0

    def add(self, verdict: Verdict) -> Blamed:
        blamed = blame_verdict(verdict)
        key = (blamed.root, blamed.blame[0] if blamed.blame else None)
        self.members.setdefault(key, []).append((self.added, verdict))
        self.added += 1
        self.reported.setdefault(key, Counter())[blamed.seen.key] += 1
        self.blames.setdefault(key, Counter())[blamed.blame] += 1
        return blamed

    def groups(self) -> tuple[Group, ...]:
        causes: dict[tuple[Any, ...], list[tuple[Divergence, str | None]]] = {}
        for key in self.members:  # in the order of each cause's first case
            causes.setdefault(fix_key(*key), []).append(key)
        groups = [self._group(keys) for keys in causes.values()]
        return tuple(sorted(groups, key=lambda group: -group.count))  # stable: run order among equals

    def _group(self, keys: list[tuple[Divergence, str | None]]) -> Group:
        members = sorted((member for key in keys for member in self.members[key]), key=lambda member: member[0])
        blames = sum((self.blames[key] for key in keys), Counter())
        if len(keys) == 1:
            return Group(divergence=keys[0][0], verdicts=tuple(verdict for _, verdict in members),
                         forms=_forms(self.reported[keys[0]], keys[0][0].key), blame=blames.most_common(1)[0][0])
        ways = sorted((Way(divergence=key[0], verdicts=tuple(verdict for _, verdict in self.members[key])) for key in keys),
                      key=lambda way: -way.count)
        plain = all(set(self.reported[key]) == {key[0].key} for key in keys)  # every case saw its own way
        forms = () if plain else tuple(sum((self.reported[key] for key in keys), Counter()).most_common())
        return Group(divergence=merged([key[0] for key in keys]), verdicts=tuple(verdict for _, verdict in members),
                     forms=forms, blame=blames.most_common(1)[0][0], ways=tuple(ways))


def _forms(tally: Counter[str], key: str) -> tuple[tuple[str, int], ...]:
    """How the cases reported the divergence, unless every one reported it as the group key."""
    return () if set(tally) == {key} else tuple(tally.most_common())


def fix_key(divergence: Divergence, rule: str | None) -> tuple[Any, ...]:
    """What one fix mends: the blamed rule, the kind of divergence, the field and the shape, without the
    street it showed on and the request it showed in. A divergence no rule explains is a cause of its own."""
    if rule is None:
        return (None, divergence)
    return (rule, divergence.cause, divergence.field, _STREET.sub("'*'", divergence.shape))


def merged(divergences: Sequence[Divergence]) -> Divergence:
    """The divergences of one fix as one: the action when they share it, each street that varies listed
    (`expected 'showdown', got 'fourth', 'fifth' or 'sixth'`)."""
    first = divergences[0]
    actions = {divergence.action for divergence in divergences}
    slots = [_STREET.findall(divergence.shape) for divergence in divergences]
    parts = _STREET.split(first.shape)  # text, street, text, ...: the text is the same in every shape
    for slot in range(len(slots[0])):
        values = sorted({streets[slot] for streets in slots}, key=STREETS.index)
        quoted = [f"'{value}'" for value in values]
        parts[2 * slot + 1] = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return Divergence(cause=first.cause, field=first.field, shape="".join(parts), action=first.action if len(actions) == 1 else None)


# --- one case's divergence --------------------------------------------------------------------


def case_divergence(verdict: Verdict) -> Divergence:
    """The divergence the case itself reported (its failing step), normalised."""
    if failed_like(verdict) is Outcome.ERROR:
        return _error(verdict)
    step = (verdict.step_text or "setup").split()[0]
    mismatches = verdict.mismatches
    if not mismatches:
        return Divergence(cause=Cause.STATE if step == "expect" else Cause.CHANGED, field="", shape=_numbers(verdict.message))
    field, shape = main_difference(mismatches)
    if step == "final":
        return Divergence(cause=Cause.FINAL, field=field, shape=shape)
    if step == "expect":
        return Divergence(cause=Cause.STATE, field=field, shape=shape)
    action = "new_hand" if step == "setup" else _last_action(verdict)
    if field == "ok":
        return _ok(verdict, action, refused=mismatches[0].expected is True)
    if field == "reason":
        return _reason(mismatches[0], action)
    return Divergence(cause=Cause.CHANGED, field=field, shape=shape)


def _ok(verdict: Verdict, action: str | None, *, refused: bool) -> Divergence:
    if not refused:  # a forbidden setup accepted
        return Divergence(cause=Cause.ACCEPTED, field="ok", shape="bad_request", action=action)
    reason = _last_error_reason(verdict) or "?"
    if reason in TURN_REASONS and action != "new_hand":
        action = None
    return Divergence(cause=Cause.REFUSED, field="ok", shape=reason, action=action)


def _reason(mismatch: Mismatch, action: str | None) -> Divergence:
    expected = mismatch.expected if isinstance(mismatch.expected, str) else "/".join(map(str, mismatch.expected or []))
    if mismatch.actual is None:
        return Divergence(cause=Cause.ACCEPTED, field="reason", shape=expected, action=action)
    return Divergence(cause=Cause.WRONG_REASON, field="reason", shape=f"expected {expected}, got {mismatch.actual}",
                      action=action)


def _error(verdict: Verdict) -> Divergence:
    request = _last_request(verdict)
    kind = request.get("type") if request else None
    shape = f"{verdict.problem or 'error'} on {kind}" if kind else str(verdict.problem or "error")
    return Divergence(cause=Cause.ERROR, field="", shape=shape)


def _last_request(verdict: Verdict) -> Mapping[str, Any] | None:
    for entry in reversed(verdict.transcript):
        request = entry.get("request")
        if isinstance(request, Mapping):
            return request
    return None


def _last_action(verdict: Verdict) -> str | None:
    for entry in reversed(verdict.transcript):
        request = entry.get("request")
        if isinstance(request, Mapping) and request.get("type") == "act":
            return str(request.get("action"))
    return None


def _last_error_reason(verdict: Verdict) -> str | None:
    for entry in reversed(verdict.transcript):
        response = entry.get("response")
        if isinstance(response, Mapping) and response.get("ok") is False:
            error = response.get("error")
            return str(error.get("reason")) if isinstance(error, Mapping) else None
    return None


# --- fields and shapes --------------------------------------------------------------------------


def normal_field(path: str) -> str:
    """`pots[1].amount` -> `pots[].amount`; `result.pots[0].winners.3` -> `result.pots[].winners.*`."""
    return re.sub(r"\.\d+(?=\.|$)", ".*", re.sub(r"\[\d+\]", "[]", path))


def main_mismatch(mismatches: Sequence[Mismatch]) -> Mismatch:
    """The mismatch of the field that explains the most (the first of them)."""
    fields = [normal_field(mismatch.path) for mismatch in mismatches]
    return mismatches[min(range(len(fields)), key=lambda i: (_priority(fields[i]), i))]


def _priority(field_: str) -> int:
    return PRIORITY.index(field_) if field_ in PRIORITY else len(PRIORITY)


def main_difference(mismatches: Sequence[Mismatch]) -> tuple[str, str]:
    """The field that explains the most and the shape of its differences (all of them, merged)."""
    fields = [normal_field(mismatch.path) for mismatch in mismatches]
    ranked = sorted(range(len(fields)), key=lambda i: (PRIORITY.index(fields[i]) if fields[i] in PRIORITY else len(PRIORITY), i))
    field = fields[ranked[0]]
    shapes = sorted({shape(field, m.expected, m.actual) for m, f in zip(mismatches, fields) if f == field})
    return field, "; ".join(shapes)


def shape(field: str, expected: Any, actual: Any) -> str:
    """Expected against actual without what varies from case to case."""
    if field == "legal" and isinstance(expected, list) and isinstance(actual, list):
        return _legal_shape(expected, actual)
    if _is_cards(expected) and _is_cards(actual):
        return _cards_shape(expected, actual)
    seats = field in SEAT_FIELDS or field.endswith(".eligible")
    if isinstance(expected, list) and isinstance(actual, list) and _all_ints(expected + actual) and seats:
        missing = sum(1 for seat in expected if seat not in actual)
        extra = sum(1 for seat in actual if seat not in expected)
        return "; ".join(part for part in (f"missing [{', '.join(['N'] * missing)}]" if missing else "",
                                           f"unexpected [{', '.join(['N'] * extra)}]" if extra else "") if part) or "other order"
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) != len(actual):
        return "fewer entries" if len(actual) < len(expected) else "more entries"
    if _is_int(expected) and _is_int(actual) and not seats:
        return f"expected {'N' if abs(actual - expected) == 1 else _form(expected)}, got {_relative(expected, actual)}"
    if seats and _is_int(expected) and _is_int(actual):
        return "expected N, got M"
    return f"expected {_form(expected)}, got {_form(actual)}"


def _legal_shape(expected: list[Any], actual: list[Any]) -> str:
    """Actions missing, unexpected, or listed with another amount (`call 2` for `call 3`)."""
    want, got = [legal_text(entry) for entry in expected], [legal_text(entry) for entry in actual]
    missing = [item for item in want if item not in got]
    extra = [item for item in got if item not in want]
    names = {item.split()[0] for item in missing} & {item.split()[0] for item in extra}
    other = [name for name in dict.fromkeys(item.split()[0] for item in missing) if name in names]
    missing = [item for item in missing if item.split()[0] not in other]
    extra = [item for item in extra if item.split()[0] not in other]
    parts = []
    if missing:
        parts.append(f"missing [{', '.join(_legal_form(item) for item in missing)}]")
    if extra:
        parts.append(f"unexpected [{', '.join(_legal_form(item) for item in extra)}]")
    if other:
        parts.append(f"other amount [{', '.join(other)}]")
    return "; ".join(parts) or "other order"


def _legal_form(text: str) -> str:
    action, _, amount = text.partition(" ")
    return f"{action} N" if amount else action


def _cards_shape(expected: Any, actual: Any) -> str:
    want, got = _card_list(expected), _card_list(actual)
    if want is None or got is None:
        return f"expected {_card_form(want)}, got {_card_form(got)}"
    if len(got) < len(want):
        return "fewer cards"
    if len(got) > len(want):
        return "more cards"
    return "other cards" if len(want) > 1 else "another card"


def _card_list(value: Any) -> list[str] | None:
    if value is None:
        return None
    return [value] if isinstance(value, str) else [str(card) for card in value]


def _card_form(cards: list[str] | None) -> str:
    if cards is None:
        return "nothing"
    return "a card" if len(cards) == 1 else f"{len(cards)} cards"


def _is_cards(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return bool(_CARD.match(value))
    return isinstance(value, list) and bool(value) and all(isinstance(c, str) and _CARD.match(c) for c in value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _all_ints(values: list[Any]) -> bool:
    return all(_is_int(value) for value in values)


def _relative(expected: int, actual: int) -> str:
    """Chips: an off-by-one keeps its sign (a misplaced odd chip), other amounts only their direction."""
    difference = actual - expected
    if abs(difference) == 1:
        return f"N{difference:+d}"
    if actual == 0 or expected == 0:
        return _form(actual)
    return "more" if difference > 0 else "less"


def _form(value: Any) -> str:
    """A value with its numbers taken out: 0 stays (nothing at all is a cause of its own)."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_int(value) or isinstance(value, float):
        return "0" if value == 0 else "N"
    if isinstance(value, str):
        return "a card" if _CARD.match(value) else repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_form(item) for item in value) + "]"
    if isinstance(value, Mapping):
        keys = {("*" if str(key).isdigit() else str(key)): _form(item) for key, item in value.items()}
        return "{" + ", ".join(f"{key}: {item}" for key, item in keys.items()) + "}"
    return _numbers(str(value))


def _numbers(text: str) -> str:
    return re.sub(r"\d+", "N", text)
