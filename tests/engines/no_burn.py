"""One rule broken: no burn card before fourth to seventh street (DEAL.BURN), whatever burn_cards says."""
from _onerule import Server, forced, run

RULES = ("DEAL.BURN", "FIVE.STREETS")  # five-card stud burns before each street too


def make_server() -> Server:
    return Server(forced(burn_cards=False))


if __name__ == "__main__":
    run(make_server)
