"""One rule broken: when all but one live player are all in, the engine still opens a betting round for
the one who can bet, on every street, instead of dealing the rest without betting (ALLIN.RUNOUT). The
same wrong answer shows on whichever street the all-in came: one fix, one cause with a way per street
(harness/groups.py)."""
from _onerule import Hand, Server, betting, run


class AsksToAct(Hand):
    def _start_round(self):
        if betting.count_bettors(self._seat_list) == 1 and any(seat.all_in for seat in self._seat_list):
            self._open_round(1)
            return
        super()._start_round()


RULES = ("ALLIN.RUNOUT",)


def make_server() -> Server:
    return Server(AsksToAct)


if __name__ == "__main__":
    run(make_server)
