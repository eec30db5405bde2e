"""The dealing procedure: which deck position every card comes from.

Every card is determined by the deck order given to the hand (and, for a remade stub, the order
preference given with it), so two engines given the same inputs deal the same cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from studcheck.cards import Card
from studcheck.rules import Options, ShortStub

PRIOR_BURNS_FOR_REMAKE = 3


@dataclass(frozen=True, kw_only=True)
class SeventhDeal:
    """How seventh street is dealt: one card per listed seat, or one community card."""

    cards: dict[int, Card]
    community: Card | None
    burn: Card | None
    remade: bool


class Dealer:
    """The stub and the burns; hands out cards from the top."""

    def __init__(self, deck: Sequence[Card], remade_stub: Sequence[Card] | None) -> None:
        self._stub: list[Card] = list(deck)
        self._position = 0
        self.burns: list[Card] = []
        self._remade_order = {card: i for i, card in enumerate(remade_stub or ())}

    @property
    def remaining(self) -> int:
        return len(self._stub) - self._position

    def take(self) -> Card:
        card = self._stub[self._position]
        self._position += 1
        return card

    def take_many(self, count: int) -> list[Card]:
        """The next `count` cards from the top, in order."""
        start = self._position
        self._position = start + count
        if self._position > len(self._stub):
            raise IndexError("the stub has fewer cards than that")
        return self._stub[start : self._position]

    def burn(self) -> Card:
        card = self.take()
        self.burns.append(card)
        return card

    def remake(self) -> None:
        """New stub: the current stub and the prior burns, ordered by the remade-stub preference."""
        default = self._stub[self._position :] + self.burns
        fallback = len(self._remade_order)
        ranked = sorted(range(len(default)), key=lambda i: (self._remade_order.get(default[i], fallback), i))
        self._stub = [default[i] for i in ranked]
        self._position = 0
        self.burns = []

    def deal_seventh(self, live_seats: Sequence[int], options: Options) -> SeventhDeal:
        """The last street (seventh; five-card fifth) per the short-stub option (TDA RP-10-H, or the
        online community card)."""
        burning = 1 if options.burn_cards else 0
        live = len(live_seats)
        if options.short_stub is ShortStub.COMMUNITY:
            if self.remaining >= live + burning:
                return self._deal_each(live_seats, burning)
            burn = self.burn() if burning and self.remaining >= 2 else None
            return SeventhDeal(cards={}, community=self.take(), burn=burn, remade=False)
        required = live + burning + 1  # every live player, the burn, and the undealt last card
        if self.remaining >= required:
            return self._deal_each(live_seats, burning)
        if self.remaining + len(self.burns) >= required:  # case A: remake, then deal normally
            self.remake()
            deal = self._deal_each(live_seats, burning)
            return SeventhDeal(cards=deal.cards, community=None, burn=deal.burn, remade=True)
        remade = False
        if self.remaining < PRIOR_BURNS_FOR_REMAKE:  # case C: remake, then a community card
            self.remake()
            remade = True
        burn = self.burn() if burning else None  # case B (or C after the remake)
        return SeventhDeal(cards={}, community=self.take(), burn=burn, remade=remade)

    def _deal_each(self, live_seats: Sequence[int], burning: int) -> SeventhDeal:
        burn = self.burn() if burning else None
        cards = {seat: self.take() for seat in live_seats}
        return SeventhDeal(cards=cards, community=None, burn=burn, remade=False)
