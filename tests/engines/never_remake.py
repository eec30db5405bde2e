"""Another VALUE of an option than asked: a short stub is never remade, a community card is used at
once (short_stub: community), although hello declares remake and new_hand asks for it."""
from _onerule import Server, forced, rules, run

OPTION = "short_stub"  # the rules it may break are this option's (spec/options.md, "Rules it changes")


def make_server() -> Server:
    return Server(forced(short_stub=rules.ShortStub.COMMUNITY))


if __name__ == "__main__":
    run(make_server)
