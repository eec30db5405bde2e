"""One rule broken: an open pair never allows the big bet, whatever open_pair_double says
(BET.DOUBLE.OPEN-PAIR; so no raise after it may be big either, BET.DOUBLE.RAISES: the two sentences
of one option)."""
from _onerule import Hand, Server, run

RULES = ("BET.DOUBLE.OPEN-PAIR", "BET.DOUBLE.RAISES", "FIVE.OPEN-PAIR")


class NoDouble(Hand):
    def _open_round(self, bettors):
        super()._open_round(bettors)
        if self.round is not None:
            self.round.double = False


def make_server() -> Server:
    return Server(NoDouble)


if __name__ == "__main__":
    run(make_server)
