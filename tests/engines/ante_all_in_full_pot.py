"""One rule broken: a player all-in on the ante is eligible for every pot, not only for what he matched (ANTE.ALL-IN)."""
from _onerule import Hand, Server, run

RULES = ("ANTE.ALL-IN",)


class AnteAllInPlaysForAll(Hand):
    awarding = False  # only the awards: who may muck is another rule's (SHOWDOWN.LAST-CONTENDER)

    def _finish(self):
        self.awarding = True
        super()._finish()

    def _final_pots(self):
        pots, returned = super()._final_pots()
        if self.awarding:
            on_ante = [seat for seat, s in self.seats.items() if s.all_in and s.total <= self.stakes.ante]
            for pot in pots:
                pot.eligible = sorted({*pot.eligible, *on_ante})
        return pots, returned


def make_server() -> Server:
    return Server(AnteAllInPlaysForAll)


if __name__ == "__main__":
    run(make_server)
