"""One rule broken: an all-in raise of at least half a unit but less than a whole one is treated as
short (ALLIN.HALF-BET.FULL): it does not count toward the cap, the full level stays where it was, and
it reopens the betting for no one who has acted. All-ins that only add up to half a unit together are
judged as the reference judges them (ALLIN.REOPEN.PER-PLAYER is kept). Where the all-in was the
raise that reached the cap, not counting it offers one raise more than the cap, which one answer
cannot tell from a cap of one more (BET.CAP)."""
from _onerule import Hand, Server, betting, run, swapped

RULES = ("ALLIN.HALF-BET.FULL", "BET.CAP")


class HalfBetIsShort(Hand):
    def _half_is_short(self, call):
        apply_wager, reopened = betting.apply_wager, betting._reopened
        seats = self._seat_list

        def short_apply(seat, round_, amount):
            increment = amount - round_.full_level
            all_in = amount == seat.committed + seat.stack
            on_its_own = 2 * (amount - round_.wager_level) >= round_.unit
            if round_.big_bet or not all_in or not on_its_own or not round_.unit > increment >= round_.unit / 2:
                return apply_wager(seat, round_, amount)
            faced = round_.wager_level  # a short all-in: the level rises, nothing is counted
            betting._pay_to(seat, amount)
            round_.level = max(round_.level, amount)
            round_.wager_level = max(faced, amount)
            betting._acted(seat, round_)

        def short_reopened(seat, round_):
            if round_.big_bet or seat.acted_at is None or round_.reopening > seat.acted_after:
                return reopened(seat, round_)
            above = [s for s in seats if s.all_in and s.committed > seat.acted_at]  # one all-in alone never reopens
            return len(above) >= 2 and 2 * (round_.level - seat.acted_at) >= round_.unit

        with swapped(betting, "apply_wager", short_apply), swapped(betting, "_reopened", short_reopened):
            return call()

    def _compute_legal(self):
        return self._half_is_short(super()._compute_legal)

    def apply(self, action):
        return self._half_is_short(lambda: super(HalfBetIsShort, self).apply(action))


def make_server() -> Server:
    return Server(HalfBetIsShort)


if __name__ == "__main__":
    run(make_server)
