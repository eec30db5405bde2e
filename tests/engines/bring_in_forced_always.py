"""Another VALUE of an option than asked: in pot and no limit the bring-in is always forced
(big_bet_bring_in: forced) although hello declares open and new_hand asks for the default, open: the
bring-in seat is never offered a bet above the bring-in, and its post is no action."""
from _onerule import Server, forced, rules, run

OPTION = "big_bet_bring_in"  # the rules it may break are this option's (spec/options.md, "Rules it changes")


def make_server() -> Server:
    return Server(forced(big_bet_bring_in=rules.BigBetBringIn.FORCED))


if __name__ == "__main__":
    run(make_server)
