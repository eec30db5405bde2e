"""Which rules decided the end of a hand: who shows first, why a hand won, how each pot was shared.

The award half of the explanations (engine/explain.py has the rest and what every part shares: the
collector, the fact paths, blame's `lookup`). Like explain.py it is bookkeeping beside the hand,
never a second engine: `note_showdown_order` and `note_finish` are the hand's recording points at
the showdown (called through explain.py, only when the hand has a collector), and the helpers
below read values the hand already decided (the pots as showdown.py awarded them, the hands'
values from evaluate.py) and change nothing.

A pot's facts, relative to the pot (`result.pots[<i>].`): `winners.<seat>` in a high or low game,
`high.<seat>` and `low.<seat>` in Hi-Lo, and the halves themselves (`high`, `low`: how the pot was
split, HILO.SPLIT or HILO.NO-LOW); the ranking rules follow the rules of the share (odd chip,
split, quartering, scoop, side pot).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from studcheck.cards import Card
from studcheck.engine.showdown import Pot
from studcheck.evaluate import high_category, high_value, low8_value, razz_value
from studcheck.rules import OddChip, Options, Street, Variant

if TYPE_CHECKING:
    from studcheck.engine.notes import HandView

#: fact path -> rule IDs, most specific first (explain.py's Facts)
Facts = dict[str, tuple[str, ...]]


# --- hands at showdown ----------------------------------------------------------------------------


def _choice_matters(cards: Sequence[Card]) -> bool:
    """More than five cards holding more made groups than five can use (three pairs, two sets,
    quads beside a pair or set): the best five must be chosen (HAND.HIGH.BEST-FIVE)."""
    if len(cards) <= 5:
        return False
    counts = sorted(Counter(card.index >> 2 for card in cards).values(), reverse=True)
    groups = [count for count in counts if count > 1]
    return len(groups) >= 3 or (len(groups) >= 2 and groups[0] >= 3)


def high_rules(variant: Variant, hands: Mapping[int, Sequence[Card]], winners: Sequence[int], contenders: Sequence[int]) -> tuple[str, ...]:
    """Why these high hands won: the category, or the kickers, or the wheel; the best five."""
    values = {seat: high_value(hands[seat]) for seat in contenders}
    rules: list[str] = []
    ranks = {seat: sorted(card.index >> 2 for card in hands[seat]) for seat in winners}
    if len(winners) > 1 and len({tuple(r) for r in ranks.values()}) > 1:
        rules.append("HAND.HIGH.BEST-FIVE")  # equal fives; the cards that do not play differ
    elif any(_choice_matters(hands[seat]) for seat in contenders):
        rules.append("HAND.HIGH.BEST-FIVE")
    top = values[winners[0]]
    losers = [values[seat] for seat in contenders if seat not in winners]
    wheel = any(_is_wheel(values[seat]) for seat in contenders)
    if wheel:
        rules.append("HAND.HIGH.WHEEL")
    if losers:
        second = max(losers)
        rules.append("HAND.HIGH.RANKING" if high_category(second) != high_category(top) else "HAND.HIGH.KICKERS")
    if variant is Variant.FIVE_CARD_STUD:
        rules.append("FIVE.HAND")
    rules += [r for r in ("HAND.HIGH.RANKING", "HAND.HIGH.KICKERS", "HAND.HIGH.BEST-FIVE") if r not in rules]
    return tuple(rules)


def _is_wheel(value: int) -> bool:
    category = value >> 20
    return category in (4, 8) and (value >> 16) & 0xF == 5



# --- awards ---------------------------------------------------------------------------------------


def _share_rules(shares: Mapping[int, int], tied: int, options: Options) -> list[str]:
    """A split pot: the odd-chip option when the shares differ, then the even split."""
    rules: list[str] = []
    if len(set(shares.values())) > 1 or 0 < len(shares) < tied:
        rules.append("POT.ODD-CHIP.WINNING-FIVE" if options.odd_chip is OddChip.BEST_FIVE else "POT.ODD-CHIP.ALL-CARDS")
    if tied > 1:
        rules.append("POT.SPLIT")
    return rules


def _tied(values: Mapping[int, int | None]) -> int:
    return len(_best(values))


def _best(values: Mapping[int, int | None]) -> list[int]:
    """The seats with the best value (None: no hand for this half)."""
    scored = [value for value in values.values() if value is not None]
    return [seat for seat, value in values.items() if scored and value == max(scored)]


def note_zero_shares(facts: Facts, pot: Pot, shown: Sequence[int], variant: Variant,
                     hands: Mapping[int, Sequence[Card]]) -> Facts:
    """POT.NO-ZERO-SHARE first for a pot or half that lists fewer seats than won it (a tied winner's
    share was 0, or the rake left the pot or half empty), and for each such winner left out, whose
    fact says why it got nothing. Returns the narrowings: POT.NO-ZERO-SHARE is broken by an engine
    that lists him with 0 chips; one that gives him chips broke the odd-chip rule that follows."""
    narrowings: Facts = {}
    for name, listed, won in _halves(pot, shown, variant, hands):
        if len(listed) >= len(won) or name not in facts:
            continue
        facts[name] = ("POT.NO-ZERO-SHARE",) + tuple(rule for rule in facts[name] if rule != "POT.NO-ZERO-SHARE")
        share = facts.get(f"{name}.{min(listed)}", facts[name]) if listed else facts[name]
        for seat in won:
            if seat not in listed:
                facts[f"{name}.{seat}"] = ("POT.NO-ZERO-SHARE",) + tuple(r for r in share if r != "POT.NO-ZERO-SHARE")
                narrowings[f"{name}.{seat}|POT.NO-ZERO-SHARE"] = ("0",)
    return narrowings


def _halves(pot: Pot, shown: Sequence[int], variant: Variant,
            hands: Mapping[int, Sequence[Card]]) -> list[tuple[str, Mapping[int, int], list[int]]]:
    """(name, the shares listed, the seats that won it) for each half of a pot (one for a high or low game)."""
    if variant is not Variant.STUD_HILO8:
        if not shown:
            return [("winners", pot.winners, list(pot.winners)[:1])]
        value = razz_value if variant is Variant.RAZZ else high_value
        return [("winners", pot.winners, _best({seat: value(hands[seat]) for seat in shown}))]
    if not shown:
        return [("high", pot.high, list(pot.high)[:1])]
    halves: list[tuple[str, Mapping[int, int], list[int]]] = [("high", pot.high, _best({s: high_value(hands[s]) for s in shown}))]
    lows = {seat: low8_value(hands[seat]) for seat in shown}
    if any(value is not None for value in lows.values()):
        halves.append(("low", pot.low, _best(lows)))
    return halves


def award_rules(
    pot: Pot,
    shown: Sequence[int],
    variant: Variant,
    options: Options,
    hands: Mapping[int, Sequence[Card]],
    *,
    uncontested: tuple[str, ...],
    side_pot: bool,
) -> Facts:
    """`winners.<seat>` (or `high.<seat>` and `low.<seat>`) of one pot, relative to the pot."""
    out: Facts = {}
    hilo = variant is Variant.STUD_HILO8
    if not shown:
        target = pot.high if hilo else pot.winners
        name = "high" if hilo else "winners"
        out[name] = uncontested
        for seat in target:
            out[f"{name}.{seat}"] = uncontested
        if hilo:
            out["low"] = uncontested
        return out
    side = ["HILO.SIDE-POT" if hilo else "POT.SIDE"] if side_pot else []
    if not hilo:
        winners = sorted(pot.winners)
        if variant is Variant.RAZZ:
            ranking: tuple[str, ...] = ("HAND.LOW.A5",)
            tied = _tied({seat: razz_value(hands[seat]) for seat in shown})
        else:
            ranking = high_rules(variant, hands, winners or list(shown), shown)
            tied = _tied({seat: high_value(hands[seat]) for seat in shown})
        out["winners"] = tuple(side) + ranking
        for seat in winners:
            out[f"winners.{seat}"] = tuple(side + _share_rules(pot.winners, tied, options)) + ranking
        return out
    high_winners = sorted(pot.high)
    high_ranking = high_rules(variant, hands, high_winners or list(shown), shown)
    high_tied = _tied({seat: high_value(hands[seat]) for seat in shown})
    low_tied = _tied({seat: low8_value(hands[seat]) for seat in shown})
    if not pot.low:  # no qualifying low: HILO.NO-LOW gives this pot whole to the high, side pot or not
        out["low"] = ("HILO.NO-LOW", *side, "HAND.LOW.EIGHT")
        out["high"] = ("HILO.NO-LOW", *side) + high_ranking
        for seat in high_winners:
            out[f"high.{seat}"] = tuple(["HILO.NO-LOW"] + side + _share_rules(pot.high, high_tied, options)) + high_ranking
        return out
    if (sum(pot.high.values()) + sum(pot.low.values())) % 2:  # HILO.SPLIT gave the odd chip to the high half
        out["high"] = ("HILO.SPLIT", *side) + high_ranking
        out["low"] = ("HILO.SPLIT", *side, "HAND.LOW.EIGHT")
    else:
        out["high"] = tuple(side) + ("HILO.SPLIT",) + high_ranking
        out["low"] = tuple(side) + ("HAND.LOW.EIGHT", "HILO.SPLIT")
    scooper = high_winners[0] if len(pot.high) == 1 and list(pot.low) == high_winners else None  # both halves whole
    for seat in high_winners:
        rules = list(side)
        if seat == scooper:
            rules.append("HILO.SCOOP")
        shares = _share_rules(pot.high, high_tied, options)
        if high_tied > 1:
            rules.append("HILO.QUARTER.EVEN")
        rules += [rule for rule in shares if rule != "POT.SPLIT"]
        out[f"high.{seat}"] = tuple(rules) + ("HILO.SPLIT",) + high_ranking
    for seat in sorted(pot.low):
        rules = list(side)
        if low_tied > 1:
            rules.append("HILO.QUARTER.EVEN")
        rules += [rule for rule in _share_rules(pot.low, low_tied, options) if rule != "POT.SPLIT"]
        if seat == scooper:
            rules.append("HILO.SCOOP")
        out[f"low.{seat}"] = tuple(rules) + ("HAND.LOW.EIGHT", "HILO.SPLIT")
    return out



# --- the showdown's recording points (called by Hand only when it has a collector) -------------


def note_showdown_order(hand: HandView, first: int) -> None:
    """Who shows first: the last aggressor of the final round, else the unbet-showdown option."""
    assert hand._notes is not None
    if hand.seventh_aggressor is not None and first == hand.seventh_aggressor:
        rules: tuple[str, ...] = ("SHOWDOWN.ORDER.AGGRESSOR",)
    else:
        rules = ("SHOWDOWN.ORDER.UNBET",)
    hand._notes.add("to_act", *rules)
    hand._notes.add("result.showdown_order", *rules)


def _hand_cards(hand: HandView) -> dict[int, list[Card]]:
    """Each seat's cards, the community card included: what the award rules compare."""
    extra = [hand.community] if hand.community is not None else []
    return {seat: s.down + s.up + extra for seat, s in hand.seats.items()}


def note_finish(hand: HandView, pots: list[Pot], returned: dict[int, int], rake: int) -> None:
    """The result: returned chips, rake, pots and each share of each pot, the final stacks."""
    assert hand._notes is not None
    notes = hand._notes
    at_showdown = hand.street is Street.SHOWDOWN
    if at_showdown:
        # the others mucked and left one who has not shown: he wins without showing, nobody is asked
        left = [seat for seat in hand.seats.values() if not seat.folded and not seat.mucked]
        alone = len(left) == 1 and not left[0].shown
        ended = ("SHOWDOWN.UNCONTESTED", "SHOWDOWN.MUCK") if alone else ("SHOWDOWN.MUCK",)
        notes.add("street", *ended)
        notes.add("to_act", *ended)
    else:
        notes.add("result.showdown_order", *notes.get("street"))
    for seat in returned:
        notes.add(f"result.returned.{seat}", "POT.UNCALLED")
    if hand.options.rake_percent and not hand.fourth_dealt:
        third = "RAKE.THIRD-STREET" if hand.options.rake_third_street else "RAKE.NO-THIRD-STREET"
        notes.add("result.rake", third, "RAKE.PERCENT")
    else:
        notes.add("result.rake", "RAKE.PERCENT")
    notes.add("result.pots", "POT.SIDE")
    hands = _hand_cards(hand)
    for index, pot in enumerate(pots):
        where = f"result.pots[{index}]"
        left_out = [s for s in hand._live() if s.seat not in pot.eligible]
        ante = any(s.total <= hand.stakes.ante for s in left_out)
        notes.add(f"{where}.eligible", *(("ANTE.ALL-IN", "POT.SIDE") if ante else ("POT.SIDE",)))
        raked = notes.get("result.rake") if index == 0 and (rake or pot.amount) else ()
        notes.add(f"{where}.amount", *raked, "POT.SIDE")
        if not rake:  # no rake: the option value or the street took it away, if the engine took some
            for rule in raked:
                notes.narrow(f"{where}.amount", rule, [f"0..{pot.amount - 1}"])
        shown = [seat for seat in pot.eligible if hand.seats[seat].shown]
        facts = award_rules(pot, shown, hand.variant, hand.options, hands,
                            uncontested=notes.get("street") if not at_showdown else ("SHOWDOWN.UNCONTESTED",),
                            side_pot=index > 0)
        narrowings = note_zero_shares(facts, pot, shown, hand.variant, hands)
        for fact, rules in facts.items():
            notes.add(f"{where}.{fact}", *rules)
            half, _, winner = fact.partition(".")
            if winner and not notes.get(f"result.stacks.{winner}"):
                zero = f"{fact}|POT.NO-ZERO-SHARE" in narrowings  # a stack that differs: he got chips
                # as the pot's amount: a stack short by at most the pot is a rake no rule took
                final = hand.seats[int(winner)].stack
                untaken = () if rake or final == 0 else raked
                notes.add(f"result.stacks.{winner}", *untaken, *(rules[1:] if zero else rules))
                for rule in untaken:
                    notes.narrow(f"result.stacks.{winner}", rule, [f"{max(final - pot.amount, 0)}..{final - 1}"])
        for key, values in narrowings.items():
            fact, _, rule = key.partition("|")
            notes.narrow(f"{where}.{fact}", rule, values)
    main = notes.get("result.pots[0].winners") or notes.get("result.pots[0].high") or ("POT.SIDE",)
    notes.add("result.stacks", *main)
    notes.add("result.returned", "POT.UNCALLED")
    for seat_number in hand.seats:
        if not notes.get(f"result.stacks.{seat_number}"):
            notes.add(f"result.stacks.{seat_number}", *(notes.get(f"result.returned.{seat_number}") or main))
