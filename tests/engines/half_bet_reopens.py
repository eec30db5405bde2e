"""One rule broken: any all-in raise, even of less than half a unit, reopens the betting (ALLIN.HALF-BET.SHORT)."""
from _onerule import Hand, Server, betting, run, swapped

RULES = ("ALLIN.HALF-BET.SHORT",)


def _reopened(seat, round_):
    return seat.acted_at is None or round_.reopening > seat.acted_after or round_.level > seat.acted_at


class Reopening(Hand):
    def _compute_legal(self):
        if self.round is not None and self.round.big_bet:
            return super()._compute_legal()
        with swapped(betting, "_reopened", _reopened):
            return super()._compute_legal()

    def _check_fully(self, action):
        if self.round is not None and self.round.big_bet:
            return super()._check_fully(action)
        with swapped(betting, "_reopened", _reopened):
            return super()._check_fully(action)


def make_server() -> Server:
    return Server(Reopening)


if __name__ == "__main__":
    run(make_server)
