"""One rule broken: a bring-in as large as the small bet is accepted (SETUP.STAKES: 0 < bring-in < small bet)."""
from _onerule import Server, rules, run, swapped
from studcheck.protocol import serve


def _stakes(**fields):
    if fields.get("bring_in") == fields.get("small_bet") and isinstance(fields.get("small_bet"), int):
        stakes = rules.Stakes(**{**fields, "small_bet": fields["small_bet"] + 1, "big_bet": max(fields["big_bet"], fields["small_bet"] + 1)})
        object.__setattr__(stakes, "small_bet", fields["small_bet"])
        object.__setattr__(stakes, "big_bet", fields["big_bet"])
        return stakes
    return rules.Stakes(**fields)


RULES = ("SETUP.STAKES",)


class LenientServer(Server):
    def _new_hand(self, seq, request):
        with swapped(serve, "Stakes", _stakes):
            return super()._new_hand(seq, request)


def make_server() -> Server:
    return LenientServer()


if __name__ == "__main__":
    run(make_server)
