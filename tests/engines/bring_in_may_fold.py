"""One rule broken: the bring-in seat may fold instead of posting (BRING-IN.CHOICE)."""
from _onerule import Hand, Server, rules, run
from studcheck.engine.state import LegalAction

RULES = ("BRING-IN.CHOICE",)
FOLD = LegalAction(action=rules.ActionType.FOLD)


class FoldingBringIn(Hand):
    def _compute_legal(self):
        legal = super()._compute_legal()
        opening = self.round is not None and self.round.opening and self.round.level == 0
        if opening and self.to_act == self.bring_in_seat and legal and legal[0].action is not rules.ActionType.FOLD:
            return (FOLD, *legal)
        return legal


def make_server() -> Server:
    return Server(FoldingBringIn)


if __name__ == "__main__":
    run(make_server)
