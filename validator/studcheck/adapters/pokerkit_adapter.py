"""PokerKit 0.7.7 behind the studcheck engine protocol v1.

Run: `studcheck run --engine "python -m studcheck.adapters.pokerkit_adapter"` (needs
`pip install 'studcheck[pokerkit]'`). The adapter only translates: PokerKit's state machine decides
who acts, what is legal, the pots and the awards; the adapter feeds it the protocol's cards in the
protocol's dealing order and reports PokerKit's answers in the protocol's shapes. Where PokerKit
cannot be configured for a rule option, `hello` does not declare that value, so the harness reports
those cases as not applicable instead of failed (docs/conformance/pokerkit.md).

PokerKit is imported lazily (inside `PokerKitHand`), so this module imports without it.
"""

from __future__ import annotations

import importlib
import json
import sys
import traceback
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

PROTOCOL = 1
ENGINE_NAME = "pokerkit"
VARIANTS = ("stud_high", "razz", "stud_hilo8")
STREETS = ("third", "fourth", "fifth", "sixth", "seventh")
ACTIONS = ("fold", "check", "call", "bring_in", "complete", "bet", "raise", "show", "muck")  # canonical order

# What PokerKit can be configured to do; the evidence for every value is in docs/conformance/pokerkit.md.
OPTIONS: dict[str, Any] = {
    "bring_in_tie": ["suit"],  # Opening.LOW_CARD / HIGH_CARD compare (rank, suit) with c<d<h<s
    "first_actor_tie": ["seat"],  # LOW_HAND / HIGH_HAND: entries.index(best) = lowest player index
    "open_pair_double": [False],  # no open-pair logic: a street has one fixed bet size
    "max_raises": [3, 4],  # Street.max_completion_betting_or_raising_count = bet + max_raises
    "heads_up": ["capped"],  # the count is static per street; never lifted heads-up
    "burn_cards": [True, False],  # Street.card_burning_status
    "short_stub": ["remake"],  # PokerKit's own count (deck + burns + muck); see the conformance report
    "odd_chip": ["best_five"],  # PokerKit gives odd chips to the lowest index: no value matches; default kept
    "showdown_unbet": ["first_actor"],  # showdown starts at opener_index (the street's first actor)
    "rake_percent": "any",  # pokerkit.utilities.rake(percentage, cap), applied per pot
    "rake_cap": "any",
}

_HOLE_DEALING = ((False, False, True), (True,), (True,), (True,), (False,))


class Refused(Exception):
    """A request the adapter answers with `ok: false` and a protocol reason code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass(frozen=True, kw_only=True)
class Legal:
    """One legal action as the protocol lists it ("to" amount or None)."""

    action: str
    amount: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action} if self.amount is None else {"action": self.action, "amount": self.amount}


def _engine_version() -> str:
    try:
        from importlib.metadata import version

        return version("pokerkit")
    except Exception:  # noqa: BLE001 - any failure means "not installed"
        return "not installed"


def hello_response(seq: Any) -> dict[str, Any]:
    return {
        "seq": seq, "ok": True, "protocol": PROTOCOL,
        "engine": {"name": ENGINE_NAME, "version": _engine_version(),
                   "homepage": "https://github.com/uoftcprg/pokerkit",
                   "adapter": "studcheck.adapters.pokerkit_adapter"},
        "variants": list(VARIANTS), "options": OPTIONS,
    }


def _check_setup(request: Mapping[str, Any]) -> None:
    """Refuse what the protocol calls a bad setup, and values PokerKit was not declared for."""
    variant = request.get("variant")
    if variant not in VARIANTS:
        raise Refused("bad_request", f"variant: unknown variant {variant!r}")
    options = request.get("options")
    if not isinstance(options, dict) or not set(OPTIONS) <= set(options):
        raise Refused("bad_request", "options: every option must be given")
    for name in OPTIONS:
        value, allowed = options[name], OPTIONS[name]
        if allowed == "any":
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise Refused("bad_request", f"options.{name}: must be a non-negative integer")
        elif value not in allowed or isinstance(value, bool) != isinstance(allowed[0], bool):
            raise Refused("unsupported", f"options.{name}={json.dumps(value)} is not supported by PokerKit")
    if options["rake_percent"] > 100:
        raise Refused("bad_request", "options.rake_percent: must be at most 100")
    stakes = request.get("stakes")
    if not isinstance(stakes, dict) or set(stakes) != {"ante", "bring_in", "small_bet", "big_bet"}:
        raise Refused("bad_request", "stakes: needs ante, bring_in, small_bet, big_bet")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in stakes.values()):
        raise Refused("bad_request", "stakes: amounts must be integers")
    if stakes["ante"] < 0:
        raise Refused("bad_request", "stakes.ante: must not be negative")
    if not 0 < stakes["bring_in"] < stakes["small_bet"]:
        raise Refused("bad_request", "stakes.bring_in: must be more than 0 and less than the small bet")
    if stakes["small_bet"] > stakes["big_bet"]:
        raise Refused("bad_request", "stakes.small_bet: must not exceed the big bet")
    seats = request.get("seats")
    if not isinstance(seats, list) or not 2 <= len(seats) <= 8:
        raise Refused("bad_request", "seats: 2 to 8 seats")
    numbers = [s.get("seat") if isinstance(s, dict) else None for s in seats]
    if any(not isinstance(n, int) or not 1 <= n <= 8 for n in numbers) or len(set(numbers)) != len(numbers):
        raise Refused("bad_request", "seats: seat numbers must be unique, 1 to 8")
    if any(not isinstance(s.get("stack"), int) or s["stack"] <= 0 for s in seats):
        raise Refused("bad_request", "seats: every stack must be a positive integer")
    deck = request.get("deck")
    if not isinstance(deck, list) or len(deck) != 52 or len(set(deck)) != 52 or not all(_is_card(c) for c in deck):
        raise Refused("bad_request", "deck: must be the 52 distinct cards")


def _is_card(text: Any) -> bool:
    return isinstance(text, str) and len(text) == 2 and text[0] in "23456789TJQKA" and text[1] in "cdhs"


class PokerKitHand:
    """One hand: a PokerKit `State` plus the protocol bookkeeping PokerKit has no field for.

    Everything the game decides comes from the state; the adapter only remembers the seat numbers,
    the stub it deals from, and the order in which it asked players to show.
    """

    def __init__(self, request: Mapping[str, Any]) -> None:
        _check_setup(request)
        # Imported as Any: studcheck type-checks and runs without PokerKit installed.
        pk: Any = importlib.import_module("pokerkit")
        Automation, BettingStructure, Deck, Mode, Opening, State, Street = (
            pk.Automation, pk.BettingStructure, pk.Deck, pk.Mode, pk.Opening, pk.State, pk.Street)
        EightOrBetterLowHand, RegularLowHand, StandardHighHand = (
            pk.EightOrBetterLowHand, pk.RegularLowHand, pk.StandardHighHand)
        rake = importlib.import_module("pokerkit.utilities").rake

        variant: str = request["variant"]
        options: Mapping[str, Any] = request["options"]
        stakes: Mapping[str, int] = request["stakes"]
        ordered = sorted(request["seats"], key=lambda s: int(s["seat"]))
        self.variant = variant
        self.seats: list[int] = [int(s["seat"]) for s in ordered]
        self.stub: list[str] = list(request["deck"])
        stub_order = request.get("remade_stub")
        self.remake_order: list[str] = list(stub_order) if isinstance(stub_order, list) else []
        self.showdown_order: list[int] = []
        self.pots_at_push: list[tuple[int, int, tuple[int, ...]]] | None = None
        self.contested: list[tuple[int, int, tuple[int, ...]]] | None = None
        low = variant == "razz"
        cap = 1 + int(options["max_raises"])
        burn = bool(options["burn_cards"])
        sizes = (stakes["small_bet"], stakes["small_bet"], stakes["big_bet"], stakes["big_bet"], stakes["big_bet"])
        streets = tuple(
            Street(
                index > 0 and burn, _HOLE_DEALING[index], 0, False,
                (Opening.HIGH_CARD if low else Opening.LOW_CARD) if index == 0
                else (Opening.LOW_HAND if low else Opening.HIGH_HAND),
                sizes[index], cap,
            )
            for index in range(5)
        )
        hand_types = {"stud_high": (StandardHighHand,), "razz": (RegularLowHand,),
                      "stud_hilo8": (StandardHighHand, EightOrBetterLowHand)}[variant]
        percent, rake_cap = int(options["rake_percent"]), int(options["rake_cap"])
        automations = (
            Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
        )
        # Cash-game mode: in tournament mode PokerKit refuses a fold when a check is possible.
        self.state: Any = State(
            automations, Deck.REGULAR if low else Deck.STANDARD, hand_types, streets,
            BettingStructure.FIXED_LIMIT, True, stakes["ante"], 0, stakes["bring_in"],
            [int(s["stack"]) for s in ordered], len(ordered),
            mode=Mode.CASH_GAME,
            rake=partial(rake, percentage=percent / 100, cap=rake_cap if rake_cap > 0 else float("inf")),
        )
        self._advance()

    # -- driving PokerKit -------------------------------------------------------------------

    def _next_card(self) -> str:
        """The top card of the stub; when it is used up, PokerKit's reserve (it reshuffles burns and muck).

        PokerKit shuffles the reserve at random; the adapter fixes that shuffle to the reserve in
        PokerKit's own order, sorted by the setup's `remade_stub` preference, so runs are reproducible.
        """
        if not self.stub:
            reserve = [repr(card) for card in self.state.reserved_cards]
            rank = {card: index for index, card in enumerate(self.remake_order)}
            self.stub = sorted(reserve, key=lambda card: rank.get(card, len(rank)))
            if not self.stub:
                raise RuntimeError("PokerKit asked for a card but the deck and its reserve are empty")
        return self.stub.pop(0)

    def _advance(self) -> None:
        """Deal, table all-in hands and push pots until a player decision (or the end) is due."""
        state = self.state
        while True:
            if state.can_burn_card():
                state.burn_card(self._next_card())
            elif state.can_deal_hole():
                state.deal_hole(self._next_card(), state.hole_dealee_index)
            elif state.can_deal_board():
                state.deal_board(self._next_card())
            elif self._early_showdown():
                # PokerKit tables every hand as soon as betting ends with an all-in, before the
                # remaining streets; the protocol has no such step, so PokerKit decides (it shows).
                state.show_or_muck_hole_cards()
            elif state.can_kill_hand():
                self._note_contenders()
                state.kill_hand()
            elif state.can_push_chips():
                self._note_contenders()
                if self.pots_at_push is None:
                    self.pots_at_push = [(pot.amount, pot.raked_amount, pot.player_indices) for pot in state.pots]
                state.push_chips()
            elif state.can_pull_chips():
                state.pull_chips()
            else:
                if self.at_showdown and not self.showdown_order:
                    self._note_contenders()
                return

    def _note_contenders(self) -> None:
        """The pots with their contenders before anyone mucks or PokerKit kills a losing hand."""
        if self.contested is None:
            self.contested = [(pot.amount, pot.raked_amount, pot.player_indices) for pot in self.state.pots]

    def _early_showdown(self) -> bool:
        state = self.state
        return bool(state.showdown_index is not None and state.street is not state.streets[-1])

    # -- reading PokerKit -------------------------------------------------------------------

    @property
    def complete(self) -> bool:
        return not self.state.status

    @property
    def at_showdown(self) -> bool:
        return not self.complete and self.state.actor_index is None and self.state.showdown_index is not None

    def to_act_index(self) -> int | None:
        if self.complete:
            return None
        if self.state.actor_index is not None:
            return int(self.state.actor_index)
        if self.state.showdown_index is not None:
            return int(self.state.showdown_index)
        return None

    def _wager_name(self) -> str:
        if self.state.completion_status:
            return "complete"
        return "bet" if max(self.state.bets) == 0 else "raise"

    def legal(self) -> list[Legal]:
        state = self.state
        index = self.to_act_index()
        if index is None:
            return []
        if self.at_showdown:
            return [Legal(action=name) for name, status in (("show", True), ("muck", False))
                    if state.can_show_or_muck_hole_cards(status, index)]
        found: list[Legal] = []
        committed = int(state.bets[index])
        if state.can_post_bring_in():
            found.append(Legal(action="bring_in", amount=committed + int(state.effective_bring_in_amount)))
        if state.can_complete_bet_or_raise_to():
            low = int(state.min_completion_betting_or_raising_to_amount)
            high = int(state.max_completion_betting_or_raising_to_amount)
            found.extend(Legal(action=self._wager_name(), amount=amount) for amount in sorted({low, high}))
        if state.can_fold():
            found.append(Legal(action="fold"))
        if state.can_check_or_call():
            extra = int(state.checking_or_calling_amount)
            found.append(Legal(action="check") if extra == 0 else Legal(action="call", amount=committed + extra))
        return sorted(found, key=lambda item: (ACTIONS.index(item.action), item.amount or 0))

    # -- actions ----------------------------------------------------------------------------

    def act(self, seat: Any, action: Any, amount: Any, has_amount: bool) -> None:
        if action not in ACTIONS or not isinstance(seat, int) or isinstance(seat, bool):
            raise Refused("bad_request", "act needs an integer seat and one of the protocol's actions")
        if self.complete:
            raise Refused("hand_over", "the hand is over")
        if seat not in self.seats:
            raise Refused("unknown_seat", f"no player sits in seat {seat}")
        index = self.seats.index(seat)
        actor = self.to_act_index()
        if actor != index:
            raise Refused("out_of_turn", f"seat {self.seats[actor] if actor is not None else None} is to act, not seat {seat}")
        if amount is not None and (not isinstance(amount, int) or isinstance(amount, bool)):
            raise Refused("bad_request", "amount: must be an integer")
        if self.at_showdown:
            self._showdown_act(index, action, has_amount)
        else:
            self._betting_act(index, action, amount, has_amount)
        self._advance()

    def _showdown_act(self, index: int, action: Any, has_amount: bool) -> None:
        if action not in ("show", "muck"):
            raise Refused("illegal_action", f"{action} is not a showdown action")
        if has_amount:
            raise Refused("invalid_amount", f"{action} takes no amount")
        status = action == "show"
        try:
            self.state.verify_hole_cards_showing_or_mucking(status, index)
        except ValueError as exc:
            raise Refused("illegal_action", f"PokerKit: {exc}") from None
        self.showdown_order.append(self.seats[index])
        self.state.show_or_muck_hole_cards(status, index)

    def _betting_act(self, index: int, action: Any, amount: int | None, has_amount: bool) -> None:
        state = self.state
        if action in ("show", "muck"):
            raise Refused("illegal_action", f"{action} during a betting round")
        legal = self.legal()
        kinds = {item.action for item in legal}
        if action not in kinds:
            raise Refused(self._refusal_reason(action), self._refusal_message(action, legal))
        amounts = [item.amount for item in legal if item.action == action]
        if action in ("fold", "check"):
            if has_amount:
                raise Refused("invalid_amount", f"{action} takes no amount")
            self._call_pokerkit(state.fold if action == "fold" else state.check_or_call)
        elif action == "call":
            if has_amount and amount not in amounts:
                raise Refused("invalid_amount", f"the call is to {amounts[0]}, not {amount}")
            self._call_pokerkit(state.check_or_call)
        elif action == "bring_in":
            if amount not in amounts:
                raise Refused("invalid_amount", f"the bring-in is to {amounts[0]}, not {amount}")
            self._call_pokerkit(state.post_bring_in)
        else:
            if amount is None:
                raise Refused("invalid_amount", f"{action} needs an amount")
            self._call_pokerkit(partial(state.complete_bet_or_raise_to, amount))

    def _call_pokerkit(self, operation: Any) -> None:
        try:
            operation()
        except ValueError as exc:  # PokerKit verifies before it changes anything
            message = str(exc)
            reason = "invalid_amount" if "amount" in message.lower() else "illegal_action"
            raise Refused(reason, f"PokerKit: {message}") from None

    def _refusal_reason(self, action: Any) -> str:
        """A wager PokerKit refuses for its cap or reopening gets that reason; the rest is illegal_action."""
        if action not in ("complete", "bet", "raise") or action != self._wager_name():
            return "illegal_action"
        if self._wager_pointless() or self._cannot_cover_call():
            return "illegal_action"
        try:
            self.state.verify_completion_betting_or_raising_to()
        except ValueError as exc:
            message = str(exc)
            if message.startswith("No more completion"):
                return "raise_cap_reached"
            if "non-full all-in" in message or message.startswith("Short all-in cannot be raised"):
                return "betting_not_reopened"
        return "illegal_action"

    def _cannot_cover_call(self) -> bool:
        """A seat whose chips do not cover the call may not raise at all: illegal_action comes
        before the cap and reopening (ACTION.REFUSAL); PokerKit reports it as a short all-in."""
        state = self.state
        index = state.actor_index
        return bool(state.stacks[index] <= max(state.bets) - state.bets[index])

    def _wager_pointless(self) -> bool:
        """PokerKit's "every other player has folded or gone all-in" check (state.py:4823-4833).

        PokerKit tests the cap and reopening first; the protocol's reason order puts this one
        (illegal_action) before them.
        """
        state = self.state
        index = state.actor_index
        level = max(state.bets)
        return not any(i != index and state.statuses[i] and state.stacks[i] + state.bets[i] > level
                       for i in range(len(self.seats)))

    def _refusal_message(self, action: Any, legal: Sequence[Legal]) -> str:
        offered = ", ".join(f"{item.action} {item.amount}" if item.amount is not None else item.action for item in legal)
        why = ""
        if action in ("complete", "bet", "raise") and action == self._wager_name():
            try:
                self.state.verify_completion_betting_or_raising_to()
            except ValueError as exc:
                why = f" (PokerKit: {exc})"
        return f"{action} is not legal now{why}; legal: {offered}"

    # -- the protocol state -----------------------------------------------------------------

    def _ops(self, kind: str) -> list[Any]:
        return [op for op in self.state.operations if type(op).__name__ == kind]

    def snapshot(self) -> dict[str, Any]:
        state = self.state
        index = self.to_act_index()
        if self.complete:
            street = "complete"
        elif self.at_showdown:
            street = "showdown"
        else:
            street = STREETS[state.street_index]
        return {
            "street": street,
            "to_act": None if index is None else self.seats[index],
            "legal": [item.to_json() for item in self.legal()],
            "seats": self._seats(),
            "community": self._community(),
            "pots": [] if self.complete else self._pots(),
            "pot_total": 0 if self.complete else int(state.total_pot_amount),
            "result": self._result() if self.complete else None,
        }

    def _community(self) -> str | None:
        boards = self._ops("BoardDealing")
        return repr(boards[0].cards[0]) if boards else None

    def _seats(self) -> list[dict[str, Any]]:
        state = self.state
        up: list[list[str]] = [[] for _ in self.seats]
        down: list[list[str]] = [[] for _ in self.seats]
        for op in self._ops("HoleDealing"):
            for card, face_up in zip(op.cards, op.statuses):
                (up if face_up else down)[op.player_index].append(repr(card))
        folded = {op.player_index for op in self._ops("Folding")}
        shown: set[int] = set()
        mucked: set[int] = set()
        for op in self._ops("HoleCardsShowingOrMucking"):
            if self._is_final_decision(op):
                (shown if op.hole_cards else mucked).add(op.player_index)
        seats = []
        for i, seat in enumerate(self.seats):
            seats.append({
                "seat": seat, "stack": int(state.stacks[i]), "committed": 0 if self.complete else int(state.bets[i]),
                "folded": i in folded, "all_in": i not in folded and state.stacks[i] == 0,
                "up": up[i], "down": down[i], "shown": i in shown, "mucked": i in mucked,
            })
        return seats

    def _is_final_decision(self, op: Any) -> bool:
        """Show/muck decisions the harness asked for (PokerKit's all-in tabling is not one)."""
        position = self.state.operations.index(op)
        later_deals = any(type(o).__name__ in ("HoleDealing", "BoardDealing") for o in self.state.operations[position:])
        return not later_deals

    def _pots(self) -> list[dict[str, Any]]:
        # At showdown PokerKit drops a player from its pots when he mucks; the protocol's pots keep
        # their contenders until the awards, so the pots as the showdown began are reported.
        pots = self.contested if self.at_showdown and self.contested is not None else [
            (pot.amount, pot.raked_amount, pot.player_indices) for pot in self.state.pots]
        return [{"amount": int(amount), "eligible": [self.seats[i] for i in indices]} for amount, _raked, indices in pots]

    def _result(self) -> dict[str, Any]:
        state = self.state
        if self.pots_at_push is None:  # nothing to push (a 100% rake): the pots as PokerKit closed them
            self.pots_at_push = [(pot.amount, pot.raked_amount, pot.player_indices) for pot in state.pots]
        returned = self._returned()
        pushed = self._pushed_pots()
        contested = list(self.contested or self.pots_at_push or [])
        pots: list[dict[str, Any]] = []
        for (amount, raked, indices), shares in zip(self.pots_at_push or [], pushed):
            # pots_at_push holds PokerKit's whole pots (raked + unraked); contested pots match them by that.
            parts = self._constituents(amount, contested)
            split = self._split_merged(parts, shares) if len(parts) > 1 else None
            if split is not None:
                pots.extend(split)
            else:
                eligible = parts[0][2] if parts else indices
                pots.append(self._pot_entry(amount - raked, eligible, shares))
        self._fold_win_matched_chips(pots, returned)
        return {
            "pots": pots,
            "rake": int(sum(raked for _amount, raked, _indices in self.pots_at_push or [])),
            "returned": {str(self.seats[i]): chips for i, chips in sorted(returned.items()) if chips},
            "showdown_order": list(self.showdown_order),
            "stacks": {str(seat): int(state.stacks[i]) for i, seat in enumerate(self.seats)},
        }

    def _pushed_pots(self) -> list[dict[int | None, dict[int, int]]]:
        """Per PokerKit pot: chips pushed to each player, keyed by hand type (None: uncontested push)."""
        shares: list[dict[int | None, dict[int, int]]] = [{} for _ in self.pots_at_push or []]
        for op in self._ops("ChipsPushing"):
            bucket = shares[op.pot_index].setdefault(op.hand_type_index, {})
            for i, chips in enumerate(op.amounts):
                if chips:
                    bucket[i] = bucket.get(i, 0) + int(chips)
        return shares

    def _split_merged(
        self, parts: list[tuple[int, int, tuple[int, ...]]], shares: dict[int | None, dict[int, int]],
    ) -> list[dict[str, Any]] | None:
        """Undo PokerKit's merge of pots whose contenders became the same after mucks and kills.

        Only when it is unambiguous: every share (whole pot, or high and low half) went to one
        player, and paying each original pot by PokerKit's own split gives exactly what it paid.
        """
        if any(len(bucket) != 1 for bucket in shares.values()):
            return None
        entries: list[dict[str, Any]] = []
        paid: dict[int | None, int] = {}
        for part_amount, part_raked, part_indices in parts:
            unraked = part_amount - part_raked
            part_shares: dict[int | None, dict[int, int]] = {}
            for key, bucket in shares.items():
                (winner,) = bucket
                chips = unraked if len(shares) == 1 else (unraked - unraked // 2 if key == 0 else unraked // 2)
                part_shares[key] = {winner: chips}
                paid[key] = paid.get(key, 0) + chips
            entries.append(self._pot_entry(unraked, part_indices, part_shares))
        if any(paid.get(key) != sum(bucket.values()) for key, bucket in shares.items()):
            return None
        return entries

    @staticmethod
    def _constituents(
        amount: int, contested: list[tuple[int, int, tuple[int, ...]]],
    ) -> list[tuple[int, int, tuple[int, ...]]]:
        """The contested pots (in order) that make up one awarded pot; consumes them from `contested`."""
        parts: list[tuple[int, int, tuple[int, ...]]] = []
        total = 0
        while contested and total < amount:
            part = contested.pop(0)
            parts.append(part)
            total += part[0]
        return parts if total == amount else []

    def _pot_entry(self, amount: int, indices: tuple[int, ...], shares: dict[int | None, dict[int, int]]) -> dict[str, Any]:
        # The amount awarded: after the rake (PokerKit's unraked part), as the protocol's result pots are.
        entry: dict[str, Any] = {"amount": int(amount), "eligible": [self.seats[i] for i in indices]}
        if self.variant != "stud_hilo8":
            winners: dict[int, int] = {}
            for bucket in shares.values():
                for i, chips in bucket.items():
                    winners[i] = winners.get(i, 0) + chips
            entry["winners"] = self._keyed(winners)
            return entry
        high = dict(shares.get(0, {}))
        low = dict(shares.get(1, {}))
        for i, chips in shares.get(None, {}).items():
            if self.showdown_order and self._has_low(i):
                # A lone contender left after PokerKit killed the losing hands is paid without a
                # split; PokerKit's own split (high gets the odd chip) applies to the halves he holds.
                high[i] = high.get(i, 0) + chips - chips // 2
                low[i] = low.get(i, 0) + chips // 2
            else:
                high[i] = high.get(i, 0) + chips
        entry["high"], entry["low"] = self._keyed(high), self._keyed(low)
        return entry

    def _has_low(self, index: int) -> bool:
        try:
            return self.state.get_up_hand(index, 0, 1) is not None
        except (ValueError, IndexError):
            return False

    def _keyed(self, chips: Mapping[int, int]) -> dict[str, int]:
        return {str(self.seats[i]): int(amount) for i, amount in sorted(chips.items()) if amount}

    def _commitments(self) -> list[tuple[list[int], Any]]:
        """Per betting round: each player's street commitment, and the BetCollection that ended it (or None)."""
        rounds: list[tuple[list[int], Any]] = []
        current = [0] * len(self.seats)
        for op in self.state.operations:
            name = type(op).__name__
            if name in ("BringInPosting", "CheckingOrCalling"):
                current[op.player_index] += int(op.amount)
            elif name == "CompletionBettingOrRaisingTo":
                current[op.player_index] = int(op.amount)
            elif name == "AntePosting":
                current[op.player_index] += int(op.amount)
            elif name == "BetCollection":
                rounds.append((current, op))
                current = [0] * len(self.seats)
        if any(current):
            rounds.append((current, None))
        return rounds

    def _returned(self) -> dict[int, int]:
        """Uncalled chips: what PokerKit put back from a round's commitments when it collected them."""
        returned: dict[int, int] = {}
        for committed, collection in self._commitments():
            for i, chips in enumerate(committed):
                collected = int(collection.bets[i]) if collection is not None else 0
                back = chips - collected
                if back > 0:
                    returned[i] = returned.get(i, 0) + back
        return returned

    def _fold_win_matched_chips(self, pots: list[dict[str, Any]], returned: dict[int, int]) -> None:
        """Won by folds: PokerKit gives the winner's whole last bet back; the matched part was in the pot.

        The chips each player ends with are the same either way; the protocol books the part of the
        winner's bet that someone matched as pot and only the unmatched rest as returned.
        """
        folded = {op.player_index for op in self._ops("Folding")}
        live = [i for i in range(len(self.seats)) if i not in folded]
        if len(live) != 1 or not pots:
            return
        winner = live[0]
        rounds = self._commitments()
        committed, collection = rounds[-1]
        if collection is not None and collection.bets[winner] != 0:
            return
        others = max((chips for i, chips in enumerate(committed) if i != winner), default=0)
        matched = min(others, committed[winner])
        if matched <= 0:
            return
        returned[winner] = returned.get(winner, 0) - matched
        pot = pots[-1]
        pot["amount"] += matched
        key = "high" if "high" in pot else "winners"
        pot[key][str(self.seats[winner])] = pot[key].get(str(self.seats[winner]), 0) + matched


class Session:
    """The protocol loop's state: the current hand, if any."""

    def __init__(self) -> None:
        self.hand: PokerKitHand | None = None

    def answer(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict):
            return {"seq": None, "ok": False, "error": {"reason": "bad_request", "message": "not a JSON object"}}
        seq, kind = request.get("seq"), request.get("type")
        try:
            if kind == "hello":
                if request.get("protocol") != PROTOCOL:
                    raise Refused("unsupported", f"this adapter speaks protocol {PROTOCOL}")
                return hello_response(seq)
            if kind == "new_hand":
                self.hand = None
                self.hand = PokerKitHand(request)
                return {"seq": seq, "ok": True, "state": self.hand.snapshot()}
            if kind == "act":
                hand = self._hand()
                hand.act(request.get("seat"), request.get("action"), request.get("amount"), "amount" in request)
                return {"seq": seq, "ok": True, "state": hand.snapshot()}
            if kind == "state":
                return {"seq": seq, "ok": True, "state": self._hand().snapshot()}
            if kind == "bye":
                return {"seq": seq, "ok": True}
            raise Refused("bad_request", f"unknown request type {kind!r}")
        except Refused as exc:
            return {"seq": seq, "ok": False, "error": {"reason": exc.reason, "message": exc.message}}

    def _hand(self) -> PokerKitHand:
        if self.hand is None:
            raise Refused("no_hand", "send new_hand first")
        return self.hand


def main() -> int:
    warnings.simplefilter("ignore")  # PokerKit warns (on stderr) about cash-game folds and reshuffles
    session = Session()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as exc:
            response = {"seq": None, "ok": False, "error": {"reason": "bad_request", "message": f"not JSON: {exc}"}}
        else:
            try:
                response = session.answer(request)
            except Exception:  # an adapter or PokerKit crash: evidence on stderr, the harness restarts us
                traceback.print_exc(file=sys.stderr)
                return 70
        sys.stdout.write(json.dumps(response, separators=(",", ":")) + "\n")
        sys.stdout.flush()
        if isinstance(request, dict) and request.get("type") == "bye":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
