"""Another VALUE of an option than asked: tied boards act first by suit (first_actor_tie: suit)
although hello declares seat and new_hand asks for it."""
from _onerule import Server, forced, rules, run

OPTION = "first_actor_tie"  # the rules it may break are this option's (spec/options.md, "Rules it changes")


def make_server() -> Server:
    return Server(forced(first_actor_tie=rules.FirstActorTie.SUIT))


if __name__ == "__main__":
    run(make_server)
