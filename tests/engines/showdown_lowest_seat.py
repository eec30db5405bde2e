"""One rule broken: with no bet on the last street the lowest seat shows first, not the first actor
(SHOWDOWN.ORDER.UNBET)."""
from _onerule import Server, forced, rules, run

RULES = ("SHOWDOWN.ORDER.UNBET",)


def make_server() -> Server:
    return Server(forced(showdown_unbet=rules.ShowdownUnbet.LOWEST_SEAT))


if __name__ == "__main__":
    run(make_server)
