"""A protocol-perfect engine with one early rule bug: the bring-in gets an option when everyone calls.

Like a big blind in hold'em, the bring-in seat acts once more in the opening round (third street;
five-card stud: second) when nobody completed (it may check, complete or fold), so every such hand
is still on that street where the rules have dealt the next. One deviation, dozens of failing cases: the test bed for grouping
failures by their first divergence (harness/groups.py).
"""
import sys
from pathlib import Path

# Built by subclassing the reference engine's Hand and swapping betting.next_to_act, which a compiled
# (mypyc) install does not allow: this test engine always runs the pure-Python source beside the tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "validator"))

from studcheck.engine import Hand, betting  # noqa: E402
from studcheck.protocol.serve import Server, serve  # noqa: E402


class OptionHand(Hand):
    option_given = False

    def _apply_betting(self, seat_number, legal):
        original = betting.next_to_act

        def next_to_act(seats, first, round_):
            found = original(seats, first, round_)
            # nobody completed or raised: `wagers` counts fixed-limit wagers only; in pot and no limit
            # a raise (all-in or not) lifts the level above the bring-in
            called = round_.wagers == 0 and (not round_.big_bet or round_.level == self.stakes.bring_in)
            if found is None and round_.opening and called and not self.option_given:
                seat = self.seats[self.bring_in_seat]
                if seat.can_bet and seat.committed == round_.level and betting.count_bettors(seats) > 1:
                    self.option_given = True
                    seat.acted_at = None  # he has not acted "yet": check, complete or fold
                    return seat.seat
            return found

        betting.next_to_act = next_to_act
        try:
            super()._apply_betting(seat_number, legal)
        finally:
            betting.next_to_act = original


RULES = ("BRING-IN.CALLED-ROUND-ENDS",)


def make_server() -> Server:
    return Server(OptionHand)


if __name__ == "__main__":
    raise SystemExit(serve(sys.stdin.buffer, sys.stdout.buffer, make_server()))
