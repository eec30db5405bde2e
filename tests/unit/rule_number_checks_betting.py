"""The checks of test_rule_numbers.py for betting: the bring-in, fixed limit, all-ins, pot and no limit.

Stakes are ante 0, bring-in 3, small bet 10, big bet 20 unless a check says otherwise, and seat 1
brings in and acts first on the next street (rule_number_checks.standard_cards).
"""

from __future__ import annotations

from typing import Any

from studcheck.cards import parse_card, parse_cards
from studcheck.engine import Hand, Reason, betting
from studcheck.rules import Betting, BigBetBringIn, FirstActorTie, HeadsUp, Options, Variant

from rule_number_checks import FIVE, HILO, RAZZ, STUD, act, check, events, hand, legal, refusal

NO_LIMIT, POT_LIMIT = Betting.NO_LIMIT, Betting.POT_LIMIT

# --- who brings in, who acts first ---------------------------------------------------------------------


def brings_in(variant: Variant, doors: str) -> int:
    return betting.bring_in_seat(variant, Options(), {n: parse_card(text) for n, text in enumerate(doors.split(), start=1)})


@check("BRING-IN.CARD.LOW", "(2 < 3 < … < K < A)")
def the_lowest_door_brings_in_the_ace_high() -> None:
    for variant in (STUD, HILO):
        assert brings_in(variant, "3c 2s") == 2 and brings_in(variant, "2s 3c") == 1
        assert brings_in(variant, "Ac Kc") == 2


@check("BRING-IN.CARD.HIGH", "(A < 2 < … < K)")
def razz_the_highest_door_brings_in_the_ace_low() -> None:
    assert brings_in(RAZZ, "Ac 2c") == 2 and brings_in(RAZZ, "Ks Qs") == 1


@check("BRING-IN.TIE.SUIT", "The suit order is the same in all three games")
def equal_doors_by_suit_in_all_three_seven_card_games() -> None:
    assert brings_in(STUD, "5h 5d") == brings_in(HILO, "5h 5d") == 2  # the lowest suit
    assert brings_in(RAZZ, "5h 5d") == 1  # the highest suit


def first(variant: Variant, *boards: str, **options: Any) -> int:
    return betting.first_actor_seat(variant, Options(**options), {n: parse_cards(b) for n, b in enumerate(boards, start=1)})


@check("BET.FIRST-ACTOR.EXPOSED-RANKING", "partial poker hands of two to four cards")
def boards_of_two_to_four_cards_are_ranked_by_pairs_only() -> None:
    assert first(STUD, "Ah Kh", "3c 3d") == 2 and first(STUD, "Ah Kd", "Ac Qd") == 1
    assert first(STUD, "Ah Ad Kh Kd", "3c 3d 3h 2c") == 2 and first(STUD, "9h Th Jh Qh", "2c 2d 3h 4c") == 2
    assert first(RAZZ, "2c 2d", "Kc Qd") == 2 and first(RAZZ, "Kc Qd Jh Ts", "Ac Ad 2c 3c") == 1


@check("BET.FIRST-ACTOR.TIE.SEAT", "when two or more live players tie", "the one with the lowest seat number")
def tied_boards_the_lowest_seat_acts_first() -> None:
    assert first(STUD, "5c 4d", "Kh Qs", "Kc Qd") == 2 and first(RAZZ, "Kc Qd", "5h 3d", "5c 3s") == 2


@check("BET.FIRST-ACTOR.TIE.SUIT", "when two or more live players tie for the best board", "used in all three games",
       "if a board holds two cards of the top rank, its higher-suited one is compared")
def tied_boards_the_highest_card_by_suit_acts_first() -> None:
    suit = FirstActorTie.SUIT
    assert first(STUD, "Kc Qs", "Kh Qd", first_actor_tie=suit) == first(HILO, "Kc Qs", "Kh Qd", first_actor_tie=suit) == 2
    assert first(RAZZ, "5c 3s", "5h 3d", first_actor_tie=suit) == 2
    assert first(STUD, "Ks Kc 5d", "Kh Kd 5c", first_actor_tie=suit) == 1


# --- the bring-in and fixed limit ----------------------------------------------------------------------


@check("BRING-IN.CHOICE", "the full level is still 0")
@check("BRING-IN.FACING", "(full level 0)")
@check("BET.FOLD", "with one exception: the bring-in seat's first action")
def after_the_bring_in_the_completion_is_one_small_bet_from_zero() -> None:
    game = hand(50, 50, 50)
    assert legal(game) == ["bring_in 3", "complete 10"]
    act(game, "bring_in 3")
    assert legal(game) == ["fold", "call 3", "complete 10"]
    assert refusal(game, "complete 13") is Reason.INVALID_AMOUNT and refusal(game, "raise 13") is Reason.ILLEGAL_ACTION
    assert legal(act(game, "call", "call")) == ["fold", "check", "bet 10"]


@check("BET.CHECK", "(level 0)")
@check("ACTION.REFUSAL", "raise when the level is 0")
def a_check_only_at_level_zero() -> None:
    game = hand(50, 50, 50)
    assert refusal(game, "check") is Reason.ILLEGAL_ACTION
    act(game, "bring_in 3", "call", "call")
    assert "check" in legal(game) and refusal(game, "raise 10") is Reason.ILLEGAL_ACTION
    act(game, "bet 10")
    assert refusal(game, "check") is Reason.ILLEGAL_ACTION


@check("BET.FIXED-AMOUNT", "exactly one unit over the full level: a bet to U (with nothing wagered), a complete to small_bet, a raise to L + U",
       "Because L + U is measured from the full level")
@check("ALLIN.HALF-BET.FULL", "An all-in wager to T with 2 × (T - L) >= U MUST be treated as a full wager", "raise (to T + U)",
       "Exactly half a unit counts")
@check("ALLIN.HALF-BET.SHORT", "with C < T and 2 × (T - L) < U", "or raise to L + U")
@check("ALLIN.REOPEN.PER-PLAYER", "an all-in whose increase over the wager level before it is at least half a unit")
def an_all_in_raise_of_half_a_unit_reopens_one_chip_less_does_not() -> None:
    for stack, full in ((18, True), (17, False)):  # after the bring-in, seat 2 raises all-in to 15 or 14 over a bet of 10
        game = act(hand(50, stack, 50), "bring_in 3", "call", "call", "bet 10")
        assert legal(game) == ["fold", "call 10", f"raise {stack - 3}"]
        act(game, f"raise {stack - 3}")
        assert legal(game) == ["fold", f"call {stack - 3}", f"raise {stack - 3 + 10}" if full else "raise 20"]
        assert refusal(game, f"raise {stack - 3 + 11}") is Reason.INVALID_AMOUNT
        act(game, "call")
        assert legal(game) == (["fold", "call 15", "raise 25"] if full else ["fold", "call 14"])
        if not full:
            assert refusal(game, "raise 20") is Reason.BETTING_NOT_REOPENED


@check("ALLIN.HALF-BET.FULL", "the full level is 0, so an all-in to at least half the small bet counts as the completion",
       "measuring third street from level 0", "studcheck measures a completion from 0",
       "makes an all-in to at least half the small bet a completion")
def an_all_in_of_half_the_small_bet_is_the_completion() -> None:
    game = act(hand(50, 5, 50), "bring_in 3")
    assert legal(game) == ["fold", "call 3", "complete 5"]
    act(game, "complete 5")
    assert legal(game) == ["fold", "call 5", "raise 15"]
    assert legal(act(game, "call")) == ["fold", "call 5", "raise 15"]  # the bring-in seat too


@check("ALLIN.HALF-BET.SHORT", "Example: bring-in 3, small 10: seat 1 brings in 3, seat 2 all-in to 4 (2 × 4 < 10, short), seat 3 calls 4; seat 1: [fold, call 4]")
@check("BRING-IN.CHOICE", "studcheck counts it as one")
def the_short_all_in_example_of_the_rule() -> None:
    game = act(hand(50, 4, 50), "bring_in 3", "complete 4")
    assert legal(game) == ["fold", "call 4", "complete 10"]  # seat 3 has not acted
    act(game, "call")
    assert legal(game) == ["fold", "call 4"] and refusal(game, "complete 10") is Reason.BETTING_NOT_REOPENED


@check("ALLIN.REOPEN.PER-PLAYER", "the first one whose total T satisfies 2 × (T - L) >= U counts as a full wager for the round",
       "a player yet to act may raise to T + U", "the level C he now faces satisfies 2 × (C - m) >= U",
       "but not for one who already matched part of it")
def short_all_ins_that_add_up_to_half_a_unit_reopen_per_player() -> None:
    # fourth street: seat 1 bets 10, seat 2 all-in to 13 (short), seat 3 calls 13, seat 4 all-in to 16
    game = act(hand(100, 16, 100, 19, 100), "bring_in 3", *["call"] * 4, "bet 10", "raise 13", "call", "raise 16")
    assert legal(game) == ["fold", "call 16", "raise 26"]  # seat 5, yet to act
    act(game, "call")
    assert legal(game) == ["fold", "call 16", "raise 26"]  # seat 1 matched 10: 2 × (16 - 10) >= 10
    act(game, "call")
    assert legal(game) == ["fold", "call 16"] and refusal(game, "raise 26") is Reason.BETTING_NOT_REOPENED  # seat 3 matched 13


@check("ALLIN.REOPEN.PER-PLAYER", "has m = 0", "by all-ins that add up to at least half the small bet")
@check("BRING-IN.CHOICE", "(ALLIN.REOPEN.PER-PLAYER measures it as 0)")
def short_all_ins_over_the_bring_in_are_measured_from_zero() -> None:
    # seat 1 brings in 3, seat 2 calls, seat 3 all-in to 4 (short), seat 4 all-in to 6 (2 × 6 >= 10)
    game = act(hand(50, 50, 4, 6), "bring_in 3", "call", "complete 4", "complete 6")
    assert legal(game) == ["fold", "call 6", "raise 16"]  # the bring-in seat: 2 × (6 - 0) >= 10
    assert legal(act(game, "call")) == ["fold", "call 6", "raise 16"]  # the caller of the bring-in
    half = act(hand(50, 50, 4, 5), "bring_in 3", "call", "complete 4", "complete 5")
    assert legal(half) == ["fold", "call 5", "raise 15"]  # 2 × (5 - 0) = 10: exactly half a unit (4 is short: the example)


@check("ALLIN.CALL-SHORT", "if T <= C, call to T (all-in for less)",
       "if C < T and T is below the smallest full wager target he could make (U for a bet, small_bet for a completion, L + U for a raise)")
def a_short_stack_is_offered_the_all_in_version() -> None:
    game = act(hand(50, 2, 3, 7), "bring_in 3")
    assert legal(game) == ["fold", "call 2"]
    assert legal(act(game, "call")) == ["fold", "call 3"]  # T = C: nothing to wager
    assert legal(act(game, "call")) == ["fold", "call 3", "complete 7"]
    fourth = act(hand(50, 9, 18, 50), "bring_in 3", *["call"] * 3, "check")
    assert legal(fourth) == ["fold", "check", "bet 6"]
    act(fourth, "check", "check", "bet 10", "call")
    assert legal(fourth) == ["fold", "call 6"]
    assert legal(act(fourth, "call")) == ["fold", "call 10", "raise 15"]


@check("BRING-IN.ALL-IN-ANTE", "If all but one active player fold before anyone posts")
@check("BET.ROUND-END", "at most one live player is active and his commitment is at least the level",
       "fewer than two live players are active has no action at all")
@check("ALLIN.RUNOUT", "with fewer than two live players active", "when fewer than two players have chips after the antes",
       "a player with a stack of 0")
@check("BET.FIRST-ACTOR.ALL-IN", "If fewer than two live players are active there is no betting at all")
def with_one_player_left_with_chips_the_cards_are_run_out() -> None:
    heads_up = act(hand(50, 5), "bring_in 3", "complete 5")
    assert legal(heads_up) == ["fold", "call 5"]  # below the level: asked, but no raise into an all-in
    act(heads_up, "call")  # one active player, matched: no more betting, four streets dealt
    assert heads_up.snapshot()["street"] == "showdown" and len(events(heads_up, "burn")) == 4
    antes = hand(5, 50, stakes=(5, 3, 10, 20))  # only seat 2 has chips after the antes: no bring-in
    assert antes.snapshot()["street"] == "showdown" and events(antes, "action") == []
    two = hand(5, 50, 50, stakes=(5, 3, 10, 20))  # seat 1's 2c is all-in from the ante
    assert two.to_act == 2 and legal(two) == ["fold", "bring_in 3", "complete 10"]
    act(two, "fold")  # seat 3, the last active player, is not asked
    assert two.snapshot()["street"] == "showdown" and len(events(two, "action")) == 1
    game = hand(5, 50, 50, stakes=(5, 3, 10, 20))
    while game.snapshot()["street"] != "showdown":
        assert game.to_act is not None and game.seats[game.to_act].stack > 0
        act(game, next(move for move in legal(game) if move.split()[0] in ("bring_in", "check", "call")))


@check("BET.CAP", "at most 1 + max_raises full wagers")
@check("BET.CAP.HEADS-UP", "only two players betting")
def the_bet_and_max_raises_raises_then_the_cap() -> None:
    for max_raises in (3, 4):
        for players in (2, 3):
            game = act(hand(*[500] * players, max_raises=max_raises), "bring_in 3", "complete 10")
            act(game, *[f"raise {20 + 10 * n}" for n in range(max_raises)])
            assert refusal(game, f"raise {20 + 10 * max_raises}") is Reason.RAISE_CAP_REACHED
            assert [move.split()[0] for move in legal(game)] == ["fold", "call"]


def fourth_street(*stacks: int, **options: Any) -> Hand:
    """Everyone calls the bring-in: the next street (fourth; five-card stud: third)."""
    return act(hand(*stacks, **options), "bring_in 3", *["call"] * (len(stacks) - 1))


@check("BET.CAP.HEADS-UP", "a round that begins with exactly two active live players", "A round that begins with three or more active players stays capped",
       "exactly two live players are active", "while three or more live players were active", "exactly one unit each")
def heads_up_lifts_the_cap_per_option() -> None:
    begins = fourth_street(500, 500, heads_up=HeadsUp.ROUND_BEGINS)
    act(begins, "bet 10", "raise 20", "raise 30", "raise 40", "raise 50", "raise 60")
    assert legal(begins)[-1] == "raise 70" and refusal(begins, "raise 80") is Reason.INVALID_AMOUNT
    for heads_up, capped in ((HeadsUp.ROUND_BEGINS, True), (HeadsUp.BEFORE_CAP, False), (HeadsUp.CAPPED, True)):
        game = act(fourth_street(500, 500, 500, heads_up=heads_up), "bet 10", "raise 20", "fold", "raise 30", "raise 40")
        assert (refusal(game, "raise 50") is Reason.RAISE_CAP_REACHED) if capped else legal(game)[-1] == "raise 50"
    multiway = act(fourth_street(500, 500, 500, heads_up=HeadsUp.BEFORE_CAP), "bet 10", "raise 20", "raise 30", "raise 40", "fold")
    assert refusal(multiway, "raise 50") is Reason.RAISE_CAP_REACHED


PAIRED = {1: "? ? 2c Ah", 2: "? ? 3d 3h", 3: "? ? 5d 6h"}  # seat 2's open pair acts first on fourth street


@check("BET.DOUBLE.OPEN-PAIR", "any live player's two up cards are a pair", "not only the one with the pair")
@check("BET.DOUBLE.RAISES", "(to L + small_bet) or by the big bet (to L + big_bet)", "a raise to exactly L + big_bet",
       "every later raise in the round MUST be by the big bet (to L + big_bet)")
def an_open_pair_on_fourth_street_allows_the_big_bet() -> None:
    game = fourth_street(500, 500, 500, cards=PAIRED)
    assert game.to_act == 2 and legal(game) == ["fold", "check", "bet 10", "bet 20"]
    assert legal(act(game, "check")) == ["fold", "check", "bet 10", "bet 20"]
    assert legal(act(game, "bet 10")) == ["fold", "call 10", "raise 20", "raise 30"]
    assert legal(act(game, "raise 30")) == ["fold", "call 30", "raise 50"]
    assert refusal(game, "raise 40") is Reason.INVALID_AMOUNT


@check("BET.DOUBLE.ABSENT", "(a bet to big_bet, a raise to L + big_bet)", "no live player's two up cards are a pair")
def without_the_open_pair_the_big_bet_is_refused() -> None:
    razz = fourth_street(500, 500, 500, variant=RAZZ, cards={1: "? ? Kc 2h", 2: "? ? 3d 3h", 3: "? ? 5d 6h"})
    for game in (fourth_street(500, 500, 500), fourth_street(500, 500, 500, variant=HILO, cards=PAIRED), razz,
                 fourth_street(500, 500, 500, cards=PAIRED, open_pair_double=False)):
        assert legal(game)[-1] == "bet 10" and refusal(game, "bet 20") is Reason.INVALID_AMOUNT
        act(game, "bet 10")
        assert legal(game)[-1] == "raise 20" and refusal(game, "raise 30") is Reason.INVALID_AMOUNT


@check("FIVE.OPEN-PAIR", "any live player's two up cards on third street are a pair")
@check("BIGBET.NO-DOUBLE", "its first street with two up cards")
def five_card_stud_the_open_pair_is_on_third_street() -> None:
    cards = {1: "? 2c Ah", 2: "? 3d 3h", 3: "? 5d 6h"}
    for double, last in ((True, "bet 20"), (False, "bet 10")):
        game = fourth_street(500, 500, 500, variant=FIVE, cards=cards, open_pair_double=double)
        assert game.snapshot()["street"] == "third" and game.to_act == 2 and legal(game)[-1] == last
    big = fourth_street(500, 500, 500, variant=FIVE, cards=cards, betting=NO_LIMIT)
    assert legal(big)[-1] == "bet 3..497"
    assert legal(fourth_street(500, 500, 500, cards=PAIRED, betting=NO_LIMIT))[-1] == "bet 3..497"


# --- pot limit and no limit ----------------------------------------------------------------------------


@check("BIGBET.BRING-IN.OPEN-ANY", "from bring_in + 1 up to the maximum (BIGBET.POT-MAX with C = O = 0, that is the antes in the middle",
       "one below bring_in + 1 or above the maximum", "(a stack of at most one bring-in, or in pot limit antes of at most one bring-in)",
       "So a seat with more than one bring-in and less than two may open", "so bet starts one chip above it")
def the_bring_in_seat_may_open_from_one_chip_above_the_bring_in() -> None:
    game = hand(100, 100, 100, stakes=(1, 3, 10, 20), betting=NO_LIMIT)
    assert legal(game) == ["bring_in 3", "bet 4..99"]
    assert refusal(game, "bet 3") is Reason.INVALID_AMOUNT and refusal(game, "bet 100") is Reason.INVALID_AMOUNT
    for stack, opening in ((4, ["bring_in 3"]), (5, ["bring_in 3", "bet 4..4"]), (6, ["bring_in 3", "bet 4..5"])):
        short = hand(stack, 100, stakes=(1, 3, 10, 20), betting=NO_LIMIT)
        assert legal(short) == opening  # a stack of 3, 4 or 5 after the ante
    three = hand(100, 100, 100, stakes=(1, 3, 10, 20), betting=POT_LIMIT)  # antes 3: one bring-in
    assert legal(three) == ["bring_in 3"] and refusal(three, "bet 4") is Reason.ILLEGAL_ACTION
    assert legal(hand(100, 100, 100, 100, stakes=(1, 3, 10, 20), betting=POT_LIMIT)) == ["bring_in 3", "bet 4..4"]


@check("BIGBET.BRING-IN.OPEN-ANY", "of size S = bring_in; opening for more is a bet of size S = its amount. Each later player MAY fold, call, or raise to at least C + S")
@check("BIGBET.BRING-IN.FORCED", "(S = bring_in)")
def after_the_opening_a_raise_adds_at_least_the_opening() -> None:
    for forced in (False, True):
        option = BigBetBringIn.FORCED if forced else BigBetBringIn.OPEN
        game = hand(100, 100, 100, betting=NO_LIMIT, big_bet_bring_in=option)
        assert legal(game) == (["bring_in 3"] if forced else ["bring_in 3", "bet 4..100"])
        assert legal(act(game, "bring_in 3")) == ["fold", "call 3", "raise 6..100"]
    opened = act(hand(100, 100, 100, betting=NO_LIMIT), "bet 7")
    assert legal(opened) == ["fold", "call 7", "raise 14..100"]


@check("BIGBET.BRING-IN.FORCED", "it MAY raise (to at least the level plus S)")
def a_forced_bring_in_may_raise_over_a_short_all_in() -> None:
    for option, reopened in ((BigBetBringIn.FORCED, True), (BigBetBringIn.OPEN, False)):
        game = act(hand(100, 4, 100, betting=NO_LIMIT, big_bet_bring_in=option), "bring_in 3", "raise 4", "call")
        assert legal(game) == (["fold", "call 4", "raise 7..100"] if reopened else ["fold", "call 4"])  # 4 + S, S = 3


@check("BIGBET.MIN-RAISE", "A raise MUST go to at least C + S", "A full raise (one that adds at least S) makes its own size the new S")
@check("BIGBET.ALL-IN-SHORT", "written raise T..T")
@check("BIGBET.FULL-RAISE", "to at least the all-in amount plus S")
def a_raise_adds_the_last_full_bet_or_raise() -> None:
    game = act(hand(100, 100, 33, 100, betting=NO_LIMIT), "bring_in 3", "call", "call", "call", "bet 10")
    assert legal(game)[-1] == "raise 20..97" and refusal(game, "raise 19") is Reason.INVALID_AMOUNT
    act(game, "raise 25")  # a full raise of 15: S = 15
    assert legal(game)[-1] == "raise 30..30"  # seat 3 has 30: short of 25 + 15
    act(game, "raise 30")  # all-in, adding 5 < S
    assert legal(game)[-1] == "raise 45..97"


@check("BIGBET.POT-MAX", "raise at most to C + (M + (C - O)), that is 2C - O + M: the call, plus the pot")
def pot_limit_raises_to_the_pot_after_the_call() -> None:
    game = hand(100, 100, 100, stakes=(1, 3, 10, 20), betting=POT_LIMIT)
    assert legal(act(game, "bring_in 3")) == ["fold", "call 3", "raise 6..12"]  # C 3, O 0, M 3 + 3
    act(game, "call", "call", "bet 5")  # fourth street: M = 12 + 5
    assert legal(game)[-1] == "raise 10..27" and refusal(game, "raise 28") is Reason.INVALID_AMOUNT
    act(game, "raise 10", "fold")  # seat 1: C 10, O 5, M = 12 + 5 + 10
    assert legal(game)[-1] == "raise 15..42"


@check("BIGBET.CUMULATIVE", "C - A >= S")
def short_all_ins_that_add_up_to_a_full_raise_reopen() -> None:
    for last, reopened in ((23, True), (22, False)):  # seat 3 all-in to 20 or 19 after 10 and 15
        game = act(hand(100, 18, last, 100, betting=NO_LIMIT), "bring_in 3", *["call"] * 3, "bet 10", "raise 15", f"raise {last - 3}")
        act(game, "call")
        assert (legal(game)[-1] == "raise 30..97") if reopened else (legal(game) == ["fold", f"call {last - 3}"])
        if not reopened:
            assert refusal(game, "raise 29") is Reason.BETTING_NOT_REOPENED
