"""One rule broken: an open pair never allows the big bet (BET.DOUBLE.OPEN-PAIR), whatever open_pair_double says."""
from _onerule import Hand, Server, run

RULES = ("BET.DOUBLE.OPEN-PAIR", "FIVE.OPEN-PAIR")


class NoDouble(Hand):
    def _open_round(self, bettors):
        super()._open_round(bettors)
        if self.round is not None:
            self.round.double = False


def make_server() -> Server:
    return Server(NoDouble)


if __name__ == "__main__":
    run(make_server)
