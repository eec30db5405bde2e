"""One rule broken: a hand won on third street is raked too (RAKE.NO-THIRD-STREET)."""
from _onerule import Hand, Server, run

RULES = ("RAKE.NO-THIRD-STREET",)


class RakeAlways(Hand):
    def _finish(self):
        self.fourth_dealt = True
        super()._finish()


def make_server() -> Server:
    return Server(RakeAlways)


if __name__ == "__main__":
    run(make_server)
