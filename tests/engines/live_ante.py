"""One rule broken: the ante counts toward the third-street bet, like a live blind (ANTE.DEAD)."""
from _onerule import Hand, Server, run

RULES = ("ANTE.DEAD",)


class LiveAnte(Hand):
    def _open_round(self, bettors):
        super()._open_round(bettors)
        if self.round is not None and self.round.opening:
            for seat in self._seat_list:
                seat.committed = min(self.stakes.ante, seat.total)
            self._legal = None


def make_server() -> Server:
    return Server(LiveAnte)


if __name__ == "__main__":
    run(make_server)
