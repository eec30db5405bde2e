"""Partial comparison of a case's expectations with an engine's state (contract section 8).

A case asserts only what it names. Each difference becomes a `Mismatch` whose path points into the
state object (`stacks.2`, `pots[1].eligible`, `result.pots[0].winners.2`) so a report reads like a
diff. Comparisons are of meaning: sets where order carries none, seat keys as strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from studcheck.rules import ACTION_ORDER, ActionType

SEAT_MAP_KEYS = {"stacks": "stack", "committed": "committed", "up": "up", "down": "down"}
SEAT_SET_KEYS = {"folded": "folded", "all_in": "all_in", "shown": "shown", "mucked": "mucked"}
CARD_KEYS = frozenset({"up", "down"})
AWARD_KEYS = ("winners", "high", "low")


@dataclass(frozen=True, kw_only=True)
class Mismatch:
    path: str
    expected: Any
    actual: Any

    def describe(self) -> str:
        text = f"{self.path}: expected {_show(self.expected)}, got {_show(self.actual)}"
        if isinstance(self.expected, list) and isinstance(self.actual, list) and self.path in ("legal", "folded", "all_in", "shown", "mucked"):
            missing = [item for item in self.expected if item not in self.actual]
            extra = [item for item in self.actual if item not in self.expected]
            notes = ([f"missing {_show(missing)}"] if missing else []) + ([f"unexpected {_show(extra)}"] if extra else [])
            text += f" ({'; '.join(notes)})" if notes else ""
        return text

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "expected": self.expected, "actual": self.actual}


def _show(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return "[" + ", ".join(value) + "]"
    if value is None:
        return "nothing"
    return repr(value) if isinstance(value, str) else str(value)


def legal_text(entry: Any) -> str:
    """`{"action": "call", "amount": 2}` or `"call 2"` -> `"call 2"`; a range
    `{"action": "raise", "amount": 4, "min": 4, "max": 12}` -> `"raise 4..12"`; a range whose
    `amount` is not its `min` -> `"raise 4..12 (amount 13)"`, which no case expects."""
    if isinstance(entry, Mapping):
        action = str(entry.get("action"))
        amount = entry.get("amount")
        if "min" in entry or "max" in entry:
            text = f"{action} {entry.get('min')}..{entry.get('max')}"
            # protocol.md: a range's `amount` equals its `min`, so a client that reads only `amount`
            # sends a legal wager; an entry that says otherwise is a different (wrong) entry.
            return text if amount == entry.get("min") and _is_whole(amount) else f"{text} (amount {amount})"
        return action if amount is None else f"{action} {amount}"
    return " ".join(str(entry).split())


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _legal_key(text: str) -> tuple[int, int, str]:
    action, _, amount = text.partition(" ")
    amount = amount.partition("..")[0]
    try:
        order = ACTION_ORDER[ActionType(action)]
    except ValueError:
        order = len(ACTION_ORDER)
    return (order, int(amount) if amount.lstrip("-").isdigit() else -1, text)


def sorted_legal(entries: Iterable[Any]) -> list[str]:
    return sorted({legal_text(entry) for entry in entries}, key=_legal_key)


def _cards(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    return [str(card) for card in value]


def _seat_rows(state: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    rows = state.get("seats") or []
    return {str(row.get("seat")): row for row in rows if isinstance(row, Mapping)}


def _seats(values: Iterable[Any]) -> list[int]:
    return sorted({int(value) for value in values})


def compare_state(expect: Mapping[str, Any], state: Mapping[str, Any]) -> list[Mismatch]:
    """Every difference between an `expect` step and a state (only named keys are compared)."""
    mismatches: list[Mismatch] = []
    rows = _seat_rows(state)
    for key, expected in expect.items():
        if key == "legal":
            want, got = sorted_legal(expected), sorted_legal(state.get("legal") or [])
            if want != got:
                mismatches.append(Mismatch(path="legal", expected=want, actual=got))
        elif key in SEAT_MAP_KEYS:
            mismatches.extend(_compare_seat_map(key, SEAT_MAP_KEYS[key], expected, rows))
        elif key in SEAT_SET_KEYS:
            want_set = _seats(expected)
            got_set = _seats(seat for seat, row in rows.items() if row.get(SEAT_SET_KEYS[key]) is True)
            if want_set != got_set:
                mismatches.append(Mismatch(path=key, expected=want_set, actual=got_set))
        elif key == "pots":
            mismatches.extend(_compare_pots("pots", expected, state.get("pots"), keys=("amount", "eligible")))
        elif key == "result":
            mismatches.extend(compare_final(expected, state.get("result")))
        else:
            actual = state.get(key)
            if actual != expected:
                mismatches.append(Mismatch(path=key, expected=expected, actual=actual))
    return mismatches


def _compare_seat_map(key: str, field: str, expected: Mapping[Any, Any], rows: Mapping[str, Mapping[str, Any]]) -> list[Mismatch]:
    mismatches = []
    for seat, want in expected.items():
        row = rows.get(str(seat))
        got = None if row is None else row.get(field)
        if key in CARD_KEYS:
            want, got = _cards(want), (None if row is None else _cards(got))
        if got != want:
            mismatches.append(Mismatch(path=f"{key}.{seat}", expected=want, actual=got))
    return mismatches


def _compare_pots(path: str, expected: Sequence[Mapping[str, Any]], actual: Any, *, keys: Sequence[str] | None) -> list[Mismatch]:
    """List equality by position; within a pot, `keys` (or, if None, the keys each entry names)."""
    if not isinstance(actual, list):
        return [Mismatch(path=path, expected=list(expected), actual=actual)]
    if len(actual) != len(expected):
        return [Mismatch(path=path, expected=list(expected), actual=actual)]
    mismatches: list[Mismatch] = []
    for index, (want, got) in enumerate(zip(expected, actual)):
        for key in keys if keys is not None else list(want):
            where = f"{path}[{index}].{key}"
            if key == "eligible":
                want_seats, got_seats = _seats(want.get(key, [])), _seats(got.get(key) or [])
                if want_seats != got_seats:
                    mismatches.append(Mismatch(path=where, expected=want_seats, actual=got_seats))
            elif key in AWARD_KEYS:
                mismatches.extend(_compare_awards(where, want.get(key) or {}, got.get(key)))
            elif want.get(key) != got.get(key):
                mismatches.append(Mismatch(path=where, expected=want.get(key), actual=got.get(key)))
    return mismatches


def _compare_awards(path: str, expected: Mapping[Any, Any], actual: Any) -> list[Mismatch]:
    """Exact equality of a seat -> chips map: a missing or an extra winner is a difference."""
    if not isinstance(actual, Mapping):
        return [Mismatch(path=path, expected=dict(expected), actual=actual)]
    want = {str(seat): chips for seat, chips in expected.items()}
    got = {str(seat): chips for seat, chips in actual.items()}
    return [
        Mismatch(path=f"{path}.{seat}", expected=want.get(seat), actual=got.get(seat))
        for seat in sorted(set(want) | set(got), key=int)
        if want.get(seat) != got.get(seat)
    ]


def compare_final(final: Mapping[str, Any], result: Any) -> list[Mismatch]:
    """`final` against `state.result`: pots (keys each entry lists), rake, returned, order, stacks."""
    if not isinstance(result, Mapping):
        return [Mismatch(path="result", expected="a finished hand's result", actual=result)]
    mismatches: list[Mismatch] = []
    for key, expected in final.items():
        path = f"result.{key}"
        if key == "pots":
            mismatches.extend(_compare_pots(path, expected, result.get("pots"), keys=None))
        elif key == "returned":
            mismatches.extend(_compare_awards(path, expected, result.get("returned")))
        elif key == "stacks":
            got_stacks = result.get("stacks")
            got_map = {str(k): v for k, v in got_stacks.items()} if isinstance(got_stacks, Mapping) else {}
            for seat, want in expected.items():
                if got_map.get(str(seat)) != want:
                    mismatches.append(Mismatch(path=f"{path}.{seat}", expected=want, actual=got_map.get(str(seat))))
        elif result.get(key) != expected:
            mismatches.append(Mismatch(path=path, expected=expected, actual=result.get(key)))
    return mismatches


# --- canonical states: what "the same state" means ----------------------------------------------

CANONICAL_SEAT_KEYS = ("seat", "stack", "committed", "folded", "all_in", "up", "down", "shown", "mucked")
CANONICAL_RESULT_KEYS = ("pots", "rake", "returned", "showdown_order", "stacks")


def _seat_map(value: Any) -> Any:
    return {str(key): item for key, item in value.items()} if isinstance(value, Mapping) else value


def _seat_set(value: Any) -> Any:
    return sorted(value) if isinstance(value, list) and all(isinstance(v, int) for v in value) else value


def canonical_state(state: Any) -> Any:
    """The state with only the canonical keys, sets sorted: what "the same state" means."""
    if not isinstance(state, Mapping):
        return state
    seats = state.get("seats")
    if isinstance(seats, list) and all(isinstance(row, Mapping) and isinstance(row.get("seat"), int) for row in seats):
        seats = sorted(seats, key=lambda row: row["seat"])  # the harness matches rows by seat number too
    pots = state.get("pots")
    return {
        "street": state.get("street"),
        "to_act": state.get("to_act"),
        "legal": sorted_legal(state.get("legal") or []),
        "seats": [{key: row.get(key) for key in CANONICAL_SEAT_KEYS} if isinstance(row, Mapping) else row for row in seats]
        if isinstance(seats, list) else seats,
        "community": state.get("community"),
        "pots": [{"amount": pot.get("amount"), "eligible": _seat_set(pot.get("eligible"))}
                 if isinstance(pot, Mapping) else pot for pot in pots] if isinstance(pots, list) else pots,
        "pot_total": state.get("pot_total"),
        "result": canonical_result(state.get("result")),
    }


def canonical_result(result: Any) -> Any:
    if not isinstance(result, Mapping):
        return result
    out = {key: result.get(key) for key in CANONICAL_RESULT_KEYS}
    pots = result.get("pots")
    if isinstance(pots, list):
        out["pots"] = [_result_pot(pot) for pot in pots]
    for key in ("returned", "stacks"):
        out[key] = _seat_map(out[key])
    return out


def _result_pot(pot: Any) -> Any:
    if not isinstance(pot, Mapping):
        return pot
    entry = {"amount": pot.get("amount"), "eligible": _seat_set(pot.get("eligible"))}
    for key in AWARD_KEYS:
        if key in pot:
            entry[key] = _seat_map(pot[key])
    return entry


def diff_json(before: Any, after: Any, path: str = "") -> list[Mismatch]:
    """Where two JSON values differ (used for "state unchanged after a refused action")."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        found: list[Mismatch] = []
        for key in list(before) + [k for k in after if k not in before]:
            sub = f"{path}.{key}" if path else str(key)
            found.extend(diff_json(before.get(key), after.get(key), sub))
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after) and path != "legal":
        found = []
        for index, (left, right) in enumerate(zip(before, after)):
            found.extend(diff_json(left, right, f"{path}[{index}]"))
        return found
    return [] if before == after else [Mismatch(path=path or "state", expected=before, actual=after)]
