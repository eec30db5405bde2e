"""An evaluator of the evaluation profile written apart from studcheck.evaluate (brute force over the
five-card subsets), with one planted bug chosen by `--bug` (none: a correct evaluator).

Bugs (each breaks one rule; tests/harness/test_evaluation_profile.py checks the blame names it):
  wheel_not_straight    A-2-3-4-5 is only ace high                      HAND.HIGH.WHEEL
  wheel_ace_high        the wheel ranks as the highest straight          HAND.HIGH.WHEEL
  wrap_around           K-A-2-3-4 counts as a straight                   HAND.HIGH.WHEEL
  sixth_card_kicker     cards outside the best five break ties           HAND.HIGH.BEST-FIVE
  first_five            the hand is its first five cards                 HAND.HIGH.BEST-FIVE
  suits_break_ties      equal hands are ordered by their suits           HAND.HIGH.KICKERS
  flush_below_straight  a flush ranks under a straight                   HAND.HIGH.RANKING
  razz_straights        Razz counts straights and flushes against        HAND.LOW.A5
  qualifier_nine        a 9-low qualifies for the 8-or-better low        HAND.LOW.EIGHT
  exposed_straights     a four-card straight on board beats a pair       BET.FIRST-ACTOR.EXPOSED-RANKING
  bring_in_ace_low      the ace is low for the Stud High bring-in        BRING-IN.CARD.LOW
  bring_in_no_suit      equal door cards tie (no suit order)             BRING-IN.TIE.SUIT

`--mode` makes it misbehave instead (a correct evaluator otherwise): `wrong_count` answers one value
too few, `refuse` refuses every batch (unsupported), `crash` exits on its second batch, `floats`
writes every value as a JSON float (2.0: read as the integer, protocol.md), `lower` answers the
negated values and declares "lower", `hands` answers hello as a hands-profile engine.
"""
import argparse
import json
import sys
from collections import Counter
from itertools import combinations

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def parse(card):
    return RANKS.index(card[0]) + 2, SUITS.index(card[1])


def five_high(cards, bug):
    """(category, ranks...) of exactly five cards, higher better."""
    ranks = sorted((r for r, _ in cards), reverse=True)
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    flush = len({s for _, s in cards}) == 1
    distinct = sorted(set(ranks), reverse=True)
    top = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            top = distinct[0]
        elif distinct == [14, 5, 4, 3, 2] and bug != "wheel_not_straight":
            top = 15 if bug == "wheel_ace_high" else 5
        elif bug == "wrap_around" and set(distinct) in ({14, 13, 2, 3, 4}, {14, 13, 12, 2, 3}, {14, 13, 12, 11, 2}):
            top = 4
    shape = [c for _, c in groups]
    order = [r for r, _ in groups]
    flush_rank, straight_rank = (4, 5) if bug == "flush_below_straight" else (5, 4)
    if top and flush:
        return (8, top)
    if shape == [4, 1]:
        return (7, *order)
    if shape == [3, 2]:
        return (6, *order)
    if flush:
        return (flush_rank, *ranks)
    if top:
        return (straight_rank, top)
    if shape == [3, 1, 1]:
        return (3, *order)
    if shape == [2, 2, 1]:
        return (2, *order)
    if shape == [2, 1, 1, 1]:
        return (1, *order)
    return (0, *ranks)


def high(hand, bug):
    cards = [parse(c) for c in hand]
    if bug == "first_five":
        return list(five_high(cards[:5], bug))
    best = max(combinations(cards, 5), key=lambda five: five_high(five, bug))
    value = list(five_high(best, bug))
    if bug == "sixth_card_kicker":
        rest = list(cards)
        for card in best:
            rest.remove(card)
        value += sorted((r for r, _ in rest), reverse=True)
    if bug == "suits_break_ties":
        value += sorted((s for _, s in best), reverse=True)
    return value


def five_low(cards, bug):
    """A-5 low of five cards as a key where higher is better (lower hand)."""
    ranks = sorted((1 if r == 14 else r for r, _ in cards), reverse=True)
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    category = {(1, 1, 1, 1, 1): 0, (2, 1, 1, 1): 1, (2, 2, 1): 2, (3, 1, 1): 3, (3, 2): 4, (4, 1): 5}[tuple(c for _, c in groups)]
    if bug == "razz_straights" and category == 0:
        straight = ranks[0] - ranks[4] == 4
        flush = len({s for _, s in cards}) == 1
        if straight or flush:
            category = 6
    return (-category, *(-r for r, _ in groups))


def razz(hand, bug):
    cards = [parse(c) for c in hand]
    return list(max(five_low(five, bug) for five in combinations(cards, 5)))


def low8(hand, bug):
    cards = [parse(c) for c in hand]
    limit = 9 if bug == "qualifier_nine" else 8
    fives = [five for five in combinations(cards, 5)
             if len({1 if r == 14 else r for r, _ in five}) == 5 and all((1 if r == 14 else r) <= limit for r, _ in five)]
    return None if not fives else list(max(five_low(five, bug) for five in fives))


def exposed(hand, bug, low):
    ranks = [(1 if low and r == 14 else r) for r, _ in (parse(c) for c in hand)]
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    category = {(1,): 0, (1, 1): 0, (1, 1, 1): 0, (1, 1, 1, 1): 0, (2,): 1, (2, 1): 1, (2, 1, 1): 1, (2, 2): 2,
                (3,): 3, (3, 1): 3, (4,): 4}[tuple(c for _, c in groups)]
    if bug == "exposed_straights" and len(ranks) == 4 and category == 0 and max(ranks) - min(ranks) == 3:
        category = 1.5
    key = [category, *(r for r, _ in groups)]
    return [-k for k in key] if low else key


def bring_in(hand, bug, razz_game):
    rank, suit = parse(hand[0])
    if razz_game:
        rank = 1 if rank == 14 else rank
        return [rank, 0 if bug == "bring_in_no_suit" else suit]
    if bug == "bring_in_ace_low" and rank == 14:
        rank = 1
    return [-rank, 0 if bug == "bring_in_no_suit" else -suit]


def value(kind, hand, bug):
    if kind == "high":
        return high(hand, bug)
    if kind == "razz":
        return razz(hand, bug)
    if kind == "low8":
        return low8(hand, bug)
    if kind in ("exposed_high", "exposed_low"):
        return exposed(hand, bug, kind == "exposed_low")
    return bring_in(hand, bug, kind == "bring_in_razz")


def numbered(values):
    """Lists with fractions (the planted 1.5 category) as integer ranks within the batch."""
    distinct = sorted({tuple(v) for v in values if v is not None})
    place = {v: i for i, v in enumerate(distinct)}
    return [None if v is None else place[tuple(v)] for v in values]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bug", default="none")
    parser.add_argument("--mode", default="none")
    options = parser.parse_args()
    bug, mode = options.bug, options.mode
    batches = 0
    kinds = ["high", "razz", "low8", "exposed_high", "exposed_low", "bring_in", "bring_in_razz"]
    for line in sys.stdin:
        request = json.loads(line)
        seq = request.get("seq")
        if request.get("type") == "hello" and mode == "hands":
            answer = {"seq": seq, "ok": True, "protocol": 1, "engine": {"name": "hands-only", "version": "1"},
                      "variants": ["razz"], "options": {
                          "bring_in_tie": ["suit"], "first_actor_tie": ["seat"], "open_pair_double": [True], "max_raises": [3],
                          "heads_up": ["capped"], "burn_cards": [True], "short_stub": ["remake"], "odd_chip": ["best_five"],
                          "showdown_unbet": ["first_actor"], "rake_percent": [0], "rake_cap": [0]}}
        elif request.get("type") == "hello":
            direction = "lower" if mode == "lower" else "higher"
            answer = {"seq": seq, "ok": True, "protocol": 1, "profile": "evaluation",
                      "engine": {"name": f"planted-{bug}", "version": "1"}, "kinds": {kind: direction for kind in kinds}}
        elif request.get("type") == "evaluate":
            batches += 1
            if mode == "crash" and batches == 2:
                return 3
            values = numbered([value(request["kind"], hand, bug) for hand in request["hands"]])
            if mode == "wrong_count":
                values = values[:-1]
            elif mode == "floats":
                values = [None if v is None else float(v) for v in values]
            elif mode == "lower":
                values = [None if v is None else -v for v in values]
            answer = {"seq": seq, "ok": True, "values": values}
            if mode == "refuse":
                answer = {"seq": seq, "ok": False, "error": {"reason": "unsupported", "message": "not today"}}
        else:
            answer = {"seq": seq, "ok": True}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if request.get("type") == "bye":
            return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
