"""`studcheck show ID`: a case as a readable hand history, played by the reference engine.

Authors use it to see what their case deals and does (which cards land where, pot after every
action, who wins what), so it runs the reference engine; when the engine refuses something the
case does, that becomes a marked line, never a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from studcheck.cases.model import Case, Step, StepKind
from studcheck.cards import Card, format_cards, parse_card
from studcheck.resources import cases_dir
from studcheck.rules import LAYOUTS, ActionType, Options, Variant

_VERBS = {
    ActionType.BRING_IN: "brings in {amount}",
    ActionType.COMPLETE: "completes to {amount}",
    ActionType.FOLD: "folds",
    ActionType.CHECK: "checks",
    ActionType.CALL: "calls {delta}",
    ActionType.BET: "bets {amount}",
    ActionType.RAISE: "raises to {amount}",
    ActionType.SHOW: "shows",
    ActionType.MUCK: "mucks",
}
_WIDTH = 52


def render(case: Case, *, defaults: Options | None = None) -> str:
    """The whole hand history as text (ends with a newline)."""
    lines = _header(case)
    if case.new_hand is not None and case.setup_refused is not None:
        return "\n".join(lines + _refused(case)) + "\n"
    try:
        lines += _Play(case, defaults or Options()).run()
    except Exception as exc:  # noqa: BLE001 - show must always produce something readable
        lines.append(f"!! could not play the case with the reference engine: {type(exc).__name__}: {exc}")
    return "\n".join(lines) + "\n"


def _header(case: Case) -> list[str]:
    stakes = case.stakes.to_json() if case.stakes is not None else dict((case.new_hand or {}).get("stakes") or {})
    options = ", ".join(f"{key}={_json_text(value)}" for key, value in case.options.items()) or "none"
    variant = case.new_hand["variant"] if case.new_hand is not None else case.variant.value
    lines = [
        f"{case.id}  {case.title}",
        f"  file     {shown_path(case.path)}:{case.line}",
        f"  variant  {variant}",
        f"  stakes   ante {stakes.get('ante')}, bring-in {stakes.get('bring_in')}, small bet {stakes.get('small_bet')}, "
        f"big bet {stakes.get('big_bet')}",
        f"  options  {options} (others: profile defaults)",
        f"  rules    {' '.join(case.rules)}",
    ]
    if case.tags:
        lines.append(f"  tags     {' '.join(case.tags)}")
    if case.note:
        lines.append(f"  note     {case.note}")
    lines.append("")
    seats = [(s.seat, s.stack) for s in case.seats] if case.new_hand is None else [
        (entry.get("seat"), entry.get("stack")) for entry in case.new_hand["seats"]]
    lines.append("Seats: " + ", ".join(f"seat {seat} ({stack})" for seat, stack in seats))
    return lines


def shown_path(path: Path | str, cwd: str | None = None) -> str:
    """A case file as studcheck shows it (here, and in every report through harness.runner.display_path):
    a bundled case relative to the cases folder, as `cases/razz/...`, wherever studcheck is installed
    (an installed wheel's copy sits in site-packages); a case of your own (`--cases`) relative to the
    working directory `cwd` (default: the current one) when it is under it, else as named."""
    resolved = Path(path).resolve()
    for root, prefix in ((cases_dir().resolve(), Path("cases")), (Path(cwd or os.getcwd()).resolve(), Path())):
        try:
            return (prefix / resolved.relative_to(root)).as_posix()
        except ValueError:
            continue
    return str(path)


def _refused(case: Case) -> list[str]:
    """A setup-refusal case: the setup as sent, what is wrong with it, and the reference's answer."""
    from studcheck.cases.refusal import setup_violations
    from studcheck.protocol.serve import Server

    assert case.new_hand is not None and case.setup_refused is not None
    deck = case.new_hand["deck"]
    lines = [f"Deck ({len(deck)}): {' '.join(map(str, deck))}"]
    if case.new_hand.get("remade_stub") is not None:
        lines.append(f"Remade stub: {' '.join(map(str, case.new_hand['remade_stub']))}")
    lines += ["", f"The engine must refuse this setup ({' or '.join(case.setup_refused.reasons)}): "
                  f"{case.setup_refused.why}"]
    for item in setup_violations(case.new_hand):
        lines.append(f"  breaks {item.rule or 'the protocol'}: {item}")
    request = {"type": "new_hand", "seq": 1, **case.new_hand, "options": case.options_with(Options()).to_json(),
               "label": case.id}
    answer = Server().handle(request)
    if answer.get("ok"):
        lines.append("!! the reference engine accepts this setup")
    else:
        lines.append(f"Reference engine: {answer['error']['reason']}: {answer['error']['message']}")
    return lines


def _json_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _Play:
    """Drives the reference engine through the steps, turning its events into lines."""

    def __init__(self, case: Case, defaults: Options) -> None:
        self.case = case
        self.options = case.options_with(defaults)
        self.lines: list[str] = []
        self.seen = 0
        self.pot = 0
        self.committed: dict[int, int] = {}
        self.cards: dict[int, list[tuple[Card, bool]]] = {seat.seat: [] for seat in case.seats}
        self.street_cards: list[str] = []
        self.community: Card | None = None

    def run(self) -> list[str]:
        try:
            from studcheck.engine import Action, Hand, IllegalAction
        except ImportError:
            return ["", "(the reference engine is not available: cards, pots and results are not shown)",
                    *[f"  {step.describe()}" for step in self.case.steps]]
        case = self.case
        assert case.stakes is not None  # a setup-refusal case is rendered by _refused
        try:
            hand = Hand(variant=case.variant, options=self.options, stakes=case.stakes, seats=case.seats,
                        deck=case.deck, remade_stub=case.remade_stub, events=True)
        except ValueError as exc:
            return ["", f"!! the reference engine refuses this setup: {exc}"]
        self.drain(hand)
        for step in case.steps:
            if step.kind is StepKind.EXPECT:
                self.flush_cards()
                self.lines.append(f"    · expect {_expect_text(step.expect or {})}")
                continue
            assert step.seat is not None and step.action is not None
            action = Action(seat=step.seat, action=step.action, amount=step.amount)
            try:
                hand.apply(action)
            except IllegalAction as exc:
                self.flush_cards()
                self.lines.append(self.refused(step, exc.reason.value, exc.message))
                continue
            if step.kind is StepKind.REJECT:
                self.flush_cards()
                self.lines.append(f"!! line {step.line}: seat {step.seat} {step.action.value} should be refused "
                                  f"({step.reason}) but the reference engine accepted it")
            self.drain(hand)
        self.flush_cards()
        self.finish(hand.snapshot())
        return self.lines

    def refused(self, step: Step, reason: str, message: str) -> str:
        text = f"{step.seat} {step.action.value if step.action else '?'}"
        if step.amount is not None:
            text += f" {step.amount}"
        if step.kind is StepKind.REJECT:
            if reason == step.reason:
                return f"    seat {text}  (refused: {reason})"
            return f"!! line {step.line}: seat {text} refused with {reason}, the case expects {step.reason}"
        return f"!! line {step.line}: the reference engine refuses 'act: {text}': {reason}: {message}"

    def drain(self, hand: Any) -> None:
        """Render the engine events since the last call."""
        events: list[dict[str, Any]] = hand.events  # the hand was built with events=True
        for event in events[self.seen:]:
            handler: Callable[[dict[str, Any]], None] | None = getattr(self, f"on_{event.get('event')}", None)
            if handler is not None:
                handler(event)
        self.seen = len(events)

    def flush_cards(self) -> None:
        if self.street_cards:
            self.lines.extend(self.street_cards)
            self.street_cards = []

    def board(self, seat: int) -> str:
        parts: list[str] = []
        group: list[str] = []
        for card, up in self.cards[seat]:
            if up:
                if group:
                    parts.append("[" + " ".join(group) + "]")
                    group = []
                parts.append(str(card))
            else:
                group.append(str(card))
        if group:
            parts.append("[" + " ".join(group) + "]")
        return " ".join(parts)

    def on_ante(self, event: dict[str, Any]) -> None:
        self.pot += int(event["amount"])
        if not self.lines or not self.lines[-1].startswith("Antes:"):
            self.lines.append("Antes:")
        self.lines[-1] += f" seat {event['seat']} {event['amount']},"

    def on_street(self, event: dict[str, Any]) -> None:
        self.flush_cards()
        if self.lines and self.lines[-1].startswith("Antes:"):
            self.lines[-1] = self.lines[-1].rstrip(",") + f"  (pot {self.pot})"
        self.committed = {}
        self.lines += ["", f"*** {str(event['street']).upper()} STREET ***"
                       if event["street"] != "showdown" else "*** SHOWDOWN ***"]

    def on_deal(self, event: dict[str, Any]) -> None:
        if not any(line.startswith("*** ") for line in self.lines):
            if self.lines and self.lines[-1].startswith("Antes:"):
                self.lines[-1] = self.lines[-1].rstrip(",") + f"  (pot {self.pot})"
            first = LAYOUTS[self.case.variant].streets[0].value.upper()  # third; five-card stud: second
            self.lines += ["", f"*** {first} STREET ***"]
        seat = int(event["seat"])
        self.cards[seat].append((parse_card(str(event["card"])), event.get("face") == "up"))
        text = f"    seat {seat}  {self.board(seat)}"
        self.street_cards = [line for line in self.street_cards if not line.startswith(f"    seat {seat}  ")]
        self.street_cards.append(text)

    def on_burn(self, event: dict[str, Any]) -> None:
        self.lines[-1] += f"  (burn {event['card']})"

    def on_remake(self, event: dict[str, Any]) -> None:
        self.lines[-1] += "  (stub remade with the burns)"

    def on_community(self, event: dict[str, Any]) -> None:
        self.community = parse_card(str(event["card"]))
        self.street_cards.append(f"    community card {event['card']}")

    def on_action(self, event: dict[str, Any]) -> None:
        self.flush_cards()
        seat = int(event["seat"])
        action = ActionType(event["action"])
        amount = event.get("amount")
        delta = 0
        if amount is not None and action not in (ActionType.SHOW, ActionType.MUCK):
            delta = int(amount) - self.committed.get(seat, 0)
            self.committed[seat] = int(amount)
            self.pot += delta
        text = f"    seat {seat} " + _VERBS[action].format(amount=amount, delta=delta)
        if action is ActionType.SHOW:
            text += f" {self.board(seat)}{self.describe(seat)}"
        self.lines.append(text.ljust(_WIDTH) + (f"pot {self.pot}" if action not in (ActionType.SHOW,
                                                                                     ActionType.MUCK) else ""))

    def on_return(self, event: dict[str, Any]) -> None:
        self.flush_cards()
        self.pot -= int(event["amount"])
        seat = int(event["seat"])
        self.committed[seat] = self.committed.get(seat, 0) - int(event["amount"])
        self.lines.append(f"    uncalled {event['amount']} returned to seat {seat}".ljust(_WIDTH) + f"pot {self.pot}")

    def on_rake(self, event: dict[str, Any]) -> None:
        self.lines.append(f"    rake {event['amount']}")

    def describe(self, seat: int) -> str:
        cards = [card for card, _ in self.cards[seat]] + ([self.community] if self.community else [])
        text = describe_hand(self.case.variant, cards)
        return f" — {text}" if text else ""

    def finish(self, state: dict[str, Any]) -> None:
        result = state.get("result")
        if result is None:
            self.lines += ["", f"(the steps end on {state.get('street')} street with seat {state.get('to_act')} "
                               f"to act; pot {state.get('pot_total')})"]
            return
        self.lines += ["", "Result"]
        for number, pot in enumerate(result.get("pots", [])):
            name = "main pot" if number == 0 else f"side pot {number}"
            eligible = " ".join(str(seat) for seat in pot.get("eligible", []))
            awards = []
            for key, label in (("winners", ""), ("high", "high "), ("low", "low ")):
                if key in pot:
                    shares = pot[key]
                    if shares:
                        awards.append(label + ", ".join(f"seat {s} {a}" for s, a in shares.items()))
                    elif key == "low":
                        awards.append("no qualifying low")
            self.lines.append(f"    {name} {pot.get('amount')} (seats {eligible}): {'; '.join(awards) or '-'}")
        if result.get("rake"):
            self.lines.append(f"    rake {result['rake']}")
        returned = result.get("returned") or {}
        if returned:
            self.lines.append("    returned: " + ", ".join(f"seat {s} {a}" for s, a in returned.items()))
        if result.get("showdown_order"):
            self.lines.append("    showdown order: " + " ".join(str(s) for s in result["showdown_order"]))
        start = {str(seat.seat): seat.stack for seat in self.case.seats}
        stacks = result.get("stacks") or {}
        self.lines.append("Final stacks: " + ", ".join(
            f"seat {s} {a} ({a - start.get(s, 0):+d})" for s, a in stacks.items()))


def describe_hand(variant: Variant, cards: Sequence[Card]) -> str:
    """`"pair of queens"`-style text, or "" when the evaluator is not there or cannot say."""
    try:
        from studcheck import evaluate
    except ImportError:
        return ""
    try:
        if variant is Variant.RAZZ:
            return str(evaluate.describe_low(evaluate.razz_value(cards)))
        high = str(evaluate.describe_high(evaluate.high_value(cards)))
        if variant is Variant.STUD_HILO8:
            low = evaluate.low8_value(cards)
            return f"{high}; low: {evaluate.describe_low(low) if low is not None else 'none'}"
        return high
    except Exception:  # noqa: BLE001 - a description is a courtesy, never a failure
        return ""


def _expect_text(expect: dict[str, Any]) -> str:
    parts = []
    for key, value in expect.items():
        if key == "legal":
            items = [f"{item['action']} {item['min']}..{item['max']}" if "max" in item
                     else f"{item['action']} {item['amount']}" if "amount" in item else item["action"] for item in value]
            parts.append(f"legal [{', '.join(items)}]")
        elif isinstance(value, dict):
            inner = ", ".join(f"{seat}: {' '.join(v) if isinstance(v, list) else v}" for seat, v in value.items())
            parts.append(f"{key} {{{inner}}}")
        else:
            parts.append(f"{key} {value}")
    return ", ".join(parts)


__all__ = ["describe_hand", "format_cards", "render"]
