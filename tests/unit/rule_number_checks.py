"""The checks of test_rule_numbers.py: rule -> the fragments of its text whose numbers a probe verifies.

Each probe sets the reference engine (or, where the rule is about them, its dealer, pot builder,
evaluator or setup validation) at the boundary a number of the rule states and asserts the
behaviour on both sides of it: one chip, one card or one player more or less. `@check(RULE,
*fragments)` registers a probe for a rule, quoting the words of the rule's normative text (spaces
collapsed, without backticks) that hold the numbers it verifies; a probe may serve several rules.
This module holds the helpers and the checks of setup, cards, dealing, hands, pots and rake;
rule_number_checks_betting.py those of betting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from studcheck import evaluate
from studcheck.cards import FULL_DECK, RANK_CHARS, Card, CardError, parse_card, parse_cards
from studcheck.cases import load_cases
from studcheck.cases.deck import build_deck
from studcheck.engine import Action, Hand, IllegalAction, Reason, showdown
from studcheck.engine.dealing import Dealer, SeventhDeal
from studcheck.rules import LAYOUTS, ActionType, Options, SeatSetup, SetupError, ShortStub, Stakes, Variant

STUD, RAZZ, HILO, FIVE = Variant.STUD_HIGH, Variant.RAZZ, Variant.STUD_HILO8, Variant.FIVE_CARD_STUD
Probe = Callable[[], None]


@dataclass(frozen=True)
class Check:
    numbers: tuple[str, ...]  # fragments of the rule's text; every number in them is what the probe verifies
    probe: Probe


CHECKS: dict[str, list[Check]] = {}


def check(rule: str, *numbers: str) -> Callable[[Probe], Probe]:
    def register(probe: Probe) -> Probe:
        CHECKS.setdefault(rule, []).append(Check(numbers, probe))
        return probe
    return register


# --- building and playing hands ------------------------------------------------------------------------


def standard_cards(seats: int, variant: Variant = STUD) -> dict[int, str]:
    """Cards to the first street after the opening one: seat 1's door 2c brings in (Stud High) and its
    board 2c Ah is the best on the next street; seat k's door is rank k and no board pairs."""
    hidden = "? " * (len(LAYOUTS[variant].opening_faces) - 1)
    cards = {1: hidden + "2c Ah"}
    cards.update({k: f"{hidden}{RANK_CHARS[k - 1]}d {RANK_CHARS[k]}h" for k in range(2, seats + 1)})
    return cards


def stacked(placed: dict[int, str]) -> list[Card]:
    """The deck with these cards at these positions (0 = top), the rest in canonical order."""
    cards = {position: parse_card(text) for position, text in placed.items()}
    rest = iter(card for card in FULL_DECK if card not in cards.values())
    return [cards[position] if position in cards else next(rest) for position in range(52)]


def hand(*stacks: int, variant: Variant = STUD, stakes: tuple[int, int, int, int] = (0, 3, 10, 20),
         cards: dict[int, str] | None = None, deck: list[Card] | None = None, **options: Any) -> Hand:
    """Seats 1..n with these stacks; `cards` per seat ("?" any card) or a whole `deck`."""
    chosen = Options(**options)
    if deck is None:
        per_seat = standard_cards(len(stacks), variant) if cards is None else cards
        deck = list(build_deck({seat: [None if text == "?" else parse_card(text) for text in row.split()]
                                for seat, row in per_seat.items()},
                               variant=variant, burn_cards=chosen.burn_cards, short_stub=chosen.short_stub))
    ante, bring_in, small, big = stakes
    return Hand(variant=variant, options=chosen, stakes=Stakes(ante=ante, bring_in=bring_in, small_bet=small, big_bet=big),
                seats=[SeatSetup(seat=n, stack=stack) for n, stack in enumerate(stacks, start=1)], deck=deck, events=True)


def act(game: Hand, *moves: str) -> Hand:
    """Apply "raise 20", "call", ... each by the seat to act."""
    for move in moves:
        kind, _, amount = move.partition(" ")
        assert game.to_act is not None, f"nobody is to act for {move!r}"
        game.apply(Action(seat=game.to_act, action=ActionType(kind), amount=int(amount) if amount else None))
    return game


def legal(game: Hand) -> list[str]:
    """The legal actions as "fold", "call 3", "raise 20", or "bet 4..9" for a pot/no-limit range."""
    return [la.action.value + ("" if la.amount is None else f" {la.amount}" + ("" if la.top is None else f"..{la.top}"))
            for la in game.legal_actions()]


def refusal(game: Hand, move: str) -> Reason:
    before = game.snapshot()
    with pytest.raises(IllegalAction) as refused:
        act(game, move)
    assert game.snapshot() == before
    return refused.value.reason


PASSIVE = (ActionType.BRING_IN, ActionType.CHECK, ActionType.CALL, ActionType.SHOW)


def passive(game: Hand, until: str = "complete") -> Hand:
    """Post the bring-in, check or call (show at showdown) until the street `until`."""
    while game.snapshot()["street"] != until:
        move = min((la for la in game.legal_actions() if la.action in PASSIVE), key=lambda la: PASSIVE.index(la.action))
        act(game, move.action.value + (f" {move.amount}" if move.action is ActionType.BRING_IN else ""))
    return game


def events(game: Hand, kind: str) -> list[dict[str, Any]]:
    assert game.events is not None
    return [event for event in game.events if event["event"] == kind]


def seat_rows(game: Hand) -> dict[int, dict[str, Any]]:
    return {row["seat"]: row for row in game.snapshot()["seats"]}


def setup_refused(make: Callable[[], object]) -> bool:
    try:
        make()
    except SetupError:
        return True
    return False


# --- setup and cards ----------------------------------------------------------------------------------


@check("CARDS.NOTATION", "exactly two characters: its rank, one of 2 3 4 5 6 7 8 9 T J Q K A",
       "its suit, one of c d h s", "10h", "The 52 cards in canonical order", "the ten is T because every other rank is one character")
def cards_are_two_characters_from_thirteen_ranks_and_four_suits() -> None:
    assert RANK_CHARS == "23456789TJQKA" and len(FULL_DECK) == 52
    assert [card.text for card in FULL_DECK[:5]] == ["2c", "2d", "2h", "2s", "3c"] and FULL_DECK[-1].text == "As"
    assert all(len(card.text) == 2 and parse_card(card.text) == card for card in FULL_DECK)
    for wrong in ("10h", "as", "AS", "A♠", "Ah "):
        with pytest.raises(CardError):
            parse_card(wrong)


def seats(count: int, variant: Variant = STUD, numbers: list[int] | None = None) -> Callable[[], Hand]:
    return lambda: Hand(variant=variant, options=Options(), stakes=Stakes(ante=0, bring_in=1, small_bet=2, big_bet=4),
                        seats=[SeatSetup(seat=n, stack=10) for n in (numbers or list(range(1, count + 1)))], deck=FULL_DECK,
                        events=True)


@check("SETUP.PLAYERS", "at least 2 and at most 8 occupied seats", "an integer from 1 to 8", "no number may appear twice",
       "Seat 1 is the first position to the dealer's left")
def seven_card_games_seat_two_to_eight_players_numbered_one_to_eight() -> None:
    for variant in (STUD, RAZZ, HILO):
        assert setup_refused(seats(1, variant)) and not setup_refused(seats(2, variant))
        assert not setup_refused(seats(8, variant)) and setup_refused(seats(9, variant))
        assert not setup_refused(seats(2, variant, [1, 8]))
        assert setup_refused(seats(2, variant, [0, 1])) and setup_refused(seats(2, variant, [1, 9]))
        assert setup_refused(seats(2, variant, [3, 3]))
    assert events(seats(3)(), "deal")[0]["seat"] == 1


@check("FIVE.PLAYERS", "2 to 10 occupied seats, numbered 1 to 10")
def five_card_stud_seats_two_to_ten_players_numbered_one_to_ten() -> None:
    assert setup_refused(seats(1, FIVE)) and not setup_refused(seats(2, FIVE))
    assert not setup_refused(seats(10, FIVE)) and setup_refused(seats(11, FIVE))
    assert setup_refused(seats(2, FIVE, [0, 1])) and setup_refused(seats(2, FIVE, [1, 11]))
    assert not setup_refused(seats(2, FIVE, [1, 10]))


@check("SETUP.PLAYERS", "Eight is the maximum because seven cards each for eight players plus burns (8 × 7 + 4 = 60) is more than 52 cards")
def eight_seven_card_hands_and_four_burns_need_sixty_cards() -> None:
    layout = LAYOUTS[STUD]
    burns = len(layout.streets) - 1  # one before each street after the first (DEAL.BURN)
    assert (layout.max_seats, layout.max_cards, burns) == (8, 7, 4)
    assert layout.max_seats * layout.max_cards + burns == 60 > len(FULL_DECK) == 52


@check("FIVE.PLAYERS", "Ten players use 50 cards and 3 burns; see FIVE.SHORT-STUB for the one deal that runs a card short")
def ten_five_card_hands_and_three_burns_need_one_card_more_than_the_deck() -> None:
    layout = LAYOUTS[FIVE]
    assert (layout.max_seats, layout.max_seats * layout.max_cards, len(layout.streets) - 1) == (10, 50, 3)
    assert 50 + 3 - len(FULL_DECK) == 1


def stakes_refused(ante: int, bring_in: int, small: int, big: int) -> bool:
    return setup_refused(lambda: Stakes(ante=ante, bring_in=bring_in, small_bet=small, big_bet=big))


@check("SETUP.STAKES", "0 <= ante, 0 < bring_in < small_bet <= big_bet", "a bring-in of 0 would make it a check",
       "An ante of 0 is allowed")
def stakes_satisfy_the_inequalities_at_each_bound() -> None:
    assert not stakes_refused(0, 1, 2, 2) and stakes_refused(-1, 1, 2, 2)
    assert stakes_refused(0, 0, 2, 2)
    assert not stakes_refused(0, 4, 5, 5) and stakes_refused(0, 5, 5, 5)
    assert stakes_refused(0, 1, 5, 4)


@check("SETUP.STAKES", "(ante about 1/5 of the small bet, bring-in 1/2 of the small bet, big bet twice the small bet) are NOT required")
def the_usual_stake_ratios_are_not_required() -> None:
    assert not stakes_refused(7, 1, 2, 3) and not stakes_refused(1, 5, 10, 20)


@check("SETUP.STACKS", "a whole-number stack greater than 0")
def a_stack_must_be_at_least_one_chip() -> None:
    def seated(stack: int) -> Callable[[], Hand]:
        return lambda: hand(stack, 10)
    assert setup_refused(seated(0)) and not setup_refused(seated(1))


@check("SETUP.DECK", "exactly 52 cards", "each of the 52 cards exactly once", "It MUST NOT list a card twice")
def the_deck_is_the_52_cards_once_each() -> None:
    def dealt(deck: list[Card], remade: list[Card] | None = None) -> Callable[[], Hand]:
        return lambda: Hand(variant=STUD, options=Options(), stakes=Stakes(ante=0, bring_in=1, small_bet=2, big_bet=4),
                            seats=[SeatSetup(seat=1, stack=10), SeatSetup(seat=2, stack=10)], deck=deck, remade_stub=remade)
    full = list(FULL_DECK)
    assert not setup_refused(dealt(full)) and setup_refused(dealt(full[:51])) and setup_refused(dealt(full + full[:1]))
    assert setup_refused(dealt(full[:51] + full[:1]))
    assert not setup_refused(dealt(full, full[:2])) and setup_refused(dealt(full, full[:1] * 2))


# --- antes ---------------------------------------------------------------------------------------------


@check("ANTE.DEAD", "the third-street level starts at 0 whatever the ante", "With an ante of 0 nothing is posted")
def antes_are_no_commitment_and_an_ante_of_zero_posts_nothing() -> None:
    game = hand(100, 100, stakes=(5, 3, 10, 20))
    assert [row["committed"] for row in game.snapshot()["seats"]] == [0, 0] and len(events(game, "ante")) == 2
    assert legal(act(game, "bring_in 3")) == ["fold", "call 3", "complete 10"]
    assert events(hand(100, 100), "ante") == []


@check("ANTE.ALL-IN", "an ante of a < ante makes the main pot a from every seat", "A layer that only one seat paid into is not a pot")
@check("POT.UNCALLED", "a layer of contributions that only one seat paid into", "(one seat anted more than every other seat")
@check("POT.SIDE", "A layer only one seat paid into is not a pot")
def a_short_ante_caps_the_main_pot_and_a_layer_of_one_seat_is_returned() -> None:
    game = passive(hand(2, 50, stakes=(5, 3, 10, 20)))  # seat 1 antes all-in for 2 < 5; seat 2 is alone with chips
    assert game.result is not None and game.result["pots"][0]["amount"] == 2 + 2  # 2 from every seat
    assert game.result["returned"] == {"2": 3}  # the layer 2..5 only seat 2 paid
    three = hand(2, 50, 50, stakes=(5, 3, 10, 20))
    assert [pot["amount"] for pot in three.snapshot()["pots"]] == [6, 6]  # two seats pay the layer: a side pot


# --- dealing -------------------------------------------------------------------------------------------


@check("DEAL.THIRD", "in three rounds", "- one card face down to each seat; - a second card face down to each seat; - one card face up",
       "positions 1..n are the first down cards, n+1..2n the second down cards and 2n+1..3n the door cards")
def third_street_deals_three_rounds_one_card_each() -> None:
    n = 5
    game = hand(*[50] * n, deck=list(FULL_DECK))
    texts = [card.text for card in FULL_DECK]
    for seat, row in seat_rows(game).items():
        assert row["down"] == [texts[seat - 1], texts[n + seat - 1]] and row["up"] == [texts[2 * n + seat - 1]]
    assert len(events(game, "deal")) == 3 * n and events(game, "burn") == []


@check("FIVE.DEAL", "in two rounds", "one card face down (the hole card), then one card face up",
       "positions 1..n are the hole cards and n+1..2n the door cards")
def five_card_second_street_deals_two_rounds_one_card_each() -> None:
    n = 4
    game = hand(*[50] * n, variant=FIVE, deck=list(FULL_DECK))
    texts = [card.text for card in FULL_DECK]
    for seat, row in seat_rows(game).items():
        assert row["down"] == [texts[seat - 1]] and row["up"] == [texts[n + seat - 1]]
    assert len(events(game, "deal")) == 2 * n


@check("DEAL.STREETS", "after the burn (DEAL.BURN), one card face up to each live player",
       "after the burn, one card face down to each live player", "holds seven cards: three down (first, second, seventh) and four up (third to sixth)")
@check("DEAL.BURN", "burn exactly one card")
def later_streets_deal_one_card_to_each_live_player_after_one_burn() -> None:
    game = act(hand(50, 50, 50), "bring_in 3", "call", "call")  # fourth street: seat 1 (2c Ah) acts first
    act(game, "check", "check", "fold")
    passive(game, "showdown")
    rows = seat_rows(game)
    assert [(len(rows[s]["down"]), len(rows[s]["up"])) for s in (1, 2)] == [(3, 4), (3, 4)]
    assert (len(rows[3]["down"]), len(rows[3]["up"])) == (2, 2)  # folded on fourth street: nothing more
    streets = [i for i, e in enumerate(game.events) if e["event"] == "street" and e["street"] != "showdown"]
    assert [game.events[i + 1]["event"] for i in streets] == ["burn"] * 4 and len(events(game, "burn")) == 4
    unburnt = passive(act(hand(50, 50, burn_cards=False), "bring_in 3", "call"), "showdown")
    assert events(unburnt, "burn") == []


@check("FIVE.STREETS", "one burn card first, then one card face up to each", "holds one down and four up cards")
@check("FIVE.HAND", "exactly his five cards (his four cards")
def five_card_streets_deal_one_up_card_after_one_burn() -> None:
    game = passive(hand(50, 50, variant=FIVE), "showdown")
    assert [(len(row["down"]), len(row["up"])) for row in seat_rows(game).values()] == [(1, 4), (1, 4)]
    assert len(events(game, "burn")) == 3 and len(events(game, "deal")) == 2 * 5


# --- the short stub ------------------------------------------------------------------------------------


def last_deal(stub: int, live: int, burns: int, **options: Any) -> SeventhDeal:
    """The dealer before the last street with `stub` cards left after `burns` burns."""
    dealer = Dealer(FULL_DECK, None)
    for _ in range(burns):
        dealer.burn()
    dealer.take_many(52 - burns - stub)
    return dealer.deal_seventh(list(range(1, live + 1)), Options(**options))


def dealt_normally(deal: SeventhDeal, live: int) -> bool:
    return deal.community is None and len(deal.cards) == live


@check("DEAL.SHORT-STUB.REMAKE", "b = 1 if burn_cards else 0, and required = live + b + 1 (one card each, the burn, and the last card",
       "Normal: stub >= required. Burn b card, then one down card to each live player")
@check("FIVE.SHORT-STUB", "with remake, the live players plus the burn (with burn_cards) plus one, the last card")
def a_stub_of_live_plus_burn_plus_one_is_dealt_normally_one_less_is_short() -> None:
    for burning, b in ((True, 1), (False, 0)):
        for live in range(2, 11):
            required = live + b + 1
            enough = last_deal(required, live, burns=0, burn_cards=burning)
            assert dealt_normally(enough, live) and not enough.remade and (enough.burn is not None) == burning
            assert not dealt_normally(last_deal(required - 1, live, burns=0, burn_cards=burning), live)
    nine = last_deal(11, 9, burns=3)
    assert dealt_normally(nine, 9) and not nine.remade  # the example: 9 live, a stub of 11
    assert last_deal(10, 9, burns=3).remade


@check("DEAL.SHORT-STUB.REMAKE", "stub + prior_burns >= required, where prior_burns is the number of burned cards (3 when burning, else 0)",
       "deal one down card to each live player from it")
@check("SETUP.DECK", "the current stub plus the prior burns")
def a_remake_counts_the_prior_burns() -> None:
    for live in range(2, 9):
        short = live + 2 - 1  # one card below required = live + 1 + 1
        for burns in range(0, 4):
            deal = last_deal(short, live, burns=burns)
            assert deal.remade == (short + burns >= live + 2) and dealt_normally(deal, live) == deal.remade
    burned = passive(act(hand(50, 50), "bring_in 3", "call"), "seventh")
    assert burned.events is not None
    assert sum(e["event"] == "burn" for e in burned.events[: burned.events.index({"event": "street", "street": "seventh"})]) == 3
    assert events(passive(act(hand(50, 50, burn_cards=False), "bring_in 3", "call"), "seventh"), "burn") == []


@check("DEAL.SHORT-STUB.REMAKE", "(B) Community card, no remake: stub >= 3", "otherwise (stub < 3)")
def a_stub_of_three_gives_a_community_card_two_a_remake_first() -> None:
    for burning in (True, False):
        three = last_deal(3, 8, burns=3 if burning else 0, burn_cards=burning)
        assert three.community is not None and not three.remade and three.cards == {}
        two = last_deal(2, 8, burns=3 if burning else 0, burn_cards=burning)
        assert two.community is not None and two.remade  # case C, even with no burns to remake with


@check("DEAL.SHORT-STUB.COMMUNITY", "exactly one card face up to the centre of the table", "if stub >= live + b (with b = 1 if burn_cards)",
       "burns one card only if burn_cards is true and stub >= 2")
@check("FIVE.SHORT-STUB", "with community, the live players plus the burn")
def under_community_a_stub_of_live_plus_burn_is_enough() -> None:
    for burning, b in ((True, 1), (False, 0)):
        for live in range(2, 11):
            enough = last_deal(live + b, live, burns=3, burn_cards=burning, short_stub=ShortStub.COMMUNITY)
            assert dealt_normally(enough, live) and not enough.remade
            short = last_deal(live + b - 1, live, burns=3, burn_cards=burning, short_stub=ShortStub.COMMUNITY)
            assert short.community is not None and short.cards == {} and not short.remade
    for stub, burning, burns in ((2, True, True), (1, True, False), (2, False, False)):
        deal = last_deal(stub, 8, burns=3, burn_cards=burning, short_stub=ShortStub.COMMUNITY)
        assert (deal.burn is not None) == burns and deal.community is not None


def eight_to_showdown() -> Hand:
    """Eight players to seventh street (a stub of 1: remake, then a community card, which is the
    first burn, Ks). Boards: seat 1 Ah Qh Jh Th is best; seat 2 Kc Td 9c 8c would pair the Ks."""
    placed = {24: "Ks"}
    boards = {1: "Ah Qh Jh Th", 2: "Kc Td 9c 8c"}
    boards.update({s: f"{RANK_CHARS[s - 3]}c {RANK_CHARS[s - 2]}d {RANK_CHARS[s - 1]}h {RANK_CHARS[s]}s" for s in range(3, 9)})
    for seat, board in boards.items():
        for street, text in enumerate(board.split()):
            placed[16 + 9 * street + seat - 1] = text  # doors 16-23, then a burn before each street of 8
    game = hand(*[50] * 8, deck=stacked(placed))
    return passive(game, "seventh")


@check("SETUP.PLAYERS", "even so, eight players reaching seventh street need the short-stub procedure")
@check("DEAL.STREETS", "or six cards of his own plus the community card")
@check("DEAL.SHORT-STUB.COMMUNITY", "with his own six cards")
@check("DEAL.COMMUNITY.FIRST-ACTOR", "by the four up cards of each live player", "from the same four up cards")
@check("BET.FIRST-ACTOR.SEVENTH", "each live player's four up cards (third to sixth street)")
@check("SHOWDOWN.ORDER.UNBET", "four up cards; ties by first_actor_tie")
def eight_players_share_a_community_card_that_no_board_counts() -> None:
    game = eight_to_showdown()
    assert events(game, "remake") and game.snapshot()["community"] == "Ks"
    assert all((len(row["down"]), len(row["up"])) == (2, 4) for row in seat_rows(game).values())
    assert game.to_act == 1  # Ah Qh Jh Th; seat 2's Kc Td 9c 8c would be a pair of kings with the Ks
    passive(game)
    assert game.showdown_order[0] == 1


def ten_to_fifth(*, fold_on_fourth: int = 0, **options: Any) -> Hand:
    """Ten five-card players to fifth street; the first `fold_on_fourth` to act there fold. Boards
    before fifth: seat 1 As Qs Js is best; seat 2 Kc Ts 9s would pair a community Ks (the card after
    the fifth-street burn under community, position 43)."""
    placed = {43: "Ks"}
    boards = {1: "As Qs Js", 2: "Kc Ts 9s"}
    boards.update({s: f"{RANK_CHARS[s - 3]}c {RANK_CHARS[s - 2]}d {RANK_CHARS[s - 1]}h" for s in range(3, 11)})
    for seat, board in boards.items():
        for street, text in enumerate(board.split()):
            placed[10 + 11 * street + seat - 1] = text  # doors 10-19, then a burn before each street of 10
    game = passive(hand(*[50] * 10, variant=FIVE, deck=stacked(placed), **options), "fourth")
    for _ in range(fold_on_fourth):
        act(game, "fold")
    return passive(game, "fifth")


@check("FIVE.SHORT-STUB", "With a 52-card deck this happens only when ten players were dealt fourth street and burns are on: the stub then holds 10 cards",
       "short for ten live players (10 + 1 + 1 = 12)", "for nine, if one folded on fourth street (9 + 1 + 1 = 11)",
       "short for ten (10 + 1 = 11) and enough for nine (9 + 1 = 10)", "Without burns ten players leave 12 cards",
       "case A: 10 + 2 burns = 12, enough for ten players + burn + 1", "burns one card and turns one community card face up",
       "his four cards and that card")
@check("FIVE.HAND", "the community card when there is one")
@check("FIVE.FIRST-ACTOR", "each player's three own up cards")
def ten_five_card_players_reach_fifth_street_with_a_stub_of_ten() -> None:
    ten = ten_to_fifth()
    assert ten.events is not None
    before_fifth = ten.events[: ten.events.index({"event": "street", "street": "fifth"})]
    assert 52 - sum(event["event"] in ("deal", "burn") for event in before_fifth) == 10
    assert events(ten, "remake") and ten.snapshot()["community"] is None and len(events(ten, "burn")) == 3
    assert events(ten_to_fifth(fold_on_fourth=1), "remake")  # nine live
    assert not events(ten_to_fifth(fold_on_fourth=2), "remake")  # eight live: 10 = 8 + 1 + 1
    assert not events(ten_to_fifth(burn_cards=False), "remake")
    nine_seated = passive(hand(*[50] * 9, variant=FIVE), "fifth")
    assert not events(nine_seated, "remake") and nine_seated.snapshot()["community"] is None
    shared = ten_to_fifth(short_stub=ShortStub.COMMUNITY)
    assert shared.snapshot()["community"] == "Ks" and len(events(shared, "burn")) == 3
    assert all((len(row["down"]), len(row["up"])) == (1, 3) for row in seat_rows(shared).values())
    assert shared.to_act == 1  # As Qs Js, not seat 2's Kc Ts 9s paired by the community Ks
    nine = ten_to_fifth(fold_on_fourth=1, short_stub=ShortStub.COMMUNITY)
    assert nine.snapshot()["community"] is None and len(events(nine, "deal")) == 20 + 10 + 10 + 9


@check("FIVE.FIRST-ACTOR", "Fifth street is decided by the four up cards")
def five_card_fifth_street_counts_the_fourth_up_card() -> None:
    game = passive(hand(50, 50, variant=FIVE, cards={1: "? 2c Ah Kh 3c", 2: "? 9d 7d 5d 9s"}), "fourth")
    assert game.to_act == 1  # 2c Ah Kh against 9d 7d 5d
    assert passive(game, "fifth").to_act == 2  # the fourth up card pairs seat 2's nines


# --- hands ---------------------------------------------------------------------------------------------


def high(cards: str) -> int:
    return evaluate.high_value(parse_cards(cards))


def razz(cards: str) -> int:
    return evaluate.razz_value(parse_cards(cards))


@check("HAND.HIGH.BEST-FIVE", "any five of his seven cards", 'Seven cards never make "three pair" or a six-card hand: only five cards count')
def the_best_five_of_seven_cards_make_the_hand() -> None:
    seven = parse_cards("Ah Ad Kh Kd Qh Qd 2c")
    best = evaluate.high_best_five(seven)
    assert len(best) == 5 and evaluate.high_value(best) == evaluate.high_value(seven) == high("Ah Ad Kh Kd Qh")
    assert evaluate.high_category(high("Ah Ad Kh Kd Qh Qd 2c")) is evaluate.HandCategory.TWO_PAIR


@check("HAND.HIGH.RANKING", "A straight is five consecutive ranks; a flush is five cards of one suit")
def a_straight_and_a_flush_take_five_cards() -> None:
    category = evaluate.HandCategory
    assert evaluate.high_category(high("9h 8d 7c 6s 5h")) is category.STRAIGHT
    assert evaluate.high_category(high("9h 8d 7c 6s 4h")) is category.HIGH_CARD
    assert evaluate.high_category(high("Ah Jh 8h 5h 2h")) is category.FLUSH
    assert evaluate.high_category(high("Ah Jh 8h 5h 2d 9c")) is category.HIGH_CARD  # four of one suit


@check("HAND.HIGH.WHEEL", "with one suit, the lowest straight flush")
@check("HAND.HIGH.KICKERS", "(five for the wheel)")
def the_wheel_is_the_five_high_straight() -> None:
    assert evaluate.high_category(high("Ah 2h 3h 4h 5h")) is evaluate.HandCategory.STRAIGHT_FLUSH
    assert high("Ah 2h 3h 4h 5h") < high("2h 3h 4h 5h 6h") and high("Ah 2d 3c 4h 5s") < high("2d 3c 4h 5s 6h")
    assert high("Ah 2d 3c 4h 5s") > high("Ah Kd Qc Jh 9s")


@check("HAND.HIGH.KICKERS", "all five cards from highest to lowest", "the two kickers from highest", "the three kickers from highest")
def kickers_are_compared_down_to_the_fifth_card() -> None:
    assert high("Ah Jh 8h 5h 3h") > high("Ad Jd 8d 5d 2d")  # flushes: the fifth card decides
    assert high("7h 7d 7c Ks 4h") > high("7h 7d 7s Kc 3h")  # trips: the second kicker
    assert high("9h 9d Kc Qs 4h") > high("9s 9c Kd Qh 3h")  # a pair: the third kicker


@check("HAND.LOW.A5", "any five of his cards", "the ace is the lowest rank (counting 1)", "the five ranks from the highest down",
       "the three others from the highest down")
def razz_takes_the_lowest_five_aces_counting_one() -> None:
    assert len(evaluate.razz_best_five(parse_cards("Kc Qd 5h 4s 3c 2d Ah"))) == 5
    assert razz("Kc Qd 5h 4s 3c 2d Ah") == razz("5h 4s 3c 2d Ah")
    assert razz("Kc Qd Jh Ts Ah") > razz("Kc Qd Jh Ts 2h")  # the ace counts 1
    assert razz("7c 5d 4h 3s 2c") > razz("7d 6c 3h 2s Ac")  # the second-highest card decides
    assert razz("9c 9d 5h 4s 3c") < razz("9h 9s 5c 4d 2c")  # a pair, then the others from the highest
    assert razz("8c 8d Kh Qs Jc") > razz("9h 9s 3c 2d Ac")  # the pair first


@check("HAND.LOW.EIGHT", "only if five of his cards have five different ranks, each 8 or lower, with the ace counting as the lowest rank (1)",
       "the lowest such five, compared by the five ranks from the highest down",
       "only four distinct ranks of 8 or lower, or whose low would need a 9 or higher")
def an_eight_or_better_low_needs_five_ranks_of_eight_or_lower() -> None:
    def low(cards: str) -> int | None:
        return evaluate.low8_value(parse_cards(cards))
    assert low("8c 7d 6h 5s 4c Kd Qh") is not None and low("9c 7d 6h 5s 4c Kd Qh") is None
    assert low("Ac 2d 3h 4s 8c Kd Qh") is not None  # the ace is 1
    assert low("8c 7d 6h 5s 5c Kd Qh") is None  # four distinct ranks
    assert (low("8c 5d 4h 3s 2c") or 0) > (low("8d 6c 3h 2s Ac") or 0)


# --- pots, splits and rake -----------------------------------------------------------------------------


@check("POT.SIDE", "v1 < v2 < … < vk be the distinct positive contribution totals of the live players (a total of 0 starts no layer",
       "Pot j (j = 1..k, with v0 = 0) contains, from every seat, live or folded, min(c, vj) - min(c, v(j-1))",
       "Pot 1 is the main pot; pots 2..k are side pots")
def pots_are_layers_at_the_live_totals() -> None:
    totals = {1: 10, 2: 30, 3: 60, 4: 60, 5: 45}  # seat 5 folded: its 45 starts no pot
    pots, returned = showdown.build_pots(totals, live={1, 2, 3, 4}, all_in={1, 2})
    assert [(pot.amount, pot.eligible) for pot in pots] == [(50, [1, 2, 3, 4]), (80, [2, 3, 4]), (75, [3, 4])]
    assert returned == {}
    assert hand(50, 50).snapshot()["pots"] == []  # no ante: every total is 0
    assert [pot["amount"] for pot in hand(50, 50, stakes=(1, 3, 10, 20)).snapshot()["pots"]] == [2]


def by_seat(seat: int) -> tuple[tuple[int, int], ...]:
    return ((seat, 0),)  # odd-chip priority: the higher seat first


@check("POT.SPLIT", "When two or more contenders tie", "each gets amount // n chips, and the remaining amount % n chips (the odd chips) go one each",
       "No winner gets more than one odd chip", "amount // n is 0: the first amount winners in odd-chip priority get one chip each")
@check("POT.NO-ZERO-SHARE", "every listed share to be at least 1", "A tied player whose share is 0")
def a_tied_pot_is_split_evenly_with_one_odd_chip_each() -> None:
    assert showdown.split(5, [1, 2], by_seat) == {2: 3, 1: 2}
    assert showdown.split(12, [1, 2, 3], by_seat) == {1: 4, 2: 4, 3: 4}
    assert showdown.split(14, [1, 2, 3], by_seat) == {3: 5, 2: 5, 1: 4}
    assert showdown.split(2, [1, 2, 3], by_seat) == {3: 1, 2: 1}  # seat 1's share is 0: not listed


def hilo_award(amount: int, cards: dict[int, str]) -> showdown.Pot:
    pot = showdown.Pot(amount=amount, eligible=sorted(cards))
    hands = {seat: list(parse_cards(text)) for seat, text in cards.items()}
    showdown.award(pot, sorted(cards), HILO, Options(), hands, hands, shown=True)
    return pot


@check("HILO.SPLIT", "at least one of its shown contenders can win low", "a high half of amount - amount // 2 chips and a low half of amount // 2 chips")
def a_hilo_pot_with_a_low_splits_with_the_odd_chip_high() -> None:
    pot = hilo_award(11, {1: "As Ad Ks Kd Qc Jh 9c", 2: "Ah 2c 3d 4h 8s Kc Kh"})
    assert (pot.high, pot.low) == ({1: 6}, {2: 5})
    no_low = hilo_award(11, {1: "As Ad Ks Kd Qc Jh 9c", 2: "Ah 2c 3d 4h 9s Kc Kh"})
    assert (no_low.high, no_low.low) == ({1: 11}, {})


@check("HILO.QUARTER.EVEN", "When two or more contenders tie for the best high", "half // n each, with the half % n odd chips going one each",
       "a player who ties in one half and wins the other", "(identical hands, such as two wheels)",
       "as one pot: amount // n each, with the amount % n odd chips going one each",
       "No one of them gets more than one chip more than another")
def tied_halves_are_quartered_and_identical_hands_split_the_pot_evenly() -> None:
    # seats 1 and 2 tie for high with 6-high straights (seat 1's 6h first); seat 1's wheel wins low
    quartered = hilo_award(13, {1: "As 2h 3d 4c 5s 6h Kc", 2: "2c 3h 4d 5h 6c Kd Ks"})
    assert (quartered.high, quartered.low) == ({1: 4, 2: 3}, {1: 6})
    for amount, shares in ((6, {1: 3, 2: 3}), (7, {1: 4, 2: 3})):  # two wheels: identical hands
        pot = hilo_award(amount, {1: "Ah 2c 3d 4h 5s Kc Kd", 2: "Ad 2h 3c 4s 5d Qc Qh"})
        assert {seat: pot.high.get(seat, 0) + pot.low.get(seat, 0) for seat in (1, 2)} == shares


def rake_of(amounts: list[int], **options: Any) -> tuple[int, list[int]]:
    pots = [showdown.Pot(amount=amount, eligible=[1, 2]) for amount in amounts]
    return showdown.take_rake(pots, Options(**options)), [pot.amount for pot in pots]


@check("RAKE.PERCENT", "If rake_percent > 0", "rake = floor(P × rake_percent / 100)", "if rake_cap > 0, set rake = min(rake, rake_cap)")
def the_rake_is_the_floor_of_the_percentage_capped() -> None:
    assert rake_of([99], rake_percent=5) == (4, [95]) and rake_of([100], rake_percent=5) == (5, [95])
    assert rake_of([2, 98], rake_percent=5, rake_cap=3) == (3, [0, 97])  # main pot first
    assert rake_of([100], rake_percent=5, rake_cap=0)[0] == 5 and rake_of([100], rake_percent=0)[0] == 0
    game = passive(act(hand(50, 50, rake_percent=0), "bring_in 3", "call"))
    assert game.result is not None and game.result["rake"] == 0


@check("RAKE.NO-THIRD-STREET", "(every player but one folded on third street)", "at least one fourth-street card was dealt is raked")
@check("RAKE.THIRD-STREET", "also to one that ends on third street")
def a_hand_over_on_third_street_is_raked_only_with_the_option() -> None:
    def folded_on_third(**options: Any) -> int:
        game = act(hand(50, 50, stakes=(10, 3, 10, 20), rake_percent=10, **options), "bring_in 3", "fold")
        assert game.result is not None
        return int(game.result["rake"])
    assert folded_on_third() == 0 and folded_on_third(rake_third_street=True) == 2  # 10% of 23
    run_out = passive(act(hand(13, 50, stakes=(10, 3, 10, 20), rake_percent=10), "bring_in 3", "call"))
    assert run_out.result is not None and run_out.result["rake"] == 2 and events(run_out, "burn")


# --- showdown ------------------------------------------------------------------------------------------


@check("SHOWDOWN.UNCONTESTED", "When every live player but one folds", "as soon as only one live player has not mucked")
@check("BET.ROUND-END", "If a fold leaves one live player")
def the_last_player_left_wins_without_being_asked() -> None:
    folded = act(hand(50, 50, 50), "bring_in 3", "fold")
    assert not folded.is_over and folded.to_act == 3
    act(folded, "fold")
    assert folded.is_over and not events(folded, "street") and folded.showdown_order == []
    mucked = passive(act(hand(50, 50, 50), "bring_in 3", "call", "call"), "showdown")
    act(mucked, "muck")
    assert not mucked.is_over
    act(mucked, "muck")
    assert mucked.is_over and len(mucked.showdown_order) == 2


@check("SHOWDOWN.LAST-CONTENDER", "A pot therefore always has at least one shown (or uncontested) contender")
def every_pot_with_chips_in_the_cases_has_a_winner() -> None:
    """Against the cases (studcheck.cases), whose expected results tests/test_cases.py runs: no pot
    with chips is left without a winner, the must-show cases included."""
    cases = [case for case in load_cases() if case.final and case.final.get("pots")]
    assert any("SHOWDOWN.LAST-CONTENDER" in case.rules for case in cases)
    for case in cases:
        for pot in case.final["pots"] if case.final else []:
            stated = "winners" in pot or "high" in pot  # a partial expectation may leave the winners out
            assert not stated or pot.get("amount") == 0 or pot.get("winners") or pot.get("high"), case.id


@check("POT.UNCALLED", "if one seat's commitment in that round is larger than every other seat's")
def chips_nobody_matched_are_returned_at_the_end_of_the_round() -> None:
    game = act(hand(50, 8, 50), "bring_in 3", "call", "call", "bet 10", "call")  # seat 2 calls all-in for 5
    assert events(game, "return") == []
    act(game, "fold")
    assert events(game, "return") == [{"event": "return", "seat": 1, "amount": 5}]
