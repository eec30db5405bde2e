"""One rule broken: the rake cap is ignored, the whole percentage is raked (RAKE.PERCENT)."""
from _onerule import Server, forced, run

RULES = ("RAKE.PERCENT",)


def make_server() -> Server:
    return Server(forced(rake_cap=0))


if __name__ == "__main__":
    run(make_server)
