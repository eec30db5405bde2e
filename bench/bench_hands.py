"""Complete random 6-handed fixed-limit hands per second, in process: studcheck.engine vs PokerKit.

Same stakes for both (ante 1, bring-in 2, small bet 5, big bet 10, stacks 200: no one can go
all-in, as four bets on every street cost at most 181) and the same decision policy, modelled on
PokerKit's own loop (research probes): at each decision pick uniformly among the *kinds* of legal
action — post the bring-in, fold, check-or-call, complete/bet/raise (the smallest amount) — where
fold is offered only when facing a wager (PokerKit refuses a fold that could check) and, in the
"never fold" workload, never. PokerKit automates antes, dealing, burns, showdown and pot pushing;
studcheck deals from a shuffled deck inside the timed loop and every player shows at showdown.
Actions per hand are reported for both so the reader can see that the workloads match. Chips are
checked to be conserved at the end of every hand in both engines.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from bench_common import Row, at_least, timed
from studcheck.cards import FULL_DECK
from studcheck.engine import Action, Hand
from studcheck.engine.state import LegalAction
from studcheck.rules import ActionType, Betting, Options, SeatSetup, Stakes, Variant

PLAYERS = 6
STACK = 200
STAKES = Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10)
SEATS = tuple(SeatSetup(seat=seat, stack=STACK) for seat in range(1, PLAYERS + 1))
#: in-process hands as a share of the same loop driving a no-op engine, per workload: random hands
#: (2a) at least 0.25 (issue 32); hands nobody folds (2b) no regression from the rates of 2026-11
#: (issue 15: 0.19). Compiled, 0.38 for both (issue 15).
CEILING_SHARE = {"random": 0.25, "nofold": 0.19}
CEILING_SHARE_COMPILED = 0.38
FIXED = Options()
POT_LIMIT = Options(betting=Betting.POT_LIMIT)
_WAGERS = frozenset({ActionType.COMPLETE, ActionType.BET, ActionType.RAISE})
_SHOW = ActionType.SHOW  # the engine loop's own bookkeeping (the no-op loop counts nothing)


@dataclass(frozen=True, kw_only=True)
class HandConfig:
    studcheck_hands: int  # random hands (fold allowed) per timed run; never-fold runs use a third
    pokerkit_hands: int  # same for PokerKit
    repeat: int
    seed: int


@dataclass(frozen=True, kw_only=True)
class Tally:
    hands: int
    actions: int  # betting decisions by players
    showdown: int  # show/muck decisions (studcheck only: PokerKit automates them)


class ChipsNotConserved(AssertionError):
    """An engine ended a hand with more or fewer chips than it started with."""


# --- studcheck ---------------------------------------------------------------------------------


def _choose(hand: Hand, rng: random.Random, allow_fold: bool) -> Action:
    """One uniformly random kind of legal action; wagers at their smallest amount.

    Legal lists come sorted by action then amount, so the first wager seen is the smallest.
    """
    seat = hand.to_act
    assert seat is not None
    legal = hand.legal_actions()
    if legal[0].action is ActionType.SHOW:
        return Action(seat=seat, action=ActionType.SHOW)
    options: list[tuple[ActionType, int | None]] = []
    wager = fold = facing = False
    for entry in legal:
        kind = entry.action
        if kind is ActionType.FOLD:
            fold = True
            continue
        if kind in _WAGERS:
            if wager:
                continue
            wager = True
        elif kind is ActionType.CALL:
            facing = True
        options.append((kind, entry.amount))
    if fold and facing and allow_fold:
        options.append((ActionType.FOLD, None))
    action, amount = rng.choice(options)
    return Action(seat=seat, action=action, amount=amount)


def studcheck_hand(variant: Variant, rng: random.Random, *, allow_fold: bool, options: Options = FIXED) -> tuple[int, int]:
    """Play one hand; (betting actions, showdown actions)."""
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    hand = Hand(variant=variant, options=options, stakes=STAKES, seats=SEATS, deck=deck)
    actions = showdown = 0
    while not hand.is_over:
        action = _choose(hand, rng, allow_fold)
        hand.apply(action)
        if action.action is _SHOW:  # a module global: the enum attribute costs ~0.2 us in CPython 3.11
            showdown += 1
        else:
            actions += 1
    assert hand.result is not None
    if sum(hand.result["stacks"].values()) + hand.result["rake"] != PLAYERS * STACK:
        raise ChipsNotConserved(f"studcheck {variant.value}: {hand.result}")
    return actions, showdown


class NoOpHand:
    """An engine that costs nothing, for the loop above: the same legal list at every decision,
    `apply` only counts, the hand ends after `decisions` actions.

    Played by the same loop as the real engine (shuffle, `_choose`, `Action`, `apply`), it measures
    the benchmark's own cost per hand: the rate no engine driven from Python could beat here.
    """

    LEGAL = (LegalAction(action=ActionType.FOLD), LegalAction(action=ActionType.CALL, amount=5),
             LegalAction(action=ActionType.RAISE, amount=10))

    def __init__(self, decisions: int) -> None:
        self.to_act = 1
        self._left = decisions

    @property
    def is_over(self) -> bool:
        return self._left <= 0

    def legal_actions(self) -> tuple[LegalAction, ...]:
        return self.LEGAL

    def apply(self, action: Action) -> None:
        self._left -= 1


def no_op_hand(decisions: int, rng: random.Random) -> None:
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    hand = NoOpHand(decisions)
    while not hand.is_over:
        hand.apply(_choose(hand, rng, True))  # type: ignore[arg-type]  # duck-typed like a Hand


def _run_no_op(decisions: int, count: int, seed: int) -> Tally:
    """`count` no-op hands playing `decisions` decisions in all, spread as evenly as possible (the
    total of an engine run, so that both loops make exactly as many decisions)."""
    rng = random.Random(seed)
    each, extra = divmod(decisions, count)
    for index in range(count):
        no_op_hand(each + (index < extra), rng)
    return Tally(hands=count, actions=decisions, showdown=0)


# --- PokerKit ----------------------------------------------------------------------------------


def pokerkit_games() -> dict[Variant, Any]:
    from pokerkit import (
        FixedLimitRazz,
        FixedLimitSevenCardStud,
        FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    )

    return {
        Variant.STUD_HIGH: FixedLimitSevenCardStud,
        Variant.RAZZ: FixedLimitRazz,
        Variant.STUD_HILO8: FixedLimitSevenCardStudHighLowSplitEightOrBetter,
    }


def pokerkit_automations() -> tuple[Any, ...]:
    """Everything but the players' decisions (as in the research probes' FULL_AUTO)."""
    from pokerkit import Automation

    return (
        Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING, Automation.HOLE_DEALING, Automation.BOARD_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
    )


def pokerkit_hand(game: Any, automations: tuple[Any, ...], rng: random.Random, *, allow_fold: bool) -> int:
    """Play one hand (PokerKit deals with the global `random`, seeded by the caller); actions."""
    state = game.create_state(automations, True, STAKES.ante, STAKES.bring_in, STAKES.small_bet,
                              STAKES.big_bet, STACK, PLAYERS)
    actions = 0
    while state.status:
        options: list[Callable[[], Any]] = []
        if state.can_post_bring_in():
            options.append(state.post_bring_in)
        if allow_fold and state.can_fold():
            options.append(state.fold)
        if state.can_check_or_call():
            options.append(state.check_or_call)
        if state.can_complete_bet_or_raise_to():
            options.append(state.complete_bet_or_raise_to)
        if not options:
            raise RuntimeError(f"PokerKit state with no legal action: {state}")
        rng.choice(options)()
        actions += 1
    if sum(state.payoffs) != 0:
        raise ChipsNotConserved(f"PokerKit {game.__name__}: payoffs {state.payoffs}")
    return actions


# --- timing ------------------------------------------------------------------------------------


def _run_studcheck(variant: Variant, count: int, seed: int, allow_fold: bool, options: Options = FIXED) -> Tally:
    rng = random.Random(seed)
    actions = showdown = 0
    for _ in range(count):
        a, s = studcheck_hand(variant, rng, allow_fold=allow_fold, options=options)
        actions += a
        showdown += s
    return Tally(hands=count, actions=actions, showdown=showdown)


def _run_pokerkit(game: Any, automations: tuple[Any, ...], count: int, seed: int, allow_fold: bool) -> Tally:
    saved = random.getstate()
    random.seed(seed)  # PokerKit shuffles with the module-level generator
    rng = random.Random(seed)
    try:
        actions = sum(pokerkit_hand(game, automations, rng, allow_fold=allow_fold) for _ in range(count))
    finally:
        random.setstate(saved)
    return Tally(hands=count, actions=actions, showdown=0)


WORKLOADS = (("random", True, 1), ("nofold", False, 3))  # (key, fold allowed, divisor of the hand count)


def measure(config: HandConfig, *, with_pokerkit: bool) -> list[Row]:
    games = pokerkit_games() if with_pokerkit else {}
    automations = pokerkit_automations() if with_pokerkit else ()
    rows = []
    for name, allow_fold, divisor in WORKLOADS:
        for variant in Variant:
            rows.append(_row(config, name, allow_fold, divisor, variant, games, automations))
        # A big-bet game: Stud High pot limit (raises from the bring-in up, no cap; PokerKit's pot-limit
        # stud plays another opening model, so the reference is the no-op engine only).
        rows.append(_row(config, name, allow_fold, divisor, Variant.STUD_HIGH, {}, (), POT_LIMIT))
    return rows


def _row(config: HandConfig, name: str, allow_fold: bool, divisor: int, variant: Variant,
         games: dict[Variant, Any], automations: tuple[Any, ...], options: Options = FIXED) -> Row:
    count = max(1, config.studcheck_hands // divisor)
    structure = "" if options.betting is Betting.FIXED_LIMIT else f" {options.betting.value.replace('_', ' ')}"
    label = f"{variant.value}{structure}, {'random actions' if allow_fold else 'nobody folds'}"
    key = f"hands.{name}.{variant.value}" + ("" if not structure else f".{options.betting.value}")
    # Every timed run plays new hands (seed, seed + 1, ...): replaying the same hands would let the
    # engine's caches (exposed-board keys, evaluator memo) answer from the previous run.
    seeds = _Seeds(config.seed)
    _run_studcheck(variant, max(1, count // 10), config.seed - 1, allow_fold, options)  # warm-up

    def ours() -> Tally:
        return _run_studcheck(variant, count, seeds.next("studcheck"), allow_fold, options)

    theirs_work: Callable[[], Tally] | None = None
    if variant in games:
        game = games[variant]
        pk_count = max(1, config.pokerkit_hands // divisor)
        _run_pokerkit(game, automations, max(1, pk_count // 10), config.seed - 1, allow_fold)  # warm-up

        def theirs_work() -> Tally:
            return _run_pokerkit(game, automations, pk_count, seeds.next("pokerkit"), allow_fold)
    else:
        pk_count = 0
        if options.betting is not Betting.FIXED_LIMIT:
            versus = "; not compared with PokerKit (its big-bet stud opens with a completion)"
        else:
            versus = "; PokerKit not installed" if not games else "; PokerKit has no game for this variant"
    # The engine, the no-op engine and PokerKit run in turn (a, b, c, a, b, c, ...), best of the
    # repeats each, so that a busy moment of the machine falls on all of them, not on one side of a
    # ratio. Each no-op run makes exactly as many decisions as the engine run just before it.
    seconds = no_op_seconds = pk_seconds = float("inf")
    theirs = Tally(hands=0, actions=0, showdown=0)
    for _ in range(max(1, config.repeat)):
        took, tally = timed(ours)
        seconds = min(seconds, took)
        decisions = tally.actions + tally.showdown
        no_op_seconds = min(no_op_seconds, timed(partial(_run_no_op, decisions, count, seeds.next("no-op")))[0])
        if theirs_work is not None:
            took, theirs = timed(theirs_work)
            pk_seconds = min(pk_seconds, took)
    pk_rate: float | None = None
    if theirs_work is not None:
        pk_rate = pk_count / pk_seconds
        versus = f" vs PokerKit {theirs.actions / pk_count:.1f}"
    rate = count / seconds
    no_op_rate = count / no_op_seconds
    share = rate / no_op_rate
    target = CEILING_SHARE_COMPILED if compiled() else CEILING_SHARE[name]
    extra = _extra(tally) | {"no_op_engine_hands_per_s": no_op_rate, "pokerkit_hands_per_s": pk_rate}
    if pk_rate is not None:
        extra |= {"pokerkit_hands": pk_count, "pokerkit_actions_per_hand": theirs.actions / pk_count,
                  "x_pokerkit": rate / pk_rate}
        versus += f"; {rate / pk_rate:.1f}x PokerKit ({pk_rate:,.0f}/s)"
    return Row(key=key, label=label, unit="hands/s", studcheck=rate, other=no_op_rate,
               other_name="no-op engine", ratio=share, target=f">= {target:g}x the no-op ceiling",
               verdict=at_least(share, target), note=f"{_note(tally)}{versus}", extra=extra)


def compiled() -> bool:
    """Is the engine the mypyc build (`STUDCHECK_COMPILE=1`)? Its ceiling share is twice the pure one."""
    import importlib.machinery

    import studcheck.engine.state as state

    return isinstance(state.__spec__.loader, importlib.machinery.ExtensionFileLoader)


class _Seeds:
    """Consecutive seeds per engine, from the configured one."""

    def __init__(self, first: int) -> None:
        self._next: dict[str, int] = {}
        self._first = first

    def next(self, who: str) -> int:
        seed = self._next.get(who, self._first)
        self._next[who] = seed + 1
        return seed


def _note(tally: Tally) -> str:
    return f"actions/hand {tally.actions / tally.hands:.1f} (+{tally.showdown / tally.hands:.1f} show)"


def _extra(tally: Tally) -> dict[str, Any]:
    return {
        "studcheck_hands": tally.hands,
        "studcheck_actions_per_hand": tally.actions / tally.hands,
        "studcheck_showdown_actions_per_hand": tally.showdown / tally.hands,
    }
