"""One rule broken: in pot and no limit an all-in of at least half the last full raise reopens the
betting, the fixed-limit half-bet rule (BIGBET.FULL-RAISE: only a full raise reopens). For a bring-in
seat whose post was its action (`big_bet_bring_in: open`) that is also taking the post for no action,
which one answer cannot tell apart (BIGBET.BRING-IN.OPEN-ANY: a short all-in does not reopen for it)."""
from _onerule import Hand, Server, betting, run, swapped

RULES = ("BIGBET.FULL-RAISE", "BIGBET.BRING-IN.OPEN-ANY")


def _reopened(seat, round_):
    if not round_.big_bet or seat.acted_at is None:
        return betting_reopened(seat, round_)
    return 2 * (round_.level - seat.acted_at) >= round_.raise_size


betting_reopened = betting._reopened


class HalfReopens(Hand):
    def _compute_legal(self):
        with swapped(betting, "_reopened", _reopened):
            return super()._compute_legal()

    def apply(self, action):
        with swapped(betting, "_reopened", _reopened):
            return super().apply(action)


def make_server() -> Server:
    return Server(HalfReopens)


if __name__ == "__main__":
    run(make_server)
