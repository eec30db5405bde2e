"""A PHH hand history as a case skeleton: deck, seats, stakes, the actions as steps, final stacks.

PHH says `cc` and `cbr 10`; a case says `call 5` or `raise 10`. The reference engine names each
action: the history is replayed on it and every action becomes the legal action it matches. If the
engine refuses one (a disputed hand), that action becomes a `reject` step with the engine's reason
and the replay stops there. The skeleton is marked `generated` and cites the rule `TODO`, so
`studcheck lint` says what a human must add before it joins the suite. Unknown (`??`) up cards are
filled so that they decide neither the bring-in nor any first actor (_fill_up_cards); the note
says what the skeleton's `final` holds and which cards were filled.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from studcheck.cards import FULL_DECK, Card, CardError, parse_card
from studcheck.cases.deck import CARD_STREETS, DeckError, build_deck, card_name
from studcheck.cases.lint import IMPORTED_RULE, VARIANT_PREFIXES
from studcheck.phh import toml
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
    if history.deck is None and any(card is None for dealt in cards.values() for card in dealt):
        filled = _fill_up_cards(history, source)
        said = "; ".join(f"seat {seat}'s {card_name(number, history.variant)} {card}" for seat, number, card in filled)
        history.notes.append(
            "Some dealt cards are unknown (??) in the history. "
            + (f"Unknown up cards are given cards that keep the history's bring-in and first actors ({said}); " if filled
               else "")
            + "unknown down cards get the unused cards in canonical order. Down cards never decide who brings in or "
            "acts first, but any filled card may change who wins at showdown: fill them in.")
    return history


#: cards tried in all before an unknown up card is refused (a search that cannot succeed stops here)
_FILL_BUDGET = 20000
#: the up cards of a seven-card seat (door, fourth, fifth, sixth street) by index in its dealt cards
_UP_CARDS = (2, 3, 4, 5)


@dataclass(frozen=True, kw_only=True)
class _Decision:
    """Who brings in (cards=3) or acts first (cards=4..7) on a street, and who the history says acted first."""

    cards: int
    seats: tuple[int, ...]
    target: int | None

    def board(self, dealt: Sequence[Card | None]) -> list[Card | None]:
        return list(dealt[2:min(self.cards, 6)])


def _fill_up_cards(history: History, source: str) -> list[tuple[int, int, Card]]:
    """Give each unknown up card a card that changes neither the bring-in nor any street's first actor.

    A decision is kept when it names the seat the history shows acting first on that street if that
    seat's board is unknown, and otherwise the seat it names among the seats whose boards are known
    (the unknown cards are then irrelevant: a disputed history stays disputed, by its known cards).
    A street nobody acts on in the history has no first actor to keep. The search is depth-first
    over the unknown up cards (door cards first), trying first the cards least (or, for the seat
    that must act first, most) likely to decide; it refuses when no card works or after
    _FILL_BUDGET tries. Not modelled: a decision won by a seat that is all-in, so that the next
    seat acts first; with that seat's card unknown the import refuses rather than guess.
    The history's cards are updated in place; returns (seat, card number, card) for each filled card.
    """
    from functools import cmp_to_key

    from studcheck.engine.betting import bring_in_seat, first_actor_seat

    options = Options.from_json(history.options)
    cards = history.cards
    slots = [(seat, number) for number in _UP_CARDS for seat in sorted(cards)
             if number < len(cards[seat]) and cards[seat][number] is None]
    if not slots:
        return []
    unknown = set(slots)
    decisions: list[_Decision] = []
    folded: set[int] = set()
    for held in range(3, 8):
        street = [m for m in history.moves if m.cards == held and m.code != "sm"]
        seats = tuple(seat for seat in sorted(cards) if len(cards[seat]) >= held and seat not in folded)
        decisions.append(_Decision(cards=held, seats=seats, target=street[0].seat if street else None))
        folded |= {m.seat for m in street if m.code == "f"}

    def decide(decision: _Decision, seats: Sequence[int]) -> int:
        if decision.cards == 3:
            return bring_in_seat(history.variant, options, {seat: _known(cards[seat][2]) for seat in seats})
        return first_actor_seat(history.variant, options,
                                {seat: [_known(c) for c in decision.board(cards[seat])] for seat in seats})

    def unknown_seats(decision: _Decision) -> set[int]:
        return {seat for seat in decision.seats
                if any((seat, number) in unknown for number in range(2, min(decision.cards, 6)))}

    def kept(decision: _Decision) -> bool:
        """False once the cards so far already change the decision; true when they cannot yet tell.

        The seat that must win, if its board is complete, must beat every complete board: it is the
        best of all boards only if it is the best of any of them that includes it.
        """
        blind = unknown_seats(decision)
        if not blind or decision.target is None:  # nobody acts on that street in the history: nothing to keep
            return True
        known = [seat for seat in decision.seats if seat not in blind]
        winner = decision.target if decision.target in blind else decide(decision, known) if known else None
        if winner is None or not _complete_board(decision, cards[winner]):
            return True
        return decide(decision, [seat for seat in decision.seats
                                 if _complete_board(decision, cards[seat])]) == winner

    def first_of(a: Card, b: Card, held: int) -> int:
        """-1 when `a` would decide before `b` (bring in, or act first with it alone)."""
        if held == 3:
            return -1 if bring_in_seat(history.variant, options, {1: a, 2: b}) == 1 else 1
        return -1 if first_actor_seat(history.variant, options, {1: [a], 2: [b]}) == 1 else 1

    known = {card for dealt in cards.values() for card in dealt if card is not None}
    pools: list[list[Card]] = []
    for seat, number in slots:
        held = max(3, number + 1)

        def order(a: Card, b: Card) -> int:
            return first_of(a, b, held)

        pool = sorted((c for c in FULL_DECK if c not in known), key=cmp_to_key(order))
        role = next(d for d in decisions if d.cards == held)
        pools.append(pool if role.target == seat else pool[::-1])
    budget = [_FILL_BUDGET]
    stuck = [0]

    def place(index: int, used: set[Card]) -> bool:
        """Depth-first: fill slots[index:], backing up when a later card cannot keep a decision."""
        if index == len(slots):
            return True
        seat, number = slots[index]
        stuck[0] = max(stuck[0], index)
        for card in pools[index]:
            if card in used or budget[0] <= 0:
                continue
            budget[0] -= 1
            cards[seat][number] = card
            if all(kept(d) for d in decisions if seat in d.seats):
                if place(index + 1, used | {card}):
                    return True
                if budget[0] <= 0:
                    break
        cards[seat][number] = None
        return False

    if not place(0, set()):
        for seat, number in slots:
            cards[seat][number] = None
        seat, number = slots[stuck[0]]
        held = max(3, number + 1)
        what = "the bring-in" if held == 3 else f"who acts first on {CARD_STREETS[number].value} street"
        raise PhhError(f"{source}: seat {seat}'s {card_name(number, history.variant)} is unknown (??) and no "
                       f"unused card keeps {what} as the history plays it: write the card in the history")
    return [(seat, number, _known(cards[seat][number])) for seat, number in slots]


def _complete_board(decision: _Decision, dealt: Sequence[Card | None]) -> bool:
    """Every card of the seat's board for this decision is known or already filled."""
    return all(card is not None for card in decision.board(dealt))


def _known(card: Card | None) -> Card:
    assert card is not None
    return card


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
                if shown != "-":
                    _split_cards(shown)  # checked only: the case's cards are the dealt ones
                moves.append(Move(number=number, text=text, seat=seat_of(label), code="sm", show=True, cards=held))
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
                    deck=deck, remade_stub=history.remade_stub)
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
