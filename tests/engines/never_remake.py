"""One rule broken: a short stub is never remade, a community card is used at once (DEAL.SHORT-STUB.REMAKE)."""
from _onerule import Server, forced, rules, run

RULES = ("DEAL.SHORT-STUB.REMAKE", "FIVE.SHORT-STUB")


def make_server() -> Server:
    return Server(forced(short_stub=rules.ShortStub.COMMUNITY))


if __name__ == "__main__":
    run(make_server)
