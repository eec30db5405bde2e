"""One rule broken: the cap is never lifted heads-up, whatever heads_up says (BET.CAP.HEADS-UP)."""
from _onerule import Server, forced, rules, run

RULES = ("BET.CAP.HEADS-UP",)


def make_server() -> Server:
    return Server(forced(heads_up=rules.HeadsUp.CAPPED))


if __name__ == "__main__":
    run(make_server)
