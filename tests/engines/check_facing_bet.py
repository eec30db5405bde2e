"""One rule broken: a player facing a bet may check (BET.CHECK); the check passes the turn on."""
from _onerule import Hand, Server, rules, run
from studcheck.engine.state import LegalAction

RULES = ("BET.CHECK",)
CHECK = LegalAction(action=rules.ActionType.CHECK)


class CheckingHand(Hand):
    def _compute_legal(self):
        legal = super()._compute_legal()
        if any(entry.action is rules.ActionType.CALL for entry in legal):
            return (legal[0], CHECK, *legal[1:])
        return legal


def make_server() -> Server:
    return Server(CheckingHand)


if __name__ == "__main__":
    run(make_server)
