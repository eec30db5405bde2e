"""One rule broken: an action by a seat that is not to act is refused as `illegal_action` where the rules
say `out_of_turn` (BET.ORDER; ACTION.REFUSAL checks the reasons in their order). The same wrong reason
shows in every kind of request (check, call, bring-in, show, ...): one fix, one cause with several ways
it showed (harness/groups.py)."""
from _onerule import Hand, Server, run

from studcheck.engine.errors import IllegalAction, Reason


class OutOfTurnAsIllegal(Hand):
    def _check_fully(self, action):
        try:
            return super()._check_fully(action)
        except IllegalAction as refused:
            if refused.reason is Reason.OUT_OF_TURN:
                raise IllegalAction(Reason.ILLEGAL_ACTION, refused.message) from None
            raise


RULES = ("BET.ORDER",)


def make_server() -> Server:
    return Server(OutOfTurnAsIllegal)


if __name__ == "__main__":
    run(make_server)
