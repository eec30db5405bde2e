"""One rule broken: in Razz the lowest door card brings in, as in Stud High (BRING-IN.CARD.HIGH)."""
from _onerule import Hand, Server, betting, rules, run

# It plays Stud High's choice wholesale: the lowest door, and among equal doors Stud High's suit
# order, so in Razz it breaks the tie's suit direction too (BRING-IN.TIE.SUIT) where every door ties.
RULES = ("BRING-IN.CARD.HIGH", "BRING-IN.TIE.SUIT")


class LowestBringsIn(Hand):
    def _deal_opening(self):
        super()._deal_opening()
        if self.variant is rules.Variant.RAZZ:
            doors = {seat.seat: seat.up[0] for seat in self._seat_list}
            self.bring_in_seat = betting.bring_in_seat(rules.Variant.STUD_HIGH, self.options, doors)


def make_server() -> Server:
    return Server(LowestBringsIn)


if __name__ == "__main__":
    run(make_server)
