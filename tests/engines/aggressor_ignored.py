"""One rule broken: the last aggressor does not show first; the unbet order is used (SHOWDOWN.ORDER.AGGRESSOR)."""
from _onerule import Hand, Server, run

RULES = ("SHOWDOWN.ORDER.AGGRESSOR",)


class NoAggressor(Hand):
    def _begin_showdown(self):
        self.seventh_aggressor = None
        super()._begin_showdown()


def make_server() -> Server:
    return Server(NoAggressor)


if __name__ == "__main__":
    run(make_server)
