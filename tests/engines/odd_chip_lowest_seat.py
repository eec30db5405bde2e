"""One rule broken: the odd chip of a split pot goes to the tied winner in the lowest seat, not by the
highest card (POT.ODD-CHIP.WINNING-FIVE, POT.ODD-CHIP.ALL-CARDS)."""
from _onerule import Hand, Server, run

RULES = ("POT.ODD-CHIP.WINNING-FIVE", "POT.ODD-CHIP.ALL-CARDS", "HILO.QUARTER.EVEN")


class LowestSeatChip(Hand):
    def _finish(self):
        super()._finish()
        assert self.result is not None
        for pot in self.result["pots"]:
            for half in ("winners", "high", "low"):
                shares = pot.get(half) or {}
                if len(shares) < 2 or len(set(shares.values())) == 1:
                    continue
                lowest = min(shares, key=int)
                top = max(shares.values())
                if shares[lowest] == top:
                    continue
                rich = next(seat for seat in sorted(shares, key=int) if shares[seat] == top)
                self._move(shares, rich, lowest)

    def _move(self, shares, rich, lowest):
        assert self.result is not None
        shares[rich] -= 1
        shares[lowest] += 1
        self.seats[int(rich)].stack -= 1
        self.seats[int(lowest)].stack += 1
        self.result["stacks"][rich] -= 1
        self.result["stacks"][lowest] += 1


def make_server() -> Server:
    return Server(LowestSeatChip)


if __name__ == "__main__":
    run(make_server)
