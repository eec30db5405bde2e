"""One rule broken: the pot-limit maximum is one chip short of the pot (BIGBET.POT-MAX)."""
from _onerule import Hand, Server, betting, run, swapped

RULES = ("BIGBET.POT-MAX",)


class ShortPot(Hand):
    def _with_short_max(self, call):
        original = betting.wager_range

        def wager_range(seat, round_, seats):
            low, high = original(seat, round_, seats)
            if round_.pot_limit and high < seat.committed + seat.stack and high - 1 >= low:
                high -= 1
            return low, high

        with swapped(betting, "wager_range", wager_range):
            return call()

    def _compute_legal(self):
        return self._with_short_max(super()._compute_legal)

    def _check_fully(self, action):
        return self._with_short_max(lambda: super(ShortPot, self)._check_fully(action))


def make_server() -> Server:
    return Server(ShortPot)


if __name__ == "__main__":
    run(make_server)
