"""The words of the trade, written by hand: what a rules reader types, and the rules or words of the spec it means.

The spec names things its own way ("the bring-in seat", "the exposed hand", "a remade stub"); a
tournament director asks for "low card", "door card", "high hand showing", "kill", "quartering",
"misdeal". Each entry below maps such phrases to the index entries they mean (rule IDs; for what the
spec leaves out, the topic of a "not covered" entry: a bold item of spec/README.md's "Scope and what
is not covered" or a row of options.md's "Not covered" table) and to words of the spec that say it.

The search (templates/search.js) stems and matches the phrases the same typo-tolerant way as the
query, ranks the targets of a phrase it finds above rules that only share its words, and searches the
words as if typed. tests/rulebook/test_rulebook_search.py checks that every target exists.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Synonym:
    #: what a reader types (any of them), lower case
    phrases: tuple[str, ...]
    #: the index entries it means: rule IDs, or the topic of a "not covered" entry
    targets: tuple[str, ...] = ()
    #: words of the spec it means, searched as if they had been typed too
    words: tuple[str, ...] = ()


S = Synonym
#: what is not covered, by topic (spec/README.md's bold items, options.md's "Not covered" rows)
EXPOSED = "Exposed down cards on the initial deal"
DEALER_ERROR = "Exposed or premature seventh-street and street cards, burn errors"
TABLE_PROCEDURE = "Right to see a mucked hand, dead hands with wrong card counts, string bets, verbal declarations"

SYNONYMS: tuple[Synonym, ...] = (
    # the bring-in
    S(phrases=("low card", "lowest card", "low door card", "lowest up card", "low card brings in"),
      targets=("BRING-IN.CARD.LOW", "BRING-IN.TIE.SUIT"), words=("bring-in", "lowest")),
    S(phrases=("high card brings in", "highest card", "razz bring-in", "king brings in"),
      targets=("BRING-IN.CARD.HIGH", "BRING-IN.TIE.SUIT"), words=("highest", "king")),
    S(phrases=("razz",), targets=("BRING-IN.CARD.HIGH", "HAND.LOW.A5", "BET.FIRST-ACTOR.LOW")),
    S(phrases=("door card", "door cards", "door", "first up card", "third street up card"),
      targets=("DEAL.THIRD", "BRING-IN.CARD.LOW", "FIVE.BRING-IN"), words=("up card",)),
    S(phrases=("bringin", "forced bet", "bring it in", "brought in"), words=("bring-in",)),
    S(phrases=("who brings in", "which card brings in", "who is the bring-in"),
      targets=("BRING-IN.CARD.LOW", "BRING-IN.CARD.HIGH", "FIVE.BRING-IN")),
    S(phrases=("complete", "completion", "completing", "complete the bet", "complete the bring-in"),
      targets=("BRING-IN.CHOICE", "BRING-IN.FACING", "BRING-IN.COMPLETION-NOT-RAISE"), words=("complete",)),
    S(phrases=("suit order", "by suit", "suits", "spades highest", "clubs lowest"),
      targets=("BRING-IN.TIE.SUIT", "CARDS.NOTATION"), words=("suit",)),
    # first to act
    S(phrases=("high hand showing", "highest hand showing", "best hand showing", "high board", "best board",
               "highest board", "high hand acts first", "who acts first", "first to act", "first actor", "acts first",
               "opens the betting"),
      targets=("BET.FIRST-ACTOR.HIGH", "BET.FIRST-ACTOR.LOW", "BET.FIRST-ACTOR.EXPOSED-RANKING"), words=("exposed", "first")),
    S(phrases=("low hand showing", "lowest hand showing", "low board", "lowest board"),
      targets=("BET.FIRST-ACTOR.LOW",), words=("exposed", "lowest")),
    S(phrases=("showing", "shows", "on board", "board"), words=("exposed", "up")),
    # the deal
    S(phrases=("remake", "remade", "remaking", "reshuffle", "reshuffle the burns", "out of cards", "running out of cards",
               "not enough cards", "short deck", "short stub", "stub", "deck runs out"),
      targets=("DEAL.SHORT-STUB.REMAKE", "DEAL.SHORT-STUB.COMMUNITY", "FIVE.SHORT-STUB"), words=("stub", "remake")),
    S(phrases=("community card", "common card", "shared card", "one card for everyone"),
      targets=("DEAL.SHORT-STUB.COMMUNITY", "DEAL.COMMUNITY.FIRST-ACTOR"), words=("community",)),
    S(phrases=("burn", "burn card", "burns", "burned"), targets=("DEAL.BURN",), words=("burn",)),
    S(phrases=("river", "last card", "seventh street card", "down card on seventh"), targets=("DEAL.STREETS",),
      words=("seventh",)),
    S(phrases=("3rd",), words=("third",)), S(phrases=("4th",), words=("fourth",)), S(phrases=("5th",), words=("fifth",)),
    S(phrases=("6th",), words=("sixth",)), S(phrases=("7th",), words=("seventh",)), S(phrases=("2nd",), words=("second",)),
    S(phrases=("5 card", "5-card", "five card stud", "five-card stud", "5 card stud", "five stud"), words=("five",)),
    S(phrases=("7 card", "7-card", "seven card stud", "seven-card stud"), words=("seven",)),
    S(phrases=("stud 8", "stud/8", "stud eight", "hi lo", "hi-lo", "high low", "high-low", "split game", "o8"), words=("hilo",)),
    # what the spec leaves out
    S(phrases=("misdeal", "misdealt", "dealer error", "dealer mistake", "exposed card", "exposed cards", "card exposed",
               "flashed card", "boxed card", "wrong card count"),
      targets=(EXPOSED, DEALER_ERROR, "Scope and what is not covered"), words=("not covered",)),
    S(phrases=("kill", "kill pot", "kill pots", "killed pot", "kill game", "kill blind", "killed"),
      targets=("Kill pots",), words=("kill",)),
    S(phrases=("dead hand", "killed hand", "kill a hand", "foul hand", "fouled hand"),
      targets=(TABLE_PROCEDURE, "SHOWDOWN.MUCK"), words=("dead", "muck")),
    S(phrases=("string bet", "string raise", "verbal", "verbal declaration", "declaration", "angle shot"),
      targets=(TABLE_PROCEDURE,), words=("not covered",)),
    S(phrases=("clock", "time bank", "shot clock", "calling the clock", "call the clock", "tank", "tanking"),
      targets=("The action clock and time banks",)),
    S(phrases=("out of turn", "action out of turn", "acting out of turn", "oot"),
      targets=("Out-of-turn action", "BET.ORDER"), words=("out_of_turn",)),
    S(phrases=("absent player", "away from the table", "missed ante", "not anteing", "sitting out"),
      targets=("Absent players, players not anteing",)),
    S(phrases=("wrong bring-in", "wrong player brought in", "wrong seat brought in"), targets=("Wrong bring-in",)),
    # pots and hands
    S(phrases=("quarter", "quartered", "quartering", "quarters", "quartered pot", "three way split"),
      targets=("HILO.QUARTER.EVEN",), words=("quarter",)),
    S(phrases=("scoop", "scoops", "scooped", "scooping", "both ways", "win both halves"), targets=("HILO.SCOOP",)),
    S(phrases=("odd chip", "odd chips", "extra chip", "leftover chip", "remainder chip"),
      targets=("POT.ODD-CHIP.WINNING-FIVE", "POT.ODD-CHIP.ALL-CARDS", "HILO.SPLIT"), words=("odd",)),
    S(phrases=("chop", "chopped", "split pot", "split the pot", "tie for the pot", "tied hands"), targets=("POT.SPLIT",),
      words=("split",)),
    S(phrases=("side pot", "side pots", "main pot"), targets=("POT.SIDE",)),
    S(phrases=("uncalled", "uncalled bet", "returned bet", "bet returned", "overbet"), targets=("POT.UNCALLED",)),
    S(phrases=("wheel", "bicycle", "bike", "a-5", "ace to five", "ace-to-five"), targets=("HAND.HIGH.WHEEL", "HAND.LOW.A5")),
    S(phrases=("eight or better", "8 or better", "8-or-better", "qualifier", "qualify", "qualifying low", "no low",
               "no qualifying low"), targets=("HAND.LOW.EIGHT", "HILO.NO-LOW")),
    S(phrases=("kicker", "kickers"), targets=("HAND.HIGH.KICKERS",)),
    S(phrases=("hand ranking", "hand rankings", "what beats what", "rank of hands"), targets=("HAND.HIGH.RANKING",)),
    S(phrases=("muck", "mucked", "mucking", "throw away", "concede"), targets=("SHOWDOWN.MUCK",)),
    S(phrases=("who shows first", "show first", "showdown order", "order of showing", "last aggressor"),
      targets=("SHOWDOWN.ORDER.AGGRESSOR", "SHOWDOWN.ORDER.UNBET")),
    S(phrases=("dead money",), targets=("ANTE.DEAD",)),
    # betting
    S(phrases=("cap", "capped", "raise cap", "number of raises", "how many raises", "max raises", "three raises",
               "four raises"), targets=("BET.CAP",), words=("max_raises",)),
    S(phrases=("heads up", "heads-up", "uncapped", "two players left"), targets=("BET.CAP.HEADS-UP",)),
    S(phrases=("open pair", "pair showing", "double bet", "big bet on fourth street", "open pair on fourth"),
      targets=("BET.DOUBLE.OPEN-PAIR", "BET.DOUBLE.RAISES", "BET.DOUBLE.ABSENT", "FIVE.OPEN-PAIR"),
      words=("open_pair_double",)),
    S(phrases=("all in", "all-in", "allin", "shove", "jam", "short stack"), words=("allin",)),
    S(phrases=("incomplete raise", "short all-in", "half bet", "half-bet", "half the bet", "less than a full raise",
               "reopen", "reopens", "reopening", "does not reopen"),
      targets=("ALLIN.HALF-BET.FULL", "ALLIN.HALF-BET.SHORT", "ALLIN.REOPEN.PER-PLAYER", "BIGBET.FULL-RAISE")),
    S(phrases=("run out", "runout", "run it out", "no more betting"), targets=("ALLIN.RUNOUT",)),
    S(phrases=("rake", "drop", "house take", "no flop no drop"), targets=("RAKE.PERCENT", "RAKE.NO-THIRD-STREET")),
    S(phrases=("pot limit", "pot-limit", "pot size bet", "pot sized bet"), targets=("BIGBET.POT-MAX",), words=("bigbet",)),
    S(phrases=("no limit", "no-limit", "nl"), targets=("BIGBET.NO-LIMIT-MAX",), words=("bigbet",)),
    S(phrases=("min raise", "minimum raise", "min-raise"), targets=("BIGBET.MIN-RAISE",)),
    S(phrases=("min bet", "minimum bet"), targets=("BIGBET.MIN-BET",)),
)


def table() -> list[list[list[str]]]:
    """The table as the search index carries it: [phrases, targets, words] per entry."""
    return [[list(entry.phrases), list(entry.targets), list(entry.words)] for entry in SYNONYMS]
