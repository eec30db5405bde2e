"""Which rule decided each fact of the state: bookkeeping beside the hand, never a second engine.

A `Hand` built with a `Notes` collector records, beside the branch that produced a fact, the rule
IDs (spec/rules.yaml) that decided it, most specific first, keyed by the fact's path in the
harness's Mismatch syntax (`to_act`, `legal.raise`, `up.3`, `result.pots[0].winners.2`). A hand
without a collector records nothing: every recording call sits behind `if notes is not None`.

The harness asks for explanations only when a case diverges: it replays the case on the
reference with a collector and blames the rule that explains the first differing fact (`lookup`).
The helpers below decide which rule a branch stands for from values the hand already has; none of
them changes the hand.

A branch decided by an option value or a condition records that rule whichever way it went, and
when the fact is an absence (no raise, no burn, no rake, no bet for the bring-in seat, no
reopening) the rule that took the thing away leads, as the rule that grants it leads a presence:
`burn_cards: false` explains the next card by DEAL.BURN, a heads-up round the cap kept by
BET.CAP.HEADS-UP, a pot nothing was raked from by RAKE.PERCENT (or RAKE.NO-THIRD-STREET).

Facts: `street`, `to_act`, `community`, `legal` and `legal.<kind>` (offered, or absent for a
reason a reader may ask about), `up.<seat>`, `down.<seat>`, `stacks.<seat>`, `committed.<seat>`,
`folded`, `all_in`, `shown`, `mucked`, `pots`, `pot_total`, `ok` (the accepted action's legal
entry), and at the end `result.showdown_order`, `result.rake`, `result.returned.<seat>`,
`result.pots[<i>].amount|eligible`, `result.pots[<i>].winners|high|low.<seat>`,
`result.stacks.<seat>`. A fact keeps its explanation until the branch that changes it records a
new one.

Candidate sets: where a rule only narrows a choice (BRING-IN.TIE.*, BET.FIRST-ACTOR.TIE.*, the
all-in ante, BET.FIRST-ACTOR.ALL-IN / FOLDED / EXPOSED-RANKING) and leads `to_act`'s explanation,
`to_act|<rule>` holds the values (seat numbers, as text) `to_act` could take if that rule were the
one broken and the general rule kept (`first_actor_candidates`); blame (harness/blame.py) passes
over a leading rule whose set does not hold the engine's value. An option rule that leads an
absence another rule shares narrows the same way: `result.pots[0].amount|RAKE.PERCENT` is `0..N-1`,
the amounts a rake the reference did not take leaves (`among`). These keys are no rule IDs and go
with their fact (recording the fact again drops them). `legal.<kind>.max` is what capped the top of
a pot-limit range short of the stack (BIGBET.POT-MAX), asked only when just the top differs.
Refusals are explained by `refusal_rules` and `setup_rules` (protocol/serve.py adds them).

The legal actions and refusals (caps, the completion, what an all-in reopens) are explained in
engine/explain_legal.py, from the round and how each of its wagers counted (`Notes.actions`); the
end of the hand (who shows first, why a hand won, how each pot was shared) in
engine/explain_award.py. Their recording points and rules are importable from here too, so the
hand reaches every recording point through this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from studcheck.cards import Card
from studcheck.engine import betting
from studcheck.engine.betting import SeatState
from studcheck.engine.errors import Reason
from studcheck.engine.explain_award import award_rules as award_rules
from studcheck.engine.explain_award import high_rules as high_rules
from studcheck.engine.explain_award import note_finish as note_finish
from studcheck.engine.explain_award import note_showdown_order as note_showdown_order
from studcheck.engine.explain_award import note_zero_shares as note_zero_shares
from studcheck.engine.explain_legal import _SHORT, _WAGERS, Refused, Table, counted, legal_rules
from studcheck.engine.explain_legal import cap_rules as cap_rules
from studcheck.engine.explain_legal import refusal_rules as refusal_rules
from studcheck.engine.explain_legal import wager_rules as wager_rules
from studcheck.engine.notes import Facts as Facts
from studcheck.engine.notes import HandView
from studcheck.engine.notes import Notes as Notes
from studcheck.engine.values import Action, LegalAction
from studcheck.evaluate import exposed_high_key, exposed_low_key
from studcheck.rules import ActionType, BringInTie, FirstActorTie, Street, Variant


def parent_path(path: str) -> str | None:
    """`result.pots[0].winners.3` -> `result.pots[0].winners` -> `result.pots[0]` -> `result.pots`
    -> `result` -> None."""
    if path.endswith("]"):
        start = path.rfind("[")
        if start > 0:
            return path[:start]
    dot = path.rfind(".")
    if dot > 0:
        return path[:dot]
    return None


def among(value: object, candidates: Sequence[str]) -> bool:
    """`value` is one of a candidate set (`Notes.narrow`): listed, or a whole number in a `lo..hi`."""
    if str(value) in candidates:
        return True
    if type(value) is not int:
        return False
    for candidate in candidates:
        low, dots, high = candidate.partition("..")
        if dots and int(low) <= value <= int(high):
            return True
    return False


def lookup(facts: Mapping[str, tuple[str, ...]], path: str) -> tuple[str, ...]:
    """The rules for `path`, else for its ever shorter prefixes, else ()."""
    current: str | None = path
    while current is not None:
        rules = facts.get(current)
        if rules:
            return tuple(rules)
        current = parent_path(current)
    return ()


# --- who brings in, who acts first --------------------------------------------------------------


def _card_rank(card: Card, ace_low: bool) -> int:
    rank = (card.index >> 2) + 2
    return 1 if ace_low and rank == 14 else rank


def bring_in_rules(variant: Variant, tie: BringInTie, doors: Mapping[int, Card]) -> tuple[str, ...]:
    """The bring-in card rule, after the tie rule when several door cards share the bring-in rank."""
    razz = variant is Variant.RAZZ
    ranks = [_card_rank(card, razz) for card in doors.values()]
    worst = max(ranks) if razz else min(ranks)
    rules: list[str] = []
    if ranks.count(worst) > 1:
        rules.append("BRING-IN.TIE.SUIT" if tie is BringInTie.SUIT else "BRING-IN.TIE.SEAT")
    if variant is Variant.FIVE_CARD_STUD:
        rules += ["FIVE.BRING-IN", "BRING-IN.CARD.LOW"]
    else:
        rules.append("BRING-IN.CARD.HIGH" if razz else "BRING-IN.CARD.LOW")
    return tuple(rules)


def _naive_key(board: Sequence[Card], razz: bool) -> tuple[int, ...]:
    """Boards compared card by card from the highest (lower is better in Razz), pairs ignored:
    where this disagrees with the exposed ranking, that ranking decided (EXPOSED-RANKING)."""
    ranks = sorted((_card_rank(card, razz) for card in board), reverse=True)
    return tuple(-r for r in ranks) if razz else tuple(ranks)


def first_actor_rules(
    variant: Variant,
    tie: FirstActorTie,
    boards: Mapping[int, Sequence[Card]],
    folded_boards: Mapping[int, Sequence[Card]],
    chosen: int,
    *,
    all_in_skipped: bool,
    last_street: bool,
    community: bool,
) -> tuple[str, ...]:
    """Why `chosen` (the best live board) leads this street: tie, all-in, last street, ranking."""
    razz = variant is Variant.RAZZ
    key_of = exposed_low_key if razz else exposed_high_key
    keys = {seat: key_of(board) for seat, board in boards.items()}
    best = keys[chosen]
    rules: list[str] = []
    if sum(1 for key in keys.values() if key == best) > 1:
        rules.append("BET.FIRST-ACTOR.TIE.SUIT" if tie is FirstActorTie.SUIT else "BET.FIRST-ACTOR.TIE.SEAT")
    if all_in_skipped:
        rules.append("BET.FIRST-ACTOR.ALL-IN")
    if any(key_of(board) > best for board in folded_boards.values()):
        rules.append("BET.FIRST-ACTOR.FOLDED")
    if last_street and variant is not Variant.FIVE_CARD_STUD:
        if community:
            rules.append("DEAL.COMMUNITY.FIRST-ACTOR")
        rules.append("BET.FIRST-ACTOR.SEVENTH")
    naive = {seat: _naive_key(board, razz) for seat, board in boards.items()}
    if len(boards) > 1 and max(naive.values()) != naive[chosen]:
        rules.append("BET.FIRST-ACTOR.EXPOSED-RANKING")
    if variant is Variant.FIVE_CARD_STUD:
        rules.append("FIVE.FIRST-ACTOR")
    else:
        rules.append("BET.FIRST-ACTOR.LOW" if razz else "BET.FIRST-ACTOR.HIGH")
    if "BET.FIRST-ACTOR.EXPOSED-RANKING" not in rules:
        rules.append("BET.FIRST-ACTOR.EXPOSED-RANKING")
    return tuple(rules)



# --- setups ---------------------------------------------------------------------------------------

#: words of a refused deck's message that say the deck is not 52 distinct cards (else a card is
#: badly written, CARDS.NOTATION)
_DECK_WORDS = ("52", "twice", "non-unique", "too short", "too long", "must contain cards", "must list")


def setup_rules(variant: object, message: str | None) -> tuple[str, ...]:
    """The setup rule a refused new_hand breaks (`message`: the refusal's, `field: problem`),
    ACTION.REFUSAL last; with no message, the rules an accepted setup satisfies."""
    players = "FIVE.PLAYERS" if variant == Variant.FIVE_CARD_STUD.value else "SETUP.PLAYERS"
    if message is None:
        return (players, "SETUP.STAKES", "SETUP.STACKS", "SETUP.DECK", "CARDS.NOTATION")
    text = message.removeprefix("new_hand: ")
    field = text.split(": ", 1)[0]
    if field.startswith(("deck[", "remade_stub[")):
        return ("CARDS.NOTATION", "ACTION.REFUSAL")
    if field in ("deck", "remade_stub"):
        rule = "SETUP.DECK" if any(word in text for word in _DECK_WORDS) else "CARDS.NOTATION"
        return (rule, "ACTION.REFUSAL")
    if field.startswith("seats") and field.endswith(".stack"):
        return ("SETUP.STACKS", "ACTION.REFUSAL")
    if field.startswith("seats"):
        return (players, "ACTION.REFUSAL")
    if field.startswith("stakes"):
        return ("SETUP.STAKES", "ACTION.REFUSAL")
    return ("ACTION.REFUSAL",)


# --- the hand's recording points (called by Hand only when it has a collector) ----------------------


def note_state(hand: HandView, notes: Notes) -> None:
    """Record the facts derived from the current state (the legal actions, the pots) into the
    collector; the Server calls this after each answer when explanations are wanted."""
    notes.clear_prefix("legal")
    if hand.result is not None:
        notes.add("legal", *notes.get("street"))
    elif hand.street is Street.SHOWDOWN and hand.to_act is not None:
        muck = ("SHOWDOWN.LAST-CONTENDER", "SHOWDOWN.MUCK") if hand._must_show(hand.to_act) else ("SHOWDOWN.MUCK",)
        notes.add("legal", *muck)
        notes.add("legal.muck", *muck)
        notes.add("legal.show", "SHOWDOWN.MUCK")
    else:
        for fact, rules in legal_facts(hand).items():
            notes.add(fact, *rules)
    if hand.result is None and len(hand._pots) > 1:  # the snapshot's pots, just built
        ante_only = any(s.all_in and s.total <= hand.stakes.ante for s in hand._seat_list)
        notes.add("pots", *(("ANTE.ALL-IN", "POT.SIDE") if ante_only else ("POT.SIDE",)))


def refusal_of(hand: HandView, action: Action, reason: Reason) -> tuple[str, ...]:
    """The rules behind refusing `action` with `reason` (the hand is unchanged)."""
    seat = hand.seats.get(hand.to_act) if hand.to_act is not None else None
    showdown_street = hand.street is Street.SHOWDOWN
    table = table_of(hand, seat) if seat is not None else None
    facts: dict[str, tuple[str, ...]] = {} if showdown_street or seat is None or hand.round is None else legal_facts(hand)
    refused = Refused(
        reason=reason, kind=action.action, amount=action.amount, seat=seat, round=hand.round, seats=hand._seat_list,
        table=table, showdown=showdown_street,
        must_show=showdown_street and hand.to_act is not None and hand._must_show(hand.to_act),
    )
    return refusal_rules(refused, facts)


def table_of(hand: HandView, seat: SeatState) -> Table:
    """The game facts the legal-action rules of `seat` depend on."""
    layout = hand.layout
    decided = layout.open_pair_street or (layout.streets[1] if len(layout.streets) > 1 else None)
    actions = hand._notes.actions if hand._notes is not None else []
    last = max((i for i, (number, _) in enumerate(actions) if number == seat.seat), default=-1)
    wagers = [how for _, how in actions if how is not None]
    return Table(
        variant=hand.variant, options=hand.options, bring_in=hand.stakes.bring_in, ante=hand.stakes.ante,
        is_bring_in_seat=seat.seat == hand.bring_in_seat,
        open_pair_street=hand.street is decided,
        open_pair=any(len(s.up) > 1 and s.up[0].rank == s.up[1].rank for s in hand._live()),
        since=tuple(how for _, how in actions[last + 1:] if how is not None),
        last_full=next((how for how in reversed(wagers) if how not in _SHORT), ""),
    )


def legal_facts(hand: HandView) -> dict[str, tuple[str, ...]]:
    """`legal` and `legal.<kind>` for the seat to act (empty between rounds and at the end)."""
    if hand.to_act is None or hand.round is None:
        return {}
    seat = hand.seats[hand.to_act]
    pairs = [(la.action, la.amount, la.top) for la in hand.legal_actions()]
    return legal_rules(seat, hand.round, hand._seat_list, pairs, table_of(hand, seat))


def note_antes(hand: HandView) -> None:
    """Stacks and the pot after the antes (dead money; all-in on the ante)."""
    assert hand._notes is not None
    notes = hand._notes
    ante_all_in = any(seat.stack == 0 for seat in hand._seat_list)
    for seat in hand._seat_list:
        if seat.stack == 0:
            notes.add(f"stacks.{seat.seat}", "ANTE.ALL-IN", "ANTE.DEAD")
        elif ante_all_in:  # the part of its ante the short seat did not match stays in until the end
            notes.add(f"stacks.{seat.seat}", "ANTE.ALL-IN", "ANTE.DEAD")
            notes.narrow(f"stacks.{seat.seat}", "ANTE.ALL-IN", [f"{seat.stack + 1}..{seat.stack + seat.total}"])
        else:
            notes.add(f"stacks.{seat.seat}", "ANTE.DEAD")
    notes.add("pot_total", "ANTE.DEAD")
    notes.add("committed", "ANTE.DEAD")
    notes.add("pots", *(("ANTE.ALL-IN", "POT.SIDE") if ante_all_in else ("ANTE.DEAD",)))
    notes.add("all_in", *(("ANTE.ALL-IN",) if ante_all_in else ("ALLIN.CALL-SHORT",)))


def note_opening(hand: HandView, doors: dict[int, Card]) -> None:
    """The opening deal (third street; five-card second street)."""
    assert hand._notes is not None
    rule = "FIVE.DEAL" if hand.variant is Variant.FIVE_CARD_STUD else "DEAL.THIRD"
    for seat in hand._seat_list:
        hand._notes.add(f"up.{seat.seat}", rule)
        hand._notes.add(f"down.{seat.seat}", rule)
    hand._notes.add("street", rule)
    hand._notes.add("community", "DEAL.STREETS" if rule == "DEAL.THIRD" else "FIVE.STREETS")


def street_rules(hand: HandView, *, remade: bool = False, burned: bool = False) -> list[str]:
    """The rules that put a card where it is on a later street, most specific first: the burn
    before it, or the option value that took the burn away (`burn_cards: false`, DEAL.BURN)."""
    if hand.variant is Variant.FIVE_CARD_STUD:
        return (["FIVE.SHORT-STUB"] if remade else []) + ["FIVE.STREETS"]
    burn = ["DEAL.BURN"] if burned or not hand.options.burn_cards else []
    return (["DEAL.SHORT-STUB.REMAKE"] if remade else []) + burn + ["DEAL.STREETS"]


def note_street(hand: HandView, dealt: list[int]) -> None:
    """One up card each on fourth to sixth street (five-card third and fourth)."""
    assert hand._notes is not None
    rules = street_rules(hand, burned=hand.options.burn_cards)
    for seat in dealt:
        hand._notes.add(f"up.{seat}", *rules)


def note_last_street(hand: HandView, cards: dict[int, Card], *, remade: bool, burned: bool, community: bool) -> None:
    """The last card: dealt to each, after a remade stub, or one community card (short stub)."""
    assert hand._notes is not None
    rules = street_rules(hand, remade=remade, burned=burned)
    face = "up" if hand.layout.last_face_up else "down"
    for seat in cards:
        hand._notes.add(f"{face}.{seat}", *rules)
    if community:
        five = hand.variant is Variant.FIVE_CARD_STUD
        first = ["FIVE.SHORT-STUB"] if five else ["DEAL.SHORT-STUB.COMMUNITY"] + (["DEAL.SHORT-STUB.REMAKE"] if remade else [])
        shared = (*first, *(["DEAL.BURN"] if "DEAL.BURN" in rules else []), *rules[-1:])
        hand._notes.add("community", *shared)
        for live in hand._live():  # no last card of its own: the community card is everyone's
            if live.seat not in cards:
                hand._notes.add(f"{face}.{live.seat}", *shared)
    else:
        hand._notes.add("community", *rules)


def note_first_actor(hand: HandView, first: int) -> None:
    """Who opens a round: the bring-in card, or the best board. Only this street's first-actor rules:
    why the round before ended is the `street` fact's (BRING-IN.CALLED-ROUND-ENDS, BET.ROUND-END).
    Each narrowing rule also gets its candidate set (`to_act|<rule>`, `first_actor_candidates`)."""
    assert hand._notes is not None and hand.round is not None
    notes = hand._notes
    if hand.round.opening:
        doors = {seat.seat: seat.up[0] for seat in hand._seat_list}
        rules = bring_in_rules(hand.variant, hand.options.bring_in_tie, doors)
        if hand.to_act != first:
            rules = ("BRING-IN.ALL-IN-ANTE",) + rules
    else:
        live = hand._live()
        rules = first_actor_rules(
            hand.variant, hand.options.first_actor_tie,
            {s.seat: s.up[:4] for s in live},
            {s.seat: s.up[:4] for s in hand._seat_list if s.folded and s.up},
            first,
            all_in_skipped=hand.to_act != first,
            last_street=hand.street is hand._last,
            community=hand.community is not None,
        )
    notes.actions.clear()  # a new round
    notes.add("to_act", *rules)
    for rule, seats in first_actor_candidates(hand, first, rules).items():
        notes.narrow("to_act", rule, seats)
    notes.clear_prefix("committed")
    if not hand.round.opening:
        notes.add("committed", "BET.ROUND-END")


def first_actor_candidates(hand: HandView, first: int, rules: Sequence[str]) -> dict[str, list[int]]:
    """For each narrowing rule among `rules`, the seats `to_act` could be if that rule were the one
    broken and the general rule kept: the blame of a `to_act` outside them passes to the next rule.

    - BRING-IN.TIE.* / BET.FIRST-ACTOR.TIE.*: whichever of the tied seats (the card or board rule
      leaves them all) opens;
    - BRING-IN.ALL-IN-ANTE / BET.FIRST-ACTOR.ALL-IN: the all-in seat itself, or the seat the forced
      bet or the lead would pass to by card or board (the rule says: to the next seat clockwise);
    - BET.FIRST-ACTOR.FOLDED: a folded seat whose board is better, or the seat after it;
    - BET.FIRST-ACTOR.EXPOSED-RANKING: the best board compared card by card with pairs ignored.
    """
    assert hand.round is not None
    round_, seat_list, order = hand.round, hand._seat_list, hand.order

    def opens(seat: int) -> int:  # who acts if `seat` holds the lead (an all-in seat passes it on)
        return betting.next_to_act(seat_list, order.index(seat), round_) or seat

    razz = hand.variant is Variant.RAZZ
    out: dict[str, list[int]] = {}
    if round_.opening:
        doors = {state.seat: state.up[0] for state in seat_list}
        ranks = {seat: _card_rank(card, razz) for seat, card in doors.items()}
        worst = max(ranks.values()) if razz else min(ranks.values())
        for rule in rules:
            if rule.startswith("BRING-IN.TIE."):
                out[rule] = [opens(seat) for seat, rank in ranks.items() if rank == worst]
            elif rule == "BRING-IN.ALL-IN-ANTE":
                active = {state.seat: state.up[0] for state in seat_list if state.stack > 0}
                out[rule] = [first] + ([betting.bring_in_seat(hand.variant, hand.options, active)] if active else [])
        return out
    key_of = exposed_low_key if razz else exposed_high_key
    boards = {s.seat: s.up[:4] for s in hand._live()}
    keys = {seat: key_of(board) for seat, board in boards.items()}
    best = keys[first]
    for rule in rules:
        if rule.startswith("BET.FIRST-ACTOR.TIE."):
            out[rule] = [opens(seat) for seat, key in keys.items() if key == best]
        elif rule == "BET.FIRST-ACTOR.ALL-IN":
            bettors = {seat: board for seat, board in boards.items() if hand.seats[seat].stack > 0}
            out[rule] = [first] + ([opens(betting.first_actor_seat(hand.variant, hand.options, bettors))] if bettors else [])
        elif rule == "BET.FIRST-ACTOR.FOLDED":
            better = [s.seat for s in seat_list if s.folded and s.up and key_of(s.up[:4]) > best]
            out[rule] = better + [opens(seat) for seat in better]
        elif rule == "BET.FIRST-ACTOR.EXPOSED-RANKING" and rule != rules[-1]:
            naive = {seat: _naive_key(board, razz) for seat, board in boards.items()}
            top = max(naive.values())
            out[rule] = [opens(seat) for seat, key in naive.items() if key == top]
    return out


def note_action(hand: HandView, action: Action, legal: LegalAction) -> None:
    """An accepted action: the rules of the legal entry it matched explain what it changed."""
    assert hand._notes is not None
    notes = hand._notes
    if hand.street is Street.SHOWDOWN:
        notes.add("ok", *notes.get("legal.muck" if legal.action is ActionType.MUCK else "legal.show") or ("SHOWDOWN.MUCK",))
        notes.add("shown" if legal.action is ActionType.SHOW else "mucked", "SHOWDOWN.MUCK")
        return
    kind_rules = legal_facts(hand).get("legal." + legal.action.value) or ("BET.ORDER",)
    round_, seat_state = hand.round, hand.seats[action.seat]
    how: str | None = None
    if round_ is not None and legal.action in _WAGERS and legal.amount is not None:
        how = counted(seat_state, round_, legal.amount)
        all_in = legal.amount == seat_state.committed + seat_state.stack
        if all_in and not round_.big_bet and legal.amount - round_.full_level < round_.unit:
            half = "ALLIN.HALF-BET.SHORT" if how == "ALLIN.HALF-BET.SHORT" else "ALLIN.HALF-BET.FULL"
            kind_rules = (half,) + kind_rules
    notes.actions.append((action.seat, how))
    notes.add("ok", *kind_rules)
    seat = action.seat
    notes.add(f"stacks.{seat}", *kind_rules)
    notes.add(f"committed.{seat}", *kind_rules)
    notes.add("pot_total", *kind_rules)
    if legal.action is ActionType.FOLD:
        notes.add("folded", "BET.FOLD")


def note_turn(hand: HandView, seat_number: int) -> None:
    """After a betting action: who acts next, or why the round is over."""
    assert hand._notes is not None and hand.round is not None
    notes = hand._notes
    if hand.seats[seat_number].all_in:
        notes.add("all_in", *notes.get("ok"))
    if hand.to_act is not None:
        notes.add("to_act", "BET.ORDER")
        return
    round_ = hand.round
    rules = ["BET.ROUND-END"]
    bring_in = hand.seats.get(hand.bring_in_seat) if hand.bring_in_seat is not None else None
    no_wager = round_.level <= hand.stakes.bring_in if round_.big_bet else round_.wagers == 0
    if round_.opening and no_wager and bring_in is not None and bring_in.can_bet and round_.level > 0:
        rules.insert(0, "BRING-IN.CALLED-ROUND-ENDS")
    notes.add("street", *rules)
    notes.add("to_act", *rules)


def runout_rules(hand: HandView) -> tuple[str, ...]:
    """A street dealt without betting: fewer than two players can bet (after the round that ended)."""
    assert hand._notes is not None
    before = hand._notes.get("street")
    if before and before[0] == "ALLIN.RUNOUT":
        return before
    return ("ALLIN.RUNOUT",) + tuple(rule for rule in before if rule.startswith(("BET.", "BRING-IN.")))


def note_last_live(hand: HandView) -> None:
    """Everyone else folded: the hand ends without a showdown."""
    assert hand._notes is not None and hand.round is not None
    winner = hand._live()[0].seat
    all_fold = hand.round.opening and winner == hand.bring_in_seat
    rules = ("BRING-IN.ALL-FOLD", "SHOWDOWN.UNCONTESTED") if all_fold else ("SHOWDOWN.UNCONTESTED",)
    hand._notes.add("street", *rules)
    hand._notes.add("to_act", *rules)


def note_returned(hand: HandView, seat: int) -> None:
    """Uncalled chips given back at the end of a round."""
    assert hand._notes is not None and hand.round is not None
    bring_in = hand.seats.get(hand.bring_in_seat) if hand.bring_in_seat is not None else None
    partial = hand.round.opening and bring_in is not None and bring_in.all_in and bring_in.committed < hand.stakes.bring_in
    rules = ("BRING-IN.ALL-IN-PARTIAL", "POT.UNCALLED") if partial else ("POT.UNCALLED",)
    hand._notes.add(f"result.returned.{seat}", *rules)
    hand._notes.add(f"stacks.{seat}", *rules)
    hand._notes.add("pot_total", *rules)
