"""One rule broken: one raise more than max_raises is allowed (BET.CAP)."""
from _onerule import Hand, Server, run

RULES = ("BET.CAP",)


class LooseCap(Hand):
    def _open_round(self, bettors):
        super()._open_round(bettors)
        if self.round is not None and not self.round.big_bet:
            self.round.cap += 1


def make_server() -> Server:
    return Server(LooseCap)


if __name__ == "__main__":
    run(make_server)
