"""One rule broken: one raise more than max_raises is allowed (BET.CAP). In a round of two players
under `heads_up: capped` that raise is also the cap not held heads-up (BET.CAP.HEADS-UP: "never
lifted"), which one answer cannot tell from a cap of one more: there the heads-up value leads."""
from _onerule import Hand, Server, run

RULES = ("BET.CAP", "BET.CAP.HEADS-UP")


class LooseCap(Hand):
    def _open_round(self, bettors):
        super()._open_round(bettors)
        if self.round is not None and not self.round.big_bet:
            self.round.cap += 1


def make_server() -> Server:
    return Server(LooseCap)


if __name__ == "__main__":
    run(make_server)
