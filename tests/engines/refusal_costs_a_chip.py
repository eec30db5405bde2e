"""One rule broken: a refused action costs the seat to act a chip (ACTION.REFUSAL: a refusal changes nothing)."""
from _onerule import Hand, Server, run
from studcheck.engine import IllegalAction

RULES = ("ACTION.REFUSAL",)


class CostlyRefusal(Hand):
    def apply(self, action):
        try:
            super().apply(action)
        except IllegalAction:
            seat = self.seats.get(self.to_act) if self.to_act is not None else None
            if seat is not None and seat.stack > 1:
                seat.stack -= 1
                seat.total += 1
            raise


def make_server() -> Server:
    return Server(CostlyRefusal)


if __name__ == "__main__":
    run(make_server)
