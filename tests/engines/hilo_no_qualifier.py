"""One rule broken: the Hi-Lo low needs no 8 qualifier (any A-5 low wins the low half) (HAND.LOW.EIGHT)."""
from _onerule import Hand, Server, run, showdown, swapped

RULES = ("HAND.LOW.EIGHT", "HILO.NO-LOW")
ANY_LOW = showdown.Side(value_of=showdown.RAZZ.value_of, low=True)


class NoQualifier(Hand):
    def _finish(self):
        with swapped(showdown, "EIGHT", ANY_LOW):
            super()._finish()


def make_server() -> Server:
    return Server(NoQualifier)


if __name__ == "__main__":
    run(make_server)
