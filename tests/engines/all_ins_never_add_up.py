"""One rule broken: short all-ins never add up (ALLIN.REOPEN.PER-PLAYER): each all-in is measured
against the level the one before it left, not against the last full level, so one that is full only
together with earlier short all-ins is short too, and a player who acted is reopened only by a wager
that is full on its own, never by the all-ins he faces since adding up to half a unit."""
from _onerule import Hand, Server, betting, run, swapped

RULES = ("ALLIN.REOPEN.PER-PLAYER",)


class OneAtATime(Hand):
    def _one_at_a_time(self, call):
        apply_wager = betting.apply_wager

        def alone_apply(seat, round_, amount):
            all_in = amount == seat.committed + seat.stack
            if round_.big_bet or not all_in or amount - round_.full_level >= round_.unit or 2 * (amount - round_.wager_level) >= round_.unit:
                return apply_wager(seat, round_, amount)
            faced = round_.wager_level  # short on its own: the level rises, nothing is counted
            betting._pay_to(seat, amount)
            round_.level = max(round_.level, amount)
            round_.wager_level = max(faced, amount)
            betting._acted(seat, round_)

        reopened = betting._reopened

        def alone_reopened(seat, round_):
            if round_.big_bet:
                return reopened(seat, round_)
            return seat.acted_at is None or round_.reopening > seat.acted_after

        with swapped(betting, "apply_wager", alone_apply), swapped(betting, "_reopened", alone_reopened):
            return call()

    def _compute_legal(self):
        return self._one_at_a_time(super()._compute_legal)

    def apply(self, action):
        return self._one_at_a_time(lambda: super(OneAtATime, self).apply(action))


def make_server() -> Server:
    return Server(OneAtATime)


if __name__ == "__main__":
    run(make_server)
