"""A PHH hand history as a case skeleton: deck, seats, stakes, the actions as steps, final stacks.

PHH says `cc` and `cbr 10`; a case says `call 5` or `raise 10`. The reference engine names each
action: the history is replayed on it and every action becomes the legal action it matches. If the
engine refuses one (a disputed hand), that action becomes a `reject` step with the engine's reason
and the replay stops there. The skeleton is marked `generated` and cites the rule `TODO`, so
`studcheck lint` says what a human must add before it joins the suite. Unknown (`??`) cards shown
at showdown are the cards shown; unknown up cards get cards under which the history's seats bring
in and act first (phh.unknown); the note says what the skeleton's `final` holds and which cards
were filled.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from studcheck.cards import Card, CardError, parse_card
from studcheck.cases.deck import DeckError, build_deck, card_name
from studcheck.cases.lint import IMPORTED_RULE, VARIANT_PREFIXES
from studcheck.phh import toml, unknown
from studcheck.phh.export import PHH_VARIANTS
from studcheck.rules import ActionType, Options, SeatSetup, SetupError, Stakes, Variant

_VARIANTS = {code: variant for variant, code in PHH_VARIANTS.items()}
#: what PokerKit's PHH stud games play that differs from studcheck's default options
PHH_GAME_OPTIONS: Mapping[str, Any] = {"open_pair_double": False}
_WAGERS = (ActionType.COMPLETE, ActionType.BET, ActionType.RAISE)
#: ASCII digits only: str.isdigit() also takes "²" and "١", which int() then refuses
_PLAYER = re.compile(r"p[0-9]{1,3}")
_WHOLE = re.compile(r"[0-9]{1,12}")


class PhhError(ValueError):
    """A hand history that cannot become a case; the message starts with the file name."""


@dataclass(frozen=True, kw_only=True)
class Move:
    """One player action of the history: `code` is PHH's (pb, f, cc, cbr, sm)."""

    number: int  # index in `actions`, for messages
    text: str
    seat: int
    code: str
    amount: int | None = None
    show: bool = False
    #: how many cards the seats hold when it is made (3 = third street): who acted first on each street
    cards: int = 3
    #: the cards `sm CARDS` shows, in the order dealt (None for `??`)
    shown: tuple[Card | None, ...] = ()


@dataclass(kw_only=True)
class History:
    """The parts of a PHH file a case needs, checked."""

    variant: Variant
    stakes: Stakes
    seats: list[SeatSetup]
    cards: dict[int, list[Card | None]]
    moves: list[Move]
    finishing: list[int] | None
    options: dict[str, Any]
    deck: tuple[Card, ...] | None
    remade_stub: tuple[Card, ...] | None
    hand: str | None
    notes: list[str] = field(default_factory=list)


def import_text(text: str, *, source: str, case_id: str | None = None) -> dict[str, Any]:
    """The case skeleton (plain data in case-file order) for the PHH text read from `source`."""
    try:
        data = toml.loads(text)
    except toml.TomlError as exc:
        raise PhhError(f"{source}: not valid TOML: {exc}") from None
    history = _read(data, source)
    steps, final_note = _steps(history, source)
    prefix = VARIANT_PREFIXES[history.variant.value]
    digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:6].upper()
    case: dict[str, Any] = {
        "id": case_id or f"{prefix}-PHH-{digest}",
        "title": f"Imported from {source.rsplit('/', 1)[-1]}" + (f" (hand {history.hand})" if history.hand else ""),
        "rules": [IMPORTED_RULE],
        "tags": ["generated"],
        "generated": True,
        "variant": history.variant.value,
    }
    if history.options:
        case["options"] = dict(history.options)
    case["stakes"] = history.stakes.to_json()
    if history.deck is not None:
        case["seats"] = {s.seat: {"stack": s.stack} for s in history.seats}
        case["deck"] = " ".join(map(str, history.deck))
        if history.remade_stub is not None:
            case["remade_stub"] = " ".join(map(str, history.remade_stub))
    else:
        case["seats"] = {s.seat: {"stack": s.stack, "cards": " ".join(_card_text(c) for c in history.cards[s.seat])}
                         for s in history.seats}
    case["steps"] = steps
    if history.finishing is not None and final_note is None:
        case["final"] = {"stacks": {s.seat: stack for s, stack in zip(history.seats, history.finishing)}}
    notes = [f"Imported by `studcheck import` from {source}. The steps are the history's actions as the reference "
             f"engine names them; {_final_text(history, final_note)} Before this case joins the suite: "
             "cite the rules it tests instead of TODO, work out its expectations from the rules (add expect steps), "
             "and drop `generated` (docs/hand-histories.md)."]
    notes += history.notes + ([final_note] if final_note else [])
    case["note"] = " ".join(notes)
    return case


def _final_text(history: History, final_note: str | None) -> str:
    """What the skeleton's `final` holds, said exactly: the note must not claim stacks the case lacks."""
    if history.finishing is None:
        return ("the history has no finishing_stacks, so the skeleton has no final: work out the final stacks "
                "from the rules.")
    if final_note is not None:
        return "the history's finishing_stacks are not used and the skeleton has no final (why: the end of this note)."
    return ("final.stacks are the history's finishing_stacks, which the reference engine's replay of the steps "
            "also ends with.")


def case_yaml(case: Mapping[str, Any]) -> str:
    """The skeleton as a case file, laid out like hand-written ones: one seat, step or pot per line."""
    lines = ["# A case skeleton imported from a PHH hand history: see its note."]
    for key, value in case.items():
        if key == "steps" and value:
            lines.append("steps:")
            lines += [f"  - {_item(step)}" for step in value]
        elif isinstance(value, Mapping) and any(isinstance(item, Mapping) for item in value.values()):
            lines.append(f"{key}:")
            lines += [f"  {_flow(sub)}: {_flow(item)}" for sub, item in value.items()]
        else:
            lines.append(f"{key}: {_flow(value)}")
    return "\n".join(lines) + "\n"


def _item(step: Mapping[str, Any]) -> str:
    """`act: 2 call 5` or `reject: {act: 1 call, reason: out_of_turn}`."""
    key, value = next(iter(step.items()))
    return f"{key}: {_flow(value)}"


def _flow(value: Any) -> str:
    """One YAML value on one line (flow style, quoted where YAML needs it)."""
    text = yaml.safe_dump(value, default_flow_style=True, width=100000, allow_unicode=True, sort_keys=False).strip()
    return text.removesuffix("\n...").strip()


def _card_text(card: Card | None) -> str:
    return "??" if card is None else str(card)


# --- reading the PHH fields ---------------------------------------------------------------------


def _read(data: Mapping[str, Any], source: str) -> History:
    def fail(message: str) -> PhhError:
        return PhhError(f"{source}: {message}")

    code = data.get("variant")
    if not isinstance(code, str) or code not in _VARIANTS:
        known = ", ".join(_VARIANTS)
        raise fail(f"variant: {code!r} is not a stud variant studcheck knows (PHH codes: {known})")
    for name in ("antes", "bring_in", "small_bet", "big_bet", "starting_stacks", "actions"):
        if name not in data:
            raise fail(f"{name}: missing (a PHH {code} hand needs it)")
    stacks = _int_list(data["starting_stacks"], "starting_stacks", fail)
    ante = _one_ante(data["antes"], len(stacks), fail)
    try:
        stakes = Stakes(ante=ante, bring_in=data["bring_in"], small_bet=data["small_bet"], big_bet=data["big_bet"])
    except SetupError as exc:
        raise fail(str(exc)) from None
    numbers = _seat_numbers(data.get("seats"), len(stacks), fail)
    seats = [SeatSetup(seat=number, stack=stack) for number, stack in zip(numbers, stacks)]
    if not isinstance(data["actions"], list) or not all(isinstance(a, str) for a in data["actions"]):
        raise fail("actions: must be a list of strings")
    cards: dict[int, list[Card | None]] = {number: [] for number in numbers}
    moves: list[Move] = []
    for number, text in enumerate(data["actions"]):
        _read_action(number, text, numbers, cards, moves, fail)
    finishing = _int_list(data["finishing_stacks"], "finishing_stacks", fail) if "finishing_stacks" in data else None
    if finishing is not None and len(finishing) != len(stacks):
        raise fail(f"finishing_stacks: {len(finishing)} stacks for {len(stacks)} players")
    history = History(variant=_VARIANTS[code], stakes=stakes, seats=seats, cards=cards, moves=moves, finishing=finishing,
                      options=_options(data, fail), deck=_cards_field(data, "_studcheck_deck", fail),
                      remade_stub=_cards_field(data, "_studcheck_remade_stub", fail),
                      hand=None if data.get("hand") is None else str(data["hand"]))
    shown = _merge_shown(history, fail)
    if shown:
        said = "; ".join(f"seat {seat}'s {card_name(number, history.variant)} {card}" for seat, number, card in shown)
        history.notes.append(f"Cards the history deals unknown (??) and shows at showdown are the cards shown ({said}).")
    if history.deck is None and any(card is None for dealt in cards.values() for card in dealt):
        filled = _fill_up_cards(history, fail)
        said = "; ".join(f"seat {seat}'s {card_name(number, history.variant)} {card}" for seat, number, card in filled)
        history.notes.append(
            "Some dealt cards are unknown (??) in the history. "
            + (f"Unknown up cards are given cards under which the history's seats bring in and act first ({said}); "
               if filled else "")
            + "unknown down cards get the unused cards in canonical order. Down cards never decide who brings in or "
            "acts first, but any filled card may change who wins at showdown: fill them in.")
    return history


def _merge_shown(history: History, fail: Any) -> list[tuple[int, int, Card]]:
    """Cards shown at showdown (`sm CARDS`, in the order dealt) fill the seat's unknown dealt cards.

    A shown card that contradicts a known dealt card, or more cards shown than dealt, is an error:
    no deal produces that history. Returns (seat, card number, card) for each card filled.
    """
    filled: list[tuple[int, int, Card]] = []
    for move in history.moves:
        dealt = history.cards[move.seat]
        if len(move.shown) > len(dealt):
            raise fail(f"actions[{move.number}] {move.text!r}: shows {len(move.shown)} cards, but the history deals "
                       f"seat {move.seat} {len(dealt)}")
        for number, card in enumerate(move.shown):
            if card is None or dealt[number] == card:
                continue
            if dealt[number] is not None:
                raise fail(f"actions[{move.number}] {move.text!r}: shows {card} as seat {move.seat}'s "
                           f"{card_name(number, history.variant)}, but the history deals it {dealt[number]}")
            dealt[number] = card
            filled.append((move.seat, number, card))
    return filled


def _fill_up_cards(history: History, fail: Any) -> list[tuple[int, int, Card]]:
    """Cards for the unknown up cards that keep the history's bring-in and first actors (phh.unknown).

    Cards no deal produces (a card twice, more cards than the deck deals) are left to _steps, which
    says so; there is nothing to search then.
    """
    options = Options.from_json(history.options)
    try:
        build_deck(history.cards, burn_cards=options.burn_cards, short_stub=options.short_stub)
    except DeckError:
        return []
    found = unknown.decisions(history.variant, options, history.stakes, history.seats, history.cards, history.moves)
    try:
        return unknown.fill_up_cards(history.variant, options, history.cards, found, budget=unknown.BUDGET)
    except unknown.FillError as exc:
        raise fail(str(exc)) from None


def _int_list(value: Any, name: str, fail: Any) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise fail(f"{name}: must be a list of whole numbers, got {value!r}")
    return list(value)


def _one_ante(value: Any, players: int, fail: Any) -> int:
    """PHH antes are per player; a studcheck hand has one ante for everybody."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    antes = _int_list(value, "antes", fail)
    if len(set(antes)) != 1 or len(antes) not in (1, players):
        raise fail(f"antes: studcheck's stud has one ante for every player, got {antes}")
    return antes[0]


def _seat_numbers(value: Any, players: int, fail: Any) -> list[int]:
    if value is None:
        numbers = list(range(1, players + 1))
    else:
        numbers = _int_list(value, "seats", fail)
    if len(numbers) != players or len(set(numbers)) != players or not all(1 <= n <= 8 for n in numbers):
        raise fail(f"seats: {players} distinct seat numbers from 1 to 8 needed, got {numbers}")
    if numbers != sorted(numbers):
        raise fail(f"seats: players p1, p2, ... must sit in ascending seat order (stud deals from seat 1), got {numbers}")
    if not 2 <= players <= 8:
        raise fail(f"starting_stacks: a stud hand has 2 to 8 players, got {players}")
    return numbers


def _options(data: Mapping[str, Any], fail: Any) -> dict[str, Any]:
    """The case's named options when studcheck wrote the file, else the PHH game's differences from the defaults."""
    named = data.get("_studcheck_options")
    if named is None:
        return dict(PHH_GAME_OPTIONS)
    if not isinstance(named, dict):
        raise fail("_studcheck_options: must be a table of option names and values")
    try:
        Options.from_json(named)
    except SetupError as exc:
        raise fail(f"_studcheck_options: {exc}") from None
    return dict(named)


def _cards_field(data: Mapping[str, Any], name: str, fail: Any) -> tuple[Card, ...] | None:
    value = data.get(name)
    if value is None:
        return None
    try:
        return tuple(parse_card(text) for text in str(value).split())
    except CardError as exc:
        raise fail(f"{name}: {exc}") from None


def _split_cards(text: str) -> list[Card | None]:
    if len(text) % 2:
        raise CardError(f"{text!r} is not a run of two-character cards")
    return [None if text[i:i + 2] == "??" else parse_card(text[i:i + 2]) for i in range(0, len(text), 2)]


def _read_action(number: int, text: str, seats: Sequence[int], cards: dict[int, list[Card | None]],
                 moves: list[Move], fail: Any) -> None:
    words = text.split("#", 1)[0].split()
    where = f"actions[{number}] {text!r}"
    held = max(len(dealt) for dealt in cards.values())

    def seat_of(label: str) -> int:
        if not (_PLAYER.fullmatch(label) and 1 <= int(label[1:]) <= len(seats)):
            raise fail(f"{where}: no player {label!r} (p1 to p{len(seats)})")
        return seats[int(label[1:]) - 1]

    try:
        match words:
            case []:
                return
            case ["d", "dh", label, dealt]:
                cards[seat_of(label)].extend(_split_cards(dealt))
            case ["d", "db", *_]:
                raise fail(f"{where}: a board card; studcheck's stud cases have no community card to import")
            case [label, ("pb" | "f" | "cc") as code]:
                moves.append(Move(number=number, text=text, seat=seat_of(label), code=code, cards=held))
            case [label, "cbr", amount] if _WHOLE.fullmatch(amount):
                moves.append(Move(number=number, text=text, seat=seat_of(label), code="cbr", amount=int(amount), cards=held))
            case [label, "sm"]:
                moves.append(Move(number=number, text=text, seat=seat_of(label), code="sm", show=False, cards=held))
            case [label, "sm", shown]:
                cards_shown = () if shown == "-" else tuple(_split_cards(shown))
                moves.append(Move(number=number, text=text, seat=seat_of(label), code="sm", show=True, cards=held,
                                  shown=cards_shown))
            case _:
                raise fail(f"{where}: not a PHH stud action (d dh, pb, f, cc, cbr AMOUNT, sm)")
    except CardError as exc:
        raise fail(f"{where}: {exc}") from None


# --- naming the actions on the reference engine ---------------------------------------------------


def _steps(history: History, source: str) -> tuple[list[dict[str, Any]], str | None]:
    """The act steps (and at most one final reject); the second value says why `final` is left out, if it is."""
    from studcheck.engine import Hand

    options = Options.from_json(history.options)
    try:
        deck = history.deck or build_deck(history.cards, burn_cards=options.burn_cards, short_stub=options.short_stub)
        hand = Hand(variant=history.variant, options=options, stakes=history.stakes, seats=history.seats,
                    deck=deck, remade_stub=history.remade_stub, events=True)
    except (DeckError, ValueError) as exc:
        raise PhhError(f"{source}: the dealt cards and stacks make no studcheck hand: {exc}") from None
    steps: list[dict[str, Any]] = []
    # PHH shows all-in hands as soon as the betting ends; the engine asks for shows at showdown, in its order.
    waiting: list[Move] = []
    for move in history.moves:
        if move.code == "sm":
            waiting.append(move)
        else:
            refused = _apply(hand, move, steps)
            if refused:
                return steps, refused
        while hand.street.value == "showdown":
            ready = next((m for m in waiting if m.seat == hand.to_act), None)
            if ready is None:
                break
            waiting.remove(ready)
            refused = _apply(hand, ready, steps)
            if refused:
                return steps, refused
    if waiting:
        history.notes.append(f"The reference engine did not ask for {len(waiting)} of the history's show/muck actions "
                             f"({', '.join(repr(m.text) for m in waiting)}).")
    _check_dealt(hand, history, source)
    return steps, _final_note(hand, history)


def _apply(hand: Any, move: Move, steps: list[dict[str, Any]]) -> str | None:
    """Apply `move` and add its step; on a refusal add a reject step and return why final is left out."""
    from studcheck.engine import IllegalAction

    action = _name(hand, move)
    try:
        hand.apply(action)
    except IllegalAction as exc:
        steps.append({"reject": {"act": _act_text(action), "reason": exc.reason.value}})
        return (f"The reference engine refuses actions[{move.number}] {move.text!r} ({exc.reason.value}: "
                f"{exc.message}); the steps stop there.")
    steps.append({"act": _act_text(action)})
    return None


def _name(hand: Any, move: Move) -> Any:
    """The engine Action a PHH move stands for (a best guess when no legal action matches)."""
    from studcheck.engine import Action

    legal = {item.action: item.amount for item in hand.legal_actions()}
    kind: ActionType
    if move.code == "pb":
        kind = ActionType.BRING_IN
    elif move.code == "f":
        kind = ActionType.FOLD
    elif move.code == "cc":
        kind = ActionType.CHECK if ActionType.CHECK in legal else ActionType.CALL
    elif move.code == "cbr":
        kind = next((k for k in _WAGERS if k in legal), ActionType.RAISE)
        return Action(seat=move.seat, action=kind, amount=move.amount)
    else:
        kind = ActionType.SHOW if move.show else ActionType.MUCK
    return Action(seat=move.seat, action=kind, amount=legal.get(kind))


def _act_text(action: Any) -> str:
    text = f"{action.seat} {action.action.value}"
    return text if action.amount is None else f"{text} {action.amount}"


def _check_dealt(hand: Any, history: History, source: str) -> None:
    """The deck must deal what the history lists (a `_studcheck_deck` that does not match is an error)."""
    dealt: dict[int, list[str]] = {}
    for event in hand.events:
        if event.get("event") == "deal":
            dealt.setdefault(int(event["seat"]), []).append(str(event["card"]))
    for seat, listed in history.cards.items():
        got = dealt.get(seat, [])
        for number, card in enumerate(listed):
            if card is not None and (number >= len(got) or got[number] != str(card)):
                raise PhhError(f"{source}: seat {seat} is dealt {' '.join(got) or 'nothing'} from the deck, "
                               f"but the history deals it {' '.join(_card_text(c) for c in listed)}")


def _final_note(hand: Any, history: History) -> str | None:
    if history.finishing is None:
        return None
    if hand.result is None:
        return "The history's actions end before the reference engine's hand does: final is left out."
    engine = [int(hand.result["stacks"][str(seat.seat)]) for seat in history.seats]
    if engine != history.finishing:
        filled = history.deck is None and any(card is None for dealt in history.cards.values() for card in dealt)
        return (f"The reference engine ends with stacks {engine}, the history with {history.finishing}: final is left "
                "out until someone decides from the rules which is right"
                + (" (the filled unknown cards may be why: they can change who wins)." if filled else "."))
    return None
