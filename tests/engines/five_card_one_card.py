"""One rule broken: in five-card stud the first actor is decided by the last up card alone (FIVE.FIRST-ACTOR)."""
from _onerule import Hand, Server, betting, rules, run

# One card alone also ignores pairs showing, which the exposed ranking counts (EXPOSED-RANKING).
RULES = ("FIVE.FIRST-ACTOR", "BET.FIRST-ACTOR.EXPOSED-RANKING")


class LastCardOnly(Hand):
    showing = False  # the showdown order is another rule's (SHOWDOWN.ORDER.UNBET): kept right

    def _begin_showdown(self):
        self.showing = True
        super()._begin_showdown()

    def _first_actor(self):
        if self.variant is not rules.Variant.FIVE_CARD_STUD or self.showing:
            return super()._first_actor()
        boards = {seat.seat: seat.up[-1:] for seat in self._live()}
        return betting.first_actor_seat(self.variant, self.options, boards)


def make_server() -> Server:
    return Server(LastCardOnly)


if __name__ == "__main__":
    run(make_server)
