"""One rule broken: a player all-in on the ante is eligible for every pot, not only for what he matched (ANTE.ALL-IN)."""
from _onerule import Hand, Server, run, showdown

RULES = ("ANTE.ALL-IN",)


class AnteAllInPlaysForAll(Hand):
    awarding = False  # only the awards: who may muck is another rule's (SHOWDOWN.LAST-CONTENDER)

    def _finish(self):
        self.awarding = True
        super()._finish()

    def _final_pots(self):
        if not self.awarding:
            return super()._final_pots()
        totals = {seat: s.total for seat, s in self.seats.items()}
        live = {seat for seat, s in self.seats.items() if not s.folded}
        all_in = {seat for seat, s in self.seats.items() if s.all_in and s.total > self.stakes.ante}
        return showdown.build_pots(totals, live, all_in)


def make_server() -> Server:
    return Server(AnteAllInPlaysForAll)


if __name__ == "__main__":
    run(make_server)
