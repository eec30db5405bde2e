"""One rule broken: equal bring-in cards are decided by seat, not suit (BRING-IN.TIE.SUIT)."""
from _onerule import Server, forced, rules, run

RULES = ("BRING-IN.TIE.SUIT",)


def make_server() -> Server:
    return Server(forced(bring_in_tie=rules.BringInTie.SEAT))


if __name__ == "__main__":
    run(make_server)
