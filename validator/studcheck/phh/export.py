"""A case as a PHH hand history (variants F7S, F7S/8, FR), or the reason it cannot be one.

The hand is played on the reference engine with the options PokerKit's PHH games have (the cards
each player is dealt and every action come from that play); the case's ID, title, rules and named
options go into `_studcheck_*` user fields, which PokerKit's loader keeps but does not interpret.
What PHH cannot say is refused with a reason, never written approximately: a PHH F7S game has no
rake, a fixed raise cap, no open-pair double bet and no community card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from studcheck.cases.model import Case, StepKind
from studcheck.phh import toml
from studcheck.rules import Options, Variant

#: PHH variant codes (PokerKit's HandHistory.game_types) of the studcheck variants
PHH_VARIANTS: Mapping[Variant, str] = {Variant.STUD_HIGH: "F7S", Variant.STUD_HILO8: "F7S/8", Variant.RAZZ: "FR"}
#: the option values of PokerKit's PHH stud games: the adapter's (adapters/pokerkit_adapter.py
#: OPTIONS) narrowed to the fixed game a PHH file names: at most bet + 3 raises (PokerKit's
#: FixedLimitPokerMixin count of 4) and no rake (PHH has no rake field).
PHH_FIXED = {"max_raises": [3], "rake_percent": [0], "rake_cap": [0]}
_ACTION_CODES = {"bring_in": "pb", "fold": "f", "check": "cc", "call": "cc",
                 "complete": "cbr", "bet": "cbr", "raise": "cbr"}


class PhhRefusal(ValueError):
    """A case that no PHH hand history can state faithfully; the message says why."""


@dataclass(frozen=True, kw_only=True)
class PhhHand:
    """A hand history's fields in PHH's order, ready to write."""

    fields: dict[str, Any]

    def text(self) -> str:
        return toml.dumps(self.fields)


def phh_options() -> dict[str, Any]:
    """The options a PHH stud game plays with, in the shape of an engine's hello `options`."""
    from studcheck.adapters.pokerkit_adapter import OPTIONS

    return {**OPTIONS, **PHH_FIXED}


def chosen_options(case: Case) -> dict[str, Any]:
    """Every option as the harness would choose it for a PHH game; PhhRefusal if the case names one PHH lacks."""
    from studcheck.harness.runner import NotApplicable, choose_options
    from studcheck.protocol.messages import EngineInfo

    info = EngineInfo(name="phh", version="", variants=tuple(v.value for v in PHH_VARIANTS), options=phh_options())
    try:
        return choose_options(case, info)
    except NotApplicable as exc:
        game = f"PokerKit's {PHH_VARIANTS[case.variant]} game"
        raise PhhRefusal(f"PHH cannot express it: {str(exc).replace('the engine', game)}") from None


def export_case(case: Case) -> PhhHand:
    """The case as a PHH hand; raises PhhRefusal with the reason when PHH cannot state it."""
    if case.setup_refused is not None or case.stakes is None:
        raise PhhRefusal("a setup-refusal case: the engine must refuse the setup, so no hand is dealt")
    if case.variant not in PHH_VARIANTS:
        raise PhhRefusal(f"PHH has no variant code for {case.variant.value} (it knows F7S, F7S/8 and FR)")
    options = chosen_options(case)
    events = _play(case, Options.from_json(options))
    seats = [setup.seat for setup in sorted(case.seats, key=lambda s: s.seat)]
    player = {seat: f"p{index + 1}" for index, seat in enumerate(seats)}
    actions, finished = _actions(events, player)
    stakes = case.stakes
    fields: dict[str, Any] = {
        "variant": PHH_VARIANTS[case.variant],
        "antes": [stakes.ante] * len(seats),
        "bring_in": stakes.bring_in,
        "small_bet": stakes.small_bet,
        "big_bet": stakes.big_bet,
        "starting_stacks": [setup.stack for setup in sorted(case.seats, key=lambda s: s.seat)],
        "actions": actions,
        "hand": case.id,
        "seats": seats,
        "seat_count": 8,
        "finishing_stacks": [finished[str(seat)] for seat in seats] if finished is not None else None,
        "_studcheck_id": case.id,
        "_studcheck_title": case.title,
        "_studcheck_variant": case.variant.value,
        "_studcheck_rules": list(case.rules),
        "_studcheck_options": dict(case.options),
        # the deck as dealt, top first, so `studcheck import` rebuilds the case's exact deck (burns included)
        "_studcheck_deck": " ".join(str(card) for card in case.deck_for(Options.from_json(options))),
        "_studcheck_remade_stub": None if case.remade_stub is None else " ".join(str(card) for card in case.remade_stub),
    }
    if finished is None:
        fields["_studcheck_note"] = "the case's steps end before the hand does: no finishing stacks"
    return PhhHand(fields=fields)


def _play(case: Case, options: Options) -> list[dict[str, Any]]:
    """The reference engine's events for the case's `act` steps (refusals change nothing)."""
    from studcheck.engine import Action, Hand, IllegalAction

    assert case.stakes is not None
    try:
        hand = Hand(variant=case.variant, options=options, stakes=case.stakes, seats=case.seats,
                    deck=case.deck_for(options), remade_stub=case.remade_stub, events=True)
    except ValueError as exc:
        raise PhhRefusal(f"the reference engine refuses the setup: {exc}") from None
    for step in case.steps:
        if step.kind is not StepKind.ACT:
            continue
        assert step.seat is not None and step.action is not None
        try:
            hand.apply(Action(seat=step.seat, action=step.action, amount=step.amount))
        except IllegalAction as exc:
            raise PhhRefusal(f"line {step.line}: the reference engine refuses {step.describe()!r} "
                             f"({exc.reason.value}): the case does not play as written") from None
    assert hand.events is not None  # asked for above
    events: list[dict[str, Any]] = hand.events
    if hand.result is not None:
        events = [*events, {"event": "result", "stacks": hand.result["stacks"]}]
    return events


def _actions(events: Sequence[Mapping[str, Any]], player: Mapping[int, str],
             ) -> tuple[list[str], dict[str, int] | None]:
    """PHH action lines and final stacks (None if the hand is not over) from engine events.

    Cards dealt in one go are written one `d dh` line per player, in seat order; PokerKit deals a
    street's cards to one player at a time, so the order of players within a street is free.
    """
    lines: list[str] = []
    dealt: dict[int, list[str]] = {seat: [] for seat in player}
    pending: dict[int, list[str]] = {}
    finished: dict[str, int] | None = None

    def flush() -> None:
        for seat in sorted(pending):
            lines.append(f"d dh {player[seat]} {''.join(pending[seat])}")
        pending.clear()

    for event in events:
        kind = event.get("event")
        if kind == "deal":
            seat = int(event["seat"])
            pending.setdefault(seat, []).append(str(event["card"]))
            dealt[seat].append(str(event["card"]))
            continue
        if kind == "community":
            raise PhhRefusal("the stub runs short and a community card is dealt: PHH's stud games have no board card")
        if kind == "burn":  # PHH leaves burns out: PokerKit burns a card of its own
            continue
        flush()
        if kind == "action":
            lines.append(_action_line(event, player, dealt))
        elif kind == "result":
            finished = {str(key): int(value) for key, value in event["stacks"].items()}
    flush()
    return lines, finished


def _action_line(event: Mapping[str, Any], player: Mapping[int, str], dealt: Mapping[int, Sequence[str]]) -> str:
    seat = int(event["seat"])
    action = str(event["action"])
    if action == "show":
        return f"{player[seat]} sm {''.join(dealt[seat])}"
    if action == "muck":
        return f"{player[seat]} sm"
    code = _ACTION_CODES[action]
    return f"{player[seat]} {code} {event['amount']}" if code == "cbr" else f"{player[seat]} {code}"
