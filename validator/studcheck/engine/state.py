"""The hand: a state machine with no I/O.

`Hand` is built from the complete inputs (variant, options, stakes, seats, deck order) and then
only moves through `apply`. Every action is checked against `legal_actions()` before anything
changes, so a refused action leaves the hand exactly as it was.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import lru_cache
from operator import attrgetter
from typing import Any

from studcheck.cards import Card
from studcheck.engine import betting, showdown
from studcheck.engine.betting import Round, SeatState
from studcheck.engine.dealing import Dealer
from studcheck.engine.errors import IllegalAction, Reason
from studcheck.engine import explain
from studcheck.engine.notes import Notes
from studcheck.engine.values import Action as Action
from studcheck.engine.values import LegalAction as LegalAction
from studcheck.rules import (
    AMOUNT_ACTIONS,
    ActionType,
    LAYOUTS,
    Betting,
    BigBetBringIn,
    HeadsUp,
    Options,
    SeatSetup,
    SetupError,
    ShowdownUnbet,
    Stakes,
    Street,
    Variant,
    validate_seats,
)

_SEAT = attrgetter("seat")
# Enum members read on every action: a module global is several times cheaper to read in CPython
# than an attribute of the enum class.
# (The same holds for the builtins min and max against a conditional expression: engine/betting.py.)
_SHOWDOWN, _COMPLETE = Street.SHOWDOWN, Street.COMPLETE
_FOLD, _CHECK, _CALL, _BRING_IN = ActionType.FOLD, ActionType.CHECK, ActionType.CALL, ActionType.BRING_IN
_SHOW, _MUCK = ActionType.SHOW, ActionType.MUCK
_ROUND_BEGINS, _POT_LIMIT, _OPEN = HeadsUp.ROUND_BEGINS, Betting.POT_LIMIT, BigBetBringIn.OPEN
_LOWEST_SEAT, _HILO = ShowdownUnbet.LOWEST_SEAT, Variant.STUD_HILO8


@lru_cache(maxsize=4096)
def _legal(kind: ActionType, amount: int | None, top: int | None = None) -> LegalAction:
    """Legal actions are immutable values: share them instead of building new ones each step."""
    return LegalAction(action=kind, amount=amount, top=top)


#: Whole legal lists repeat too (fold, call 5, raise 10): one dict look-up per decision (cheaper
#: than an lru_cache call), emptied when full, since pot and no limit make many distinct amounts.
_LEGAL_LISTS: dict[tuple[tuple[ActionType, int | None, int | None], ...], tuple[LegalAction, ...]] = {}
_LEGAL_LISTS_SIZE = 4096


def _legal_list(pairs: tuple[tuple[ActionType, int | None, int | None], ...]) -> tuple[LegalAction, ...]:
    if len(_LEGAL_LISTS) >= _LEGAL_LISTS_SIZE:
        _LEGAL_LISTS.clear()
    legal = _LEGAL_LISTS[pairs] = tuple([_legal(kind, amount, top) for kind, amount, top in pairs])
    return legal


# The JSON names of action kinds and streets; a dict look-up is cheaper than the `.value` property.
_KIND_TEXT = {kind: kind.value for kind in ActionType}
_STREET_TEXT = {street: street.value for street in Street}


class Hand:
    """One hand of stud (seven-card or five-card, per the variant's Layout) from the antes to the awards."""

    def __init__(
        self,
        *,
        variant: Variant,
        options: Options,
        stakes: Stakes,
        seats: Sequence[SeatSetup],
        deck: Sequence[Card],
        remade_stub: Sequence[Card] | None = None,
        notes: Notes | None = None,
        events: bool = False,
    ) -> None:
        if not isinstance(variant, Variant):
            raise SetupError("variant", f"must be one of {[v.value for v in Variant]}")
        seats = tuple(seats)
        self.layout = layout = LAYOUTS[variant]
        validate_seats(seats, layout.max_seats)
        _validate_deck(deck, remade_stub)
        self._last = layout.last  # seventh street, or five-card fifth street
        self.variant = variant
        self.options = options
        self.stakes = stakes
        # The event log (deals, actions, awards) for callers that replay a hand (cases/show.py,
        # phh/): opt-in like `notes`, as no protocol answer contains it. None: nothing is logged.
        self.events: list[dict[str, Any]] | None = [] if events else None
        self.order = sorted(setup.seat for setup in seats)
        self.seats: dict[int, SeatState] = {
            setup.seat: SeatState(seat=setup.seat, stack=setup.stack, down=[], up=[], down_text=[], up_text=[])
            for setup in sorted(seats, key=_SEAT)
        }
        self._seat_list = list(self.seats.values())  # in seat order; the same objects as `seats`
        self._live_count = len(self._seat_list)
        self._dealer = Dealer(deck, remade_stub)
        self.street = layout.streets[0]
        self.community: Card | None = None
        self.round: Round | None = None
        self.to_act: int | None = None
        self.bring_in_seat: int | None = None
        self.fourth_dealt = False  # a street after the opening one was dealt (RAKE.NO-THIRD-STREET)
        self.seventh_aggressor: int | None = None
        self.showdown_order: list[int] = []  # seats in the order they were asked to show
        self._showdown_queue: list[int] = []
        self._showdown_pots: list[showdown.Pot] | None = None
        self.returned: dict[int, int] = {}  # uncalled chips given back, for the result
        self.result: dict[str, Any] | None = None
        self._legal: tuple[LegalAction, ...] | None = None
        self._pots: list[tuple[int, list[int]]] = []  # snapshot pots (amount, eligible) for _pots_key
        self._pots_key: tuple[Street, int, int] | None = None
        self._notes = notes  # the explanation collector (explain.py); None: nothing is recorded
        self._post_antes()
        self._deal_opening()
        self._start_round()

    # --- public API ---------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.street is _COMPLETE

    def legal_actions(self) -> tuple[LegalAction, ...]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def apply(self, action: Action) -> None:
        """Apply one action, or raise IllegalAction and change nothing."""
        legal = self._check(action)
        if self._notes is not None:
            explain.note_action(self, action, legal)
        self._legal = None
        if self.events is not None:
            self.events.append({"event": "action", "seat": action.seat, "action": _KIND_TEXT[legal.action], "amount": legal.amount})
        if self.street is _SHOWDOWN:
            self._apply_showdown(action)
        else:
            self._apply_betting(action.seat, legal)

    def snapshot(self) -> dict[str, Any]:
        """The canonical state (the protocol's `state` object).

        Every call returns new containers (the result dict aside), so a caller may keep or change
        one snapshot without touching the next.
        """
        rows: list[dict[str, Any]] = []
        all_in_count = pot_total = 0
        for s in self._seat_list:
            all_in = not s.folded and s.stack == 0  # SeatState.all_in, inlined
            all_in_count += all_in
            pot_total += s.total
            rows.append(
                {
                    "seat": s.seat,
                    "stack": s.stack,
                    "committed": s.committed,
                    "folded": s.folded,
                    "all_in": all_in,
                    "up": s.up_text.copy(),
                    "down": s.down_text.copy(),
                    "shown": s.shown,
                    "mucked": s.mucked,
                }
            )
        over = self.result is not None
        return {
            "street": _STREET_TEXT[self.street],
            "to_act": self.to_act,
            "legal": [
                {"action": _KIND_TEXT[la.action]} if la.amount is None
                else {"action": _KIND_TEXT[la.action], "amount": la.amount} if la.top is None
                else la.to_json()
                for la in self.legal_actions()
            ],  # LegalAction.to_json, inlined for the usual entries
            "seats": rows,
            "community": self.community.text if self.community else None,
            "pots": [] if over else self._snapshot_pots(all_in_count),
            "pot_total": 0 if over else pot_total,
            "result": self.result,
        }

    def _snapshot_pots(self, all_in_count: int) -> list[dict[str, Any]]:
        """The pots of the chips collected so far (this street's commitments excluded).

        They depend on the collected amounts, the live seats and the all-in seats only. Within one
        street the collected amounts do not change (a wager adds to a seat's total and commitment
        alike), and the live and all-in sets only shrink and grow, so their sizes name them: the
        pots are rebuilt only when (street, live count, all-in count) changes.
        """
        key = (self.street, self._live_count, all_in_count)
        if key != self._pots_key:
            collected = {s.seat: s.total - s.committed for s in self._seat_list}
            live = {s.seat for s in self._seat_list if not s.folded}
            all_in = {s.seat for s in self._seat_list if s.all_in}
            pots, _ = showdown.build_pots(collected, live, all_in)
            self._pots = [(pot.amount, pot.eligible) for pot in pots]
            self._pots_key = key
        return [{"amount": amount, "eligible": eligible.copy()} for amount, eligible in self._pots]

    # --- checking an action ------------------------------------------------------------------

    def _compute_legal(self) -> tuple[LegalAction, ...]:
        if self.to_act is None:
            return ()
        seat = self.seats[self.to_act]
        if self.street is _SHOWDOWN:
            if self._must_show(seat.seat):
                return (_legal(_SHOW, None),)
            return (_legal(_SHOW, None), _legal(_MUCK, None))
        assert self.round is not None
        pairs = betting.legal_actions(
            seat,
            self.round,
            self._seat_list,
            bring_in=self.stakes.bring_in,
            is_bring_in_seat=seat.seat == self.bring_in_seat,
        )
        return _LEGAL_LISTS.get(pairs) or _legal_list(pairs)  # already in the canonical order

    def _check(self, action: Action) -> LegalAction:
        """The legal action `action` stands for: the usual case (the seat to act, a listed kind
        and amount) is matched in one pass; everything else goes through the full checks."""
        if action.seat == self.to_act and self.street is not _COMPLETE:
            kind, amount = action.action, action.amount
            for legal in self.legal_actions():
                if legal.action is kind and (legal.amount == amount or (amount is None and kind is _CALL)):
                    return legal
        return self._check_fully(action)  # also every amount of a pot/no-limit range but its lowest

    def _check_fully(self, action: Action) -> LegalAction:
        """Every check in the order of the reason codes: the first that fails names the refusal."""
        if self.is_over:
            raise IllegalAction(Reason.HAND_OVER, "the hand is over")
        if action.seat not in self.seats:
            raise IllegalAction(Reason.UNKNOWN_SEAT, f"no player sits in seat {action.seat}")
        if action.seat != self.to_act:
            raise IllegalAction(Reason.OUT_OF_TURN, f"seat {self.to_act} is to act, not seat {action.seat}")
        legal = self.legal_actions()
        same_kind = [la for la in legal if la.action is action.action]
        if not same_kind:
            raise IllegalAction(self._refusal_reason(action.action), self._refusal_message(action.action, legal))
        if action.action not in AMOUNT_ACTIONS:
            if action.amount is not None:
                raise IllegalAction(Reason.INVALID_AMOUNT, f"{action.action.value} takes no amount")
            return same_kind[0]
        if action.amount is None and action.action is ActionType.CALL:
            return same_kind[0]
        for candidate in same_kind:
            if candidate.allows(action.amount):
                return _legal(candidate.action, action.amount)
            if candidate.amount == action.amount:
                return candidate
        allowed = " or ".join(_amount_text(la) for la in same_kind)
        raise IllegalAction(
            Reason.INVALID_AMOUNT,
            f"{action.action.value} to {action.amount} is not allowed; the amount must be {allowed}",
        )

    def _refusal_reason(self, kind: ActionType) -> Reason:
        wagers = {ActionType.BET, ActionType.RAISE, ActionType.COMPLETE}
        if kind not in wagers or self.round is None or self.street is Street.SHOWDOWN or self.to_act is None:
            return Reason.ILLEGAL_ACTION
        if kind is not betting.wager_kind(self.round):
            return Reason.ILLEGAL_ACTION
        seat = self.seats[self.to_act]
        block = betting.wager_block(seat, self.round)
        return block or Reason.ILLEGAL_ACTION

    @staticmethod
    def _refusal_message(kind: ActionType, legal: Sequence[LegalAction]) -> str:
        listed = ", ".join(f"{la.action.value} {_amount_text(la)}" if la.amount is not None else la.action.value for la in legal)
        return f"{kind.value} is not allowed now; legal: {listed}"

    # --- antes and dealing --------------------------------------------------------------------

    def _post_antes(self) -> None:
        ante = self.stakes.ante
        for seat in self._seat_list:
            amount = ante if ante < seat.stack else seat.stack
            if amount:
                seat.stack -= amount
                seat.total += amount
                if self.events is not None:
                    self.events.append({"event": "ante", "seat": seat.seat, "amount": amount})
        if self._notes is not None:
            explain.note_antes(self)

    def _deal_opening(self) -> None:
        """The first deal (seven-card: down, down, door; five-card: down, door), one card a round,
        each round from the lowest seat: the seat at position i gets cards round * count + i."""
        seats = self._seat_list
        count = len(seats)
        faces = self.layout.opening_faces
        cards = self._dealer.take_many(len(faces) * count)
        for position, seat in enumerate(seats):
            for card, face_up in zip(cards[position::count], faces):  # this seat's cards, in turn
                if face_up:
                    seat.up.append(card)
                    seat.up_text.append(card.text)
                else:
                    seat.down.append(card)
                    seat.down_text.append(card.text)
        if self.events is not None:  # in the order dealt
            for index, card in enumerate(cards):
                face = "up" if faces[index // count] else "down"
                self.events.append({"event": "deal", "seat": seats[index % count].seat, "card": card.text, "face": face})
        doors = {seat.seat: seat.up[0] for seat in seats}
        self.bring_in_seat = betting.bring_in_seat(self.variant, self.options, doors)
        if self._notes is not None:
            explain.note_opening(self, doors)

    def _live(self) -> list[SeatState]:
        return [s for s in self.seats.values() if not s.folded]

    def _deal_street(self) -> None:
        self.street = self.layout.next_street(self.street)
        if self.events is not None:
            self.events.append({"event": "street", "street": _STREET_TEXT[self.street]})
        live = self._live()
        if self.street is self._last:
            deal = self._dealer.deal_seventh([s.seat for s in live], self.options)
            if deal.remade and self.events is not None:
                self.events.append({"event": "remake"})
            if deal.burn is not None and self.events is not None:
                self.events.append({"event": "burn", "card": deal.burn.text})
            if deal.community is not None:
                self.community = deal.community
                if self.events is not None:
                    self.events.append({"event": "community", "card": deal.community.text})
            face_up = self.layout.last_face_up
            for seat_number, card in deal.cards.items():
                self.seats[seat_number].deal(card, face_up=face_up)
                if self.events is not None:
                    self.events.append({"event": "deal", "seat": seat_number, "card": card.text, "face": "up" if face_up else "down"})
            if self._notes is not None:
                explain.note_last_street(self, deal.cards, remade=deal.remade, burned=deal.burn is not None, community=deal.community is not None)
            return
        self.fourth_dealt = True
        if self.options.burn_cards:
            burned = self._dealer.burn()
            if self.events is not None:
                self.events.append({"event": "burn", "card": burned.text})
        for seat, card in zip(live, self._dealer.take_many(len(live))):  # one card each, up
            seat.up.append(card)
            seat.up_text.append(card.text)
            if self.events is not None:
                self.events.append({"event": "deal", "seat": seat.seat, "card": card.text, "face": "up"})
        if self._notes is not None:
            explain.note_street(self, [seat.seat for seat in live])

    # --- betting rounds -----------------------------------------------------------------------

    def _start_round(self) -> None:
        """Start this street's betting, or run the board out when fewer than two can bet."""
        while True:
            bettors = betting.count_bettors(self._seat_list)
            if bettors >= 2:
                self._open_round(bettors)
                return
            if self._notes is not None:
                self._notes.add("street", *explain.runout_rules(self))
            if self.street is self._last:
                self._begin_showdown()
                return
            self._deal_street()

    def _open_round(self, bettors: int) -> None:
        street, stakes, options, layout = self.street, self.stakes, self.options, self.layout
        opening = street is layout.streets[0]
        big_bet = options.big_bet
        double = (
            street is layout.open_pair_street
            and options.open_pair_double
            and not big_bet
            and any(s.up[0].rank == s.up[1].rank for s in self._live())
        )
        self.round = Round(
            street=street,
            small=stakes.small_bet,
            big=stakes.big_bet,
            unit=stakes.small_bet if street in layout.small_bet_streets else stakes.big_bet,
            cap=sys.maxsize if big_bet else 1 + options.max_raises,  # BIGBET.NO-CAP
            heads_up=options.heads_up,
            began_heads_up=bettors == 2 and options.heads_up is _ROUND_BEGINS,
            bettors=bettors,
            double=double,
            opening=opening,
            big_bet=big_bet,
            pot_limit=options.betting is _POT_LIMIT,
            raise_size=stakes.bring_in,  # the minimum bet in pot and no limit (BIGBET.MIN-BET)
            bring_in_open=options.big_bet_bring_in is _OPEN,
        )
        if opening:
            assert self.bring_in_seat is not None
            first = self.bring_in_seat
        else:
            first = self._first_actor()
        self.to_act = betting.next_to_act(self._seat_list, self.order.index(first), self.round)
        if self._notes is not None:
            explain.note_first_actor(self, first)

    def _first_actor(self) -> int:
        boards = {s.seat: s.up[:4] for s in self._seat_list if not s.folded}
        return betting.first_actor_seat(self.variant, self.options, boards)

    def _apply_betting(self, seat_number: int, legal: LegalAction) -> None:
        round_ = self.round
        assert round_ is not None
        seat = self.seats[seat_number]
        kind = legal.action
        if kind is _FOLD:
            seat.folded = True
            self._live_count -= 1
        elif kind is _CHECK:
            betting.apply_check(seat, round_)
        elif kind is _CALL:
            betting.apply_call(seat, round_)
        elif kind is _BRING_IN:
            assert legal.amount is not None
            betting.apply_bring_in(seat, round_, legal.amount, self.stakes.bring_in)
        else:
            assert legal.amount is not None
            betting.apply_wager(seat, round_, legal.amount)
            if self.street is self._last:
                self.seventh_aggressor = seat_number
        if seat.folded or seat.stack == 0:  # the seat to act could bet: now it cannot
            round_.bettors -= 1
        if self._live_count == 1:
            if self._notes is not None:
                explain.note_last_live(self)
            self._end_round()
            self._finish()
            return
        self.to_act = betting.next_to_act(self._seat_list, self.order.index(seat_number) + 1, round_)
        if self._notes is not None:
            explain.note_turn(self, seat_number)
        if self.to_act is None:
            self._end_round()
            if self.street is self._last:
                self._begin_showdown()
            else:
                self._deal_street()
                self._start_round()

    def _end_round(self) -> None:
        """Return the part of the top commitment nobody matched, then close the round: every seat's
        round state (commitment, last action) is cleared for the next one."""
        top = self._seat_list[0]  # the first seat with the largest commitment, and the next largest
        second = -1
        for seat in self._seat_list[1:]:
            if seat.committed > top.committed:
                top, second = seat, top.committed
            elif seat.committed > second:
                second = seat.committed
        if top.committed > second:
            excess = top.committed - second
            top.stack += excess
            top.committed -= excess
            top.total -= excess
            self.returned[top.seat] = self.returned.get(top.seat, 0) + excess
            if self.events is not None:
                self.events.append({"event": "return", "seat": top.seat, "amount": excess})
            if self._notes is not None:
                explain.note_returned(self, top.seat)
        for seat in self._seat_list:
            seat.committed = 0
            seat.acted_at = None  # not acted yet (acted_after is read only once it has acted again)
        self.to_act = None
        self.round = None

    # --- showdown -----------------------------------------------------------------------------

    def _begin_showdown(self) -> None:
        self.street = _SHOWDOWN
        if self.events is not None:
            self.events.append({"event": "street", "street": _STREET_TEXT[self.street]})
        live_order = [seat for seat in self.order if not self.seats[seat].folded]
        if self.seventh_aggressor is not None and not self.seats[self.seventh_aggressor].folded:
            first = self.seventh_aggressor
        elif self.options.showdown_unbet is _LOWEST_SEAT:
            first = live_order[0]
        else:
            first = self._first_actor()
        ring = betting.clockwise_from(self.order, first)
        self._showdown_queue = [seat for seat in ring if not self.seats[seat].folded]
        if self._notes is not None:
            explain.note_showdown_order(self, first)
        self._advance_showdown()

    def _contenders(self) -> list[int]:
        return [seat for seat in self._showdown_queue if not self.seats[seat].mucked]

    def _must_show(self, seat_number: int) -> bool:
        """A player may not muck a pot away from every contender (he is its last one)."""
        if self._showdown_pots is None:  # contributions no longer change once the showdown begins
            self._showdown_pots = self._final_pots()[0]
        for pot in self._showdown_pots:
            if seat_number in pot.eligible:
                others = [s for s in pot.eligible if s != seat_number and not self.seats[s].mucked]
                if not others:
                    return True
        return False

    def _apply_showdown(self, action: Action) -> None:
        seat = self.seats[action.seat]
        self.showdown_order.append(action.seat)
        if action.action is _SHOW:
            seat.shown = True
        else:
            seat.mucked = True
        self._advance_showdown()

    def _advance_showdown(self) -> None:
        if len(self._contenders()) == 1:
            self._finish()
            return
        pending = [s for s in self._showdown_queue if not self.seats[s].shown and not self.seats[s].mucked]
        if pending:
            self.to_act = pending[0]
            return
        self._finish()

    # --- the end ------------------------------------------------------------------------------

    def _final_pots(self) -> tuple[list[showdown.Pot], dict[int, int]]:
        totals: dict[int, int] = {}
        live: set[int] = set()
        all_in: set[int] = set()
        for s in self._seat_list:  # one pass (every hand ends here)
            totals[s.seat] = s.total
            if not s.folded:
                live.add(s.seat)
                if s.stack == 0:  # SeatState.all_in, inlined
                    all_in.add(s.seat)
        return showdown.build_pots(totals, live, all_in)

    def _finish(self) -> None:
        pots, returned = self._final_pots()
        for seat_number, amount in returned.items():
            self.seats[seat_number].stack += amount
            self.returned[seat_number] = self.returned.get(seat_number, 0) + amount
            if self.events is not None:
                self.events.append({"event": "return", "seat": seat_number, "amount": amount})
        raked = self.fourth_dealt or self.options.rake_third_street  # RAKE.NO-THIRD-STREET, RAKE.THIRD-STREET
        rake = showdown.take_rake(pots, self.options) if self.options.rake_percent and raked else 0
        if rake and self.events is not None:
            self.events.append({"event": "rake", "amount": rake})
        extra = [self.community] if self.community is not None else []
        for index, pot in enumerate(pots):
            shown = [seat for seat in pot.eligible if self.seats[seat].shown]
            unmucked = [seat for seat in pot.eligible if not self.seats[seat].mucked]
            contenders = shown or unmucked
            # Only shown hands are judged: a pot nobody showed for needs no cards (most hands end in folds).
            own: dict[int, list[Card]] = {}
            hands: dict[int, list[Card]] = {}
            for seat_number in shown:
                own[seat_number] = cards = self.seats[seat_number].down + self.seats[seat_number].up
                hands[seat_number] = cards + extra
            showdown.award(pot, contenders, self.variant, self.options, hands, own, shown=bool(shown))
            for half, shares in (("winners", pot.winners), ("high", pot.high), ("low", pot.low)):
                for seat_number, amount in shares.items():
                    self.seats[seat_number].stack += amount
                    if self.events is not None:
                        self.events.append({"event": "award", "pot": index, "seat": seat_number, "amount": amount, "half": half})
        if self._notes is not None:
            explain.note_finish(self, pots, returned, rake)
        self.street = _COMPLETE
        self.to_act = None
        self.round = None
        self._legal = None
        self.result = {
            "pots": [self._pot_json(pot) for pot in pots],
            "rake": rake,
            "returned": {str(seat): amount for seat, amount in sorted(self.returned.items())},
            "showdown_order": list(self.showdown_order),
            "stacks": {str(seat): s.stack for seat, s in self.seats.items()},
        }
        for s in self.seats.values():
            s.total = 0

    def _pot_json(self, pot: showdown.Pot) -> dict[str, Any]:
        data: dict[str, Any] = {"amount": pot.amount, "eligible": pot.eligible}
        if self.variant is _HILO:
            data["high"] = {str(seat): amount for seat, amount in sorted(pot.high.items())}
            data["low"] = {str(seat): amount for seat, amount in sorted(pot.low.items())}
        else:
            data["winners"] = {str(seat): amount for seat, amount in sorted(pot.winners.items())}
        return data

    # --- explanations (explain.py) ------------------------------------------------------------

    def explain_state(self) -> None:
        """Record the facts derived from the current state (the legal actions, the pots) into the
        collector, if any; the Server calls this after each answer when explanations are wanted."""
        if self._notes is not None:
            explain.note_state(self, self._notes)

    def explain_refusal(self, action: Action, reason: Reason) -> tuple[str, ...]:
        """The rules behind refusing `action` with `reason` (the hand is unchanged)."""
        return explain.refusal_of(self, action, reason)

def _amount_text(legal: LegalAction) -> str:
    return str(legal.amount) if legal.top is None else f"from {legal.amount} to {legal.top}"


def _validate_deck(deck: Sequence[Card], remade_stub: Sequence[Card] | None) -> None:
    if len(deck) != 52:
        raise SetupError("deck", f"must list all 52 cards, got {len(deck)}")
    # The type set is a C-speed check of the usual case; anything else gets the exact test.
    if set(map(type, deck)) != {Card} and any(not isinstance(card, Card) for card in deck):
        raise SetupError("deck", "must contain cards")
    if len({card.index for card in deck}) != 52:  # equal cards have equal indices (Card.__hash__)
        seen: set[Card] = set()
        for card in deck:
            if card in seen:
                raise SetupError("deck", f"card {card} appears twice")
            seen.add(card)
    if remade_stub is not None:
        if any(not isinstance(card, Card) for card in remade_stub):
            raise SetupError("remade_stub", "must contain cards")
        if len(set(remade_stub)) != len(remade_stub):
            raise SetupError("remade_stub", "lists a card twice")
