"""One rule broken: the odd chip between the high and the low half goes low (HILO.SPLIT)."""
from _onerule import Hand, Server, run

RULES = ("HILO.SPLIT",)


class OddChipLow(Hand):
    def _finish(self):
        super()._finish()
        assert self.result is not None
        for pot in self.result["pots"]:
            high, low = pot.get("high") or {}, pot.get("low") or {}
            if not high or not low or sum(high.values()) <= sum(low.values()):
                continue
            rich = max(high, key=lambda seat: (high[seat], -int(seat)))
            poor = min(low, key=int)
            high[rich] -= 1
            low[poor] += 1
            self.seats[int(rich)].stack -= 1
            self.seats[int(poor)].stack += 1
            self.result["stacks"][rich] -= 1
            self.result["stacks"][poor] += 1


def make_server() -> Server:
    return Server(OddChipLow)


if __name__ == "__main__":
    run(make_server)
