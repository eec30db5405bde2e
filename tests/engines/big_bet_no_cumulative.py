"""One rule broken: in pot and no limit short all-ins never add up (BIGBET.CUMULATIVE): a player who
acted is reopened only by one raise that is full on its own, never by all-ins that together make one."""
from _onerule import Hand, Server, betting, run, swapped

RULES = ("BIGBET.CUMULATIVE",)


class NoCumulative(Hand):
    """Counts the full raises of the round and, per seat, how many it had seen when it last acted."""

    def _start_round(self):
        self.full_raises, self.seen = 0, {}
        super()._start_round()

    def _compute_legal(self):
        reopened = betting._reopened

        def full_only(seat, round_):
            if not round_.big_bet or seat.acted_at is None or seat.seat not in self.seen:
                return reopened(seat, round_)
            return self.full_raises > self.seen[seat.seat] and reopened(seat, round_)

        with swapped(betting, "_reopened", full_only):
            return super()._compute_legal()

    def apply(self, action):
        round_ = self.round
        if round_ is not None and round_.big_bet and action.seat == self.to_act:
            self._legal = None
            legal = self._check(action)  # raises for a refused action, like the reference
            if legal.action in (betting._BET, betting._RAISE) and legal.amount - round_.level >= round_.raise_size:
                self.full_raises += 1
            if legal.action is not betting._BRING_IN or round_.bring_in_open:  # a forced post is no action
                self.seen[action.seat] = self.full_raises
        super().apply(action)


def make_server() -> Server:
    return Server(NoCumulative)


if __name__ == "__main__":
    run(make_server)
